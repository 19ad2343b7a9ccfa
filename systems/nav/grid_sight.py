"""World-space line of sight on a grid's passable cells (kernels the crowd, the navmesh and
``Grid.segments_clear`` share): a segment is clear when every cell it touches is passable and it
cuts no blocked corner."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["segment_clear", "world_segments_clear"]


@njit(cache=True)
def _open(passable, cx, cy):
    return 0 <= cx < passable.shape[1] and 0 <= cy < passable.shape[0] and passable[cy, cx]


@njit(cache=True)
def world_segments_clear(passable, cell_size, origin_x, origin_y, starts, ends):
    """Grid traversal (Amanatides & Woo) of real-valued segments; see ``Grid.segments_clear``."""
    n = starts.shape[0]
    out = np.ones(n, dtype=np.bool_)
    for i in range(n):
        out[i] = segment_clear(passable, cell_size, origin_x, origin_y, starts[i, 0], starts[i, 1], ends[i, 0], ends[i, 1])
    return out


@njit(cache=True)
def segment_clear(passable, cell_size, origin_x, origin_y, ax, ay, bx, by):
    """True when the world segment ``a -> b`` touches only passable cells, with no corner cut."""
    x0 = (ax - origin_x) / cell_size
    y0 = (ay - origin_y) / cell_size
    x1 = (bx - origin_x) / cell_size
    y1 = (by - origin_y) / cell_size
    h, w = passable.shape
    # an end off the grid touches a blocked cell (and a far one would overflow the int cells below)
    if not (0.0 <= x0 < w and 0.0 <= y0 < h and 0.0 <= x1 < w and 0.0 <= y1 < h):
        return False
    cx = int(np.floor(x0))
    cy = int(np.floor(y0))
    ex = int(np.floor(x1))
    ey = int(np.floor(y1))
    if not _open(passable, cx, cy):
        return False
    dx = x1 - x0
    dy = y1 - y0
    sx = 1 if dx > 0 else -1
    sy = 1 if dy > 0 else -1
    t_max_x = ((cx + (1 if dx > 0 else 0)) - x0) / dx if dx != 0 else np.inf
    t_max_y = ((cy + (1 if dy > 0 else 0)) - y0) / dy if dy != 0 else np.inf
    t_dx = abs(1.0 / dx) if dx != 0 else np.inf
    t_dy = abs(1.0 / dy) if dy != 0 else np.inf
    remaining = abs(ex - cx) + abs(ey - cy)
    while remaining > 0:
        if abs(t_max_x - t_max_y) < 1e-12:
            # through a cell corner: both side cells must be open
            if not (_open(passable, cx + sx, cy) and _open(passable, cx, cy + sy)):
                return False
            cx += sx
            cy += sy
            t_max_x += t_dx
            t_max_y += t_dy
            remaining -= 2
        elif t_max_x < t_max_y:
            cx += sx
            t_max_x += t_dx
            remaining -= 1
        else:
            cy += sy
            t_max_y += t_dy
            remaining -= 1
        if not _open(passable, cx, cy):
            return False
    return True
