"""Where flows meet, with default settings (units avoid each other, as a game sets them): bodies
never stack, opposing files pass a bridge, orders answer at once, bodies keep off walls, a big
leader group uses both bridges, and nobody waits in silence. Scenes from
``tests/benchmarks/crowd_flows.py`` (which measures them at full size)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.ndimage import distance_transform_edt
from scipy.spatial import cKDTree

from rtsnav.levels import load_level
from rtsnav.names import NavState
from rtsnav.systems.nav import Grid
from rtsnav.systems.nav.crowd import Crowd, CrowdConfig
from tests.benchmarks.crowd_flows import DT, Watch, _block, bridge, bridge_shares, first_steps, gap_flow


def _closest(crowd: Crowd, radius: float) -> float:
    """The closest pair's distance over the radii sum now."""
    pos = crowd.positions[:, :2]
    d, _ = cKDTree(pos).query(pos, k=2)
    return float(d[:, 1].min()) / (2 * radius)


@pytest.mark.parametrize("n", [10, pytest.param(40, marks=pytest.mark.slow)])   # 40 v 40: a long scene
def test_opposing_files_cross_a_three_cell_bridge(n):
    alone, both = bridge(n, False), bridge(n, True)
    assert both["arrived"] == both["units"]
    assert both["last_arrival_s"] <= 2.5 * alone["last_arrival_s"]
    assert both["pair_ticks_under_half"] == 0 and both["silent_stuck"] <= 0.05 * both["units"]


def test_units_spawned_on_top_of_each_other_stand_apart_after_one_tick():
    crowd = Crowd(Grid(np.ones((40, 40), dtype=bool)))
    rng = np.random.default_rng(2)
    crowd.add_agents(20 + rng.uniform(-3, 3, (200, 2)), radius=0.4, avoidance=True, group=1)
    crowd.update(DT)
    assert _closest(crowd, 0.4) >= 0.9
    for _ in range(90):                                        # and stay apart while idle
        crowd.update(DT)
    assert _closest(crowd, 0.4) >= 0.9


def test_single_units_answer_an_order_at_once():
    assert first_steps(120)["moving_toward_target_within_0.3s"] >= 0.95


@pytest.mark.parametrize("radius", [0.3, 1.5])
def test_bodies_keep_their_radius_off_walls(radius):
    room = np.ones((60, 60), dtype=bool)
    room[20:40, 30] = False                                    # a wall to walk round, and the map edge
    room[30, 10:30] = False
    grid = Grid(room)
    crowd = Crowd(grid)
    clear = distance_transform_edt(np.pad(room, 1))[1:-1, 1:-1] > radius + 1
    cells = np.argwhere(clear)[:, ::-1]
    rng = np.random.default_rng(4)
    ids = crowd.add_agents(cells[rng.choice(len(cells), 16, replace=False)] + 0.5, radius=radius, avoidance=True)
    goals = cells[rng.choice(len(cells), 16, replace=False)] + 0.5
    for i, g in zip(ids.tolist(), goals):
        crowd.move([i], g)
    fine = 8
    wall_dist = distance_transform_edt(np.kron(np.pad(room, 0), np.ones((fine, fine), dtype=bool))) / fine
    worst = np.inf
    for _ in range(600):
        crowd.update(DT)
        k = np.clip((crowd.positions[:, :2] * fine).astype(np.int64), 0, np.array(wall_dist.shape[::-1]) - 1)
        worst = min(worst, float(wall_dist[k[:, 1], k[:, 0]].min()) / radius)
    assert worst >= 0.95


@pytest.mark.slow
def test_a_big_leader_group_uses_both_bridges():
    row = bridge_shares(250)
    assert row["north_share"] >= 0.25 and row["south_share"] >= 0.25
    assert CrowdConfig(congestion=False).congestion is False         # the option that turns it off


def test_a_frozen_unit_is_reported_with_where_it_stands_and_a_moving_queue_is_not():
    # two files head-on in a one-cell corridor: nobody can pass; both are told, with the place
    p = np.zeros((5, 40), dtype=bool)
    p[2, :] = True
    crowd = Crowd(Grid(p), CrowdConfig(stuck_after=1.0))
    a = crowd.add_agents(_block(2, 2, 3, 3, 1.0)[:, :2], radius=0.4, avoidance=True)
    b = crowd.add_agents(_block(35, 2, 3, 3, 1.0)[:, :2], radius=0.4, avoidance=True)
    for i in a.tolist():
        crowd.move([i], (38.5, 2.5))
    for i in b.tolist():
        crowd.move([i], (1.5, 2.5))
    reported = {}
    for _ in range(int(10 / DT)):
        ev = crowd.update(DT)
        reported.update(zip(ev.stuck.tolist(), ev.stuck_at[:, :2].tolist()))
        assert len(ev.stuck_at) == len(ev.stuck)
    assert reported, "a deadlock nobody reports"
    assert all(2.0 <= y <= 3.0 for _, y in reported.values())  # where they stand: in the corridor
    # one file walking through a one-cell gap: the queue moves, nobody is reported stuck
    gap = np.ones((20, 40), dtype=bool)
    gap[:, 20] = False
    gap[10, 20] = True
    crowd = Crowd(Grid(gap))
    ids = crowd.add_agents(_block(2, 4, 30, 6, 1.0), radius=0.4, avoidance=True)
    for i in ids.tolist():
        crowd.move([i], (37.5, 10.5))
    watch = Watch(crowd, np.zeros(len(ids), dtype=np.int64), np.full(len(ids), 0.4))
    arrived = set()
    for _ in range(int(60 / DT)):
        ev = crowd.update(DT)
        watch.tick(ev.stuck)
        arrived |= set(ev.reached.tolist())
    assert len(arrived) == len(ids)
    assert watch.row()["pair_ticks_under_half"] == 0


def test_a_unit_that_does_not_really_move_is_told_though_its_jostle_counted_as_progress():
    """A unit pressed against others slid a few tenths of a cell: one slide nearer its goal
    counted as progress (its anchor was where it last progressed), so it stood 6.9 s within half
    a cell of one spot with no event (the river scene's spawn seed 2: unit 114). The plain clock
    reports it within ``stuck_after`` + ``REST_SLACK`` of its last real move."""
    from rtsnav.systems.nav.crowd.progress import REST_SLACK

    crowd = Crowd(Grid(np.ones((20, 60), dtype=bool)), CrowdConfig(quick_steps=False))
    (a,) = crowd.add_agents([(5.5, 10.5)])
    crowd.move([a], (55.5, 10.5))
    crowd.update(DT)
    start = crowd.positions[a, :2].copy()
    # the game moves the body: half a cell aside (a real move), then, within half a cell of that
    # spot, 0.52 nearer the goal (progress by the path measure) — then it stands
    moves = {3: start + (0.05, 0.5), 90: start + (0.52, 0.35)}
    told = []
    for t in range(1, int(12 / DT)):
        if t in moves:
            crowd.agents.position[a, :2] = moves[t]
        ev = crowd.update(DT, movement="game")
        told += [t] * int(a in ev.stuck)
    assert told, "a unit standing still under an order was never told"
    assert (told[0] - 3) * DT <= crowd.config.stuck_after + REST_SLACK + 2 * DT, told
    assert np.diff(told).max() * DT <= crowd.config.stuck_after + REST_SLACK + 2 * DT, told


@pytest.mark.slow
def test_two_armies_of_mixed_planners_swap_banks():
    from tests.benchmarks.crowd_flows import river_armies

    row = river_armies(100)                                    # 100 v 100 (the benchmark runs 200 v 200)
    assert row["arrived"] >= 0.98 * row["units"]
    assert row["pair_ticks_under_half"] == 0


@pytest.mark.slow
def test_an_order_into_a_pocket_ends_with_every_unit_settled_or_told():
    p = np.ones((40, 40), dtype=bool)
    p[30:40, 30] = False
    p[30, 30:40] = False
    p[30, 34:37] = True                                       # a pocket behind a 3-cell door
    crowd = Crowd(Grid(p))
    ids = crowd.add_agents(_block(2, 2, 120, 12, 1.0), radius=0.5, max_speed=4.0, group=1, avoidance=True)
    crowd.move(ids, (35.5, 35.5), planner="flowfield")
    failed = set()
    for _ in range(int(60 / DT)):
        failed |= set(crowd.update(DT).failed.tolist())
    states = crowd.states[ids]
    walking = states == NavState.FOLLOWING
    assert int(walking.sum()) == 0 or set(ids[walking].tolist()) <= failed


@pytest.mark.slow
def test_a_crowd_streams_through_a_gap_in_lanes_not_in_one_file():
    """Single units bound for a 3-cell gap look ahead past its corner waypoint: the flow is more
    than one file could carry (one file at full speed: 27% of the geometric limit)."""
    assert gap_flow(False)["share_of_limit"] >= 0.45
    assert gap_flow(True)["share_of_limit"] >= 0.25


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 2, 5])
def test_a_big_leader_group_leaves_its_bank_without_stacking(seed):
    """1,000 units of one "leader" group spawned on the river level's east bank (as the demo
    does: on its spawn cells, jittered) and ordered across: its corridor is as wide as the army,
    so it is not squeezed sideways into itself against the map's edge (a 7-cell band: 29 pairs
    closer than 0.9 × at the worst tick, one under 0.5 ×), and walking mates share a push evenly,
    so the army's pressure does not pile up at its back against the map's edge (with the rear
    unit taking 75%: 9–22 pairs under 0.9 × over six spawns, some under 0.5 ×; seeds 0, 2, 5
    were the worst)."""
    level = load_level("river")
    crowd = Crowd(level.grid)
    cells = level.spawns[2]
    rng = np.random.default_rng(seed)
    n = 1000
    pos = cells[rng.integers(0, len(cells), n)] + 0.5 + rng.uniform(-0.3, 0.3, (n, 2))
    ids = crowd.add_agents(pos, radius=0.35, max_speed=5.0, avoidance=True, group=2, flock_radius=1.2)
    for _ in range(30):
        crowd.update(DT)
    crowd.move(ids, (11.5, 32.0), planner="leader")
    watch = Watch(crowd, np.zeros(n, dtype=np.int64), np.full(n, 0.35))
    for _ in range(90):
        watch.tick(crowd.update(DT).stuck)
    assert watch.under_half == 0
    assert watch.worst_mates <= 0.01 * n


@pytest.mark.slow
@pytest.mark.parametrize("planner", ["leader", "flowfield"])
def test_an_army_leaving_the_fortress_does_not_stack(planner):
    """600 units of one group spawned on the fortress level's second spawn (jittered cells, as
    the demo does) and ordered to the first: no pair closer than 0.5 × the radii sum, at most 1%
    of the units in pairs under 0.9 × at the worst tick. (With the rear mate taking 75% of each
    push the army's pressure piled up at its back: 136–260 pairs under 0.9 ×, ~900–2,700
    pair-ticks under 0.5 ×.)"""
    level = load_level("fortress")
    crowd = Crowd(level.grid)
    cells = level.spawns[2]
    rng = np.random.default_rng(0)
    n = 600
    pos = cells[rng.integers(0, len(cells), n)] + 0.5 + rng.uniform(-0.3, 0.3, (n, 2))
    ids = crowd.add_agents(pos, radius=0.35, max_speed=5.0, avoidance=True, group=2, flock_radius=1.2)
    for _ in range(30):
        crowd.update(DT)
    crowd.move(ids, tuple(level.spawns[1].mean(axis=0) + 0.5), planner=planner)
    watch = Watch(crowd, np.zeros(n, dtype=np.int64), np.full(n, 0.35))
    for _ in range(240):
        watch.tick(crowd.update(DT).stuck)
    assert watch.under_half == 0
    assert watch.worst_mates <= 0.01 * n


def test_a_one_cell_door_is_taken_in_turns():
    """30 single units each way through a one-cell door in a thin wall (one lane, whatever the room
    beside it): the flow with less traffic there gives way, so the door changes hands instead of
    holding a plug (83 s when the door counted as two lanes; one way alone takes ~20 s)."""
    p = np.ones((40, 60), dtype=bool)
    p[:, 30] = False
    p[20, 30] = True
    crowd = Crowd(Grid(p))
    a = crowd.add_agents(_block(10, 14, 30, 8), radius=0.35, max_speed=4.0, avoidance=True)
    b = crowd.add_agents(_block(42, 14, 30, 8), radius=0.35, max_speed=4.0, avoidance=True)
    for i in a.tolist():
        crowd.move([i], (50.5, 20.5))
    for i in b.tolist():
        crowd.move([i], (9.5, 20.5))
    ids = np.concatenate([a, b])
    for _ in range(int(75 / DT)):
        crowd.update(DT)
        if (crowd.states[ids] == NavState.FINISHED).all():
            break
    assert (crowd.states[ids] == NavState.FINISHED).all()
