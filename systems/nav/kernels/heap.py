"""Binary min-heap over flat arrays, for numba kernels.

Entries are ``(key, node)``. Searches use ``key = f + TIE_BREAK·h``: among equal ``f`` the node
nearer the goal pops first, which cuts A* expansions on open octile grids. (It is A* with
heuristic ``(1 + 1e-9)·h``, so costs stay within a relative 1e-9 of the optimum.)
``pos[node]`` holds the node's heap slot (or NOT_IN_HEAP / CLOSED) for O(log n) decrease-key.
"""

from __future__ import annotations

from numba import njit

__all__ = ["TIE_BREAK", "NOT_IN_HEAP", "CLOSED", "heap_sift_up", "heap_push", "heap_update", "heap_pop"]

TIE_BREAK = 1e-9
NOT_IN_HEAP = -1
CLOSED = -2


@njit(cache=True)
def heap_sift_up(keys, nodes, pos, i):
    """Move entry ``i`` up to its place (after its key decreased)."""
    key = keys[i]
    node = nodes[i]
    while i > 0:
        parent = (i - 1) >> 1
        pk = keys[parent]
        if pk <= key:
            break
        keys[i] = pk
        n = nodes[parent]
        nodes[i] = n
        pos[n] = i
        i = parent
    keys[i] = key
    nodes[i] = node
    pos[node] = i


@njit(cache=True)
def heap_push(keys, nodes, pos, size, key, node):
    """Append ``(key, node)``; returns the new size."""
    keys[size] = key
    nodes[size] = node
    heap_sift_up(keys, nodes, pos, size)
    return size + 1


@njit(cache=True)
def heap_update(keys, nodes, pos, size, node, key):
    """Give ``node`` the key ``key``: lower it if the node is queued, else push it (the caller
    knows the key improved and that the node is not closed). Returns the new size."""
    i = pos[node]
    if i >= 0:
        keys[i] = key
        heap_sift_up(keys, nodes, pos, i)
        return size
    return heap_push(keys, nodes, pos, size, key, node)


@njit(cache=True)
def heap_pop(keys, nodes, pos, size):
    """Remove the minimum; returns ``(node, new_size)``. The caller marks ``pos[node]``."""
    top = nodes[0]
    size -= 1
    if size > 0:
        key = keys[size]
        node = nodes[size]
        i = 0
        while True:
            child = 2 * i + 1
            if child >= size:
                break
            ck = keys[child]
            right = child + 1
            if right < size and keys[right] < ck:
                child = right
                ck = keys[right]
            if ck >= key:
                break
            keys[i] = ck
            n = nodes[child]
            nodes[i] = n
            pos[n] = i
            i = child
        keys[i] = key
        nodes[i] = node
        pos[node] = i
    return top, size
