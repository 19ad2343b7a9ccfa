"""Goal Bounding's build, written once for grid cells and waypoint graphs: a Dijkstra from one
source that remembers, for every node, which first moves from the source begin a shortest path
to it (bits of a ``uint64``; ties keep every such move), and widens each first move's box by
every node it settles; ``csr_goal_boxes`` runs it from many sources of a CSR graph."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .heap import CLOSED, NOT_IN_HEAP, heap_pop, heap_push, heap_sift_up

__all__ = ["first_moves_begin", "relax_first_moves", "widen_boxes", "csr_goal_boxes", "MOVES_A_PASS"]

#: First moves one Dijkstra tells apart (bits of a ``uint64``); a node with more edges takes
#: one pass per 64 of them.
MOVES_A_PASS = 64


@njit(cache=True, inline="always")
def first_moves_begin(n, src):
    """Arrays for a search over ``n`` nodes from ``src``, the source queued:
    ``(g, first, stamp, pos, keys, nodes, heap size)``."""
    g = np.empty(n)
    first = np.zeros(n, dtype=np.uint64)
    stamp = np.zeros(n, dtype=np.bool_)
    pos = np.empty(n, dtype=np.int32)
    keys = np.empty(n)
    nodes = np.empty(n, dtype=np.int32)
    stamp[src] = True
    g[src] = 0.0
    pos[src] = NOT_IN_HEAP
    size = heap_push(keys, nodes, pos, 0, 0.0, src)
    return g, first, stamp, pos, keys, nodes, size


@njit(cache=True, inline="always")
def relax_first_moves(v, ng, label, tie, g, first, stamp, pos, keys, nodes, size):
    """Reach node ``v`` at cost ``ng`` by a path whose first moves are ``label``; costs within
    ``tie`` count as equal (the node keeps both labels). Returns the heap size."""
    if not stamp[v]:
        stamp[v] = True
        g[v] = ng
        first[v] = label
        pos[v] = NOT_IN_HEAP
        return heap_push(keys, nodes, pos, size, ng, v)
    if ng < g[v] - tie:
        if pos[v] != CLOSED:
            g[v] = ng
            first[v] = label
            keys[pos[v]] = ng
            heap_sift_up(keys, nodes, pos, pos[v])
    elif ng <= g[v] + tie and pos[v] != CLOSED:
        first[v] |= label                            # a tie: another first move is as good
    return size


@njit(cache=True, inline="always")
def widen_boxes(bits, count, x, y, lo_x, lo_y, hi_x, hi_y):
    """Add point ``(x, y)`` to the box of each of the ``count`` first moves set in ``bits``."""
    for j in range(count):
        if (bits >> np.uint64(j)) & np.uint64(1):
            lo_x[j] = min(lo_x[j], x)
            lo_y[j] = min(lo_y[j], y)
            hi_x[j] = max(hi_x[j], x)
            hi_y[j] = max(hi_y[j], y)


@njit(cache=True, parallel=True)
def csr_goal_boxes(adj_start, adj_target, adj_cost, node_x, node_y, sources, boxes):
    """Goal Bounding's boxes of every edge leaving the ``sources`` of a CSR graph: per edge
    ``(min x, min y, max x, max y)`` of the nodes whose shortest path from the edge's source
    starts with it (ties count for every first edge among them; empty: min > max). A source of
    more than ``MOVES_A_PASS`` edges runs one Dijkstra per 64 of them (the others' first moves
    are 0 there: a node they reach best widens nothing)."""
    for k in prange(sources.shape[0]):
        src = sources[k]
        e0 = adj_start[src]
        degree = adj_start[src + 1] - e0
        for base in range(0, degree, MOVES_A_PASS):
            count = min(MOVES_A_PASS, degree - base)
            _boxes_of_edges(adj_start, adj_target, adj_cost, node_x, node_y, src, e0 + base, count, boxes)


@njit(cache=True)
def _boxes_of_edges(adj_start, adj_target, adj_cost, node_x, node_y, src, first_edge, count, boxes):
    """One Dijkstra from ``src`` filling the boxes of its edges ``first_edge .. + count``."""
    g, first, stamp, pos, keys, nodes, size = first_moves_begin(node_x.size, src)
    lo_x = np.full(count, np.inf)
    lo_y = np.full(count, np.inf)
    hi_x = np.full(count, -np.inf)
    hi_y = np.full(count, -np.inf)
    while size > 0:
        u, size = heap_pop(keys, nodes, pos, size)
        pos[u] = CLOSED
        fu = first[u]
        if u != src:
            widen_boxes(fu, count, node_x[u], node_y[u], lo_x, lo_y, hi_x, hi_y)
        gu = g[u]
        for e in range(adj_start[u], adj_start[u + 1]):
            ng = gu + adj_cost[e]
            label = fu
            if u == src:                           # bit j: the source's edge first_edge + j
                j = e - first_edge
                label = np.uint64(1) << np.uint64(j) if 0 <= j < count else np.uint64(0)
            size = relax_first_moves(adj_target[e], ng, label, 1e-9 * max(1.0, ng), g, first, stamp, pos,
                                     keys, nodes, size)
    for j in range(count):
        boxes[first_edge + j, 0] = lo_x[j]
        boxes[first_edge + j, 1] = lo_y[j]
        boxes[first_edge + j, 2] = hi_x[j]
        boxes[first_edge + j, 3] = hi_y[j]
