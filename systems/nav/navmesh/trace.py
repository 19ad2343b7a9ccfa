"""Path finishing on the cell grid (numba): which polygons a polyline crosses, and nudging
path corners off the walls."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["polygons_along", "inset_lattice_points"]


@njit(cache=True)
def polygons_along(points, poly_of_cell):
    """Polygon ids of the cells each segment of ``points`` ((K, 2), cell units) passes through,
    in order, consecutive repeats dropped (Amanatides & Woo's grid traversal)."""
    h, w = poly_of_cell.shape
    out = np.empty(64, dtype=np.int64)
    n = 0
    for i in range(points.shape[0] - 1):
        x0, y0 = points[i, 0], points[i, 1]
        x1, y1 = points[i + 1, 0], points[i + 1, 1]
        cx, cy = int(math.floor(x0)), int(math.floor(y0))
        ex, ey = int(math.floor(x1)), int(math.floor(y1))
        dx, dy = x1 - x0, y1 - y0
        sx = 1 if dx > 0 else -1
        sy = 1 if dy > 0 else -1
        tdx = abs(1.0 / dx) if dx != 0 else math.inf
        tdy = abs(1.0 / dy) if dy != 0 else math.inf
        tx = ((cx + 1 - x0) if dx > 0 else (x0 - cx)) * tdx if dx != 0 else math.inf
        ty = ((cy + 1 - y0) if dy > 0 else (y0 - cy)) * tdy if dy != 0 else math.inf
        steps = abs(ex - cx) + abs(ey - cy)
        for _ in range(steps + 1):
            if 0 <= cx < w and 0 <= cy < h:
                p = poly_of_cell[cy, cx]
                if p >= 0 and (n == 0 or out[n - 1] != p):
                    if n == out.size:
                        bigger = np.empty(out.size * 2, dtype=np.int64)
                        bigger[:n] = out[:n]
                        out = bigger
                    out[n] = p
                    n += 1
            if cx == ex and cy == ey:
                break
            if tx < ty:
                cx += sx
                tx += tdx
            else:
                cy += sy
                ty += tdy
    return out[:n].copy()


@njit(cache=True)
def inset_lattice_points(points, walkable, cliff_dirs, margin, keep):
    """Move each interior point of a path ((K, 2), cell units) that sits on a grid vertex
    ``margin`` cells off the wall or cliff it touches, so no segment runs along a wall's face or
    through a corner point. A real bend moves to the outside of the turn (the obstacle is on
    the inside); a point the path only grazes moves away from the unwalkable cells and cliff
    edges around it. The first and last points stay, and so do points where ``keep`` is True."""
    h, w = walkable.shape
    out = points.copy()
    for i in range(1, points.shape[0] - 1):
        if keep[i]:
            continue
        vx, vy = round(points[i, 0]), round(points[i, 1])
        if abs(points[i, 0] - vx) > 0.01 or abs(points[i, 1] - vy) > 0.01:
            continue
        ax, ay = points[i, 0] - points[i - 1, 0], points[i, 1] - points[i - 1, 1]
        bx, by = points[i + 1, 0] - points[i, 0], points[i + 1, 1] - points[i, 1]
        na, nb = math.hypot(ax, ay), math.hypot(bx, by)
        dx, dy = 0.0, 0.0
        if na > 0 and nb > 0:
            dx, dy = ax / na - bx / nb, ay / na - by / nb
        if math.hypot(dx, dy) < 1e-6:
            dx, dy = 0.0, 0.0
            for ox in (-1, 0):
                for oy in (-1, 0):
                    cx, cy = int(vx) + ox, int(vy) + oy
                    if 0 <= cx < w and 0 <= cy < h and walkable[cy, cx]:
                        dx += ox + 0.5
                        dy += oy + 0.5
            bits = cliff_dirs[int(vy), int(vx)]
            dy -= (1.0 if bits & 1 else 0.0) - (1.0 if bits & 2 else 0.0)
            dx -= (1.0 if bits & 8 else 0.0) - (1.0 if bits & 4 else 0.0)
        n = math.hypot(dx, dy)
        if n > 0:
            out[i, 0] = points[i, 0] + dx / n * margin
            out[i, 1] = points[i, 1] + dy / n * margin
    return out
