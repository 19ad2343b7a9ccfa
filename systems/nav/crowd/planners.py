"""The planner table and the one per-tick planning budget every planner shares.

Every planner answers through one route type (``Route``: world points, plus grid cells where
the planner has them) by a *job* that advances in steps. The queue serves jobs round robin under
one budget per tick counted in **work units calibrated to time**: one unit is about one grid A*
node expansion (~0.12 µs on the reference machine), and each planner charges what its step
cost in those units (a navmesh query ~8,000, a corridor field one unit per cell it covers).
Units, not microseconds, keep runs bit-for-bit deterministic.

Sliced inside one query: grid searches (by expansions), hierarchy queries (coarse route, then
one grid leg per step, then smoothing), leader orders (A* sliced, then the corridor). Single
steps: a navmesh query, a waypoint-graph query, a flow field (each a few milliseconds at most;
a step larger than what is left of the budget waits for the next tick unless it is the tick's
first, so a tick spends at most its budget plus one step).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import NavError
from ..grid import Grid
from ..result import PathResult, PathStatus
from ..search.grid_goal_tree import GridGoalTree
from ..search.jps_plus import JumpTable
from ..search.paths import PathSmoother, smooth_path
from ..search.region import GoalRegion
from ..search.sliced import SlicedSearch, WorkspacePool
from ..search.smoothing import segments_open
from ..search.workspace import SearchWorkspace, only_blocked, still_walkable
from ..waypoints.coarse_route import finished_result, rough_smoothing, smoothed_result

if TYPE_CHECKING:
    from ..navmesh.query import MeshQuery

__all__ = ["Route", "Job", "GridJob", "TreeJob", "CallJob", "MeshJob", "HierarchyJob", "PlanQueue", "UNITS", "UNIT_RATES"]

#: Calibrated cost of one step, in work units (one unit ≈ one A* expansion on a uniform grid,
#: ~0.12 µs here). ``job`` is what any plan costs besides its steps (``job_start`` of it at its
#: first step, the rest when it finishes): setting up, smoothing and handing over a short A* took
#: ~150 µs (2,000 short plans on arena measured 150-270 µs each for ~30 expansions), so a budget
#: of 20,000 units spent on 300 chasers' re-plans ran 45 ms ticks. Grids with terrain costs or
#: heights cost more per expansion (measured: 0.37 µs on the highlands level).
#: ``smoothing_per_cell`` is the hierarchy's joining of its legs (O(n)).
UNITS: dict[str, int] = {"job": 1_000, "job_start": 600, "navmesh": 8_000, "waypoints": 20_000,
                         "hierarchy_plan": 4_000, "hierarchy_leg": 1_000, "smoothing_per_cell": 4,
                         "expansion_costed": 3, "dstar_first": 20_000, "dstar_repair": 1_000,
                         "tiles_update": 20_000, "tiles_build_step": 300, "sector_field": 500}
#: Work units per cell of a build (fractional: a field's cell is cheaper than an expansion).
#: A precise smoothing is charged per cell its sight tests examine (measured 1.3-9 ns a cell); a
#: navmesh crossing-point search per unit of its ``work`` (an expansion plus the crossing points it
#: looks at: 14-27 ns on river and highlands; per expansion it varied 5x over one goal tree's build,
#: so a tick of 555 expansions took 0.3 ms or 1.2 ms).
UNIT_RATES: dict[str, float] = {"field_per_cell": 0.25, "corridor_per_cell": 1.0, "jps+_per_cell": 0.1,
                                "smoothing_per_examined_cell": 0.02, "navmesh_per_work": 0.25}


@dataclass(slots=True)
class Route:
    """A planner's answer. ``points`` are world ``(N, 3)`` from start to goal (a PARTIAL route
    ends at the reachable point closest to the goal); ``cells`` the grid cells where the planner
    has them; ``links`` maps the path index of an off-mesh link's start to its kind."""

    status: PathStatus
    points: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    cells: np.ndarray | None = None
    cost: float = float("inf")
    reason: str = ""
    links: dict[int, str] = field(default_factory=dict)

    @property
    def found(self) -> bool:
        return self.status is PathStatus.FOUND

    @property
    def walkable(self) -> bool:
        """FOUND or PARTIAL with points to walk."""
        return self.status in (PathStatus.FOUND, PathStatus.PARTIAL) and len(self.points) > 0


def route_from_cells(grid: Grid, result: PathResult, smoothing: str | None, target,
                     smoothed: np.ndarray | None = None) -> Route:
    """A grid ``PathResult`` as a ``Route``: smoothed cells (``smoothed`` when already made),
    their centres, ending at ``target`` (None: at the last cell's centre)."""
    if not result.found:
        return Route(result.status, reason=result.reason)
    cells = result.cells if smoothed is None else smoothed
    if smoothed is None and smoothing and len(cells) > 2:
        cells = smooth_path(grid, cells, smoothing)
    points = grid.cells_to_world(cells)
    if target is not None:
        points[-1, :2] = target[:2]
    return Route(PathStatus.FOUND, points, cells, float(result.cost))


class Job:
    """A plan in progress. ``advance(units)`` works up to about ``units`` and returns the units
    it used; when ``done``, ``route`` holds the answer (or ``value`` for non-route jobs)."""

    done: bool = False
    route: Route | None = None
    value: object = None
    #: units the next step will take at least (jobs that know it in advance say so)
    step_units: int = 1
    #: whether it took its first step (its set-up was charged)
    started: bool = False
    #: planned from the waypoint ahead of a walking unit (``Retargets``): its route starts there
    from_ahead: bool = False
    #: the grid it plans on when it follows that grid's edits itself (its answer is for the map
    #: as it is when it lands): a unit waiting for it need not be ordered again after an edit
    follows_edits_of: Grid | None = None

    def advance(self, units: int) -> int:  # pragma: no cover - interface
        raise NotImplementedError

    def release(self) -> None:
        """Give back scratch memory (a search workspace) when cancelled or done."""


def _failed(job: Job, error: Exception) -> int:
    """Finish ``job`` as a failed plan (its agents fail with the reason) after ``error``; the
    units it is charged. Its scratch memory goes back to the pool (kept, every later search of
    the crowd would wait for it)."""
    job.release()
    job.route = Route(PathStatus.UNREACHABLE, reason=f"planner error ({type(error).__name__}: {error})")
    job.value = error
    job.done = True
    return max(1, job.step_units)


def _smoothing_step(smoother: PathSmoother, units: int) -> tuple[bool, int]:
    """Advance a sliced smoothing by about ``units`` of budget: ``(finished, units used)``."""
    per = UNIT_RATES["smoothing_per_examined_cell"]
    before = smoother.examined
    finished = smoother.step(int(units / per))
    return finished, max(1, int((smoother.examined - before) * per))


class GridJob(Job):
    """A time-sliced grid search (``SlicedSearch``), then its smoothing, sliced too
    (``PathSmoother``): exactly the one-shot result, on the map as it is when it lands (the
    search follows edits itself; an edit during the smoothing redoes it, or the search when the
    path found is no longer walkable or the edit opened cells)."""

    def __init__(self, grid: Grid, start, goal, method: str, target, smoothing: str | None, pool: WorkspacePool,
                 weight: float = 1.5, goal_region: GoalRegion | None = None) -> None:
        self.grid, self.start, self.goal, self.method = grid, start, goal, method
        self.goal_region = goal_region
        self.follows_edits_of = grid
        self._found_on = -1                                   # the grid version its answer was found on
        self._check_smoothing = False                         # blocking edits came while it smoothed
        self.target, self.smoothing, self.pool, self.weight = target, smoothing, pool, weight
        self.search: SlicedSearch | None = None
        self.workspace: SearchWorkspace | None = None
        self.smoother: PathSmoother | None = None
        self.found: PathResult | None = None                  # the search's answer, once it has one
        costed = not grid.is_uniform or grid.heights is not None
        self.per_expansion = UNITS["expansion_costed"] if costed else 1
        #: set when ``goal`` stands in for an unreachable target: the route is PARTIAL, saying this
        self.partial_reason = ""
        #: set when ``start`` stands in for where the agent is (a wide unit where it does not fit
        #: plans from the nearest cell where it does): the route begins with these points (``(k, 3)``)
        self.lead_in: np.ndarray | None = None

    def _answer(self, route: Route) -> Route:
        if self.partial_reason and route.found:
            route.status, route.reason = PathStatus.PARTIAL, self.partial_reason
        if self.lead_in is not None and route.points is not None and len(route.points):
            # from where it stands to the plan's start: a path beginning cells away had it "drift"
            # off it and re-plan the same path every few ticks
            route.points = np.concatenate([self.lead_in, np.asarray(route.points, dtype=np.float64)])
        return route

    def advance(self, units: int) -> int:
        if self.smoother is not None and self.grid.version != self._found_on:
            self._edited_while_smoothing()
        if self.smoother is not None:                         # the last steps: smoothing
            finished, used = _smoothing_step(self.smoother, units)
            if finished:
                assert self.found is not None and self.smoothing is not None
                kept = self.smoother.result()
                (passable, cost), wp = self.grid.padded()
                if self._check_smoothing and not segments_open(passable, cost, wp, kept):
                    # a sight line it kept was blocked while it ran: again, on the map as it is
                    self.smoother, self._check_smoothing = PathSmoother(self.grid, self.found.cells, self.smoothing), False
                    return used
                self.route = self._answer(route_from_cells(self.grid, self.found, self.smoothing, self.target, kept))
                self.done = True
            return used
        if self.search is None and self.method == "jps+":
            table = self.grid.kept("jps+", JumpTable.empty)
            if table.ready and table.version != self.grid.version and self.grid.width * self.grid.height > 256 * 256:
                # after an edit of a large map the incremental update (16-20 ms for a gate on
                # 1024²) is one piece: rebuilt in bands under the budget instead
                table.restart_build()
            if not table.ready:                           # the table's build, a band of lines per step
                return int(UNIT_RATES["jps+_per_cell"] * table.build_next()) + 1
        if self.search is None:
            self.workspace = self.pool.acquire_wide() if self.method == "bidirectional" else self.pool.acquire()
            if self.workspace is None:
                return 0                                   # waits for a free workspace
            self.search = SlicedSearch(self.grid, self.start, self.goal, self.method, weight=self.weight,
                                       workspace=self.workspace, goal_region=self.goal_region)
        before = self.search.work
        if not self.search.done:
            self.search.step(max(1, units // self.per_expansion))
        used = max(1, self.search.work - before) * self.per_expansion
        if self.search.done:
            self.release()
            self._searched(self.search.result())
        return int(used)

    def _edited_while_smoothing(self) -> None:
        """The map changed while the path found was being smoothed: a path still walkable after
        edits that only blocked cells is still the cheapest (``only_blocked``), and its smoothing
        goes on, checked when it ends (``segments_open``); otherwise it is searched again."""
        assert self.found is not None
        cells = self.grid.passability_edits_since(self._found_on)
        if (cells is not None and only_blocked(self.grid.passable, cells)
                and still_walkable(self.grid.passable, self.found.cells)):
            self._found_on, self._check_smoothing = self.grid.version, True
            return
        self.found, self.smoother, self.search = None, None, None     # the next step searches again

    def _searched(self, result: PathResult) -> None:
        """The search's answer: smoothed in the next steps, or the route now."""
        self._found_on, self._check_smoothing = self.grid.version, False
        self.found = result
        if self.smoothing and result.found and len(result.cells) > 2:
            self.smoother = self._smoother(result.cells, self.smoothing)
            self.step_units = 1
        else:
            self.route = self._answer(route_from_cells(self.grid, result, self.smoothing, self.target))
            self.done = True

    def _smoother(self, cells: np.ndarray, mode: str) -> PathSmoother:
        return PathSmoother(self.grid, cells, mode)

    def release(self) -> None:
        if self.workspace is not None:
            self.pool.release(self.workspace)
            self.workspace = None


class TreeJob(GridJob):
    """A grid plan of one of many units sent to one goal cell, read from the order's shared
    ``GridGoalTree``: the job advances the tree under the budget until its start is settled,
    then reads its path and smooths it as ``GridJob`` does (the same cost as its own A*), the
    tree's trunk once for all its units (``smooth_precise_slice``'s ``shared``). A map edit
    that opened cells where the tree had reached moves its units to one new tree
    (``GridGoalTree.renewed``); one that only blocked cells does not, and a unit whose path
    read later crosses a cell blocked meanwhile searches on its own."""

    def __init__(self, tree: GridGoalTree, grid: Grid, start, goal, method: str, target, smoothing: str | None,
                 pool: WorkspacePool, weight: float = 1.5) -> None:
        super().__init__(grid, start, goal, method, target, smoothing, pool, weight)
        self.tree: GridGoalTree | None = tree
        self._read_from: GridGoalTree | None = None          # the tree its path came from

    def _smoother(self, cells: np.ndarray, mode: str) -> PathSmoother:
        tree = self._read_from
        # (a tree an edit has left behind keeps a table of sight lines on the map before)
        shared = tree.smoothing_table() if tree is not None and mode == "precise" and tree.current() else None
        return PathSmoother(self.grid, cells, mode, shared)

    def advance(self, units: int) -> int:
        tree = self.tree
        if self.smoother is not None and self._read_from is not None and not self._read_from.current():
            self.smoother.shared = None                     # the map changed under the shared table
        if tree is None or self.smoother is not None or self.search is not None:
            return super().advance(units)
        if tree.grid is not self.grid:
            self.tree = None
            return super().advance(units)
        if not tree.current():                             # an edit where it had reached: one new search for all
            tree = self.tree = tree.renewed()
        used = 0
        if not tree.settled(self.start):
            before = tree.expanded
            tree.step(max(1, units // self.per_expansion))
            used = (tree.expanded - before) * self.per_expansion
            if not tree.settled(self.start):
                self.step_units = 1
                return max(1, used)
        result = tree.path(self.start)
        self.tree = None
        if result.found and not still_walkable(self.grid.passable, result.cells):
            return max(1, used)          # a cell on it was blocked while the tree grew: its own search
        self._read_from = tree
        self._searched(result)
        return max(1, used + len(result.cells))


class TilesOrderJob(Job):
    """A group's order on the sector tiles: the tiles' build carried on under the budget first
    (for a crowd that was not prepared: 0.4 s of building on a 1024² map, spread over ticks),
    then the order itself (one Dijkstra over the portal graph)."""

    #: units of the order itself (a Dijkstra over the portal graph): the queue keeps a job this
    #: big for the next tick when less is left, as it did when the order was a plain call
    ORDER_UNITS = 2_000

    def __init__(self, tiles: Callable[[], Any], goal) -> None:
        self.tiles, self.goal = tiles, goal
        self.step_units = self.ORDER_UNITS

    def advance(self, units: int) -> int:
        graph = self.tiles()
        if not graph.ready:
            steps = max(1, units // UNITS["tiles_build_step"])
            graph.build_some(steps)
            self.step_units = self.ORDER_UNITS if graph.ready else UNITS["tiles_build_step"]
            return steps * UNITS["tiles_build_step"]
        try:
            self.value = graph.order(self.goal)
        except Exception as e:                              # noqa: BLE001 - fails one group, not the tick
            self.value = e
        self.done = True
        return self.ORDER_UNITS

    def call(self):
        """Finish now (outside the budget) and return the order."""
        while not self.done:
            self.advance(1 << 30)
        return self.value


class CallJob(Job):
    """One call that cannot be split (a navmesh or waypoint query, a flow field), charged its
    calibrated units. A call that raises answers a failed route naming the error."""

    def __init__(self, call: Callable[[], Any], units: int, to_route: Callable[[Any], Route] | None = None) -> None:
        self.call, self.step_units, self.to_route = call, int(units), to_route

    def advance(self, units: int) -> int:
        try:
            value = self.call()
            if self.to_route is not None:
                self.route = self.to_route(value)
            else:
                self.value = value
        except Exception as e:                              # noqa: BLE001 - fails one agent, not the tick
            self.route = Route(PathStatus.UNREACHABLE, reason=f"planner error ({type(e).__name__}: {e})")
            self.value = e
        self.done = True
        return self.step_units


class MeshJob(Job):
    """A navmesh query (``NavMesh.start_query``): answered in its first step when in plain sight
    or on a uniform-cost mesh (the exact search, ~1 ms, charged ``UNITS["navmesh"]``); an
    area-cost search expands crossing points under the budget over as many ticks as it needs.
    With a shared ``GoalTree`` (many units sent to one goal on a mesh with area costs) the job
    advances the tree, then reads its route from it."""

    def __init__(self, mesh, start, target, to_route: Callable[[object], Route], tree=None) -> None:
        self.mesh, self.start, self.target, self.to_route, self.tree = mesh, start, target, to_route, tree
        self.query: MeshQuery | None = None
        self.step_units = UNITS["navmesh"]

    def advance(self, units: int) -> int:
        try:
            if self.tree is not None:
                return self._advance_tree(units)
            first = self.query is None
            if self.query is None:
                self.query = self.mesh.start_query(self.start, self.target)
            query = self.query
            before = query.work
            per = UNIT_RATES["navmesh_per_work"]
            done = query.step(max(1, int(units / per)))
            used = int((query.work - before) * per) + (UNITS["navmesh"] if first else 0)
            if done:
                self.route = self.to_route(query.result())
                self.done = True
            else:
                self.step_units = 1                         # the next step can be as small as one expansion
            return max(1, used)
        except Exception as e:                              # noqa: BLE001 - fails one agent, not the tick
            self.route = Route(PathStatus.UNREACHABLE, reason=f"planner error ({type(e).__name__}: {e})")
            self.done = True
            return UNITS["navmesh"]

    def _advance_tree(self, units: int) -> int:
        tree, per = self.tree, UNIT_RATES["navmesh_per_work"]
        used = 0
        if not tree.done:
            before = tree.work
            tree.step(max(1, int(units / per)))
            used = int((tree.work - before) * per)
            if not tree.done:
                self.step_units = 1
                return max(1, used)
        self.route = self.to_route(tree.route(self.start))
        self.done = True
        return used + UNITS["navmesh"]


class HierarchyJob(Job):
    """A hierarchy query in steps: the coarse route, one grid leg per step, then the smoothing
    sliced (``PathSmoother``) — the same cells and cost as ``Hierarchy.find_path``."""

    def __init__(self, hierarchy, start, goal, target) -> None:
        self.hierarchy, self.start, self.goal, self.target = hierarchy, start, goal, target
        self.coarse = None
        self.legs: list[np.ndarray] = []
        self.smoother: PathSmoother | None = None
        self.step_units = UNITS["hierarchy_plan"]

    def advance(self, units: int) -> int:
        h = self.hierarchy
        if self.smoother is not None:
            finished, used = _smoothing_step(self.smoother, units)
            if finished:
                self._finish(smoothed_result(h.grid, self.smoother.result(), 0))
            return used
        if self.coarse is None:
            planned = h.plan(self.start, self.goal)
            if isinstance(planned, PathResult):              # answered without legs
                self._finish(finished_result(h.grid, planned, True))
                return UNITS["hierarchy_plan"]
            self.coarse = planned
            self.step_units = UNITS["hierarchy_leg"]
            return UNITS["hierarchy_plan"]
        if self.coarse.legs_left:
            self.legs.append(self.coarse.next_leg())
            return UNITS["hierarchy_leg"]
        cells = np.concatenate([self.legs[0]] + [leg[1:] for leg in self.legs[1:]]).astype(np.int32)
        way_idx = np.cumsum([0] + [len(leg) - 1 for leg in self.legs]).astype(np.int64)
        if len(cells) <= 2:
            from ..search.paths import path_cost

            self._finish(PathResult(PathStatus.FOUND, path_cost(h.grid, cells), cells, 0))
        else:
            self.smoother = PathSmoother(h.grid, rough_smoothing(h.grid, cells, way_idx), "precise")
            self.step_units = 1
        return UNITS["smoothing_per_cell"] * len(cells)

    def _finish(self, result: PathResult) -> None:
        self.route = route_from_cells(self.hierarchy.grid, result, None, self.target)     # already smoothed
        self.done = True


class PlanQueue:
    """Jobs keyed by who asked (an agent id or a group key), served round robin under one budget
    of ``units_per_tick`` work units; a new job for a key replaces the pending one in its place
    in line (one asking again keeps its turn: sent to the back, units re-ordered every frame
    behind a full queue waited for good)."""

    def __init__(self, units_per_tick: int = 20_000, quantum: int | None = None) -> None:
        if not units_per_tick >= 1:
            raise NavError(f"planning budget must be >= 1 work unit per tick, got {units_per_tick}")
        self.budget = int(units_per_tick)
        self.quantum = max(1, int(quantum if quantum is not None else self.budget // 4))
        self._jobs: OrderedDict[object, Job] = OrderedDict()
        self.last_units = 0

    def __len__(self) -> int:
        return len(self._jobs)

    def __contains__(self, key) -> bool:
        return key in self._jobs

    def submit(self, key, job: Job) -> None:
        old = self._jobs.get(key)
        if old is not None:
            old.release()
        self._jobs[key] = job                   # an existing key keeps its place

    def pending(self, key) -> Job | None:
        """The job waiting under ``key``, or None."""
        return self._jobs.get(key)

    def cancel(self, key) -> None:
        job = self._jobs.pop(key, None)
        if job is not None:
            job.release()

    def keys(self) -> list:
        return list(self._jobs)

    def service(self) -> list[tuple[object, Job]]:
        """Spend up to one tick's budget; returns the jobs that finished."""
        budget = self.budget
        finished: list[tuple[object, Job]] = []
        first = True
        progress = True
        while budget > 0 and self._jobs and progress:
            progress = False
            for key in list(self._jobs):
                if budget <= 0:
                    break
                job = self._jobs[key]
                if job.step_units > budget and not first:
                    continue                        # too big for what is left: next tick
                try:
                    used = job.advance(min(budget, self.quantum))
                except Exception as e:                      # noqa: BLE001 - fails one plan, not the tick
                    used = _failed(job, e)
                if used == 0:
                    continue                        # waiting for scratch memory
                # its fixed cost, within what is left of the tick: the set-up at its first step (a
                # job replaced before it finishes did that much), the hand-over when it finishes
                fixed = ((0 if job.started else UNITS["job_start"])
                         + (UNITS["job"] - UNITS["job_start"] if job.done else 0))
                job.started = True
                used += min(fixed, max(0, budget - used))
                first = False
                budget -= used
                progress = True
                if job.done:
                    del self._jobs[key]
                    finished.append((key, job))
                else:
                    self._jobs.move_to_end(key)
        self.last_units = self.budget - budget
        return finished
