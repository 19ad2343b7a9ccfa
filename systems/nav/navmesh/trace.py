"""Path finishing on the cell grid (numba): which polygons a polyline crosses, and nudging
path corners off the walls."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..grid_sight import segment_clear

__all__ = ["polygons_along", "inset_lattice_points", "straight_in_sight", "lattice_to_world"]


@njit(cache=True)
def polygons_along(points, poly_of_cell, rects):
    """Polygon ids of the cells each segment of ``points`` ((K, 2), cell units) passes through,
    in order, consecutive repeats dropped (Amanatides & Woo's grid traversal). ``rects`` (P, 4)
    are the polygons' cell rectangles (x0, y0, x1, y1 exclusive): while the walk stays inside the
    last polygon's rectangle its cells are not read (a long path read ~1,500 cells of a 4 MB
    table, each a cache miss once other work had run)."""
    h, w = poly_of_cell.shape
    out = np.empty(64, dtype=np.int64)
    n = 0
    rx0, ry0, rx1, ry1 = 0, 0, 0, 0               # the last polygon's rectangle (empty: none)
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
            if not (rx0 <= cx < rx1 and ry0 <= cy < ry1) and 0 <= cx < w and 0 <= cy < h:
                p = poly_of_cell[cy, cx]
                rx0, ry0, rx1, ry1 = 0, 0, 0, 0
                if p >= 0:
                    rx0, ry0, rx1, ry1 = rects[p, 0], rects[p, 1], rects[p, 2], rects[p, 3]
                    if n == 0 or out[n - 1] != p:
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
def lattice_to_world(lattice, cell_size, ox, oy, height, walkable, sx, sy, gx, gy):
    """A path of lattice points ((K, 2), cell units) as world points ``(K, 3)`` with the mesh
    height under each (0 off the walkable cells; the ends are exactly ``(sx, sy)`` and ``(gx,
    gy)``), and its length in cells. One kernel: as numpy calls this cost ~90 µs a query."""
    k = lattice.shape[0]
    out = np.empty((k, 3))
    h, w = height.shape
    length = 0.0
    for i in range(k):
        x, y = lattice[i, 0], lattice[i, 1]
        if i > 0:
            length += math.hypot(x - lattice[i - 1, 0], y - lattice[i - 1, 1])
        wx, wy = x * cell_size + ox, y * cell_size + oy
        if i == 0:
            wx, wy = sx, sy
        elif i == k - 1:
            wx, wy = gx, gy
        cx, cy = int(math.floor((wx - ox) / cell_size)), int(math.floor((wy - oy) / cell_size))
        z = 0.0
        if 0 <= cx < w and 0 <= cy < h and walkable[cy, cx]:
            z = height[cy, cx]
        out[i, 0], out[i, 1], out[i, 2] = wx, wy, z
    return out, length


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


@njit(cache=True)
def straight_in_sight(walkable, height, poly_of_cell, rects, cell_size, origin_x, origin_y, sx, sy, gx, gy, margin):
    """The short-query exit: ``(points (2, 3), polygons)`` of the straight walk from world
    ``(sx, sy)`` to ``(gx, gy)`` when both are on walkable cells and the segment and its two
    copies shifted sideways by ``margin`` (world units) touch only walkable cells; else
    ``(empty, empty)``."""
    h, w = walkable.shape
    none = (np.zeros((0, 3)), np.zeros(0, dtype=np.int64))
    ax = int(math.floor((sx - origin_x) / cell_size))
    ay = int(math.floor((sy - origin_y) / cell_size))
    bx = int(math.floor((gx - origin_x) / cell_size))
    by = int(math.floor((gy - origin_y) / cell_size))
    if not (0 <= ax < w and 0 <= ay < h and 0 <= bx < w and 0 <= by < h):
        return none
    if not (walkable[ay, ax] and walkable[by, bx]):
        return none
    dx = gx - sx
    dy = gy - sy
    length = math.sqrt(dx * dx + dy * dy)
    if length > 0.0:
        ox = -dy / length * margin
        oy = dx / length * margin
        for k in (0.0, 1.0, -1.0):
            if not segment_clear(walkable, cell_size, origin_x, origin_y, sx + k * ox, sy + k * oy,
                                 gx + k * ox, gy + k * oy):
                return none
    pts = np.empty((2, 3))
    pts[0, 0] = sx
    pts[0, 1] = sy
    pts[0, 2] = height[ay, ax]
    pts[1, 0] = gx
    pts[1, 1] = gy
    pts[1, 2] = height[by, bx]
    cells = np.empty((2, 2))
    cells[0, 0] = (sx - origin_x) / cell_size
    cells[0, 1] = (sy - origin_y) / cell_size
    cells[1, 0] = (gx - origin_x) / cell_size
    cells[1, 1] = (gy - origin_y) / cell_size
    return pts, polygons_along(cells, poly_of_cell, rects)
