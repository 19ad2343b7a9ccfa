"""Budgeted, time-sliced path requests: same answer as one-shot, merged, fair, safe to cancel."""

from __future__ import annotations

import math

import esper
import numpy as np
import pytest

from rtsnav.components import NavigationAgent, NavState, Position, Velocity
from rtsnav.levels import load_movingai_map, load_movingai_scenarios
from rtsnav.systems import Navigation, install
from rtsnav.systems.nav import CrowdConfig, find_path
from rtsnav.systems.nav.crowd.planners import UNITS, GridJob, PlanQueue
from rtsnav.systems.nav.search.sliced import WorkspacePool

_cape = {}


def cape():
    if "grid" not in _cape:
        _cape["grid"] = load_movingai_map("AcrosstheCape.map")
        scens = load_movingai_scenarios("AcrosstheCape.map.scen")
        top = max(s.bucket for s in scens)
        _cape["long"] = [s for s in scens if s.bucket >= top - 5][:6]
    return _cape["grid"], _cape["long"]


def _queue(grid, budget, max_searches, quantum=None):
    return PlanQueue(budget, quantum), WorkspacePool(grid, max_searches)


def _job(grid, pool, s_cell, g_cell, method="astar"):
    return GridJob(grid, s_cell, g_cell, method, np.zeros(3), None, pool)


@pytest.mark.parametrize("method", ["astar", "bidirectional"])
def test_sliced_requests_at_200_units_match_one_shot_exactly(method, monkeypatch):
    """Three long searches take turns in two workspaces (bidirectional: two pairs, whose
    backward partners change hands between searches) and answer exactly as one-shot."""
    from rtsnav.systems.nav.search import bidirectional

    monkeypatch.setattr(bidirectional, "POCKET_SHARE", 2.0)     # every end "walled in": both ends searched
    grid, longs = cape()
    queue, pool = _queue(grid, 200, 2)
    for i, s in enumerate(longs[:3]):
        queue.submit(i, _job(grid, pool, s.start, s.goal, method))
    results, ticks, served = {}, 0, {}
    while len(queue):
        ticks += 1
        for key in queue.keys():
            served[key] = served.get(key, 0) + 1
        for key, job in queue.service():
            results[key] = job
        assert queue.last_units <= 200 + 1
    assert ticks > 100                                        # really spread over many ticks
    for i, s in enumerate(longs[:3]):
        res = results[i].search.result()
        one_shot = find_path(grid, s.start, s.goal, method)
        assert res.found and res.cost == one_shot.cost         # exactly, not approximately
        np.testing.assert_array_equal(res.cells, one_shot.cells)
        assert abs(res.cost - s.optimal) <= max(1e-3, 6e-6 * s.optimal)
        assert served[i] > 1


def test_requests_are_served_fairly_round_robin():
    grid, longs = cape()
    queue, pool = _queue(grid, 400 + 2 * UNITS["job"], 4, quantum=100)          # (each job's fixed cost too)
    s = longs[0]
    queue.submit(1, _job(grid, pool, s.start, s.goal))                       # very long
    short_goal = (s.start[0] + 3, s.start[1]) if grid.passable[s.start[1], s.start[0] + 3] else s.start
    queue.submit(2, _job(grid, pool, s.start, short_goal))                   # short
    done = [key for key, _ in queue.service()]
    assert done == [2]                # the short one finished in the first tick despite queueing second


def test_a_new_request_for_the_same_agent_replaces_the_pending_one():
    grid, longs = cape()
    queue, pool = _queue(grid, 100, 1)
    a, b = longs[0], longs[1]
    queue.submit(7, _job(grid, pool, a.start, a.goal))
    queue.service()
    assert pool.available == 0
    queue.submit(7, _job(grid, pool, b.start, b.goal))
    assert len(queue) == 1 and pool.available == 1             # workspace returned
    queue.budget = 10**9
    (key, job), = queue.service()
    assert job.goal == b.goal and job.search.result().cost == find_path(grid, b.start, b.goal).cost


def test_a_new_request_for_the_same_agent_keeps_its_place_in_line():
    """Units re-ordered every frame while they wait must not go to the back each time (behind a
    full queue they waited for good): a replaced job is served where the old one stood."""
    grid, longs = cape()
    queue, pool = _queue(grid, 1, 4)                       # one expansion a tick: one job served
    for key in (1, 2, 3):
        queue.submit(key, _job(grid, pool, longs[key].start, longs[key].goal))
    queue.submit(1, _job(grid, pool, longs[4].start, longs[4].goal))
    assert queue.keys() == [1, 2, 3]
    queue.service()
    assert queue.keys()[-1] == 1                          # served first, then round robin


def test_more_requests_than_workspaces_wait_in_order():
    grid, longs = cape()
    queue, pool = _queue(grid, 10**9, 1)
    for i, s in enumerate(longs[:4]):
        queue.submit(i, _job(grid, pool, s.start, s.goal))
    finished = [key for key, _ in queue.service()]
    assert finished == [0, 1, 2, 3] and pool.available == 1


def _spawn(grid, start_cell, target, **kw):
    return esper.create_entity(Position(*grid.cell_to_world(*start_cell)), Velocity(),
                               NavigationAgent(target_position=target, **kw))


@pytest.mark.slow
def test_agent_request_spans_ticks_and_yields_the_one_shot_path(event_log):
    grid, longs = cape()
    s = longs[0]
    nav = Navigation(grid, CrowdConfig(planning_units=200, smoothing=None, quick_steps=False))   # stands meanwhile
    install(nav)
    e = _spawn(grid, s.start, grid.cell_to_world(*s.goal))
    ticks = 0
    while not event_log.of("path_changed", e):
        esper.process(1 / 60)
        ticks += 1
        assert ticks < 10_000
    assert ticks > 10
    path = event_log.of("path_changed", e)[0][2]
    one_shot = find_path(grid, s.start, s.goal)
    np.testing.assert_allclose(path[:-1, :2], grid.cells_to_world(one_shot.cells)[:-1, :2])
    agent = esper.component_for_entity(e, NavigationAgent)
    assert agent.state is NavState.FOLLOWING and len(agent.path) == len(one_shot.cells)


def test_changing_target_mid_route_replans_once(event_log, arena):
    install(Navigation(arena))
    e = _spawn(arena, (3, 10), arena.cell_to_world(40, 30))
    for _ in range(30):
        esper.process(1 / 60)
    assert len(event_log.of("path_changed", e)) == 1
    agent = esper.component_for_entity(e, NavigationAgent)
    agent.target_position = arena.cell_to_world(20, 40)
    for _ in range(30):
        esper.process(1 / 60)
    assert len(event_log.of("path_changed", e)) == 2
    agent.target_position = arena.cell_to_world(20, 40)          # same value: Godot queries again
    for _ in range(30):
        esper.process(1 / 60)
    assert len(event_log.of("path_changed", e)) == 3
    assert np.allclose(agent.path[-1, :2], arena.cell_to_world(20, 40)[:2])


@pytest.mark.slow
def test_deleting_an_entity_mid_request_leaves_nothing_behind(event_log):
    grid, longs = cape()
    nav = Navigation(grid, CrowdConfig(planning_units=200))
    install(nav)
    s = longs[0]
    e = _spawn(grid, s.start, grid.cell_to_world(*s.goal))
    keep = _spawn(grid, s.start, grid.cell_to_world(s.start[0], s.start[1]))
    for _ in range(5):
        esper.process(1 / 60)
    assert ("agent", nav.id_of[e]) in nav.crowd.queue
    esper.delete_entity(e)
    for _ in range(5):
        esper.process(1 / 60)
    assert len(nav.crowd.queue) == 0
    assert nav.crowd.planning.pool.available == nav.crowd.planning.pool.size
    assert nav.agents.alive_count == 1 and keep in nav.agents.row_of and e not in nav.agents.row_of
    assert not event_log.of("path_changed", e) and not event_log.of("path_failed", e)


@pytest.mark.parametrize("target, reason", [
    ((math.nan, 3.0, 0.0), "not a finite point"),
    ((3.0, math.inf), "not a finite point"),
])
def test_bad_targets_fail_with_a_reason(event_log, arena, target, reason):
    """A NaN or inf in a target (a game's arithmetic can make one) fails the agent with a reason;
    what is no point at all ("nowhere", one number) is refused when set (a ValueError)."""
    with pytest.raises(ValueError, match="target_position"):
        NavigationAgent(target_position="nowhere")  # type: ignore[arg-type]
    nav = Navigation(arena)
    install(nav)
    e = _spawn(arena, (3, 10), target)
    esper.process(1 / 60)
    (failed,) = event_log.of("path_failed", e)
    assert reason in failed[2]
    agent = esper.component_for_entity(e, NavigationAgent)
    assert agent.state is NavState.FAILED and reason in agent.failure_reason
    assert event_log.of("navigation_finished", e)
    pos = esper.component_for_entity(e, Position).as_tuple()
    for _ in range(10):
        esper.process(1 / 60)
    assert esper.component_for_entity(e, Position).as_tuple() == pos          # it stays put


@pytest.mark.parametrize("target", [(5000.0, 3.0, 0.0), (-1.0, 3.0, 0.0)])
def test_targets_off_the_map_walk_to_the_closest_point_and_say_so(event_log, arena, target):
    install(Navigation(arena))
    e = _spawn(arena, (3, 10), target)
    esper.process(1 / 60)
    (failed,) = event_log.of("path_failed", e)
    assert "outside the map" in failed[2] and "closest reachable point" in failed[2]
    agent = esper.component_for_entity(e, NavigationAgent)
    assert agent.state is NavState.FOLLOWING and not agent.is_target_reachable()
    end = agent.path[-1]
    assert arena.passable[int(end[1]), int(end[0])]                          # an open cell of the map


def test_target_in_a_wall_fails_in_fail_mode(event_log, arena):
    install(Navigation(arena, CrowdConfig(unreachable="fail")))
    wall = tuple(int(v) for v in np.argwhere(~arena.passable)[0][::-1])
    a = _spawn(arena, (3, 10), arena.cell_to_world(*wall))
    esper.process(1 / 60)
    assert "blocked cell" in event_log.of("path_failed", a)[0][2]


def test_clearing_the_target_stops_the_agent(arena):
    nav = Navigation(arena)
    install(nav)
    e = _spawn(arena, (3, 10), arena.cell_to_world(40, 30))
    for _ in range(10):
        esper.process(1 / 60)
    agent = esper.component_for_entity(e, NavigationAgent)
    agent.target_position = None
    esper.process(1 / 60)
    assert agent.state is NavState.IDLE and len(agent.path) == 0
    pos = esper.component_for_entity(e, Position).as_tuple()
    esper.process(1 / 60)
    assert esper.component_for_entity(e, Position).as_tuple() == pos


def test_hierarchy_planner_agent_reaches_its_target(event_log):
    grid = load_movingai_map("den520d.map")
    nav = Navigation(grid)
    install(nav)
    cells = np.argwhere(grid.passable)[:, ::-1]
    rng = np.random.default_rng(3)
    s, t = (tuple(int(v) for v in cells[i]) for i in rng.integers(0, len(cells), 2))
    assert find_path(grid, s, t).found
    e = _spawn(grid, s, grid.cell_to_world(*t), method="hierarchy", max_speed=20.0)
    for _ in range(3000):
        esper.process(1 / 30)
        if event_log.of("target_reached", e):
            break
    assert event_log.of("path_changed", e) and event_log.of("target_reached", e)
    assert nav.hierarchy().levels == 3


def test_waypoints_planner_agent_reaches_its_target(event_log, arena):
    nav = Navigation(arena)
    install(nav)
    e = _spawn(arena, (3, 10), arena.cell_to_world(40, 30), method="waypoints", max_speed=8.0)
    for _ in range(1500):
        esper.process(1 / 30)
        if event_log.of("target_reached", e):
            break
    assert event_log.of("path_changed", e) and event_log.of("target_reached", e)
    assert len(nav.waypoints()) > 20


def test_navmesh_planner_agent_reaches_its_target_through_the_queue(event_log, arena):
    nav = Navigation(arena, CrowdConfig(navmesh_radius=0.0))
    install(nav)
    e = _spawn(arena, (3, 10), arena.cell_to_world(40, 30), method="navmesh", max_speed=8.0)
    esper.process(1 / 30)
    assert event_log.of("path_changed", e)                    # served by the queue this tick
    for _ in range(1500):
        esper.process(1 / 30)
        if event_log.of("target_reached", e):
            break
    assert event_log.of("target_reached", e)
    path = event_log.of("path_changed", e)[0][2]
    cells = arena.world_to_cells(path)
    assert arena.passable[cells[:, 1], cells[:, 0]].all()
    assert nav.navmesh().polygon_count > 0


def test_navmesh_link_fires_link_reached_and_carries_the_agent_across(event_log):
    from rtsnav.systems.nav import Grid, NavMesh

    p = np.ones((20, 30), dtype=bool)
    p[:, 15] = False                                            # a wall with no way round
    grid = Grid(p)
    mesh = NavMesh.from_grid(grid, agent_radius=0.0)
    mesh.add_link((14.5, 10.5, 0), (16.5, 10.5, 0), cost=3.0, kind="ladder")
    install(Navigation(grid, navmesh=mesh))
    got = []

    class Links:
        def on_link(self, entity, kind, a, b):
            got.append((entity, kind, a[:2], b[:2]))

    handler = Links()
    esper.set_handler("link_reached", handler.on_link)
    e = _spawn(grid, (3, 10), (25.5, 10.5, 0.0), method="navmesh", max_speed=6.0)
    for _ in range(600):
        esper.process(1 / 30)
        if event_log.of("target_reached", e):
            break
    assert got == [(e, "ladder", (14.5, 10.5), (16.5, 10.5))]
    assert event_log.of("target_reached", e)
    pos = esper.component_for_entity(e, Position)
    assert pos.x > 16


def test_a_bidirectional_search_takes_one_place_in_the_pool_with_a_workspace_for_both_sides():
    from rtsnav.systems.nav.errors import NavError
    from rtsnav.systems.nav.search.sliced import SlicedSearch

    grid, longs = cape()
    pool = WorkspacePool(grid, 2)
    one, wide = pool.acquire(), pool.acquire_wide()
    assert pool.available == 0 and pool.acquire() is None and pool.acquire_wide() is None
    s = longs[0]
    with pytest.raises(NavError, match="acquire_wide"):
        SlicedSearch(grid, s.start, s.goal, "bidirectional", workspace=one)
    with pytest.raises(NavError, match="acquire"):
        SlicedSearch(grid, s.start, s.goal, "astar", workspace=wide)
    search = SlicedSearch(grid, s.start, s.goal, "bidirectional", workspace=wide)
    assert search.run().cost == find_path(grid, s.start, s.goal, "bidirectional").cost
    pool.release(wide)
    assert pool.available == 1 and pool.acquire_wide() is wide    # kept for the next one
