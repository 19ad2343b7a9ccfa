"""D* Lite: after edits and agent moves, the same costs as a fresh search, with far fewer
expansions; bad use says what to do."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.levels import load_movingai_map
from rtsnav.systems.nav import Grid, NavError, find_path
from rtsnav.systems.nav.search.dstar_lite import DStarLite


def _cell(d):
    return (d.start % d.wp - 1, d.start // d.wp - 1)


def test_random_grids_with_edits_and_moves_match_a_fresh_search():
    rng = np.random.default_rng(0)
    checked = 0
    for t in range(80):
        h, w = rng.integers(5, 30, 2)
        p = rng.random((h, w)) > rng.uniform(0, 0.35)
        grid = Grid(p, None if t % 2 else rng.choice([1.0, 2.0, 4.0], size=(h, w)))
        free = np.argwhere(p)[:, ::-1]
        if len(free) < 2:
            continue
        a, b = (tuple(int(v) for v in free[i]) for i in rng.integers(0, len(free), 2))
        search = DStarLite(grid, a, b)
        for _ in range(5):
            r = search.plan()
            ref = find_path(grid, _cell(search), b, "astar")
            assert r.found == ref.found
            if r.found:
                assert r.cost == pytest.approx(ref.cost, abs=1e-9)
                checked += 1
                if len(r.cells) > 2:
                    search.move_to(tuple(r.cells[1]))
            cells = np.c_[rng.integers(0, w, 3), rng.integers(0, h, 3)]
            keep = ~(((cells[:, 0] == b[0]) & (cells[:, 1] == b[1]))
                     | ((cells[:, 0] == _cell(search)[0]) & (cells[:, 1] == _cell(search)[1])))
            cells = cells[keep]
            if len(cells) == 0:
                continue
            if t % 2 and rng.random() < 0.5:
                grid.set_passable(cells, bool(rng.integers(2)))
            elif t % 2 == 0:
                grid.set_cost(cells, float(rng.choice([1.0, 3.0])))
            else:
                grid.set_passable(cells, True)
            search.cells_changed(cells)
    assert checked > 150


def test_edits_on_the_path_ahead_cost_far_fewer_expansions_than_a_fresh_astar():
    grid = load_movingai_map("den520d.map")
    labels = grid.components()
    ys, xs = np.nonzero(labels == np.bincount(labels[labels >= 0]).argmax())
    rng = np.random.default_rng(1)
    ratios = []
    while len(ratios) < 20:
        i, j = rng.integers(0, len(xs), 2)
        a, b = (int(xs[i]), int(ys[i])), (int(xs[j]), int(ys[j]))
        search = DStarLite(grid, a, b)
        path = search.plan().cells
        if len(path) < 80:
            continue
        search.move_to(tuple(path[10]))
        c = path[10 + rng.integers(5, 30)]
        block = np.array([(c[0] + dx, c[1] + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)])
        block = block[(block != path[10]).any(axis=1) & (block != np.array(b)).any(axis=1)]
        grid.set_passable(block, False)
        search.cells_changed(block)
        r = search.plan()
        fresh = find_path(grid, tuple(path[10]), b, "astar")
        assert r.found == fresh.found
        if fresh.found:
            assert r.cost == pytest.approx(fresh.cost, abs=1e-9)
            ratios.append(r.expanded / fresh.expanded)
        grid.set_passable(block, True)
    assert np.median(ratios) <= 0.3


def test_a_stale_search_says_what_to_call_and_memory_is_stated():
    grid = Grid(np.ones((10, 10), dtype=bool))
    search = DStarLite(grid, (0, 0), (9, 9))
    assert search.plan().found and search.memory_bytes == 40 * 12 * 12
    grid.set_passable([(5, 5)], False)
    with pytest.raises(NavError, match="cells_changed"):
        search.plan()
