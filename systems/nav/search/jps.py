"""Jump Point Search (Harabor & Grastien 2011) under the no-corner-cutting rule, resumable.

The benchmark's rule: a diagonal step needs both orthogonal cells it passes free. The pruning and
forced-neighbour rules of the original paper assume corner cutting; under this rule they become
(derived by comparing each neighbour's best path through the parent with the path through the
current node):

* arriving **diagonally** at ``n`` (both orthogonal cells of the step were free), every
  neighbour other than the two straight and the one diagonal continuation is reached at least
  as cheaply without ``n``: there are **no forced neighbours**; the scan continues diagonally
  while the step is legal and stops where a straight scan along either component finds a jump
  point.
* arriving **straight** along ``(dx, 0)``, side cell ``(x, y+s)`` is **forced** when it is free
  and the cell behind it, ``(x-dx, y+s)``, is blocked (the parent cannot step to it diagonally);
  the successors are then ``(0, s)`` and ``(dx, s)`` as well as ``(dx, 0)``. Same for vertical.

Each successor is the next jump point along that direction (or the goal), so the edge costs are
exact octile lengths and A* over jump points with the octile heuristic returns optimal costs.
Uniform-cost grids only (``find_path`` falls back to A* with terrain costs and says why).
Expansions count jump points popped; the budget of a time-sliced query counts them plus one
per 32 cells scanned (calibrated: a unit then costs about what an A* expansion does), so a long scan is paid for.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..kernels.heap import CLOSED, NOT_IN_HEAP, TIE_BREAK, heap_push, heap_sift_up
from ..kernels.steps import octile

__all__ = ["expand_jumps", "relax_jump", "SCAN_PER_UNIT"]

#: Cells scanned per unit of budget.
SCAN_PER_UNIT = 32


@njit(cache=True, inline="always")
def relax_jump(g, parent, stamp, pos, heap_key, heap_node, size, cur, u, v, vx, vy, ng, gx, gy):
    """Offer jump point ``v`` (cell ``(vx, vy)``) the cost ``ng`` from ``u``; returns the heap
    size. Shared by JPS and JPS+ (their successors differ, their bookkeeping does not)."""
    key = ng + (1.0 + TIE_BREAK) * octile(vx, vy, gx, gy)
    if stamp[v] != cur:
        stamp[v] = cur
        g[v] = ng
        parent[v] = u
        pos[v] = NOT_IN_HEAP
        return heap_push(heap_key, heap_node, pos, size, key, v)
    if ng < g[v] - 1e-12:
        pv = pos[v]
        if pv == CLOSED:
            return size
        g[v] = ng
        parent[v] = u
        if pv == NOT_IN_HEAP:
            return heap_push(heap_key, heap_node, pos, size, key, v)
        heap_key[pv] = key
        heap_sift_up(heap_key, heap_node, pos, pv)
    return size


@njit(cache=True, inline="always")
def _straight(free, wp, x, y, dx, dy, goal_x, goal_y):
    """Scan from ``(x, y)`` along straight ``(dx, dy)``; returns ``(steps, cells scanned)`` to the
    next jump point (the goal, or a cell with a forced neighbour), steps -1 at a wall."""
    steps = 0
    while True:
        x += dx
        y += dy
        steps += 1
        if free[y * wp + x] == 0:
            return -1, steps
        if x == goal_x and y == goal_y:
            return steps, steps
        if dx != 0:
            if (free[(y + 1) * wp + x] and not free[(y + 1) * wp + x - dx]) or \
                    (free[(y - 1) * wp + x] and not free[(y - 1) * wp + x - dx]):
                return steps, steps
        else:
            if (free[y * wp + x + 1] and not free[(y - dy) * wp + x + 1]) or \
                    (free[y * wp + x - 1] and not free[(y - dy) * wp + x - 1]):
                return steps, steps


@njit(cache=True, inline="always")
def _diagonal(free, wp, x, y, dx, dy, goal_x, goal_y):
    """Scan diagonally from ``(x, y)``; returns ``(steps, cells scanned)`` to the next cell where
    the goal is or a straight scan along ``(dx, 0)`` or ``(0, dy)`` finds a jump point."""
    steps = 0
    scanned = 0
    while True:
        if not (free[y * wp + x + dx] and free[(y + dy) * wp + x] and free[(y + dy) * wp + x + dx]):
            return -1, scanned
        x += dx
        y += dy
        steps += 1
        scanned += 1
        if x == goal_x and y == goal_y:
            return steps, scanned
        s, c = _straight(free, wp, x, y, dx, 0, goal_x, goal_y)
        scanned += c
        if s > 0:
            return steps, scanned
        s, c = _straight(free, wp, x, y, 0, dy, goal_x, goal_y)
        scanned += c
        if s > 0:
            return steps, scanned


@njit(cache=True)
def expand_jumps(parent, end, wp):
    """The cells of the path ending at padded flat ``end``: the jump points' straight and
    diagonal segments filled in; ``(N, 2) int32`` (x, y) of the unpadded grid, start first."""
    count = 1
    u = end
    while parent[u] >= 0:
        p = parent[u]
        count += max(abs(u % wp - p % wp), abs(u // wp - p // wp))
        u = p
    out = np.empty((count, 2), dtype=np.int32)
    i = count - 1
    u = end
    out[i, 0] = u % wp - 1
    out[i, 1] = u // wp - 1
    while parent[u] >= 0:
        p = parent[u]
        x = u % wp
        y = u // wp
        dx = (p % wp > x) - (p % wp < x)
        dy = (p // wp > y) - (p // wp < y)
        steps = max(abs(p % wp - x), abs(p // wp - y))
        for _ in range(steps):
            x += dx
            y += dy
            i -= 1
            out[i, 0] = x - 1
            out[i, 1] = y - 1
        u = p
    return out
