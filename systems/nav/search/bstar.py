"""B* (the "crawler" of the path-planning survey in the seed texts): head straight for the goal;
at an obstacle, crawl along it (keeping it at one hand) until the way to the goal is open again.
Nothing but the walker's cells is ever visited, so on open maps it costs next to nothing; its
paths are not shortest, and in a concave trap (a bay open toward the walker) it leaves the wall
the moment the goal direction is open, walks back into the bay and goes round in circles.

``backtrack``: how many cells of its own path the walker may retrace when it finds itself going
round in circles: it walks back to where it met the wall and crawls on, now leaving the wall only
when closer to the goal than where it met it (Bug2's rule). With 0 the trap makes it fail; with
enough to retrace the bay it gets out. Never a default planner (``method="bstar"`` in ``find_path``: a legal
path or ``found = False``, never an optimal cost).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["bstar_walk"]

_DX = np.array((1, 1, 0, -1, -1, -1, 0, 1), dtype=np.int64)     # the 8 directions, counter-clockwise
_DY = np.array((0, 1, 1, 1, 0, -1, -1, -1), dtype=np.int64)


@njit(cache=True, inline="always")
def _legal(free, wp, u, d):
    dx = _DX[d]
    dy = _DY[d]
    v = u + dy * wp + dx
    if not free[v]:
        return False
    if dx != 0 and dy != 0:
        return free[u + dx] != 0 and free[u + dy * wp] != 0
    return True


@njit(cache=True, inline="always")
def _toward(ux, uy, gx, gy):
    """The direction (0..7) nearest the straight line to the goal."""
    ax = gx - ux
    ay = gy - uy
    best = 0
    best_dot = -1e18
    for d in range(8):
        norm = 1.4142135623730951 if (_DX[d] != 0 and _DY[d] != 0) else 1.0
        dot = (ax * _DX[d] + ay * _DY[d]) / norm
        if dot > best_dot:
            best_dot = dot
            best = d
    return best


@njit(cache=True)
def bstar_walk(free, wp, start, goal, hand, max_steps, backtrack):
    """The walker's cells (padded flat ids) from ``start``; ends at ``goal`` when it got there,
    else where it gave up (``free``: padded passability)."""
    path = np.empty(max_steps + 1, dtype=np.int64)
    path[0] = start
    n = 1
    u = start
    gx = goal % wp
    gy = goal // wp
    crawling = False
    strict = False                 # after a retreat: leave the wall only closer to the goal than the hit
    heading = 0
    hit_at = 0
    hit_dist = 0.0
    seen = np.zeros(free.size, dtype=np.int64)                 # step it was last here (+1)
    left = backtrack
    steps = 0
    while u != goal and steps < max_steps:
        steps += 1
        ux = u % wp
        uy = u // wp
        want = _toward(ux, uy, gx, gy)
        dist = ((gx - ux) ** 2 + (gy - uy) ** 2) ** 0.5
        if not crawling and not _legal(free, wp, u, want):
            crawling = True                                     # an obstacle: crawl along it
            heading = want
            hit_at = n - 1
            hit_dist = dist
        if crawling and _legal(free, wp, u, want) and (not strict or dist < hit_dist - 0.5):
            crawling = False                                    # the way to the goal is open again
            strict = False
        if crawling:
            # keep the obstacle at the hand: try the turn toward it first, then turn away from
            # it step by step until a move is legal
            d = (heading - 2 * hand) % 8
            moved = False
            for i in range(8):
                dd = (d + hand * i) % 8
                if _legal(free, wp, u, dd):
                    heading = dd
                    moved = True
                    break
            if not moved:
                break
            step = heading
        else:
            step = want
        v = u + _DY[step] * wp + _DX[step]
        if seen[v] > 0 and steps - seen[v] > 2:                 # going round in circles
            if n - 1 - hit_at > left:
                break                                           # a trap it may not back out of
            # back to where it met the wall, then round it without leaving early
            left -= n - 1 - hit_at
            n = hit_at + 1
            u = path[hit_at]
            crawling = True
            strict = True
            heading = _toward(u % wp, u // wp, gx, gy)
            seen[:] = 0
            continue
        seen[v] = steps
        path[n] = v
        n += 1
        u = v
    return path[:n]
