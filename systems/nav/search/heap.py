"""Binary min-heap over flat arrays, for numba kernels.

Entries are ``(f, h, node)``; ordering is by ``f`` and, among equal ``f`` (within ``F_EPS``), by
smaller ``h`` — the node nearer the goal first, which cuts A* expansions on open octile grids.
``pos[node]`` holds the node's heap slot (or -1 / CLOSED), giving O(log n) decrease-key.
"""

from __future__ import annotations

from numba import njit

F_EPS = 1e-9     # f values built from sums of 1 and √2 differ by rounding noise; treat as ties
NOT_IN_HEAP = -1
CLOSED = -2


@njit(cache=True, inline="always")
def _before(fa, ha, fb, hb):
    if fa < fb - F_EPS:
        return True
    if fa > fb + F_EPS:
        return False
    return ha < hb


@njit(cache=True)
def heap_sift_up(hf, hh, hn, pos, i):
    f = hf[i]
    h = hh[i]
    n = hn[i]
    while i > 0:
        parent = (i - 1) >> 1
        if not _before(f, h, hf[parent], hh[parent]):
            break
        hf[i] = hf[parent]
        hh[i] = hh[parent]
        hn[i] = hn[parent]
        pos[hn[i]] = i
        i = parent
    hf[i] = f
    hh[i] = h
    hn[i] = n
    pos[n] = i


@njit(cache=True)
def heap_push(hf, hh, hn, pos, size, f, h, node):
    """Append ``(f, h, node)``; returns the new size."""
    hf[size] = f
    hh[size] = h
    hn[size] = node
    pos[node] = size
    heap_sift_up(hf, hh, hn, pos, size)
    return size + 1


@njit(cache=True)
def heap_pop(hf, hh, hn, pos, size):
    """Remove the minimum; returns ``(node, new_size)``. The caller marks ``pos[node]``."""
    top = hn[0]
    size -= 1
    if size > 0:
        f = hf[size]
        h = hh[size]
        n = hn[size]
        i = 0
        while True:
            child = 2 * i + 1
            if child >= size:
                break
            right = child + 1
            if right < size and _before(hf[right], hh[right], hf[child], hh[child]):
                child = right
            if not _before(hf[child], hh[child], f, h):
                break
            hf[i] = hf[child]
            hh[i] = hh[child]
            hn[i] = hn[child]
            pos[hn[i]] = i
            i = child
        hf[i] = f
        hh[i] = h
        hn[i] = n
        pos[n] = i
    return top, size
