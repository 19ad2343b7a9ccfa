"""Regression tests of a fifth issue-38 campaign: a sweep that called every public method of the
facade, the crowd, ``Navigation``, ``install``, the components and the level API with each
argument in turn replaced by odd values (None, NaN, ±inf, huge numbers, text, bools, empty and
2-D arrays, object arrays, numpy scalars). Each case here was a raw Python error, a silently
accepted mistake (a truthy flag, a negative index counted from the end) or a cliff."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from rtsnav.levels import load_level
from rtsnav.systems.nav import (
    Crowd,
    CrowdConfig,
    FlowField,
    GoalBounds,
    Grid,
    Hierarchy,
    JumpTable,
    NavError,
    NavMesh,
    SectorGraph,
    WaypointGraph,
    find_path,
    path_cost,
    smooth_path,
    validate_path,
    warm_up,
)

ODD = [None, math.nan, math.inf, "abc", True, [], np.array([object()]), {}, 1j, b"1"]


def _walled() -> Grid:
    passable = np.ones((12, 16), dtype=bool)
    passable[2:10, 7] = False
    return Grid(passable)


def test_crowd_config_checks_every_field():
    """Every field has a row in the one table of limits, and each refuses odd values with a
    ``NavError`` naming it (inf planning units, a truthy "no", True as a weight were taken)."""
    from rtsnav.systems.nav.crowd.config import _LIMITS

    fields = [f.name for f in dataclasses.fields(CrowdConfig)]
    assert sorted(name for name, *_ in _LIMITS) == sorted(fields)
    for name in fields:
        for value in ([math.inf, "no", 1j, [1], 10**30] if name != "smoothing" else ["no", 3]):
            with pytest.raises(NavError, match=f"CrowdConfig.{name}"):
                CrowdConfig(**{name: value})
    assert CrowdConfig(sector_size=np.int64(8)).sector_size == 8 and type(CrowdConfig(sector_size=np.int64(8)).sector_size) is int
    assert CrowdConfig(smoothing=None).smoothing is None


def test_a_huge_dt_is_simulated_as_max_tick():
    """``update(1e9)`` took 5.9 s for 3 agents (the movement kernel's sub-steps) and
    ``update(1e300)`` left everyone standing for good; a step is now at most ``max_tick``."""
    results = []
    for dt in (0.25, 1e9, 1e300):
        crowd = Crowd(_walled(), cache_dir=None)
        ids = crowd.add_agents([(1.5, 1.5), (3.5, 8.5)], avoidance=True)
        crowd.move(ids, (14.5, 10.5))
        crowd.update(0.01)
        for _ in range(4):
            crowd.update(dt)
        results.append(crowd.positions[ids].copy())
    assert np.allclose(results[0], results[1]) and np.allclose(results[0], results[2])
    assert (results[0][:, 0] > np.array([1.5, 3.5]) + 2).all()           # they walked
    with pytest.raises(NavError, match="max_tick"):
        CrowdConfig(max_tick=0)


@pytest.mark.parametrize("value", ODD)
def test_grid_point_arrays_are_checked(value):
    grid = _walled()
    with pytest.raises(NavError):
        grid.world_to_cells(value)
    with pytest.raises(NavError):
        grid.segments_clear(value, np.array([[0.5, 0.5]]))
    with pytest.raises(NavError):
        grid.segments_clear(np.array([[0.5, 0.5]]), value)
    with pytest.raises(NavError):
        FlowField.build(grid, [(15, 11)]).sample(value)


def test_far_cells_and_keys_are_refused():
    grid = _walled()
    with pytest.raises(NavError, match="2\\*\\*62"):
        grid.nearest_reachable((1e30, 1e30), np.array([[0, 0]]))          # was an OverflowError
    with pytest.raises(NavError, match="2\\*\\*62"):
        grid.nearest_reachable((10**30, 0), np.array([[0, 0]]))
    for call in (grid.kept, grid.workspace):
        with pytest.raises(NavError, match="key"):
            call([], lambda g: 1)
        with pytest.raises(NavError, match="factory"):
            call("a new key", None)


@pytest.mark.parametrize("steps", [math.nan, -1, True, "3"])
def test_descend_checks_max_steps(steps):
    field = FlowField.build(_walled(), [(15, 11)])
    with pytest.raises(NavError, match="max_steps"):
        field.descend((0, 0), steps)
    assert len(field.descend((0, 0), 10**30)) == len(field.descend((0, 0)))


@pytest.mark.parametrize("progress", [math.nan, "report", 3])
def test_progress_callbacks_are_checked_before_any_work(progress):
    grid = _walled()
    builders = [lambda: SectorGraph(grid, 4, progress), lambda: GoalBounds.build(grid, progress),
                lambda: JumpTable.build(grid, progress), lambda: Hierarchy.build(grid, 2, 4, 4, progress),
                lambda: NavMesh.from_grid(grid, 0.0, progress=progress)]
    for build in builders:
        with pytest.raises(NavError, match="progress"):
            build()
    crowd = Crowd(grid, cache_dir=None)
    with pytest.raises(NavError, match="progress"):
        crowd.prepare(["astar"], progress, freeze_gc=False)
    with pytest.raises(NavError, match="freeze_gc"):
        crowd.prepare(["astar"], None, freeze_gc="no")                    # truthy: it froze the gc
    for part in (crowd.level.sector_graph, crowd.level.navmesh, crowd.level.hierarchy):
        with pytest.raises(NavError, match="progress"):
            part(progress)


def test_every_builder_takes_a_grid_or_says_so():
    for call in (lambda: SectorGraph.start(None), lambda: WaypointGraph(None, [[0, 0]], []),
                 lambda: WaypointGraph.floodfill(None, (0, 0)), lambda: WaypointGraph.from_waypoints(None, [[0, 0]]),
                 lambda: smooth_path(None, [[0, 0]]), lambda: path_cost(None, [[0, 0]]),
                 lambda: validate_path(None, [[0, 0]]), lambda: JumpTable.empty(None),
                 lambda: JumpTable(None, np.zeros(3)), lambda: GoalBounds(None, np.zeros(3))):
        with pytest.raises(NavError, match="Grid"):
            call()


def test_sector_graph_start_and_ring_check_their_arguments():
    grid = _walled()
    for size in (None, 10**30, 1e300, 3, True):
        with pytest.raises(NavError, match="sector_size"):
            SectorGraph.start(grid, size)
    with pytest.raises(NavError, match="sector id"):
        SectorGraph(grid, 4).ring([])                                    # was "unhashable type"


def test_hierarchy_levels_are_not_counted_from_the_end():
    h = Hierarchy.build(_walled(), levels=2, cluster_size=4)
    assert h.cluster_count(1) > h.cluster_count(2) >= 1
    for level in (0, -1, True, None, 3):
        with pytest.raises(NavError, match="level"):                     # -1 and True were level 2 and 1
            h.cluster_count(level)
        with pytest.raises(NavError, match="level"):
            h.component_labels(level)


def test_forged_tables_are_refused_by_their_constructors():
    """``JumpTable(grid, table)`` and ``GoalBounds(grid, boxes)`` took anything; the kernels do
    not check bounds, so a table of out-of-range jumps read memory outside the grid."""
    grid = _walled()
    good = JumpTable.build(grid)
    forged = good.table.copy()
    forged[0, 20] = 10**6
    with pytest.raises(NavError, match="outside"):
        JumpTable(grid, forged)
    for table in (None, good.table.astype(np.int64), good.table[:, :-1]):
        with pytest.raises(NavError, match="int32"):
            JumpTable(grid, table)
    with pytest.raises(NavError, match="layers_done"):
        JumpTable(grid, good.table, 9)
    bounds = GoalBounds.build(grid)
    with pytest.raises(NavError, match="int16"):
        GoalBounds(grid, bounds.boxes.astype(np.int32))
    assert find_path(grid, (0, 0), (15, 11), goal_bounds=GoalBounds(grid, bounds.boxes)).found


def test_navmesh_ids_points_and_switches_are_checked():
    mesh = NavMesh.from_grid(_walled(), 0.0)
    last = mesh.polygon_count - 1
    assert np.allclose(mesh.polygon_vertices(last), mesh.polygon_vertices(last))
    for p in (-1, None, True, mesh.polygon_count):
        with pytest.raises(NavError, match="polygon id"):                # -1 was the last polygon
            mesh.polygon_vertices(p)
        with pytest.raises(NavError, match="polygon id"):
            mesh.closest_on_polygon(p, (0.5, 0.5))
    with pytest.raises(NavError):
        mesh.closest_on_polygon(0, None)
    with pytest.raises(NavError):
        mesh.polygons_along(None)
    for allowed in ("no", 1, math.nan):
        with pytest.raises(NavError, match="allowed"):
            mesh.use_plain_sight(allowed)
    mesh.use_plain_sight(None)
    with pytest.raises(NavError, match="max_side"):
        NavMesh.from_grid(_walled(), 0.0, max_side=None)
    with pytest.raises(NavError, match="max_side"):
        NavMesh.from_grid(_walled(), 0.0, max_side=True)
    with pytest.raises(NavError, match="vertices"):
        NavMesh.from_triangles("abc", [[0, 1, 2]])
    with pytest.raises(NavError, match="triangles"):
        NavMesh.from_triangles(np.zeros((3, 3)), [[0, 1], [2]])


def test_waypoint_graph_arguments_are_checked():
    grid = _walled()
    with pytest.raises(NavError, match="max_edge"):
        WaypointGraph.from_waypoints(grid, [[0, 0], [3, 3]], np.ones((3, 3)))   # was "truth value … ambiguous"
    assert len(WaypointGraph.from_waypoints(grid, [[0, 0], [3, 3]], math.inf).edges()) == 1
    graph = WaypointGraph.floodfill(grid, (0, 0), 2)
    for limit in ("big", math.nan, -1, None):
        with pytest.raises(NavError, match="limit_bytes"):
            graph.lookup_tables(limit)
    tables = graph.lookup_tables()
    with pytest.raises(NavError):
        tables.path(-1, 0)                                              # was the last waypoint
    assert tables.path(0, 0).tolist() == [0]


def test_smooth_path_mode_and_crowd_speeds_are_checked():
    grid = _walled()
    with pytest.raises(NavError, match="smoothing mode"):
        smooth_path(grid, [[0, 0], [1, 1]], np.ones((3, 3)))
    crowd = Crowd(grid, cache_dir=None)
    ids = crowd.add_agents([(1.5, 1.5), (2.5, 1.5)])
    with pytest.raises(NavError, match="max_speed"):
        crowd.set_speed(ids, np.array([object(), object()]))
    crowd.set_speed(ids, [1.0, 2.0])
    assert crowd.status(ids).max_speed.tolist() == [1.0, 2.0]
    with pytest.raises(NavError, match="fields"):
        warm_up("no")


def test_the_esper_side_checks_its_arguments():
    import esper

    from rtsnav.components import NavigationAgent, NavigationObstacle, Position, Velocity
    from rtsnav.systems import ComponentBinding, Navigation, install

    esper.switch_world("sweep")
    try:
        nav = Navigation(_walled(), cache_dir=False)
        for bad in (dict(priority_base=None), dict(prepare="no"), dict(position_fields=None)):
            with pytest.raises(TypeError, match=next(iter(bad))):
                install(nav, **bad)
        install(nav, prepare=False)
        entity = esper.create_entity(Position(1.5, 1.5), Velocity(), NavigationAgent(target_position=(14.5, 10.5)))
        esper.process(1 / 30)
        for dt in (None, "x", math.nan, -1):
            with pytest.raises(NavError, match="dt"):
                esper.process(dt)
        for entities in (None, 3, [[1]]):
            with pytest.raises(NavError, match="entities"):
                nav.positions(entities)
        assert nav.positions([entity]).shape == (1, 3)
        with pytest.raises(NavError, match="goal"):
            nav.flow_field(None)
        with pytest.raises(NavError, match="goal"):
            nav.flow_field((3.7, 1))                                    # was truncated to (3, 1)
        esper.process(1 / 30)
    finally:
        esper.switch_world("default")
        esper.delete_world("sweep")
    with pytest.raises(TypeError, match="position_fields"):
        ComponentBinding(Position, Velocity, None)
    obstacle = NavigationObstacle()
    with pytest.raises(ValueError, match="value"):
        obstacle.set_avoidance_layer_value(2, "no")                     # truthy: it turned the layer on
    obstacle.set_avoidance_layer_value(2, True)
    assert obstacle.get_avoidance_layer_value(2)


def test_level_gates_are_named_or_refused():
    level = load_level("river")
    name = next(iter(level.gates))
    with pytest.raises(KeyError, match="did you mean"):
        level.set_gate(name[:-1], False)
    with pytest.raises(ValueError, match="open_"):
        level.set_gate(name, "no")
    assert len(level.set_gate(name, False)) > 0 and not level.gates[name].open


@pytest.mark.parametrize("planner", ["flowfield", "leader", "potential"])
def test_a_group_sent_off_the_map_walks_to_the_edge(planner):
    """Nine units of a group planner ordered 5 cells beyond the east edge: one of them, planning
    while it took quick steps, joined a group order whose goal cell was off the map and the
    tick died ("negative dimensions"; a leader's search: "goal … outside the grid")."""
    passable = np.ones((20, 30), dtype=bool)
    passable[5:15, 12] = False
    crowd = Crowd(Grid(passable), cache_dir=None)
    ids = crowd.add_agents([(2.5 + i % 3, 2.5 + i // 3) for i in range(9)])
    crowd.move(ids, (35.0, 10.0), planner)
    finished = set()
    for _ in range(600):
        finished |= set(crowd.update(1 / 30).reached.tolist())
    assert finished == set(ids.tolist())
    assert (crowd.positions[ids, 0] > 26).all()                      # at the east edge, the closest point
    assert crowd.groups.arrival_radius((35, 10), 9, 0.4) == 0.0        # a recovering unit's disc: none


def test_a_plan_that_raises_fails_its_agent_not_the_tick():
    from rtsnav.systems.nav.crowd.planners import Job

    class Broken(Job):
        def advance(self, units: int) -> int:
            raise RuntimeError("broken planner")

    crowd = Crowd(Grid(np.ones((10, 10), dtype=bool)), cache_dir=None)
    ids = crowd.add_agents([(1.5, 1.5), (2.5, 2.5)])
    crowd.move(ids, (8.5, 8.5))
    crowd.update(1 / 30)
    crowd.queue.submit(("agent", int(ids[0])), Broken())
    events = crowd.update(1 / 30)
    assert events.failed.tolist() == [ids[0]] and "broken planner" in events.reasons[0]
    assert crowd.states[ids[1]] == 2                                 # the other walks on


def test_a_search_that_raises_gives_its_scratch_memory_back():
    """A grid search that raised after taking a workspace kept it: with every workspace lost so,
    each later search of the crowd waited for one, for good (units planning, silent)."""
    from rtsnav.systems.nav.crowd.planners import GridJob

    passable = np.ones((16, 16), dtype=bool)
    crowd = Crowd(Grid(passable), CrowdConfig(max_searches=1), cache_dir=None)
    ids = crowd.add_agents([(1.5, 1.5), (2.5, 1.5)])
    crowd.move(ids[:1], (14.5, 14.5))
    crowd.update(1 / 30)
    broken = GridJob(crowd.grid, (0, 0), (99, 99), "astar", (99.5, 99.5, 0.0), None, crowd.planning.pool)
    crowd.queue.submit(("agent", int(ids[0])), broken)               # its goal is off the grid: it raises
    assert "planner error" in crowd.update(1 / 30).reasons[0]
    crowd.move(ids[1:], (14.5, 14.5))
    reached = []
    for _ in range(200):
        reached += crowd.update(1 / 30).reached.tolist()
    assert reached == [ids[1]]


def test_waiting_for_rebuilds_takes_any_finite_timeout():
    """``finish_rebuilds(1e300)`` with a rebuild in flight raised "timestamp out of range for
    platform time_t" (the worker's wait took it as a deadline)."""
    passable = np.ones((48, 48), dtype=bool)
    passable[8:40, 24] = False
    grid = Grid(passable)
    crowd = Crowd(grid, cache_dir=None)
    ids = crowd.add_agents([(1.5, 1.5)])
    crowd.move(ids, (46.5, 46.5), "navmesh")
    for _ in range(3):
        crowd.update(1 / 30)
    grid.set_passable([(24, 44)], False)
    crowd.cells_changed([(24, 44)])
    crowd.update(1 / 30)
    assert crowd.finish_rebuilds(1e300) == ["navmesh"]
