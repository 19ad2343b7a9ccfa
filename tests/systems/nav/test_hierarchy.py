"""The multi-level hierarchy: found-ness exact, near-optimal paths on benchmark maps, on-demand
refinement, incremental updates equal to fresh builds, disk cache with checksums."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.levels import load_movingai_map, load_movingai_scenarios
from rtsnav.systems.nav import Grid, NavError, find_path, validate_path
from rtsnav.systems.nav.waypoints.hierarchy import CoarseRoute, Hierarchy
from tests.conftest import stratified_sample

_built = {}


def _hierarchy(name):
    if name not in _built:
        grid = load_movingai_map(name + ".map")
        _built[name] = (grid, Hierarchy.build(grid))
    return _built[name]


def _assert_quality(grid, h, queries):
    """queries: (start, goal, optimum or 0 for unreachable)."""
    sub = []
    for start, goal, best in queries:
        r = h.find_path(start, goal)
        assert r.found == (best > 0 or start == goal), (start, goal, r.reason)
        if not r.found or best == 0:
            continue
        # smoothed waypoints: consecutive ones see each other; ends are the query's cells
        assert tuple(r.cells[0]) == tuple(start) and tuple(r.cells[-1]) == tuple(goal)
        for a, b in zip(r.cells[:-1], r.cells[1:]):
            assert grid.line_of_sight(tuple(a), tuple(b))
        sub.append(r.cost / best - 1.0)
        raw = h.find_path(start, goal, smooth=False)
        validate_path(grid, raw.cells, start, goal)           # the refined grid path is legal
        assert raw.cost >= best - max(1e-3, 6e-6 * best)         # and never beats the optimum
    sub = np.array(sub)
    assert sub.mean() <= 0.02 and sub.max() <= 0.10, (sub.mean(), sub.max())
    return sub


def test_acrossthecape_600_stratified_scenarios():
    grid, h = _hierarchy("AcrosstheCape")
    scens = stratified_sample(load_movingai_scenarios("AcrosstheCape.map.scen"), 600)
    _assert_quality(grid, h, [(s.start, s.goal, s.optimal) for s in scens])


@pytest.mark.parametrize("name", ["w_woundedcoast", "brc202d"])
def test_random_pairs_against_exact_grid_search(name):
    grid, h = _hierarchy(name)
    rng = np.random.default_rng(12)
    cells = np.argwhere(grid.passable)[:, ::-1]
    queries = []
    for _ in range(150):
        s, t = (tuple(int(v) for v in cells[i]) for i in rng.integers(0, len(cells), 2))
        r = find_path(grid, s, t)
        queries.append((s, t, r.cost if r.found else 0.0))
    assert any(q[2] == 0 for q in queries) or name == "brc202d"
    _assert_quality(grid, h, queries)


def test_unreachable_goals_are_answered_without_search():
    grid = load_movingai_map("rmtst01.map")
    h = Hierarchy.build(grid)
    labels = grid.components()
    a = tuple(int(v) for v in np.argwhere(labels == 0)[0][::-1])
    b = tuple(int(v) for v in np.argwhere(labels == 1)[0][::-1])
    r = h.find_path(a, b)
    assert not r.found and r.expanded == 0 and "not reachable" in r.reason
    assert len(h.component_labels(1)) == h.node_count


def test_three_levels_by_default_with_growing_clusters():
    grid, h = _hierarchy("AcrosstheCape")
    assert h.levels == 3 and h.sizes == [32, 128, 512]
    counts = [int((h.node_level >= lv).sum()) for lv in (1, 2, 3)]
    assert counts[0] > counts[1] > counts[2] > 0


def test_refinement_on_demand_refines_one_leg_at_a_time():
    grid, h = _hierarchy("AcrosstheCape")
    s = max(load_movingai_scenarios("AcrosstheCape.map.scen"), key=lambda s: s.optimal)
    route = h.plan(s.start, s.goal)
    assert isinstance(route, CoarseRoute) and route.legs_left > 10
    first = route.next_leg()
    assert tuple(first[0]) == s.start and route.legs_left == len(route.waypoints) - 2
    validate_path(grid, first)
    rest = route.refine_all()
    full = np.concatenate([first, rest[1:]])
    validate_path(grid, full, s.start, s.goal)


def _corridor_world():
    """Two halls joined by two corridors; blocking one must send paths through the other."""
    p = np.zeros((96, 160), dtype=bool)
    p[4:92, 4:60] = True
    p[4:92, 100:156] = True
    p[20:24, 60:100] = True            # north corridor (short route)
    p[80:84, 60:100] = True            # south corridor
    return p


def test_update_reroutes_equals_a_fresh_build_and_touches_only_nearby_clusters():
    grid = Grid(_corridor_world())
    h = Hierarchy.build(grid, levels=3, cluster_size=8, ratio=2)
    before = h.find_path((10, 22), (150, 22))
    assert before.found and before.cost == pytest.approx(140.0)           # straight through the north
    wall = np.array([[78, y] for y in range(20, 24)])
    grid.set_passable(wall, False)
    rebuilt = h.update(wall)
    total = [h.cluster_count(lv) for lv in (1, 2, 3)]
    assert 0 < rebuilt[0] <= 6 and rebuilt[0] < total[0] and rebuilt[1] < total[1]
    after = h.find_path((10, 22), (150, 22), smooth=False)
    validate_path(grid, after.cells, (10, 22), (150, 22))
    assert after.cost > before.cost + 60                        # went round by the south corridor
    fresh = Hierarchy.build(grid, levels=3, cluster_size=8, ratio=2)
    rng = np.random.default_rng(0)
    cells = np.argwhere(grid.passable)[:, ::-1]
    for _ in range(30):
        s, t = (tuple(int(v) for v in cells[i]) for i in rng.integers(0, len(cells), 2))
        a, b = h.find_path(s, t), fresh.find_path(s, t)
        assert a.found == b.found and np.array_equal(a.cells, b.cells)


def test_stale_hierarchy_refuses_queries():
    grid = Grid(_corridor_world())
    h = Hierarchy.build(grid, cluster_size=8)
    grid.set_passable([[30, 30]], False)
    with pytest.raises(NavError, match="changed"):
        h.find_path((10, 22), (150, 22))


def test_cache_round_trip_and_corruption_is_detected(tmp_path):
    grid = load_movingai_map("den520d.map")
    h = Hierarchy.cached(grid, tmp_path)
    assert any(h.rebuilt)
    again = Hierarchy.cached(grid, tmp_path)
    assert not any(again.rebuilt)                               # loaded, nothing searched
    rng = np.random.default_rng(1)
    cells = np.argwhere(grid.passable)[:, ::-1]
    for _ in range(20):
        s, t = (tuple(int(v) for v in cells[i]) for i in rng.integers(0, len(cells), 2))
        assert np.array_equal(h.find_path(s, t).cells, again.find_path(s, t).cells)
    (path,) = list(tmp_path.glob("*.npz"))
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(NavError):
        Hierarchy.load(path, grid)
    rebuilt = Hierarchy.cached(grid, tmp_path)                  # corrupt cache: rebuilt
    assert any(rebuilt.rebuilt)
    other = load_movingai_map("arena.map")
    with pytest.raises(NavError, match="another grid"):
        Hierarchy.load(path, other)


@pytest.mark.parametrize("kw", [{"levels": 0}, {"cluster_size": 2}, {"ratio": 1}])
def test_bad_parameters_raise(kw):
    with pytest.raises(NavError):
        Hierarchy.build(Grid(np.ones((20, 20), dtype=bool)), **kw)
