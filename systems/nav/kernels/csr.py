"""Dijkstra over a graph in CSR form (``adj_start``, ``adj_target``, ``adj_cost``): the shared
kernel of waypoint graphs, sector tiles and navmesh landmarks."""

from __future__ import annotations

import numpy as np
from numba import njit

from .heap import CLOSED, NOT_IN_HEAP, heap_pop, heap_update

__all__ = ["csr_dijkstra"]


@njit(cache=True)
def csr_dijkstra(adj_start, adj_target, adj_cost, sources, source_costs):
    """Plain Dijkstra over a CSR graph from several sources with starting costs:
    ``(dist, parent)`` for every node (inf / -1 where unreachable)."""
    n = adj_start.size - 1
    dist = np.full(n, np.inf)
    parent = np.full(n, -1, dtype=np.int64)
    pos = np.full(n, NOT_IN_HEAP, dtype=np.int32)
    keys = np.empty(n)
    nodes = np.empty(n, dtype=np.int32)
    size = 0
    for i in range(sources.size):
        s = sources[i]
        if source_costs[i] < dist[s]:
            dist[s] = source_costs[i]
            size = heap_update(keys, nodes, pos, size, s, dist[s])
    while size > 0:
        u, size = heap_pop(keys, nodes, pos, size)
        pos[u] = CLOSED
        du = dist[u]
        for e in range(adj_start[u], adj_start[u + 1]):
            v = adj_target[e]
            if pos[v] == CLOSED:
                continue
            nd = du + adj_cost[e]
            if nd < dist[v]:
                dist[v] = nd
                parent[v] = u
                size = heap_update(keys, nodes, pos, size, v, nd)
    return dist, parent
