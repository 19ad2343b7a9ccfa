"""The leader's corridor: a path widened into a band, with a flow field inside it and a way back.

1. **Corridor**: a bounded Dijkstra from every cell of the leader's path at once (overlapping
   neighbourhoods keep the cheaper cost) marks the cells within ``width`` of the path.
2. **Corridor field**: a flow field toward the goal that only enters corridor cells, so
   followers stream along the leader's route instead of cutting across walls to the leader.
3. **Return field**: a bounded Dijkstra outward from the corridor: from any cell within
   ``return_radius`` it gives the shortest way back to the corridor — for every follower pushed
   out at once, the same answer as a short search per follower stopping at the first corridor
   cell it touches.

>>> import numpy as np
>>> from rtsnav.systems.nav import Grid, find_path
>>> from rtsnav.systems.nav.flow.corridor import CorridorField
>>> grid = Grid(np.ones((20, 40), dtype=bool))
>>> path = find_path(grid, (1, 10), (38, 10)).cells
>>> cf = CorridorField.build(grid, path, width=2.0)
>>> bool(cf.inside[10, 20]), bool(cf.inside[15, 20])
(True, False)
>>> cf.sample(np.array([[20.5, 15.5]])).round(2).tolist()     # outside: back toward the band
[[0.0, -1.0]]
"""

from __future__ import annotations

import numpy as np

from ..errors import NavError
from ..grid import Grid
from .field import FlowField, build_field

__all__ = ["CorridorField"]


class CorridorField:
    """Flow inside a band around a path, plus the way back into the band.

    Attributes:
        inside: ``bool [H, W]`` corridor cells.
        field: ``FlowField`` toward the goal restricted to the corridor.
        back: ``FlowField`` toward the corridor from cells within ``return_radius``.
    """

    def __init__(self, grid: Grid, inside: np.ndarray, field: FlowField, back: FlowField) -> None:
        self.grid = grid
        self.inside = inside
        self.field = field
        self.back = back

    @classmethod
    def build(cls, grid: Grid, path_cells: np.ndarray, *, width: float = 3.0,
              return_radius: float = 24.0, goal: tuple[int, int] | None = None) -> "CorridorField":
        """Widen ``path_cells`` (``(N, 2)``, start..goal) by ``width`` cells of cost.

        Args:
            width: corridor half-width in cost units (≥ 1; cells beyond are outside).
            return_radius: how far outside the corridor the return field reaches.
            goal: defaults to the last path cell.
        """
        steps = cls.stages(grid, path_cells, width=width, return_radius=return_radius, goal=goal)
        for built in steps:
            if built is not None:
                return built
        raise AssertionError("unreachable")                        # pragma: no cover

    @classmethod
    def stages(cls, grid: Grid, path_cells: np.ndarray, *, width: float = 3.0, return_radius: float = 24.0,
               goal: tuple[int, int] | None = None):
        """``build`` in its three stages (band, corridor field, return field): a generator that
        yields None after each of the first two and the ``CorridorField`` last, so a caller with a
        per-tick budget can spread them over ticks."""
        cells = np.asarray(path_cells, dtype=np.int64).reshape(-1, 2)
        if len(cells) == 0:
            raise NavError("a corridor needs a non-empty path")
        if not width >= 1.0:
            raise NavError(f"corridor width must be >= 1, got {width}")
        around = build_field(grid, cells, limit=width, smooth=False)
        inside = np.isfinite(around.integration)
        yield None
        goal_cell = np.asarray(goal if goal is not None else cells[-1], dtype=np.int64).reshape(1, 2)
        field = build_field(grid, goal_cell, allowed=inside, los_radius=16)
        yield None
        ys, xs = np.nonzero(inside)
        back = build_field(grid, np.stack([xs, ys], axis=1), limit=return_radius, smooth=True)
        yield cls(grid, inside, field, back)

    def sample(self, points: np.ndarray) -> np.ndarray:
        """Directions for world points: along the corridor inside it, back to it nearby, zero
        elsewhere (``(N, 2) float32``)."""
        cells = self.grid.world_to_cells(points)
        h, w = self.grid.shape
        ok = (cells[:, 0] >= 0) & (cells[:, 0] < w) & (cells[:, 1] >= 0) & (cells[:, 1] < h)
        out = np.zeros((len(cells), 2), dtype=np.float32)
        c = cells[ok]
        inside = self.inside[c[:, 1], c[:, 0]]
        d = np.where(inside[:, None], self.field.direction[c[:, 1], c[:, 0]],
                     self.back.direction[c[:, 1], c[:, 0]])
        out[ok] = d
        return out

    def covers(self, points: np.ndarray) -> np.ndarray:
        """True for points inside the corridor or within reach of the return field."""
        cells = self.grid.world_to_cells(points)
        h, w = self.grid.shape
        ok = (cells[:, 0] >= 0) & (cells[:, 0] < w) & (cells[:, 1] >= 0) & (cells[:, 1] < h)
        res = np.zeros(len(cells), dtype=bool)
        c = cells[ok]
        res[ok] = np.isfinite(self.back.integration[c[:, 1], c[:, 0]])
        return res
