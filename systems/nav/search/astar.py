"""A* on the 8-connected grid (no corner cutting), as a resumable numba kernel.

One kernel serves Dijkstra (zero heuristic), A* (octile) and weighted A* (``f = g + w·h``):
with a consistent heuristic no node is ever re-opened, and weighted A* without re-opening still
returns a path of cost ≤ w × optimal. ``astar_begin`` seeds a search in a ``SearchWorkspace``;
``astar_run`` expands up to ``budget`` nodes and can be called again to continue, which is how
time-sliced requests share a per-tick budget.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..heuristics import ANCHORS, EUCLIDEAN, MANHATTAN, OCTILE, TABLE
from ..kernels.heap import CLOSED, NOT_IN_HEAP, TIE_BREAK, heap_pop, heap_push, heap_sift_up
from ..kernels.steps import MOVE_DX, MOVE_DY, SQRT2, move_offsets, octile, step_cost
from .goal_bounds import inside
from .open_list import resume, suspend
from .workspace import EXHAUSTED, EXPANDED, FOUND, GOAL, HEAP_SIZE, IN_PROGRESS, STAMP, START, STATUS, WORK

__all__ = ["SQRT2", "heuristic_xy", "astar_begin", "astar_run", "trace_path"]


@njit(cache=True, inline="always")
def heuristic_xy(x, y, gx, gy, node, mode, table):
    """Estimate from cell ``(x, y)`` (padded flat index ``node``) to ``(gx, gy)``."""
    if mode == 0:
        return 0.0
    if mode == TABLE:
        return table[node]
    if mode == OCTILE:
        return octile(x, y, gx, gy)
    dx = abs(x - gx)
    dy = abs(y - gy)
    if mode == EUCLIDEAN:
        return math.sqrt(dx * dx + dy * dy)
    if mode == MANHATTAN:
        return float(dx + dy)
    if mode == ANCHORS:                       # a goal region: table = slack, then anchor x, y pairs
        best = math.inf
        for k in range(1, table.shape[0] - 1, 2):
            ax = x - table[k]
            ay = y - table[k + 1]
            best = min(best, ax * ax + ay * ay)
        return max(0.0, math.sqrt(best) - table[0])
    return 0.0


@njit(cache=True, inline="always")
def _heuristic_at(node, goal, wp, mode, table):
    """Estimate from padded flat ``node`` to ``goal``."""
    return heuristic_xy(node % wp, node // wp, goal % wp, goal // wp, node, mode, table)


@njit(cache=True)
def astar_begin(ws, start, goal, wp, hmode, hweight, htable):
    """Seed a search in workspace ``ws`` (``SearchArrays``) from padded flat ``start`` toward
    ``goal`` (call after ``next_stamp``)."""
    g, parent, stamp, pos, heap_key, heap_node, state = ws
    cur = np.int32(state[STAMP])
    stamp[start] = cur
    g[start] = 0.0
    parent[start] = -1
    pos[start] = NOT_IN_HEAP
    h = _heuristic_at(start, goal, wp, hmode, htable)
    state[HEAP_SIZE] = heap_push(heap_key, heap_node, pos, 0, (hweight + TIE_BREAK) * h, start)
    state[EXPANDED] = 0
    state[WORK] = 0
    state[STATUS] = IN_PROGRESS
    state[START] = start
    state[GOAL] = goal


@njit(cache=True)
def astar_run(moves, cost, wp, uniform, ws, hmode, hweight, htable, budget, bounds, use_bounds, region, use_region):
    """Expand up to ``budget`` nodes of the search in ``ws`` (``SearchArrays``); returns the
    status (IN_PROGRESS, FOUND or EXHAUSTED).

    ``moves`` is the grid's per-cell legal-move bitmask (``Grid.move_masks``); with
    ``use_bounds``, a move whose goal-bounding box (``bounds``) misses the goal is skipped. With
    ``use_region`` the search ends at the first node of ``region`` (padded flat bools) it pops,
    which becomes ``state[GOAL]``."""
    g, parent, stamp, pos, heap_key, heap_node, state = ws
    if state[STATUS] != IN_PROGRESS:
        return state[STATUS]
    cur, size, goal, gx, gy, expanded = resume(state, wp)
    status = IN_PROGRESS
    hw = hweight + TIE_BREAK
    # neighbour offsets in move-mask bit order: E, W, S, N, SE, SW, NE, NW
    offs = move_offsets(wp)
    mdx = MOVE_DX
    mdy = MOVE_DY
    steps = 0
    while steps < budget:
        if size == 0:
            status = EXHAUSTED
            break
        u, size = heap_pop(heap_key, heap_node, pos, size)
        pos[u] = CLOSED
        if u == goal or (use_region and region[u]):
            state[GOAL] = u
            status = FOUND
            break
        expanded += 1
        steps += 1
        gu = g[u]
        cu = cost[u]
        ux = u % wp
        uy = u // wp
        m = moves[u]
        for k in range(8):
            if (m >> k) & 1 == 0:
                continue
            if use_bounds and not inside(bounds, u, k, gx, gy):
                continue
            v = u + offs[k]
            ng = gu + step_cost(cost, cu, v, k, uniform)
            if stamp[v] != cur:
                stamp[v] = cur
                g[v] = ng
                parent[v] = u
                h = heuristic_xy(ux + mdx[k], uy + mdy[k], gx, gy, v, hmode, htable)
                size = heap_push(heap_key, heap_node, pos, size, ng + hw * h, v)
            elif ng < g[v] - 1e-12:
                p = pos[v]
                if p == CLOSED:
                    continue   # consistent heuristic: a closed node already has its best g
                g[v] = ng
                parent[v] = u
                heap_key[p] = ng + hw * heuristic_xy(ux + mdx[k], uy + mdy[k], gx, gy, v, hmode, htable)
                heap_sift_up(heap_key, heap_node, pos, p)
    return suspend(state, size, expanded, status, 0)


@njit(cache=True)
def trace_path(parent, end, wp):
    """Follow ``parent`` links from padded flat ``end`` to the root; ``(N, 2) int32`` (x, y),
    root first."""
    n = 0
    u = end
    while u != -1:
        n += 1
        u = parent[u]
    out = np.empty((n, 2), dtype=np.int32)
    u = end
    i = n - 1
    while u != -1:
        out[i, 0] = u % wp - 1
        out[i, 1] = u // wp - 1
        i -= 1
        u = parent[u]
    return out
