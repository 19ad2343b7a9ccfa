"""``Navigation``: the navigation of one level in one esper world, like a Godot NavigationServer map.

It owns the level's ``Crowd`` (``rtsnav.systems.nav.crowd``: the agents' arrays, plans, group
orders and movement) and maps esper entities to crowd agent ids. Components of a registered
entity are views onto its crowd row.
"""

from __future__ import annotations

import os
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
        config: the crowd's settings (``CrowdConfig``: planning budget, smoothing, flow mode,
            avoidance, congestion, contacts, rebuild worker, …); None: the defaults.
        cache_dir: where bakes (hierarchy, navmesh, waypoint graph) are cached: by default the
            user's cache directory (``$RTSNAV_CACHE_DIR``, else ``~/.cache/rtsnav`` on Linux), never
            the installed package; ``False`` keeps bakes in memory. An unwritable folder falls back
            to memory with one warning.
        waypoint_graph / navmesh: structures to use instead of the default ones (flood-filled /
            baked from the grid with ``config.navmesh_radius`` on first use or by ``prepare``).
    """

    def __init__(self, grid: Grid, config: CrowdConfig | None = None, *, cache_dir: str | Path | None | bool = None,
                 navmesh: NavMesh | None = None, waypoint_graph: WaypointGraph | None = None) -> None:
        if not isinstance(grid, Grid):
            raise NavError(f"Navigation needs a rtsnav.systems.nav.Grid, got {type(grid).__name__}")
        if config is not None and not isinstance(config, CrowdConfig):
            raise NavError(f"Navigation(config=...) needs a CrowdConfig, got {type(config).__name__}")
        self.grid = grid
        if not (cache_dir is None or isinstance(cache_dir, (bool, str, os.PathLike))):
            raise NavError(f"Navigation(cache_dir=...) must be a folder path, True (the default folder), False "
                           f"(no cache) or None, got {cache_dir!r}")
        self.cache_dir: Path | None = (None if cache_dir is False else
                                       default_cache_dir() if cache_dir is None or cache_dir is True
                                       else Path(cache_dir))
        self.crowd = Crowd(grid, config, navmesh=navmesh, waypoint_graph=waypoint_graph, cache_dir=self.cache_dir)
        self.crowd.agents.navigation = self            # (``NavigationAgent.get_navigation_map``)
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
        """The crowd's agent table (``CrowdState``): rows are agent ids (``agent_ids``)."""
        return self.crowd.agents

    @property
    def tick(self) -> int:
        return self.crowd.tick

    def agent_ids(self, entities: Iterable[int]) -> np.ndarray:
        """Crowd agent ids of ``entities`` (``KeyError`` for an entity that is not an agent)."""
        if isinstance(entities, (str, bytes)) or not hasattr(entities, "__iter__"):
            raise NavError(f"entities must be an iterable of entity ids, got {entities!r:.100}")
        try:
            return np.fromiter((self.id_of[e] for e in entities), dtype=np.int64)
        except TypeError:                                   # an unhashable entity: no such entity
            raise NavError(f"entities must be entity ids (integers), got {entities!r:.100}") from None

    def positions(self, entities: Iterable[int]) -> np.ndarray:
        """World positions ``(N, 3)`` of ``entities``' agents."""
        return self.crowd.positions[self.agent_ids(entities)]

    def velocities(self, entities: Iterable[int]) -> np.ndarray:
        """Velocities ``(N, 3)`` of ``entities``' agents."""
        return self.crowd.velocities[self.agent_ids(entities)]

    # ------------------------------------------------------------------ structures
    @property
    def uses_tiles(self) -> bool:
        return self.crowd.level.uses_tiles

    def sector_graph(self, progress=None):
        return self.crowd.level.sector_graph(progress)

    def flow_field(self, goal: tuple[int, int]):
        """The flow toward goal cell ``goal`` (cached per goal)."""
        return self.crowd.level.flow_field(goal)

    def hierarchy(self, progress=None):
        return self.crowd.level.hierarchy(progress)

    def navmesh(self, progress=None) -> NavMesh:
        return self.crowd.level.navmesh(progress)

    def waypoints(self) -> WaypointGraph:
        return self.crowd.level.waypoints()

    def prepare(self, methods: Iterable[str] | None = None,
                progress: Callable[[str, int, int], None] | None = None, freeze_gc: bool = True,
                navigation_layers: Iterable[int] = ()) -> dict[str, float]:
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

        ``navigation_layers``: layer masks whose own structures to bake too (Godot's agent
        ``navigation_layers`` on a grid with ``Grid.set_layers``; the agents' masks are baked anyway).

        Returns seconds per stage (``kernels``, ``navmesh``, ``hierarchy``, ``tiles``,
        ``waypoints``, ``jps+``). ``install`` calls it unless told ``prepare=False``.
        """
        return self.crowd.prepare(methods, progress, freeze_gc, navigation_layers)

    @property
    def agent_count(self) -> int:
        """How many agents the crowd has (one per entity with a ``NavigationAgent``)."""
        return int(self.crowd.agents.alive_count)

    def occupants(self, cells) -> list[int]:
        """Entities whose agent's body overlaps any of ``cells`` (``(N, 2)`` x, y): a game may
        refuse to close a gate while this is not empty."""
        owner = self.crowd.agents.owner
        return [int(owner[i]) for i in self.crowd.occupants(cells).tolist() if owner[i] >= 0]

    def cells_changed(self, cells: np.ndarray) -> None:
        """Tell the navigation that ``cells`` were opened, blocked or re-costed on its grid
        (after ``Grid.set_passable`` / ``set_cost``): tiles and the hierarchy update only what was
        touched, and every agent on its way re-plans."""
        self.crowd.cells_changed(cells)

    # ------------------------------------------------------------------ the game's components
    def external_changed(self) -> None:
        """The set of agents bound to the game's own components changed (``external_view`` is
        read afresh)."""
        self._external_cache = None

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
        return f"Navigation({self.grid!r}, agents={self.crowd.agents.alive_count}, plans={len(self.crowd.queue)})"
