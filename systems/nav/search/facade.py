"""``find_path``: one call for every grid search method.

>>> import numpy as np
>>> from systems.nav import find_path
>>> walls = np.array([[0, 0, 0, 0],
...                   [1, 1, 1, 0],
...                   [0, 0, 0, 0]], dtype=bool)
>>> r = find_path(~walls, (0, 0), (0, 2))
>>> r.found, r.cost, len(r.cells)     # no corner cutting: (2, 0) -> (3, 1) is not allowed
(True, 8.0, 9)
>>> find_path(~walls, (0, 0), (1, 1)).reason
'goal (1, 1) is a blocked cell'
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..errors import NavError
from ..grid import Grid
from ..heuristics import ZERO, Heuristic, heuristic_array, heuristic_mode
from ..result import PathResult, PathStatus
from .astar import astar_begin, astar_run, trace_path
from .bidirectional import bidirectional_search, join_paths
from .workspace import EXPANDED, FOUND, STAMP, SearchWorkspace

__all__ = ["find_path", "METHODS"]

#: Methods ``find_path`` accepts.
METHODS = ("dijkstra", "astar", "weighted", "bidirectional")
_PLANNED = ("jps", "jps+", "bstar", "dstar-lite")

_UNLIMITED = np.int64(2**62)


def as_grid(grid: Grid | np.ndarray) -> Grid:
    """Accept a ``Grid`` or a plain ``[H, W]`` passable array."""
    if isinstance(grid, Grid):
        return grid
    if isinstance(grid, np.ndarray):
        return Grid(grid)
    raise NavError(f"expected a Grid or a 2D numpy array, got {type(grid).__name__}")


def find_path(grid: Grid | np.ndarray, start: Sequence[int], goal: Sequence[int],
              method: str = "astar", *, heuristic: Heuristic = "octile",
              weight: float = 1.5) -> PathResult:
    """Find a path between two cells of an 8-connected grid (no corner cutting).

    Args:
        grid: a ``Grid`` (or a ``[H, W]`` bool array of passable cells).
        start, goal: ``(x, y)`` cells.
        method: ``"dijkstra"``, ``"astar"`` (optimal with an admissible heuristic),
            ``"weighted"`` (f = g + weight·h; cost ≤ weight × optimal) or ``"bidirectional"``
            (bidirectional A*, optimal).
        heuristic: ``"octile"`` (default), ``"euclidean"``, ``"manhattan"`` (not admissible),
            ``"zero"``, or ``f(xs, ys, gx, gy) -> array`` evaluated on all cells once.
        weight: the weight for ``"weighted"``, ≥ 1.

    Returns:
        A ``PathResult``: ``found``, ``cost`` (cells × terrain cost), ``cells`` (``(N, 2) int32``,
        start..goal), ``expanded``, ``status`` and ``reason``. An unreachable goal or a blocked
        start/goal gives ``found = False`` with a reason; it is not an exception.

    Raises:
        NavError: unknown method or heuristic, malformed or out-of-bounds cells, bad weight.
    """
    grid = as_grid(grid)
    if method not in METHODS:
        hint = " (planned, not available yet)" if method in _PLANNED else ""
        raise NavError(f"unknown method {method!r}{hint}; expected one of {', '.join(METHODS)}")
    sx, sy = grid.check_cell(start, "start")
    gx, gy = grid.check_cell(goal, "goal")
    hmode = ZERO if method == "dijkstra" else heuristic_mode(heuristic)
    hweight = 1.0
    if method == "weighted":
        hweight = float(weight)
        if not (hweight >= 1.0 and math.isfinite(hweight)):
            raise NavError(f"weight must be a finite number >= 1, got {weight!r}")

    if not grid.passable[sy, sx]:
        return PathResult.unreachable(f"start {(sx, sy)} is a blocked cell")
    if not grid.passable[gy, gx]:
        return PathResult.unreachable(f"goal {(gx, gy)} is a blocked cell")
    if (sx, sy) == (gx, gy):
        return PathResult(PathStatus.FOUND, 0.0, np.array([[sx, sy]], dtype=np.int32), 0)
    if not grid.connected((sx, sy), (gx, gy)):
        return PathResult.unreachable(
            f"goal {(gx, gy)} is not reachable from start {(sx, sy)} (different connected regions)")

    (_, cost), wp = grid.padded()
    moves = grid.move_masks()
    uniform = grid.is_uniform
    s = (sy + 1) * wp + sx + 1
    t = (gy + 1) * wp + gx + 1
    user_h = heuristic if (hmode != ZERO and callable(heuristic)) else "zero"

    if method == "bidirectional":
        fwd, bwd = grid.workspace("bidirectional", _workspace_pair)
        fwd.next_stamp()
        bwd.state[STAMP] = fwd.state[STAMP]
        if fwd.state[STAMP] == 1:      # stamps were reset: clear the partner too
            bwd.stamp[:] = 0
        cur = np.int32(fwd.state[STAMP])
        table_f = heuristic_array(user_h, grid.width, grid.height, (gx, gy))
        table_b = heuristic_array(user_h, grid.width, grid.height, (sx, sy))
        total, meet, expanded = bidirectional_search(
            moves, cost, wp, uniform, s, t, cur, hmode, table_f, table_b,
            fwd.g, fwd.parent, fwd.stamp, fwd.pos, fwd.heap_key, fwd.heap_node,
            bwd.g, bwd.parent, bwd.stamp, bwd.pos, bwd.heap_key, bwd.heap_node)
        if not math.isfinite(total):
            return PathResult.unreachable(f"goal {(gx, gy)} is not reachable from start {(sx, sy)}",
                                          expanded)
        cells = join_paths(fwd.parent, bwd.parent, meet, wp)
        return PathResult(PathStatus.FOUND, float(total), cells, int(expanded))

    ws = grid.workspace("search", SearchWorkspace.for_grid)
    ws.next_stamp()
    table = heuristic_array(user_h, grid.width, grid.height, (gx, gy))
    astar_begin(ws.g, ws.parent, ws.stamp, ws.pos, ws.heap_key, ws.heap_node, ws.state,
                s, t, wp, hmode, hweight, table)
    status = astar_run(moves, cost, wp, uniform, ws.g, ws.parent, ws.stamp, ws.pos,
                       ws.heap_key, ws.heap_node, ws.state, hmode, hweight, table,
                       _UNLIMITED)
    expanded = int(ws.state[EXPANDED])
    if status != FOUND:
        return PathResult.unreachable(f"goal {(gx, gy)} is not reachable from start {(sx, sy)}",
                                      expanded)
    return PathResult(PathStatus.FOUND, float(ws.g[t]), trace_path(ws.parent, t, wp), expanded)


def _workspace_pair(grid: Grid) -> tuple[SearchWorkspace, SearchWorkspace]:
    return SearchWorkspace.for_grid(grid), SearchWorkspace.for_grid(grid)
