"""The grid Dijkstra kernels (array buckets, stale entries skipped; one thread, and two threads
with the map dealt in blocks of rows) equal a textbook Dijkstra bit for bit: a binary heap in plain Python with the same step rule and the same rounding (each step
added in float64, then rounded to the field's dtype). Seeds with starting values, an
allowed-cells mask, a cost limit, terrain costs, float32 and float64 fields, and buckets that must
grow while it runs."""

from __future__ import annotations

import heapq
import math

import numpy as np
import pytest

from rtsnav.levels import load_movingai_map
from rtsnav.systems.nav import Grid
from rtsnav.systems.nav.flow.direction import flow_directions
from rtsnav.systems.nav.kernels.grid_dijkstra import integrate
from rtsnav.systems.nav.kernels.parallel_dijkstra import NO_MOVES, integrate_parallel

ALL = np.ones(1, dtype=np.uint8)
STEPS = [(dx, dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1))]


def textbook_dijkstra(grid, flat_seeds, values, allowed, limit, dtype):
    """Heap Dijkstra over the padded flat grid: the oracle (slow, obvious)."""
    (_, cost), wp = grid.padded()
    moves = grid.move_masks()
    dist = np.full(moves.size, np.inf, dtype=dtype)
    heap = []
    for s, v in zip(flat_seeds, values):
        key = dtype(v)
        if key < dist[s] and v <= limit:
            dist[s] = key
            heapq.heappush(heap, (float(key), int(s)))
    done = np.zeros(moves.size, dtype=bool)
    uniform = grid.is_uniform
    while heap:
        du, u = heapq.heappop(heap)
        if done[u] or du != dist[u]:
            continue
        done[u] = True
        for k, (dx, dy) in enumerate(STEPS):
            if not (moves[u] >> k) & 1:
                continue
            v = u + dy * wp + dx
            length = math.sqrt(2.0) if k >= 4 else 1.0
            wide = du + (length if uniform else length * 0.5 * (cost[u] + cost[v]))
            nd = dtype(wide)
            if nd < dist[v] and wide <= limit and (allowed.size == 1 or allowed[v]):
                dist[v] = nd
                heapq.heappush(heap, (float(nd), int(v)))
    return dist, int(done.sum())


def _compare(grid, cells, values, allowed=ALL, limit=np.inf, dtype=np.float32):
    (_, cost), wp = grid.padded()
    flat = np.array([(y + 1) * wp + x + 1 for x, y in cells], dtype=np.int64)
    values = np.asarray(values, dtype=np.float64)
    oracle, oracle_settled = textbook_dijkstra(grid, flat, values, allowed, limit, dtype)
    for kernel in (integrate, _two_threads):
        fast = np.full(grid.move_masks().size, np.inf, dtype=dtype)
        settled = kernel(grid.move_masks(), cost, wp, grid.is_uniform, flat, values, allowed, fast, limit)
        assert np.array_equal(np.isinf(oracle), np.isinf(fast))
        assert np.array_equal(oracle, fast)             # bit for bit, not approximately
        assert settled == oracle_settled


def _two_threads(*args):
    """The two-thread kernel with every bucket split between the threads, however small (on two
    threads even where the suite's workers run one each)."""
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    try:
        return integrate_parallel(*args, 0, NO_MOVES)
    finally:
        numba.set_num_threads(before)


@pytest.mark.parametrize("seed", range(12))
def test_kernel_equals_a_textbook_dijkstra_on_random_maps(seed):
    rng = np.random.default_rng(seed)
    h, w = (int(v) for v in rng.integers(5, 60, size=2))
    passable = rng.random((h, w)) > rng.uniform(0.05, 0.45)
    terrain = None if seed % 3 else np.where(rng.random((h, w)) > 0.6, rng.uniform(1, 9), 1.0)
    grid = Grid(passable, cost=terrain)
    open_cells = np.argwhere(grid.passable)[:, ::-1]
    if len(open_cells) == 0:
        return
    k = int(rng.integers(1, 6))
    cells = open_cells[rng.choice(len(open_cells), size=k)]
    values = rng.choice([0.0, 0.0, 0.5, 3.0, 7.25], size=k)
    dtype = np.float32 if seed % 2 else np.float64
    _compare(grid, cells, values, dtype=dtype)
    # an allowed-cells mask and a cost limit (bounded and restricted fields)
    allowed = np.zeros((h + 2, w + 2), dtype=np.uint8)
    allowed[1:-1, 1:-1] = rng.random((h, w)) > 0.2
    _compare(grid, cells, values, allowed=allowed.ravel(), limit=float(rng.uniform(2, 30)), dtype=dtype)


def test_kernel_equals_a_textbook_dijkstra_on_a_benchmark_map_with_growing_buckets():
    grid = load_movingai_map("den520d.map")
    open_cells = np.argwhere(grid.passable)[:, ::-1]
    # 3,000 seeds at once overflow the 256-entry starting buckets: they grow while it runs
    cells = open_cells[np.random.default_rng(1).choice(len(open_cells), size=3000, replace=False)]
    _compare(grid, cells, np.zeros(len(cells)))
    _compare(grid, cells[:1], np.zeros(1))


def test_steep_terrain_needs_more_buckets_and_still_matches():
    rng = np.random.default_rng(7)
    passable = rng.random((40, 50)) > 0.2
    grid = Grid(passable, cost=np.where(rng.random((40, 50)) > 0.5, 60.0, 1.0))   # steps up to ~85
    _compare(grid, [tuple(np.argwhere(passable)[0][::-1])], [0.0])


@pytest.mark.slow
def test_two_threads_mail_across_their_blocks_and_still_match():
    """A map of several row blocks (40 columns: the threads' cells alternate every ~195 rows):
    relaxations across block edges go through the mail; seeds in both threads' blocks."""
    rng = np.random.default_rng(11)
    grid = Grid(rng.random((900, 40)) > 0.25, cost=np.where(rng.random((900, 40)) > 0.8, 2.5, 1.0))
    open_cells = np.argwhere(grid.passable)[:, ::-1]
    cells = open_cells[rng.choice(len(open_cells), size=4)]
    _compare(grid, cells, [0.0, 1.5, 0.0, 9.0])
    _compare(Grid(grid.passable), cells[:1], [0.0], dtype=np.float64)




@pytest.mark.parametrize("seed", range(6))
def test_two_threads_keep_each_cells_descent_move_for_the_direction_pass(seed):
    """Given a ``best`` array, the two-thread kernel notes each reached cell's move back to the
    neighbour that last lowered it: legal, and exactly that neighbour's distance plus the step (a
    shortest path's move); -1 on the goals and unreached cells. The distances stay the textbook's
    bit for bit (mail across the row blocks, terrain costs, several goals), and the direction pass
    given these moves makes the same directions as the one that searches for them: where the two
    moves agree, and on open cells (the smoothed slope does not depend on the move)."""
    rng = np.random.default_rng(seed)
    h, w = 700, 50
    grid = Grid(rng.random((h, w)) > rng.uniform(0.02, 0.35),
                cost=None if seed % 2 else np.where(rng.random((h, w)) > 0.7, 3.0, 1.0))
    (_, cost), wp = grid.padded()
    moves = grid.move_masks()
    open_cells = np.argwhere(grid.passable)[:, ::-1]
    cells = open_cells[rng.choice(len(open_cells), size=1 + seed % 3, replace=False)]
    flat = np.array([(y + 1) * wp + x + 1 for x, y in cells], dtype=np.int64)
    dist = np.full(moves.size, np.inf, dtype=np.float32)
    best = np.full(moves.size, -1, dtype=np.int8)
    integrate_parallel(moves, cost, wp, grid.is_uniform, flat, np.zeros(len(flat)), ALL, dist, np.inf, 0, best)
    oracle, _ = textbook_dijkstra(grid, flat, np.zeros(len(flat)), ALL, np.inf, np.float32)
    assert np.array_equal(oracle, dist)
    assert (best[flat] == -1).all() and (best[dist == np.inf] == -1).all()
    others = np.setdiff1d(np.flatnonzero(dist < np.inf), flat)
    assert len(others) > 10_000 and (best[others] >= 0).all()
    k = best[others].astype(np.int64)
    assert ((moves[others] >> k) & 1).all()
    dx, dy = np.array(STEPS)[k].T
    to = others + dy * wp + dx
    length = np.where(k >= 4, math.sqrt(2.0), 1.0)
    step = length if grid.is_uniform else length * 0.5 * (cost[others] + cost[to])
    assert np.array_equal(dist[others], (dist[to].astype(np.float64) + step).astype(np.float32))

    smooth = seed != 3
    known_direction = np.empty((moves.size, 2), dtype=np.float32)
    flow_directions(moves, cost, wp, grid.is_uniform, dist, smooth, best, known_direction, True)
    searched = np.empty(moves.size, dtype=np.int8)
    direction = np.empty((moves.size, 2), dtype=np.float32)
    flow_directions(moves, cost, wp, grid.is_uniform, dist, smooth, searched, direction)
    assert np.array_equal(best < 0, searched < 0)
    same = best == searched
    assert np.array_equal(known_direction[same], direction[same]) and same.mean() > 0.5
    # an open cell's smoothed slope does not depend on the move (but for exact cancellations,
    # where each falls back to its own move)
    smoothed = (moves == 255) & smooth & ~same
    agree = (known_direction[smoothed] == direction[smoothed]).all(axis=1)
    assert agree.mean() > 0.99 if smoothed.any() else True


def test_one_thread_kernel_on_a_map_big_enough_to_prefetch_still_matches():
    """Past ``PREFETCH_CELLS`` the one-thread kernel prefetches each entry's rows a few entries
    ahead (a hint only): a bounded field on such a map is still the textbook's bit for bit."""
    from rtsnav.systems.nav.kernels.prefetch import PREFETCH_CELLS

    rng = np.random.default_rng(5)
    grid = Grid(rng.random((1030, 1030)) > 0.2)
    assert grid.move_masks().size >= PREFETCH_CELLS
    open_cells = np.argwhere(grid.passable)[:, ::-1]
    cells = open_cells[rng.choice(len(open_cells), size=2, replace=False)]
    _compare(grid, cells, [0.0, 2.0], limit=40.0)
