"""Which walking rows form which group, computed once and kept while the rows and keys hold.

A group is a distinct key (group id, goal x, goal y, planner). Sorting 50,000 rows' keys costs
about a millisecond a tick; between orders and arrivals the rows and their keys rarely change,
so the index is kept and checked (two array comparisons) instead of rebuilt.
"""

from __future__ import annotations

import numpy as np

__all__ = ["GroupIndex", "pack_keys"]


def pack_keys(keys: np.ndarray, grid) -> np.ndarray:
    """One int64 per (group id, goal x, goal y, planner) key."""
    return ((keys[:, 0] * (grid.width + 1) + keys[:, 1]) * (grid.height + 1) + keys[:, 2]) * 16 + keys[:, 3]


class GroupIndex:
    """The unique groups of a tick's walking rows (``of``), reused while rows and keys repeat."""

    def __init__(self) -> None:
        self._rows = np.zeros(0, dtype=np.int64)
        self._keys = np.zeros((0, 4), dtype=np.int64)
        self._index: tuple[np.ndarray, ...] = ()

    def of(self, rows: np.ndarray, keys: np.ndarray, grid) -> tuple[np.ndarray, ...]:
        """``(first, inverse, order_rows, bounds)`` for ``rows`` with group ``keys`` (``(n, 4)``):
        the first row of each group, each row's group index, the rows sorted by group (stable)
        and each group's slice of that order (``bounds[g]:bounds[g + 1]``)."""
        if self._index and np.array_equal(rows, self._rows) and np.array_equal(keys, self._keys):
            return self._index
        _, group_rank = np.unique(keys[:, 0], return_inverse=True)
        ranked = keys.copy()
        ranked[:, 0] = group_rank.reshape(-1)          # group ids of any size pack without overflow
        uniq, first, inverse = np.unique(pack_keys(ranked, grid), return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        order_rows = np.argsort(inverse, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(inverse, minlength=len(uniq)))])
        self._rows, self._keys = rows.copy(), keys.copy()
        for part in (first, inverse, order_rows, bounds):
            part.setflags(write=False)                 # shared by the ticks that reuse it
        self._index = (first, inverse, order_rows, bounds)
        return self._index
