"""A search goal that is a set of cells: the search ends at the first of them it reaches.

The crowd's corridor fallback uses it (the flocking article's A* that "stops as soon as it
reaches the corridor"): one search per unit pushed out of its leader's corridor, ending at the
nearest corridor cell by path cost. The heuristic is the straight-line distance to the nearest
of a few *anchor* points minus a *slack* that every region cell lies within of some anchor: it
never over-estimates, and it changes by at most a step's length from cell to cell, so (steps
cost at least their length) the first region cell the A* pops ends a cheapest path to the region.

>>> import numpy as np
>>> from rtsnav.systems.nav import Grid
>>> from rtsnav.systems.nav.search.sliced import SlicedSearch
>>> grid = Grid(np.ones((20, 20), dtype=bool))
>>> band = np.zeros((20, 20), dtype=bool); band[:, 15:] = True
>>> region = GoalRegion(band, np.array([[17.0, 10.0]]), 20.0)
>>> SlicedSearch(grid, (2, 3), region.cell, goal_region=region).run().cells[-1].tolist()
[15, 3]
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import NavError

__all__ = ["GoalRegion", "NO_REGION", "anchor_table"]

#: Anchors a region keeps at most (the heuristic looks at each one per evaluation).
MAX_ANCHORS = 48
#: ``astar_run``'s region argument for a search without a goal region.
NO_REGION = np.zeros(1, dtype=np.bool_)


def anchor_table(anchors: np.ndarray, slack: float) -> np.ndarray:
    """The kernels' ANCHORS heuristic table: ``slack``, then ``anchors`` (``(K, 2)`` cells) in
    padded coordinates; the estimate is the distance to the nearest anchor less the slack."""
    return np.concatenate([[float(slack)], (np.asarray(anchors, dtype=np.float64) + 1.0).ravel()])


class GoalRegion:
    """The cells ``mask`` (``bool [H, W]``) as a search goal.

    Args:
        mask: the region's cells.
        anchors: ``(K, 2)`` cell coordinates (x, y), K ≥ 1.
        slack: every region cell lies within this straight-line distance of some anchor.
    """

    def __init__(self, mask: np.ndarray, anchors: np.ndarray, slack: float) -> None:
        mask = np.asarray(mask, dtype=bool)
        anchors = np.asarray(anchors, dtype=np.float64).reshape(-1, 2)
        if mask.ndim != 2 or not mask.any():
            raise NavError("a goal region needs a 2-D mask with at least one cell")
        if len(anchors) == 0 or not math.isfinite(slack) or slack < 0:
            raise NavError(f"a goal region needs anchors and a finite slack >= 0, got {len(anchors)} and {slack!r}")
        self.mask = mask
        self.anchors = anchors
        self.slack = float(slack)
        ys, xs = np.nonzero(mask)
        nearest = int(np.argmin((xs - anchors[0, 0]) ** 2 + (ys - anchors[0, 1]) ** 2))
        #: one cell of the region (a search's nominal goal)
        self.cell = (int(xs[nearest]), int(ys[nearest]))
        padded = np.zeros((mask.shape[0] + 2, mask.shape[1] + 2), dtype=np.bool_)
        padded[1:-1, 1:-1] = mask
        #: the mask in the kernels' padded flat layout
        self.flat = padded.ravel()
        self.table = anchor_table(anchors, self.slack)

    @classmethod
    def around_path(cls, mask: np.ndarray, path_cells: np.ndarray, width: float) -> "GoalRegion":
        """A region whose every cell is within ``width`` (straight line) of some cell of
        ``path_cells`` — a corridor: anchors are every k-th path cell (and the last)."""
        cells = np.asarray(path_cells, dtype=np.float64).reshape(-1, 2)
        if len(cells) == 0:
            raise NavError("a region around a path needs a non-empty path")
        every = max(1, math.ceil(len(cells) / MAX_ANCHORS))
        anchors = np.concatenate([cells[::every], cells[-1:]])
        # consecutive path cells are at most √2 apart: a path cell is this close to an anchor
        between = 0.5 * every * math.sqrt(2.0)
        return cls(mask, anchors, float(width) + between + 1e-9)

    def contains(self, cell: tuple[int, int]) -> bool:
        """True when ``cell`` (x, y) is in the region."""
        x, y = cell
        return bool(0 <= y < self.mask.shape[0] and 0 <= x < self.mask.shape[1] and self.mask[y, x])
