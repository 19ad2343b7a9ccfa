"""Orders and plan requests: a new order is checked (target on the map, reachable for group
orders, sane agent settings) and turned into a plan job on the crowd's queue; finished jobs are
handed to whoever asked; units that make no progress are recovered step by step (plan again,
walk alone, walk to the nearest reachable cell) before their order fails."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from rtsnav.names import L_NAVIGATION_LAYERS, Planner

from ..flow.clearance import WIDE
from ..grid import Grid
from ..result import PathStatus
from ..search.workspace import only_blocked
from .config import CrowdConfig
from .events import Outcomes
from .groups import FLOW_CODES, GroupSteering, group_planned
from .level_cache import LevelCache
from .motion import GIVE_WAY_AFTER, GIVE_WAY_CELLS, GIVE_WAY_SECONDS
from .path_limits import limit_path
from .placement import free_walled_in
from .planners import PlanQueue, Route
from .planning import GRID_CODES, Planning
from .progress import FRESH
from .quick_steps import quick_routes
from .retargets import Retargets
from .state import CrowdState, Mode, NavState

__all__ = ["Orders", "ORDERS_PER_TICK"]

#: The least weight of a walking unit in a jam map (``Traffic.jam_grid``), against 1 standing.
BUSY = 0.5
#: Single units' orders whose plans are queued in one tick (the rest wait a tick or more).
ORDERS_PER_TICK = 150


class Orders:
    """Takes the crowd's orders and plan results (see the module docs)."""

    def __init__(self, agents: CrowdState, grid: Grid, config: CrowdConfig, queue: PlanQueue, outcomes: Outcomes,
                 planning: Planning, groups: GroupSteering, level: LevelCache) -> None:
        self._agents, self._grid, self._config, self._queue = agents, grid, config, queue
        self._outcomes, self._planning, self._groups, self._level = outcomes, planning, groups, level
        self._retargets = Retargets(agents, grid, queue, planning, level, outcomes)

    def replan_after_edit(self, moved: np.ndarray, cells: np.ndarray | None = None) -> None:
        """After a map edit of ``cells`` (None: any) units on their way plan again — but not one
        moved out of a closed cell (``moved``) waiting for a plan that follows the edits itself
        (a grid search: exact on the map as it is when it lands), nor, after edits that only
        blocked cells, a unit walking its own grid path whose way ahead is still open (no path
        is cheaper now: the map only lost cells). 300 units ordered across a big map while a
        building went up every 10 ticks were all ordered again at each edit, and the set-up of
        their new jobs took the whole budget: none had a plan after 20 s."""
        s, n = self._agents, self._agents.size
        state = s.nav_state[:n, 0]
        moving = ((state == NavState.FOLLOWING) | (state == NavState.PLANNING)) & s.has_target[:n] & s.alive[:n]
        waiting = np.setdiff1d(np.flatnonzero(moving & (state == NavState.PLANNING) & ~s.target_dirty[:n]), moved)
        stepping = waiting[(s.mode[waiting] == Mode.QUICK) & (s.path_len[waiting] > s.path_idx[waiting])]
        if len(stepping):           # (a quick route the edit cut is made again with the order)
            waiting = np.setdiff1d(waiting, stepping[~self._ways_open(stepping)])
        for i in waiting.tolist():
            job = self._queue.pending(("agent", i))
            if job is not None and job.follows_edits_of is self._grid:
                moving[i] = False
        if cells is not None and only_blocked(self._grid.passable, cells):
            walking = np.flatnonzero(moving & (state == NavState.FOLLOWING) & (s.mode[:n] == Mode.PATH)
                                     & np.isin(s.agent_method[:n, 0], GRID_CODES) & (s.planned_radius[:n] <= WIDE * self._grid.cell_size)
                                     & (s.path_len[:n] > s.path_idx[:n]))
            walking = np.setdiff1d(walking, moved)
            moving[walking[self._ways_open(walking)]] = False
        s.target_dirty[:n] |= moving

    def _ways_open(self, ids: np.ndarray) -> np.ndarray:
        """For each of ``ids`` (walking their own paths), whether every leg of the way ahead —
        from where it stands to its next waypoint, then waypoint to waypoint — is still open."""
        s = self._agents
        first, end = s.path_start[ids] + s.path_idx[ids], s.path_start[ids] + s.path_len[ids]
        legs = end - first
        if len(ids) == 0 or legs.sum() == 0:
            return np.ones(len(ids), dtype=bool)
        owner = np.repeat(np.arange(len(ids)), legs)
        k = np.arange(legs.sum()) - np.repeat(np.cumsum(legs) - legs, legs) + np.repeat(first, legs)
        ends = s.paths.points[k, :2]
        starts = s.paths.points[np.maximum(k - 1, 0), :2].copy()
        leading = k == np.repeat(first, legs)
        starts[leading] = s.position[ids, :2]
        blocked = ~self._grid.segments_clear(starts, ends)
        return np.bincount(owner[blocked], minlength=len(ids)) == 0

    def park_far_agents(self) -> tuple[np.ndarray, np.ndarray]:
        """Agents standing more than one map size off the map (a finite but absurd position: a
        unit "teleported" to 1e20) are NaN to every kernel for this tick — no steering, no body
        (one made every neighbour grid span it: a dead tick at 1e20, gigabytes at 1e6) — and
        their order fails once, with a reason. Returns ``(ids, positions)`` for ``unpark``."""
        s, g = self._agents, self._grid
        n = s.size
        pos = s.position[:n, :2]
        low = np.asarray(g.origin) - max(g.width, g.height) * g.cell_size
        high = np.asarray(g.origin) + (np.array([g.width, g.height]) + max(g.width, g.height)) * g.cell_size
        with np.errstate(invalid="ignore"):
            far = np.flatnonzero(s.alive[:n] & ((pos < low) | (pos > high)).any(axis=1))
        if len(far) == 0:
            return far, np.zeros((0, 3))
        saved = s.position[far].copy()
        for i in far[s.nav_state[far, 0] != NavState.FAILED].tolist():
            s.target_dirty[i] = False
            self._outcomes.fail(i, f"the agent's position {tuple(float(v) for v in s.position[i, :2])} is more than a "
                                   "map size off the map: it neither steers nor counts as a body until it is back")
        s.position[far] = np.nan
        return far, saved

    def unpark(self, parked: tuple[np.ndarray, np.ndarray]) -> None:
        """Put back the positions ``park_far_agents`` hid for the tick."""
        self._agents.position[parked[0]] = parked[1]

    def refuse_bad_agents(self) -> None:
        """NaN positions, absurd radii or speeds: those agents fail, the tick goes on."""
        s = self._agents
        n = s.size
        cs = self._grid.cell_size
        p = s.agent_params[:n]
        limit_r, limit_v = self._config.max_radius_cells * cs, self._config.max_speed_cells * cs
        bad = np.zeros(n, dtype=np.bool_)
        if _all_sane(s.alive, s.nav_state[:, 0], s.position, s.agent_params, limit_r, limit_v, bad):
            return
        for i in np.flatnonzero(bad).tolist():
            if not np.isfinite(s.position[i]).all():
                reason = f"the agent's position {tuple(float(v) for v in s.position[i])} is not finite"
            elif not 0 <= s.radius[i] <= limit_r:
                reason = f"radius {s.radius[i]:g} is out of range (0 .. {limit_r:g} world units)"
            elif not 0 < s.max_speed[i] <= limit_v:
                reason = f"max_speed {s.max_speed[i]:g} is out of range (> 0, <= {limit_v:g} world units / s)"
            else:
                reason = f"agent settings {p[i].tolist()} are not finite"
            s.target_dirty[i] = False
            self._outcomes.fail(i, reason)

    def take(self) -> None:
        """Start the orders given since the last tick (at most ``ORDERS_PER_TICK`` single units'
        plans queued a tick; the rest stand PLANNING for the next ticks)."""
        s, again = self._agents, self._retargets
        n = s.size
        resized = again.next_round()
        dirty = np.flatnonzero(s.target_dirty[:n] & s.alive[:n])
        if len(dirty) == 0:
            return
        dirty = again.oldest_first(dirty)
        there = again.already_there(dirty)
        if there.any():
            self._arrive_again(dirty[there])
            dirty = dirty[~there]
        # queueing a single unit's plan costs ~12 µs of Python: beyond ORDERS_PER_TICK of them
        # the rest wait for the next ticks (standing, PLANNING) — 500 at once cost an 8 ms tick
        # (units re-targeted near where they head keep their plans: no new one queued, not counted;
        # a walker's next plan is queued when its last one landed, at most one each)
        near = again.keep_their_plans(dirty) & ~np.isin(dirty, resized)
        waits = np.zeros(len(dirty), dtype=bool)
        waits[np.flatnonzero(~np.isin(s.agent_method[dirty, 0], FLOW_CODES) & ~near)[ORDERS_PER_TICK:]] = True
        s.order_waits[dirty] = waits
        later = dirty[waits]
        for i in later.tolist():                        # a plan for an older order must not land
            self._queue.cancel(("agent", i))
        s.nav_state[later, 0] = NavState.PLANNING
        s.velocity[later] = 0.0
        s.path_len[later] = 0
        s.mode[later] = Mode.NONE
        again.plan_while_walking(dirty[near])
        dirty = dirty[~waits & ~near]
        s.target_dirty[dirty] = False
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
        s.forget_order_notes(dirty)
        self.order(dirty)

    def _arrive_again(self, ids: np.ndarray) -> None:
        """``ids`` were ordered to where they stand: arrived, no plan (``Retargets.already_there``)."""
        s = self._agents
        s.target_dirty[ids] = False
        s.order_waits[ids] = False
        s.velocity[ids] = 0.0
        s.path_len[ids] = 0
        for i in ids.tolist():
            self._queue.cancel(("agent", i))
        s.forget_order_notes(ids)
        self._outcomes.arrive(ids)

    def order(self, ids: np.ndarray) -> None:
        """Start planning for ``ids`` from where they stand (new orders and re-plans): checked
        and reset as arrays; Python runs per agent only to queue its planner's job."""
        s = self._agents
        ids = np.asarray(ids, dtype=np.int64)
        if len(ids) == 0:
            return
        ids = self._retargets.oldest_first(ids)          # their plans are queued in this order
        every = ids
        for i in ids.tolist():
            s.links.pop(i, None)
        s.path_len[ids] = 0
        s.path_idx[ids] = 0
        s.velocity[ids] = 0.0
        s.mode[ids] = Mode.NONE
        has_target = s.has_target[ids]
        s.nav_state[ids[~has_target], 0] = NavState.IDLE
        ids = ids[has_target]
        problems, closest = self._problems(ids)
        for k, reason in problems.items():
            self._outcomes.fail(ids[k], reason)
        for k, (cell, reason) in closest.items():        # walks to the closest point, and says why
            i = int(ids[k])
            if s.unreachable.get(i) != cell:
                s.unreachable[i] = cell
                self._outcomes.partial(i, reason + "; walking to the closest reachable point")
        keep = np.ones(len(ids), dtype=bool)
        keep[list(problems)] = False
        ids = ids[keep]
        s.nav_state[ids, 0] = NavState.PLANNING
        methods = s.agent_method[ids, 0].copy()
        # start and goal cells for all at once (checked on the map above)
        starts = self._grid.world_to_cells(s.position[ids, :2]).tolist()
        goals = np.clip(self._grid.world_to_cells(np.nan_to_num(s.target[ids, :2])), -1, None)
        single = ~group_planned(methods)                    # GroupSteering starts or joins group orders
        ends: dict[int, tuple[float, float, float]] = {}
        if s.unreachable:
            instead = np.isin(ids, np.fromiter(s.unreachable, dtype=np.int64))
            for k in np.flatnonzero(instead).tolist():
                i = int(ids[k])
                goals[k] = s.unreachable[i]
                ends[k] = self._grid.cell_to_world(*s.unreachable[i])
                if not single[k]:                           # a group's unit walks there alone, by A*
                    methods[k] = Planner.ASTAR
                    s.mode[i] = Mode.PATH
            single |= instead
        asked = s.target[ids, :2].copy()
        for k, end in ends.items():
            asked[k] = end[:2]
        s.asked_x[ids], s.asked_y[ids] = asked[:, 0], asked[:, 1]
        s.planned_radius[ids] = s.radius[ids]
        s.ordered_x[ids], s.ordered_y[ids] = s.target[ids, 0], s.target[ids, 1]
        s.planned_layers[ids] = s.agent_layers[ids, L_NAVIGATION_LAYERS]
        goals = goals.tolist()
        # a plan queued for an older order must not land: replaced in its place in line (a unit
        # re-ordered while it waits keeps its turn), or cancelled
        for i in np.setdiff1d(every, ids[single]).tolist():
            self._queue.cancel(("agent", i))
        trees = self._planning.shared_trees(ids[single], methods[single], np.asarray(starts)[single],
                                            np.asarray(goals)[single])
        for n, (k, i, code) in enumerate(zip(np.flatnonzero(single).tolist(), ids[single].tolist(),
                                             methods[single].tolist())):
            self._queue.submit(("agent", i), self._planning.job(i, Planner(code), tuple(starts[k]), tuple(goals[k]),
                                                                ends.get(k), trees.get(n)))
        if self._config.quick_steps and single.any():
            self._quick_steps(ids[single], np.asarray(starts)[single], np.asarray(goals)[single])

    def _quick_steps(self, ids: np.ndarray, starts: np.ndarray, goals: np.ndarray) -> None:
        """Units whose plan is still queued walk a short route toward their target meanwhile
        (``quick_steps.py``); units wider than half a cell wait (their grid may not be built)."""
        s, grid = self._agents, self._grid
        fits = (s.nav_state[ids, 0] == NavState.PLANNING) & (s.radius[ids] <= WIDE * grid.cell_size)
        masks = s.agent_layers[ids, L_NAVIGATION_LAYERS]
        for mask in np.unique(masks).tolist():           # (quick routes are walked on the plain grid)
            if grid.masked(mask) is not grid:
                fits &= masks != mask
        if not fits.any():
            return
        ids, starts, goals = ids[fits], starts[fits], goals[fits]
        for i, points in zip(ids.tolist(), quick_routes(grid, starts, goals)):
            if points is None:
                continue
            points[:, 2] = s.position[i, 2]
            s.set_path(i, points, 1)
            s.mode[i] = Mode.QUICK

    def _problems(self, ids: np.ndarray) -> tuple[dict[int, str], dict[int, tuple[tuple[int, int], str]]]:
        """Why an order of ``ids`` cannot be planned, by position in ``ids`` (none: empty); and,
        with ``unreachable="closest"``, the orders to unreachable targets that go to the closest
        reachable cell instead (position -> (that cell, why))."""
        s, grid = self._agents, self._grid
        problems: dict[int, str] = {}
        closest: dict[int, tuple[tuple[int, int], str]] = {}
        if len(ids) == 0:
            return problems, closest
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
        to_closest = self._config.unreachable == "closest"
        masks = s.agent_layers[ids, L_NAVIGATION_LAYERS]
        # a navmesh with off-mesh links joins what the grid does not: its planner finds out
        mesh = self._level.structure("navmesh")
        linked = (s.agent_method[ids, 0] == Planner.NAVMESH) & bool(mesh is not None and mesh.links)
        sx, sy = np.clip(start[:, 0], 0, w - 1), np.clip(start[:, 1], 0, h - 1)
        gx, gy = np.clip(goal[:, 0], 0, w - 1), np.clip(goal[:, 1], 0, h - 1)
        open_goal = np.ones(len(ids), dtype=bool)
        joined = np.ones(len(ids), dtype=bool)
        for mask in np.unique(masks).tolist():
            # on the cells the agents' navigation layers allow
            sub = masks == mask
            seen = grid.masked(mask)
            # single units of the plain grid: their planners find out (a wide unit's grid is its own)
            single_checked = to_closest | (seen is not grid)
            checked = sub & (group | (single_checked & (s.radius[ids] <= WIDE * grid.cell_size) & ~linked)) \
                & finite & goal_in & start_in
            labels = seen.components() if checked.any() or (to_closest and not goal_in[sub].all()) else None
            if labels is not None and checked.any():
                open_goal &= ~checked | seen.passable[gy, gx]
                joined &= ~checked | ((labels[sy, sx] >= 0) & (labels[sy, sx] == labels[gy, gx]))
            if to_closest and labels is not None:
                # unreachable targets (off the map too) of units standing on open ground: the
                # reachable cell nearest the target instead, one search per region and target
                region = labels[sy, sx]
                movable = sub & finite & start_in & (region >= 0) & (s.radius[ids] <= WIDE * grid.cell_size) & ~(
                    linked & goal_in)
                instead = np.flatnonzero(movable & ~(goal_in & open_goal & joined))
                for k, cell in zip(instead.tolist(), _closest_cells(seen, labels, region[instead], target[instead])):
                    t = target[k]
                    why = (f"target_position ({t[0]:g}, {t[1]:g}) is outside the map" if not goal_in[k] else
                           f"goal {tuple(int(v) for v in goal[k])} is a blocked cell" if not open_goal[k] else
                           f"goal {tuple(int(v) for v in goal[k])} is not reachable from start "
                           f"{tuple(int(v) for v in start[k])}")
                    closest[k] = (cell, why)
        for k in np.flatnonzero(~(finite & goal_in & start_in & open_goal & joined)).tolist():
            if k in closest:
                continue
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
        return problems, closest

    def finished(self, key, job) -> None:
        """A queued job finished: its result goes to whoever asked (an agent, a group, the cache)."""
        kind, who = key
        if kind == "group":
            value = getattr(job, "value", None)
            if value is not None and not isinstance(value, Exception) and getattr(value, "grid", self._grid) is self._grid:
                self._level.store_field(who[1:3], value)
            self._groups.plan_done(who, job)
            return
        if kind == "field":
            if not isinstance(job.value, Exception):
                self._level.store_field(who, job.value)
            return
        if kind == "tiles":                      # an edit's tile update, done under the budget
            return
        if kind == "split":                      # a big group's second route
            self._groups.split_done(who, job)
            return
        if kind == "detour":
            self._groups.detours.plan_done(int(who), job)
            return
        i = int(who)
        s = self._agents
        if not s.alive[i] or s.nav_state[i, 0] not in (NavState.PLANNING, NavState.FOLLOWING):
            return                                   # (a walking unit's re-plan lands while it walks)
        route: Route = job.route
        if not route.walkable:
            self._outcomes.fail(i, route.reason or "no path")
            return
        points = np.array(route.points, dtype=np.float64)
        if self._grid.heights is None and self._level.surface is None:
            points[:, 2] = s.position[i, 2]
            if math.isfinite(s.target[i, 2]) and route.status is PathStatus.FOUND and i not in s.unreachable:
                points[-1, 2] = s.target[i, 2]
        if s.path_settings[i].any() or s.agent_options[i].any():     # Godot's per-agent path limits
            points, cut = limit_path(points, s.path_settings[i], s.agent_options[i], bool(route.links))
            if cut:
                s.failure[i] = f"the path was cut by {cut}"
        if s.mode[i] == Mode.QUICK and len(points) > 2 and not route.links:
            # it walked a quick route meanwhile: it joins the plan at the plan's point nearest it
            k = int(np.argmin(np.hypot(*(points[:, :2] - s.position[i, :2]).T)))
            points = np.concatenate([s.position[i:i + 1], points[max(k, 1):]])
        # (a plan from the waypoint ahead of a walker starts there: it walks to it first)
        s.set_path(i, points, 1 if len(points) > 1 and not job.from_ahead else 0)
        if route.links:
            s.links[i] = dict(route.links)
        s.nav_state[i, 0] = NavState.FOLLOWING
        s.mode[i] = Mode.PATH
        self._outcomes.path_changed(i)
        if route.status is PathStatus.PARTIAL and s.failure.get(i) != route.reason:
            # walks to the closest point, and says why — once an order (a unit re-planning as it
            # drifts got the same event every few ticks)
            s.failure[i] = route.reason
            self._outcomes.partial(i, route.reason)

    def replan(self, ids: np.ndarray) -> None:
        """Plan again from where the agents stand (drift, recovery), keeping the watch's count."""
        s = self._agents
        group = np.isin(s.agent_method[ids, 0], FLOW_CODES)
        if s.unreachable:                                 # (to a closest point: planned alone anyway)
            group &= ~np.isin(ids, np.fromiter(s.unreachable, dtype=np.int64))
        self.order(ids[~group])
        if group.any():
            self._walk_alone(ids[group])

    def _walk_alone(self, ids: np.ndarray, goal_cells: np.ndarray | None = None, around_jams: bool = False) -> None:
        """Agents leave their group's steering and plan their own A* path (mode PATH);
        ``around_jams``: on the grid with jammed places made dearer (``Traffic.jam_grid``). A
        walking agent walks on as it does until the new path lands (Detour keeps its corridor
        while it re-plans: a crowd must not stop to think)."""
        s, grid = self._agents, self._grid
        planning_grid = grid
        if around_jams and len(ids):
            n = s.size
            state = s.nav_state[:n, 0]
            speed = np.hypot(s.velocity[:n, 0], s.velocity[:n, 1]) / np.maximum(s.max_speed[:n], 1e-9)
            # a walker counts by how slow it is, at least BUSY (a passage full of traffic, even
            # moving, is slow to cross against or behind)
            slow = np.where(state == NavState.FOLLOWING, np.clip(1.0 - speed, BUSY, 1.0), 0.0)
            standing = (state == NavState.IDLE) | (state == NavState.FINISHED)
            stalled = np.where(s.alive[:n], np.where(standing, 1.0, slow), 0.0)
            stalled[ids] = 0.0                            # a unit is no jam to itself
            planning_grid = self._groups.traffic.jam_grid(s.position[:n], stalled)
        for k, i in enumerate(ids.tolist()):
            target = s.target[i].copy()
            instead = s.unreachable.get(i)
            goal = ((int(goal_cells[k][0]), int(goal_cells[k][1])) if goal_cells is not None else
                    instead if instead is not None else grid.world_to_cell(*target[:2]))
            if goal_cells is not None or instead is not None:
                target[:2] = grid.cell_to_world(*goal)[:2]
            start = grid.world_to_cell(*s.position[i, :2])
            s.asked_x[i], s.asked_y[i] = target[0], target[1]
            seen = grid.masked(int(s.agent_layers[i, L_NAVIGATION_LAYERS]))
            if s.nav_state[i, 0] != NavState.FOLLOWING:
                s.clear_path(i)
                s.nav_state[i, 0] = NavState.PLANNING
                s.mode[i] = Mode.PATH                     # groups leave it alone from now on
                s.velocity[i] = 0.0
            if self._level.surface is not None:           # stacked surfaces: only the navmesh knows them
                self._queue.submit(("agent", i), self._planning.job(i, Planner.NAVMESH, end=target))
                continue
            if s.radius[i] > WIDE * grid.cell_size and self._planning.fits_own_class(i, goal):
                # a wide unit plans on its own clearance class: a path of the narrow grid grazes
                # trees it cannot pass (a tank stood 5 s short of a waypoint its wall clearance kept
                # it from, its group's next order waiting for it). Pressed where its class does not
                # fit (at a closed gate), the narrow grid's way out still gets it moving.
                self._queue.submit(("agent", i), self._planning.job(i, Planner.ASTAR, goal=goal, end=target))
                continue
            self._queue.submit(("agent", i), self._planning.astar(start, goal, target,
                                                                  grid=planning_grid if seen is grid else seen))

    def recover(self, stuck: np.ndarray, frozen: np.ndarray | None = None, held: np.ndarray | None = None) -> None:
        """Recover agents without progress (see ``progress``): units on their own paths waiting
        in a moving queue re-plan around the jams (another passage if one is near enough), their
        count kept; the
        ``frozen`` ones (default: all) one step further each time — around the jams twice, then
        to the reachable point nearest the target — and fail after ``max_recoveries``; the
        ``held`` ones among them (frozen in churning traffic) take their step, count unchanged."""
        s = self._agents
        frozen = stuck if frozen is None else frozen
        queued = np.setdiff1d(stuck, frozen, assume_unique=True)
        # a group's member in its moving queue stays with its group (it was split at the order)
        queued = queued[s.mode[queued] == Mode.PATH]
        s.recoveries[frozen if held is None else np.setdiff1d(frozen, held, assume_unique=True)] += 1
        tries = s.recoveries[frozen]
        give_up = frozen[tries > self._config.max_recoveries]
        there = self._held_off_by_arrivals(give_up)
        if there.any():
            s.velocity[give_up[there]] = 0.0
            self._outcomes.arrive(give_up[there])
        for i in give_up[~there].tolist():
            self._outcomes.fail(i, f"no progress for {self._config.stuck_after:g} s after {self._config.max_recoveries} recoveries")
        live = frozen[tries <= self._config.max_recoveries]
        # a dead stop (nobody close by progresses either), again: the knot gives way to its front
        dead = live if held is None else np.setdiff1d(live, held, assume_unique=True)
        self._give_way(dead[s.recoveries[dead] >= GIVE_WAY_AFTER])
        free_walled_in(self._agents, self._grid, live)
        # an own A* path around the jams (another passage if one is near enough; else the same
        # way, the clock restarted); a frozen unit's third try: the nearest reachable point
        self._walk_alone(np.union1d(queued, live[s.recoveries[live] <= 2]), around_jams=True)
        nearest = live[s.recoveries[live] >= 3]
        if len(nearest):
            self._walk_alone(nearest, np.array([self._nearest_reachable(i) for i in nearest.tolist()]))

    def _give_way(self, ids: np.ndarray) -> None:
        """Each of ``ids`` (in dead stops) and the walkers stalled within ``GIVE_WAY_CELLS`` of it
        are a knot: all but the one nearest its target back off from it for
        ``GIVE_WAY_SECONDS`` (``Motion``). Rare (units reported again in a dead stop): a loop."""
        if len(ids) == 0:
            return
        s, cell = self._agents, self._grid.cell_size
        n = s.size
        stalled = np.flatnonzero(s.alive[:n] & (s.nav_state[:n, 0] == NavState.FOLLOWING) & ~s.paused[:n]
                                 & s.avoidance[:n] & (s.still_for[:n] > FRESH))   # not just progressed
        pos = s.position[stalled, :2]
        togo = np.hypot(*(s.target[stalled, :2] - pos).T)
        for i in ids.tolist():
            knot = np.hypot(*(pos - s.position[i, :2]).T) <= GIVE_WAY_CELLS * cell
            if knot.sum() < 2:
                continue
            front = stalled[knot][np.argmin(togo[knot])]
            back = stalled[knot][stalled[knot] != front]
            s.give_way[back] = GIVE_WAY_SECONDS
            s.way_x[back], s.way_y[back] = s.position[front, 0], s.position[front, 1]

    def _held_off_by_arrivals(self, ids: np.ndarray) -> np.ndarray:
        """Which of ``ids`` stand at the edge of the agents that already arrived at their target
        (another group sent to the same point fills it): as near as the crowd lets them, so they
        have arrived (an RTS unit stops there), not failed. Rare (units that gave up): a loop."""
        s = self._agents
        out = np.zeros(len(ids), dtype=bool)
        n = s.size
        standing = np.flatnonzero(s.alive[:n] & (s.nav_state[:n, 0] == NavState.FINISHED))
        if len(ids) == 0 or len(standing) == 0:
            return out
        cell = self._grid.cell_size
        for k, i in enumerate(ids.tolist()):
            goal = s.target[i, :2]
            # sent to about the same point (a group's members stand at slots around it)
            same = standing[np.hypot(*(s.target[standing, :2] - goal).T) <= 8.0 * cell]
            if len(same) < 3:
                continue
            filled = float(np.hypot(*(s.position[same, :2] - goal).T).max())
            reach = filled + 2.0 * (float(s.radius[i]) + float(s.radius[same].max())) + cell
            out[k] = float(np.hypot(*(s.position[i, :2] - goal))) <= reach
        return out

    def _nearest_reachable(self, i: int) -> tuple[int, int]:
        """The open cell reachable from the agent nearest its target."""
        s = self._agents
        grid = self._grid.masked(int(s.agent_layers[i, L_NAVIGATION_LAYERS]))
        here = grid.world_to_cell(*s.position[i, :2])
        near = grid.nearest_reachable(grid.world_to_cell(*s.target[i, :2]), np.array([here]))
        return here if near is None else near


def _closest_cells(grid: Grid, labels: np.ndarray, regions: np.ndarray, targets: np.ndarray) -> list[tuple[int, int]]:
    """Per agent, the cell of its start ``regions`` entry nearest its world target (once per
    distinct region and target cell)."""
    out: list[tuple[int, int]] = []
    found: dict[tuple[int, int, int], tuple[int, int]] = {}
    cells_of: dict[int, tuple[np.ndarray, ...]] = {}
    origin, cs = np.asarray(grid.origin, dtype=np.float64), grid.cell_size
    for region, point in zip(regions.tolist(), targets[:, :2].tolist()):
        key = (region, int(math.floor((point[0] - origin[0]) / cs)), int(math.floor((point[1] - origin[1]) / cs)))
        cell = found.get(key)
        if cell is None:
            if region not in cells_of:
                cells_of[region] = np.nonzero(labels == region)
            ys, xs = cells_of[region]
            # a target far off the map is taken at the edge of a box one map beyond it (squares of
            # ~1e308 overflowed and picked the region's first cell)
            span = cs * max(grid.width, grid.height)
            px = min(max(point[0], origin[0] - span), origin[0] + 2 * span)
            py = min(max(point[1], origin[1] - span), origin[1] + 2 * span)
            k = int(np.argmin((origin[0] + (xs + 0.5) * cs - px) ** 2 + (origin[1] + (ys + 0.5) * cs - py) ** 2))
            cell = found[key] = (int(xs[k]), int(ys[k]))
        out.append(cell)
    return out


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
