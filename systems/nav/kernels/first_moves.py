"""Goal Bounding's build, written once for grid cells and waypoint graphs: a Dijkstra from one
source that remembers, for every node, which first moves from the source begin a shortest path
to it (bits of a ``uint64``; ties keep every such move), and widens each first move's box by
every node it settles."""

from __future__ import annotations

import numpy as np
from numba import njit

from .heap import CLOSED, NOT_IN_HEAP, heap_push, heap_sift_up

__all__ = ["first_moves_begin", "relax_first_moves", "widen_boxes"]


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
