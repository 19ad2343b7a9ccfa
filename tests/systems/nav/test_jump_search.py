"""JPS+ tables (incremental updates equal a full rebuild; the cache) and goal bounding (never
changes a cost, prunes, refuses maps it cannot build in reasonable time, goes stale on edits)."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.levels import load_movingai_map
from rtsnav.systems.nav import Grid, NavError, find_path
from rtsnav.systems.nav.search.goal_bounds import GoalBounds
from rtsnav.systems.nav.search.jps_plus import JumpTable, build_table


def _full(grid):
    (free, _), wp = grid.padded()
    return build_table(free, wp, grid.height + 2)


def test_jps_plus_table_after_edits_equals_a_full_rebuild():
    grid = load_movingai_map("den520d.map")
    table = grid.kept("jps+", JumpTable.build)
    rng = np.random.default_rng(1)
    for step in range(40):
        if step % 4 == 0:                                   # a gate: a short wall segment
            x, y = rng.integers(0, grid.width - 6), rng.integers(0, grid.height)
            cells = np.c_[np.arange(x, x + 6), np.full(6, y)]
        else:
            cells = np.c_[rng.integers(0, grid.width, 3), rng.integers(0, grid.height, 3)]
        grid.set_passable(cells, bool(rng.integers(2)))
        assert np.array_equal(table.current(), _full(grid)), f"edit {step}"
    assert table.updates == 40 and table.rebuilds == 0


def test_jps_plus_follows_edits_in_its_answers():
    grid = Grid(np.ones((40, 60), dtype=bool))
    before = find_path(grid, (2, 20), (57, 20), "jps+")
    grid.set_passable(np.c_[np.full(38, 30), np.arange(0, 38)], False)          # a wall with a gap at the top
    after = find_path(grid, (2, 20), (57, 20), "jps+")
    assert after.cost == pytest.approx(find_path(grid, (2, 20), (57, 20), "astar").cost) and after.cost > before.cost


def test_jps_plus_table_cache_round_trip_and_refuses_another_grid(tmp_path):
    grid = load_movingai_map("arena.map")
    built = JumpTable.cached(grid, tmp_path)
    files = list(tmp_path.glob("jps_plus_*.npz"))
    assert len(files) == 1
    loaded = JumpTable.load(files[0], grid)
    assert np.array_equal(loaded.table, built.table)
    other = Grid(grid.passable.copy())
    other.set_passable([(10, 10)], not grid.passable[10, 10])
    with pytest.raises(NavError, match="another grid"):
        JumpTable.load(files[0], other)
    files[0].write_bytes(files[0].read_bytes()[:-40])
    with pytest.raises(NavError):
        JumpTable.load(files[0], grid)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["astar", "dijkstra", "jps+"])
def test_goal_bounds_never_change_a_cost_and_prune(method):
    rng = np.random.default_rng(5)
    fewer = 0
    for _ in range(25):
        h, w = rng.integers(3, 25, 2)
        p = rng.random((h, w)) > rng.uniform(0, 0.45)
        grid = Grid(p)
        free = np.argwhere(p)[:, ::-1]
        if len(free) < 2:
            continue
        bounds = GoalBounds.build(grid)
        for _ in range(8):
            a, b = (tuple(free[i]) for i in rng.integers(0, len(free), 2))
            plain = find_path(grid, a, b, method)
            bounded = find_path(grid, a, b, method, goal_bounds=bounds)
            assert plain.found == bounded.found
            if plain.found:
                assert bounded.cost == pytest.approx(plain.cost, abs=1e-9)
                assert bounded.expanded <= plain.expanded
                fewer += bounded.expanded < plain.expanded
    assert fewer > 20


def test_goal_bounds_on_a_moving_ai_maze_keep_every_cost():
    # a quarter of the maze: the bounds take one Dijkstra per open cell (the whole 128² maze
    # cost the suite 14-21 s)
    grid = Grid(load_movingai_map("maze-128-128-10.map").passable[:64, :64].copy())
    bounds = GoalBounds.build(grid)
    labels = grid.components()
    ys, xs = np.nonzero(labels == np.bincount(labels[labels >= 0]).argmax())
    rng = np.random.default_rng(2)
    for i, j in rng.integers(0, len(xs), (40, 2)):
        a, b = (int(xs[i]), int(ys[i])), (int(xs[j]), int(ys[j]))
        r = find_path(grid, a, b, "jps+", goal_bounds=bounds)
        assert r.cost == pytest.approx(find_path(grid, a, b, "astar").cost, abs=1e-6)


def test_goal_bounds_go_stale_after_an_edit_and_say_so():
    grid = Grid(np.ones((20, 20), dtype=bool))
    bounds = GoalBounds.build(grid)
    grid.set_passable(np.c_[np.full(19, 10), np.arange(19)], False)
    r = find_path(grid, (2, 5), (17, 5), "astar", goal_bounds=bounds)
    assert not bounds.valid and "stale" in r.reason
    assert r.cost == pytest.approx(find_path(grid, (2, 5), (17, 5), "astar").cost)


def test_goal_bounds_refuse_what_they_cannot_prune():
    small = Grid(np.ones((5, 5), dtype=bool))
    with pytest.raises(NavError, match="work with"):
        find_path(small, (0, 0), (4, 4), "jps", goal_bounds=GoalBounds.build(small))
    with pytest.raises(NavError, match="built for this grid"):
        find_path(small, (0, 0), (4, 4), "astar", goal_bounds=GoalBounds.build(Grid(np.ones((5, 5), dtype=bool))))
