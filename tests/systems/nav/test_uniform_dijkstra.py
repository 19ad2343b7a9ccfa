"""The two-queue Dijkstra of uniform grids equals the bucket-queue kernel (its oracle) exactly:
same distances bit for bit, same cells reached, same count settled — with many seeds and their
starting values, an allowed-cells mask, a cost limit, float32 and float64 distances, and queues
that must grow while it runs."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.levels import load_movingai_map
from rtsnav.systems.nav import Grid
from rtsnav.systems.nav.kernels.grid_dijkstra import integrate, integrate_buckets
from rtsnav.systems.nav.kernels.uniform_dijkstra import integrate_uniform

ALL = np.ones(1, dtype=np.uint8)


def _both(grid, seeds, values, allowed=ALL, limit=np.inf, dtype=np.float32):
    _, wp = grid.padded()
    moves = grid.move_masks()
    cost = grid.padded()[0][1]
    flat = np.array([(y + 1) * wp + x + 1 for x, y in seeds], dtype=np.int64)
    values = np.asarray(values, dtype=np.float64)
    oracle = np.full(moves.size, np.inf, dtype=dtype)
    fast = np.full(moves.size, np.inf, dtype=dtype)
    n_oracle = integrate_buckets(moves, cost, wp, True, flat, values, allowed, oracle, limit)
    n_fast = integrate_uniform(moves, wp, flat, values, allowed, fast, limit)
    return oracle, fast, n_oracle, n_fast


def _assert_same(oracle, fast, n_oracle, n_fast):
    assert np.array_equal(np.isinf(oracle), np.isinf(fast))
    assert np.array_equal(oracle, fast)                  # bit for bit, not approximately
    assert n_oracle == n_fast


@pytest.mark.parametrize("seed", range(12))
def test_two_queue_kernel_equals_bucket_kernel_on_random_maps(seed):
    rng = np.random.default_rng(seed)
    h, w = rng.integers(5, 70, size=2)
    grid = Grid(rng.random((h, w)) > rng.uniform(0.05, 0.45))
    open_cells = np.argwhere(grid.passable)[:, ::-1]
    if len(open_cells) == 0:
        return
    k = int(rng.integers(1, 6))
    seeds = open_cells[rng.choice(len(open_cells), size=k)]
    values = rng.choice([0.0, 0.0, 0.5, 3.0, 7.25], size=k)
    dtype = np.float32 if seed % 2 else np.float64
    _assert_same(*_both(grid, seeds, values, dtype=dtype))
    # an allowed-cells mask and a cost limit (bounded and restricted fields)
    allowed = np.zeros((h + 2, w + 2), dtype=np.uint8)
    allowed[1:-1, 1:-1] = rng.random((h, w)) > 0.2
    _assert_same(*_both(grid, seeds, values, allowed=allowed.ravel(), limit=float(rng.uniform(2, 30)), dtype=dtype))


def test_two_queue_kernel_equals_bucket_kernel_on_a_benchmark_map_with_growing_queues():
    grid = load_movingai_map("den520d.map")
    open_cells = np.argwhere(grid.passable)[:, ::-1]
    # 3,000 seeds at once overflow the starting queues (2,048 entries on this map): they grow while it runs
    seeds = open_cells[np.random.default_rng(1).choice(len(open_cells), size=3000, replace=False)]
    _assert_same(*_both(grid, seeds, np.zeros(len(seeds))))
    _assert_same(*_both(grid, seeds[:1], np.zeros(1)))


def test_integrate_takes_the_two_queue_kernel_on_uniform_grids_only():
    rng = np.random.default_rng(5)
    grid = Grid(rng.random((40, 50)) > 0.25)
    _, wp = grid.padded()
    cost = grid.padded()[0][1]
    seed = np.array([int(np.flatnonzero(np.pad(grid.passable, 1).ravel())[0])])
    via_facade = np.full(grid.move_masks().size, np.inf)
    integrate(grid.move_masks(), cost, wp, True, seed, np.zeros(1), ALL, via_facade, np.inf)
    oracle = np.full(via_facade.size, np.inf)
    integrate_buckets(grid.move_masks(), cost, wp, True, seed, np.zeros(1), ALL, oracle, np.inf)
    assert np.array_equal(via_facade, oracle)
    # with terrain costs the bucket kernel answers (the two-queue one would ignore them)
    terrain = np.where(rng.random((40, 50)) > 0.5, 3.0, 1.0)
    rough = Grid(grid.passable, cost=terrain)
    (_, rough_cost), _ = rough.padded()
    a = np.full(via_facade.size, np.inf)
    b = np.full(via_facade.size, np.inf)
    integrate(rough.move_masks(), rough_cost, wp, False, seed, np.zeros(1), ALL, a, np.inf)
    integrate_buckets(rough.move_masks(), rough_cost, wp, False, seed, np.zeros(1), ALL, b, np.inf)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, oracle)
