"""Orders given again while a unit is on its way: the same target (Godot plans again), a target
near where it already heads (a chase re-targeted every frame), a unit whose size or navigation
layers changed. ``Retargets`` says who keeps the plan it walks or waits for, who must take its
order afresh, and which waiting units go first; ``Orders`` takes the rest."""

from __future__ import annotations

import numpy as np

from rtsnav.names import L_NAVIGATION_LAYERS, Planner

from ..flow.clearance import WIDE
from ..grid import Grid
from ..grid_sight import world_segments_clear
from .events import Outcomes
from .groups import group_planned
from .level_cache import LevelCache
from .planners import PlanQueue
from .planning import Planning
from .state import CrowdState, Mode, NavState

__all__ = ["Retargets", "NEAR_END_CELLS", "NEAR_END_SHARE", "RESIZE_CHECK_EVERY"]

#: A unit whose new target lies this near where it heads (cells, or this share of its distance
#: to the target) keeps the plan it walks or waits for (``Retargets.keep_their_plans``).
NEAR_END_CELLS = 2.0
NEAR_END_SHARE = 0.25
#: Rounds between looks for units whose radius or layers changed on their way (~0.1 ms at
#: 100,000 agents).
RESIZE_CHECK_EVERY = 4


class Retargets:
    """Re-targets of the crowd's units, one round a tick (``next_round``). Owns the round count
    and the map version it last saw; reads and writes the agent table's order columns
    (``planning_since``, ``order_waits``, ``asked_*``, ``ordered_*``, ``planned_*``)."""

    def __init__(self, agents: CrowdState, grid: Grid, queue: PlanQueue, planning: Planning, level: LevelCache,
                 outcomes: Outcomes) -> None:
        self._agents, self._grid, self._queue, self._planning, self._level = agents, grid, queue, planning, level
        self._outcomes = outcomes
        self.round = 0                                   # order-taking rounds (one a tick)
        self._version = grid.version                     # the map as of the last round

    def next_round(self) -> np.ndarray:
        """Start a tick's round: targets set again to the same point are planned again, and units
        whose size or layers changed are marked to take their order afresh (returned)."""
        self.round += 1
        if self._agents.replans:
            self._plan_again()
        if self.round % RESIZE_CHECK_EVERY:
            return np.zeros(0, dtype=np.int64)
        return self._resized(self._agents.size)

    def _resized(self, n: int) -> np.ndarray:
        """Units on their way whose size or navigation layers changed since their order was planned
        (either radius wider than half a cell: a unit grown on an upgrade; a unit barred from a
        road, as Godot's ``navigation_layers`` setter re-paths): they take their order afresh on
        their new grid. One grown to 1.4 cells stood before a one-cell gap its plan took, ~30 s,
        until its recoveries ran out ("no progress"); one barred from a layer walked on through it."""
        s, limit = self._agents, WIDE * self._grid.cell_size
        planned, layers = s.planned_radius[:n], s.agent_layers[:n, L_NAVIGATION_LAYERS]
        resized = np.flatnonzero((planned == planned) & (  # (NaN: never ordered)
            (s.radius[:n] != planned) | (layers != s.planned_layers[:n])))
        if len(resized):
            radius, planned, state = s.radius[resized], planned[resized], s.nav_state[resized, 0]
            relayered = s.agent_layers[resized, L_NAVIGATION_LAYERS] != s.planned_layers[resized]
            resized = resized[s.alive[resized] & s.has_target[resized] & ((radius > limit) | (planned > limit) | relayered)
                              & ((state == NavState.FOLLOWING) | (state == NavState.PLANNING))]
        if len(resized):
            s.target_dirty[resized] = True
            for radius_now in np.unique(s.radius[resized]).tolist():
                self._level.ready_for_radius(radius_now)
        return resized

    def already_there(self, ids: np.ndarray) -> np.ndarray:
        """Which of ``ids`` (ordered this round, single planners) stand within their
        ``target_desired_distance`` of the new target: they arrive again at once, with no plan, as
        Godot re-emits ``target_reached`` and ``navigation_finished`` in that frame. Planned, 280 of
        300 units standing at targets set every frame were "not finished" at any moment, each
        re-planned all the time (and a chaser beside its prey stopped for a plan every frame)."""
        s = self._agents
        there = s.has_target[ids] & ~group_planned(s.agent_method[ids, 0])
        # in 3D (a unit on a bridge ordered to the road beneath it is not there)
        there &= np.linalg.norm(s.target[ids] - s.position[ids], axis=1) <= s.target_desired_distance[ids]
        return there

    def oldest_first(self, ids: np.ndarray) -> np.ndarray:
        """``ids`` with those waiting longest for a plan first (then by id), each stamped with the
        round it began waiting. Taken in id order, a game re-targeting 300 chasers every frame
        had the same 150 (``Orders``' 150 a tick, then the budget) planned every tick and the
        other 150 stand for good; a new order keeps the wait its unit already had."""
        s = self._agents
        waiting = (s.nav_state[ids, 0] == NavState.PLANNING) | s.order_waits[ids]
        since = np.where(waiting, s.planning_since[ids], self.round)
        s.planning_since[ids] = since
        return ids[np.argsort(since, kind="stable")]

    def keep_their_plans(self, ids: np.ndarray) -> np.ndarray:
        """Which of ``ids`` keep the plan they have or wait for: their new target is near the point it
        heads for — the end of the path they walk, or the point their queued plan was asked for
        (for a unit walking to the point nearest an unreachable target: that target) — within
        ``NEAR_END_CELLS`` cells or ``NEAR_END_SHARE`` of their distance to it, on an open cell of
        the map. A chase re-targeted every frame, an order repeated a little off. None
        after a map edit (the crowd's own re-plans take the order afresh)."""
        s, grid = self._agents, self._grid
        edited, self._version = grid.version != self._version, grid.version
        keep = s.has_target[ids] & ~group_planned(s.agent_method[ids, 0])
        if edited or not keep.any():                     # after a map edit everyone plans afresh
            return np.zeros(len(ids), dtype=bool)
        state = s.nav_state[ids, 0]
        walking = (state == NavState.FOLLOWING) & (s.mode[ids] == Mode.PATH) & (s.path_len[ids] > 0)
        waiting = (state == NavState.PLANNING) & np.isfinite(s.asked_x[ids])
        keep &= walking | waiting
        k = np.flatnonzero(keep)
        if len(k) == 0:
            return keep
        units = ids[k]
        target = s.target[units, :2]
        cells = grid.world_to_cells(np.nan_to_num(target, nan=-1e9))
        inside = (cells >= 0).all(axis=1) & (cells[:, 0] < grid.width) & (cells[:, 1] < grid.height)
        open_cell = np.zeros(len(k), dtype=bool)
        open_cell[inside] = grid.passable[cells[inside, 1], cells[inside, 0]]
        ends = np.column_stack((s.asked_x[units], s.asked_y[units]))
        on_path = walking[k]
        ends[on_path] = s.paths.points[s.path_start[units[on_path]] + s.path_len[units[on_path]] - 1, :2]
        if s.unreachable:               # heading for the point nearest its last target: near that target
            instead = np.isin(units, np.fromiter(s.unreachable, dtype=np.int64))
            ends[instead] = np.column_stack((s.ordered_x[units[instead]], s.ordered_y[units[instead]]))
            open_cell |= instead & inside
        gap = np.hypot(*(target - ends).T)
        reach = np.maximum(NEAR_END_CELLS * grid.cell_size, NEAR_END_SHARE * np.hypot(*(target - s.position[units, :2]).T))
        keep[k] = open_cell & (gap <= reach)
        keep[k[~on_path]] &= np.array([("agent", i) in self._queue for i in units[~on_path].tolist()], dtype=bool)
        return keep

    def plan_while_walking(self, ids: np.ndarray) -> None:
        """``ids`` walk on along their path while a plan to their new target is made (one plan at
        a time, as for a target set again), or wait on for the plan they were promised: a chase
        re-targeted every frame stopped every unit each frame until its plan landed (half of them
        stood at any moment) and restarted every plan still queued (one longer than a tick's
        budget never landed)."""
        s = self._agents
        s.target_dirty[ids] = False
        s.order_waits[ids] = False                       # its progress is measured on as before
        moved = self._move_path_ends(ids)
        s.forget_order_notes(ids, unreachable=False)     # (it still walks to the point it had)
        for i in ids[~moved].tolist():
            self._plan_from_here(i, ahead=s.nav_state[i, 0] == NavState.FOLLOWING)

    def _move_path_ends(self, ids: np.ndarray) -> np.ndarray:
        """Which of ``ids`` (walking or waiting) walk a path whose last leg reaches the new target in
        a straight clear line: the path's end moves there and nothing is planned (Detour's
        ``moveTargetPosition``). Re-planned from where they stood, some chasers flipped between
        two ways round a pillar with every plan. Units of the plain grid only (narrow, default
        layers, one surface, no off-mesh link on the path)."""
        s, grid = self._agents, self._grid
        ok = ((s.nav_state[ids, 0] == NavState.FOLLOWING) & (s.mode[ids] == Mode.PATH) & (s.path_len[ids] > 0)
              & (s.radius[ids] <= WIDE * grid.cell_size) & (self._level.surface is None))
        for notes in (s.links, s.unreachable):
            if notes:
                ok &= ~np.isin(ids, np.fromiter(notes, dtype=np.int64))
        masks = s.agent_layers[ids, L_NAVIGATION_LAYERS]
        for mask in np.unique(masks[ok]).tolist():
            if grid.masked(mask) is not grid:            # its layers' own grid: planned there
                ok &= masks != mask
        walkers = ids[ok]
        if len(walkers) == 0:
            return ok
        end = s.path_start[walkers] + s.path_len[walkers] - 1
        on_last_leg = s.path_idx[walkers] >= s.path_len[walkers] - 1
        before = np.where(on_last_leg[:, None], s.position[walkers, :2], s.paths.points[np.maximum(end - 1, 0), :2])
        clear = world_segments_clear(grid.passable, grid.cell_size, grid.origin[0], grid.origin[1],
                                     np.ascontiguousarray(before), np.ascontiguousarray(s.target[walkers, :2]))
        s.paths.points[end[clear], :2] = s.target[walkers[clear], :2]
        for i in walkers[clear].tolist():
            self._outcomes.path_changed(i)
        ok[np.flatnonzero(ok)[~clear]] = False
        return ok

    def _plan_again(self) -> None:
        """Targets set again to the same point (Godot queries a new path each time): a walking
        unit plans again while it walks on (one plan at a time); a standing one takes the order
        afresh (``already_there`` if it stands at it)."""
        s = self._agents
        again = np.fromiter(s.replans, dtype=np.int64)
        s.replans.clear()
        again = again[(again < s.size)]
        again = again[s.alive[again] & s.has_target[again] & ~s.target_dirty[again]]
        state = s.nav_state[again, 0]
        walking = again[(state == NavState.FOLLOWING) & (s.mode[again] == Mode.PATH)]
        for i in walking.tolist():
            self._plan_from_here(i)
        standing = again[(state == NavState.FINISHED) | (state == NavState.FAILED) | (state == NavState.IDLE)]
        s.target_dirty[standing] = True

    def _plan_from_here(self, i: int, ahead: bool = False) -> None:
        """Queue a plan for ``i`` from where it stands unless one is queued (one at a time); for
        the point nearest an unreachable target, by A*. ``ahead``: from the waypoint it walks to,
        which it reaches first (``job.from_ahead``: a walker keeps its way round the next corner
        instead of flipping between two ways with every plan)."""
        if ("agent", i) in self._queue:
            return
        s, grid = self._agents, self._grid
        goal = s.unreachable.get(i)
        here = s.position[i, :2]
        if ahead and s.path_len[i] > 0 and s.path_idx[i] < s.path_len[i]:
            waypoint = s.paths.points[s.path_start[i] + s.path_idx[i], :2]
            cell = grid.world_to_cell(*waypoint)
            ahead = bool(grid.in_bounds(*cell) and grid.passable[cell[1], cell[0]])
            here = waypoint if ahead else here
        job = self._planning.job(i, Planner(int(s.agent_method[i, 0])) if goal is None else Planner.ASTAR,
                                 grid.world_to_cell(*here), goal, None if goal is None else grid.cell_to_world(*goal))
        job.from_ahead = bool(ahead)
        self._queue.submit(("agent", i), job)
