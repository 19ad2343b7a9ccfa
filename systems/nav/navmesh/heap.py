"""A min-heap of ``(key, id)`` pairs over flat arrays (numba), with lazy deletion: a search
pushes again when a key improves and skips stale entries when they pop."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["push", "pop", "grow"]


@njit(cache=True)
def push(keys, ids, size, key, node):
    """Add ``(key, node)``; returns the new size (the caller grows the arrays when full)."""
    i = size
    while i > 0:
        parent = (i - 1) >> 1
        if keys[parent] <= key:
            break
        keys[i] = keys[parent]
        ids[i] = ids[parent]
        i = parent
    keys[i] = key
    ids[i] = node
    return size + 1


@njit(cache=True)
def pop(keys, ids, size):
    """Remove the smallest entry: ``(id, key, new size)``."""
    top = ids[0]
    topk = keys[0]
    size -= 1
    if size > 0:
        key = keys[size]
        node = ids[size]
        i = 0
        while True:
            c = 2 * i + 1
            if c >= size:
                break
            if c + 1 < size and keys[c + 1] < keys[c]:
                c += 1
            if keys[c] >= key:
                break
            keys[i] = keys[c]
            ids[i] = ids[c]
            i = c
        keys[i] = key
        ids[i] = node
    return top, topk, size


@njit(cache=True)
def grow(keys, ids):
    """The arrays at twice the size."""
    k2 = np.empty(keys.size * 2)
    i2 = np.empty(ids.size * 2, dtype=np.int64)
    k2[:keys.size] = keys
    i2[:ids.size] = ids
    return k2, i2
