"""The level structures a crowd plans on — flow fields and their cache, sector tiles, the
navmesh, waypoint graph and hierarchy (made on first use or by ``prepare``), the traffic map of
congestion-aware orders — and how map edits reach them. A part of ``Crowd`` (a mixin)."""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from scipy.ndimage import distance_transform_edt  # at load: its first import takes ~0.1 s

from ..errors import NavError
from ..flow.field import FlowField
from ..flow.potential import PotentialField
from ..flow.sectors import SectorGraph, SectorOrder
from ..grid import Grid
from ..grid_edits import nearest_open_cells
from .config import CrowdConfig
from .planners import UNIT_RATES, UNITS, CallJob, PlanQueue, TilesOrderJob
from .rebuild import StructureRebuilds, waypoint_seed
from .state import F_HAS_TARGET, F_TARGET_DIRTY, CrowdState, NavState

if TYPE_CHECKING:
    from ..clearance import SizedGrids
    from ..navmesh import NavMesh
    from ..navmesh.goal_tree import GoalTree
    from ..waypoints.graph import WaypointGraph
    from ..waypoints.hierarchy import Hierarchy
    from .groups import GroupSteering

__all__ = ["CrowdStructures", "TILES_ABOVE_CELLS"]

#: ``flow_mode="auto"`` uses sector tiles above this many cells: a whole-map field of a larger
#: map takes more than a few milliseconds, too long for one planning step.
TILES_ABOVE_CELLS = 256 * 256


class CrowdStructures:
    """The planning structures of a ``Crowd`` (its attributes are made in ``Crowd.__init__``)."""

    grid: Grid
    config: CrowdConfig
    state: CrowdState
    groups: GroupSteering
    cache_dir: Path | None
    traffic: np.ndarray
    _routes: dict
    _since_traffic: float
    _navmesh: NavMesh | None
    _waypoints: WaypointGraph | None
    _hierarchy: Hierarchy | None
    _tiles: SectorGraph | None
    _fields: OrderedDict
    _fields_version: int
    _clearance_cache: tuple[int, np.ndarray] | None = None     # (grid version, cells to the nearest wall)
    _goal_trees: OrderedDict | None = None
    rebuilds: StructureRebuilds
    _sized: SizedGrids | None = None
    _dstar: dict
    _tile_edits: list
    queue: PlanQueue

    #: Navmesh goal trees kept (LRU; ~40 bytes per crossing point each: 27 MB on the 512² highlands).
    GOAL_TREES = 4

    def goal_tree(self, mesh: NavMesh, target: np.ndarray) -> GoalTree | None:
        """The shared ``GoalTree`` of navmesh queries to ``target`` on meshes with area costs
        (``None`` where the exact query applies: it is fast on its own)."""
        if not mesh.needs_crossing_search:
            return None
        trees = self._goal_trees
        if trees is None:
            trees = self._goal_trees = OrderedDict()
        key = (id(mesh), float(target[0]), float(target[1]))
        tree = trees.get(key)
        if tree is None:
            from ..navmesh.goal_tree import GoalTree

            tree = trees[key] = GoalTree(mesh, target[:2])
            while len(trees) > self.GOAL_TREES:
                trees.popitem(last=False)
        trees.move_to_end(key)
        return tree

    @property
    def uses_tiles(self) -> bool:
        """True when flow orders use sector tiles rather than whole-map fields."""
        if self.config.flow_mode == "auto":
            return self.grid.width * self.grid.height > TILES_ABOVE_CELLS
        return self.config.flow_mode == "tiles"

    def apply_tile_edits(self) -> None:
        """Bring the tiles and the orders on them up to date with the edits since the last call."""
        if not self._tile_edits or self._tiles is None:
            self._tile_edits.clear()
            return
        cells = np.concatenate(self._tile_edits)
        self._tile_edits.clear()
        self._tiles.update(cells)
        for order in self._fields.values():
            if isinstance(order, SectorOrder):
                order.replan()

    def sector_graph(self, progress=None) -> SectorGraph:
        """The level's sector tiles, built now if need be (``prepare`` builds them at load; a
        group order builds them under the planning budget: ``tiles_in_progress``)."""
        if self._tile_edits:
            self.apply_tile_edits()
        if self._tiles is None or (self._tiles.ready and self._tiles.version != self.grid.version):
            self._tiles = SectorGraph(self.grid, self.config.sector_size, progress)
        while not self._tiles.ready:
            self._tiles.build_some(1 << 30)
        return self._tiles

    def tiles_in_progress(self) -> SectorGraph:
        """The level's sector tiles, possibly still being built (``SectorGraph.build_some``)."""
        if self._tile_edits:
            self.apply_tile_edits()
        if self._tiles is None or (self._tiles.ready and self._tiles.version != self.grid.version):
            self._tiles = SectorGraph.start(self.grid, self.config.sector_size)
        return self._tiles

    def planning_grid(self) -> Grid:
        """The grid group orders plan on: the level itself, or with ``congestion`` its terrain
        costs raised along the routes other groups already follow."""
        if not self.config.congestion or not self.traffic.any():
            return self.grid
        g = self.grid
        width = 2.0 * np.maximum(self._clearance(), 0.5)
        extra = self.config.congestion_weight * self.traffic / width
        return Grid(g.passable, np.where(g.passable, g.cost + extra, np.inf), g.heights, cell_size=g.cell_size,
                    origin=g.origin)

    def _clearance(self) -> np.ndarray:
        """Cells from each open cell to the nearest wall or map edge (cached per grid version)."""
        cached = self._clearance_cache
        if cached is None or cached[0] != self.grid.version:
            padded = np.pad(self.grid.passable, 1, constant_values=False)
            cached = (self.grid.version, distance_transform_edt(padded)[1:-1, 1:-1])
            self._clearance_cache = cached
        return cached[1]

    def add_route(self, key, cells: np.ndarray, units: float) -> None:
        """Register a group's route (grid cells) carrying ``units`` in the traffic map."""
        self.remove_route(key)
        if not self.config.congestion or len(cells) == 0:
            return
        from scipy.ndimage import binary_dilation

        band = np.zeros(self.grid.shape, dtype=bool)
        band[cells[:, 1], cells[:, 0]] = True
        band = binary_dilation(band, iterations=2) & self.grid.passable
        band &= self._clearance() <= self.config.congestion_narrow       # queues form at narrow passages
        self.traffic[band] += units
        self._routes[key] = (band, units)

    def refresh_traffic(self) -> None:
        """Recount each registered group route by the members still on their way (called every
        ``congestion_refresh`` seconds)."""
        self._since_traffic = 0.0
        for key, (band, units) in list(self._routes.items()):
            order = self.groups.orders.get(key)
            live = float(order.members) if order is not None else 0.0
            if live <= 0:
                self.remove_route(key)
            elif live != units:
                self.traffic[band] += live - units
                self._routes[key] = (band, live)
        np.maximum(self.traffic, 0.0, out=self.traffic)

    def remove_route(self, key) -> None:
        """A group order ended: its route no longer counts as traffic."""
        old = self._routes.pop(key, None)
        if old is not None:
            self.traffic[old[0]] -= old[1]
            np.maximum(self.traffic, 0.0, out=self.traffic)

    def sized_field_job(self, goal: tuple[int, int], radius: float) -> CallJob:
        """A group's flow toward ``goal`` on the class grid of its widest member (``radius``,
        world units): a whole-map field, or that class's sector tiles on large maps (made when
        such agents were added); the goal moves to the nearest cell they fit."""
        sized = self.sized_grids()
        grid = sized.grid_for(radius)
        fit = sized.nearest_fit(grid, goal)
        if fit is None:
            return CallJob(lambda: NavError(f"an agent of radius {radius:g} fits nowhere on this map"), 1)
        if self.uses_tiles:
            tiles = sized.tiles_for(radius, self.config.sector_size)
            return CallJob(lambda: tiles.order(fit), 2_000)
        return CallJob(lambda: FlowField.build(grid, [fit], integration=self.config.flow_integration,
                                               rule=self.config.flow_rule),
                       int(UNIT_RATES["field_per_cell"] * int(grid.passable.sum())))

    def congested_field_job(self, key, goal: tuple[int, int], start: tuple[int, int], units: float) -> CallJob:
        """A group's own flow field planned around the traffic registered when the job runs
        (so groups ordered in the same tick see each other), its route registered at once."""
        def build():
            planning = self.planning_grid()
            field = (FlowField.build(planning, [goal], integration=self.config.flow_integration,
                                     rule=self.config.flow_rule)
                     if planning is not self.grid else self.flow_field(goal))
            if isinstance(field, FlowField):
                self.add_route(key, field.descend(start), units)
            return field

        return CallJob(build, int(UNIT_RATES["field_per_cell"] * int(self.grid.passable.sum())))

    def potential_job(self, goal: tuple[int, int]) -> CallJob:
        """A job building the artificial potential field toward ``goal`` (the paper's baseline)."""
        return CallJob(lambda: PotentialField.build(self.grid, goal), int(UNIT_RATES["field_per_cell"] * self.grid.width
                                                                          * self.grid.height))

    def field_job(self, goal: tuple[int, int]) -> CallJob | TilesOrderJob:
        """A job building the flow toward ``goal`` (cached when done)."""
        if self._tile_edits:
            self.apply_tile_edits()                   # a cached order re-planned first
        cached = self._fields.get(goal)
        if cached is not None:
            return CallJob(lambda: cached, 1)
        if self.uses_tiles:
            return TilesOrderJob(self.tiles_in_progress, goal)
        cells = int(self.grid.passable.sum())
        return CallJob(lambda: FlowField.build(self.grid, [goal], integration=self.config.flow_integration,
                                               rule=self.config.flow_rule),
                       int(UNIT_RATES["field_per_cell"] * cells))

    def cached_flow_field(self, goal: tuple[int, int]) -> FlowField | SectorOrder | None:
        """The cached flow toward ``goal``, or None (nothing is built here)."""
        if self._tile_edits:
            self.apply_tile_edits()
        key = (int(goal[0]), int(goal[1]))
        found = self._fields.get(key)
        if found is not None:
            self._fields.move_to_end(key)
        return found

    def want_flow_field(self, goal: tuple[int, int]) -> None:
        """Plan the flow toward ``goal`` under the budget (cached when done) unless it is cached
        or planned already."""
        key = (int(goal[0]), int(goal[1]))
        if key not in self._fields and ("field", key) not in self.queue:
            self.queue.submit(("field", key), self.field_job(key))

    def flow_field(self, goal: tuple[int, int]) -> FlowField | SectorOrder:
        """The flow toward ``goal``: cached, else built now (group orders plan theirs under the budget)."""
        key = (int(goal[0]), int(goal[1]))
        if self._tile_edits:
            self.apply_tile_edits()
        found = self._fields.get(key)
        if found is not None:
            self._fields.move_to_end(key)
            return found
        made = self.field_job(key).call()
        self._cache_field(key, made)
        return made

    def _cache_field(self, goal, made) -> None:
        key = (int(goal[0]), int(goal[1]))
        self._fields[key] = made
        self._fields.move_to_end(key)
        live = self.groups.live_goals()
        per_field = max(1, self.grid.width * self.grid.height * 12)
        spare = max(1, self.config.flow_cache_bytes // per_field)
        idle = [k for k in self._fields if k not in live]
        for k in idle[: max(0, len(idle) - spare)]:          # oldest idle fields go first
            del self._fields[k]

    def navmesh(self, progress=None):
        """The navmesh of ``navmesh`` agents, baked — or loaded from ``cache_dir`` — on first use."""
        if self._navmesh is None:
            from ..navmesh import NavMesh
            from ..navmesh.mesh_bounds import MeshGoalBounds

            r, k = self.config.navmesh_radius, self.navmesh_subdivide
            self._navmesh = (NavMesh.cached(self.grid, self.cache_dir, agent_radius=r, progress=progress, subdivide=k)
                             if self.cache_dir is not None
                             else NavMesh.from_grid(self.grid, agent_radius=r, progress=progress, subdivide=k))
            # goal bounds baked for this mesh by ``levels bake --goal-bounds`` are used, never built here
            self._navmesh.goal_bounds = MeshGoalBounds.baked(self._navmesh, self.cache_dir)
            self.rebuilds.made.add("navmesh")
        return self._navmesh

    @property
    def navmesh_subdivide(self) -> int:
        """Sub-cells per cell edge of the crowd's navmesh (``CrowdConfig.navmesh_subdivide``).
        Automatic, for a radius under half a cell: 6 on maps up to 128×128 cells, 2 up to
        256×256, else 1. Erosion keeps a sub-cell only when all of it clears the radius, so a
        diagonal squeeze between two corners (the river's south bridge, past a rock) stays open
        only with sub-cells of at most 1/6 cell at radius 0.4 (with 1/2 or 1/4 it closed); the
        bake costs about k² more (the river: 0.09 s at 6, 0.03 s at 2)."""
        k = self.config.navmesh_subdivide
        if k:
            return k
        if not 0 < self.config.navmesh_radius < 0.5 * self.grid.cell_size:
            return 1
        cells = self.grid.width * self.grid.height
        return 6 if cells <= 128 * 128 else 2 if cells <= 256 * 256 else 1

    def hierarchy(self, progress=None):
        """The waypoint hierarchy of ``hierarchy`` agents, built — or loaded — on first use."""
        if self._hierarchy is None:
            from ..waypoints.hierarchy import Hierarchy

            self._hierarchy = (Hierarchy.cached(self.grid, self.cache_dir, progress=progress)
                               if self.cache_dir is not None else Hierarchy.build(self.grid, progress=progress))
            self.rebuilds.made.add("hierarchy")
        return self._hierarchy

    def waypoints(self):
        """The waypoint graph of ``waypoints`` agents, flood-filled (spacing 4) on first use."""
        if self._waypoints is None:
            from ..waypoints.graph import WaypointGraph
            from ..waypoints.graph_bounds import GraphGoalBounds

            seed = waypoint_seed(self.grid)
            self._waypoints = (WaypointGraph.cached_floodfill(self.grid, self.cache_dir, seed, spacing=4)
                               if self.cache_dir is not None else WaypointGraph.floodfill(self.grid, seed, spacing=4))
            # goal bounds baked for this graph by ``levels bake --goal-bounds`` are used, never built here
            self._waypoints.goal_bounds = GraphGoalBounds.baked(self._waypoints, self.cache_dir)
            self.rebuilds.made.add("waypoints")
        return self._waypoints

    def sized_grids(self):
        """The grids of agents wider than half a cell, one per radius class, derived from one
        clearance map (``clearance.py``; made on first use or by ``prepare``)."""
        if self._sized is None:
            from ..clearance import SizedGrids

            self._sized = SizedGrids(self.grid)
        return self._sized

    def cells_changed(self, cells: np.ndarray) -> None:
        """Cells were opened, blocked or re-costed (after ``Grid.set_passable`` / ``set_cost``):
        agents standing in cells now blocked step to the nearest open cell, the tiles update
        what was touched, the navmesh, waypoint graph and hierarchy are rebuilt off the tick
        (``crowd/rebuild.py``; their agents plan on the grid meanwhile), and every walking agent
        re-plans."""
        cells = np.atleast_2d(np.asarray(cells, dtype=np.int64))
        if self._hierarchy is not None and "hierarchy" not in self.rebuilds.made:
            self._hierarchy.update(cells)           # the caller's own hierarchy: updated in place
        self.rebuilds.edited()
        if self._sized is not None:
            self._sized.cells_changed(cells)
        for search in self._dstar.values():          # D* Lite agents repair when they re-plan
            search.cells_changed(cells)
        self._free_and_replan()
        if self._tiles is not None:
            # the tiles follow the edit in the first planning step after it (a job under the
            # budget, before any group's new field: they are submitted later), not in the frame
            # that made it; anything asking for the tiles first applies it (``sector_graph``)
            self._tile_edits.append(cells)
            self.queue.submit(("tiles", 0), CallJob(self.apply_tile_edits, UNITS["tiles_update"]))
        else:
            self._fields.clear()
        self.groups.orders.clear()
        self._fields_version = self.grid.version
        self._goal_trees = None

    def _grid_changed(self) -> None:
        """The grid changed without ``cells_changed`` (its version stamp moved): the edits the
        grid recorded are treated as if announced; an edit it could not record (a wholesale
        change) drops every structure that depended on the grid and re-plans everyone."""
        edited = self.grid.passability_edits_since(self._fields_version)
        if edited is not None and len(edited):
            self.cells_changed(edited)
            return
        self._fields.clear()
        self._goal_trees = None
        self._tiles = None
        self._tile_edits.clear()
        self._sized = None
        self._dstar.clear()
        if self._hierarchy is not None and "hierarchy" not in self.rebuilds.made:
            self._hierarchy = None
        self.rebuilds.edited()
        self.groups.orders.clear()
        self._free_and_replan()
        self._fields_version = self.grid.version

    def _free_and_replan(self) -> None:
        """After an edit: units in closed cells step out; every unit on its way re-plans."""
        s = self.state
        n = s.size
        self.free_walled_in(np.flatnonzero(s.alive[:n]))
        state = s.nav_state[:n, 0]
        moving = ((state == NavState.FOLLOWING) | (state == NavState.PLANNING)) & s.agent_flags[:n, F_HAS_TARGET]
        s.agent_flags[:n, F_TARGET_DIRTY] |= moving & s.alive[:n]

    def free_walled_in(self, ids: np.ndarray) -> np.ndarray:
        """Agents among ``ids`` whose centre is in a blocked cell (a gate closed on them) step to
        the nearest point of the nearest open cell (``nearest_open_cells``); returns those moved."""
        grid, s = self.grid, self.state
        ids = np.asarray(ids, dtype=np.int64)
        if len(ids) == 0:
            return ids
        cs, origin = grid.cell_size, np.asarray(grid.origin)
        c = np.floor((s.position[ids, :2] - origin) / cs).astype(np.int64)
        c[:, 0] = np.clip(c[:, 0], 0, grid.width - 1)
        c[:, 1] = np.clip(c[:, 1], 0, grid.height - 1)
        walled = ~grid.passable[c[:, 1], c[:, 0]]
        ids, c = ids[walled], c[walled]
        if len(ids) == 0 or not grid.passable.any():
            return ids[:0]
        inset = 0.25 * cs                     # spread a packed gate's units over the cell, not one point
        lo = origin + nearest_open_cells(grid.passable, c) * cs + inset
        s.position[ids, :2] = np.clip(s.position[ids, :2], lo, lo + cs - 2 * inset)
        s.velocity[ids] = 0.0
        return ids

    def occupants(self, cells: np.ndarray) -> np.ndarray:
        """Ids of live agents whose body (centre ± radius) overlaps any of ``cells`` (``(N, 2)``):
        a game may refuse to close a gate while this is not empty."""
        grid, s = self.grid, self.state
        n = s.size
        cells = np.atleast_2d(np.asarray(cells, dtype=np.int64))
        live = np.flatnonzero(s.alive[:n])
        if len(cells) == 0 or len(live) == 0:
            return live[:0]
        cs, origin = grid.cell_size, np.asarray(grid.origin)
        lo = origin + cells * cs                                    # (N, 2) cell corners
        p = s.position[live, :2]
        r = s.agent_params[live, 1]
        # distance from each agent centre to each cell's square
        d = np.maximum(np.maximum(lo[None, :, :] - p[:, None, :], p[:, None, :] - (lo[None, :, :] + cs)), 0.0)
        inside = np.hypot(d[..., 0], d[..., 1]) < r[:, None]
        return live[inside.any(axis=1)]

    def finish_rebuilds(self, timeout: float | None = None) -> list[str]:
        """Wait for the navmesh / waypoint graph / hierarchy rebuilds after map edits (or, with
        ``rebuild_worker=False``, rebuild them now); returns the kinds swapped in. For loading
        screens and tests; a game's ticks never wait."""
        return self.rebuilds.finish(timeout)
