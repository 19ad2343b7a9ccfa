"""``Crowd``: every agent of a level, its orders, plans and movement — one ``update(dt)`` a tick.

Shaped like Detour's ``dtCrowd``: a small facade over parts that each own their data —
``agents`` (the agent table, ``state.py``), ``level`` (the baked structures, ``level_cache.py``),
the planning queue with one per-tick budget (``planners.py``), the plan jobs (``planning.py``),
orders and recovery (``orders.py``), groups (``groups.py``), motion (``motion.py``) and the
tick's outcomes (``events.py``). It needs no esper:

>>> import numpy as np
>>> from rtsnav.systems.nav import Grid
>>> from rtsnav.systems.nav.crowd import Crowd
>>> crowd = Crowd(Grid(np.ones((20, 30), dtype=bool)))
>>> ids = crowd.add_agents([(2.5, 2.5), (2.5, 4.5)], radius=0.4, max_speed=4.0)
>>> crowd.move(ids, (25.5, 10.5), planner="astar")
>>> reached = []
>>> for _ in range(300):
...     reached += crowd.update(1 / 30).reached.tolist()
>>> sorted(reached)
[0, 1]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from rtsnav import checks
from rtsnav.names import GROUP_PLANNERS, PLANNERS, canonical_planner, unknown_name

from ..errors import NavError
from ..grid import Grid
from .agent_checks import agent_ids, check_group, check_settings, check_speeds, check_targets, check_tick, one_agent
from .chaining import settle_chained, settle_in_crowd
from .config import CrowdConfig, config_or_default
from .events import CrowdEvents, Outcomes
from .following import follow_paths
from .groups import GroupSteering
from .level_cache import LevelCache
from .motion import Motion
from .orders import Orders
from .placement import free_walled_in, occupants
from .planners import PlanQueue
from .planning import Planning
from .progress import watch_progress
from .state import AgentStatus, CrowdState
from .steering import apply_flocking
from .steering_inputs import SteeringInputs

__all__ = ["Crowd", "CrowdConfig", "CrowdEvents"]

#: Ticks between checks of single units settling beside units already at their target.
CHAIN_CHECK_EVERY = 4


class Crowd:
    """All agents of one level (see the module docs). ``config`` holds the settings;
    ``navmesh`` / ``waypoint_graph`` / ``hierarchy`` may be given, else they are baked (or loaded
    from ``cache_dir``) by ``prepare`` or on first use. Parts a caller may read: ``agents`` (the
    agent table the esper plugin binds components to), ``level`` (the baked structures), ``groups``
    (group orders), ``queue`` (planning queue), ``planning`` (plan jobs), ``inputs`` (velocities, obstacles)."""

    grid: checks.SetOnce[Grid] = checks.SetOnce()           # its parts hold both from the start: never replaced
    config: checks.SetOnce[CrowdConfig] = checks.SetOnce()
    __copy__ = checks.snapshot_copy          # a crowd of its own (saved games, rollback), never a second view

    def __init__(self, grid: Grid, config: CrowdConfig | None = None, *, navmesh=None, waypoint_graph=None,
                 hierarchy=None, cache_dir: str | Path | None = None) -> None:
        if not isinstance(grid, Grid):
            raise NavError(f"Crowd needs a Grid, got {type(grid).__name__}")
        self.grid, self.config = grid, config_or_default(config)
        cfg, self.agents = self.config, CrowdState()
        self.queue = PlanQueue(cfg.planning_units)
        self.level = LevelCache(grid, cfg, self.queue, cache_dir,
                                navmesh=navmesh, waypoint_graph=waypoint_graph, hierarchy=hierarchy)
        self._outcomes = Outcomes(self.agents, self.queue)
        self.planning = Planning(self.agents, grid, cfg, self.level)
        self.groups = GroupSteering(self.agents, grid, cfg, self.queue, self.level, self.planning, self._outcomes)
        self._orders = Orders(self.agents, grid, cfg, self.queue, self._outcomes, self.planning, self.groups, self.level)
        self._motion = Motion(self.agents, grid, cfg, self.level)
        self.inputs = SteeringInputs(self.agents, self.add_agents)
        self.tick = 0                           # ticks run so far

    # ================================================================ agents
    @property
    def positions(self) -> np.ndarray:
        """``(size, 3) float64`` world positions, row = agent id (dead rows are zeros)."""
        return self.agents.position[: self.agents.size]

    @property
    def velocities(self) -> np.ndarray:
        """``(size, 3) float64`` velocities, world units / s, row = agent id."""
        return self.agents.velocity[: self.agents.size]

    @property
    def states(self) -> np.ndarray:
        """``(size,) int8`` each agent's ``NavState`` (read-only view), row = agent id."""
        view = self.agents.nav_state[: self.agents.size, 0]
        view.flags.writeable = False
        return view

    @property
    def alive(self) -> np.ndarray:
        """``(size,) bool``: which ids hold an agent."""
        return self.agents.alive[: self.agents.size]

    def add_agents(self, positions, *, radius: float = 0.4, max_speed: float = 4.0, path_desired_distance: float = 1.0,
                   target_desired_distance: float = 1.0, path_max_distance: float = 5.0, group: int = -1,
                   separation: float = 1.5, cohesion: float = 0.3, alignment: float = 0.3,
                   flock_radius: float = 4.0, avoidance: bool = False) -> np.ndarray:
        """Add agents at world ``positions`` (``(N, 2|3)``); returns their ids (stable until
        removed). ``group`` ≥ 0 puts them in a flock (flocking weights and radius);
        ``avoidance`` turns on reciprocal avoidance with every other agent. Agents wider than
        half a cell plan only through cells that clear their radius (``clearance.py``)."""
        pos = check_settings(positions, self.grid.cell_size, self.config, radius=radius, max_speed=max_speed,
                             path_desired_distance=path_desired_distance,
                             target_desired_distance=target_desired_distance, path_max_distance=path_max_distance,
                             flock_radius=flock_radius, separation=separation, cohesion=cohesion,
                             alignment=alignment)
        check_group(group)
        avoidance = checks.flag(avoidance, "avoidance", error=NavError)
        ids, s = self.agents.allocate(len(pos)), self.agents
        s.position[ids, : pos.shape[1]] = pos
        s.agent_params[ids] = (max_speed, radius, path_desired_distance, target_desired_distance, path_max_distance)
        s.flock_group[ids, 0] = int(group)
        s.flock_params[ids] = (separation, cohesion, alignment, flock_radius)
        s.avoidance[ids] = avoidance
        self.level.ready_for_radius(radius)
        return ids

    def remove(self, ids) -> None:
        """Remove agents; their ids may be reused by later adds, no other agent is renumbered."""
        ids = agent_ids(self.agents, ids)
        for i in ids.tolist():
            self.queue.cancel(("agent", i))
        self.agents.release(ids)

    def move(self, ids, target: Sequence[float] | np.ndarray, planner: str = "astar", *,
             group: int | None = None) -> None:
        """Order agents to world ``target`` with ``planner`` (``PLANNERS``); group planners move
        agents sharing a ``group`` (default: their flock group, else one new group) as one.
        ``target`` may also be one point per agent (``(N, 2)`` or ``(N, 3)``: a formation)."""
        ids = agent_ids(self.agents, ids)
        name = canonical_planner(planner)
        if name not in PLANNERS:
            raise NavError(unknown_name("planner", planner, PLANNERS))
        s = self.agents
        s.target[ids] = check_targets(target, ids)
        s.agent_method[ids, 0] = PLANNERS.index(name)
        if group is not None:
            check_group(group)
            s.flock_group[ids, 0] = int(group)
        elif name in GROUP_PLANNERS and (s.flock_group[ids, 0] < 0).any():
            s.flock_group[ids[s.flock_group[ids, 0] < 0], 0] = 1_000_000 + self.tick * 1000 + int(ids.min()) % 1000
        s.has_target[ids] = True
        s.target_dirty[ids] = True

    def stop(self, ids) -> None:
        """Drop the agents' targets: they stand (IDLE)."""
        ids = agent_ids(self.agents, ids)
        self.agents.has_target[ids], self.agents.target_dirty[ids] = False, True

    def pause(self, ids, paused: bool = True) -> None:
        """Stand still keeping target and path (``paused=False`` resumes)."""
        self.agents.paused[agent_ids(self.agents, ids)] = checks.flag(paused, "paused", error=NavError)

    def set_speed(self, ids, max_speed) -> None:
        """Change the agents' top speed (world units / s, > 0; one value or one per id); orders go on."""
        ids = agent_ids(self.agents, ids)
        self.agents.max_speed[ids] = check_speeds(max_speed, ids, self.grid.cell_size, self.config)

    def status(self, ids) -> AgentStatus:
        """What the agents ``ids`` were ordered and with which settings (``AgentStatus``: target,
        pending, paused, speed, radius, path index, group), as arrays."""
        return self.agents.status(agent_ids(self.agents, ids))

    def path(self, agent: int) -> np.ndarray:
        """The agent's current path, world ``(N, 3)``."""
        return self.agents.path_points(one_agent(self.agents, agent))

    def occupants(self, cells) -> np.ndarray:
        """Ids of live units whose body overlaps any of ``cells`` (``(N, 2)``): gates check it."""
        return occupants(self.agents, self.grid, cells)

    # ================================================================= update
    def prepare(self, methods: Iterable[str] | None = None, progress: Callable[[str, int, int], None] | None = None,
                freeze_gc: bool = True, navigation_layers: Iterable[int] = ()) -> dict[str, float]:
        """Do at load time what a first order would otherwise do inside a tick: compile (or load from numba's
        cache) every kernel ``methods`` use (None: every planner) in a practice run on a small level, and bake
        (or load from ``cache_dir``) the structures they need, for the agents' navigation layers and
        ``navigation_layers`` too. ``progress(stage, done, total)`` is called per stage; ``freeze_gc`` ends with
        ``gc.freeze()``. Returns seconds per stage."""
        from .agent_checks import layer_masks
        from .warmup import freeze_after_load, prepare_crowd
        progress, freeze_gc = (checks.callback(progress, "progress", error=NavError),
                               checks.flag(freeze_gc, "freeze_gc", error=NavError))
        live = self.agents.agent_layers[: self.agents.size, 2][self.alive]
        masks = sorted(set(np.unique(live).tolist()) | layer_masks(navigation_layers))
        seconds = prepare_crowd(self.level, type(self), methods, progress, masks=masks, workspaces=self.planning.pool)
        if freeze_gc:
            freeze_after_load()
        return seconds

    def update(self, dt: float, *, movement: str = "rtsnav", waypoints: bool = False,
               velocities: bool = False) -> CrowdEvents:
        """One tick of ``dt`` seconds (≥ 0; 0 does nothing; at most ``CrowdConfig.max_tick`` is
        simulated): orders, plans under the budget, path following, group steering, flocking,
        movement, the progress watch. ``movement="game"``: the caller moves the bodies;
        ``waypoints`` / ``velocities``: report waypoints passed / walking agents' velocities."""
        dt = min(check_tick(dt, movement, waypoints, velocities), self.config.max_tick)
        self._outcomes.begin()
        if self.level.rebuilds.in_flight:
            self.level.rebuilds.take()
        if dt == 0 or self.agents.size == 0:
            return CrowdEvents()
        if self.level.out_of_date:
            self._grid_changed()
        parked = self._orders.park_far_agents()
        try:
            return self._tick(dt, movement, waypoints, velocities)
        finally:
            self._orders.unpark(parked)

    def _tick(self, dt: float, movement: str, waypoints: bool, velocities: bool) -> CrowdEvents:
        s, orders = self.agents, self._orders
        orders.refuse_bad_agents()
        # new bodies standing on each other move apart (a big heap over several bounded ticks)
        s.spawned = s.spawned and movement == "rtsnav" and not self._motion.separate()
        if not s.spawned:
            s.newcomers.clear()
        orders.take()
        for key, job in self.queue.service():
            orders.finished(key, job)
        self._motion.rest()
        followed = follow_paths(s, self.grid, dt, self.tick, waypoints, self.level.surface)
        self.groups.detours_ended(followed)
        self._outcomes.arrive(followed.arrived)
        if self.tick % CHAIN_CHECK_EVERY == 0:
            self._outcomes.arrive(settle_chained(s, self.grid.view))
        if len(followed.drifted):
            orders.replan(followed.drifted)
        self.groups.update(dt, self._motion.pace())
        apply_flocking(s, self.grid, self.config.wall_avoidance, self.tick)
        self._motion.avoid(dt)
        self._motion.move(dt, movement)
        waited, stuck, churning, unplanned = watch_progress(s, dt, self.grid.cell_size, self.config.stuck_after)
        self._outcomes.waiting_for_plans(unplanned)
        if len(waited):
            waited = self.groups.settle_if_near(waited)
            arrived = settle_in_crowd(s, waited, self.grid.cell_size)
            if len(arrived):
                self._outcomes.arrive(arrived)
                waited = np.setdiff1d(waited, arrived)
            stuck = np.intersect1d(stuck, waited, assume_unique=True)
            orders.recover(waited, stuck, churning)
        self.tick += 1
        return self._outcomes.events(followed, waited, self._motion.walking() if velocities else np.zeros(0, dtype=np.int64))

    # ============================================================= map edits
    def cells_changed(self, cells) -> None:
        """Cells were opened, blocked or re-costed (after ``Grid.set_passable`` / ``set_cost``):
        agents standing in cells now blocked step to the nearest open cell, the level's
        structures follow (``LevelCache.cells_changed``; the navmesh, waypoint graph and
        hierarchy are rebuilt off the tick, their agents plan on the grid meanwhile), and every
        walking agent re-plans."""
        cells = checks.cells(cells, "cells", self.grid.width, self.grid.height, error=NavError)
        self.level.cells_changed(cells)
        self.planning.cells_changed(cells)
        self._free_and_replan(cells)
        self.groups.orders.clear()

    def finish_rebuilds(self, timeout: float | None = None) -> list[str]:
        """Wait for the navmesh / waypoint graph / hierarchy rebuilds after map edits (or, with
        ``rebuild_worker=False``, rebuild them now); returns the kinds swapped in. For loading
        screens and tests; a game's ticks never wait."""
        return self.level.rebuilds.finish(timeout)

    def _grid_changed(self) -> None:
        """The grid changed without ``cells_changed`` (its version stamp moved): the edits the
        grid recorded are treated as if announced; an edit it could not record (a wholesale
        change) drops every structure that depended on the grid and re-plans everyone."""
        edited = self.level.edits_since_known()
        if edited is not None and len(edited):
            self.cells_changed(edited)
            return
        self.level.cells_changed(None)
        self.planning.forget_searches()
        self.groups.orders.clear()
        self._free_and_replan()

    def _free_and_replan(self, cells: np.ndarray | None = None) -> None:
        """After an edit of ``cells`` (None: any): units in closed cells step out (reported as
        ``displaced``); units on their way re-plan (``Orders.replan_after_edit``)."""
        s, n = self.agents, self.agents.size
        moved = free_walled_in(s, self.grid, np.flatnonzero(s.alive[:n] & ~s.obstacle[:n]))
        self._outcomes.displaced(moved)
        self._orders.replan_after_edit(moved, cells)
