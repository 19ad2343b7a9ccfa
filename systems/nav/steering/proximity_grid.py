"""A uniform spatial hash over points, rebuilt per tick by counting sort (O(n), no all-pairs)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["build_proximity_grid", "build_proximity_grid_xy", "bounding_box", "cell_window", "near_any",
           "near_any_in_group", "fitted_side", "MOST_BUCKETS"]

#: The most buckets a grid of few points gets (8 MB of counts): a neighbour distance of 0.001
#: over agents spread across a 48-cell map asked for 2.3e9 buckets — 15 GB, the process killed.
MOST_BUCKETS = 1 << 20


@njit(cache=True)
def build_proximity_grid(points, active, cell):
    """Bucket the ``active`` rows of ``points`` (``(n, 2)``) into square cells of side ``cell``.

    Returns ``(order, starts, origin_x, origin_y, cols, rows)``: the agents of bucket ``k`` are
    ``order[starts[k]:starts[k + 1]]``, bucket ``k = row * cols + col``.
    """
    return build_proximity_grid_xy(points, active, cell, cell)


@njit(cache=True)
def build_proximity_grid_xy(points, active, cell_x, cell_y):
    """``build_proximity_grid`` with buckets ``cell_x`` wide and ``cell_y`` tall (narrow buckets
    let a scan read a row's run of neighbours close to the circle it needs)."""
    n = points.shape[0]
    min_x, min_y, max_x, max_y = bounding_box(points, active)
    if not (min_x <= max_x):
        return np.zeros(0, dtype=np.int64), np.zeros(2, dtype=np.int64), 0.0, 0.0, 1, 1
    cols = int((max_x - min_x) / cell_x) + 1
    rows = int((max_y - min_y) / cell_y) + 1
    counts = np.zeros(cols * rows + 1, dtype=np.int64)
    key = np.empty(n, dtype=np.int64)
    for i in range(n):
        if active[i]:
            k = int((points[i, 1] - min_y) / cell_y) * cols + int((points[i, 0] - min_x) / cell_x)
            key[i] = k
            counts[k + 1] += 1
        else:
            key[i] = -1
    for k in range(cols * rows):
        counts[k + 1] += counts[k]
    starts = counts.copy()
    fill = counts[:-1].copy()
    order = np.empty(starts[-1], dtype=np.int64)
    for i in range(n):
        k = key[i]
        if k >= 0:
            order[fill[k]] = i
            fill[k] += 1
    return order, starts, min_x, min_y, cols, rows


@njit(cache=True)
def fitted_side(points, active, wanted):
    """``wanted`` (a bucket side, world units), made larger where the ``active`` points span so
    wide an area that the grid would hold more than ``MOST_BUCKETS`` buckets (or 16 per point);
    a side of at least ``wanted`` finds every neighbour within ``wanted`` all the same."""
    side = max(wanted, 1e-6)
    min_x, min_y, max_x, max_y = bounding_box(points, active)
    if not (min_x <= max_x):
        return side
    most = max(MOST_BUCKETS, 16 * np.count_nonzero(active))
    if ((max_x - min_x) / side + 1.0) * ((max_y - min_y) / side + 1.0) > most:
        side = max(side, math.sqrt((max_x - min_x + side) * (max_y - min_y + side) / most))
        while ((max_x - min_x) / side + 1.0) * ((max_y - min_y) / side + 1.0) > most:
            side *= 1.125                             # the buckets' whole-number rounding
    return side


@njit(cache=True)
def bounding_box(points, active):
    """``(min_x, min_y, max_x, max_y)`` of the ``active`` rows of ``points`` with finite
    coordinates (``inf, inf, -inf, -inf`` when there is none)."""
    min_x = np.inf
    min_y = np.inf
    max_x = -np.inf
    max_y = -np.inf
    for i in range(points.shape[0]):
        if active[i] and math.isfinite(points[i, 0]) and math.isfinite(points[i, 1]):
            min_x = min(min_x, points[i, 0])
            min_y = min(min_y, points[i, 1])
            max_x = max(max_x, points[i, 0])
            max_y = max(max_y, points[i, 1])
    return min_x, min_y, max_x, max_y


@njit(cache=True, inline="always")
def cell_window(x, y, origin_x, origin_y, cell, cols, rows):
    """``(row0, row1, col0, col1)``, inclusive: the buckets around point ``(x, y)`` (its own and
    the 8 beside it, clipped to the grid; empty when the point is far off it)."""
    ci = int(math.floor((x - origin_x) / cell))
    cj = int(math.floor((y - origin_y) / cell))
    return max(cj - 1, 0), min(cj + 1, rows - 1), max(ci - 1, 0), min(ci + 1, cols - 1)


@njit(cache=True)
def near_any(queries, points, reach):
    """For each query point, True when some point of ``points`` lies within ``reach`` of it."""
    return near_any_in_group(queries, np.zeros(queries.shape[0], dtype=np.int64), points,
                             np.zeros(points.shape[0], dtype=np.int64), reach)


@njit(cache=True)
def near_any_in_group(queries, query_group, points, point_group, reach):
    """For each query point, True when a point of the same group lies within ``reach`` of it."""
    nq = queries.shape[0]
    out = np.zeros(nq, dtype=np.bool_)
    if points.shape[0] == 0 or nq == 0:
        return out
    active = np.ones(points.shape[0], dtype=np.bool_)
    order, starts, ox, oy, cols, rows = build_proximity_grid(points, active, reach)
    r2 = reach * reach
    for i in range(nq):
        r0, r1, c0, c1 = cell_window(queries[i, 0], queries[i, 1], ox, oy, reach, cols, rows)
        found = False
        for row in range(r0, r1 + 1):
            if found:
                break
            for col in range(c0, c1 + 1):
                k = row * cols + col
                for e in range(starts[k], starts[k + 1]):
                    j = order[e]
                    if point_group[j] != query_group[i]:
                        continue
                    dx = queries[i, 0] - points[j, 0]
                    dy = queries[i, 1] - points[j, 1]
                    if dx * dx + dy * dy <= r2:
                        found = True
                        break
                if found:
                    break
        out[i] = found
    return out
