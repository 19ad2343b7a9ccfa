"""``Navigation``: the navigation of one level in one esper world, like a Godot NavigationServer map.

It owns the level's ``Crowd`` (``rtsnav.systems.nav.crowd``: the agents' arrays, plans, group
orders and movement) and maps esper entities to crowd agent ids. Components of a registered
entity are views onto its crowd row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from rtsnav.systems.nav import Grid, NavError
from rtsnav.systems.nav.bake_cache import default_cache_dir
from rtsnav.systems.nav.crowd import Crowd, CrowdConfig
from rtsnav.systems.nav.navmesh import NavMesh
from rtsnav.systems.nav.waypoints.graph import WaypointGraph

from .binding import ComponentBinding

__all__ = ["Navigation"]


class Navigation:
    """One level's navigation: its ``Grid`` and ``Crowd``, and which entity is which agent.

    One ``Navigation`` per esper world; ``rtsnav.systems.install(navigation)`` adds the processors.

    Args:
        grid: the level grid (``rtsnav.levels.load_movingai_map`` / ``Grid``).
        expansions_per_tick: the planning budget all plans share per tick, in work units (one
            unit ≈ one grid A* expansion; 20,000 ≈ 2.5 ms here), ≥ 1.
        max_searches: grid searches in progress at once, ≥ 1 (each holds ~28 bytes per cell).
        smoothing: ``"precise"``, ``"fast"`` or None: how grid paths become waypoints.
        weight: heuristic weight for agents whose method is ``"weighted"``, ≥ 1.
        flow_mode: ``"full"`` (whole-map flow fields), ``"tiles"`` (sector tiles) or ``"auto"``
            (tiles above 256×256 cells).
        sector_size: sector edge in cells for tiles, ≥ 4.
        corridor_width: leader corridor half-width, cells, ≥ 1.
        wall_avoidance: weight of the push away from walls for flow/leader agents, ≥ 0.
        stuck_after: seconds without progress before a ``stuck`` event and a recovery, > 0.
        congestion: congestion-aware group routes: a group's route avoids the routes other groups
            already follow when a detour is cheaper than the crowd (two armies use both bridges).
        contacts: hard contacts: no two agents overlap, even in a crush (``CrowdConfig.contacts``).
        flow_integration: ``"dijkstra"`` or ``"eikonal"`` flow fields (``CrowdConfig.flow_integration``).
        flow_rule: ``"descent"`` or ``"kernel"`` flow directions (``CrowdConfig.flow_rule``).
        flow_acceleration: 0, or the field as an acceleration in world units/s²
            (``CrowdConfig.flow_acceleration``).
        leader_fallback: ``"field"``, ``"astar"`` or ``"roles"``: how a leader group's follower
            gets back to its group (``CrowdConfig.leader_fallback``).
        leader_sight: cells within which ``"roles"`` followers see a mate (``CrowdConfig.leader_sight``).
        cache_dir: where bakes (hierarchy, navmesh, waypoint graph) are cached: by default the
            user's cache directory (``$RTSNAV_CACHE_DIR``, else ``~/.cache/rtsnav`` on Linux), never
            the installed package; ``False`` keeps bakes in memory. An unwritable folder falls back
            to memory with one warning.
        waypoint_graph / navmesh: structures to use instead of the default ones (flood-filled /
            baked from the grid with ``navmesh_radius`` on first use or by ``prepare``).
        navmesh_radius: agent radius the default navmesh is eroded by, world units, ≥ 0.
        rebuild_worker: rebuild the navmesh, waypoint graph and hierarchy after map edits in a
            worker process (``CrowdConfig.rebuild_worker``).
    """

    def __init__(self, grid: Grid, *, expansions_per_tick: int = 20_000, max_searches: int = 4,
                 smoothing: str | None = "precise", weight: float = 1.5, flow_mode: str = "auto",
                 sector_size: int = 16, corridor_width: float = 3.0, wall_avoidance: float = 3.0,
                 stuck_after: float = 4.0, congestion: bool = False, contacts: bool = False,
                 flow_integration: str = "dijkstra", flow_rule: str = "descent", flow_acceleration: float = 0.0,
                 leader_fallback: str = "field", leader_sight: float = 6.0, cache_dir: str | Path | None | bool = None,
                 waypoint_graph: WaypointGraph | None = None, navmesh: NavMesh | None = None,
                 navmesh_radius: float = 0.4, rebuild_worker: bool = True) -> None:
        if not isinstance(grid, Grid):
            raise NavError(f"Navigation needs a rtsnav.systems.nav.Grid, got {type(grid).__name__}")
        self.grid = grid
        self.cache_dir: Path | None = (None if cache_dir is False else
                                       default_cache_dir() if cache_dir is None or cache_dir is True
                                       else Path(cache_dir))
        config = CrowdConfig(planning_units=int(expansions_per_tick), max_searches=int(max_searches),
                             smoothing=smoothing, weight=float(weight), flow_mode=flow_mode,
                             sector_size=int(sector_size), corridor_width=float(corridor_width),
                             wall_avoidance=float(wall_avoidance), navmesh_radius=float(navmesh_radius),
                             stuck_after=float(stuck_after), congestion=bool(congestion),
                             contacts=bool(contacts), flow_integration=flow_integration, flow_rule=flow_rule,
                             flow_acceleration=float(flow_acceleration), leader_fallback=leader_fallback,
                             leader_sight=float(leader_sight), rebuild_worker=bool(rebuild_worker))
        self.crowd = Crowd(grid, config, navmesh=navmesh, waypoint_graph=waypoint_graph, cache_dir=self.cache_dir)
        #: which components hold positions / velocities (``install(position=...)`` sets it)
        self.binding = ComponentBinding()
        #: ``"rtsnav"``: rtsnav moves the bodies; ``"game"``: rtsnav only computes safe velocities
        self.movement = "rtsnav"
        #: entity -> crowd agent id, and per agent id the game's own bound components (if any)
        self.id_of: dict[int, int] = {}
        self.components: dict[int, tuple] = {}
        self.external: dict[int, tuple] = {}
        self._external_cache: tuple[np.ndarray, list, list, np.ndarray] | None = None

    # ------------------------------------------------------------------ reading state
    @property
    def agents(self):
        """The crowd's arrays (``CrowdState``): rows are agent ids (``agent_ids``)."""
        return self.crowd.state

    @property
    def tick(self) -> int:
        return self.crowd.tick

    def agent_ids(self, entities: Iterable[int]) -> np.ndarray:
        """Crowd agent ids of ``entities`` (``KeyError`` for an entity that is not an agent)."""
        return np.fromiter((self.id_of[e] for e in entities), dtype=np.int64)

    def positions(self, entities: Iterable[int]) -> np.ndarray:
        """World positions ``(N, 3)`` of ``entities``' agents."""
        return self.crowd.positions[self.agent_ids(entities)]

    def velocities(self, entities: Iterable[int]) -> np.ndarray:
        """Velocities ``(N, 3)`` of ``entities``' agents."""
        return self.crowd.velocities[self.agent_ids(entities)]

    # ------------------------------------------------------------------ structures
    @property
    def uses_tiles(self) -> bool:
        return self.crowd.uses_tiles

    def sector_graph(self, progress=None):
        return self.crowd.sector_graph(progress)

    def flow_field(self, goal: tuple[int, int]):
        """The flow toward goal cell ``goal`` (cached per goal)."""
        return self.crowd.flow_field(goal)

    def hierarchy(self, progress=None):
        return self.crowd.hierarchy(progress)

    def navmesh(self, progress=None) -> NavMesh:
        return self.crowd.navmesh(progress)

    def waypoints(self) -> WaypointGraph:
        return self.crowd.waypoints()

    def prepare(self, methods: Iterable[str] | None = None,
                progress: Callable[[str, int, int], None] | None = None, freeze_gc: bool = True) -> dict[str, float]:
        """Do at load time everything a first order would otherwise do inside a tick: compile (or
        load from numba's cache) every kernel the given planners use, and bake (or load from
        ``cache_dir``) the navmesh, hierarchy, sector tiles, waypoint graph and JPS+ table they need.

        Args:
            methods: planner names (``components.PLANNERS``); None prepares every planner.
            progress: optional ``callable(stage, done, total)`` for a loading screen.
            freeze_gc: end with ``gc.freeze()``, as game loops do after loading: what was made so
                far leaves the garbage collector's sweeps, so a tick that allocates (a 500-unit
                order) does not pay a full collection over the loaded level (~50 ms on the 512²
                highlands). Cycles made before it are then never collected; False keeps Python's
                default.

        Returns seconds per stage (``kernels``, ``navmesh``, ``hierarchy``, ``tiles``,
        ``waypoints``, ``jps+``). ``install`` calls it unless told ``prepare=False``.
        """
        from .prepare import prepare_navigation

        seconds = prepare_navigation(self, methods, progress)
        if freeze_gc:
            from .nav.crowd.prepare import freeze_after_load

            freeze_after_load()
        return seconds

    def cells_changed(self, cells: np.ndarray) -> None:
        """Tell the navigation that ``cells`` were opened, blocked or re-costed on its grid
        (after ``Grid.set_passable`` / ``set_cost``): tiles and the hierarchy update only what was
        touched, and every agent on its way re-plans."""
        self.crowd.cells_changed(cells)

    # ------------------------------------------------------------------ the game's components
    def external_view(self) -> tuple[np.ndarray, list, list, np.ndarray]:
        """Agent ids bound to the game's own components, those position components, the
        velocity components, and which ids have one."""
        if self._external_cache is None:
            ids = sorted(self.external)
            positions = [self.external[i][0] for i in ids]
            has_velocity = np.array([self.external[i][1] is not None for i in ids], dtype=bool)
            velocities = [self.external[i][1] for i in ids if self.external[i][1] is not None]
            self._external_cache = (np.array(ids, dtype=np.int64), positions, velocities, has_velocity)
        return self._external_cache

    def __repr__(self) -> str:
        return f"Navigation({self.grid!r}, agents={self.crowd.state.alive_count}, plans={len(self.crowd.queue)})"
