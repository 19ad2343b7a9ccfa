"""Path splicing (the path-planning survey in the seed texts): a unit walking a grid path checks
the next ``K`` steps every ``K`` steps; when an edit blocks them, only the blocked stretch is
re-planned — a short search from the last good cell before it to the first good cell after it —
and spliced in. A splice longer than ``M`` steps falls back to a full re-plan to the goal.

Splicing is cheap but not optimal: the survey's own example — a path 1→2→3→4 whose step 2→3 is
cut, spliced as 1→2→5→3→4 where a fresh search would go 1→5→4 — keeps the old route's shape.
``M`` bounds how bad that can get (a long detour means the old route is no longer the right one);
``K`` trades checking cost for how late a block is seen. ``tests/benchmarks/dynamic.py``
measures both.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import NavError
from ..grid import Grid
from .facade import find_path

__all__ = ["SpliceResult", "check_ahead", "splice_path"]


@dataclass(frozen=True, slots=True)
class SpliceResult:
    """``cells``: the path from ``at`` on (the old one when nothing was blocked); ``how``:
    ``"clear"``, ``"spliced"``, ``"replanned"`` or ``"unreachable"``; ``expanded``: nodes the
    searches expanded."""

    cells: np.ndarray
    how: str
    expanded: int = 0


def _legal_steps(grid: Grid, cells: np.ndarray) -> np.ndarray:
    """Per cell of ``cells``: open, and the step into it from the one before legal (no corner
    cutting); the first cell only needs to be open."""
    p = grid.passable
    ok = p[cells[:, 1], cells[:, 0]].copy()
    if len(cells) > 1:
        a, b = cells[:-1], cells[1:]
        diagonal = (a[:, 0] != b[:, 0]) & (a[:, 1] != b[:, 1])
        sides = p[a[:, 1], b[:, 0]] & p[b[:, 1], a[:, 0]]
        ok[1:] &= ~diagonal | sides
    return ok


def check_ahead(grid: Grid, cells: np.ndarray, at: int, k: int) -> int:
    """Index of the first blocked step among the ``k`` after ``at`` on ``cells``, or -1."""
    end = min(len(cells), at + k + 1)
    ok = _legal_steps(grid, cells[at:end])
    bad = np.flatnonzero(~ok)
    return -1 if len(bad) == 0 else at + int(bad[0])


def splice_path(grid: Grid, cells: np.ndarray, at: int, k: int = 8, m: int = 32,
                method: str = "astar") -> SpliceResult:
    """Check the ``k`` steps after index ``at`` of the path ``cells`` (``(N, 2)``); if one is
    blocked, splice a detour from ``cells[at]`` to the first good cell after the blocked stretch
    (at most ``m`` steps long), else re-plan from ``cells[at]`` to the goal.

    Raises ``NavError`` for cells that are not ``(N, 2)`` integers on the grid, an ``at`` outside
    ``0 .. N - 1``, or ``k`` / ``m`` below 1."""
    raw = np.asarray(cells)
    if raw.ndim != 2 or raw.shape[1] != 2 or len(raw) == 0 or not np.issubdtype(raw.dtype, np.integer):
        raise NavError(f"splice_path: cells must be a non-empty (N, 2) array of integer (x, y) cells, got shape "
                       f"{raw.shape} of {raw.dtype}")
    cells = raw.astype(np.int64)
    off = ~((cells[:, 0] >= 0) & (cells[:, 0] < grid.width) & (cells[:, 1] >= 0) & (cells[:, 1] < grid.height))
    if off.any():
        raise NavError(f"splice_path: cell {tuple(int(v) for v in cells[off][0])} is outside the "
                       f"{grid.width}x{grid.height} grid")
    for name, value, low in (("at", at, 0), ("k", k, 1), ("m", m, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise NavError(f"splice_path: {name} must be an integer >= {low}, got {value!r}")
    if at >= len(cells):
        raise NavError(f"splice_path: at must be an index of the path (0 .. {len(cells) - 1}), got {at}")
    blocked = check_ahead(grid, cells, at, k)
    if blocked < 0:
        return SpliceResult(cells[at:], "clear")
    ok = _legal_steps(grid, cells)
    # rejoin at the first open cell after the blocked stretch
    after = np.flatnonzero(grid.passable[cells[blocked:, 1], cells[blocked:, 0]] & ok[blocked:])
    expanded = 0
    if len(after):
        rejoin = blocked + int(after[0])
        detour = find_path(grid, tuple(cells[at]), tuple(cells[rejoin]), method)
        expanded += detour.expanded
        if detour.found and len(detour.cells) - 1 <= m:
            spliced = np.concatenate([detour.cells.astype(np.int64), cells[rejoin + 1:]])
            return SpliceResult(spliced, "spliced", expanded)
    full = find_path(grid, tuple(cells[at]), tuple(cells[-1]), method)
    expanded += full.expanded
    if not full.found:
        return SpliceResult(np.zeros((0, 2), dtype=np.int64), "unreachable", expanded)
    return SpliceResult(full.cells.astype(np.int64), "replanned", expanded)
