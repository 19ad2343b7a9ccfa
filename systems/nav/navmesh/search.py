"""A* over portal crossing points (numba): ``NavMesh.find_path`` on meshes with area costs
(near-optimal; uniform-cost meshes get the exact visibility-graph query instead).

States are candidate points on portals (CSR: ``cand_start[e]..cand_start[e+1]`` belong to portal
``e``, which leads into polygon ``edge_dst[e]``). From a point inside polygon ``v`` the search may
go straight (polygons are convex) to any candidate of any portal of ``v``, at ``length ×
area_cost[v]``; the goal is reached from any point in the goal polygon.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..search.chain import parent_chain
from ..search.heap import CLOSED, NOT_IN_HEAP, heap_pop, heap_push, heap_sift_up


@njit(cache=True)
def candidate_astar(poly_start, edge_dst, cand_start, cand_x, cand_y, cand_edge, area_cost,
                    ps, pg, sx, sy, gx, gy):
    """Returns ``(cost, chain)``: the candidate ids crossed, in order (empty if unreachable)."""
    n = cand_x.size
    goal = n
    g = np.full(n + 1, np.inf)
    parent = np.full(n + 1, -1, dtype=np.int64)
    pos = np.full(n + 1, NOT_IN_HEAP, dtype=np.int32)
    keys = np.empty(n + 1)
    nodes = np.empty(n + 1, dtype=np.int32)
    size = 0
    cu = area_cost[ps]
    for e in range(poly_start[ps], poly_start[ps + 1]):
        for c in range(cand_start[e], cand_start[e + 1]):
            ng = math.hypot(cand_x[c] - sx, cand_y[c] - sy) * cu
            if ng < g[c]:
                g[c] = ng
                h = math.hypot(cand_x[c] - gx, cand_y[c] - gy)
                if pos[c] >= 0:
                    keys[pos[c]] = ng + h
                    heap_sift_up(keys, nodes, pos, pos[c])
                else:
                    size = heap_push(keys, nodes, pos, size, ng + h, c)
    while size > 0:
        u, size = heap_pop(keys, nodes, pos, size)
        pos[u] = CLOSED
        if u == goal:
            break
        v = edge_dst[cand_edge[u]]
        gu = g[u]
        ux = cand_x[u]
        uy = cand_y[u]
        cv = area_cost[v]
        if v == pg:
            ng = gu + math.hypot(gx - ux, gy - uy) * cv
            if ng < g[goal]:
                g[goal] = ng
                parent[goal] = u
                if pos[goal] >= 0:
                    keys[pos[goal]] = ng
                    heap_sift_up(keys, nodes, pos, pos[goal])
                else:
                    size = heap_push(keys, nodes, pos, size, ng, goal)
        for e in range(poly_start[v], poly_start[v + 1]):
            for c in range(cand_start[e], cand_start[e + 1]):
                if pos[c] == CLOSED:
                    continue
                ng = gu + math.hypot(cand_x[c] - ux, cand_y[c] - uy) * cv
                if ng < g[c]:
                    g[c] = ng
                    parent[c] = u
                    h = math.hypot(cand_x[c] - gx, cand_y[c] - gy)
                    if pos[c] >= 0:
                        keys[pos[c]] = ng + h
                        heap_sift_up(keys, nodes, pos, pos[c])
                    else:
                        size = heap_push(keys, nodes, pos, size, ng + h, c)
    if pos[goal] != CLOSED:
        return np.inf, np.zeros(0, dtype=np.int64)
    return g[goal], parent_chain(parent, parent[goal])
