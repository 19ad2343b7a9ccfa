"""Stacked walkable surfaces (issue 41): a road under a bridge, a three-turn spiral ramp, stairs
to an upper floor over a ground storey — baked from triangle soup with default settings, and
checked against references computed without rtsnav (``layered_scenes``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rtsnav.systems.nav import LayeredNavMesh, NavMesh
from rtsnav.systems.nav.errors import NavError

from . import layered_scenes as scenes

RADIUS = 0.3


@pytest.fixture(scope="module")
def overpass():
    v, t = scenes.overpass()
    return NavMesh.from_triangles(v, t, agent_radius=RADIUS), v, t


@pytest.fixture(scope="module")
def spiral():
    v, t = scenes.spiral()
    return NavMesh.from_triangles(v, t, agent_radius=RADIUS), v, t


def on_walkable_triangle(points: np.ndarray, v: np.ndarray, t: np.ndarray, tol: float = 0.02,
                         max_slope: float = 35.0) -> np.ndarray:
    """Per point: lies (within ``tol`` in z) on a triangle of the soup flat enough to walk on."""
    a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    n = np.cross(b - a, c - a)
    flat = np.abs(n[:, 2]) / np.linalg.norm(n, axis=1) >= math.cos(math.radians(max_slope)) - 1e-9
    a, b, c, n = a[flat], b[flat], c[flat], n[flat]
    out = np.zeros(len(points), dtype=bool)
    for i, p in enumerate(points):
        u, w = b - a, c - a
        det = u[:, 0] * w[:, 1] - u[:, 1] * w[:, 0]
        px, py = p[0] - a[:, 0], p[1] - a[:, 1]
        l1 = (px * w[:, 1] - py * w[:, 0]) / det
        l2 = (u[:, 0] * py - u[:, 1] * px) / det
        inside = (l1 >= -1e-6) & (l2 >= -1e-6) & (l1 + l2 <= 1 + 1e-6)
        z = a[:, 2] + l1 * u[:, 2] + l2 * w[:, 2]
        out[i] = bool((inside & (np.abs(z - p[2]) <= tol)).any())
    return out


def dense(points: np.ndarray, step: float = 0.1) -> np.ndarray:
    """The path's xy sampled every ``step`` (z left out)."""
    parts = [np.linspace(a[:2], b[:2], max(2, int(np.linalg.norm(b[:2] - a[:2]) / step) + 1))
             for a, b in zip(points[:-1], points[1:])]
    return np.concatenate(parts)


def test_a_soup_with_a_bridge_bakes_both_surfaces(overpass):
    mesh, _, _ = overpass
    assert isinstance(mesh, LayeredNavMesh) and mesh.layer_count == 2
    under = (40.0, 4.0)
    assert mesh.height_at((*under, 0.0)) == 0.0                      # picks the road by height …
    assert mesh.height_at((*under, 4.2)) == pytest.approx(scenes.DECK_Z)   # … or the deck
    assert mesh.height_at(under) == pytest.approx(scenes.DECK_Z)     # 2D point: the top surface
    assert math.isnan(mesh.height_at((*under, -5.0)))


def test_a_path_along_the_road_stays_on_the_road_and_is_straight(overpass):
    mesh, _, _ = overpass
    r = mesh.find_path((2.0, 4.0, 0.0), (78.0, 4.0, 0.0))
    assert r.found and len(r.points) == 2 and r.cost == pytest.approx(76.0)
    xy = dense(r.points)
    assert np.abs(xy[:, 1] - 4.0).max() <= 0.1 and np.abs(r.points[:, 2]).max() == 0.0
    assert all(mesh.height_at((x, y, 0.0)) == 0.0 for x, y in xy[::10])


def test_a_path_along_the_deck_stays_on_the_deck(overpass):
    mesh, _, _ = overpass
    r = mesh.find_path((40.0, -5.0, 4.0), (41.0, 13.0, 4.0))
    assert r.found and np.allclose(r.points[:, 2], scenes.DECK_Z)
    assert r.cost == pytest.approx(math.hypot(1.0, 18.0), rel=1e-6)
    xy = dense(r.points)
    assert (xy[:, 0] > scenes.BRIDGE_X[0] + RADIUS - 1e-9).all() and (xy[:, 0] < scenes.BRIDGE_X[1] - RADIUS).all()


@pytest.mark.parametrize("start, goal", [((38.0, -32.0), (42.0, 4.0)), ((41.0, -30.0), (37.0, 10.0)),
                                         ((39.0, -33.5), (40.0, -2.0))])
def test_road_to_deck_climbs_the_ramp_by_the_shortest_route(overpass, start, goal):
    mesh, v, t = overpass
    r = mesh.find_path((*start, 0.0), (*goal, scenes.DECK_Z))
    reference = scenes.overpass_ramp_reference(start, goal)
    assert r.found and r.cost == pytest.approx(reference, rel=0.02)
    assert r.points[-1, 2] == pytest.approx(scenes.DECK_Z)
    assert on_walkable_triangle(r.points, v, t).all()


def test_top_floor_to_ground_on_a_three_turn_spiral_is_within_two_percent(spiral):
    mesh, v, t = spiral
    top = (scenes.TURNS * 2 * math.pi + 0.6 * scenes.LANDING, 5.5)
    ground = (-0.6 * scenes.LANDING, 5.5)
    r = mesh.find_path(scenes.spiral_point(*top), scenes.spiral_point(*ground))
    reference = scenes.spiral_reference(*top, *ground, clearance=RADIUS)
    assert mesh.layer_count >= 3
    assert r.found and r.points[0, 2] == pytest.approx(9.0) and r.points[-1, 2] == pytest.approx(0.0)
    assert r.cost == pytest.approx(reference, rel=0.02)
    assert on_walkable_triangle(r.points, v, t).all()
    xy = dense(r.points, 0.05)                       # never through the central shaft or off the band
    radius = np.hypot(xy[:, 0] - 10, xy[:, 1] - 10)
    assert radius.min() > scenes.SPIRAL_IN + RADIUS - 0.05 and radius.max() < scenes.SPIRAL_OUT - RADIUS + 0.05


def test_stairs_climb_to_the_upper_floor_and_the_ground_storey_runs_under_it():
    v, t = scenes.stairs()
    mesh = NavMesh.from_triangles(v, t, agent_radius=RADIUS)
    assert isinstance(mesh, LayeredNavMesh)
    far = 10 + 12 * 0.5 + 8
    up = mesh.find_path((2.0, 3.0, 0.0), (far, 3.0, 3.0))
    assert up.found and up.cost == pytest.approx(far - 2.0, rel=0.02) and up.points[-1, 2] == pytest.approx(3.0)
    assert on_walkable_triangle(up.points, v, t).all()
    assert np.all(np.diff(up.points[:, 2]) >= -1e-9)                   # climbs, never down
    under = mesh.find_path((2.0, 1.0, 0.0), (far, 3.0, 0.0))
    assert under.found and np.abs(under.points[:, 2]).max() == 0.0     # stays on the ground storey


def test_a_ladder_link_joins_road_and_deck_and_a_partial_path_ends_nearest(overpass):
    v, t = scenes.overpass()
    mesh = NavMesh.from_triangles(v, t, agent_radius=RADIUS)
    mesh.add_link((45.0, 0.5, 0.0), (43.0, 0.5, 4.0), cost=3.0, kind="ladder")
    r = mesh.find_path((60.0, 1.0, 0.0), (40.0, 1.0, 4.0))
    assert r.found and r.link_kinds == ("ladder",) and r.cost == pytest.approx(15.0 + 3.0 + 3.0, rel=0.01)
    i = r.links[0]
    assert r.points[i, 2] == 0.0 and r.points[i + 1, 2] == pytest.approx(4.0)
    island = NavMesh.from_triangles(*scenes.Soup.from_quads([((0, 0, 0), (10, 0, 0), (10, 10, 0), (0, 10, 0)),
                                                             ((20, 0, 0), (30, 0, 0), (30, 10, 0), (20, 10, 0)),
                                                             ((2, 2, 5), (8, 2, 5), (8, 8, 5), (2, 8, 5))]),
                                    agent_radius=RADIUS)
    p = island.find_path((1.0, 5.0, 0.0), (25.0, 5.0, 0.0))
    assert p.partial and not p.found and p.points[-1, 0] == pytest.approx(10 - RADIUS, abs=0.15)


def test_raycast_runs_under_the_deck_and_stops_at_the_road_edge(overpass):
    mesh, _, _ = overpass
    clear, hit = mesh.raycast((20.0, 4.0, 0.0), (60.0, 4.0, 0.0))
    assert clear and hit[2] == 0.0
    clear, hit = mesh.raycast((40.0, -2.0, 4.0), (48.0, -2.0, 4.0))      # off the deck's side
    assert not clear and hit[0] == pytest.approx(scenes.BRIDGE_X[1] - RADIUS, abs=0.1) and hit[2] == pytest.approx(4.0)


def test_single_surface_soups_keep_the_exact_mesh_and_layers_can_be_chosen():
    flat = scenes.Soup.from_quads([((0, 0, 0), (10, 0, 0), (10, 10, 0), (0, 10, 0))])
    assert type(NavMesh.from_triangles(*flat)) is NavMesh
    assert type(NavMesh.from_triangles(*flat, layers="all")) is LayeredNavMesh
    assert type(NavMesh.from_triangles(*scenes.overpass(), layers="top", cell_size=0.5)) is NavMesh
    with pytest.raises(NavError, match="layers"):
        NavMesh.from_triangles(*flat, layers="some")
