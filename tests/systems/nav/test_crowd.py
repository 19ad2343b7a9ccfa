"""The core crowd, with no esper: its API, the one planning budget, the progress watch, bad values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rtsnav.levels import load_level, load_movingai_map
from rtsnav.systems.nav import Grid, NavError, find_path, smooth_path
from rtsnav.systems.nav.crowd import Crowd, CrowdConfig, Mode, NavState
from rtsnav.systems.nav.waypoints.hierarchy import Hierarchy


def _open(w=40, h=30):
    return Grid(np.ones((h, w), dtype=bool))


def _run(crowd: Crowd, ticks: int, dt: float = 1 / 30, until_idle: bool = True):
    log = {"reached": set(), "failed": {}, "stuck": [], "path_changed": []}
    for _ in range(ticks):
        ev = crowd.update(dt)
        log["reached"] |= set(ev.reached.tolist())
        log["failed"].update(zip(ev.failed.tolist(), ev.reasons))
        log["stuck"] += ev.stuck.tolist()
        log["path_changed"] += ev.path_changed.tolist()
        state = crowd.states
        if until_idle and not ((state == NavState.FOLLOWING) | (state == NavState.PLANNING)).any():
            break
    return log


def _wall_free(crowd: Crowd) -> bool:
    alive = crowd.alive
    cells = crowd.grid.world_to_cells(crowd.positions[alive])
    return bool(crowd.grid.passable[cells[:, 1], cells[:, 0]].all())


# ---------------------------------------------------------------------------------- the API
def test_ids_are_stable_when_others_are_removed():
    crowd = Crowd(_open())
    ids = crowd.add_agents([(2.5, 2.5), (4.5, 2.5), (6.5, 2.5)])
    assert ids.tolist() == [0, 1, 2] and crowd.positions.shape == (3, 3)
    crowd.remove([1])
    assert not crowd.alive[1] and crowd.alive[[0, 2]].all()
    assert crowd.positions[2, 0] == 6.5                      # nobody renumbered
    new = crowd.add_agents([(8.5, 2.5)])
    assert new.tolist() == [1]                               # a freed id is reused, others untouched
    with pytest.raises(NavError, match="no agent with id 7"):
        crowd.move([7], (10.5, 10.5))


def test_single_agents_and_a_group_arrive_without_esper():
    crowd = Crowd(_open())
    singles = crowd.add_agents([(2.5, 2.5), (2.5, 5.5)])
    crowd.move(singles, (35.5, 25.5), planner="astar")
    group = crowd.add_agents([(3.5 + i % 5, 10.5 + i // 5) for i in range(20)], group=3)
    crowd.move(group, (30.5, 12.5), planner="flowfield")
    log = _run(crowd, 900)
    assert set(singles.tolist()) | set(group.tolist()) <= log["reached"]
    assert not log["failed"] and _wall_free(crowd)


@pytest.mark.slow
@pytest.mark.parametrize("planner", ["leader", "flowfield"])
def test_the_readme_group_example_runs_through_the_crowd(planner):
    passable = np.ones((40, 60), dtype=bool)
    passable[:, 30] = False
    passable[30, 30] = True                                  # one gap in a long wall
    crowd = Crowd(Grid(passable))
    ids = crowd.add_agents([(5.5 + i % 10, 5.5 + i // 10) for i in range(100)], group=1)
    crowd.move(ids, (50.5, 10.5), planner=planner)
    log = _run(crowd, 2700)           # hard contacts: one body at a time through the gap, no squeezing
    assert len(log["reached"]) == 100 and not log["failed"] and _wall_free(crowd)


def test_pause_and_stop():
    crowd = Crowd(_open())
    (a,) = crowd.add_agents([(2.5, 2.5)])
    crowd.move([a], (30.5, 2.5))
    _run(crowd, 10, until_idle=False)
    crowd.pause([a])
    held = crowd.positions[a].copy()
    _run(crowd, 30, until_idle=False)
    assert (crowd.positions[a] == held).all() and crowd.states[a] == NavState.FOLLOWING
    crowd.pause([a], False)
    _run(crowd, 10, until_idle=False)
    assert crowd.positions[a, 0] > held[0]
    crowd.stop([a])
    _run(crowd, 2, until_idle=False)
    assert crowd.states[a] == NavState.IDLE and crowd.agents.mode[a] == Mode.NONE


# ------------------------------------------------------------------------- one shared budget
@pytest.fixture(scope="module")
def cape_long(cape):
    from rtsnav.levels import load_movingai_scenarios

    scens = load_movingai_scenarios("AcrosstheCape.map.scen")
    top = max(s.bucket for s in scens)
    return [s for s in scens if s.bucket >= top - 3][:2]


@pytest.mark.parametrize("planner", ["astar", "dijkstra", "weighted", "bidirectional", "jps", "jps+"])
def test_budgeted_grid_plans_span_ticks_and_equal_the_one_shot_result(planner, cape, cape_long):
    s = cape_long[0]
    budget = 200 if planner in ("jps", "jps+") else 2_000       # jump searches need far fewer units
    crowd = Crowd(cape, CrowdConfig(planning_units=budget, quick_steps=False))    # it stands where it planned from
    (a,) = crowd.add_agents([cape.cell_to_world(*s.start)])
    crowd.move([a], cape.cell_to_world(*s.goal), planner=planner)
    one_shot = find_path(cape, s.start, s.goal, method=planner)
    ticks = 0
    while crowd.states[a] == NavState.PLANNING or ticks == 0:
        crowd.update(1 / 60)
        ticks += 1
        # a tick spends its budget, or one step alone when that step is bigger (here: smoothing)
        assert crowd.queue.last_units <= max(budget, 4 * len(one_shot.cells))
    expected = cape.cells_to_world(smooth_path(cape, one_shot.cells, "precise"))
    path = crowd.path(a)
    assert ticks > 3
    np.testing.assert_allclose(path[:-1, :2], expected[:-1, :2])


def test_a_jps_plus_order_builds_the_jump_table_in_budgeted_steps(cape, cape_long):
    """No tick pays for the whole table: the first order builds it a band of lines per step."""
    grid = Grid(cape.passable.copy())                       # a fresh grid: no table yet
    s = cape_long[0]
    crowd = Crowd(grid, CrowdConfig(planning_units=2_000))
    (a,) = crowd.add_agents([grid.cell_to_world(*s.start)])
    crowd.move([a], grid.cell_to_world(*s.goal), planner="jps+")
    steps = 0
    while crowd.states[a] == NavState.PLANNING or steps == 0:
        crowd.update(1 / 60)
        steps += 1
        assert crowd.queue.last_units <= 2_000 + 0.1 * 64 * grid.width + 1
    assert steps > 8 and grid.kept("jps+", None).ready
    assert crowd.path(a) is not None and len(crowd.path(a)) > 1


def test_budgeted_hierarchy_plans_span_ticks_and_equal_the_one_shot_result(cape, cape_long):
    s = cape_long[1]
    h = Hierarchy.build(cape)
    crowd = Crowd(cape, CrowdConfig(planning_units=2_000, quick_steps=False), hierarchy=h)
    (a,) = crowd.add_agents([cape.cell_to_world(*s.start)])
    crowd.move([a], cape.cell_to_world(*s.goal), planner="hierarchy")
    ticks = 0
    while crowd.states[a] == NavState.PLANNING or ticks == 0:
        crowd.update(1 / 60)
        ticks += 1
    one_shot = h.find_path(s.start, s.goal)
    assert ticks > 3
    np.testing.assert_allclose(crowd.path(a)[:-1, :2], cape.cells_to_world(one_shot.cells)[:-1, :2])


def test_an_area_cost_navmesh_query_spans_ticks_and_equals_the_one_shot_result(cape):
    """A mesh with area costs answers by a crossing-point search: it runs under the budget over
    several ticks (no tick pays for it whole) and gives exactly ``find_path``'s path."""
    passable = cape.passable[200:456, 200:456].copy()
    cost = np.ones(passable.shape)
    cost[:, 100:140] = 2.5                                     # a band of rough ground
    grid = Grid(passable, cost)
    labels = grid.components()
    ys, xs = np.nonzero(labels == np.bincount(labels[labels >= 0]).argmax())
    start, goal = grid.cell_to_world(int(xs[0]), int(ys[0])), grid.cell_to_world(int(xs[-1]), int(ys[-1]))
    crowd = Crowd(grid, CrowdConfig(planning_units=2_000, quick_steps=False))
    crowd.level.navmesh()                         # baked at load (unprepared, it is baked off the tick)
    (a,) = crowd.add_agents([start])
    crowd.move([a], goal, planner="navmesh")
    ticks = 0
    while crowd.states[a] == NavState.PLANNING or ticks == 0:
        crowd.update(1 / 60)
        ticks += 1
        assert crowd.queue.last_units <= 2_000 + 8_000
    one_shot = crowd.level.navmesh().find_path(start, goal)
    assert ticks > 3 and one_shot.found
    np.testing.assert_allclose(crowd.path(a)[:, :2], one_shot.points[:, :2])


@pytest.mark.parametrize("planner", ["navmesh", "waypoints"])
def test_single_step_planners_wait_their_turn_and_answer_the_one_shot_result(planner, arena):
    crowd = Crowd(arena, CrowdConfig(planning_units=1_000, quick_steps=False))
    crowd.level.navmesh() if planner == "navmesh" else crowd.level.waypoints()     # baked at load
    start, goal = arena.cell_to_world(3, 10), arena.cell_to_world(40, 30)
    ids = crowd.add_agents([start, start])
    crowd.move(ids[:1], goal, planner="dijkstra")              # a long grid plan ahead of it
    crowd.move(ids[1:], goal, planner=planner)
    crowd.update(1 / 60)
    assert crowd.states[ids[1]] == NavState.PLANNING   # its step was too big for what was left
    start = crowd.positions[ids[1]].copy()             # (the first tick pulled the two bodies apart)
    _run(crowd, 60, until_idle=False)
    one_shot = (crowd.level.navmesh() if planner == "navmesh" else crowd.level.waypoints()).find_path(start, goal)
    expected = one_shot.points if planner == "navmesh" else arena.cells_to_world(one_shot.cells)
    np.testing.assert_allclose(crowd.path(ids[1])[:-1, :2], np.asarray(expected)[:-1, :2])


def test_a_group_order_is_planned_under_the_budget(cape, cape_long):
    s = cape_long[0]
    crowd = Crowd(cape, CrowdConfig(planning_units=2_000))
    ids = crowd.add_agents([cape.cell_to_world(s.start[0], s.start[1])] * 5, group=1)
    crowd.move(ids, cape.cell_to_world(*s.goal), planner="leader")
    units = []
    for _ in range(400):
        crowd.update(1 / 60)
        units.append(crowd.queue.last_units)
        if (crowd.states[ids] == NavState.FOLLOWING).all():
            break
    assert (crowd.states[ids] == NavState.FOLLOWING).all() and len(units) > 3
    leader = int(ids.min())
    assert crowd.agents.mode[leader] == Mode.LEADER and (crowd.agents.mode[ids[1:]] == Mode.CORRIDOR).all()


# --------------------------------------------------------------------------- no silent stuck units
def test_single_agents_on_the_river_reach_random_targets_from_off_centre_starts():
    level = load_level("river")
    grid = level.grid
    crowd = Crowd(grid)
    rng = np.random.default_rng(5)
    labels = grid.components()
    big = np.bincount(labels[labels >= 0]).argmax()
    cells = np.argwhere(labels == big)[:, ::-1]
    starts = cells[rng.choice(len(cells), 40)] + rng.uniform(0.05, 0.95, (40, 2))
    goals = cells[rng.choice(len(cells), 40)] + 0.5
    ids = crowd.add_agents(starts)
    for i, g in zip(ids, goals):
        crowd.move([i], g, planner="astar")
    log = _run(crowd, 3000)
    assert log["reached"] == set(ids.tolist()), (len(log["reached"]), log["failed"], log["stuck"])
    assert not log["stuck"] and _wall_free(crowd)


def test_the_leader_itself_finishes(arena):
    for count, seed in ((20, 0), (50, 1), (100, 2)):
        passable = np.ones((40, 50), dtype=bool)
        passable[5:35, 25] = False
        crowd = Crowd(Grid(passable))
        rng = np.random.default_rng(seed)
        ids = crowd.add_agents(rng.uniform((2, 5), (15, 35), (count, 2)), group=1, radius=0.35)
        crowd.move(ids, (45.5, 20.5), planner="leader")
        log = _run(crowd, 3000)
        assert int(ids.min()) in log["reached"] and len(log["reached"]) == count, (count, log["stuck"])


def test_a_leader_pushed_off_its_path_replans_and_arrives():
    passable = np.ones((40, 60), dtype=bool)
    passable[:, 30] = False
    passable[18:22, 30] = True
    passable[25:40, 20] = False                                # a pocket to be shoved into
    crowd = Crowd(Grid(passable))
    ids = crowd.add_agents([(5.5 + i % 10, 15.5 + i // 10) for i in range(100)], group=1)
    crowd.move(ids, (50.5, 20.5), planner="leader")
    _run(crowd, 60, until_idle=False)
    leader = int(ids.min())
    crowd.agents.position[leader, :2] = (17.5, 35.5)            # shoved behind the pocket's wall
    log = _run(crowd, 3000)
    assert leader in log["reached"] and len(log["reached"]) == 100


def test_a_flow_unit_at_a_wall_corner_does_not_flip_every_tick():
    passable = np.ones((30, 30), dtype=bool)
    passable[10:20, 10:20] = False                             # a block with four corners
    crowd = Crowd(Grid(passable))
    starts = [(9.6, 9.6), (20.4, 9.6), (9.6, 20.4), (20.4, 20.4), (15.0, 9.5), (9.5, 15.0)]
    ids = crowd.add_agents(starts)
    for i in ids:
        crowd.move([i], (25.5, 25.5) if i % 2 else (3.5, 27.5), planner="flowfield")
    previous = np.zeros((len(ids), 2))
    flips = np.zeros(len(ids), dtype=int)
    worst = 0
    for _ in range(900):
        ev = crowd.update(1 / 30)
        v = crowd.velocities[ids, :2]
        reversed_ = (v * previous).sum(axis=1) < 0
        flips = np.where(reversed_, flips + 1, 0)
        worst = max(worst, int(flips.max()))
        previous = v.copy()
        if (crowd.states[ids] == NavState.FINISHED).all():
            break
    assert (crowd.states[ids] == NavState.FINISHED).all() and worst < 3


def test_an_agent_walled_in_by_an_unannounced_edit_is_told_and_stops_at_the_closest_point():
    passable = np.ones((20, 40), dtype=bool)
    crowd = Crowd(Grid(passable), CrowdConfig(stuck_after=1.0, max_recoveries=2))
    (a,) = crowd.add_agents([(2.5, 10.5)])
    crowd.move([a], (35.5, 10.5))
    _run(crowd, 5, until_idle=False)
    with pytest.raises(ValueError, match="read-only"):
        crowd.grid.passable[:, 5] = False                      # edits go through set_passable
    wall = np.array([[x, y] for x in (1, 5) for y in range(20)])
    crowd.grid.set_passable(wall, False)                        # ... even one nobody announces
    finished, failed = False, None
    for _ in range(600):
        ev = crowd.update(1 / 30)
        if len(ev.failed):
            failed = ev.reasons[0]
        if len(ev.reached):
            finished = True
            break
    # the crowd saw the edit, re-planned, learnt the goal is cut off: told why, and walked to the
    # closest point it can reach (Godot's rule)
    assert failed is not None and "not reachable" in failed
    assert finished and 3.5 <= crowd.positions[a, 0] < 5.0


@pytest.mark.slow
def test_short_soak_with_random_reorders_never_leaves_a_silent_stuck_unit():
    grid = load_movingai_map("den520d.map")
    crowd = Crowd(grid, CrowdConfig(stuck_after=4.0))
    rng = np.random.default_rng(11)
    labels = grid.components()
    big = np.bincount(labels[labels >= 0]).argmax()
    cells = np.argwhere(labels == big)[:, ::-1]
    n = 300
    ids = crowd.add_agents(cells[rng.choice(len(cells), n)] + 0.5)
    planners = ["astar", "flowfield", "leader", "hierarchy", "weighted"]
    dt = 1 / 30
    from scipy.spatial import cKDTree

    silent = np.zeros(crowd.agents.size)
    anchor = crowd.positions[:, :2].copy()
    last_progress = np.zeros(crowd.agents.size)             # seconds since each agent progressed
    worst = 0.0
    for tick in range(1500):
        if tick % 100 == 0:
            chosen = rng.choice(ids, n // 3, replace=False)
            for k, part in enumerate(np.array_split(chosen, 5)):
                goal = cells[rng.integers(len(cells))] + 0.5
                crowd.move(part, goal, planner=planners[k], group=int(tick * 10 + k))
        ev = crowd.update(dt)
        pos = crowd.positions[:, :2]
        assert np.isfinite(crowd.positions).all() and _wall_free(crowd)
        walking = crowd.states == NavState.FOLLOWING
        moved = np.hypot(*(pos - anchor).T) > 0.5
        last_progress = np.where(moved, 0.0, last_progress + dt)
        # waiting in a moving queue is progress: within 1.5 cells of someone who just progressed
        fresh = np.flatnonzero(moved | (last_progress < 0.5))
        queued = np.zeros(len(silent), dtype=bool)
        if len(fresh):
            queued = np.isfinite(cKDTree(pos[fresh]).query(pos, distance_upper_bound=1.5)[0])
        told = np.zeros(len(silent), dtype=bool)
        told[ev.stuck] = True
        reset = moved | queued | ~walking | told
        anchor[reset] = pos[reset]
        silent = np.where(reset, 0.0, silent + dt)
        worst = max(worst, float(silent.max()))
    assert worst <= 5.0 + 1e-9, f"an agent walked without progress or a stuck event for {worst:.1f} s"


# ---------------------------------------------------------------------------------- bad values
def test_bad_values_never_escape_update():
    crowd = Crowd(_open())
    ids = crowd.add_agents([(2.5, 2.5), (4.5, 4.5), (6.5, 6.5)])
    crowd.move(ids, (30.5, 20.5))
    for bad in (-1.0, math.nan, math.inf, "x"):
        with pytest.raises(NavError, match="dt"):
            crowd.update(bad)
    assert crowd.update(0.0).reached.size == 0                 # dt = 0: nothing happens
    crowd.agents.position[ids[0]] = (math.nan, 2.5, 0.0)
    crowd.agents.agent_params[ids[1], 1] = 1e9                  # an absurd radius
    log = _run(crowd, 600)
    assert "not finite" in log["failed"][int(ids[0])] and "radius" in log["failed"][int(ids[1])]
    assert int(ids[2]) in log["reached"]
    with pytest.raises(NavError, match="target"):
        crowd.move(ids[2:], (math.nan, 1.0))
    with pytest.raises(NavError, match="planner"):
        crowd.move(ids[2:], (3.5, 1.5), planner="teleport")
    with pytest.raises(NavError, match="radius"):
        crowd.add_agents([(1.5, 1.5)], radius=1e6)
    with pytest.raises(NavError, match="positions"):
        crowd.add_agents([(math.nan, 1.5)])


def test_flow_as_acceleration_builds_speed_over_time_and_the_default_does_not():
    from rtsnav.systems.nav import Grid
    from rtsnav.systems.nav.crowd import Crowd, CrowdConfig

    speeds = {}
    for accel in (0.0, 20.0):
        crowd = Crowd(Grid(np.ones((20, 60), dtype=bool)), CrowdConfig(flow_acceleration=accel, flow_mode="full"))
        ids = crowd.add_agents([(2.5, 10.5), (2.5, 8.5)], radius=0.35, max_speed=4.0)
        crowd.move(ids, (55.5, 10.5), planner="flowfield", group=7)
        seen = []
        for _ in range(40):
            crowd.update(1 / 30)
            v = np.hypot(*crowd.velocities[ids, :2].T).max()
            if v > 0:
                seen.append(v)
        speeds[accel] = seen
    assert speeds[0.0][0] > 3.0                                    # the field sets the velocity at once
    assert speeds[20.0][0] < 1.5                                   # one tick of 20 units/s² (+ flocking)
    assert max(speeds[20.0]) > 3.0                                 # and it gets up to speed


def test_crowd_prepare_bakes_at_load_what_its_planners_need_without_esper(tmp_path):
    """``Crowd.prepare`` (no esper): the practice run, then the structures the planners use are
    built before the first order (the navmesh, the hierarchy, sector tiles on a large map)."""
    passable = np.ones((300, 300), dtype=bool)
    passable[100:200, 150] = False
    crowd = Crowd(Grid(passable), CrowdConfig(), cache_dir=tmp_path)
    stages: list[str] = []
    seconds = crowd.prepare(["navmesh", "hierarchy", "flowfield"], progress=lambda s, d, t: stages.append(s))
    assert list(seconds) == ["kernels", "navmesh", "hierarchy", "tiles"]
    assert stages == ["kernels", "navmesh", "hierarchy", "tiles", "done"]
    assert crowd.level.structure("navmesh") is not None and crowd.level.structure("hierarchy") is not None
    assert crowd.level.structure("tiles") is not None and crowd.level.structure("tiles").version == crowd.grid.version
    with pytest.raises(NavError, match="unknown planner"):
        crowd.prepare(["teleport"])


def test_the_practice_run_ends_with_everyone_arrived():
    """Its units used to be still walking when it stopped (160 ticks), so arrival's kernels (the
    slot claim) compiled in the first real arrival's tick: ~0.8 s on a fresh install."""
    from rtsnav.systems.nav.crowd.warmup import practice_crowd, practice_grid

    methods = ["astar", "flowfield", "leader", "hierarchy", "weighted", "navmesh"]
    assert practice_crowd(Crowd, practice_grid(_open()), methods, "full", 0.4)


def test_single_units_of_every_planner_pass_a_one_cell_gap_without_a_jam():
    """39 single units (every planner, two of three avoiding) all through the practice level's
    one-cell gap. They used to jam at its mouth for good, FOLLOWING without a failure: each
    aimed back at the waypoint before the gap (its next leg grazes the gap's corner, so the
    body-wide sight test never let it pass), and avoidance's wall planes for the whole body
    left a unit no speed into the gap."""
    from rtsnav.systems.nav.crowd.state import PLANNERS
    from rtsnav.systems.nav.crowd.warmup import practice_grid

    crowd = Crowd(practice_grid(_open()), CrowdConfig(rebuild_worker=False))
    ids = []
    for k, method in enumerate(PLANNERS):
        row = 5.5 + 2 * k
        for i in range(3):
            (a,) = crowd.add_agents([(5.5 + i, row)], max_speed=8.0, avoidance=i > 0)
            crowd.move([a], (50.5, 45.5), planner=method)
            ids.append(a)
    log = _run(crowd, 1500, dt=1 / 20)
    assert not log["failed"]
    assert log["reached"] == set(ids)
    assert _wall_free(crowd)


def test_a_big_order_of_single_units_is_queued_over_a_few_ticks_and_all_arrive():
    """At most ``ORDERS_PER_TICK`` single units' plans are queued a tick (queueing one costs
    ~12 µs of Python: 500 at once made an 8 ms tick); the rest stand planning, none walks an
    older order's plan meanwhile, and everyone arrives."""
    from rtsnav.systems.nav.crowd.orders import ORDERS_PER_TICK

    crowd = Crowd(_open(60, 60), CrowdConfig(planning_units=2_000))
    ids = crowd.add_agents([(2.5 + i % 20, 2.5 + i // 20) for i in range(400)], max_speed=8.0)
    crowd.move(ids, (55.5, 5.5))
    crowd.update(1 / 20)
    crowd.move(ids, (55.5, 55.5))                                # re-ordered before most were queued
    crowd.update(1 / 20)
    state = crowd.states[ids]
    assert 0 < len(crowd.queue.keys()) <= min(ORDERS_PER_TICK, len(ids) // 2)
    assert ((state == NavState.PLANNING) | (state == NavState.FOLLOWING)).all()
    log = _run(crowd, 2000, dt=1 / 20)
    assert log["reached"] == set(ids.tolist()) and not log["failed"]
    assert (np.hypot(*(crowd.positions[ids, :2] - (55.5, 55.5)).T) < 15).all()


def test_the_group_index_is_reused_while_rows_and_keys_repeat_and_redone_when_they_change():
    from rtsnav.systems.nav.crowd.group_index import GroupIndex

    grid = Grid(np.ones((20, 30), dtype=bool))
    rng = np.random.default_rng(5)
    rows = np.sort(rng.choice(1000, 300, replace=False)).astype(np.int64)
    keys = np.stack([rng.integers(-5, 4, 300), rng.integers(0, 30, 300) // 10, rng.integers(0, 20, 300) // 10,
                     np.full(300, 3)], axis=1).astype(np.int64)
    index = GroupIndex()
    first, inverse, order_rows, bounds = index.of(rows, keys, grid)
    for g in range(len(first)):                           # each group: its rows, in order, one key
        members = order_rows[bounds[g]:bounds[g + 1]]
        assert (inverse[members] == g).all() and (np.diff(members) > 0).all()
        assert (keys[members] == keys[first[g]]).all()
    assert len({tuple(k) for k in keys}) == len(first)
    assert index.of(rows.copy(), keys.copy(), grid)[1] is inverse          # same rows and keys: reused
    keys[7, 0] = 99                                                        # one unit changes group
    again = index.of(rows, keys, grid)
    assert again[1] is not inverse and len(again[0]) == len(first) + 1


def test_cached_field_samples_steer_exactly_as_fresh_ones(arena, monkeypatch):
    """Group members standing where they were sampled last reuse that sample (``SampleCache``),
    and members in sectors not built yet their coarse route's exit; the same scattered groups run
    with a fresh cache every tick (every sample taken anew) walk the same steps, through coarse
    routes (two sector builds a tick), sectors built on the way, a re-plan after an edit and a
    group sent elsewhere."""
    from rtsnav.systems.nav.crowd import groups
    from rtsnav.systems.nav.crowd.field_batch import SampleCache
    from rtsnav.systems.nav.crowd.planners import UNITS

    monkeypatch.setattr(groups, "SECTOR_BUILDS_AT_LEAST", 2)

    def run(fresh: bool) -> np.ndarray:
        grid = Grid(arena.passable.copy())                   # edited below: not the shared map
        crowd = Crowd(grid, CrowdConfig(flow_mode="tiles", sector_size=8, rebuild_worker=False,
                                        planning_units=2 * UNITS["sector_field"]))
        rng = np.random.default_rng(5)
        labels = grid.components()
        cells = np.argwhere(labels == labels[24, 24])[:, ::-1]
        ids = crowd.add_agents(cells[rng.integers(0, len(cells), 90)] + 0.5, max_speed=3.0, group=1)
        for g, goal in enumerate([(24.5, 24.5), (10.5, 40.5), (40.5, 10.5)]):
            crowd.move(ids[g::3], goal, planner="flowfield", group=g)
        trail = []
        for tick in range(100):
            if fresh:
                crowd.groups.sample_cache = SampleCache()
            if tick == 50:                                    # an edit: the orders re-plan
                wall = np.array([[x, 30] for x in range(15, 22) if grid.passable[30, x]])
                grid.set_passable(wall, False)
                crowd.cells_changed(wall)
            if tick == 70:                                    # a new order: a new field state
                crowd.move(ids[0::3], (40.5, 40.5), planner="flowfield", group=0)
            crowd.update(1 / 20)
            trail.append(crowd.positions[ids, :2].copy())
        return np.array(trail)

    np.testing.assert_array_equal(run(False), run(True))


@pytest.mark.slow
def test_sector_fields_are_built_under_the_planning_budget_and_units_walk_the_coarse_route_meanwhile(
        arena, monkeypatch):
    """Group units entering sectors their order has not built follow the coarse route while the
    sectors are built under what is left of the tick's budget (at least ``SECTOR_BUILDS_AT_LEAST``,
    two here): with a budget worth two builds, no tick builds more, and everyone arrives without
    a wall entry."""
    from rtsnav.systems.nav.crowd import groups
    from rtsnav.systems.nav.crowd.planners import UNITS
    from rtsnav.systems.nav.flow import sector_build

    monkeypatch.setattr(groups, "SECTOR_BUILDS_AT_LEAST", 2)
    builds = [0]
    real = sector_build.sector_fields_into         # every sector field is built through it

    def counted(*args):
        builds[0] += len(args[6])                  # its sector ids
        return real(*args)

    monkeypatch.setattr(sector_build, "sector_fields_into", counted)
    crowd = Crowd(arena, CrowdConfig(flow_mode="tiles", sector_size=8, planning_units=2 * UNITS["sector_field"]))
    crowd.prepare()
    rng = np.random.default_rng(8)
    open_cells = np.argwhere(arena.passable & (crowd.grid.components() == crowd.grid.components()[24, 24]))[:, ::-1]
    ids = crowd.add_agents(open_cells[rng.integers(0, len(open_cells), 60)] + 0.5, max_speed=4.0, group=1)
    crowd.move(ids, (24.5, 24.5), planner="flowfield")
    per_tick, reached = [], set()
    for _ in range(3000):
        builds[0] = 0
        reached |= set(crowd.update(1 / 20).reached.tolist())
        per_tick.append(builds[0])
        assert _wall_free(crowd)
        if len(reached) == 60:
            break
    assert len(reached) == 60
    assert max(per_tick) <= 2 and sum(per_tick) > 4           # many sectors, two a tick at most


def test_members_with_no_mate_near_skip_their_flocking_scans_and_move_exactly_alike(arena, monkeypatch):
    """Flocking skips the scans of members whose kept lower bound on the distance to their
    nearest mate clears their radius (``crowd/steering.py`` ``SKIP_CLEAR``). The forces a scan
    would give them are exactly zero, so scattered groups walk the same steps with and without
    it — through the level of detail's separation-only ticks, arrivals, a re-order that changes
    groups, and an agent added mid-run (also when any join forgets every gap, as an order's
    burst does) — while far fewer members are scanned."""
    from rtsnav.systems.nav.crowd import steering
    from rtsnav.systems.nav.steering import flocking

    monkeypatch.setattr(steering, "LOD_AGENTS", 10)          # a third refreshed a tick, as at scale
    scanned = [0]
    real = flocking.flock_pass

    def counted(*args):
        scanned[0] += int(args[7].sum())                     # the steered agents it scans
        return real(*args)

    monkeypatch.setattr(flocking, "flock_pass", counted)

    def run(skip: bool, forget_at: int = 256) -> tuple[np.ndarray, int]:
        monkeypatch.setattr(steering, "SKIP_CLEAR", skip)
        monkeypatch.setattr(steering, "FORGET_GAPS_AT", forget_at)
        scanned[0] = 0
        crowd = Crowd(arena, CrowdConfig(flow_mode="tiles", sector_size=8, rebuild_worker=False))
        rng = np.random.default_rng(6)
        labels = arena.components()
        cells = np.argwhere(labels == labels[24, 24])[:, ::-1]
        ids = crowd.add_agents(cells[rng.integers(0, len(cells), 120)] + 0.5, max_speed=3.0, group=1)
        goals = [(24.5, 24.5), (10.5, 40.5), (40.5, 10.5), (30.5, 30.5)]
        for g, goal in enumerate(goals):
            crowd.move(ids[g::4], goal, planner="flowfield", group=g)
        trail = []
        for tick in range(160):
            if tick == 60:                                    # half of group 0 joins group 3
                crowd.move(ids[0:60:8], goals[3], planner="flowfield", group=3)
            if tick == 90:
                ids = np.append(ids, crowd.add_agents([cells[7] + 0.5], max_speed=3.0, group=1))
                crowd.move(ids[-1:], goals[1], planner="flowfield", group=1)
            crowd.update(1 / 20)
            trail.append(crowd.positions[ids[:120], :2].copy())
        return np.array(trail), scanned[0]

    with_skip, scans_skipping = run(True)
    without, scans_all = run(False)
    np.testing.assert_array_equal(with_skip, without)
    np.testing.assert_array_equal(run(True, forget_at=0)[0], without)     # joins forget every gap
    assert scans_skipping < 0.9 * scans_all                   # 0.85 when written (a dense arena)


def test_a_leader_groups_strays_get_the_whole_map_field_planned_not_built_in_a_tick(arena, monkeypatch):
    """Followers beyond a leader's corridor and its return field steer by the whole-map field
    toward the goal; when that field is not cached it is planned under the budget (the strays
    wait a few ticks) — never built inside the tick that needs it. Everyone still arrives."""
    from rtsnav.systems.nav.crowd.level_cache import LevelCache

    def no_build_in_a_tick(self, goal):
        raise AssertionError("the whole-map field was built inside a tick")

    monkeypatch.setattr(LevelCache, "flow_field", no_build_in_a_tick)
    crowd = Crowd(arena, CrowdConfig(rebuild_worker=False))
    rng = np.random.default_rng(11)
    labels = arena.components()
    cells = np.argwhere(labels == labels[24, 24])[:, ::-1]
    ids = crowd.add_agents(cells[rng.integers(0, len(cells), 40)] + 0.5, max_speed=4.0, group=1)
    crowd.move(ids, (24.5, 24.5), planner="leader")
    reached, planned = set(), False
    for _ in range(3000):
        reached |= set(crowd.update(1 / 20).reached.tolist())
        planned |= crowd.level.cached_flow_field((24, 24)) is not None
        assert _wall_free(crowd)
        if len(reached) == len(ids):
            break
    assert len(reached) == len(ids) and planned


def test_crowd_prepare_ends_with_a_gc_freeze_unless_told_not_to(arena):
    """``Crowd.prepare`` freezes what loading made out of the collector's sweeps, as
    ``Navigation.prepare`` does (a soak's single 77 ms ticks were full collections)."""
    import gc

    gc.unfreeze()
    crowd = Crowd(arena, CrowdConfig(rebuild_worker=False))
    crowd.prepare(["astar"], freeze_gc=False)
    assert gc.get_freeze_count() == 0
    crowd.prepare(["astar"])
    assert gc.get_freeze_count() > 0


def test_spawn_separation_looks_only_around_the_newcomers():
    """``separate`` pulls apart the bodies within a few cells of agents just added: a unit
    spawned among 100,000 ran its rounds over all of them (5 s a spawn)."""
    from rtsnav.systems.nav.crowd.motion import near_cells

    grid = Grid(np.ones((40, 50), dtype=bool), cell_size=0.5, origin=(3.0, -2.0))
    rng = np.random.default_rng(4)
    points = rng.uniform((3.0, -2.0), (28.0, 18.0), (400, 2))
    around = np.array([5, 77, 300])
    got = near_cells(points, around, grid, 3)
    cells = np.floor((points - np.array([3.0, -2.0])) / 0.5).astype(int)
    expected = (np.abs(cells[:, None, :] - cells[around][None, :, :]).max(axis=2) <= 3).any(axis=1)
    assert np.array_equal(got, expected) and got[around].all() and 0 < got.sum() < len(points)
