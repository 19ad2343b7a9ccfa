"""Goal bounds on waypoint graphs: never a different cost, fewer waypoints searched, cached for
one graph only, refused beyond their size, used by the crowd when baked."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.levels import load_movingai_map
from rtsnav.systems.nav import Grid, NavError
from rtsnav.systems.nav.waypoints.graph import WaypointGraph
from rtsnav.systems.nav.waypoints.graph_bounds import GraphGoalBounds


@pytest.fixture(scope="module")
def den():
    grid = load_movingai_map("den520d.map")
    labels = grid.components()
    cells = np.argwhere(labels == np.bincount(labels[labels >= 0]).argmax())[:, ::-1]
    graph = WaypointGraph.floodfill(grid, tuple(int(v) for v in cells[0]), spacing=6)
    return grid, cells, graph, GraphGoalBounds.build(graph)


@pytest.mark.slow
def test_goal_bounds_never_change_a_cost_and_prune_the_search(den):
    grid, cells, graph, bounds = den
    rng = np.random.default_rng(2)
    searched = {False: 0, True: 0}
    for _ in range(150):
        a, b = cells[rng.integers(len(cells), size=2)] + 0.5
        answers = {}
        for use in (False, True):
            graph.goal_bounds = bounds if use else None
            answers[use] = graph.find_path(a, b)
            searched[use] += graph.searched()
        assert answers[True].found == answers[False].found
        if answers[False].found:
            assert answers[True].cost == pytest.approx(answers[False].cost, abs=1e-9)
    graph.goal_bounds = None
    assert searched[True] < 0.7 * searched[False]


def test_the_waypoint_search_is_exact_against_dijkstra(den):
    """A* on a waypoint graph estimates by straight lines: every answer equals Dijkstra's. The
    octile estimate it used before over-estimates straight edges and misses the optimum."""
    from rtsnav.systems.nav.waypoints.graph_search import NO_ESTIMATE, OCTILE_ESTIMATE, STRAIGHT_ESTIMATE, GraphEnds

    grid, cells, graph, _ = den
    rng = np.random.default_rng(5)
    worse_with_octile = checked = 0
    for _ in range(300):
        s, g = cells[rng.integers(len(cells), size=2)] + 0.5
        a, b = graph.visible_from(s), graph.visible_from(g)       # the ends find_path attaches
        if len(a) == 0 or len(b) == 0:
            continue
        ca, cb = np.hypot(*(graph.points[a, :2] - s).T), np.hypot(*(graph.points[b, :2] - g).T)

        def cost(mode, a=a, b=b, ca=ca, cb=cb, g=g):
            return graph.search(GraphEnds(a, ca, b, cb, float(g[0]), float(g[1]), mode))[0]

        best = cost(NO_ESTIMATE)
        if not np.isfinite(best):
            continue
        checked += 1
        assert cost(STRAIGHT_ESTIMATE) == pytest.approx(best, abs=1e-9)
        worse_with_octile += cost(OCTILE_ESTIMATE) > best + 1e-6
    assert checked > 200 and worse_with_octile > 0


def test_bounds_belong_to_their_graph_and_round_trip_the_cache(den, tmp_path):
    grid, cells, graph, bounds = den
    again = GraphGoalBounds.cached(graph, tmp_path)
    np.testing.assert_array_equal(again.boxes, bounds.boxes)
    assert GraphGoalBounds.baked(graph, tmp_path) is not None
    other = WaypointGraph.floodfill(grid, tuple(int(v) for v in cells[0]), spacing=7)
    assert GraphGoalBounds.baked(other, tmp_path) is None
    other.goal_bounds = bounds
    with pytest.raises(NavError, match="another waypoint graph"):
        other.find_path(cells[0] + 0.5, cells[-1] + 0.5)


def test_graphs_over_the_limit_are_refused_with_an_estimate(monkeypatch):
    graph = WaypointGraph.floodfill(Grid(np.ones((40, 40), dtype=bool)), (1, 1), spacing=2)
    monkeypatch.setattr(GraphGoalBounds, "MAX_NODES", 50)
    with pytest.raises(NavError, match=r"over the limit of 50 .* about"):
        GraphGoalBounds.build(graph)


def test_the_crowd_uses_bounds_baked_for_its_graph(tmp_path):
    from rtsnav.systems.nav.crowd import Crowd, CrowdConfig
    from rtsnav.systems.nav.crowd.rebuild import waypoint_seed

    grid = load_movingai_map("arena.map")
    graph = WaypointGraph.cached_floodfill(grid, tmp_path, waypoint_seed(grid), spacing=4)
    GraphGoalBounds.cached(graph, tmp_path)
    crowd = Crowd(grid, CrowdConfig(rebuild_worker=False), cache_dir=tmp_path)
    assert crowd.level.waypoints().goal_bounds is not None
    assert Crowd(grid, CrowdConfig(rebuild_worker=False)).level.waypoints().goal_bounds is None
