"""Integration fields: the cost from every cell to the nearest goal (multi-source Dijkstra over
the grid; the kernel is ``kernels/grid_dijkstra.py``)."""

from __future__ import annotations

import numpy as np

from ..kernels.grid_dijkstra import SQRT2, integrate

__all__ = ["SQRT2", "integrate", "integration_field"]


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
    integrate(grid.move_masks(), cost, wp, grid.is_uniform, flat, values, allow, dist, float(limit))
    return dist.reshape(h + 2, w + 2)[1:-1, 1:-1]
