"""Wall avoidance: a push away from blocked cells within reach (off-grid counts as blocked)."""

from __future__ import annotations

import math

from numba import njit, prange

__all__ = ["wall_repulsion"]

#: A move mask with all eight moves legal (``Grid.move_masks``).
ALL_MOVES = 255


# agents are independent: both threads (a crowd's grid reads are cache misses)
@njit(cache=True, parallel=True)
def wall_repulsion(pos, active, reach, view, out, move_masks, padded_width):
    """For each active agent, sum ``(1 - d / reach)`` pushes away from the nearest point of every
    blocked cell of the grid ``view`` (``Grid.view``) closer than ``reach`` (world units, per
    agent) into ``out`` (``(n, 2)``). ``move_masks`` / ``padded_width``: ``Grid.move_masks()``
    and ``Grid.padded()[1]``; a cell with all eight moves legal has no wall beside it, so a unit
    whose reach stays within a cell of its own skips the scan (most of a crowd in the open)."""
    passable, cell_size, origin_x, origin_y, _, _ = view
    h, w = passable.shape
    n = pos.shape[0]
    for i in prange(n):
        out[i, 0] = 0.0
        out[i, 1] = 0.0
        if not active[i]:
            continue
        r = reach[i]
        if r <= 0.0:
            continue
        px = pos[i, 0]
        py = pos[i, 1]
        cx = int(math.floor((px - origin_x) / cell_size))
        cy = int(math.floor((py - origin_y) / cell_size))
        span = int(math.ceil(r / cell_size))
        if span == 1 and 0 <= cx < w and 0 <= cy < h and move_masks[(cy + 1) * padded_width + cx + 1] == ALL_MOVES:
            continue
        fx = 0.0
        fy = 0.0
        for yy in range(cy - span, cy + span + 1):
            for xx in range(cx - span, cx + span + 1):
                if 0 <= xx < w and 0 <= yy < h and passable[yy, xx]:
                    continue
                x0 = origin_x + xx * cell_size
                y0 = origin_y + yy * cell_size
                qx = min(max(px, x0), x0 + cell_size)
                qy = min(max(py, y0), y0 + cell_size)
                dx = px - qx
                dy = py - qy
                d = math.sqrt(dx * dx + dy * dy)
                if d < r and d > 1e-9:
                    s = (1.0 - d / r) / d
                    fx += dx * s
                    fy += dy * s
        out[i, 0] = fx
        out[i, 1] = fy
