"""``Navigation``: the navigation state of one level, like a Godot NavigationServer map."""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from rtsnav.systems.nav import Grid, NavError
from rtsnav.systems.nav.bake_cache import default_cache_dir
from rtsnav.systems.nav.flow.field import FlowField
from rtsnav.systems.nav.flow.sectors import SectorGraph, SectorOrder
from rtsnav.systems.nav.navmesh import NavMesh
from rtsnav.systems.nav.waypoints.graph import WaypointGraph
from rtsnav.systems.nav.waypoints.hierarchy import Hierarchy

from .agents import AgentTable
from .binding import ComponentBinding
from .requests import PathRequestQueue

__all__ = ["Navigation"]


class Navigation:
    """Owns a level's ``Grid`` and everything the processors share: the agent table, the
    path request queue, and (as they land) the navmesh, hierarchy and flow-field cache.

    One ``Navigation`` per esper world; ``systems.install(navigation)`` adds the processors.

    Args:
        grid: the level grid (``levels.load_movingai_map`` / ``Grid``).
        expansions_per_tick: node expansions all path requests share per tick (the time-slicing
            budget), ≥ 1. 20,000 is about 2.5 ms of A* on this project's reference machine.
        max_searches: path searches in progress at once, ≥ 1 (each holds ~28 bytes per cell).
        smoothing: ``"precise"``, ``"fast"`` or None: how grid paths become waypoints.
        weight: heuristic weight for agents whose method is ``"weighted"``, ≥ 1.
        flow_mode: ``"full"`` (whole-map flow fields), ``"tiles"`` (sector tiles, fields built
            per sector on demand) or ``"auto"`` (tiles above 512×512 cells).
        sector_size: sector edge in cells for tiles, ≥ 4.
        corridor_width: leader corridor half-width, cost units (cells), ≥ 1.
        wall_avoidance: weight of the push away from walls for flow/leader agents, ≥ 0
            (above the flock weights, so crowds never press units into walls).
        flow_cache: whole-map flow fields kept (LRU), ≥ 1.
        cache_dir: where bakes (hierarchy, navmesh) are cached on disk: by default the user's
            cache directory (``$RTSNAV_CACHE_DIR``, else ``~/.cache/rtsnav`` on Linux), never the
            installed package; ``False`` keeps bakes in memory only. A folder that cannot be
            written falls back to memory with one warning.
        waypoint_graph: the graph agents with ``method="waypoints"`` use; by default one is
            flood-filled (spacing 4 cells) from the middle of the largest region on first use.
        navmesh: the mesh agents with ``method="navmesh"`` use; by default baked from the grid on
            first use with ``navmesh_radius``.
        navmesh_radius: agent radius the default navmesh is eroded by, world units, ≥ 0.
    """

    def __init__(self, grid: Grid, *, expansions_per_tick: int = 20_000, max_searches: int = 4,
                 smoothing: str | None = "precise", weight: float = 1.5, flow_mode: str = "auto",
                 sector_size: int = 16, corridor_width: float = 3.0, wall_avoidance: float = 3.0,
                 flow_cache: int = 8, cache_dir: str | Path | None | bool = None,
                 waypoint_graph: WaypointGraph | None = None, navmesh: NavMesh | None = None,
                 navmesh_radius: float = 0.4) -> None:
        if not isinstance(grid, Grid):
            raise NavError(f"Navigation needs a systems.nav.Grid, got {type(grid).__name__}")
        if smoothing not in ("precise", "fast", None):
            raise NavError(f"smoothing must be 'precise', 'fast' or None, got {smoothing!r}")
        if flow_mode not in ("auto", "full", "tiles"):
            raise NavError(f"flow_mode must be 'auto', 'full' or 'tiles', got {flow_mode!r}")
        if not corridor_width >= 1.0:
            raise NavError(f"corridor_width must be >= 1, got {corridor_width!r}")
        if not wall_avoidance >= 0.0:
            raise NavError(f"wall_avoidance must be >= 0, got {wall_avoidance!r}")
        self.grid = grid
        self.smoothing = smoothing
        self.agents = AgentTable()
        self.requests = PathRequestQueue(grid, expansions_per_tick, max_searches, weight=weight)
        self.tick = 0
        self.flow_mode = flow_mode
        self.sector_size = int(sector_size)
        self.corridor_width = float(corridor_width)
        self.wall_avoidance = float(wall_avoidance)
        self.flow_cache = int(flow_cache)
        self._fields: OrderedDict[tuple[int, int], FlowField | SectorOrder] = OrderedDict()
        self._tiles: SectorGraph | None = None
        self._fields_version = grid.version
        self.cache_dir: Path | None = (None if cache_dir is False else
                                       default_cache_dir() if cache_dir is None or cache_dir is True
                                       else Path(cache_dir))
        #: which components hold positions / velocities (``install(position=...)`` sets it)
        self.binding = ComponentBinding()
        #: ``"rtsnav"``: rtsnav moves the bodies; ``"game"``: rtsnav only computes safe velocities
        self.movement = "rtsnav"
        self._hierarchy: Hierarchy | None = None
        self._waypoints = waypoint_graph
        self._navmesh = navmesh
        self.navmesh_radius = float(navmesh_radius)

    # ------------------------------------------------------------- flow fields
    @property
    def uses_tiles(self) -> bool:
        """True when flow orders use sector tiles rather than whole-map fields."""
        if self.flow_mode == "auto":
            return self.grid.width * self.grid.height > 512 * 512
        return self.flow_mode == "tiles"

    def sector_graph(self, progress=None) -> SectorGraph:
        """The level's sector tiles, built on first use."""
        if self._tiles is None or self._tiles.version != self.grid.version:
            self._tiles = SectorGraph(self.grid, self.sector_size, progress)
        return self._tiles

    def flow_field(self, goal: tuple[int, int]) -> FlowField | SectorOrder:
        """The flow toward goal cell ``goal``: a whole-map ``FlowField`` or a ``SectorOrder``
        (both have ``sample(points)``), cached per goal, rebuilt after grid edits."""
        if self._fields_version != self.grid.version:
            self._fields.clear()
            self._fields_version = self.grid.version
        key = (int(goal[0]), int(goal[1]))
        found = self._fields.get(key)
        if found is not None:
            self._fields.move_to_end(key)
            return found
        if self.uses_tiles:
            made: FlowField | SectorOrder = self.sector_graph().order(key)
        else:
            made = FlowField.build(self.grid, [key])
        self._fields[key] = made
        while len(self._fields) > self.flow_cache:
            self._fields.popitem(last=False)
        return made

    def hierarchy(self, progress=None) -> Hierarchy:
        """The level's waypoint hierarchy (agents with ``method="hierarchy"``), built — or loaded
        from ``cache_dir`` — on first use."""
        if self._hierarchy is None:
            if self.cache_dir is not None:
                self._hierarchy = Hierarchy.cached(self.grid, self.cache_dir, progress=progress)
            else:
                self._hierarchy = Hierarchy.build(self.grid, progress=progress)
        return self._hierarchy

    def navmesh(self, progress=None) -> NavMesh:
        """The navmesh of ``method="navmesh"`` agents, baked — or loaded from ``cache_dir`` — on
        first use (``prepare`` does that at load time)."""
        if self._navmesh is None:
            if self.cache_dir is not None:
                self._navmesh = NavMesh.cached(self.grid, self.cache_dir, agent_radius=self.navmesh_radius,
                                               progress=progress)
            else:
                self._navmesh = NavMesh.from_grid(self.grid, agent_radius=self.navmesh_radius, progress=progress)
        return self._navmesh

    def waypoints(self) -> WaypointGraph:
        """The waypoint graph of ``method="waypoints"`` agents (flood-filled on first use)."""
        if self._waypoints is None:
            labels = self.grid.components()
            big = np.bincount(labels[labels >= 0]).argmax()
            cells = np.argwhere(labels == big)[:, ::-1]
            centre = cells.mean(axis=0)
            seed = cells[np.argmin(np.hypot(*(cells - centre).T))]
            seed_cell = tuple(int(v) for v in seed)
            if self.cache_dir is not None:
                self._waypoints = WaypointGraph.cached_floodfill(self.grid, self.cache_dir, seed_cell, spacing=4)
            else:
                self._waypoints = WaypointGraph.floodfill(self.grid, seed_cell, spacing=4)
        return self._waypoints

    def prepare(self, methods: Iterable[str] | None = None,
                progress: Callable[[str, int, int], None] | None = None) -> dict[str, float]:
        """Do at load time everything a first order would otherwise do inside a tick: compile (or
        load from numba's cache) every kernel the given planners use, and bake (or load from
        ``cache_dir``) the navmesh, hierarchy, sector tiles and waypoint graph they need.

        Args:
            methods: planner names (``components.PLANNERS``); None prepares every planner.
            progress: optional ``callable(stage, done, total)`` for a loading screen.

        Returns seconds per stage (``kernels``, ``navmesh``, ``hierarchy``, ``tiles``,
        ``waypoints``). ``install`` calls it unless told ``prepare=False``.
        """
        from .prepare import prepare_navigation

        return prepare_navigation(self, methods, progress)

    def cells_changed(self, cells: np.ndarray) -> None:
        """Tell the navigation that ``cells`` were opened, blocked or re-costed on its grid
        (after ``Grid.set_passable`` / ``set_cost``): tiles and the hierarchy update only the
        sectors / clusters touched."""
        if self._hierarchy is not None:
            self._hierarchy.update(cells)
        # every agent on its way re-plans against the new grid (one request each)
        from rtsnav.components import NavState
        from rtsnav.components.navigation import F_HAS_TARGET, F_TARGET_DIRTY

        n = self.agents.count
        state = self.agents.nav_state[:n, 0]
        moving = ((state == NavState.FOLLOWING) | (state == NavState.PLANNING)) & self.agents.agent_flags[:n, F_HAS_TARGET]
        self.agents.agent_flags[:n, F_TARGET_DIRTY] |= moving
        if self._tiles is not None:
            self._tiles.update(cells)
            for order in self._fields.values():
                if isinstance(order, SectorOrder):
                    order.replan()
            self._fields_version = self.grid.version
        else:
            self._fields.clear()

    def __repr__(self) -> str:
        return (f"Navigation({self.grid!r}, agents={self.agents.count}, "
                f"pending_requests={len(self.requests)})")
