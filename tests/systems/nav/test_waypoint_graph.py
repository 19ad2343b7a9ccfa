"""Waypoint graphs: floodfill coverage, line-of-sight attachment, lookup tables, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.levels import load_movingai_map
from rtsnav.systems.nav import Grid, NavError
from rtsnav.systems.nav.waypoints.graph import LookupTables, WaypointGraph


def test_floodfill_on_arena_reaches_every_cell_of_the_region_within_spacing():
    grid = load_movingai_map("arena.map")
    spacing = 3
    g = WaypointGraph.floodfill(grid, (10, 10), spacing=spacing)
    labels = grid.components()
    region = np.argwhere(labels == labels[10, 10])[:, ::-1]
    # every region cell has a waypoint within `spacing` cells (Chebyshev) that it can see
    for cell in region:
        d = np.abs(g.cells - cell).max(axis=1)
        near = np.flatnonzero(d <= spacing)
        assert any(grid.line_of_sight(tuple(cell), tuple(g.cells[i])) for i in near), tuple(cell)
    # edges are walkable straight segments
    for u in range(len(g)):
        for e in range(g.adj_start[u], g.adj_start[u + 1]):
            assert grid.line_of_sight(tuple(g.cells[u]), tuple(g.cells[g.adj_target[e]]))


def test_lookup_table_paths_equal_graph_dijkstra():
    grid = load_movingai_map("arena.map")
    g = WaypointGraph.floodfill(grid, (10, 10), spacing=3)
    lt = g.lookup_tables()
    rng = np.random.default_rng(0)
    for _ in range(60):
        a, b = (int(v) for v in rng.integers(0, len(g), 2))
        cost, path = g.shortest_path(a, b)
        table_path = lt.path(a, b)
        assert lt.cost[a, b] == pytest.approx(cost, rel=1e-6)
        assert table_path[0] == a and table_path[-1] == b
        steps = sum(np.hypot(*(g.points[u, :2] - g.points[v, :2])) for u, v in zip(table_path[:-1], table_path[1:]))
        assert steps == pytest.approx(cost, rel=1e-6)           # a shortest path (ties may differ)
        for u, v in zip(table_path[:-1], table_path[1:]):       # along real edges
            assert v in g.adj_target[g.adj_start[u]:g.adj_start[u + 1]]


def test_lookup_tables_state_and_enforce_their_memory_limit():
    grid = Grid(np.ones((30, 30), dtype=bool))
    g = WaypointGraph.floodfill(grid, (0, 0), spacing=2)
    assert LookupTables.bytes_needed(len(g)) == 8 * len(g) ** 2
    with pytest.raises(NavError, match="MiB"):
        LookupTables.build(g, limit_bytes=1000)


def test_find_path_attaches_by_line_of_sight_and_walks_only_clear_segments():
    grid = load_movingai_map("den520d.map")
    labels = grid.components()
    cells = np.argwhere(labels == np.bincount(labels[labels >= 0]).argmax())[:, ::-1]
    g = WaypointGraph.floodfill(grid, tuple(cells[len(cells) // 2]), spacing=4)
    rng = np.random.default_rng(2)
    found = 0
    for _ in range(40):
        s, t = (grid.cell_to_world(*cells[i]) for i in rng.integers(0, len(cells), 2))
        r = g.find_path(s, t)
        if not r.found:
            continue
        found += 1
        pts = grid.cells_to_world(r.cells)
        pts[0, :2], pts[-1, :2] = s[:2], t[:2]
        assert grid.segments_clear(pts[:-1], pts[1:]).all()
    assert found >= 36


def test_from_waypoints_joins_visible_pairs_only():
    p = np.ones((10, 10), dtype=bool)
    p[:, 5] = False
    grid = Grid(p)
    g = WaypointGraph.from_waypoints(grid, [(1, 1), (3, 3), (8, 8)])
    assert g.edge_count == 1                                  # (8, 8) is behind the wall
    assert not g.find_path((1.5, 1.5), (8.5, 8.5)).found
    with pytest.raises(NavError, match="blocked"):
        WaypointGraph.from_waypoints(grid, [(5, 5)])


def test_bad_floodfill_input():
    grid = Grid(np.ones((5, 5), dtype=bool))
    with pytest.raises(NavError):
        WaypointGraph.floodfill(grid, (0, 0), spacing=0)
    with pytest.raises(NavError):
        WaypointGraph.floodfill(grid, (9, 9))


def test_nearest_waypoint_matches_a_scan():
    grid = load_movingai_map("arena.map")
    g = WaypointGraph.floodfill(grid, (10, 10), spacing=3)
    rng = np.random.default_rng(4)
    for p in rng.uniform(0, 49, (50, 2)):
        scan = int(np.argmin(np.hypot(*(g.points[:, :2] - p).T)))
        got = g.nearest(p)
        assert np.hypot(*(g.points[got, :2] - p)) == pytest.approx(np.hypot(*(g.points[scan, :2] - p)))
