"""Bidirectional A* with average ("balanced") potentials and Pohl's cardinality rule: exact and
resumable; on grids it loses to A* unless an end is walled in (``ends_walled_in``, the pocket
rule ``find_path`` applies by default).

Front-to-end bidirectional A* with each side's own heuristic needs a weak stopping rule
(``max(min f forward, min f backward) >= mu``) and then expands about two A* searches' worth of
nodes. Here both sides use one potential, ``p(v) = (h(v, goal) - h(v, start)) / 2`` forward and
``-p(v)`` backward (Ikeda et al. 1994; Goldberg & Harrelson, "Computing the shortest path: A*
search meets graph theory", SODA 2005). Its reduced costs ``l(a, b) - p(a) + p(b)`` are
non-negative in both directions (the average of consistent heuristics is consistent), so the
two sides are one bidirectional Dijkstra on one reduced graph, with the strong stopping rule:
stop when ``min key forward + min key backward >= mu`` (``mu``: the cheapest start-goal path
seen, updated whenever a side improves a node the other side has a g for). That rule holds
whichever side expands next, so the side is chosen by Pohl's cardinality comparison ("Bi-
directional search", Machine Intelligence 6, 1971): the one with the smaller open list. A side
boxed in by walls (a start in a room, a goal in a bay) has few open nodes and runs ahead; the
side in the open waits. On the benchmark's long queries of AcrosstheCape scaled to 1024² this
expands ~20% fewer nodes than A* (the smaller-key rule expanded ~2% more), but on other maps
15-50% more, at ~1.3× A*'s time per expansion (two labels per cell). This is not NBS (Chen et al., IJCAI
2017), which bounds expansions against the best bidirectional front-to-end search. Step costs
are symmetric (mean of the two cells' terrain costs), so the backward side searches the same
graph.

A search lives in one ``SearchArrays`` of twice the cells (``SearchWorkspace.for_grid(grid,
directions=2)``): entry ``2v`` is cell ``v``'s forward label, ``2v + 1`` its backward one, so a
side checking the other's label at ``v`` reads the same cache line (6% faster a query than two
workspaces); the first half of the heap arrays is the forward open list, the second half the
backward one. ``bidirectional_begin`` seeds a search and ``bidirectional_run`` expands up to a
budget of nodes and can be called again, as the one-directional kernels. The ``state`` holds
both heaps' sizes, the status and the meeting node (``MEET``; ``mu`` is the sum of its two
labels: a label only falls, and each fall re-checks ``mu``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..kernels.heap import CLOSED, NOT_IN_HEAP, TIE_BREAK, heap_pop, heap_push, heap_sift_up
from ..kernels.steps import MOVE_DX, MOVE_DY, move_offsets, step_cost
from .astar import heuristic_xy
from .workspace import (
    EXHAUSTED,
    EXPANDED,
    FOUND,
    GOAL,
    HEAP_SIZE,
    HEAP_SIZE_BACK,
    IN_PROGRESS,
    MEET,
    STAMP,
    START,
    STATUS,
    WORK,
)

__all__ = ["bidirectional_begin", "bidirectional_run", "meeting_cost", "join_paths", "ends_walled_in",
           "POCKET_RADIUS", "POCKET_SHARE"]

#: The pocket rule (``ends_walled_in``): the window around an end, in cells each way ...
POCKET_RADIUS = 24
#: ... and the share of its open cells a walk from the end must reach for the end to be open.
POCKET_SHARE = 0.5


@njit(cache=True, inline="always")
def _key(g, vx, vy, v, tx, ty, ox, oy, hmode, ttab, otab):
    """A side's heap key at cell ``(vx, vy)`` (padded flat ``v``): g plus the side's potential
    ``(h to its target - h to its origin) / 2``, plus ``TIE_BREAK`` × the distance still to go,
    so that among equal keys the node nearer the target pops first (as in A*)."""
    ht = heuristic_xy(vx, vy, tx, ty, v, hmode, ttab)
    return g + 0.5 * (ht - heuristic_xy(vx, vy, ox, oy, v, hmode, otab)) + TIE_BREAK * ht


@njit(cache=True)
def bidirectional_begin(ws, start, goal, wp, hmode, htable_f, htable_b):
    """Seed a search from padded flat ``start`` to ``goal`` in ``ws`` (a two-direction
    ``SearchArrays``, after ``next_stamp``); ``htable_f`` / ``htable_b`` are the heuristic tables
    toward the goal / the start (TABLE mode)."""
    g, parent, stamp, pos, hk, hn, state = ws
    n = g.size // 2
    cur = np.int32(state[STAMP])
    sx, sy, gx, gy = start % wp, start // wp, goal % wp, goal // wp
    for side in range(2):
        root = start if side == 0 else goal
        e = 2 * root + side
        stamp[e] = cur
        g[e] = 0.0
        parent[e] = -1
        pos[e] = NOT_IN_HEAP
        if side == 0:
            key = _key(0.0, sx, sy, start, gx, gy, sx, sy, hmode, htable_f, htable_b)
            state[HEAP_SIZE] = heap_push(hk[:n], hn[:n], pos, 0, key, e)
        else:
            key = _key(0.0, gx, gy, goal, sx, sy, gx, gy, hmode, htable_b, htable_f)
            state[HEAP_SIZE_BACK] = heap_push(hk[n:], hn[n:], pos, 0, key, e)
    state[EXPANDED] = 0
    state[WORK] = 0
    state[START] = start
    state[GOAL] = goal
    state[MEET] = start if start == goal else -1
    state[STATUS] = FOUND if start == goal else IN_PROGRESS


@njit(cache=True)
def meeting_cost(ws):
    """``mu``: the cost of the cheapest start-goal path seen (inf before the sides meet)."""
    meet = ws[6][MEET]
    if meet < 0:
        return np.inf
    return ws[0][2 * meet] + ws[0][2 * meet + 1]


@njit(cache=True, inline="always")
def _suspend(state, sizeF, sizeB, meet, expanded, status):
    """Save the loop state of ``bidirectional_run`` and return ``status``."""
    state[HEAP_SIZE], state[HEAP_SIZE_BACK] = sizeF, sizeB
    state[MEET] = meet
    state[EXPANDED] = state[WORK] = expanded
    state[STATUS] = status
    return status


@njit(cache=True)
def bidirectional_run(moves, cost, wp, uniform, ws, hmode, htable_f, htable_b, budget):
    """Expand up to ``budget`` nodes of the search in ``ws``; returns the status (IN_PROGRESS,
    FOUND or EXHAUSTED). Found: ``meeting_cost`` is the path's cost and ``join_paths`` its cells."""
    g, parent, stamp, pos, heap_key, heap_node, state = ws
    if state[STATUS] != IN_PROGRESS:
        return state[STATUS]
    n = g.size // 2
    hkF, hnF, hkB, hnB = heap_key[:n], heap_node[:n], heap_key[n:], heap_node[n:]
    offs = move_offsets(wp)
    cur = np.int32(state[STAMP])
    start, goal = state[START], state[GOAL]
    sx, sy, gx, gy = start % wp, start // wp, goal % wp, goal // wp
    sizeF, sizeB = state[HEAP_SIZE], state[HEAP_SIZE_BACK]
    meet = state[MEET]
    mu = meeting_cost(ws)
    expanded = state[EXPANDED]
    status = IN_PROGRESS
    stop = expanded + budget
    while expanded < stop:
        if sizeF == 0 or sizeB == 0:           # one side settled all it reaches: mu is exact
            status = FOUND if meet >= 0 else EXHAUSTED
            break
        # every start-goal path not yet seen costs at least the sum of the two smallest keys
        # (less their tie-breaks, at most TIE_BREAK × the start-goal distance each)
        if mu <= hkF[0] + hkB[0]:
            status = FOUND
            break
        fwd = sizeF <= sizeB                   # cardinality: the side with fewer open nodes
        if fwd:
            hk, hn, size, side = hkF, hnF, sizeF, 0
            tx, ty, ox, oy, ttab, otab = gx, gy, sx, sy, htable_f, htable_b
        else:
            hk, hn, size, side = hkB, hnB, sizeB, 1
            tx, ty, ox, oy, ttab, otab = sx, sy, gx, gy, htable_b, htable_f
        eu, size = heap_pop(hk, hn, pos, size)
        pos[eu] = CLOSED
        expanded += 1
        u = eu >> 1
        gu = g[eu]
        cu, m = cost[u], moves[u]
        ux, uy = u % wp, u // wp
        # the key is written out below: through ``_key`` (inlined) an expansion cost 18% more
        for k in range(8):
            if (m >> k) & 1 == 0:
                continue
            v = u + offs[k]
            ev = 2 * v + side
            ng = gu + step_cost(cost, cu, v, k, uniform)
            if stamp[ev] != cur:
                stamp[ev] = cur
                g[ev] = ng
                parent[ev] = u
                vx, vy = ux + MOVE_DX[k], uy + MOVE_DY[k]
                ht = heuristic_xy(vx, vy, tx, ty, v, hmode, ttab)
                size = heap_push(hk, hn, pos, size,
                                 ng + 0.5 * (ht - heuristic_xy(vx, vy, ox, oy, v, hmode, otab)) + TIE_BREAK * ht, ev)
            elif ng < g[ev] - 1e-12:
                p = pos[ev]
                if p == CLOSED:
                    continue
                g[ev] = ng
                parent[ev] = u
                vx, vy = ux + MOVE_DX[k], uy + MOVE_DY[k]
                ht = heuristic_xy(vx, vy, tx, ty, v, hmode, ttab)
                hk[p] = ng + 0.5 * (ht - heuristic_xy(vx, vy, ox, oy, v, hmode, otab)) + TIE_BREAK * ht
                heap_sift_up(hk, hn, pos, p)
            else:
                continue
            eo = ev ^ 1                        # the other side's label of v
            if stamp[eo] == cur and ng + g[eo] < mu:
                mu = ng + g[eo]
                meet = v
        if fwd:
            sizeF = size
        else:
            sizeB = size
    return _suspend(state, sizeF, sizeB, meet, expanded, status)


@njit(cache=True)
def join_paths(parent, meet, wp):
    """Cells start..meet from the forward labels (``parent[2v]``), then meet..goal from the
    backward ones (``parent[2v + 1]``)."""
    n1 = 0
    u = meet
    while u != -1:
        n1 += 1
        u = parent[2 * u]
    n2 = 0
    u = parent[2 * meet + 1]
    while u != -1:
        n2 += 1
        u = parent[2 * u + 1]
    out = np.empty((n1 + n2, 2), dtype=np.int32)
    u = meet
    i = n1 - 1
    while u != -1:
        out[i, 0] = u % wp - 1
        out[i, 1] = u // wp - 1
        i -= 1
        u = parent[2 * u]
    u = parent[2 * meet + 1]
    i = n1
    while u != -1:
        out[i, 0] = u % wp - 1
        out[i, 1] = u // wp - 1
        i += 1
        u = parent[2 * u + 1]
    return out


@njit(cache=True)
def reached_share(free, moves, wp, cell, radius):
    """Of the open cells within ``radius`` cells (each axis) of padded flat ``cell``, the share a
    walk of at most ``radius`` legal moves from ``cell`` reaches (a pocket's door leads round
    its walls in more moves than that)."""
    cx, cy = cell % wp, cell // wp
    hp = free.size // wp
    x0, x1 = max(1, cx - radius), min(wp - 2, cx + radius)
    y0, y1 = max(1, cy - radius), min(hp - 2, cy + radius)
    ww = x1 - x0 + 1
    seen = np.zeros((y1 - y0 + 1) * ww, dtype=np.bool_)
    queue = np.empty(seen.size, dtype=np.int64)
    offs = move_offsets(wp)
    queue[0] = cell
    seen[(cy - y0) * ww + cx - x0] = True
    head, tail = 0, 1
    for _ in range(radius):                   # one ring of moves per round
        end = tail
        while head < end:
            u = queue[head]
            head += 1
            m = moves[u]
            ux, uy = u % wp, u // wp
            for k in range(8):
                if (m >> k) & 1 == 0:
                    continue
                vx, vy = ux + MOVE_DX[k], uy + MOVE_DY[k]
                i = (vy - y0) * ww + vx - x0
                if not seen[i]:               # within radius moves: always inside the window
                    seen[i] = True
                    queue[tail] = u + offs[k]
                    tail += 1
    total = 0
    for y in range(y0, y1 + 1):
        for x in range(x0, x1 + 1):
            total += free[y * wp + x]
    return tail / max(1, total)


def ends_walled_in(free: np.ndarray, moves: np.ndarray, wp: int, start: int, goal: int) -> bool:
    """The pocket rule: True when a long query (ends ≥ 4 × ``POCKET_RADIUS`` apart) has an end
    whose walk stays in a pocket (reaches less than ``POCKET_SHARE`` of the open cells of the
    window ``POCKET_RADIUS`` cells around it). Measured on the 60 longest of 300 random queries
    of seven maps scaled to 1024² (AcrosstheCape, brc202d, den520d, lak303d, Berlin_1_256,
    w_woundedcoast, ht_chantry): searching from both ends cost 1.46-1.98× A*'s median and won
    3-30% of the queries, and no cheap test told which (the share of each side's expansions in
    the first 2,000, each end's openness, the better search direction). With the rule, on the
    longest random queries of Berlin_1_256 and den520d (256²), w_woundedcoast (642×578),
    brc202d and AcrosstheCape scaled to 1024² and den520d's joined copies, 0-20% of queries
    search from both ends and the median is 0.99-1.07× A*'s (mean 0.99-1.08×; a share of 0.7
    sent up to 55% and gave means up to 1.23×): the rule keeps bidirectional search for the
    queries it was made for, not a speed-up over A*."""
    sx, sy, gx, gy = start % wp, start // wp, goal % wp, goal // wp
    if max(abs(sx - gx), abs(sy - gy)) < 4 * POCKET_RADIUS:
        return False
    return bool(min(reached_share(free, moves, wp, start, POCKET_RADIUS),
                    reached_share(free, moves, wp, goal, POCKET_RADIUS)) < POCKET_SHARE)
