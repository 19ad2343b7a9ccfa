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
from .heap import CLOSED, NOT_IN_HEAP, F_EPS, heap_pop, heap_push, heap_sift_up


@njit(cache=True)
def _expand(passable, cost, wp, uniform, offs, side_a, side_b, cur,
            g, parent, stamp, pos, hf, hh, hn, size, target,
            og, ostamp, hmode, htable, best):
    """Pop and expand one node of one side; ``best`` = [mu, meeting node]. Returns new size."""
    u, size = heap_pop(hf, hh, hn, pos, size)
    pos[u] = CLOSED
    gu = g[u]
    cu = cost[u]
    for k in range(8):
        v = u + offs[k]
        if passable[v] == 0:
            continue
        if k >= 4:
            if passable[u + offs[side_a[k]]] == 0 or passable[u + offs[side_b[k]]] == 0:
                continue
            length = SQRT2
        else:
            length = 1.0
        if uniform:
            ng = gu + length
        else:
            ng = gu + length * 0.5 * (cu + cost[v])
        if stamp[v] != cur:
            stamp[v] = cur
            g[v] = ng
            parent[v] = u
            h = heuristic_at(v, target, wp, hmode, htable)
            size = heap_push(hf, hh, hn, pos, size, ng + h, h, v)
        elif ng < g[v] - 1e-12:
            p = pos[v]
            if p == CLOSED:
                continue
            g[v] = ng
            parent[v] = u
            hf[p] = ng + hh[p]
            heap_sift_up(hf, hh, hn, pos, p)
        else:
            continue
        if ostamp[v] == cur:
            total = ng + og[v]
            if total < best[0]:
                best[0] = total
                best[1] = v
    return size


@njit(cache=True)
def bidirectional_search(passable, cost, wp, uniform, start, goal, cur, hmode, htable_f, htable_b,
                         gF, parentF, stampF, posF, hfF, hhF, hnF,
                         gB, parentB, stampB, posB, hfB, hhB, hnB):
    """Run to completion. Returns ``(cost, meeting_node, expanded)``; cost is inf if unreachable.

    ``cur`` is the stamp of this search in both workspaces.
    """
    offs = np.array((1, -1, wp, -wp, wp + 1, wp - 1, -wp + 1, -wp - 1))
    side_a = np.array((0, 0, 0, 0, 0, 1, 0, 1))
    side_b = np.array((0, 0, 0, 0, 2, 2, 3, 3))
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
    sizeF = heap_push(hfF, hhF, hnF, posF, 0, h0, h0, start)
    h1 = heuristic_at(goal, start, wp, hmode, htable_b)
    sizeB = heap_push(hfB, hhB, hnB, posB, 0, h1, h1, goal)
    if start == goal:
        return 0.0, start, 0
    expanded = 0
    while sizeF > 0 and sizeB > 0:
        bound = max(hfF[0], hfB[0])
        if best[0] <= bound + F_EPS:
            break
        if sizeF <= sizeB:
            sizeF = _expand(passable, cost, wp, uniform, offs, side_a, side_b, cur,
                            gF, parentF, stampF, posF, hfF, hhF, hnF, sizeF, goal,
                            gB, stampB, hmode, htable_f, best)
        else:
            sizeB = _expand(passable, cost, wp, uniform, offs, side_a, side_b, cur,
                            gB, parentB, stampB, posB, hfB, hhB, hnB, sizeB, start,
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
