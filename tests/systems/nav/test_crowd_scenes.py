"""Standard scenes of the crowd-simulation literature (SteerBench-style) as regression tests.

Each scene measures: completion, time to complete against the straight-line lower bound, overlaps
(two centres closer than 0.9 × the sum of their radii, checked every tick; across teams, and in
all), wall entries, and heading jitter (mean change of heading per tick of walking units).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
from scipy.spatial import cKDTree

from rtsnav.levels import load_level
from rtsnav.systems.nav import Grid
from rtsnav.systems.nav.crowd import Crowd, CrowdConfig, NavState

DT = 1 / 30


@dataclass
class SceneResult:
    arrived: int
    total: int
    seconds: float
    cross_team_overlaps: int
    overlaps: int
    wall_entries: int
    jitter_deg: float


def run_scene(crowd: Crowd, team: np.ndarray, bound_s: float, radius: float) -> SceneResult:
    """Tick until everyone arrived or ``bound_s`` passed; ``team`` per agent id."""
    grid = crowd.grid
    reached: set[int] = set()
    cross = total = walls = 0
    heading, prev_walking = None, None
    turns, samples = 0.0, 0
    for tick in range(int(bound_s / DT)):
        ev = crowd.update(DT)
        reached |= set(ev.reached.tolist())
        pos = crowd.positions[:, :2]
        pairs = np.array(list(cKDTree(pos).query_pairs(0.9 * 2 * radius)))
        if len(pairs):
            total += len(pairs)
            cross += int((team[pairs[:, 0]] != team[pairs[:, 1]]).sum())
        cells = grid.world_to_cells(crowd.positions)
        walls += int((~grid.passable[cells[:, 1], cells[:, 0]]).sum())
        v = crowd.velocities[:, :2]
        walking = (crowd.states == NavState.FOLLOWING) & (np.hypot(*v.T) > 0.2)
        now = np.arctan2(v[:, 1], v[:, 0])
        if heading is not None and prev_walking is not None:
            both = walking & prev_walking
            d = np.abs((now[both] - heading[both] + np.pi) % (2 * np.pi) - np.pi)
            turns += float(d.sum())
            samples += int(both.sum())
        heading, prev_walking = now, walking
        if len(reached) == len(team):
            break
    return SceneResult(len(reached), len(team), (tick + 1) * DT, cross, total, walls,
                       math.degrees(turns / max(samples, 1)))


def reach_all(crowd: Crowd, count: int, max_ticks: int) -> int:
    """Tick until ``count`` agents reported ``reached`` (or ``max_ticks``); returns how many did."""
    reached: set[int] = set()
    for _ in range(max_ticks):
        reached |= set(crowd.update(DT).reached.tolist())
        if len(reached) == count:
            break
    return len(reached)


def _check(result: SceneResult, straight_s: float, *, all_overlaps: bool = False) -> None:
    assert result.arrived == result.total, f"{result.arrived}/{result.total} arrived"
    assert result.seconds <= 3 * straight_s + 30, f"{result.seconds:.0f} s for a {straight_s:.0f} s walk"
    assert result.wall_entries == 0
    assert result.cross_team_overlaps == 0, f"{result.cross_team_overlaps} cross-team overlaps"
    if all_overlaps:
        assert result.overlaps == 0, f"{result.overlaps} overlaps"
    assert result.jitter_deg < 6.0, f"heading jitter {result.jitter_deg:.1f} degrees per tick"


@pytest.mark.slow
@pytest.mark.parametrize("all_at_once", [False, True])
def test_rvo2_circle_of_250_single_units(all_at_once):
    """A dense ring (neighbours touching): with every plan made in the first tick all 250 start
    at once, the most symmetric case — the right-hand bias and team contacts must untangle it."""
    n, ring, speed, r = 250, 40.0, 2.0, 0.5
    size = int(2 * ring + 20)
    crowd = Crowd(Grid(np.ones((size, size), dtype=bool)), CrowdConfig(planning_units=10**9 if all_at_once else 2_000))
    c = size / 2
    a = np.arange(n) * 2 * np.pi / n
    ids = crowd.add_agents(np.c_[c + ring * np.cos(a), c + ring * np.sin(a)], radius=r, max_speed=speed,
                           avoidance=True, target_desired_distance=0.5)
    for i in ids:
        crowd.move([i], (c - ring * np.cos(a[i]), c - ring * np.sin(a[i])))
    result = run_scene(crowd, np.arange(n), 3 * 2 * ring / speed + 30, r)
    _check(result, 2 * ring / speed, all_overlaps=True)


def _two_groups(passable, a, b, goal_a, goal_b, planner="flowfield", r=0.4, speed=3.0, **config):
    crowd = Crowd(Grid(passable), CrowdConfig(**config))
    ia = crowd.add_agents(a, radius=r, max_speed=speed, avoidance=True, group=1)
    ib = crowd.add_agents(b, radius=r, max_speed=speed, avoidance=True, group=2)
    crowd.move(ia, goal_a, planner=planner)
    crowd.move(ib, goal_b, planner=planner)
    team = np.r_[np.zeros(len(ia), int), np.ones(len(ib), int)]
    return crowd, team


@pytest.mark.slow
@pytest.mark.parametrize("contacts", [False, True])
@pytest.mark.parametrize("planner", ["flowfield", "leader"])
def test_two_groups_of_100_head_on_in_a_10_cell_corridor(planner, contacts):
    """No cross-team overlap by default; with hard contacts no overlap at all, mates included."""
    passable = np.zeros((14, 120), dtype=bool)
    passable[2:12, :] = True
    a = np.array([(3 + (k % 10) * 1.9, 2.8 + (k // 10) * 0.93) for k in range(100)])
    b = np.array([(117 - (k % 10) * 1.9, 2.8 + (k // 10) * 0.93) for k in range(100)])
    crowd, team = _two_groups(passable, a, b, (110.5, 7.0), (10.5, 7.0), planner, contacts=contacts)
    result = run_scene(crowd, team, 3 * 100 / 3 + 30, 0.4)
    _check(result, 100 / 3.0, all_overlaps=contacts)


@pytest.mark.slow
@pytest.mark.parametrize("planner", ["flowfield", "leader"])
def test_hard_contacts_through_a_one_cell_gap(planner):
    """With hard contacts, 100 units still file through a one-cell gap and settle (slower than
    the soft default: nobody squeezes past), with no overlap and nobody in a wall."""
    passable = np.ones((40, 60), dtype=bool)
    passable[:, 30] = False
    passable[30, 30] = True
    crowd = Crowd(Grid(passable), CrowdConfig(contacts=True))
    ids = crowd.add_agents([(5.5 + i % 10, 5.5 + i // 10) for i in range(100)], radius=0.4, max_speed=4.0, group=1)
    crowd.move(ids, (50.5, 10.5), planner=planner)
    result = run_scene(crowd, np.zeros(100, int), 3000 * DT, 0.4)
    assert result.arrived == 100 and result.overlaps == 0 and result.wall_entries == 0


@pytest.mark.slow
def test_two_groups_crossing_at_right_angles():
    passable = np.ones((80, 80), dtype=bool)
    k = np.arange(60)
    a = np.c_[5 + (k % 6) * 1.2, 34 + (k // 6) * 1.2]            # heading east
    b = np.c_[34 + (k % 10) * 1.2, 5 + (k // 10) * 1.2]           # heading north
    crowd, team = _two_groups(passable, a, b, (74.5, 39.5), (39.5, 74.5))
    result = run_scene(crowd, team, 3 * 68 / 3 + 30, 0.4)
    _check(result, 68 / 3.0)


@pytest.mark.slow
def test_bottleneck_of_100_through_a_2_cell_door():
    passable = np.ones((40, 60), dtype=bool)
    passable[:, 30] = False
    passable[19:21, 30] = True
    crowd = Crowd(Grid(passable))
    k = np.arange(100)
    ids = crowd.add_agents(np.c_[8 + (k % 10) * 1.2, 14 + (k // 10) * 1.2], radius=0.4, max_speed=3.0,
                           avoidance=True, group=1)
    crowd.move(ids, (50.5, 20.5), planner="flowfield")
    result = run_scene(crowd, np.zeros(100, int), 3 * 42 / 3 + 30, 0.4)
    _check(result, 42 / 3.0)


@pytest.mark.slow                     # a long scene: make test-slow
def test_doorway_passed_both_ways():
    passable = np.ones((40, 60), dtype=bool)
    passable[:, 30] = False
    passable[17:23, 30] = True                                       # a 6-cell doorway
    k = np.arange(50)
    a = np.c_[10 + (k % 5) * 1.2, 15 + (k // 5) * 1.2]
    b = np.c_[45 + (k % 5) * 1.2, 15 + (k // 5) * 1.2]
    crowd, team = _two_groups(passable, a, b, (50.5, 20.5), (10.5, 20.5))
    result = run_scene(crowd, team, 3 * 40 / 3 + 30, 0.4)
    _check(result, 40 / 3.0)


@pytest.mark.slow
def test_open_field_armies_meet():
    passable = np.ones((120, 160), dtype=bool)
    k = np.arange(300)
    a = np.c_[10 + (k % 15) * 1.1, 50 + (k // 15) * 1.1]
    b = np.c_[150 - (k % 15) * 1.1, 50 + (k // 15) * 1.1]
    crowd, team = _two_groups(passable, a, b, (140.5, 60.5), (20.5, 60.5))
    result = run_scene(crowd, team, 3 * 130 / 3 + 30, 0.4)
    _check(result, 130 / 3.0)


@pytest.mark.slow
@pytest.mark.parametrize("congestion", [False, True])
def test_two_armies_across_the_river(congestion):
    """Shortest routes share the north bridge; with congestion on each bridge carries ≥ 20%."""
    level = load_level("river")
    grid = level.grid
    crowd = Crowd(grid, CrowdConfig(congestion=congestion))
    rng = np.random.default_rng(2)
    a = level.spawns[1][rng.choice(len(level.spawns[1]), 250, replace=False)] + 0.5
    b = level.spawns[2][rng.choice(len(level.spawns[2]), 250, replace=False)] + 0.5
    ia = crowd.add_agents(a, radius=0.35, max_speed=4.0, avoidance=True, group=1)
    ib = crowd.add_agents(b, radius=0.35, max_speed=4.0, avoidance=True, group=2)
    crowd.move(ia, (84.5, 12.5), planner="leader")
    crowd.move(ib, (12.5, 12.5), planner="leader")
    team = np.r_[np.zeros(250, int), np.ones(250, int)]
    north, south = level.gates["north bridge"].cells, level.gates["south bridge"].cells
    on_north, on_south = np.zeros(500, bool), np.zeros(500, bool)
    cross = 0
    reached: set[int] = set()
    for _ in range(3000):
        reached |= set(crowd.update(DT).reached.tolist())
        c = grid.world_to_cells(crowd.positions)
        key = c[:, 0] * 1000 + c[:, 1]
        on_north |= np.isin(key, north[:, 0] * 1000 + north[:, 1])
        on_south |= np.isin(key, south[:, 0] * 1000 + south[:, 1])
        pairs = np.array(list(cKDTree(crowd.positions[:, :2]).query_pairs(0.9 * 0.7)))
        if len(pairs):
            cross = max(cross, int((team[pairs[:, 0]] != team[pairs[:, 1]]).sum()))
        assert not cKDTree(crowd.positions[:, :2]).query_pairs(0.5 * 0.7)       # nobody stacked, ever
        if len(reached) == 500:
            break
    assert cross <= 0.005 * 500           # the worst tick: pairs across teams under 0.9 × the radii sum
    if congestion:
        assert len(reached) == 500
        crossings = on_north.sum() + on_south.sum()
        assert on_north.sum() >= 0.2 * crossings and on_south.sum() >= 0.2 * crossings
    else:
        assert on_south.sum() == 0                             # all on the one bridge: the jam the option avoids


@pytest.mark.slow
@pytest.mark.parametrize("planner", ["leader", "flowfield"])
def test_200_through_a_one_cell_gap_settle_close_to_the_best_packing(planner):
    passable = np.ones((40, 60), dtype=bool)
    passable[:, 30] = False
    passable[30, 30] = True
    crowd = Crowd(Grid(passable))
    rng = np.random.default_rng(0)
    r = 0.35
    ids = crowd.add_agents(rng.uniform((10, 5), (25, 35), (200, 2)), radius=r, max_speed=4.0, group=1)
    crowd.move(ids, (50.5, 10.5), planner=planner)
    assert reach_all(crowd, 200, 6000) == 200
    ideal = 0.5 * 2.5 * r * math.sqrt(200 / (math.pi / (2 * math.sqrt(3))))   # spacing 2.5 r, hexagonal packing
    distance = np.hypot(*(crowd.positions[:, :2] - (50.5, 10.5)).T)
    assert distance.max() <= 1.3 * ideal, f"{distance.max():.1f} > 1.3 × {ideal:.1f}"


def test_50_single_units_sent_to_one_point_settle_around_it_without_stacking():
    """Arrival chaining: a unit on its last leg that touches a unit already arrived at the same
    target cell has arrived too; with avoidance nobody ends closer than two radii."""
    crowd = Crowd(Grid(np.ones((60, 60), dtype=bool)))
    rng = np.random.default_rng(5)
    r = 0.4
    ids = crowd.add_agents(rng.uniform(5, 55, (50, 2)), radius=r, max_speed=3.0, avoidance=True)
    for i in ids:
        crowd.move([i], (30.5, 30.5))
    assert reach_all(crowd, 50, 3000) == 50
    assert len(cKDTree(crowd.positions[:, :2]).query_pairs(0.99 * 2 * r)) == 0
    distance = np.hypot(*(crowd.positions[:, :2] - (30.5, 30.5)).T)
    assert np.percentile(distance, 90) < 8.0 and distance.max() < 16.0      # a loose ring, not scattered


def test_congestion_traffic_is_recounted_as_a_group_arrives():
    """The traffic map is refreshed at a low rate from the crowd as it is: a route's weight
    falls as its group's members arrive, and is gone when the order ends."""
    level = load_level("river")
    grid = level.grid
    crowd = Crowd(grid, CrowdConfig(congestion=True, congestion_refresh=1.0))
    rng = np.random.default_rng(4)
    a = level.spawns[1][rng.choice(len(level.spawns[1]), 120, replace=False)] + 0.5
    ids = crowd.add_agents(a, radius=0.35, max_speed=4.0, group=1)
    crowd.move(ids, (84.5, 12.5), planner="flowfield")
    history, arrived = [], set()                                # per tick: (still walking, traffic)
    for _ in range(3000):
        arrived |= set(crowd.update(DT).reached.tolist())
        history.append((120 - len(arrived), float(crowd.groups.traffic.map.max())))
        if len(arrived) == 120:
            break
    assert len(arrived) == 120
    assert max(t for _, t in history) >= 120 - 1e-9            # the whole group counted while walking
    lag = round(1.0 / DT) + 1                                  # a recount a second
    for now in range(lag, len(history)):                       # recounted: never more than were walking
        assert history[now][1] <= history[now - lag][0] + 1e-9
    assert min(t for _, t in history) <= 30 + 1e-9             # down to a quarter before the order ends
    for _ in range(3):
        crowd.update(DT)
    assert crowd.groups.traffic.map.max() == 0.0 and not crowd.groups.traffic.routes     # the order ended: no traffic left
