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
from ..search.heap import CLOSED, NOT_IN_HEAP, heap_pop, heap_update


@njit(cache=True)
def candidate_astar(poly_start, edge_dst, cand_start, cand_x, cand_y, cand_edge, area_cost,
                    ps, pg, sx, sy, gx, gy, link_from, link_ax, link_ay, link_to, link_bx, link_by, link_cost):
    """Returns ``(cost, chain)``: the states passed, in order (empty if unreachable). States
    ``0..n-1`` are candidates; ``n + m`` is "arrived at the far end of directed off-mesh link
    ``m``" (it starts at (link_ax, link_ay) in polygon ``link_from[m]``, ends at (link_bx,
    link_by) in ``link_to[m]`` and costs ``link_cost[m]``; M may be 0)."""
    n = cand_x.size
    m_links = link_from.size
    goal = n + m_links
    g = np.full(goal + 1, np.inf)
    parent = np.full(goal + 1, -1, dtype=np.int64)
    pos = np.full(goal + 1, NOT_IN_HEAP, dtype=np.int32)
    keys = np.empty(goal + 1)
    nodes = np.empty(goal + 1, dtype=np.int32)
    size = 0
    # the start is state -1: expand it like any state inside polygon ps
    u = -1
    gu = 0.0
    ux, uy, v = sx, sy, ps
    while True:
        cv = area_cost[v]
        if v == pg:
            ng = gu + math.hypot(gx - ux, gy - uy) * cv
            if ng < g[goal]:
                g[goal] = ng
                parent[goal] = u
                size = heap_update(keys, nodes, pos, size, goal, ng)
        for e in range(poly_start[v], poly_start[v + 1]):
            for c in range(cand_start[e], cand_start[e + 1]):
                if pos[c] == CLOSED:
                    continue
                ng = gu + math.hypot(cand_x[c] - ux, cand_y[c] - uy) * cv
                if ng < g[c]:
                    g[c] = ng
                    parent[c] = u
                    size = heap_update(keys, nodes, pos, size, c, ng + math.hypot(cand_x[c] - gx, cand_y[c] - gy))
        for m in range(m_links):
            if link_from[m] != v or pos[n + m] == CLOSED:
                continue
            ng = gu + math.hypot(link_ax[m] - ux, link_ay[m] - uy) * cv + link_cost[m]
            if ng < g[n + m]:
                g[n + m] = ng
                parent[n + m] = u
                size = heap_update(keys, nodes, pos, size, n + m, ng + math.hypot(link_bx[m] - gx, link_by[m] - gy))
        if size == 0:
            break
        u, size = heap_pop(keys, nodes, pos, size)
        pos[u] = CLOSED
        if u == goal:
            break
        gu = g[u]
        if u < n:
            ux, uy, v = cand_x[u], cand_y[u], edge_dst[cand_edge[u]]
        else:
            ux, uy, v = link_bx[u - n], link_by[u - n], link_to[u - n]
    if pos[goal] != CLOSED:
        return np.inf, np.zeros(0, dtype=np.int64)
    return g[goal], parent_chain(parent, parent[goal])
