"""Leader groups' ways back to the group (``crowd/detours.py``) and the region goal they search
for, with no esper: the corridor A* fallback and the Leader/Target role election."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.systems.nav import Grid, NavError, find_path
from rtsnav.systems.nav.crowd import Crowd, CrowdConfig, Mode, NavState
from rtsnav.systems.nav.crowd.detours import in_touch
from rtsnav.systems.nav.flow.corridor import CorridorField
from rtsnav.systems.nav.flow.field import build_field
from rtsnav.systems.nav.search.region import GoalRegion
from rtsnav.systems.nav.search.sliced import SlicedSearch


@pytest.mark.parametrize("method", ["astar", "dijkstra"])
def test_a_region_search_ends_at_the_cheapest_region_cell(method):
    """Against a Dijkstra from every region cell at once, on random maps: the same cost (to the
    field's float32 precision), ending in the region, on legal steps."""
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(60):
        grid = Grid(rng.random((40, 60)) > 0.25)
        free = np.argwhere(grid.passable)
        a, b, c = free[rng.integers(len(free), size=3)]
        path = find_path(grid, (a[1], a[0]), (b[1], b[0]))
        if not path.found or len(path.cells) < 3:
            continue
        corridor = CorridorField.build(grid, path.cells, width=2.0)
        region = GoalRegion.around_path(corridor.inside, path.cells, 2.0)
        result = SlicedSearch(grid, (c[1], c[0]), region.cell, method, goal_region=region).run()
        ys, xs = np.nonzero(corridor.inside)
        want = build_field(grid, np.stack([xs, ys], axis=1), smooth=False).integration[c[0], c[1]]
        assert result.found == bool(np.isfinite(want))
        if result.found:
            checked += 1
            assert result.cost == pytest.approx(float(want), rel=1e-5)
            x, y = result.cells[-1]
            assert corridor.inside[y, x] and not corridor.inside[result.cells[:-1, 1], result.cells[:-1, 0]].any()
            assert (np.abs(np.diff(result.cells, axis=0)) <= 1).all()
    assert checked > 30


def test_a_region_needs_cells_and_anchors():
    with pytest.raises(NavError, match="at least one cell"):
        GoalRegion(np.zeros((4, 4), dtype=bool), np.array([[1.0, 1.0]]), 1.0)
    with pytest.raises(NavError, match="slack"):
        GoalRegion(np.ones((4, 4), dtype=bool), np.zeros((0, 2)), 1.0)
    with pytest.raises(NavError, match="leader_fallback"):
        CrowdConfig(leader_fallback="seek")


def test_units_in_touch_are_chained_to_the_seed_through_mates_in_sight():
    p = np.ones((20, 40), dtype=bool)
    p[:, 20] = False                                   # a wall: no sight across it
    grid = Grid(p)
    points = np.array([[2.5, 5.5], [6.5, 5.5], [10.5, 5.5], [18.5, 5.5], [22.5, 5.5], [30.5, 15.5]])
    seed = np.zeros(6, dtype=np.bool_)
    seed[0] = True
    touch = in_touch(points, seed, 5.0, grid.passable, 1.0, 0.0, 0.0)
    # 0-1-2 chain (4 apart); 2→3 is 8 apart; 3 and 4 are near but the wall is between them
    assert touch.tolist() == [True, True, True, False, False, False]
    assert in_touch(points, seed, 8.5, grid.passable, 1.0, 0.0, 0.0).tolist() == [True] * 4 + [False] * 2


def _straggler_crowd(fallback: str):
    """A group of 30 in the west, two stragglers in a bay behind a wall, the goal in the east."""
    p = np.ones((40, 80), dtype=bool)
    p[22, 0:30] = False                                # the bay's wall: open at its east end
    grid = Grid(p)
    crowd = Crowd(grid, CrowdConfig(leader_fallback=fallback))
    xs, ys = np.meshgrid(np.arange(4, 10) + 0.5, np.arange(8, 13) + 0.5)
    group = np.stack([xs.ravel(), ys.ravel(), np.zeros(xs.size)], axis=1)
    stragglers = np.array([[3.5, 33.5, 0.0], [8.5, 36.5, 0.0]])
    ids = crowd.add_agents(np.concatenate([group, stragglers]), radius=0.35, max_speed=4.0, group=1)
    crowd.move(ids, (74.5, 10.5, 0.0), planner="leader")
    return crowd, ids


@pytest.mark.parametrize("fallback", ["astar", "roles"])
def test_stragglers_take_a_detour_and_rejoin_their_group(fallback):
    crowd, ids = _straggler_crowd(fallback)
    stragglers = ids[-2:]
    seen_detour, ends = set(), {}
    for _ in range(1500):
        crowd.update(1 / 30)
        s = crowd.agents
        for a in stragglers.tolist():
            if s.mode[a] == Mode.DETOUR and a not in seen_detour:
                seen_detour.add(a)
                corridor = next(iter(crowd.groups.orders.values())).corridor
                ends[a] = (crowd.path(a)[-1, :2].copy(), corridor.inside)
        if (s.nav_state[ids, 0] == NavState.FINISHED).all():
            break
    assert (crowd.states[ids] == NavState.FINISHED).all()
    assert seen_detour == set(stragglers.tolist())
    order_goal = np.array([74.5, 10.5])
    for end, inside in ends.values():
        cell = crowd.grid.world_to_cell(*end)
        if fallback == "astar":                       # the search stopped at the corridor
            assert inside[cell[1], cell[0]] and np.hypot(*(end - order_goal)) > 10
        else:                                         # a temporary leader walks to the goal itself
            assert cell == (74, 10)
    assert not crowd.groups.detours.pending


def test_the_default_fallback_takes_no_detours():
    crowd, ids = _straggler_crowd("field")
    for _ in range(1500):
        crowd.update(1 / 30)
        assert not (crowd.agents.mode[ids] == Mode.DETOUR).any()
        if (crowd.states[ids] == NavState.FINISHED).all():
            break
    assert (crowd.states[ids] == NavState.FINISHED).all() and crowd.groups.detours.taken == 0


def test_warm_up_compiles_the_kernels_a_practice_run_cannot_reach():
    """The parallel direction pass (fields over 2^18 cells), the two-thread Dijkstra (whole-map
    fields over 2^20 cells) and the role election's chain walk: after ``warm_up`` big fields and a
    roles check add no compiled signature (no JIT in a tick)."""
    from rtsnav.systems.nav import warm_up
    from rtsnav.systems.nav.flow import FlowField
    from rtsnav.systems.nav.flow.direction import _directions_parallel
    from rtsnav.systems.nav.kernels.parallel_dijkstra import integrate_parallel

    warm_up()
    kernels = (_directions_parallel, in_touch, integrate_parallel)
    before = [len(k.signatures) for k in kernels]
    assert min(before) >= 1
    FlowField.build(Grid(np.ones((600, 600), dtype=bool)), [(3, 3)])
    FlowField.build(Grid(np.random.default_rng(0).random((1030, 1030)) > 0.2), [(515, 515)])
    crowd, ids = _straggler_crowd("roles")
    for _ in range(40):
        crowd.update(1 / 30)
    assert [len(k.signatures) for k in kernels] == before


def test_bad_region_searches_and_settings_are_refused_with_the_field_named():
    grid = Grid(np.ones((10, 12), dtype=bool))
    region = GoalRegion(np.ones((10, 12), dtype=bool), np.array([[3.0, 3.0]]), 1.0)
    with pytest.raises(NavError, match="goal_region needs method 'astar' or 'dijkstra'"):
        SlicedSearch(grid, (0, 0), region.cell, "jps", goal_region=region)
    small = GoalRegion(np.ones((4, 4), dtype=bool), np.array([[1.0, 1.0]]), 1.0)
    with pytest.raises(NavError, match="mask of the grid's shape"):
        SlicedSearch(grid, (0, 0), (1, 1), goal_region=small)
    with pytest.raises(NavError, match="leader_sight"):
        CrowdConfig(leader_sight=0.0)
    # a start inside the region is its own answer
    assert SlicedSearch(grid, (5, 5), region.cell, goal_region=region).run().cells.tolist() == [[5, 5]]
