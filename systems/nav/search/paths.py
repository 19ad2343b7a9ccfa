"""Measuring and checking paths (``(N, 2)`` arrays of ``(x, y)`` cells)."""

from __future__ import annotations

import math

import numpy as np

from rtsnav import checks

from ..errors import NavError
from ..grid import Grid, require_grid
from ..grid_points import integer_cell, integer_cells

__all__ = ["path_length", "path_cost", "validate_path", "smooth_path"]


def path_length(cells: np.ndarray) -> float:
    """Euclidean length of the polyline through the cell centres, in cells (any ``(N, 2|3)``
    finite points: the polyline's length in their units)."""
    if isinstance(cells, np.ndarray) and cells.size == 0 or isinstance(cells, (list, tuple)) and len(cells) == 0:
        return 0.0
    c = checks.points(cells, "cells", error=NavError)
    if len(c) < 2:
        return 0.0
    return float(np.sqrt((np.diff(c, axis=0) ** 2).sum(axis=1)).sum())


def path_cost(grid: Grid, cells: np.ndarray) -> float:
    """Cost of a grid path of single steps: Σ length × mean terrain cost of the two cells;
    ``inf`` when it enters a blocked cell. ``NavError`` for cells off the grid or not whole
    numbers, and for a step that is not to one of the 8 neighbours."""
    c = checks.cells(cells, "cells", require_grid(grid, "path_cost").width, grid.height, error=NavError)
    if len(c) < 2:
        return 0.0
    d = np.diff(c, axis=0)
    single = np.abs(d).max(axis=1) <= 1
    if not single.all():
        i = int(np.argmin(single))
        raise NavError(f"path_cost takes single steps: step {i} {_cell(c[i])} -> {_cell(c[i + 1])} is not to a neighbour")
    if not grid.passable[c[:, 1], c[:, 0]].all():
        return math.inf
    length = np.where((d[:, 0] != 0) & (d[:, 1] != 0), math.sqrt(2.0), 1.0)
    costs = grid.cost[c[:, 1], c[:, 0]].astype(np.float64)
    return float((length * 0.5 * (costs[:-1] + costs[1:])).sum())


def _cell(c: np.ndarray) -> tuple[int, int]:
    return int(c[0]), int(c[1])


def validate_path(grid: Grid, cells: np.ndarray, start=None, goal=None) -> None:
    """Raise ``NavError`` describing the first illegal step of a grid path, if any.

    Legal: every cell on the grid and passable, each step to one of the 8 neighbours, diagonal
    steps only when both orthogonal neighbours are passable; endpoints equal start / goal if given.
    """
    grid = require_grid(grid, "validate_path")
    c = integer_cells(cells, "path")
    if len(c) == 0:
        raise NavError("path must be a non-empty (N, 2) array of cells, got none")
    if start is not None and _cell(c[0]) != integer_cell(start, "start"):
        raise NavError(f"path starts at {_cell(c[0])}, expected {integer_cell(start, 'start')}")
    if goal is not None and _cell(c[-1]) != integer_cell(goal, "goal"):
        raise NavError(f"path ends at {_cell(c[-1])}, expected {integer_cell(goal, 'goal')}")
    inb = (c[:, 0] >= 0) & (c[:, 0] < grid.width) & (c[:, 1] >= 0) & (c[:, 1] < grid.height)
    if not inb.all():
        i = int(np.argmin(inb))
        raise NavError(f"path cell {i} {_cell(c[i])} is off the grid")
    ok = grid.passable[c[:, 1], c[:, 0]]
    if not ok.all():
        i = int(np.argmin(ok))
        raise NavError(f"path cell {i} {_cell(c[i])} is blocked")
    d = np.diff(c, axis=0)
    adjacent = (np.abs(d).max(axis=1) == 1)
    if not adjacent.all():
        i = int(np.argmin(adjacent))
        raise NavError(f"step {i} {_cell(c[i])} -> {_cell(c[i + 1])} is not to a neighbour")
    diag = (d[:, 0] != 0) & (d[:, 1] != 0)
    side_x = grid.passable[c[:-1, 1], c[:-1, 0] + np.where(diag, d[:, 0], 0)]
    side_y = grid.passable[c[:-1, 1] + np.where(diag, d[:, 1], 0), c[:-1, 0]]
    cut = diag & ~(side_x & side_y)
    if cut.any():
        i = int(np.argmax(cut))
        raise NavError(f"step {i} {_cell(c[i])} -> {_cell(c[i + 1])} cuts a blocked corner")



def smooth_path(grid: Grid, cells: np.ndarray, mode: str = "precise") -> np.ndarray:
    """Drop path cells while line of sight holds; returns ``(M, 2) int32`` cells, M ≤ N.

    ``mode="fast"`` is the O(n) one-sweep pass, ``"precise"`` jumps to the farthest visible
    cell (O(n²) tests). The result keeps the first and last cell, never crosses a blocked cell
    or cuts a corner, and is never longer (nor, with terrain, costlier) than the input.

    >>> import numpy as np
    >>> from rtsnav.systems.nav import Grid, find_path, smooth_path
    >>> g = Grid(np.ones((5, 8), dtype=bool))
    >>> smooth_path(g, find_path(g, (0, 0), (7, 2)).cells).tolist()
    [[0, 0], [7, 2]]
    """
    from .smoothing import smooth_fast, smooth_precise

    c = _checked_cells(grid, cells, mode)
    (passable, cost), wp = grid.padded()
    kernel = smooth_fast if mode == "fast" else smooth_precise
    return kernel(passable, cost, wp, c)


def _checked_cells(grid: Grid, cells: np.ndarray, mode: str) -> np.ndarray:
    grid = require_grid(grid, "smooth_path")
    checks.choice(mode, "smoothing mode", ("fast", "precise"), error=NavError)
    c = checks.cells(cells, "cells", grid.width, grid.height, error=NavError).astype(np.int32)
    blocked = ~grid.passable[c[:, 1], c[:, 0]]
    if blocked.any():
        i = int(np.argmax(blocked))
        raise NavError(f"cells: path cell {i} {_cell(c[i])} is blocked; smooth_path takes a walkable path")
    return np.ascontiguousarray(c)


class PathSmoother:
    """``smooth_path`` in slices (a planner's smoothing spread over ticks): ``step(budget)``
    examines about ``budget`` cells of sight lines; ``result()`` is exactly ``smooth_path``'s
    answer. The fast mode (one O(n) sweep) finishes in the first step."""

    def __init__(self, grid: Grid, cells: np.ndarray, mode: str = "precise", shared: np.ndarray | None = None) -> None:
        from .smoothing import smooth_fast, smooth_precise_begin

        #: a goal tree's table of next kept cells (``smooth_precise_slice``'s ``shared``) for a
        #: path read from that tree; set to None to stop using it (the tree went stale)
        self.shared = shared
        self._cells = _checked_cells(grid, cells, mode)
        (self._passable, self._cost), self._wp = grid.padded()
        self._result: np.ndarray | None = None
        self._state = np.zeros(2, dtype=np.int64)
        if mode == "fast" or len(self._cells) <= 2:
            self._result = (smooth_fast(self._passable, self._cost, self._wp, self._cells)
                            if len(self._cells) > 2 else self._cells.copy())
        else:
            self._keep, self._prefix, self._state = smooth_precise_begin(len(self._cells))

    @property
    def done(self) -> bool:
        return self._result is not None

    @property
    def examined(self) -> int:
        """Cells examined so far (the unit of ``step``'s budget)."""
        return int(self._state[1])

    def step(self, budget: int) -> bool:
        """Examine about ``budget`` more cells; True when done."""
        from .smoothing import NOT_SHARED, smooth_precise_slice

        if self._result is None and smooth_precise_slice(self._passable, self._cost, self._wp, self._cells,
                                                         self._keep, self._prefix, self._state, max(1, budget),
                                                         NOT_SHARED if self.shared is None else self.shared):
            self._result = self._cells[self._keep].copy()
        return self._result is not None

    def result(self) -> np.ndarray:
        """The smoothed cells (``step`` until done first)."""
        if self._result is None:
            raise NavError("the smoothing is still running: step() it until it returns True")
        return self._result
