"""Navmesh bake stages (Recast-style), one function each, all on a 2.5D cell grid:

1. ``rasterize_triangles``: triangle soup -> per-cell surfaces (height, slope) sampled at cell
   centres (a simplification of Recast's conservative span rasterisation).
2. ``walkable_surface``: the highest surface per cell that is flat enough (``max_slope``) and has
   ``agent_height`` of clearance under the surface above it.
3. ``erode``: drop cells any point of which is closer than ``agent_radius`` to anything
   unwalkable (the agent then plans as a point).
4. ``grow_regions``: split walkable cells into rectangles of equal area cost whose neighbouring
   cells differ in height by at most ``max_climb`` — rectangles are already convex polygons (4
   vertices): the mesh's polygons (area costs, overlays, off-mesh links, point location).
5. ``connect_regions``: portals (shared edge segments) between touching rectangles, one per
   contiguous run (a climb too high part-way along a shared side splits it).

The query layer is baked after these (``triangulate.py``, ``visibility.py``, ``landmarks.py``):
the walkable area's boundary — Recast's contours, kept exact on the lattice rather than
simplified, so paths stay exact — is triangulated with every vertex on the boundary, and a
visibility graph over its convex corners plus landmark distances are precomputed.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from rtsnav import checks

from ..errors import NavError

__all__ = ["rasterize_triangles", "walkable_surface", "erode", "grow_regions", "connect_regions",
           "validate_triangles", "centres_covered"]

MAX_LAYERS = 4


def validate_triangles(vertices: np.ndarray, triangles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Check mesh input; raise ``NavError`` naming the first bad vertex or triangle."""
    try:
        v = checks.float_array(vertices)
    except (TypeError, ValueError, OverflowError):
        raise NavError(f"vertices must be a (V, 3) array of numbers, got {vertices!r:.200}") from None
    try:
        t = np.asarray(triangles)
    except (TypeError, ValueError):
        raise NavError(f"triangles must be a (T, 3) array of vertex indices, got {triangles!r:.200}") from None
    if v.ndim != 2 or v.shape[1] != 3:
        raise NavError(f"vertices must have shape (V, 3), got {v.shape}")
    if t.ndim != 2 or t.shape[1] != 3:
        raise NavError(f"triangles must have shape (T, 3), got {t.shape}")
    if not np.issubdtype(t.dtype, np.integer):
        raise NavError(f"triangle indices must be integers, got dtype {t.dtype}")
    bad = ~np.isfinite(v).all(axis=1)
    if bad.any():
        raise NavError(f"vertex {int(np.argmax(bad))} is not finite: {v[bad][0].tolist()}")
    out = (t < 0) | (t >= len(v))
    if out.any():
        i = int(np.argmax(out.any(axis=1)))
        raise NavError(f"triangle {i} has an index out of range (0..{len(v) - 1}): {t[i].tolist()}")
    a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    area = np.linalg.norm(np.cross(b - a, c - a), axis=1)
    degenerate = area < 1e-12
    if degenerate.any():
        i = int(np.argmax(degenerate))
        raise NavError(f"triangle {i} is degenerate (zero area): {t[i].tolist()}")
    return v, t.astype(np.int64)


@njit(cache=True)
def centres_covered(a, b, c, cell_size, origin_x, origin_y, width, height):
    """The cells whose centre lies in the xy projection of the (not vertical) triangle
    ``a, b, c``: ``(K, 3)`` rows of cell x, cell y and the triangle's height at the centre."""
    ux, uy, uz = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    vx, vy, vz = c[0] - a[0], c[1] - a[1], c[2] - a[2]
    det = ux * vy - uy * vx
    x0 = max(0, int(math.floor((min(a[0], b[0], c[0]) - origin_x) / cell_size)))
    x1 = min(width - 1, int(math.floor((max(a[0], b[0], c[0]) - origin_x) / cell_size)))
    y0 = max(0, int(math.floor((min(a[1], b[1], c[1]) - origin_y) / cell_size)))
    y1 = min(height - 1, int(math.floor((max(a[1], b[1], c[1]) - origin_y) / cell_size)))
    out = np.empty((max(0, x1 - x0 + 1) * max(0, y1 - y0 + 1), 3))
    n = 0
    for cy in range(y0, y1 + 1):
        py = origin_y + (cy + 0.5) * cell_size - a[1]
        for cx in range(x0, x1 + 1):
            px = origin_x + (cx + 0.5) * cell_size - a[0]
            # barycentric coordinates of the cell centre in the triangle's xy projection
            l1 = (px * vy - py * vx) / det
            l2 = (ux * py - uy * px) / det
            if l1 < -1e-9 or l2 < -1e-9 or l1 + l2 > 1 + 1e-9:
                continue
            out[n, 0] = cx
            out[n, 1] = cy
            out[n, 2] = a[2] + l1 * uz + l2 * vz
            n += 1
    return out[:n]


@njit(cache=True)
def rasterize_triangles(vertices, triangles, cell_size, origin_x, origin_y, width, height):
    """Per cell, up to ``MAX_LAYERS`` surfaces hit by a vertical line through the cell centre:
    ``z [H, W, L]`` (nan = none) and ``slope_deg [H, W, L]``."""
    z = np.full((height, width, MAX_LAYERS), np.nan)
    slope = np.full((height, width, MAX_LAYERS), np.nan)
    for t in range(triangles.shape[0]):
        a = vertices[triangles[t, 0]]
        b = vertices[triangles[t, 1]]
        c = vertices[triangles[t, 2]]
        ux, uy, uz = b[0] - a[0], b[1] - a[1], b[2] - a[2]
        vx, vy, vz = c[0] - a[0], c[1] - a[1], c[2] - a[2]
        nz = ux * vy - uy * vx
        nlen = math.sqrt((uy * vz - uz * vy) ** 2 + (uz * vx - ux * vz) ** 2 + nz * nz)
        if nlen == 0.0 or abs(nz) < 1e-12:
            continue                                   # vertical: no surface to stand on
        s = math.degrees(math.acos(min(1.0, abs(nz) / nlen)))
        hits = centres_covered(a, b, c, cell_size, origin_x, origin_y, width, height)
        for h in range(hits.shape[0]):
            cx, cy, zz = int(hits[h, 0]), int(hits[h, 1]), hits[h, 2]
            for k in range(MAX_LAYERS):                  # keep layers sorted, merge near-equal
                if math.isnan(z[cy, cx, k]):
                    z[cy, cx, k] = zz
                    slope[cy, cx, k] = s
                    break
                if abs(z[cy, cx, k] - zz) < 1e-6:
                    if s < slope[cy, cx, k]:
                        slope[cy, cx, k] = s
                    break
    return z, slope


def walkable_surface(z: np.ndarray, slope: np.ndarray, max_slope: float, agent_height: float):
    """``(walkable [H, W] bool, height [H, W])``: the highest surface per cell with a slope of
    at most ``max_slope`` degrees and ``agent_height`` of free space above it."""
    h, w, layers = z.shape
    height = np.full((h, w), np.nan)
    walkable = np.zeros((h, w), dtype=bool)
    order = np.argsort(np.where(np.isnan(z), -np.inf, z), axis=2)[:, :, ::-1]   # high to low
    zs = np.take_along_axis(z, order, axis=2)
    ss = np.take_along_axis(slope, order, axis=2)
    above = np.full((h, w), np.inf)
    for k in range(layers):
        zk, sk = zs[..., k], ss[..., k]
        present = ~np.isnan(zk)
        ok = present & ~walkable & (sk <= max_slope) & (above - zk >= agent_height)
        walkable |= ok
        height = np.where(ok, zk, height)
        above = np.where(present, zk, above)
    return walkable, height


def erode(walkable: np.ndarray, radius_cells: float) -> np.ndarray:
    """Walkable cells no point of which is closer than ``radius_cells`` to an unwalkable cell
    (conservative: an agent centre anywhere in a kept cell clears every wall by the radius)."""
    if radius_cells <= 0:
        return walkable.copy()
    h, w = walkable.shape
    r = int(math.ceil(radius_cells)) + 1
    pad = np.zeros((h + 2 * r, w + 2 * r), dtype=bool)
    pad[r:r + h, r:r + w] = walkable
    out = walkable.copy()
    for dy in range(-r, r + 1):
        for dx in range(-r, r + 1):
            # the gap between this cell and the cell (dx, dy) away
            gx, gy = max(abs(dx) - 1, 0), max(abs(dy) - 1, 0)
            if (dx, dy) == (0, 0) or math.hypot(gx, gy) >= radius_cells:
                continue
            out &= pad[r + dy:r + dy + h, r + dx:r + dx + w]
    return out


@njit(cache=True)
def grow_regions(walkable, cost, height, max_climb, max_side):
    """Greedy rectangles over walkable cells: ``(poly_of_cell [H, W] int32 (-1 none),
    rects (P, 4) int64 x0, y0, x1, y1 exclusive)``."""
    h, w = walkable.shape
    poly = np.full((h, w), -1, dtype=np.int32)
    rects = np.empty((h * w, 4), dtype=np.int64)
    n = 0
    for y in range(h):
        for x in range(w):
            if not walkable[y, x] or poly[y, x] >= 0:
                continue
            c = cost[y, x]
            x1 = x + 1
            while (x1 < w and x1 - x < max_side and walkable[y, x1] and poly[y, x1] < 0
                   and cost[y, x1] == c and abs(height[y, x1] - height[y, x1 - 1]) <= max_climb):
                x1 += 1
            y1 = y + 1
            while y1 < h and y1 - y < max_side:
                ok = True
                for xx in range(x, x1):
                    if (not walkable[y1, xx] or poly[y1, xx] >= 0 or cost[y1, xx] != c
                            or abs(height[y1, xx] - height[y1 - 1, xx]) > max_climb
                            or (xx > x and abs(height[y1, xx] - height[y1, xx - 1]) > max_climb)):
                        ok = False
                        break
                if not ok:
                    break
                y1 += 1
            for yy in range(y, y1):
                for xx in range(x, x1):
                    poly[yy, xx] = n
            rects[n, 0] = x
            rects[n, 1] = y
            rects[n, 2] = x1
            rects[n, 3] = y1
            n += 1
    return poly, rects[:n].copy()


def connect_regions(poly: np.ndarray, height: np.ndarray, max_climb: float):
    """Portals between touching rectangles: ``(a, b, (x0, y0, x1, y1) segment in cells)`` arrays,
    one row per ordered pair (both directions)."""
    rows = []
    for axis in (1, 0):
        a = poly[:, :-1] if axis == 1 else poly[:-1, :]
        b = poly[:, 1:] if axis == 1 else poly[1:, :]
        ha = height[:, :-1] if axis == 1 else height[:-1, :]
        hb = height[:, 1:] if axis == 1 else height[1:, :]
        m = (a >= 0) & (b >= 0) & (a != b) & (np.abs(ha - hb) <= max_climb)
        ys, xs = np.nonzero(m)
        pa, pb = a[m].astype(np.int64), b[m].astype(np.int64)
        if len(pa) == 0:
            continue
        key = pa * (poly.max() + 1) + pb
        order = np.lexsort((ys if axis == 1 else xs, key))
        key, ys, xs, pa, pb = key[order], ys[order], xs[order], pa[order], pb[order]
        along = ys if axis == 1 else xs
        # one portal per contiguous run: a climb too high in the middle of a shared side splits it
        cuts = np.flatnonzero((key[1:] != key[:-1]) | (along[1:] != along[:-1] + 1)) + 1
        starts = np.r_[0, cuts]
        ends = np.r_[cuts, len(key)]
        last = ends - 1
        if axis == 1:                         # vertical borders at x = xs + 1, spanning rows
            seg = np.c_[xs[starts] + 1, ys[starts], xs[starts] + 1, ys[last] + 1]
        else:                                 # horizontal borders at y = ys + 1
            seg = np.c_[xs[starts], ys[starts] + 1, xs[last] + 1, ys[starts] + 1]
        both = np.r_[np.c_[pa[starts], pb[starts], seg], np.c_[pb[starts], pa[starts], seg]]
        rows.append(both)
    if not rows:
        return np.zeros((0, 2), np.int64), np.zeros((0, 4))
    arr = np.concatenate(rows).astype(np.float64)
    return arr[:, :2].astype(np.int64), arr[:, 2:]
