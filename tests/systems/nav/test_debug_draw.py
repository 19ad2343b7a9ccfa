"""The debug-draw layer: plain arrays that say what the navigation does, checked against it."""

from __future__ import annotations

import numpy as np

from rtsnav.levels import load_level
from rtsnav.systems.nav import Grid, Hierarchy, NavMesh, debug_draw, find_path
from rtsnav.systems.nav.flow import FlowField


def open_grid(w=40, h=30):
    p = np.ones((h, w), dtype=bool)
    p[10:20, 18:22] = False
    return Grid(p)


def test_paths_are_segments_along_the_polyline_with_an_end_dot():
    g = open_grid()
    r = find_path(g, (2, 2), (37, 27))
    world = g.cells_to_world(r.cells)[:, :2]
    d = debug_draw.paths(g, [world, world[:1]])                 # a one-point line draws nothing
    assert d.segments.shape == (len(world) - 1, 2, 3) and d.segment_colors.shape == (len(world) - 1, 4)
    assert np.allclose(d.segments[:, 0, :2], world[:-1]) and np.allclose(d.segments[:, 1, :2], world[1:])
    assert np.allclose(d.points[0, :2], world[-1]) and d.legend == [("paths", debug_draw.COLORS["path"])]


def test_vector_field_arrows_point_where_the_field_does_and_have_heads():
    g = open_grid()
    field = FlowField.build(g, [(35, 15)])
    d = debug_draw.vector_field(g, field, step=5)
    n = len(d.segments) // 3                                    # shaft, then two head strokes each
    shafts, left, right = d.segments[:n], d.segments[n:2 * n], d.segments[2 * n:]
    centre = (shafts[:, 0, :2] + shafts[:, 1, :2]) / 2
    along = shafts[:, 1, :2] - shafts[:, 0, :2]
    along /= np.linalg.norm(along, axis=1, keepdims=True)
    assert np.allclose(along, field.sample(centre), atol=1e-6)
    assert np.allclose(left[:, 0], shafts[:, 1]) and np.allclose(right[:, 0], shafts[:, 1])   # heads at the tips
    assert ((left[:, 1, :2] - shafts[:, 1, :2]) * along).sum(axis=1).max() < 0                # pointing back
    cells = g.world_to_cells(centre)
    assert g.passable[cells[:, 1], cells[:, 0]].all()
    mask = np.zeros(g.shape, dtype=bool)
    mask[:, :10] = True
    masked = debug_draw.vector_field(g, field, step=5, mask=mask)
    assert 0 < len(masked.segments) < len(d.segments)
    assert (g.world_to_cells(masked.segments[:, 0, :2])[:, 0] < 12).all()


def test_hierarchy_shows_entrances_borders_and_the_abstract_route():
    g = load_level("river").grid
    h = Hierarchy.build(g, levels=2, cluster_size=16)
    route = h.plan((5, 30), (90, 30)).waypoints
    d = debug_draw.hierarchy(g, h, route=route)
    names = [n for n, _ in d.legend]
    assert names == ["clusters", "entrances", "abstract route"]
    # entrances: one dot per abstract node (route end dot last)
    assert len(d.points) == h.node_count + 1
    # borders only on the cluster lines (x or y a multiple of 16 world units)
    cluster = np.all(d.segment_colors == debug_draw.COLORS["cluster"], axis=1)
    ends = d.segments[cluster][:, :, :2].reshape(-1, 2)
    on_line = (np.isclose(ends[:, 0] % 16, 0) | np.isclose(ends[:, 1] % 16, 0))
    assert on_line.all()
    routed = d.segments[~cluster]
    assert np.allclose(routed[0, 0, :2], g.cell_to_world(5, 30)[:2]) and np.allclose(routed[-1, 1, :2],
                                                                                      g.cell_to_world(90, 30)[:2])


def test_navmesh_outlines_and_the_query_corridor():
    g = open_grid()
    mesh = NavMesh.from_grid(g, agent_radius=0.0)
    r = mesh.find_path((2.5, 15.5, 0.0), (37.5, 15.5, 0.0))
    corridor = mesh.polygons_along(r.points)
    d = debug_draw.navmesh(mesh, corridor=corridor)
    assert len(d.segments) == 4 * mesh.polygon_count + 6 * len(np.unique(corridor))
    assert [n for n, _ in d.legend] == ["navmesh polygons", "query corridor"]
    assert mesh.polygon_at(r.points[len(r.points) // 2]) in set(corridor.tolist())


def test_density_marks_shared_cells_and_reddens_with_the_count():
    g = open_grid()
    pos = np.array([[1.5, 1.5], [1.6, 1.4], [5.5, 5.5]] + [[9.5, 9.5]] * 6)
    d = debug_draw.density(g, pos, crowded=4)
    assert len(d.points) == 2                                    # (1, 1) with two, (9, 9) with six
    two, six = d.point_colors[np.argsort(d.points[:, 0])]
    assert np.allclose(two, debug_draw.COLORS["density_low"]) and np.allclose(six, debug_draw.COLORS["density_high"])
    assert debug_draw.density(g, pos[2:3]).empty


def test_joining_keeps_everything_and_one_legend_entry_per_name():
    g = open_grid()
    a = debug_draw.markers(g, np.array([[5.0, 5.0], [9.0, 9.0]]), "goal", "goal")
    b = debug_draw.markers(g, np.array([[15.0, 5.0]]), "goal", "goal")
    c = a + b
    assert len(c.segments) == 48 and c.legend == [("goal", debug_draw.COLORS["goal"])]
    radius = np.linalg.norm(c.segments[:16, 0, :2] - [5.0, 5.0], axis=1)
    assert np.allclose(radius, 1.5)
