"""Near pairs of a hierarchy query: start and goal in the same or neighbouring level-1 clusters.

HPA* routes every query between two clusters through their border transitions, so two cells a
step apart across a border on a map with terrain costs came back five times the shortest cost
(smoothing straightens that on uniform maps only). For such pairs the hierarchy also searches the
grid in a window around both clusters (their boxes widened by one cluster each side) and keeps
the cheaper of the two paths; the window holds at most 4 × 4 clusters, so this stays small.
"""

from __future__ import annotations

import numpy as np

from ..grid import Grid
from ..result import PathResult, PathStatus
from ..search.facade import find_path

__all__ = ["are_near", "window_search"]


def are_near(s: tuple[int, int], g: tuple[int, int], cluster: int) -> bool:
    """Whether cells ``s`` and ``g`` lie in the same or neighbouring clusters of edge ``cluster``."""
    return abs(s[0] // cluster - g[0] // cluster) <= 1 and abs(s[1] // cluster - g[1] // cluster) <= 1


def window_search(grid: Grid, s: tuple[int, int], g: tuple[int, int], cluster: int) -> PathResult:
    """The shortest path from ``s`` to ``g`` that stays inside the boxes of their clusters widened
    by one cluster (cells in full-map coordinates; ``found`` False when it must leave the window)."""
    x0 = max(0, (min(s[0], g[0]) // cluster - 1) * cluster)
    y0 = max(0, (min(s[1], g[1]) // cluster - 1) * cluster)
    x1 = min(grid.width, (max(s[0], g[0]) // cluster + 2) * cluster)
    y1 = min(grid.height, (max(s[1], g[1]) // cluster + 2) * cluster)
    rows, cols = slice(y0, y1), slice(x0, x1)
    passable = grid.passable[rows, cols]
    window = Grid(passable.copy(), None if grid.is_uniform else np.where(passable, grid.cost[rows, cols], 1.0))
    found = find_path(window, (s[0] - x0, s[1] - y0), (g[0] - x0, g[1] - y0))
    if not found.found:
        return found
    cells = (found.cells + np.array([x0, y0], dtype=found.cells.dtype)).astype(np.int32)
    return PathResult(PathStatus.FOUND, found.cost, cells, found.expanded)
