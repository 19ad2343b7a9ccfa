"""The line-of-sight pass (Emerson, "Crowd Pathfinding and Steering Using Flow Field Tiles",
Game AI Pro, 2013): cells that see the goal steer straight at it instead of along the grid.

A cell sees the goal when the segment between the two cell centres touches only open cells of
cost 1 (a straight line is the shortest path only over uniform terrain) and never cuts a corner:
the exact test of ``Grid.line_of_sight``. It is run for cells within ``radius`` cells of the goal
(Chebyshev distance): near the goal is where grid-shaped paths look worst, and the test costs
O(radius) per cell.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..grid import line_max_cost

__all__ = ["goal_visibility"]


@njit(cache=True)
def goal_visibility(passable_flat, cost_flat, wp, h, w, gx, gy, radius):
    """``bool [H, W]``: cells within ``radius`` of ``(gx, gy)`` with a clear cost-1 line to it."""
    vis = np.zeros((h, w), dtype=np.bool_)
    if passable_flat[(gy + 1) * wp + gx + 1] == 0:
        return vis
    for y in range(max(0, gy - radius), min(h - 1, gy + radius) + 1):
        for x in range(max(0, gx - radius), min(w - 1, gx + radius) + 1):
            if passable_flat[(y + 1) * wp + x + 1] == 0:
                continue
            vis[y, x] = line_max_cost(passable_flat, cost_flat, wp, x, y, gx, gy) == 1.0
    return vis
