"""The level's baked structures a crowd plans on, in one cache that knows neither agents nor
groups: flow fields (LRU per goal), sector tiles, the navmesh and its goal trees, the waypoint
graph, the hierarchy, the class grids of wide agents, the clearance map — each made on first use
or by ``prepare`` (loaded from ``cache_dir`` where given), and each following map edits
(``cells_changed``; the navmesh, waypoint graph and hierarchy through ``StructureRebuilds``)."""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rtsnav import checks

from ..bake_cache import NotBaked, loading_only
from ..errors import NavError
from ..flow.clearance import WIDE
from ..flow.field import FlowField
from ..flow.potential import PotentialField
from ..flow.sectors import SectorGraph, SectorOrder
from ..grid import Grid
from ..grid_layers import effective_mask
from .config import CrowdConfig
from .passages import PassageMap
from .planners import UNIT_RATES, UNITS, CallJob, PlanQueue, TilesOrderJob
from .rebuild import StructureRebuilds, waypoint_seed

if TYPE_CHECKING:
    from ..flow.clearance import SizedGrids
    from ..navmesh import NavMesh
    from ..navmesh.goal_tree import GoalTree
    from ..waypoints.graph import WaypointGraph
    from ..waypoints.hierarchy import Hierarchy

__all__ = ["LevelCache", "TILES_ABOVE_CELLS", "wanted_in_tick"]

#: ``flow_mode="auto"`` uses sector tiles above this many cells: a whole-map field of a larger
#: map takes more than a few milliseconds, too long for one planning step.
TILES_ABOVE_CELLS = 256 * 256


class LevelCache:
    """The planning structures of one level (see the module docs). ``queue`` is the crowd's
    planning queue: a tile update after an edit runs there under the budget."""

    #: Navmesh goal trees kept (LRU; ~40 bytes per crossing point each: 27 MB on the 512² highlands).
    GOAL_TREES = 4

    def __init__(self, grid: Grid, config: CrowdConfig, queue: PlanQueue, cache_dir: str | Path | None = None, *,
                 navmesh: NavMesh | None = None, waypoint_graph: WaypointGraph | None = None,
                 hierarchy: Hierarchy | None = None) -> None:
        if cache_dir is not None and not isinstance(cache_dir, (str, os.PathLike)):
            raise NavError(f"cache_dir must be a folder path (str or Path) or None, got {cache_dir!r}")
        self.grid, self.config, self.cache_dir = grid, config, None if cache_dir is None else Path(cache_dir)
        self._queue = queue
        _check_given(navmesh, waypoint_graph, hierarchy)
        self._navmesh, self._waypoints, self._hierarchy = navmesh, waypoint_graph, hierarchy
        self._tiles: SectorGraph | None = None
        self._tile_edits: list = []              # edited cells the sector tiles have yet to follow
        self._fields: OrderedDict[tuple[int, int], FlowField | SectorOrder] = OrderedDict()
        self._version = grid.version             # the grid version the structures follow
        self._passage_map = PassageMap(grid)         # distances to walls, narrow passages
        self._goal_trees: OrderedDict | None = None
        self._sized: SizedGrids | None = None
        self.rebuilds = StructureRebuilds(self, config.rebuild_worker)
        #: the goals whose fields orders use now (the group part sets it): they are never evicted
        self.in_use: Callable[[], set[tuple[int, int]]] = set
        self._layered: dict[int, LevelCache] = {}  # navigation_layers mask -> the level its agents see

    def for_layers(self, navigation_layers: int) -> LevelCache:
        """The structures of agents whose ``navigation_layers`` is this mask: this level when the
        mask takes every open cell; else a level on ``Grid.masked`` (its own navmesh, hierarchy,
        waypoints and fields, baked off the tick on first use, or by ``prepare``)."""
        grid = self.grid.masked(navigation_layers)
        if grid is self.grid:
            return self
        mask = effective_mask(self.grid, int(navigation_layers))     # (masks seeing the same cells share)
        level = self._layered.get(mask)
        if level is None:
            level = self._layered[mask] = LevelCache(grid, self.config, self._queue, self.cache_dir)
        elif level.out_of_date:                      # the base grid was edited since
            level.cells_changed(level.edits_since_known())
        return level

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

    def _apply_tile_edits(self) -> None:
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
        group order builds them under the planning budget: ``_tiles_in_progress``)."""
        checks.callback(progress, "progress", error=NavError)
        if self._tile_edits:
            self._apply_tile_edits()
        if self._tiles is None or (self._tiles.ready and self._tiles.version != self.grid.version):
            self._tiles = SectorGraph(self.grid, self.config.sector_size, progress)
        while not self._tiles.ready:
            self._tiles.build_some(1 << 30)
        return self._tiles

    def _tiles_in_progress(self) -> SectorGraph:
        """The level's sector tiles, possibly still being built (``SectorGraph.build_some``)."""
        if self._tile_edits:
            self._apply_tile_edits()
        if self._tiles is None or (self._tiles.ready and self._tiles.version != self.grid.version):
            self._tiles = SectorGraph.start(self.grid, self.config.sector_size)
        return self._tiles

    def clearance(self) -> np.ndarray:
        """Cells from each open cell to the nearest wall or map edge (``PassageMap``: cached per
        grid version, brought up to date round blocking edits)."""
        return self._passage_map.clearance()

    def passages(self, narrow: float) -> tuple[np.ndarray, np.ndarray]:
        """The level's narrow passages as ``(labels, widths)`` (``PassageMap.passages``)."""
        return self._passage_map.passages(narrow)

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

    def potential_job(self, goal: tuple[int, int]) -> CallJob:
        """A job building the artificial potential field toward ``goal`` (the paper's baseline)."""
        return CallJob(lambda: PotentialField.build(self.grid, goal), int(UNIT_RATES["field_per_cell"] * self.grid.width
                                                                          * self.grid.height))

    def field_job(self, goal: tuple[int, int]) -> CallJob | TilesOrderJob:
        """A job building the flow toward ``goal`` (cached when done)."""
        if self._tile_edits:
            self._apply_tile_edits()                   # a cached order re-planned first
        cached = self._fields.get(goal)
        if cached is not None:
            return CallJob(lambda: cached, 1)
        if self.uses_tiles:
            return TilesOrderJob(self._tiles_in_progress, goal)
        cells = int(self.grid.passable.sum())
        return CallJob(lambda: FlowField.build(self.grid, [goal], integration=self.config.flow_integration,
                                               rule=self.config.flow_rule),
                       int(UNIT_RATES["field_per_cell"] * cells))

    def cached_flow_field(self, goal: tuple[int, int]) -> FlowField | SectorOrder | None:
        """The cached flow toward ``goal``, or None (nothing is built here)."""
        if self._tile_edits:
            self._apply_tile_edits()
        key = (int(goal[0]), int(goal[1]))
        found = self._fields.get(key)
        if found is not None:
            self._fields.move_to_end(key)
        return found

    def want_flow_field(self, goal: tuple[int, int]) -> None:
        """Plan the flow toward ``goal`` under the budget (cached when done) unless it is cached
        or planned already."""
        key = (int(goal[0]), int(goal[1]))
        if key not in self._fields and ("field", key) not in self._queue:
            self._queue.submit(("field", key), self.field_job(key))

    def flow_field(self, goal: tuple[int, int]) -> FlowField | SectorOrder:
        """The flow toward ``goal``: cached, else built now (group orders plan theirs under the budget)."""
        key = self.grid.check_cell(goal, "goal")
        if self._tile_edits:
            self._apply_tile_edits()
        found = self._fields.get(key)
        if found is not None:
            self._fields.move_to_end(key)
            return found
        made = self.field_job(key).call()
        self.store_field(key, made)
        return made

    def store_field(self, goal, made) -> None:
        """Cache the flow toward ``goal``; idle fields (goals ``in_use`` does not name) beyond
        the memory budget go, oldest first."""
        key = (int(goal[0]), int(goal[1]))
        self._fields[key] = made
        self._fields.move_to_end(key)
        live = self.in_use()
        per_field = max(1, self.grid.width * self.grid.height * 12)
        spare = max(1, self.config.flow_cache_bytes // per_field)
        idle = [k for k in self._fields if k not in live]
        for k in idle[: max(0, len(idle) - spare)]:          # oldest idle fields go first
            del self._fields[k]

    def navmesh(self, progress=None):
        """The navmesh of ``navmesh`` agents, baked — or loaded from ``cache_dir`` — on first use."""
        checks.callback(progress, "progress", error=NavError)
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
    def surface(self):
        """The stacked-surface navmesh the crowd walks on (a ``LayeredNavMesh`` given to the
        crowd: agents' heights follow it, bodies on different surfaces never meet), or None."""
        mesh = self._navmesh
        return mesh if mesh is not None and hasattr(mesh, "follow_surface") else None

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
        checks.callback(progress, "progress", error=NavError)
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
            from ..flow.clearance import SizedGrids

            self._sized = SizedGrids(self.grid)
        return self._sized

    def ready_for_radius(self, radius: float) -> None:
        """Agents of ``radius`` (world units) were added: wider than half a cell, their class
        grid (and tiles) are made now, not in the tick of their first order."""
        if radius > WIDE * self.grid.cell_size:
            self.sized_grids().warm(radius, self.config.sector_size if self.uses_tiles else None)

    # ------------------------------------------------------------------ edits
    @property
    def out_of_date(self) -> bool:
        """True when the grid changed since the structures last followed it."""
        return self._version != self.grid.version

    def edits_since_known(self) -> np.ndarray | None:
        """Cells the grid recorded as edited since the structures last followed it (None: an
        edit it could not record, a wholesale change)."""
        return self.grid.passability_edits_since(self._version)

    def cells_changed(self, cells: np.ndarray | None) -> None:
        """Cells were opened, blocked or re-costed (None: an edit the grid could not record;
        ``_reset``): the caller's own hierarchy is updated in
        place, the crowd's own navmesh, waypoint graph and hierarchy are rebuilt off the tick
        (``rebuild.py``), the tiles follow in the first planning step (a job under the budget,
        before any group's new field: those are submitted later), and whole-map fields go."""
        if cells is None:
            self._reset()
            return
        if self._hierarchy is not None and "hierarchy" not in self.rebuilds.made:
            self._hierarchy.update(cells)
        self.rebuilds.edited()
        if self._sized is not None:
            self._sized.cells_changed(cells)
        if self._tiles is not None:
            # anything asking for the tiles before that job runs applies the edit first (``sector_graph``)
            self._tile_edits.append(cells)
            self._queue.submit(("tiles", 0), CallJob(self._apply_tile_edits, UNITS["tiles_update"]))
        else:
            self._fields.clear()
        self._version = self.grid.version
        self._goal_trees = None

    def _reset(self) -> None:
        """An edit the grid could not record: drop every structure that depended on the grid
        (the caller's own navmesh and waypoint graph stay; a caller's hierarchy too)."""
        self._fields.clear()
        self._goal_trees = None
        self._tiles = None
        self._tile_edits.clear()
        self._sized = None
        if self._hierarchy is not None and "hierarchy" not in self.rebuilds.made:
            self._hierarchy = None
        self.rebuilds.edited()
        self._version = self.grid.version

    def structure(self, kind: str):
        """The ``"navmesh"``, ``"waypoints"``, ``"hierarchy"``, ``"tiles"`` (sector tiles) or
        ``"goal_trees"`` held now (None: not made yet)."""
        return {"navmesh": self._navmesh, "waypoints": self._waypoints, "hierarchy": self._hierarchy,
                "tiles": self._tiles, "goal_trees": self._goal_trees}[kind]

    def replace(self, kind: str, built) -> None:
        """Put a rebuilt structure of ``kind`` in place of the stale one."""
        if kind == "navmesh":
            self._navmesh = built
            self._goal_trees = None
        elif kind == "waypoints":
            self._waypoints = built
        else:
            self._hierarchy = built


def wanted_in_tick(level: LevelCache, kind: str) -> None:
    """The ``"navmesh"``, ``"waypoints"`` or ``"hierarchy"`` of ``level`` is wanted inside a tick
    and not made yet (no ``prepare``): loaded now when ``cache_dir`` holds a usable bake; else baked
    by the rebuild worker (``bake_new``: its agents plan on the grid until it lands, and it is saved
    to ``cache_dir``) — never in the tick (AcrosstheCape's waypoint graph took 6.4 s there, its
    navmesh 2.3 s). Without a worker it is made here, as ``prepare`` would."""
    make = {"navmesh": level.navmesh, "waypoints": level.waypoints, "hierarchy": level.hierarchy}[kind]
    if not level.rebuilds.use_worker:
        make()
        return
    if level.cache_dir is not None:
        try:
            with loading_only():
                make()
            return
        except NotBaked:
            pass
    level.rebuilds.bake_new(kind, level.cache_dir)
    if not level.rebuilds.use_worker:      # the worker could not start: made here after all
        level.rebuilds.stale.discard(kind)
        make()


def _check_given(navmesh, waypoint_graph, hierarchy) -> None:
    """Refuse a structure given to the crowd that is not of its kind (a grid passed as the
    navmesh was taken and failed at the first navmesh order)."""
    from ..navmesh import LayeredNavMesh, NavMesh
    from ..waypoints.graph import WaypointGraph
    from ..waypoints.hierarchy import Hierarchy

    for name, value, kinds in (("navmesh", navmesh, (NavMesh, LayeredNavMesh)),
                               ("waypoint_graph", waypoint_graph, (WaypointGraph,)),
                               ("hierarchy", hierarchy, (Hierarchy,))):
        if value is not None and not isinstance(value, kinds):
            raise NavError(f"{name} must be a {' or '.join(k.__name__ for k in kinds)} (or None: baked when "
                           f"needed), got {type(value).__name__}")
