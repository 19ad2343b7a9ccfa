"""How one agent's plan is made: a planner table from each ``Planner`` to its job factory (the
job the crowd's queue runs under its budget). Grid methods run as sliced searches; the
hierarchy, navmesh and waypoint queries on the level's structures; D* Lite searches are kept per
agent (``dstar-lite``); agents wider than half a cell plan on their radius class's grid; a
structure that a map edit made stale is stood in for by A* on the grid until its rebuild lands."""

from __future__ import annotations

import weakref
from collections.abc import Callable

import numpy as np

from rtsnav.names import GRID_PLANNERS, L_NAVIGATION_LAYERS, S_POSTPROCESSING, Planner

from ..flow.clearance import WIDE
from ..grid import Grid
from ..grid_layers import effective_mask
from ..result import PathStatus
from ..search.grid_goal_tree import GridGoalTree
from ..search.paths import smooth_path
from ..search.region import GoalRegion
from ..search.sliced import WorkspacePool
from .config import CrowdConfig
from .level_cache import LevelCache, wanted_in_tick
from .planners import UNITS, CallJob, GridJob, HierarchyJob, Job, MeshJob, Route, TreeJob, route_from_cells
from .state import CrowdState, NavState

__all__ = ["Planning", "GRID_CODES"]

#: Planners whose structure a map edit can make stale (then they plan by A* until it is rebuilt).
_STRUCTURE = {Planner.NAVMESH: "navmesh", Planner.WAYPOINTS: "waypoints", Planner.HIERARCHY: "hierarchy"}
#: Units of one order planning by a grid planner to one goal cell that share one search from the
#: goal (``GridGoalTree``) instead of a search each.
SHARE_GOAL_AFTER = 16
#: Memory the live shared searches may take together (one always may): 32 bytes a cell each,
#: 19 MB on AcrosstheCape (768²), 134 MB on a 2048² map.
SHARED_BYTES_AT_MOST = 256 << 20
#: Live D* Lite searches keep to this many bytes together (40 a cell each; one always may):
#: ``dstar_agents`` may be set up to 2³¹, and 1,000 searches on a 1024² map would ask for 42 GB.
#: Agents over it plan by A*.
DSTAR_BYTES_AT_MOST = 1 << 30
#: The planner codes of the grid planners (a unit planned by one walks a path of cell centres).
GRID_CODES = np.array([int(p) for p in Planner if p.label in GRID_PLANNERS])


class Planning:
    """Makes plan jobs for single agents (``job``) and A* searches for the other parts
    (``astar``); keeps the searches' workspaces and the D* Lite searches of ``dstar-lite``
    agents."""

    def __init__(self, agents: CrowdState, grid: Grid, config: CrowdConfig, level: LevelCache) -> None:
        self._agents, self._grid, self._config, self._level = agents, grid, config, level
        self.pool = WorkspacePool(grid, config.max_searches)
        self._dstar: dict = {}                   # agent id -> its DStarLite search
        #: (goal x, goal y, layer mask) -> the shared search its units' jobs still hold: an order
        #: too big for one tick is queued in batches, and the later ones join the first's search
        self._trees: weakref.WeakValueDictionary[tuple[int, int, int], GridGoalTree] = weakref.WeakValueDictionary()
        #: the planner table: each single-agent planner and its job factory
        self._table: dict[Planner, Callable[..., Job | None]] = {
            **{p: self._grid_job for p in Planner if p.label in GRID_PLANNERS},
            Planner.HIERARCHY: self._hierarchy_job, Planner.NAVMESH: self._mesh_job,
            Planner.WAYPOINTS: self._waypoint_job, Planner.DSTAR_LITE: self._dstar_job}

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_trees"] = {}                     # weak references do not pickle: a copy starts afresh
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._trees = weakref.WeakValueDictionary()

    def shared_trees(self, ids: np.ndarray, methods: np.ndarray, starts: np.ndarray,
                     goals: np.ndarray) -> dict[int, GridGoalTree]:
        """The searches the units of one order share: for each goal cell that at least
        ``SHARE_GOAL_AFTER`` of ``ids`` (planners ``methods``, cells ``starts`` to ``goals``) plan to
        by a grid planner on one navigation-layer map, one ``GridGoalTree`` — or the one an earlier
        batch's units still read, whatever the count; returns index in ``ids`` -> its tree (units
        wider than half a cell plan on their class's grid, alone)."""
        s, grid = self._agents, self._grid
        ids, starts, goals = np.asarray(ids), np.asarray(starts).reshape(-1, 2), np.asarray(goals).reshape(-1, 2)
        use = (np.isin(methods, GRID_CODES) & (s.radius[ids] <= WIDE * grid.cell_size)
               & (goals[:, 0] >= 0) & (goals[:, 0] < grid.width) & (goals[:, 1] >= 0) & (goals[:, 1] < grid.height))
        if use.sum() < SHARE_GOAL_AFTER and not self._trees:
            return {}
        # masks seeing the same cells (team flags in high bits) plan on one map: one search
        masks = s.agent_layers[ids, L_NAVIGATION_LAYERS].astype(np.int64)
        for mask in np.unique(masks).tolist():
            masks[masks == mask] = effective_mask(grid, mask)
        keys = np.column_stack([goals, masks])
        picked = np.flatnonzero(use)
        kinds, which, counts = np.unique(keys[picked], axis=0, return_inverse=True, return_counts=True)
        trees: dict[int, GridGoalTree] = {}
        for kind, count in enumerate(counts.tolist()):
            gx, gy, mask = (int(v) for v in kinds[kind])
            level = self._level.for_layers(mask)
            live = self._trees.get((gx, gy, mask))
            if live is not None and live.grid is level.grid:
                tree = live.renewed()                     # an earlier batch's, still being read
            elif (count < SHARE_GOAL_AFTER or level.surface is not None or not level.grid.passable[gy, gx]
                  or not self._room_for_a_tree(level.grid)):
                continue
            else:
                tree = GridGoalTree(level.grid, (gx, gy), starts[picked[which.ravel() == kind]])
            self._trees[(gx, gy, mask)] = tree
            trees.update(dict.fromkeys(picked[which.ravel() == kind].tolist(), tree))
        return trees

    def _room_for_a_tree(self, grid: Grid) -> bool:
        """Whether one more shared search fits in ``SHARED_BYTES_AT_MOST`` beside the live ones."""
        live = len(self._trees)
        return live == 0 or (live + 1) * 32 * (grid.width + 2) * (grid.height + 2) <= SHARED_BYTES_AT_MOST

    def job(self, i: int, planner: Planner, start: tuple[int, int] | None = None,
            goal: tuple[int, int] | None = None, end=None, tree: GridGoalTree | None = None) -> Job:
        """The plan job of agent ``i`` with ``planner`` from cell ``start`` to cell ``goal``
        (default: where it stands, its target); ``end``: the world point the path ends at
        instead of its target (the closest reachable point of an unreachable one); ``tree``:
        the search its order shares (``shared_trees``), read when it still applies."""
        s, grid = self._agents, self._grid
        target = s.target[i].copy()
        if end is not None:
            target[: len(end)] = end
        level = self._level.for_layers(int(s.agent_layers[i, L_NAVIGATION_LAYERS]))
        if planner in _STRUCTURE:
            kind = _STRUCTURE[planner]
            if level.structure(kind) is None and kind not in level.rebuilds.stale:
                wanted_in_tick(level, kind)       # no ``prepare`` baked it: loaded, or baked off the tick
            if kind in level.rebuilds.stale:
                planner = Planner.ASTAR   # its structure predates a map edit: exact on the grid until rebuilt
        if level.surface is not None and planner is not Planner.NAVMESH:
            planner = Planner.NAVMESH             # stacked surfaces: the grid is their footprint only
        radius = float(s.radius[i])
        if radius > WIDE * grid.cell_size and not (planner is Planner.NAVMESH and level.surface is not None):
            return self._sized_job(i, planner, radius, target, start, goal, level)
        if planner in (Planner.HIERARCHY, Planner.DSTAR_LITE) or planner.label in GRID_PLANNERS:
            start = start if start is not None else grid.world_to_cell(*s.position[i, :2])
            goal = goal if goal is not None else grid.world_to_cell(*target[:2])
        if tree is not None and planner.label in GRID_PLANNERS and tree.grid is level.grid and tree.goal == goal:
            return self._grid_job(i, planner, start, goal, target, level, tree)
        job = self._table[planner](i, planner, start, goal, target, level)
        if job is None:                   # over the cap of D* Lite agents: A*
            job = self._grid_job(i, Planner.ASTAR, start, goal, target, level)
        return job

    def fits_own_class(self, i: int, goal: tuple[int, int]) -> bool:
        """Whether agent ``i`` (wider than half a cell) stands where its radius class fits and
        reaches ``goal`` on that class's grid from there."""
        s = self._agents
        level = self._level.for_layers(int(s.agent_layers[i, L_NAVIGATION_LAYERS]))   # as ``job`` plans it
        grid = level.sized_grids().grid_for(float(s.radius[i]))
        start = grid.world_to_cell(*s.position[i, :2])
        return bool(grid.passable[start[1], start[0]] and grid.passable[goal[1], goal[0]]
                    and grid.connected(start, goal))

    def astar(self, start, goal, target, *, goal_region: GoalRegion | None = None, grid: Grid | None = None) -> GridJob:
        """An A* job on the level's grid (for groups' leaders, detours, units walking alone);
        ``goal_region``: it ends at the first cell of that region it reaches; ``grid``: the
        level's cells with other costs (a jam's, see ``Traffic.jam_grid``)."""
        return GridJob(grid if grid is not None else self._grid, start, goal, "astar", target,
                       self._config.smoothing, self.pool, goal_region=goal_region)

    @property
    def dstar_searches(self) -> dict:
        """Agent id -> its live D* Lite search (a copy of the table)."""
        return dict(self._dstar)

    def cells_changed(self, cells: np.ndarray) -> None:
        """A map edit: D* Lite searches repair when their agents re-plan."""
        for search in self._dstar.values():
            search.cells_changed(cells)

    def forget_searches(self) -> None:
        """An edit the grid could not record: the D* Lite searches start afresh."""
        self._dstar.clear()

    # Each job factory plans on ``level``: the crowd's, or that of the agent's navigation layers.
    def _grid_job(self, i, planner: Planner, start, goal, target, level: LevelCache,
                  tree: GridGoalTree | None = None) -> Job:
        cfg = self._config
        # Godot's path_postprocessing: the level's smoothing, or the cell centres as searched
        smoothing = cfg.smoothing if self._agents.path_settings[i, S_POSTPROCESSING] == 0 else None
        if tree is not None:
            return TreeJob(tree, level.grid, start, goal, planner.label, target, smoothing, self.pool, cfg.weight)
        return GridJob(level.grid, start, goal, planner.label, target, smoothing, self.pool, cfg.weight)

    def _hierarchy_job(self, i, planner: Planner, start, goal, target, level: LevelCache) -> Job:
        return HierarchyJob(level.hierarchy(), start, goal, target)

    def _mesh_job(self, i, planner: Planner, start, goal, target, level: LevelCache) -> Job:
        mesh = level.navmesh()
        return MeshJob(mesh, self._agents.position[i].copy(), target, _mesh_route, level.goal_tree(mesh, target))

    def _waypoint_job(self, i, planner: Planner, start, goal, target, level: LevelCache) -> Job:
        graph, here, grid = level.waypoints(), self._agents.position[i].copy(), level.grid
        return CallJob(lambda: graph.find_path(here, target), UNITS["waypoints"],
                       lambda r: route_from_cells(grid, r, None, target))      # its cells are already smoothed

    def _dstar_job(self, i: int, planner: Planner, start, goal, target, level: LevelCache) -> CallJob | None:
        """A ``dstar-lite`` agent's plan: its D* Lite search (made on its first order, kept while
        it walks to that goal) plans from its cell — after map edits a repair, not a new search.
        None when ``dstar_agents`` searches are live already."""
        from ..search.dstar_lite import DStarLite

        s, grid, states = self._agents, level.grid, self._dstar
        search = states.get(i)
        if search is not None and (search.goal_cell != tuple(goal) or search.grid is not grid
                                   or not _heard_all(search)):
            del states[i]                                 # a new goal (or edits it cannot repair): a new search
            search = None
        if search is None:
            for j in [j for j in states if not s.alive[j] or s.agent_method[j, 0] != Planner.DSTAR_LITE
                      or s.nav_state[j, 0] not in (NavState.PLANNING, NavState.FOLLOWING)]:
                del states[j]                             # arrived, failed, removed or re-ordered
            if (len(states) >= self._config.dstar_agents
                    or len(states) and (len(states) + 1) * 40 * grid.width * grid.height > DSTAR_BYTES_AT_MOST):
                return None
            search = states[i] = DStarLite(grid, start, goal)
            units = UNITS["dstar_first"]
        else:
            search.move_to(start)
            units = UNITS["dstar_repair"]
        smoothing = self._config.smoothing

        def plan():
            # run by the queue, a tick or more after this: edits since are repaired first, or
            # (a cost change) the search starts afresh from the cell it was asked from
            current = search
            if not _heard_all(current):
                current = DStarLite(grid, start, goal)
                if states.get(i) is search:
                    states[i] = current
            return current.plan()
        return CallJob(plan, units, lambda r: route_from_cells(grid, r, smoothing, target))

    def _sized_job(self, i: int, planner: Planner, radius: float, target, start, goal, level: LevelCache) -> Job:
        """An agent wider than half a cell plans on its radius class's grid (``clearance.py``):
        grid methods as asked, the structure planners by A* there (one bake per size is what the
        class grids avoid). Standing where it does not fit (against a wall), it plans from the
        nearest cell where it does; a goal it cannot fit to fails with the reason."""
        sized = level.sized_grids()
        grid = sized.grid_for(radius)
        start = start if start is not None else grid.world_to_cell(*self._agents.position[i, :2])
        goal = goal if goal is not None else grid.world_to_cell(*target[:2])
        standing = start
        way = None if grid.passable[start[1], start[0]] else sized.way_out(grid, start)
        start = (int(way[-1, 0]), int(way[-1, 1])) if way is not None else sized.nearest_fit(grid, start)
        what = f"an agent of radius {radius:g}"
        if start is None:
            return CallJob(lambda: Route(PathStatus.UNREACHABLE, reason=f"{what} fits nowhere on this map"), 1, _same)
        partial = ""
        if not grid.passable[goal[1], goal[0]] or not grid.connected(start, goal):
            reason = f"goal {goal} is not reachable for {what} (a passage on the way is too narrow)"
            near = grid.nearest_reachable(goal, np.array([start])) if self._config.unreachable == "closest" else None
            if near is None or near == start:
                return CallJob(lambda: Route(PathStatus.UNREACHABLE, reason=reason), 1, _same)
            # where it does not fit (beside a tree, past a gap): the nearest cell it reaches, and it says so
            goal, target, partial = near, target.copy(), reason + "; walking to the closest reachable point"
            target[:2] = grid.cell_to_world(*near)[:2]
        method = planner.label if planner.label in GRID_PLANNERS else "astar"
        job = GridJob(grid, start, goal, method, target, self._config.smoothing, self.pool, self._config.weight)
        job.partial_reason = partial
        if start != standing:
            # it walks out first, from where it stands: the way out's corners only (cell centres
            # on the way are where a body that does not fit there cannot stand)
            out = level.grid.cells_to_world(smooth_path(level.grid, way)[1:-1]) if way is not None else np.zeros((0, 3))
            job.lead_in = np.concatenate([self._agents.position[i:i + 1, :3], out])
        return job


def _same(route: Route) -> Route:
    return route


def _mesh_route(result) -> Route:
    """A navmesh ``MeshPath`` as a ``Route``."""
    if len(result.points) == 0:
        return Route(result.status, reason=result.reason)
    links = dict(zip(result.links, result.link_kinds)) if result.links else {}
    return Route(result.status, np.array(result.points, dtype=np.float64), None, float(result.cost), result.reason, links)


def _heard_all(search) -> bool:
    """Bring a D* Lite search up to date with the edits of its grid it did not hear of (the grid
    of a navigation-layer mask follows the crowd's edits when next asked for, after the crowd
    passed them on: the search then planned on a grid it no longer matched and raised); False
    when they cannot be followed cell by cell (a cost change): it must start afresh."""
    if search.version == search.grid.version:
        return True
    edited = search.grid.passability_edits_since(search.version)
    if edited is None:
        return False
    search.cells_changed(edited)
    return True

