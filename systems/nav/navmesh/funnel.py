"""Funnel string-pulling (the "simple stupid funnel algorithm", Mononen 2010): the shortest
path through a corridor of portals, as a list of corner points."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["string_pull"]


@njit(cache=True, inline="always")
def _area2(a, b, c):
    return (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])


@njit(cache=True)
def string_pull(start, goal, lefts, rights):
    """Points of the shortest path from ``start`` to ``goal`` (``(2,)``) through portals whose
    left/right endpoints (seen along the direction of travel) are ``lefts``/``rights`` ``(K, 2)``.
    Returns ``(M, 2)`` points, start and goal included."""
    k = lefts.shape[0]
    pl = np.empty((k + 1, 2))
    pr = np.empty((k + 1, 2))
    pl[:k] = lefts
    pr[:k] = rights
    pl[k] = goal
    pr[k] = goal
    out = np.empty((2 * k + 3, 2))
    out[0] = start
    n = 1
    apex = start.copy()
    left = start.copy()
    right = start.copy()
    apex_i = 0
    left_i = 0
    right_i = 0
    i = 0
    while i <= k:
        lp = pl[i]
        r = pr[i]
        # tighten the right side
        if _area2(apex, right, r) >= 0.0:
            if (apex[0] == right[0] and apex[1] == right[1]) or _area2(apex, left, r) < 0.0:
                right = r.copy()
                right_i = i
            else:
                out[n] = left
                n += 1
                apex = left.copy()
                apex_i = left_i
                left = apex.copy()
                right = apex.copy()
                left_i = apex_i
                right_i = apex_i
                i = apex_i + 1
                continue
        # tighten the left side
        if _area2(apex, left, lp) <= 0.0:
            if (apex[0] == left[0] and apex[1] == left[1]) or _area2(apex, right, lp) > 0.0:
                left = lp.copy()
                left_i = i
            else:
                out[n] = right
                n += 1
                apex = right.copy()
                apex_i = right_i
                left = apex.copy()
                right = apex.copy()
                left_i = apex_i
                right_i = apex_i
                i = apex_i + 1
                continue
        i += 1
    if not (out[n - 1, 0] == goal[0] and out[n - 1, 1] == goal[1]):
        out[n] = goal
        n += 1
    return out[:n].copy()
