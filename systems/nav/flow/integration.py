"""Integration fields: the cost from every cell to the nearest goal (multi-source Dijkstra over
the grid; the kernels are ``kernels/grid_dijkstra.py`` and, for big whole-map fields,
``kernels/parallel_dijkstra.py``)."""

from __future__ import annotations

import numpy as np

from ..kernels.grid_dijkstra import SQRT2, integrate
from ..kernels.parallel_dijkstra import NO_MOVES, integrate_parallel
from ..kernels.threads import threads_for

__all__ = ["SQRT2", "integrate", "integrate_field", "on_two_threads", "integration_field", "PARALLEL_FIELD_CELLS", "MIN_PARALLEL_WORK"]

#: Whole-map fields (no mask, no limit) of at least this many cells run on two threads: a 1024²
#: map and up. Masked and bounded fields reach few cells of their array, and small ones cost less
#: than waking the threads. (Chosen here, in Python, so that the kernels called from other
#: kernels — sector fields, the hierarchy — never compile the two-thread one.)
PARALLEL_FIELD_CELLS = 1 << 20
#: Buckets of fewer entries than this are emptied by the calling thread alone (a parallel region
#: costs a few microseconds).
MIN_PARALLEL_WORK = 1024


def on_two_threads(dist: np.ndarray, allowed: np.ndarray, limit: float, seeds: np.ndarray) -> bool:
    """Whether ``integrate_field`` runs on two threads: a big whole-map field (``dist`` float32 of
    at least ``PARALLEL_FIELD_CELLS``, every cell allowed, no limit, a few seeds: the two-thread
    kernel sizes its buckets for a whole round at once, the one-thread kernel takes a round in
    slices)."""
    return (dist.size >= PARALLEL_FIELD_CELLS and allowed.size == 1 and limit == np.inf
            and dist.dtype == np.float32 and seeds.size <= MIN_PARALLEL_WORK)


def integrate_field(moves, cost, wp: int, uniform: bool, seeds: np.ndarray, seed_values: np.ndarray,
                    allowed: np.ndarray, dist: np.ndarray, limit: float, best: np.ndarray = NO_MOVES) -> int:
    """``kernels.grid_dijkstra.integrate`` (same arguments and result), on two threads when
    ``on_two_threads``; there ``best`` (padded flat int8 pre-set to -1, or ``NO_MOVES``) gets
    each reached cell's descent move."""
    if on_two_threads(dist, allowed, limit, seeds):
        with threads_for(dist.size, "flow_integration"):
            return integrate_parallel(moves, cost, wp, uniform, seeds, seed_values, allowed, dist, limit,
                                      MIN_PARALLEL_WORK, best)
    return integrate(moves, cost, wp, uniform, seeds, seed_values, allowed, dist, limit)


_ALL = np.ones(1, dtype=np.uint8)


def integration_field(grid, goals: np.ndarray, *, goal_values: np.ndarray | None = None,
                      allowed: np.ndarray | None = None, limit: float = np.inf) -> np.ndarray:
    """Cost-to-nearest-goal for every cell, ``float64 [H, W]`` (inf = unreachable).

    ``goals`` is ``(K, 2)`` ``(x, y)`` cells (blocked ones are ignored); ``goal_values`` their
    starting costs (default 0); ``allowed`` an optional ``bool [H, W]`` mask of cells that may be
    entered; ``limit`` bounds the search (cells costlier stay inf).
    """
    (_, cost), wp = grid.padded()
    h, w = grid.shape
    g = np.asarray(goals, dtype=np.int64).reshape(-1, 2)
    ok = grid.passable[g[:, 1], g[:, 0]]
    flat = ((g[:, 1] + 1) * wp + g[:, 0] + 1)[ok]
    values = np.zeros(len(g)) if goal_values is None else np.asarray(goal_values, dtype=np.float64)
    values = values[ok]
    if allowed is None:
        allow = _ALL
    else:
        pad = np.zeros((h + 2, w + 2), dtype=np.uint8)
        pad[1:-1, 1:-1] = allowed
        allow = pad.ravel()
    dist = np.full((h + 2) * (w + 2), np.inf)
    integrate_field(grid.move_masks(), cost, wp, grid.is_uniform, flat, values, allow, dist, float(limit))
    return dist.reshape(h + 2, w + 2)[1:-1, 1:-1]
