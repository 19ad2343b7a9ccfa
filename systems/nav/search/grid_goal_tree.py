"""One search for many units sent to one goal cell: a search from the goal toward their start
cells, in budgeted steps, from which each unit's path is read as soon as its start is settled.

A grid's moves are symmetric (a diagonal needs both side cells free either way) and so is a
step's cost (its length times the mean of the two cells' terrain costs), so a search from the
goal finds each cell's cost *to* the goal: a start's path read from the tree is a shortest path,
of the cost A* finds (ties may pick another of the equal paths). The search is A* with a
consistent heuristic, the straight-line distance to the nearest of up to 16 of the starts
(as ``GoalRegion``'s anchors), so a settled cell's cost and parent links are final while the search
goes on for the others.

1,000 units ordered across AcrosstheCape (768², 392,287 open cells), each planning its own A* of
up to ~300,000 expansions under the crowd's budget: after 10 s 52 had a path. One tree expands
each open cell at most once.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import NavError
from ..grid import Grid
from ..heuristics import ANCHORS
from ..kernels.heap import CLOSED
from ..result import PathResult, PathStatus
from .astar import astar_begin, astar_run, trace_path
from .goal_bounds import NO_BOUNDS
from .region import NO_REGION, anchor_table
from .workspace import EXPANDED, IN_PROGRESS, STAMP, SearchWorkspace, only_blocked, reached_near

__all__ = ["GridGoalTree"]

#: Starts the search heads for at most (each costs a distance per heuristic evaluation: with 48 an
#: expansion cost 0.6 µs on AcrosstheCape, with 16 0.36 µs, as A*'s 0.3 µs).
ANCHORS_AT_MOST = 16


class GridGoalTree:
    """Costs to ``goal`` (a cell ``(x, y)``) of ``grid``, searched from the goal toward ``starts``
    (``(K, 2)`` cells; any other cell is settled too, later) by ``step`` under a budget of
    expansions; ``path(start)`` once ``settled(start)``. Made for the grid as it is: ask
    ``current()`` after an edit. Memory: a search workspace, 28 bytes a cell."""

    def __init__(self, grid: Grid, goal: tuple[int, int], starts: np.ndarray) -> None:
        self.grid = grid
        self.goal = (int(goal[0]), int(goal[1]))
        self.version = grid.version
        self.expanded = 0
        self.exhausted = False
        self._wp = grid.width + 2
        self._smoothing: np.ndarray | None = None
        starts = np.asarray(starts, dtype=np.float64).reshape(-1, 2)
        every = max(1, math.ceil(len(starts) / ANCHORS_AT_MOST))
        anchors = starts[::every] if len(starts) else np.array([self.goal], dtype=np.float64)
        self._anchors = anchors
        self._successor: GridGoalTree | None = None
        self._table = anchor_table(anchors, 0.0)
        self._ws = SearchWorkspace.for_grid(grid)
        self._ws.next_stamp()
        gx, gy = self.goal
        astar_begin(self._ws.arrays, self._flat(gx, gy), -1, self._wp, ANCHORS, 1.0, self._table)
        if not grid.passable[gy, gx]:
            self.exhausted = True

    def smoothing_table(self) -> np.ndarray:
        """The precise smoothing's shared table of the paths read from this tree (see
        ``smooth_precise_slice``), made on first use: 4 bytes a cell."""
        if self._smoothing is None:
            self._smoothing = np.zeros(len(self._ws.g), dtype=np.int32)
        return self._smoothing

    def current(self) -> bool:
        """True when the tree holds for the grid as it is now: not edited since, edited only
        where the search has not reached (``reached_near``), or only blocked (``only_blocked``:
        a path read then is exact when it is still walkable — ``still_walkable``, which its
        reader checks — and searched on its own when not). It goes on; the smoothing table,
        whose sight lines may cross the edit, starts afresh. False: build a new one."""
        if self.grid.version == self.version or self._successor is not None:
            return self._successor is None
        cells = self.grid.passability_edits_since(self.version)
        if cells is None or (reached_near(self._ws, self._wp, cells) and not only_blocked(self.grid.passable, cells)):
            return False
        self.version = self.grid.version
        if self._smoothing is not None:
            self._smoothing[:] = 0
        return True

    def renewed(self) -> GridGoalTree:
        """The tree that replaces this one after an edit it did not survive (``current()`` is
        False): one search for the same goal and starts on the grid as it is now, made once and
        shared by every unit that shared this one."""
        if self._successor is not None:
            self._successor = self._successor.renewed()     # (the chain kept one link long)
            return self._successor
        if self.current():
            return self
        self._successor = GridGoalTree(self.grid, self.goal, self._anchors)
        return self._successor

    def settled(self, start: tuple[int, int]) -> bool:
        """True when ``start``'s path can be read: its cell is settled, or the search is over."""
        if self.exhausted:
            return True
        ws, flat = self._ws, self._flat(int(start[0]), int(start[1]))
        return bool(ws.stamp[flat] == ws.state[STAMP] and ws.pos[flat] == CLOSED)

    def step(self, budget: int) -> None:
        """Expand up to ``budget`` cells (nothing once the search is over)."""
        if self.exhausted:
            return
        grid = self.grid
        (_, cost), wp = grid.padded()
        status = astar_run(grid.move_masks(), cost, wp, grid.is_uniform, self._ws.arrays, ANCHORS, 1.0, self._table,
                           max(1, int(budget)), NO_BOUNDS, False, NO_REGION, False)
        self.expanded = int(self._ws.state[EXPANDED])
        self.exhausted = status != IN_PROGRESS

    def path(self, start: tuple[int, int]) -> PathResult:
        """The path from cell ``start`` to the goal (``settled(start)`` must be True): cells
        start..goal and their cost, or ``found = False`` when ``start`` does not reach the goal."""
        sx, sy = int(start[0]), int(start[1])
        gx, gy = self.goal
        if not (0 <= sx < self.grid.width and 0 <= sy < self.grid.height):
            raise NavError(f"start {(sx, sy)} is outside the {self.grid.width}x{self.grid.height} grid")
        if not self.settled((sx, sy)):
            raise NavError(f"the path from {(sx, sy)} is read before the tree settled it (step on)")
        ws, flat = self._ws, self._flat(sx, sy)
        if not self.grid.passable[gy, gx] or ws.stamp[flat] != ws.state[STAMP]:
            return PathResult.unreachable(f"goal {self.goal} is not reachable from start {(sx, sy)}", self.expanded)
        cells = trace_path(ws.parent, flat, self._wp)[::-1].copy()     # traced from the start: goal first
        return PathResult(PathStatus.FOUND, float(ws.g[flat]), cells, self.expanded)

    def _flat(self, x: int, y: int) -> int:
        return (y + 1) * self._wp + x + 1
