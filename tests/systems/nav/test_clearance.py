"""Agents of several sizes on one grid: the clearance map, class grids that follow edits, and
the crowd keeping wide units out of passages they cannot fit."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.systems.nav import Grid
from rtsnav.systems.nav.crowd import Crowd
from rtsnav.systems.nav.flow.clearance import SizedGrids, clearance_map
from tests.conftest import ascii_grid


def _brute_clearance(passable: np.ndarray) -> np.ndarray:
    """Distance from each open cell centre to the nearest blocked square or the map edge."""
    h, w = passable.shape
    walls = [(x, y) for y in range(-1, h + 1) for x in range(-1, w + 1)
             if not (0 <= x < w and 0 <= y < h) or not passable[y, x]]
    out = np.zeros((h, w))
    for y in range(h):
        for x in range(w):
            if passable[y, x]:
                out[y, x] = min(np.hypot(max(abs(x - bx) - 0.5, 0), max(abs(y - by) - 0.5, 0)) for bx, by in walls)
    return out


def test_clearance_is_the_distance_to_the_nearest_wall_square():
    rng = np.random.default_rng(4)
    passable = rng.random((14, 17)) > 0.15
    want = np.minimum(_brute_clearance(passable), 2.5)
    assert np.allclose(clearance_map(passable), want)


def test_class_grids_follow_edits_like_fresh_ones():
    grid = Grid(np.ones((40, 40), dtype=bool))
    sized = SizedGrids(grid)
    wide = sized.grid_for(1.5)
    for cells, value in ((np.array([[20, y] for y in range(5, 30)]), False), (np.array([[20, 12], [20, 13]]), True)):
        grid.set_passable(cells, value)
        sized.cells_changed(cells)
        fresh = SizedGrids(Grid(grid.passable.copy()))
        assert np.allclose(sized.clearance, fresh.clearance)
        assert np.array_equal(wide.passable, fresh.grid_for(1.5).passable)


GAP = ascii_grid("""
....................
....................
....................
....................
....................
#########.##########
....................
....................
....................
....................
....................
""")


@pytest.mark.parametrize("radius, fits", [(0.3, True), (0.4, True), (1.5, False), (2.0, False)])
def test_a_one_cell_gap_is_unreachable_for_a_wide_unit_and_reachable_for_a_small_one(radius, fits):
    crowd = Crowd(GAP)
    (unit,) = crowd.add_agents([(9.5, 1.5)], radius=radius)
    crowd.move([unit], (9.5, 9.5), planner="astar")
    reached, reasons = [], []
    for _ in range(400):
        ev = crowd.update(1 / 20)
        reached += ev.reached.tolist()
        reasons += ev.reasons
        if reached or reasons:
            break
    if fits:
        assert reached == [unit] and not reasons
    else:
        assert not reached and len(reasons) == 1 and f"radius {radius:g}" in reasons[0], reasons


ROOMS = ascii_grid("""
..................................
..................................
..................................
..................................
..................................
..................................
..............######..............
..............######..............
..............######..............
######....########################
######....########################
......................############
......................############
..........................########
..................................
..................................
..................................
..................................
..................................
""")


@pytest.mark.parametrize("planner", ["astar", "jps", "navmesh", "hierarchy"])
def test_a_wide_unit_never_enters_a_cell_closer_to_a_wall_than_its_radius(planner):
    """Radius 1.5 through a 4-cell door (centre cells clear 1.5) and round corners: every tick
    its centre is in a cell that clears 1.5; a radius-2 unit is told the door is too narrow."""
    clearance = clearance_map(ROOMS.passable)
    crowd = Crowd(ROOMS)
    (wide,) = crowd.add_agents([(3.5, 3.5)], radius=1.5, max_speed=3.0)
    (wider,) = crowd.add_agents([(30.5, 2.5)], radius=2.0)
    crowd.move([wide], (30.5, 16.5), planner=planner)
    crowd.move([wider], (30.5, 16.5), planner=planner)
    reached, failed = set(), []
    for _ in range(1500):
        ev = crowd.update(1 / 20)
        reached |= set(ev.reached.tolist())
        failed += list(zip(ev.failed.tolist(), ev.reasons))
        x, y = ROOMS.world_to_cell(*crowd.positions[wide, :2])
        assert clearance[y, x] >= 1.5, f"the wide unit stood at {(x, y)}, {clearance[y, x]:.2f} from a wall"
        if wide in reached and failed:
            break
    assert wide in reached
    assert [f for f, _ in failed] == [wider] and "too narrow" in failed[0][1]


DETOUR = ascii_grid("""
..............................
..............................
..............................
..............................
..............................
##############.##########.....
..............................
..............................
..............................
..............................
..............................
""")


@pytest.mark.slow
@pytest.mark.parametrize("flow_mode", ["full", "tiles"])
def test_a_wide_group_flows_round_by_the_opening_it_fits_not_through_the_gap(flow_mode):
    from rtsnav.systems.nav.crowd import CrowdConfig

    crowd = Crowd(DETOUR, CrowdConfig(flow_mode=flow_mode, sector_size=8))
    wide = crowd.add_agents([(3.5 + 2.5 * i, 1.5 + 2 * (i % 2)) for i in range(4)], radius=1.0, group=1)
    small = crowd.add_agents([(12.5 + i, 2.5) for i in range(3)], radius=0.4, group=2)
    crowd.move(wide, (8.5, 8.5), planner="flowfield")
    crowd.move(small, (16.5, 8.5), planner="flowfield")
    reached: set[int] = set()
    through_gap: set[int] = set()
    for _ in range(1500):
        ev = crowd.update(1 / 20)
        reached |= set(ev.reached.tolist())
        assert not ev.reasons, ev.reasons
        cells = DETOUR.world_to_cells(crowd.positions)
        through_gap |= set(np.flatnonzero((cells[:, 0] == 14) & (cells[:, 1] == 5)).tolist())
        if len(reached) == 7:
            break
    assert reached == set(wide.tolist()) | set(small.tolist())
    assert not through_gap & set(wide.tolist()), "a radius-1 unit squeezed through the one-cell gap"
    assert through_gap & set(small.tolist()), "the small units should take the short way"


FENCE = ascii_grid("""
..............................
..............................
..............................
..............................
..............................
.#.#.#.#.#.#.#.#.#.#..........
..............................
..............................
..............................
..............................
""")


def test_a_wide_group_member_that_walks_alone_plans_on_its_own_clearance():
    """A wide unit of a group held without progress (walled in by paused units) is recovered
    onto a path of its own: planned on its clearance class, round the fence's end, not through
    the one-cell gaps a narrow unit takes (a tank in the demo stood 5 s short of such a waypoint,
    its wall clearance keeping it off, its group's next order waiting for it)."""
    crowd = Crowd(FENCE)
    (tank,) = crowd.add_agents([(4.5, 2.5)], radius=0.7, max_speed=3.0, avoidance=True)
    ring = [(4.5 + 1.35 * np.cos(a), 2.5 + 1.35 * np.sin(a)) for a in np.linspace(0, 2 * np.pi, 13)[:-1]]
    guards = crowd.add_agents(ring, radius=0.5, avoidance=True)
    crowd.pause(guards)
    crowd.move([tank], (4.5, 8.5), planner="flowfield")
    path = np.zeros((0, 3))
    for _ in range(200):
        crowd.update(1 / 20)
        path = crowd.path(tank)
        if len(path):
            break
    assert len(path), "the held unit was never recovered onto a path of its own"
    clearance = clearance_map(FENCE.passable)
    cells = FENCE.world_to_cells(path[:, :2])
    assert (clearance[cells[:, 1], cells[:, 0]] >= 0.7).all(), f"a waypoint too near a wall: {path[:, :2].tolist()}"
    assert path[:, 0].max() >= 20.0, "the path should go round the fence's end"
