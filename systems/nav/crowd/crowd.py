"""``Crowd``: every agent of a level, its orders, plans and movement — one ``update(dt)`` a tick.

Modelled on Detour's ``dtCrowd``: the crowd owns the agents' arrays, their stated modes, the
group orders and one planning queue with one per-tick budget; the esper plugin only binds
components to its rows. It needs no esper:

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

import math
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np
from numba import njit

from ..clearance import WIDE
from ..errors import NavError
from ..flow.field import FlowField
from ..flow.sectors import SectorGraph, SectorOrder
from ..grid import Grid, finite_point
from ..result import PathStatus
from ..search.sliced import WorkspacePool
from .chaining import chained_arrivals
from .config import CrowdConfig, CrowdEvents, _Collect
from .following import follow_paths
from .groups import FLOW_CODES, GroupSteering
from .jobs import CrowdJobs
from .motion import CrowdMotion
from .planners import GridJob, PlanQueue, Route
from .progress import watch_progress
from .rebuild import StructureRebuilds
from .state import (
    F_AVOIDANCE,
    F_HAS_TARGET,
    F_PAUSED,
    F_TARGET_DIRTY,
    GROUP_PLANNERS,
    P_MAX_SPEED,
    P_RADIUS,
    PLANNERS,
    CrowdState,
    Mode,
    NavState,
)
from .steering import apply_flocking

__all__ = ["Crowd", "CrowdConfig", "CrowdEvents"]

#: Ticks between checks of single units settling beside units already at their target.
CHAIN_CHECK_EVERY = 4
#: Single units' orders whose plans are queued in one tick (the rest wait a tick or more).
ORDERS_PER_TICK = 150


class Crowd(CrowdJobs, CrowdMotion):
    """All agents of one level (see the module docs). ``state`` holds the arrays; ``config`` the
    settings; ``navmesh`` / ``waypoint_graph`` / ``hierarchy`` may be given, else they are baked
    (or loaded from ``cache_dir``) by ``prepare`` or on first use."""

    def __init__(self, grid: Grid, config: CrowdConfig | None = None, *, navmesh=None, waypoint_graph=None,
                 hierarchy=None, cache_dir: str | Path | None = None) -> None:
        if not isinstance(grid, Grid):
            raise NavError(f"Crowd needs a Grid, got {type(grid).__name__}")
        self.grid = grid
        self.config = config if config is not None else CrowdConfig()
        self.state = CrowdState()
        self.queue = PlanQueue(self.config.planning_units)
        self.pool = WorkspacePool(grid, self.config.max_searches)
        self.groups = GroupSteering(self)
        self.cache_dir = None if cache_dir is None else Path(cache_dir)
        self.movement = "crowd"                  # or "caller": positions are the caller's to move
        self.report_waypoints = False
        self.report_velocities = False          # fill CrowdEvents.moving / velocities
        self.tick = 0
        self._navmesh, self._waypoints, self._hierarchy = navmesh, waypoint_graph, hierarchy
        self._tiles: SectorGraph | None = None
        self._fields: OrderedDict[tuple[int, int], FlowField | SectorOrder] = OrderedDict()
        self._fields_version = grid.version
        self.rebuilds = StructureRebuilds(self, self.config.rebuild_worker)
        self._dstar: dict = {}                   # agent id -> its DStarLite search ("dstar" planner)
        self._tile_edits: list = []              # edited cells the sector tiles have yet to follow
        self._events = _Collect()
        self._last_velocity = np.zeros((0, 2))
        #: planned group traffic per cell (units whose group route runs there), for congestion
        self.traffic = np.zeros(grid.shape, dtype=np.float64)
        self._routes: dict[tuple, tuple[np.ndarray, float]] = {}
        self._since_traffic = 0.0                # seconds since the traffic map was recounted
        self.route_search = None                 # the group whose congestion-aware route is being searched

    # ================================================================ agents
    @property
    def positions(self) -> np.ndarray:
        """``(size, 3) float64`` world positions, row = agent id (dead rows are zeros)."""
        return self.state.position[: self.state.size]

    @property
    def velocities(self) -> np.ndarray:
        """``(size, 3) float64`` velocities, world units / s, row = agent id."""
        return self.state.velocity[: self.state.size]

    @property
    def alive(self) -> np.ndarray:
        """``(size,) bool``: which ids hold an agent."""
        return self.state.alive[: self.state.size]

    def add_agents(self, positions, *, radius: float = 0.4, max_speed: float = 4.0, path_desired_distance: float = 1.0,
                   target_desired_distance: float = 1.0, path_max_distance: float = 5.0, group: int = -1,
                   separation: float = 1.5, cohesion: float = 0.3, alignment: float = 0.3,
                   flock_radius: float = 4.0, avoidance: bool = False) -> np.ndarray:
        """Add agents at world ``positions`` (``(N, 2|3)``); returns their ids (stable until
        removed). ``group`` ≥ 0 puts them in a flock (flocking weights and radius);
        ``avoidance`` turns on reciprocal avoidance with every other agent. Agents wider than
        half a cell plan only through cells that clear their radius (``clearance.py``)."""
        try:
            pos = np.asarray(positions, dtype=np.float64)
        except (TypeError, ValueError):
            raise NavError(f"positions must be an (N, 2) or (N, 3) array of finite world points, got {positions!r}") from None
        if pos.ndim != 2 or pos.shape[1] not in (2, 3) or not np.isfinite(pos).all():
            raise NavError(f"positions must be an (N, 2) or (N, 3) array of finite world points, got shape {pos.shape}")
        cs = self.grid.cell_size
        for name, value, low, high in (("radius", radius, 0.0, self.config.max_radius_cells * cs),
                                       ("max_speed", max_speed, 1e-9, self.config.max_speed_cells * cs),
                                       ("path_desired_distance", path_desired_distance, 1e-9, math.inf),
                                       ("target_desired_distance", target_desired_distance, 1e-9, math.inf),
                                       ("path_max_distance", path_max_distance, 1e-9, math.inf),
                                       ("flock_radius", flock_radius, 1e-9, math.inf)):
            try:
                ok = math.isfinite(float(value)) and low <= float(value) <= high
            except (TypeError, ValueError):
                ok = False
            if not ok:
                raise NavError(f"{name} must be a finite number in [{low:g}, {high:g}], got {value!r}")
        ids = self.state.allocate(len(pos))
        s = self.state
        s.position[ids, : pos.shape[1]] = pos
        s.agent_params[ids] = (max_speed, radius, path_desired_distance, target_desired_distance, path_max_distance)
        s.flock_group[ids, 0] = int(group)
        s.flock_params[ids] = (separation, cohesion, alignment, flock_radius)
        s.agent_flags[ids, F_AVOIDANCE] = bool(avoidance)
        if radius > WIDE * cs:                   # its class grid (and tiles) made now, not in an order's tick
            self.sized_grids().warm(radius, self.config.sector_size if self.uses_tiles else None)
        return ids

    def add_rows(self, count: int) -> np.ndarray:
        """Ids for ``count`` agents with default rows (the esper plugin binds components to them)."""
        return self.state.allocate(int(count))

    def remove(self, ids) -> None:
        """Remove agents; their ids may be reused by later adds, no other agent is renumbered."""
        ids = self._ids(ids)
        for i in ids.tolist():
            self.queue.cancel(("agent", i))
        self.state.release(ids)

    def move(self, ids, target: Sequence[float] | np.ndarray, planner: str = "astar", *,
             group: int | None = None) -> None:
        """Order agents to world ``target`` with ``planner`` (``PLANNERS``); group planners move
        agents sharing a ``group`` (default: their flock group, else one new group) as one.
        ``target`` may also be one point per agent (``(N, 2)`` or ``(N, 3)``: a formation)."""
        ids = self._ids(ids)
        if planner not in PLANNERS:
            raise NavError(f"unknown planner {planner!r}; expected one of {', '.join(PLANNERS)}")
        s = self.state
        if np.ndim(target) == 2:
            per = np.asarray(target, dtype=np.float64)
            if per.shape[0] != len(ids) or per.shape[1] not in (2, 3) or not np.isfinite(per).all():
                raise NavError(f"per-agent targets must be finite ({len(ids)}, 2 or 3), got shape {per.shape}")
            s.target[ids, :2] = per[:, :2]
            s.target[ids, 2] = per[:, 2] if per.shape[1] == 3 else 0.0
        else:
            t = finite_point(target, "target")
            s.target[ids, :2] = t[:2]
            s.target[ids, 2] = t[2] if len(t) == 3 else 0.0
        s.agent_method[ids, 0] = PLANNERS.index(planner)
        if group is not None:
            s.flock_group[ids, 0] = int(group)
        elif planner in GROUP_PLANNERS and (s.flock_group[ids, 0] < 0).any():
            s.flock_group[ids[s.flock_group[ids, 0] < 0], 0] = 1_000_000 + self.tick * 1000 + int(ids.min()) % 1000
        s.agent_flags[ids, F_HAS_TARGET] = True
        s.agent_flags[ids, F_TARGET_DIRTY] = True

    def stop(self, ids) -> None:
        """Drop the agents' targets: they stand (IDLE)."""
        ids = self._ids(ids)
        self.state.agent_flags[ids, F_HAS_TARGET] = False
        self.state.agent_flags[ids, F_TARGET_DIRTY] = True

    def pause(self, ids, paused: bool = True) -> None:
        """Stand still keeping target and path (``paused=False`` resumes)."""
        self.state.agent_flags[self._ids(ids), F_PAUSED] = bool(paused)

    def path(self, agent: int) -> np.ndarray:
        """The agent's current path, world ``(N, 3)``."""
        return self.state.path_points(int(self._ids([agent])[0]))

    def _ids(self, ids) -> np.ndarray:
        try:
            arr = np.atleast_1d(np.asarray(ids))
        except (TypeError, ValueError):
            raise NavError(f"agent ids must be integers, got {ids!r}") from None
        if arr.size == 0:
            return arr.astype(np.int64)
        if arr.dtype.kind not in "iu":
            raise NavError(f"agent ids must be integers, got {ids!r}")
        arr = arr.astype(np.int64)
        bad = (arr < 0) | (arr >= self.state.size)
        if bad.any() or not self.state.alive[arr[~bad]].all():
            raise NavError(f"no agent with id {int(arr[bad][0]) if bad.any() else int(arr[~self.state.alive[arr]][0])}")
        return arr

    # ================================================================= update
    def prepare(self, methods: Iterable[str] | None = None,
                progress: Callable[[str, int, int], None] | None = None, freeze_gc: bool = True) -> dict[str, float]:
        """Do at load time what a first order would otherwise do inside a tick: compile (or load
        from numba's cache) every kernel ``methods`` use (None: every planner) in a practice run
        on a small level, and bake (or load from ``cache_dir``) the navmesh, hierarchy, sector
        tiles, waypoint graph and JPS+ table they need. ``progress(stage, done, total)`` is
        called per stage. ``freeze_gc``: end with ``gc.freeze()`` (``freeze_after_load``; a
        2,000-agent soak on AcrosstheCape had single 77 ms ticks of full collections without it).
        Returns seconds per stage. (``Navigation.prepare`` does the same through esper.)"""
        from .prepare import freeze_after_load, prepare_crowd

        seconds = prepare_crowd(self, methods, progress)
        if freeze_gc:
            freeze_after_load()
        return seconds

    def update(self, dt: float) -> CrowdEvents:
        """One tick of ``dt`` seconds (> 0; 0 does nothing): orders, plans under the budget, path
        following, group steering, flocking, movement, the progress watch. Returns its events."""
        try:
            dt = float(dt)
        except (TypeError, ValueError):
            raise NavError(f"dt must be a number of seconds > 0, got {dt!r}") from None
        if not math.isfinite(dt) or dt < 0:
            raise NavError(f"dt must be a finite number of seconds >= 0, got {dt!r}")
        self._events = _Collect()
        if self.rebuilds.in_flight:
            self.rebuilds.take()
        if dt == 0 or self.state.size == 0:
            return CrowdEvents()
        if self._fields_version != self.grid.version:
            self._grid_changed()
        s = self.state
        self._refuse_bad_agents()
        self._take_orders()
        for key, job in self.queue.service():
            self._plan_done(key, job)
        followed = follow_paths(s, self.grid, dt, self.tick, self.report_waypoints)
        self._detours_ended(followed)
        self.arrive(followed.arrived)
        if self.tick % CHAIN_CHECK_EVERY == 0:
            self._chain_arrivals()
        if len(followed.drifted):
            self._replan(followed.drifted)
        self.groups.update(dt)
        if self._routes:
            self._since_traffic += dt
            if self._since_traffic >= self.config.congestion_refresh:
                self.refresh_traffic()
        apply_flocking(s, self.grid, self.config.wall_avoidance, self.tick)
        self._avoid(dt)
        self._move(dt)
        stuck = watch_progress(s, dt, self.grid.cell_size, self.config.stuck_after, self.tick)
        if len(stuck):
            stuck = self.groups.settle_if_near(stuck)
        if len(stuck):
            self._recover(stuck)
        self.tick += 1
        n = s.size
        moving = (np.flatnonzero(s.nav_state[:n, 0] == NavState.FOLLOWING) if self.report_velocities
                  else np.zeros(0, dtype=np.int64))
        ev = self._events
        return CrowdEvents(np.concatenate(ev.reached) if ev.reached else np.zeros(0, dtype=np.int64),
                           np.array(ev.failed, dtype=np.int64), ev.reasons, followed.waypoints,
                           np.array(ev.path_changed, dtype=np.int64), stuck, followed.links, moving,
                           s.velocity[moving].copy())

    def _detours_ended(self, followed) -> None:
        """Group members at the end of their detour, or off it, go back to the group's steering."""
        s = self.state
        for name in ("arrived", "drifted"):
            ids = getattr(followed, name)
            detour = s.mode[ids] == Mode.DETOUR
            if detour.any():
                self.groups.detours.end(ids[detour])
                setattr(followed, name, ids[~detour])

    def _chain_arrivals(self) -> None:
        """Single units sent to one point spread around it instead of stacking (``chaining``)."""
        touching = chained_arrivals(self.state, self.grid.view)
        if len(touching):
            self.state.velocity[touching] = 0.0
            self.arrive(touching)

    # ------------------------------------------------------------ outcomes
    def arrive(self, ids: np.ndarray) -> None:
        """Mark agents arrived (FINISHED)."""
        if len(ids) == 0:
            return
        s = self.state
        s.nav_state[ids, 0] = NavState.FINISHED
        s.mode[ids] = Mode.NONE
        self._events.reached.append(np.asarray(ids, dtype=np.int64))

    def fail(self, ids, reason: str) -> None:
        """Fail the agents' orders with ``reason`` (they stand; ``path_failed``)."""
        s = self.state
        for i in np.atleast_1d(ids).tolist():
            s.nav_state[i, 0] = NavState.FAILED
            s.mode[i] = Mode.NONE
            s.velocity[i] = 0.0
            s.clear_path(i)
            s.failure[i] = reason
            self.queue.cancel(("agent", i))
            self._events.failed.append(i)
            self._events.reasons.append(reason)

    def path_changed(self, agent: int) -> None:
        self._events.path_changed.append(int(agent))

    # ------------------------------------------------------------- orders
    def _refuse_bad_agents(self) -> None:
        """NaN positions, absurd radii or speeds: those agents fail, the tick goes on."""
        s = self.state
        n = s.size
        cs = self.grid.cell_size
        p = s.agent_params[:n]
        limit_r, limit_v = self.config.max_radius_cells * cs, self.config.max_speed_cells * cs
        bad = np.zeros(n, dtype=np.bool_)
        if _all_sane(s.alive, s.nav_state[:, 0], s.position, s.agent_params, limit_r, limit_v, bad):
            return
        for i in np.flatnonzero(bad).tolist():
            if not np.isfinite(s.position[i]).all():
                reason = f"the agent's position {tuple(float(v) for v in s.position[i])} is not finite"
            elif not 0 <= p[i, P_RADIUS] <= limit_r:
                reason = f"radius {p[i, P_RADIUS]:g} is out of range (0 .. {limit_r:g} world units)"
            elif not 0 < p[i, P_MAX_SPEED] <= limit_v:
                reason = f"max_speed {p[i, P_MAX_SPEED]:g} is out of range (> 0, <= {limit_v:g} world units / s)"
            else:
                reason = f"agent settings {p[i].tolist()} are not finite"
            s.agent_flags[i, F_TARGET_DIRTY] = False
            self.fail(i, reason)

    def _take_orders(self) -> None:
        s = self.state
        n = s.size
        dirty = np.flatnonzero(s.agent_flags[:n, F_TARGET_DIRTY] & s.alive[:n])
        if len(dirty) == 0:
            return
        # queueing a single unit's plan costs ~12 µs of Python: beyond ORDERS_PER_TICK of them
        # the rest wait (planning, standing) for the next ticks — 500 at once cost an 8 ms tick
        single = ~np.isin(s.agent_method[dirty, 0], FLOW_CODES)
        later = dirty[single][ORDERS_PER_TICK:]
        if len(later):
            for i in later.tolist():                    # a plan for an older order must not land
                self.queue.cancel(("agent", i))
            s.nav_state[later, 0] = NavState.PLANNING
            s.velocity[later] = 0.0
            s.path_len[later] = 0
            s.mode[later] = Mode.NONE
            dirty = np.setdiff1d(dirty, later, assume_unique=True)
        s.agent_flags[dirty, F_TARGET_DIRTY] = False
        s.best_distance[dirty] = np.inf
        s.best_togo[dirty] = np.inf
        s.togo[dirty] = np.nan
        s.recoveries[dirty] = 0
        s.slot[dirty] = -1
        s.home_x[dirty] = np.nan
        s.home_y[dirty] = np.nan
        s.still_for[dirty] = 0.0
        s.anchor_x[dirty] = s.position[dirty, 0]
        s.anchor_y[dirty] = s.position[dirty, 1]
        for i in dirty.tolist():
            s.failure.pop(i, None)
        self._order(dirty)

    def _order(self, ids: np.ndarray) -> None:
        """Start planning for ``ids`` from where they stand (new orders and re-plans): checked
        and reset as arrays; Python runs per agent only to queue its planner's job."""
        s = self.state
        ids = np.asarray(ids, dtype=np.int64)
        if len(ids) == 0:
            return
        for i in ids.tolist():
            self.queue.cancel(("agent", i))
            s.links.pop(i, None)
        s.path_len[ids] = 0
        s.path_idx[ids] = 0
        s.velocity[ids] = 0.0
        s.mode[ids] = Mode.NONE
        has_target = s.agent_flags[ids, F_HAS_TARGET]
        s.nav_state[ids[~has_target], 0] = NavState.IDLE
        ids = ids[has_target]
        problems = self._order_problems(ids)
        for k, reason in problems.items():
            self.fail(ids[k], reason)
        if problems:
            ids = np.delete(ids, list(problems))
        s.nav_state[ids, 0] = NavState.PLANNING
        methods = s.agent_method[ids, 0]
        # start and goal cells for all at once (checked on the map above)
        starts = self.grid.world_to_cells(s.position[ids, :2]).tolist()
        goals = self.grid.world_to_cells(s.target[ids, :2]).tolist()
        for k, (i, code) in enumerate(zip(ids.tolist(), methods.tolist())):
            method = PLANNERS[code]
            if method not in GROUP_PLANNERS:               # GroupSteering starts or joins group orders
                self.queue.submit(("agent", i), self._job(i, method, tuple(starts[k]), tuple(goals[k])))

    def _order_problems(self, ids: np.ndarray) -> dict[int, str]:
        """Why an order of ``ids`` cannot be planned, by position in ``ids`` (none: empty)."""
        s, grid = self.state, self.grid
        problems: dict[int, str] = {}
        if len(ids) == 0:
            return problems
        target = s.target[ids]
        finite = np.isfinite(target).all(axis=1)
        h, w = grid.shape

        def cells(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            # floored in floats first: a far-off point must not wrap around an integer type
            c = np.floor((np.nan_to_num(points[:, :2], nan=-1.0) - np.asarray(grid.origin)) / grid.cell_size)
            inside = (c[:, 0] >= 0) & (c[:, 0] < w) & (c[:, 1] >= 0) & (c[:, 1] < h)
            return np.where(inside[:, None], c, -1).astype(np.int64), inside

        goal, goal_in = cells(np.where(finite[:, None], target, -1.0))
        start, start_in = cells(s.position[ids])
        group = np.isin(s.agent_method[ids, 0], FLOW_CODES)
        checked = group & finite & goal_in & start_in
        open_goal = np.ones(len(ids), dtype=bool)
        joined = np.ones(len(ids), dtype=bool)
        if checked.any():
            labels = grid.components()
            gx, gy = np.clip(goal[:, 0], 0, w - 1), np.clip(goal[:, 1], 0, h - 1)
            sx, sy = np.clip(start[:, 0], 0, w - 1), np.clip(start[:, 1], 0, h - 1)
            open_goal = ~checked | grid.passable[gy, gx]
            joined = ~checked | ((labels[sy, sx] >= 0) & (labels[sy, sx] == labels[gy, gx]))
        for k in np.flatnonzero(~(finite & goal_in & start_in & open_goal & joined)).tolist():
            t, g, st = target[k], tuple(int(v) for v in goal[k]), tuple(int(v) for v in start[k])
            if not finite[k]:
                problems[k] = f"target_position {tuple(float(v) for v in t)} is not a finite point"
            elif not goal_in[k]:
                problems[k] = f"target_position ({t[0]:g}, {t[1]:g}) is outside the map"
            elif not start_in[k]:
                problems[k] = "the agent stands outside the map"
            elif not open_goal[k]:
                problems[k] = f"goal {g} is a blocked cell"
            else:
                problems[k] = f"goal {g} is not reachable from start {st}"
        return problems

    def _plan_done(self, key, job) -> None:
        kind, who = key
        if kind == "group":
            value = getattr(job, "value", None)
            if value is not None and not isinstance(value, Exception) and getattr(value, "grid", self.grid) is self.grid:
                self._cache_field(who[1:3], value)
            self.groups.plan_done(who, job)
            return
        if kind == "field":
            if not isinstance(job.value, Exception):
                self._cache_field(who, job.value)
            return
        if kind == "tiles":                      # an edit's tile update, done under the budget
            return
        if kind == "detour":
            self.groups.detours.plan_done(int(who), job)
            return
        i = int(who)
        s = self.state
        if not s.alive[i] or s.nav_state[i, 0] != NavState.PLANNING:
            return
        route: Route = job.route
        if not route.walkable:
            self.fail(i, route.reason or "no path")
            return
        points = np.array(route.points, dtype=np.float64)
        if self.grid.heights is None:
            points[:, 2] = s.position[i, 2]
            if math.isfinite(s.target[i, 2]) and route.status is PathStatus.FOUND:
                points[-1, 2] = s.target[i, 2]
        s.set_path(i, points, 1 if len(points) > 1 else 0)
        if route.links:
            s.links[i] = dict(route.links)
        s.nav_state[i, 0] = NavState.FOLLOWING
        s.mode[i] = Mode.PATH
        self.path_changed(i)
        if route.status is PathStatus.PARTIAL:              # walks to the closest point, and says why
            s.failure[i] = route.reason
            self._events.failed.append(i)
            self._events.reasons.append(route.reason)

    def _replan(self, ids: np.ndarray) -> None:
        """Plan again from where the agents stand (drift, recovery), keeping the watch's count."""
        group = np.isin(self.state.agent_method[ids, 0], FLOW_CODES)
        self._order(ids[~group])
        if group.any():
            self._walk_alone(ids[group])

    def _walk_alone(self, ids: np.ndarray, goal_cells: np.ndarray | None = None) -> None:
        """Agents leave their group's steering and plan their own A* path (mode PATH)."""
        s, grid = self.state, self.grid
        for k, i in enumerate(ids.tolist()):
            target = s.target[i].copy()
            goal = tuple(int(v) for v in goal_cells[k]) if goal_cells is not None else grid.world_to_cell(*target[:2])
            if goal_cells is not None:
                target[:2] = grid.cell_to_world(*goal)[:2]
            start = grid.world_to_cell(*s.position[i, :2])
            s.clear_path(i)
            s.nav_state[i, 0] = NavState.PLANNING
            s.mode[i] = Mode.PATH                         # groups leave it alone from now on
            s.velocity[i] = 0.0
            self.queue.submit(("agent", i), GridJob(grid, start, goal, "astar", target, self.config.smoothing,
                                                    self.pool, self.config.weight))

    def _recover(self, stuck: np.ndarray) -> None:
        """One recovery step further for each stuck agent (see ``progress``)."""
        s = self.state
        s.recoveries[stuck] += 1
        tries = s.recoveries[stuck]
        give_up = stuck[tries > self.config.max_recoveries]
        for i in give_up.tolist():
            self.fail(i, f"no progress for {self.config.stuck_after:g} s after {self.config.max_recoveries} recoveries")
        live = stuck[tries <= self.config.max_recoveries]
        self.free_walled_in(live)
        group = np.isin(s.agent_method[live, 0], FLOW_CODES) | (s.mode[live] == Mode.PATH)
        first = live[(s.recoveries[live] == 1) & ~group]
        self._order(first)
        alone = live[((s.recoveries[live] == 2) | ((s.recoveries[live] == 1) & group))]
        self._walk_alone(alone)
        nearest = live[s.recoveries[live] >= 3]
        if len(nearest):
            self._walk_alone(nearest, np.array([self._nearest_reachable(i) for i in nearest.tolist()]))

    def _nearest_reachable(self, i: int) -> tuple[int, int]:
        """The open cell reachable from the agent nearest its target."""
        s, grid = self.state, self.grid
        here = grid.world_to_cell(*s.position[i, :2])
        near = grid.nearest_reachable(grid.world_to_cell(*s.target[i, :2]), np.array([here]))
        return here if near is None else near


@njit(cache=True)
def _all_sane(alive, nav_state, position, params, limit_radius, limit_speed, bad):
    """Mark agents with a non-finite position or setting, or an absurd radius or speed; False
    when there is none (the common case: one pass, no allocation)."""
    found = False
    for a in range(bad.shape[0]):
        if not alive[a] or nav_state[a] == 4:
            continue
        ok = True
        for k in range(3):
            ok = ok and math.isfinite(position[a, k])
        for k in range(params.shape[1]):
            ok = ok and math.isfinite(params[a, k])
        ok = ok and 0.0 <= params[a, 1] <= limit_radius and 0.0 < params[a, 0] <= limit_speed
        if not ok:
            bad[a] = True
            found = True
    return not found
