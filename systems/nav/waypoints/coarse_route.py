"""``CoarseRoute``: a hierarchy route whose grid legs are refined one at a time, just before the
walker needs them (what ``Hierarchy.plan`` returns and the crowd's hierarchy job steps through);
and the smoothing that turns a refined route into the answer (``finished_result``), shared by
``Hierarchy.find_path`` and that job."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import NavError
from ..grid import Grid
from ..result import PathResult, PathStatus
from ..search.facade import find_path
from ..search.paths import path_length, smooth_path
from ..search.smoothing import polyline_cost, smooth_fast_via

__all__ = ["CoarseRoute", "finished_result", "rough_smoothing", "smoothed_result"]


class CoarseRoute:
    """A route whose grid legs are refined just before they are needed.

    Attributes:
        waypoints: ``(K, 2)`` cells: start, the level-1 waypoints, goal.
    """

    def __init__(self, refine: Callable[[np.ndarray], tuple[np.ndarray | None, int]], grid: Grid, route) -> None:
        self._refine, self._grid = refine, grid     # a leg's grid cells (None: not found), and the grid
        self.start, self.goal, self._corridor, self.waypoints = route
        self._next = 0
        self._version = grid.version                # its waypoints are for the grid as it was then

    @property
    def legs_left(self) -> int:
        """Legs not refined yet."""
        return len(self.waypoints) - 1 - self._next

    def next_leg(self) -> np.ndarray:
        """Grid cells of the next leg (``(N, 2) int32``, its first cell the previous leg's last);
        a search inside the one or two clusters the leg spans. ``NavError`` once the grid has
        changed since the route was planned."""
        if self.legs_left <= 0:
            return np.zeros((0, 2), dtype=np.int32)
        if self._grid.version != self._version:     # legs through waypoints of the old map came back empty
            raise NavError("the grid changed since this route was planned: plan it again (after Hierarchy.update)")
        leg = self.waypoints[self._next:self._next + 2]
        self._next += 1
        cells, _ = self._refine(leg)
        if cells is None:                       # defensive: waypoints always connect in-cluster
            cells = find_path(self._grid, tuple(leg[0]), tuple(leg[1])).cells
        return cells

    def refine_all(self) -> np.ndarray:
        """Every remaining leg joined into one grid path."""
        legs: list[np.ndarray] = []
        while self.legs_left:
            leg = self.next_leg()
            legs.append(leg if not legs else leg[1:])
        return np.concatenate(legs) if legs else np.zeros((0, 2), dtype=np.int32)


# ============================================================================ helpers


def finished_result(grid: Grid, result: PathResult, smooth: bool, way_idx: np.ndarray | None = None) -> PathResult:
    """``result`` of a hierarchy query as it is answered: smoothed when ``smooth`` (a found path
    of more than two cells), else as it is."""
    if not result.found or not smooth or len(result.cells) <= 2:
        return result
    return smoothed_result(grid, smooth_path(grid, rough_smoothing(grid, result.cells, way_idx), "precise"),
                           result.expanded)


def rough_smoothing(grid: Grid, cells: np.ndarray, way_idx: np.ndarray | None = None) -> np.ndarray:
    """The fast pass before the precise one (on uniform grids testing sight against the leg
    ends, ``way_idx``, before single cells); the precise pass then runs on the few points left
    (same guarantees)."""
    if way_idx is not None and grid.is_uniform:
        (p, c), wp = grid.padded()
        return smooth_fast_via(p, c, wp, np.ascontiguousarray(cells), way_idx)
    return smooth_path(grid, cells, "fast")


def smoothed_result(grid: Grid, cells: np.ndarray, expanded: int) -> PathResult:
    """The ``PathResult`` of smoothed ``cells``, costed along its segments."""
    if grid.is_uniform:
        cost = path_length(cells)
    else:
        (p, c), wp = grid.padded()
        cost = float(polyline_cost(p, c, wp, np.ascontiguousarray(cells)))
    return PathResult(PathStatus.FOUND, cost, cells, expanded)
