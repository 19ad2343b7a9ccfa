"""Stacked walkable surfaces in the demo (issue 41): the overpass scene built as Panda3D
geometry with its walkable nodes tagged, the navmesh baked from that scene graph, a crowd
crossing over and under the bridge, rendered offscreen; ``levels show`` of the same scene."""

from __future__ import annotations

import numpy as np
import pytest
from panda3d.core import NodePath

from rtsnav.game.model_geometry import navmesh_from_model, tagged_triangles
from rtsnav.game.overpass import ROUTE_COLORS, OverpassDemo
from rtsnav.game.scene import mesh_node
from rtsnav.systems.nav import LayeredNavMesh


def _quad_node(root: NodePath, name: str, corners, walkable: bool) -> NodePath:
    v = np.array(corners, dtype=np.float64)
    node = root.attachNewNode(mesh_node(name, v, np.ones((4, 4)), np.array([[0, 1, 2], [0, 2, 3]]))[0])
    if walkable:
        node.setTag("walkable", "1")
    return node


def test_only_tagged_geometry_is_walked_on_and_the_rest_gives_headroom():
    root = NodePath("level")
    _quad_node(root, "floor", [(0, 0, 0), (20, 0, 0), (20, 10, 0), (0, 10, 0)], True)
    _quad_node(root, "table top", [(8, 2, 1.0), (12, 2, 1.0), (12, 8, 1.0), (8, 8, 1.0)], False)
    _quad_node(root, "balcony", [(2, 2, 4.0), (6, 2, 4.0), (6, 8, 4.0), (2, 8, 4.0)], True)
    vertices, triangles, walkable = tagged_triangles(root, "walkable")
    assert len(triangles) == 6 and walkable.tolist() == [True, True, False, False, True, True]
    mesh = navmesh_from_model(root, walkable_tag="walkable", agent_radius=0.3)
    assert isinstance(mesh, LayeredNavMesh)
    assert np.isnan(mesh.height_at((10, 5, 1.0))) or mesh.height_at((10, 5, 1.0)) != 1.0   # the table: not walked on
    assert np.isnan(mesh.height_at((10, 5, 0.0)))           # … and no room under it (1.0 < agent height)
    assert mesh.height_at((4, 5, 0.0)) == 0.0 and mesh.height_at((4, 5, 4.0)) == 4.0    # floor under the balcony
    r = mesh.find_path((1, 5, 0), (19, 5, 0))
    assert r.found and r.cost > 18.5                        # round the table, not under or over it


@pytest.fixture(scope="module")
def demo():
    d = OverpassDemo(headless=True, size=(640, 400), units=12)
    yield d
    d.destroy()


def test_the_overpass_scene_plays_units_cross_over_and_under_the_bridge(demo, tmp_path):
    demo.step(int(13 / (1 / 30)))                           # the columns meet at the bridge about now
    img = demo.screenshot(tmp_path / "overpass.png")
    assert img.shape == (400, 640, 3) and img.std() > 10
    for route in ("road", "bridge", "upstairs"):
        c = np.array(ROUTE_COLORS[route]) * 255
        assert (np.abs(img.astype(int) - c).max(axis=2) < 60).sum() > 30, route     # each column in view
    demo.step(int(20 / (1 / 30)))
    s = demo.summary()
    assert s["navmesh"]["surfaces_in_a_cell"] >= 2
    for route in ("road", "bridge", "upstairs", "downstairs"):
        assert s[route]["arrived"] == s[route]["units"], route
    assert s["road_and_deck_overlapping_in_plan_ticks"] > 0            # they did pass one over the other
    assert s["road_units_highest_z"] == 0.0 and s["deck_units_lowest_z_over_the_road"] == pytest.approx(4.0)
    assert s["upstairs"]["z_now"] == [3.0, 3.0] and max(s["downstairs"]["z_now"]) < 0.1   # which floor each ended on


def test_levels_show_draws_the_stacked_scene(tmp_path):
    from PIL import Image

    from rtsnav.levels.__main__ import main as levels_cli

    out = tmp_path / "overpass.png"
    assert levels_cli(["show", "overpass", "--out", str(out)]) == 0
    img = np.asarray(Image.open(out).convert("RGB")).astype(int)
    assert img.shape[1] > 500 and img.std() > 10
    deck = np.array([0.93, 0.78, 0.46]) * 255                 # the high surface's colour …
    ground = np.array([0.42, 0.62, 0.38]) * 255               # … striped with the road's beneath it
    assert (np.abs(img - deck).max(axis=2) < 20).sum() > 500 and (np.abs(img - ground).max(axis=2) < 20).sum() > 500
    for color in ((0.9, 0.2, 0.2), (0.2, 0.45, 0.95)):        # the road's and the bridge's routes
        assert (np.abs(img - np.array(color) * 255).max(axis=2) < 30).sum() > 100
