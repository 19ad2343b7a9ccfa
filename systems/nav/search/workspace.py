"""Reusable per-grid search arrays, so a query never allocates or clears O(cells) memory.

A node's entries are valid only when ``stamp[node] == state[STAMP]``; starting a new search
bumps the stamp instead of clearing the arrays.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["SearchArrays", "STAMP", "HEAP_SIZE", "EXPANDED", "STATUS", "START", "GOAL", "WORK", "HEAP_SIZE_BACK", "MEET", "STATE_LEN", "IN_PROGRESS", "FOUND", "EXHAUSTED", "SearchWorkspace", "reached_near",
           "only_blocked", "still_walkable"]

# Slots of the int64 ``state`` vector a resumable search carries between calls (WORK: budget
# units spent, for searches whose expansions are not all alike; a bidirectional search also
# keeps its backward heap's size and the node where the two sides meet best).
STAMP, HEAP_SIZE, EXPANDED, STATUS, START, GOAL, WORK, HEAP_SIZE_BACK, MEET = range(9)
STATE_LEN = 9
#: The last stamp before the stamps wrap round (int32).
_LAST_STAMP = int(np.iinfo(np.int32).max) - 1
# Values of state[STATUS].
IN_PROGRESS, FOUND, EXHAUSTED = 0, 1, 2


class SearchArrays(NamedTuple):
    """One search direction's arrays as the kernels take them: one typed argument instead of
    seven positional ones (numba reads a NamedTuple's fields at no cost)."""

    g: np.ndarray           # cost from the start (valid where ``stamp`` is current)
    parent: np.ndarray      # predecessor on the best path found
    stamp: np.ndarray       # the search each entry belongs to
    pos: np.ndarray         # heap position, or NOT_IN_HEAP / CLOSED
    heap_key: np.ndarray    # the open list: keys and nodes of a binary heap
    heap_node: np.ndarray
    state: np.ndarray       # int64 slots: STAMP, HEAP_SIZE, EXPANDED, STATUS, START, GOAL, WORK


class SearchWorkspace:
    """Arrays for one search direction over a padded grid of ``n`` flat cells (a bidirectional
    search: ``n`` = twice the cells, see ``for_grid``).

    Memory: 28 bytes per cell (``g`` and heap ``key`` f8; ``parent``, ``stamp``, ``pos`` and heap
    ``node`` i4) — 17 MB for a 768×768 map. One workspace serves any number of successive
    queries; concurrent (time-sliced) queries each need their own.
    """

    __slots__ = ("g", "parent", "stamp", "pos", "heap_key", "heap_node", "state", "arrays", "directions")

    def __init__(self, n: int, directions: int = 1) -> None:
        #: 1, or 2 for a bidirectional search's workspace
        self.directions = directions
        self.g = np.empty(n, dtype=np.float64)
        self.parent = np.empty(n, dtype=np.int32)
        self.stamp = np.zeros(n, dtype=np.int32)
        self.pos = np.empty(n, dtype=np.int32)
        self.heap_key = np.empty(n, dtype=np.float64)
        self.heap_node = np.empty(n, dtype=np.int32)
        self.state = np.zeros(STATE_LEN, dtype=np.int64)
        self.arrays = SearchArrays(self.g, self.parent, self.stamp, self.pos, self.heap_key, self.heap_node,
                                   self.state)

    def touch(self) -> None:
        """Write every array once, so the memory is mapped now rather than page by page in a
        search (the labels are valid only under the current stamp: their values do not matter)."""
        for array in (self.g, self.parent, self.stamp, self.pos, self.heap_key, self.heap_node):
            array.fill(0)
        self.state[STAMP] = 0                            # every entry stale: the next stamp is 1

    def next_stamp(self) -> None:
        """Invalidate every node entry in O(1) (O(n) once every 2³¹ searches)."""
        if self.state[STAMP] >= _LAST_STAMP:
            self.stamp[:] = 0
            self.state[STAMP] = 0
        self.state[STAMP] += 1

    @staticmethod
    def for_grid(grid, directions: int = 1) -> "SearchWorkspace":
        """A workspace sized for ``grid``'s padded layout; ``directions=2``: both sides of a
        bidirectional search, each cell's two labels side by side."""
        return SearchWorkspace(directions * (grid.height + 2) * (grid.width + 2), directions)


def reached_near(ws: SearchWorkspace, wp: int, cells: np.ndarray) -> bool:
    """Whether the search in ``ws`` (one direction, padded row width ``wp``) has reached any of
    ``cells`` (``(N, 2)`` x, y) or a cell next to one.

    When it has not, an edit of those cells leaves what the search knows exact on the edited
    map: a cell it never reached it never stepped on, nor cut past (a diagonal past a corner
    starts from a cell next to it, which reaching would have reached the corner), and a cell
    opened where nothing next to it was expanded offers no shorter way to a settled cell (with a
    consistent heuristic every other way runs through the open list's frontier)."""
    cells = np.asarray(cells, dtype=np.int64).reshape(-1, 2)
    if len(cells) == 0:
        return False
    around = np.array([-wp - 1, -wp, -wp + 1, -1, 0, 1, wp - 1, wp, wp + 1], dtype=np.int64)
    flat = ((cells[:, 1] + 1) * wp + cells[:, 0] + 1)[:, None] + around[None, :]
    return bool((ws.stamp[flat.ravel()] == ws.state[STAMP]).any())


def only_blocked(passable: np.ndarray, cells: np.ndarray) -> bool:
    """Whether every one of the edited ``cells`` (``(N, 2)`` x, y) is blocked now.

    Then the map only lost cells since the search began, and an exact search (A*, Dijkstra, a
    consistent heuristic) may go on through the edit even where it had reached: each label is at
    most the cell's true cost on the edited map (every path still open now was open all along,
    and was relaxed along as it always would be), so a path it ends with that is still walkable
    (``still_walkable``) is exactly as cheap as the best on the edited map; one that is not is
    searched again. With a building going up every few ticks, searches that started over at each
    edit they had reached never finished on a big map."""
    cells = np.asarray(cells, dtype=np.int64).reshape(-1, 2)
    return not passable[cells[:, 1], cells[:, 0]].any()


def still_walkable(passable: np.ndarray, cells: np.ndarray) -> bool:
    """Whether the path ``cells`` (``(N, 2)`` x, y, consecutive cells 8-neighbours) is legal on
    the map now: every cell open, and no diagonal step cutting a blocked corner."""
    cells = np.asarray(cells, dtype=np.int64).reshape(-1, 2)
    if not passable[cells[:, 1], cells[:, 0]].all():
        return False
    step = np.diff(cells, axis=0)
    diagonal = (step[:, 0] != 0) & (step[:, 1] != 0)
    at, d = cells[:-1][diagonal], step[diagonal]
    return bool(passable[at[:, 1], at[:, 0] + d[:, 0]].all() and passable[at[:, 1] + d[:, 1], at[:, 0]].all())
