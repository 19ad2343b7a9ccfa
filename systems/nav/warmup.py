"""Compile (or load from numba's on-disk cache) every grid kernel up front."""

from __future__ import annotations

import time

import numpy as np

__all__ = ["warm_up"]


def warm_up() -> float:
    """Run each kernel once on a tiny grid so the first real query pays no JIT cost.

    Returns the seconds spent: a full compile on a fresh install, a cache load afterwards.
    """
    from .grid import Grid
    from .paths import smooth_path
    from .search.facade import METHODS, find_path

    t0 = time.perf_counter()
    passable = np.ones((4, 5), dtype=bool)
    passable[1, 1:4] = False
    for grid in (Grid(passable), Grid(passable, cost=np.full((4, 5), 2.0))):
        for method in METHODS:
            r = find_path(grid, (0, 0), (4, 3), method=method)
            smooth_path(grid, r.cells, "fast")
            smooth_path(grid, r.cells, "precise")
        grid.line_of_sight((0, 0), (4, 3))
    _warm_outside_practice(Grid(passable))
    return time.perf_counter() - t0


def _warm_outside_practice(grid) -> None:
    """Kernels a crowd's practice run does not reach on its small level: the field Dijkstra
    (with its two-thread kernel for big fields) and the parallel direction pass of big fields, the Leader/Target election's chain walk, and the sector tiles' own
    sampling (a crowd samples them in one batched pass; a leader's stray follower calls it)."""
    from .crowd.detours import in_touch
    from .flow.direction import warm_directions
    from .flow.field import FlowField
    from .flow.sectors import SectorGraph
    from .grid import Grid
    from .kernels.parallel_dijkstra import integrate_parallel

    warm_directions()
    FlowField.build(grid, [(0, 0)])                        # the field Dijkstra
    (_, cost), wp = grid.padded()                           # and its two-thread kernel (big fields)
    integrate_parallel(grid.move_masks(), cost, wp, True, np.array([wp + 1]), np.zeros(1), np.ones(1, np.uint8),
                       np.full(cost.size, np.inf, dtype=np.float32), np.inf, 0, np.full(cost.size, -1, dtype=np.int8))
    tiles = SectorGraph(Grid(np.ones((8, 8), dtype=bool)), 4)
    points = np.array([[1.5, 1.5], [6.5, 6.5]])
    tiles.order((1, 1)).sample_within(points, 0)           # the coarse route
    tiles.order((1, 1)).sample(points)
    in_touch(np.array([[0.5, 0.5], [1.5, 0.5]]), np.array([True, False]), 2.0, grid.passable, grid.cell_size,
             float(grid.origin[0]), float(grid.origin[1]))
