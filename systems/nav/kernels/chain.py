"""Turning a search's parent links into a path."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["parent_chain"]


@njit(cache=True)
def parent_chain(parent, end):
    """Node ids from the root (the node whose parent is -1) to ``end``, following ``parent``."""
    count = 0
    u = end
    while u >= 0:
        count += 1
        u = parent[u]
    out = np.empty(count, dtype=np.int64)
    u = end
    i = count - 1
    while u >= 0:
        out[i] = u
        i -= 1
        u = parent[u]
    return out
