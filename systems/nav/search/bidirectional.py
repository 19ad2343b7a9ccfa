"""Bidirectional A* with a correct stopping rule (optimal, not "first meeting").

Two A* searches, start→goal and goal→start, each with a consistent heuristic toward its own
target. ``mu`` is the cheapest start–goal path seen so far (updated whenever one side reaches a
node the other side has a g for). Any path not yet seen passes through a node open on *each*
side, so it costs at least ``max(min f forward, min f backward)``; the search stops when that
bound reaches ``mu`` (Pohl 1971; see also Holte et al., "MM", AAAI 2016). Step costs are
symmetric (mean of the two cells' terrain costs), so the backward side searches the same graph.
The side with the smaller open list expands next (Pohl's cardinality rule).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .astar import SQRT2, heuristic_at
from .heap import CLOSED, NOT_IN_HEAP, TIE_BREAK, heap_pop, heap_push, heap_sift_up


@njit(cache=True, inline="always")
def _expand(moves, cost, wp, uniform, offs, cur,
            g, parent, stamp, pos, hk, hn, size, target,
            og, ostamp, hmode, htable, best):
    """Pop and expand one node of one side; ``best`` = [mu, meeting node]. Returns new size."""
    u, size = heap_pop(hk, hn, pos, size)
    pos[u] = CLOSED
    gu = g[u]
    cu = cost[u]
    m = moves[u]
    for k in range(8):
        if (m >> k) & 1 == 0:
            continue
        v = u + offs[k]
        length = SQRT2 if k >= 4 else 1.0
        if uniform:
            ng = gu + length
        else:
            ng = gu + length * 0.5 * (cu + cost[v])
        if stamp[v] != cur:
            stamp[v] = cur
            g[v] = ng
            parent[v] = u
            h = heuristic_at(v, target, wp, hmode, htable)
            size = heap_push(hk, hn, pos, size, ng + (1.0 + TIE_BREAK) * h, v)
        elif ng < g[v] - 1e-12:
            p = pos[v]
            if p == CLOSED:
                continue
            g[v] = ng
            parent[v] = u
            hk[p] = ng + (1.0 + TIE_BREAK) * heuristic_at(v, target, wp, hmode, htable)
            heap_sift_up(hk, hn, pos, p)
        else:
            continue
        if ostamp[v] == cur:
            total = ng + og[v]
            if total < best[0]:
                best[0] = total
                best[1] = v
    return size


@njit(cache=True)
def bidirectional_search(moves, cost, wp, uniform, start, goal, cur, hmode, htable_f, htable_b,
                         gF, parentF, stampF, posF, hkF, hnF,
                         gB, parentB, stampB, posB, hkB, hnB):
    """Run to completion. Returns ``(cost, meeting_node, expanded)``; cost is inf if unreachable.

    ``cur`` is the stamp of this search in both workspaces.
    """
    offs = np.array((1, -1, wp, -wp, wp + 1, wp - 1, -wp + 1, -wp - 1))
    best = np.array((np.inf, -1.0))
    stampF[start] = cur
    gF[start] = 0.0
    parentF[start] = -1
    posF[start] = NOT_IN_HEAP
    stampB[goal] = cur
    gB[goal] = 0.0
    parentB[goal] = -1
    posB[goal] = NOT_IN_HEAP
    h0 = heuristic_at(start, goal, wp, hmode, htable_f)
    sizeF = heap_push(hkF, hnF, posF, 0, h0, start)
    h1 = heuristic_at(goal, start, wp, hmode, htable_b)
    sizeB = heap_push(hkB, hnB, posB, 0, h1, goal)
    if start == goal:
        return 0.0, start, 0
    expanded = 0
    while sizeF > 0 and sizeB > 0:
        # keys are f + 1e-9·h, so this bound is at most 1e-9·h above the true one
        if best[0] <= max(hkF[0], hkB[0]):
            break
        if sizeF <= sizeB:
            sizeF = _expand(moves, cost, wp, uniform, offs, cur,
                            gF, parentF, stampF, posF, hkF, hnF, sizeF, goal,
                            gB, stampB, hmode, htable_f, best)
        else:
            sizeB = _expand(moves, cost, wp, uniform, offs, cur,
                            gB, parentB, stampB, posB, hkB, hnB, sizeB, start,
                            gF, stampF, hmode, htable_b, best)
        expanded += 1
    return best[0], int(best[1]), expanded


@njit(cache=True)
def join_paths(parentF, parentB, meet, wp):
    """Cells start..meet from the forward tree, then meet..goal from the backward tree."""
    n1 = 0
    u = meet
    while u != -1:
        n1 += 1
        u = parentF[u]
    n2 = 0
    u = parentB[meet]
    while u != -1:
        n2 += 1
        u = parentB[u]
    out = np.empty((n1 + n2, 2), dtype=np.int32)
    u = meet
    i = n1 - 1
    while u != -1:
        out[i, 0] = u % wp - 1
        out[i, 1] = u // wp - 1
        i -= 1
        u = parentF[u]
    u = parentB[meet]
    i = n1
    while u != -1:
        out[i, 0] = u % wp - 1
        out[i, 1] = u // wp - 1
        i += 1
        u = parentB[u]
    return out
