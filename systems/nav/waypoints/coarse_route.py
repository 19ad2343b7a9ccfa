"""``CoarseRoute``: a hierarchy route whose grid legs are refined one at a time, just before the
walker needs them (what ``Hierarchy.plan`` returns and the crowd's hierarchy job steps through)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..grid import Grid
from ..search.facade import find_path

__all__ = ["CoarseRoute"]


class CoarseRoute:
    """A route whose grid legs are refined just before they are needed.

    Attributes:
        waypoints: ``(K, 2)`` cells: start, the level-1 waypoints, goal.
    """

    def __init__(self, refine: Callable[[np.ndarray], tuple[np.ndarray | None, int]], grid: Grid, route) -> None:
        self._refine, self._grid = refine, grid     # a leg's grid cells (None: not found), and the grid
        self.start, self.goal, self._corridor, self.waypoints = route
        self._next = 0

    @property
    def legs_left(self) -> int:
        """Legs not refined yet."""
        return len(self.waypoints) - 1 - self._next

    def next_leg(self) -> np.ndarray:
        """Grid cells of the next leg (``(N, 2) int32``, its first cell the previous leg's last);
        a search inside the one or two clusters the leg spans."""
        if self.legs_left <= 0:
            return np.zeros((0, 2), dtype=np.int32)
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
