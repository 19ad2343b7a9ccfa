"""The grid's step rule, written once: a straight move is 1 long, a diagonal √2, and a move costs
its length times the mean terrain cost of its two cells (on a uniform grid, just its length).
Inlined into every grid search and field kernel by numba."""

from __future__ import annotations

import math

from numba import njit

__all__ = ["SQRT2", "step_cost"]

SQRT2 = math.sqrt(2.0)


@njit(cache=True, inline="always")
def step_cost(cost, cost_u, v, k, uniform):
    """Cost of the move along direction ``k`` (0-3 straight, 4-7 diagonal) from a cell of terrain
    cost ``cost_u`` to flat cell ``v`` of ``cost``; ``cost`` is not read on a uniform grid."""
    length = SQRT2 if k >= 4 else 1.0
    if uniform:
        return length
    return length * 0.5 * (cost_u + cost[v])
