"""The grid's step rule, written once: a straight move is 1 long, a diagonal √2, and a move costs
its length times the mean terrain cost of its two cells (on a uniform grid, just its length).
Inlined into every grid search and field kernel by numba."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["SQRT2", "OCTILE_DIAG", "octile", "MOVE_DX", "MOVE_DY", "MOVE_UX", "MOVE_UY", "move_offsets", "step_cost"]

SQRT2 = math.sqrt(2.0)
OCTILE_DIAG = SQRT2 - 1.0
#: Move directions as (dx, dy), bit k of a move mask: E, W, S, N, SE, SW, NE, NW (0-3 straight).
MOVE_DX = np.array((1, -1, 0, 0, 1, -1, 1, -1), dtype=np.int64)
MOVE_DY = np.array((0, 0, 1, -1, 1, 1, -1, -1), dtype=np.int64)
#: The same moves as unit vectors.
MOVE_UX = MOVE_DX / np.hypot(MOVE_DX, MOVE_DY)
MOVE_UY = MOVE_DY / np.hypot(MOVE_DX, MOVE_DY)


@njit(cache=True, inline="always")
def move_offsets(wp):
    """Flat-index step of each move on a padded grid whose rows are ``wp`` cells wide (cell
    ``(x, y)`` at ``(y + 1)·wp + x + 1``)."""
    return np.array((1, -1, wp, -wp, wp + 1, wp - 1, -wp + 1, -wp - 1))


@njit(cache=True, inline="always")
def octile(ax, ay, bx, by):
    """The octile distance between cells ``(ax, ay)`` and ``(bx, by)``: the exact cost of an
    unobstructed 8-connected path on a uniform grid, the grid searches' heuristic."""
    dx = abs(ax - bx)
    dy = abs(ay - by)
    return (dx + OCTILE_DIAG * dy) if dx > dy else (dy + OCTILE_DIAG * dx)


@njit(cache=True, inline="always")
def step_cost(cost, cost_u, v, k, uniform):
    """Cost of the move along direction ``k`` (0-3 straight, 4-7 diagonal) from a cell of terrain
    cost ``cost_u`` to flat cell ``v`` of ``cost``; ``cost`` is not read on a uniform grid."""
    length = SQRT2 if k >= 4 else 1.0
    if uniform:
        return length
    return length * 0.5 * (cost_u + cost[v])
