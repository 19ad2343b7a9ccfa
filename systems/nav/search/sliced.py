"""Time-sliced grid search: a query that advances by a bounded number of expansions per call.

A game gives path finding a per-frame budget; a long query continues over several frames and
returns exactly what the one-shot query returns (same kernel, same arrays, resumed).

>>> import numpy as np
>>> from rtsnav.systems.nav import Grid, find_path
>>> from rtsnav.systems.nav.search.sliced import SlicedSearch
>>> grid = Grid(np.ones((50, 50), dtype=bool))
>>> search = SlicedSearch(grid, (0, 0), (49, 30))
>>> calls = 0
>>> while not search.done:
...     _ = search.step(10)
...     calls += 1
>>> calls > 3, search.result().cost == find_path(grid, (0, 0), (49, 30)).cost
(True, True)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rtsnav import checks
from rtsnav.names import SEARCH_METHODS, canonical_planner, unknown_name

from ..errors import NavError
from ..grid import Grid
from ..heuristics import ANCHORS, OCTILE, ZERO, Heuristic, heuristic_array, heuristic_mode
from ..result import PathResult, PathStatus
from .astar import astar_begin, astar_run, trace_path
from .bidirectional import bidirectional_begin, bidirectional_run, ends_walled_in, join_paths, meeting_cost
from .bstar import bstar_walk
from .goal_bounds import NO_BOUNDS, GoalBounds
from .jps import expand_jumps
from .jps_plus import JumpTable, jps_plus_query
from .jump_search import jps_plus_run, jps_run
from .paths import path_cost
from .region import NO_REGION, GoalRegion
from .workspace import (
    EXPANDED,
    FOUND,
    GOAL,
    IN_PROGRESS,
    MEET,
    STAMP,
    WORK,
    SearchWorkspace,
    only_blocked,
    reached_near,
    still_walkable,
)

__all__ = ["SlicedSearch", "WorkspacePool", "METHODS"]

#: Grid search methods a ``SlicedSearch`` runs (``find_path`` also takes ``"dstar-lite"``).
METHODS = tuple(m for m in SEARCH_METHODS if m != "dstar-lite")
#: Methods that need a uniform-cost grid; with terrain costs they run as A* and say so.
UNIFORM_ONLY = ("jps", "jps+")
#: Methods that can prune with goal bounds.
BOUNDED = ("dijkstra", "astar", "jps+")
#: Methods that expand jump points (octile heuristic; their path is filled in between them).
JUMPING = ("jps", "jps+")


#: "No goal region" for the A* kernel.


class WorkspacePool:
    """A fixed number of search workspaces for one grid: bounds the memory of concurrent
    time-sliced searches (each workspace is ~28 bytes per cell; ``size`` of them, or as many as
    fit in ``BYTES_AT_MOST``). A bidirectional search takes one place in the pool with a
    workspace for both directions (``acquire_wide``: 56 bytes per cell, made on first need and
    kept)."""

    #: The pool's places keep to this many bytes together (one always fits; 84 bytes a cell a
    #: place, with its bidirectional workspace): ``max_searches`` goes up to 4,096, and 4,096
    #: places on a 1024² map were 120 GB, made at once (360 GB with their wide workspaces).
    BYTES_AT_MOST = 1 << 30

    def __init__(self, grid: Grid, size: int) -> None:
        if size < 1:
            raise NavError(f"a workspace pool needs size >= 1, got {size}")
        self.grid = grid
        self.version = grid.version
        size = min(int(size), max(1, self.BYTES_AT_MOST // (84 * (grid.height + 2) * (grid.width + 2))))
        self._free = [SearchWorkspace.for_grid(grid) for _ in range(size)]
        self._wide: list[SearchWorkspace] = []
        self._taken = 0
        self.size = size

    def acquire(self) -> SearchWorkspace | None:
        """A free workspace, or None when all are in use."""
        if not self._take():
            return None
        return self._free.pop()

    def acquire_wide(self) -> SearchWorkspace | None:
        """A free workspace for a bidirectional search (both directions), or None when all
        places are in use."""
        if not self._take():
            return None
        return self._wide.pop() if self._wide else SearchWorkspace.for_grid(self.grid, directions=2)

    @property
    def wide_ready(self) -> int:
        """Bidirectional workspaces made and free."""
        return len(self._wide)

    def prepare(self, wide: bool) -> None:
        """At load time: write through every workspace's memory (a first search on untouched
        pages paid their page faults inside a tick: ~30 ms a bidirectional workspace on a 768²
        map) and, with ``wide``, make every place's bidirectional workspace too."""
        while wide and len(self._wide) < self.size:
            self._wide.append(SearchWorkspace.for_grid(self.grid, directions=2))
        for ws in self._free + self._wide:
            ws.touch()

    def release(self, ws: SearchWorkspace) -> None:
        """Return a workspace taken with ``acquire`` or ``acquire_wide``."""
        self._taken -= 1
        (self._wide if ws.directions == 2 else self._free).append(ws)

    def _take(self) -> bool:
        if self._taken == 0 and self.grid.version != self.version:
            self.version = self.grid.version      # same shape; stamps stay valid
        if self._taken >= self.size:
            return False
        self._taken += 1
        return True

    @property
    def available(self) -> int:
        """Workspaces free right now."""
        return self.size - self._taken


class SlicedSearch:
    """One grid path query, run in slices of at most ``max_expansions`` node expansions.

    Args:
        grid, start, goal, method, heuristic, weight: as for ``find_path``.
        workspace: the search arrays to use (from a ``WorkspacePool``; for ``"bidirectional"``
            one for both directions, from ``acquire_wide``); by default the grid's shared
            workspace, which is only safe when no other search runs in between.
        pocket_rule: for ``"bidirectional"``: answer by A* unless an end is walled in (see
            ``ends_walled_in``; the result's ``reason`` says so); False searches from both ends.
        goal_region: a ``GoalRegion``: the search ends at the first of its cells it reaches
            (``goal`` should be one of them; ``"astar"`` and ``"dijkstra"`` only; A* estimates
            by the region's anchors). The result's last cell is the region cell reached.

    A grid edit while the search runs (the grid's version stamp moved) makes the next ``step``
    start over on the edited map (``restarts`` counts it) — unless the search is ``"astar"`` or
    ``"dijkstra"`` and the edit blocked or opened only cells it has not reached nor come next to
    (what it knows then holds on the edited map), or only blocked cells (``only_blocked``: its
    answer is checked when it ends, and searched again if the path is no longer walkable) — then
    it goes on: the answer is never a path through a closed cell, and always exact on the map as
    it is.
    Bad input raises ``NavError`` at construction; blocked, unreachable and trivial queries are
    answered at construction too (``done`` is True at once, no expansions).
    """

    def __init__(self, grid: Grid, start: Sequence[int], goal: Sequence[int], method: str = "astar",
                 *, heuristic: Heuristic = "octile", weight: float = 1.5,
                 workspace: SearchWorkspace | None = None, goal_bounds: GoalBounds | None = None,
                 backtrack: int = 0, goal_region: GoalRegion | None = None, pocket_rule: bool = True) -> None:
        method = canonical_planner(method) or method
        if method not in METHODS:
            hint = " (D* Lite keeps its search: use find_path or DStarLite)" if method == "dstar-lite" else ""
            raise NavError(unknown_name("method", method, METHODS) + hint)
        sx, sy = grid.check_cell(start, "start")
        gx, gy = grid.check_cell(goal, "goal")
        self.grid = grid
        self.note = ""
        if method in UNIFORM_ONLY and not grid.is_uniform:
            self.note = f"{method} needs a uniform-cost grid (this one has terrain costs): answered by A*"
            method = "astar"
        pocket_rule = checks.flag(pocket_rule, "pocket_rule", error=NavError)
        wide = method == "bidirectional"
        if wide and pocket_rule and self._ends_open(sx, sy, gx, gy):
            self.note = ("answered by A*: neither end is walled in (bidirectional search pays only there; "
                         "pocket_rule=False searches from both ends anyway)")
            method = "astar"
        self._bounds, self._use_bounds = NO_BOUNDS, False
        if goal_bounds is not None:
            if not isinstance(goal_bounds, GoalBounds) or goal_bounds.grid is not grid:
                raise NavError("goal_bounds must be a GoalBounds built for this grid")
            if method not in BOUNDED:
                raise NavError(f"goal_bounds work with {', '.join(BOUNDED)}, not {method!r}")
            if not goal_bounds.valid:
                self.note = "goal bounds are stale (the grid was edited since they were built): searched without them"
            else:
                self._bounds, self._use_bounds = goal_bounds.boxes, True
        self.method = method
        self.start = (sx, sy)
        self.goal = (gx, gy)
        asked = heuristic_mode(heuristic)                  # checked whatever the method (as weight below)
        self._hmode = ZERO if method == "dijkstra" else OCTILE if method in JUMPING else asked
        self._region = goal_region
        if goal_region is not None:
            if method not in ("astar", "dijkstra") or goal_region.mask.shape != grid.shape:
                raise NavError(f"goal_region needs method 'astar' or 'dijkstra' (got {method!r}) and a mask of "
                               f"the grid's shape {grid.shape} (got {goal_region.mask.shape})")
            if method == "astar":
                self._hmode = ANCHORS
        # checked whatever the method: a bad weight is a mistake in the call even where unused
        weight = checks.number(weight, "weight", low=1.0, high=1e9, error=NavError)
        self._hweight = weight if method == "weighted" else 1.0
        self._heuristic = heuristic if (self._hmode != ZERO and callable(heuristic)) else "zero"
        self._result: PathResult | None = self._trivial_answer()
        if workspace is not None and workspace.directions != (2 if wide else 1):
            raise NavError(f"method {'bidirectional' if wide else method!r} needs a workspace for {'both directions' if wide else 'one direction'} "
                           f"(WorkspacePool.{'acquire_wide' if wide else 'acquire'}), got one for "
                           f"{workspace.directions} direction(s)")
        self._ws = workspace
        self._table: np.ndarray | None = None
        self._table_back: np.ndarray | None = None        # bidirectional: the heuristic toward the start
        # JPS+ reads the grid's jump table (built on first use, then kept in step with edits)
        self._jump_table = self._current_jump_table() if method == "jps+" else None
        self.expanded = 0
        self.work = 0                      # budget units spent (expansions, plus scans for JPS)
        self._begun = False
        self._stamp = -1                                # the workspace stamp of its labels (``_begin``)
        self._version = grid.version
        #: times the search started over because the grid was edited while it ran
        self.restarts = 0
        self._recheck = False              # went on through a blocking edit it had reached: check its path
        self._backtrack = checks.whole_number(backtrack, "backtrack", low=0, high=2 ** 31 - 1, error=NavError)

    # ---------------------------------------------------------------- public
    @property
    def done(self) -> bool:
        """True when ``result()`` is final (for the grid as it is now)."""
        self._forget_if_edited()
        return self._result is not None

    def step(self, max_expansions: int) -> PathStatus:
        """Expand at most ``max_expansions`` nodes. Returns the status."""
        self._forget_if_edited()
        if self._result is not None:
            return self._result.status
        if self.method == "bstar":
            self._result = self._run_bstar()
            return self._result.status
        if self._begun and self.grid.version != self._version:
            if self._edits_missed_search():   # what it knows holds on the edited map: it goes on
                self._version = self.grid.version
                self._result = self._trivial_answer()      # a blocked end, or the ends now apart
                if self._result is not None:
                    self._begun = False                    # answered without the search
                    return self._result.status
            else:
                self._restart()              # the map changed under the search: what it knew is stale
        if not self._begun:
            self._begin()
        grid, ws = self.grid, self._ws
        assert ws is not None                               # made by _begin
        (free, cost), wp = grid.padded()
        budget = np.int64(min(max(0, max_expansions), 2**62))      # kernels add it to counts: no overflow
        if self.method == "bidirectional":
            status = bidirectional_run(grid.move_masks(), cost, wp, grid.is_uniform, ws.arrays, self._hmode,
                                       self._table, self._table_back, budget)
        elif self.method == "jps":
            status = jps_run(free, wp, ws.arrays, budget)
        elif self.method == "jps+":
            status = jps_plus_run(self._jump_table, free, wp, ws.arrays, budget, self._bounds, self._use_bounds)
        else:
            region = self._region
            status = astar_run(grid.move_masks(), cost, wp, grid.is_uniform, ws.arrays, self._hmode, self._hweight,
                               self._table, budget, self._bounds, self._use_bounds,
                               NO_REGION if region is None else region.flat, region is not None)
        self.expanded = int(ws.state[EXPANDED])
        self.work = int(ws.state[WORK]) if self.method in JUMPING else self.expanded
        if status == IN_PROGRESS:
            return PathStatus.IN_PROGRESS
        t = self._flat(self.goal) if self._region is None else int(ws.state[GOAL])
        if status == FOUND and self.method == "bidirectional":
            cells = join_paths(ws.parent, int(ws.state[MEET]), wp)
            self._result = PathResult(PathStatus.FOUND, float(meeting_cost(ws.arrays)), cells,
                                      self.expanded, self.note)
        elif status == FOUND:
            cells = expand_jumps(ws.parent, t, wp) if self.method in JUMPING else trace_path(ws.parent, t, wp)
            if self._recheck and not still_walkable(grid.passable, cells):
                self._restart()                     # its path crosses a cell blocked while it ran
                return PathStatus.IN_PROGRESS if self._result is None else self._result.status
            self._result = PathResult(PathStatus.FOUND, float(ws.g[t]), cells, self.expanded, self.note)
        else:
            self._result = PathResult.unreachable(
                f"goal {self.goal} is not reachable from start {self.start}", self.expanded)
        return self._result.status

    def run(self) -> PathResult:
        """Run to the end and return the result (for the grid as it is now: a search that had
        finished before a map edit starts over on the edited map)."""
        self._forget_if_edited()
        if self._result is None and self.method == "jps+" and not self._begun:
            self._run_jps_plus()                   # one kernel call: no per-step overhead
        while self._result is None:
            self.step(2**62)
        return self._result

    def result(self) -> PathResult:
        """The final result, or an ``IN_PROGRESS`` result while the search is unfinished (again
        unfinished after a map edit: its answer was for the map before)."""
        self._forget_if_edited()
        if self._result is None:
            return PathResult(PathStatus.IN_PROGRESS, expanded=self.expanded,
                              reason="search in progress")
        return self._result

    # --------------------------------------------------------------- private
    def _ends_open(self, sx: int, sy: int, gx: int, gy: int) -> bool:
        """The pocket rule's verdict for a bidirectional query (see ``ends_walled_in``): True
        when A* answers it (both ends open, or the ends close together)."""
        grid = self.grid
        if not (grid.passable[sy, sx] and grid.passable[gy, gx]):
            return False
        (free, _), wp = grid.padded()
        return not ends_walled_in(free, grid.move_masks(), wp, self._flat((sx, sy)), self._flat((gx, gy)))

    def _flat(self, cell: tuple[int, int]) -> int:
        return (cell[1] + 1) * (self.grid.width + 2) + cell[0] + 1

    def _trivial_answer(self) -> PathResult | None:
        grid, (sx, sy), (gx, gy) = self.grid, self.start, self.goal
        if not grid.passable[sy, sx]:
            return PathResult.unreachable(f"start {(sx, sy)} is a blocked cell")
        if not grid.passable[gy, gx]:
            return PathResult.unreachable(f"goal {(gx, gy)} is a blocked cell")
        if (sx, sy) == (gx, gy) or (self._region is not None and self._region.contains((sx, sy))):
            return PathResult(PathStatus.FOUND, 0.0, np.array([[sx, sy]], dtype=np.int32), 0)
        labels = grid.components()                    # cells already checked: read the labels directly
        if labels[sy, sx] != labels[gy, gx]:
            return PathResult.unreachable(
                f"goal {(gx, gy)} is not reachable from start {(sx, sy)} (different connected regions)")
        return None

    def _run_jps_plus(self) -> None:
        grid = self.grid
        if self._ws is None:
            self._ws = grid.workspace("search", SearchWorkspace.for_grid)
        ws = self._ws
        ws.next_stamp()
        (free, _), wp = grid.padded()
        cost, cells = jps_plus_query(self._jump_table, free, wp, ws.arrays, self._flat(self.start),
                                     self._flat(self.goal), self._bounds, self._use_bounds)
        self.expanded = int(ws.state[EXPANDED])
        self.work = int(ws.state[WORK])
        if len(cells):
            self._result = PathResult(PathStatus.FOUND, float(cost), cells, self.expanded, self.note)
        else:
            self._result = PathResult.unreachable(f"goal {self.goal} is not reachable from start {self.start}",
                                                  self.expanded)

    def _current_jump_table(self) -> np.ndarray:
        return self.grid.kept("jps+", JumpTable.build).current()

    def _forget_if_edited(self) -> None:
        """A finished answer for a grid edited since is stale — start over on the edited grid —
        unless the search found it and the edits touched nothing it had reached."""
        if self._result is not None and self.grid.version != self._version:
            if self._begun and self._edits_missed_search() and (
                    not self._recheck or not self._result.found or still_walkable(self.grid.passable, self._result.cells)):
                self._version = self.grid.version
                return
            self._restart()
            self._version = self.grid.version

    def _edits_missed_search(self) -> bool:
        """True when the passability edits since the search began touch nothing it has reached
        (``reached_near``): an exact search (``astar``, ``dijkstra``) then goes on instead of
        starting over — with a building placed every few ticks on a big map, long searches that
        started over at each edit never finished."""
        ws = self._ws
        if self.method not in ("astar", "dijkstra") or ws is None or ws.directions != 1 or ws.state[STAMP] != self._stamp:
            return False                              # (its workspace served another search since)
        cells = self.grid.passability_edits_since(self._version)
        if cells is None:
            return False
        if not reached_near(ws, self.grid.width + 2, cells):
            return True
        if self._use_bounds or not only_blocked(self.grid.passable, cells):
            return False
        self._recheck = True                          # it had reached them: its path is checked at the end
        return True

    def _restart(self) -> None:
        """Start over on the edited grid (its trivial answers and JPS+ table brought up to date)."""
        self._begun = False
        self.restarts += 1
        self._result = self._trivial_answer()
        if self.method == "jps+":
            self._jump_table = self._current_jump_table()

    def _begin(self) -> None:
        self._begun = True
        self._recheck = False
        self._version = self.grid.version
        grid = self.grid
        wp = grid.width + 2
        if self.method == "bidirectional":
            if self._ws is None:
                self._ws = grid.workspace("bidirectional", _wide_workspace)
            self._ws.next_stamp()
            self._table = heuristic_array(self._heuristic, grid.width, grid.height, self.goal)
            self._table_back = heuristic_array(self._heuristic, grid.width, grid.height, self.start)
            bidirectional_begin(self._ws.arrays, self._flat(self.start), self._flat(self.goal),
                                wp, self._hmode, self._table, self._table_back)
            return
        if self._ws is None:
            self._ws = grid.workspace("search", SearchWorkspace.for_grid)
        ws = self._ws
        ws.next_stamp()
        self._stamp = int(ws.state[STAMP])             # its labels, until another search stamps the workspace
        if self._hmode == ANCHORS:
            assert self._region is not None                  # set together in __init__
            self._table = self._region.table
        else:
            self._table = heuristic_array(self._heuristic, grid.width, grid.height, self.goal)
        astar_begin(ws.arrays, self._flat(self.start), self._flat(self.goal), wp, self._hmode, self._hweight,
                    self._table)

    def _run_bstar(self) -> PathResult:
        """Both crawling hands (B* splits at an obstacle); the shorter walk that arrives."""
        grid = self.grid
        (free, _), wp = grid.padded()
        start, goal = self._flat(self.start), self._flat(self.goal)
        limit = 8 * (grid.width + grid.height) + 64
        best = None
        for hand in (1, -1):
            walk = bstar_walk(free.copy(), wp, start, goal, hand, limit, self._backtrack)
            if walk[-1] == goal and (best is None or len(walk) < len(best)):
                best = walk
        self.expanded = self.work = 0 if best is None else len(best)
        if best is None:
            return PathResult.unreachable(
                f"B* found no way from {self.start} to {self.goal} (a concave trap? allow backtracking)")
        cells = np.stack([best % wp - 1, best // wp - 1], axis=1).astype(np.int32)
        return PathResult(PathStatus.FOUND, path_cost(grid, cells), cells, self.expanded,
                          "B*: a crawler's path, not a shortest one")


def _wide_workspace(grid: Grid) -> SearchWorkspace:
    return SearchWorkspace.for_grid(grid, directions=2)
