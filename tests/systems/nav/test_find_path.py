"""find_path on hand-drawn maps, random grids against a plain reference, and bad input."""

import math

import numpy as np
import pytest

from rtsnav.systems.nav import Grid, NavError, PathResult, PathStatus, find_path, path_cost, validate_path
from tests.conftest import ascii_grid
from tests.systems.nav.reference import reference_costs

METHODS = ["dijkstra", "astar", "weighted", "bidirectional", "jps", "jps+"]
EXACT = ["dijkstra", "astar", "bidirectional", "jps", "jps+"]
SQ2 = math.sqrt(2.0)


def _find(*args, **kwargs):
    """find_path, with "bidirectional" searching from both ends (its pocket rule answers these
    small maps' short queries by A*)."""
    if kwargs.get("method") == "bidirectional":
        kwargs["pocket_rule"] = False
    return find_path(*args, **kwargs)


@pytest.mark.parametrize("method", METHODS)
def test_detour_around_wall_without_cutting_corners(method):
    g = ascii_grid("""
....
###.
....
""")
    r = _find(g, (0, 0), (0, 2), method=method)
    assert r.found and r.status is PathStatus.FOUND and r
    if method != "weighted":
        assert r.cost == pytest.approx(8.0)      # (2,0)->(3,1) would cut the wall's corner
    validate_path(g, r.cells, (0, 0), (0, 2))


@pytest.mark.parametrize("method", METHODS)
def test_open_field_cost_is_octile_distance(method):
    g = Grid(np.ones((20, 30), dtype=bool))
    r = _find(g, (2, 3), (27, 11), method=method)
    assert r.cost == pytest.approx(25 - 8 + 8 * SQ2)


@pytest.mark.parametrize("method", METHODS)
def test_terrain_cost_is_honoured(method):
    # a mud band (cost 9) across the middle with a road gap (cost 1) at the far right
    g = ascii_grid("""
.......
9999999
999999.
9999999
.......
""")
    r = _find(g, (0, 0), (0, 4), method=method)
    straight = 4 * 1.0 + 0.0                          # not possible: must pay the band
    ref = reference_costs(g, (0, 0))[4, 0]
    if method != "weighted":
        assert r.cost == pytest.approx(ref)
    assert r.cost > straight
    assert path_cost(g, r.cells) == pytest.approx(r.cost)


@pytest.mark.parametrize("method", METHODS)
def test_start_equals_goal(method):
    g = Grid(np.ones((3, 3), dtype=bool))
    r = _find(g, (1, 1), (1, 1), method=method)
    assert r.found and r.cost == 0.0 and r.cells.tolist() == [[1, 1]]


@pytest.mark.parametrize("method", METHODS)
def test_blocked_start_or_goal_is_not_found_with_reason(method):
    g = ascii_grid("""
.#.
...
""")
    r = _find(g, (1, 0), (2, 1), method=method)
    assert not r.found and r.status is PathStatus.UNREACHABLE and "start (1, 0) is a blocked cell" in r.reason
    r = _find(g, (0, 0), (1, 0), method=method)
    assert not r.found and "goal (1, 0) is a blocked cell" in r.reason
    assert r.cells.shape == (0, 2) and math.isinf(r.cost)


@pytest.mark.parametrize("method", METHODS)
def test_walled_off_goal_is_unreachable(method):
    g = ascii_grid("""
..#..
..#..
..#..
""")
    r = _find(g, (0, 0), (4, 2), method=method)
    assert not r.found and "not reachable" in r.reason and not r


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("bad", [(-1, 0), (0, 3), (5, 5)])
def test_out_of_bounds_raises_nav_error(method, bad):
    g = Grid(np.ones((3, 3), dtype=bool))
    with pytest.raises(NavError, match="outside the grid"):
        _find(g, bad, (0, 0), method=method)
    with pytest.raises(NavError, match="outside the grid"):
        _find(g, (0, 0), bad, method=method)


def test_unknown_method_heuristic_or_weight_raises():
    g = Grid(np.ones((3, 3), dtype=bool))
    with pytest.raises(NavError, match="unknown method 'teleport'"):
        find_path(g, (0, 0), (2, 2), method="teleport")
    with pytest.raises(NavError, match="unknown heuristic"):
        find_path(g, (0, 0), (2, 2), heuristic="chebyshev")
    with pytest.raises(NavError, match="weight"):
        find_path(g, (0, 0), (2, 2), method="weighted", weight=0.5)
    with pytest.raises(NavError, match="Grid or a 2D numpy array"):
        find_path([[1, 1]], (0, 0), (1, 0))


def test_plain_numpy_array_is_accepted():
    r = find_path(np.ones((4, 4), dtype=bool), (0, 0), (3, 3))
    assert r.cost == pytest.approx(3 * SQ2)


def test_path_result_is_frozen():
    r = find_path(np.ones((2, 2), dtype=bool), (0, 0), (1, 1))
    with pytest.raises(AttributeError):
        r.cost = 0.0
    assert isinstance(r, PathResult)


def _random_grid(rng, cost=False):
    h, w = rng.integers(3, 24, 2)
    passable = rng.random((h, w)) > rng.uniform(0.0, 0.45)
    costs = rng.choice([1.0, 1.0, 2.0, 3.5, 8.0], size=(h, w)) if cost else None
    return Grid(passable, costs)


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("with_cost", [False, True])
def test_random_grids_match_reference_dijkstra(seed, with_cost):
    rng = np.random.default_rng(seed * 2 + with_cost)
    g = _random_grid(rng, with_cost)
    for _ in range(6):
        s = tuple(int(v) for v in (rng.integers(0, g.width), rng.integers(0, g.height)))
        t = tuple(int(v) for v in (rng.integers(0, g.width), rng.integers(0, g.height)))
        ref = reference_costs(g, s)[t[1], t[0]]
        for method in METHODS:
            for heuristic in (["octile", "euclidean", "zero"] if method != "dijkstra" else ["octile"]):
                r = _find(g, s, t, method=method, heuristic=heuristic, weight=1.5)
                assert r.found == np.isfinite(ref), (method, heuristic, s, t, r.reason)
                if not r.found:
                    continue
                validate_path(g, r.cells, s, t)
                assert path_cost(g, r.cells) == pytest.approx(r.cost, rel=1e-9)
                if method == "weighted":
                    assert r.cost <= 1.5 * ref + 1e-9
                else:
                    assert r.cost == pytest.approx(ref, rel=1e-9, abs=1e-9), (method, heuristic)


def test_manhattan_heuristic_finds_legal_paths_but_may_overshoot():
    rng = np.random.default_rng(5)
    for _ in range(20):
        g = _random_grid(rng)
        s, t = (0, 0), (g.width - 1, g.height - 1)
        if not (g.is_passable(*s) and g.is_passable(*t)):
            continue
        r = find_path(g, s, t, heuristic="manhattan")
        assert r.found == np.isfinite(reference_costs(g, s)[t[1], t[0]])
        if r.found:
            validate_path(g, r.cells, s, t)


def test_callable_heuristic_is_evaluated_on_arrays():
    calls = []

    def scaled_octile(xs, ys, gx, gy):
        calls.append(xs.shape)
        dx, dy = np.abs(xs - gx), np.abs(ys - gy)
        return np.maximum(dx, dy) + (SQ2 - 1) * np.minimum(dx, dy)

    g = ascii_grid("""
.....
.###.
.....
""")
    a = find_path(g, (0, 1), (4, 1), heuristic=scaled_octile)
    b = find_path(g, (0, 1), (4, 1), heuristic="octile")
    assert a.cost == pytest.approx(b.cost) and calls == [(3, 5)]
    bi = find_path(g, (0, 1), (4, 1), method="bidirectional", heuristic=scaled_octile, pocket_rule=False)
    assert bi.cost == pytest.approx(b.cost)


def test_callable_heuristic_of_wrong_shape_raises():
    g = Grid(np.ones((3, 3), dtype=bool))
    with pytest.raises(NavError, match="shape"):
        find_path(g, (0, 0), (2, 2), heuristic=lambda xs, ys, gx, gy: np.zeros(4))


def test_repeated_queries_reuse_workspace_and_stay_correct():
    g = _random_grid(np.random.default_rng(99))
    while not g.passable.any():
        g = _random_grid(np.random.default_rng(100))
    cells = np.argwhere(g.passable)[:, ::-1]
    rng = np.random.default_rng(1)
    for _ in range(200):
        s, t = (tuple(int(v) for v in cells[i]) for i in rng.integers(0, len(cells), 2))
        ref = reference_costs(g, s)[t[1], t[0]]
        r = find_path(g, s, t)
        assert r.found == np.isfinite(ref) and (not r.found or r.cost == pytest.approx(ref))


def test_jps_with_terrain_costs_falls_back_to_astar_and_says_why():
    g = Grid(np.ones((10, 10), dtype=bool), np.where(np.arange(10)[None, :] == 5, 4.0, 1.0) * np.ones((10, 1)))
    r = find_path(g, (0, 0), (9, 9), method="jps")
    a = find_path(g, (0, 0), (9, 9), method="astar")
    assert r.found and r.cost == pytest.approx(a.cost) and "uniform-cost" in r.reason and "A*" in r.reason
    assert find_path(Grid(np.ones((10, 10), dtype=bool)), (0, 0), (9, 9), method="jps").reason == ""


def test_jps_expands_far_fewer_nodes_than_astar_on_an_open_map():
    g = Grid(np.ones((200, 200), dtype=bool))
    g.set_passable([(100, y) for y in range(20, 180)], False)
    j = find_path(g, (5, 100), (195, 110), method="jps")
    a = find_path(g, (5, 100), (195, 110), method="astar")
    assert j.cost == pytest.approx(a.cost) and j.expanded * 20 < a.expanded


def test_bidirectional_searches_both_ends_only_when_an_end_is_walled_in():
    """The pocket rule: a long query between open ends is answered by A* (and says so); one
    whose goal sits in a room with one door searches from both ends; the cost is exact either
    way, and ``pocket_rule=False`` always searches both ends."""
    free = np.ones((200, 300), dtype=bool)
    free[100:121, 250] = False                     # a 20×20 room, its door facing away from the start
    free[100:121, 270] = False
    free[100, 250:271] = False
    free[120, 250:271] = False
    free[108:112, 270] = True
    g = Grid(free)
    open_ends = find_path(g, (5, 5), (150, 190), method="bidirectional")
    walled = find_path(g, (5, 110), (260, 110), method="bidirectional")
    both = find_path(g, (5, 5), (150, 190), method="bidirectional", pocket_rule=False)
    for r, start, goal in ((open_ends, (5, 5), (150, 190)), (walled, (5, 110), (260, 110)),
                           (both, (5, 5), (150, 190))):
        assert r.cost == pytest.approx(find_path(g, start, goal, method="dijkstra").cost, rel=1e-12)
    assert "answered by A*" in open_ends.reason
    assert walled.reason == "" and both.reason == ""
    assert walled.expanded < find_path(g, (5, 110), (260, 110), method="astar").expanded
