"""Group orders: agents with a group planner (``flowfield``, ``leader``) move as one group.

Agents are grouped by (flock group — or the agent alone when it has none —, goal cell, planner).

* ``flowfield``: every member samples the flow toward the goal (a whole-map field or sector
  tiles, planned under the crowd's budget and cached per goal while any order uses it).
* ``leader``: the member with the lowest id leads: its A* path is planned under the budget and
  widened into a corridor with its own flow field; followers steer by the corridor field, one
  pushed out of it takes the return field's shortest way back, and beyond its reach the whole
  flow field.

Arrival: units slow down in the group's arrival disc (sized to hold the group) and settle there
within ``target_desired_distance`` of the target, or anywhere in the disc once they touch a
group-mate that already arrived, or after standing still in the disc for ``SETTLE_AFTER`` —
the leader too (it used to be held off its own target by settled mates).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..flow.corridor import CorridorField
from ..result import PathStatus
from ..steering.proximity_grid import near_any
from .planners import UNITS, CallJob, GridJob, Route
from .state import (F_PAUSED, GROUP_PLANNERS, P_MAX_SPEED, P_RADIUS, P_TARGET_DIST, PLANNERS, CrowdState, Mode,
                    NavState)

__all__ = ["GroupOrder", "GroupSteering", "LEADER", "FLOW_CODES"]

FLOW_CODES = np.array([PLANNERS.index(p) for p in GROUP_PLANNERS], dtype=np.int8)
LEADER = PLANNERS.index("leader")
#: Fraction of max speed a unit keeps while decelerating inside its arrival disc.
MIN_ARRIVAL_SPEED = 0.25
#: Units settle about this many radii apart (flocking's personal space).
SPACING_RADII = 2.5
#: Units that touch an arrived group-mate settle up to this multiple of the disc radius.
CHAIN_REACH = 1.25
#: Inside its arrival disc, a unit slower than this fraction of its max speed for
#: ``SETTLE_AFTER`` seconds has reached the crowd around the goal: it settles there.
STALL_SPEED = 0.2
SETTLE_AFTER = 1.0


@dataclass(slots=True)
class GroupOrder:
    """One group's move order and its plan."""

    key: tuple[int, int, int, int]           # (group id, goal x, goal y, planner code)
    goal: tuple[int, int]
    arrival_radius: float = 0.0
    members: int = 0
    leader: int | None = None                # agent id (leader groups)
    corridor: CorridorField | None = None
    ready: bool = False                      # the plan arrived: members may move
    failed: str = ""


class GroupSteering:
    """Keeps the group orders and writes the velocity of every group member (see module docs).
    Subclasses may override ``directions`` (how followers are steered)."""

    def __init__(self, crowd) -> None:
        self.crowd = crowd
        self.orders: dict[tuple[int, int, int, int], GroupOrder] = {}

    # ------------------------------------------------------------------ groups
    def keys(self, agents: np.ndarray) -> np.ndarray:
        """``(n, 4) int64`` group keys of ``agents``."""
        s, grid = self.crowd.state, self.crowd.grid
        group = s.flock_group[agents, 0]
        ids = np.where(group >= 0, group, -(agents + 1))
        goal = grid.world_to_cells(s.target[agents])
        return np.stack([ids, goal[:, 0], goal[:, 1], s.agent_method[agents, 0].astype(np.int64)], axis=1)

    def live_goals(self) -> set[tuple[int, int]]:
        return {o.goal for o in self.orders.values()}

    def update(self, dt: float) -> None:
        """Steer every walking group member; start orders for new groups; forget finished ones."""
        s, grid = self.crowd.state, self.crowd.grid
        n = s.size
        group_planner = np.isin(s.agent_method[:n, 0], FLOW_CODES) & s.alive[:n]
        state = s.nav_state[:n, 0]
        rows = np.flatnonzero(group_planner & ((state == NavState.FOLLOWING) | (state == NavState.PLANNING)))
        if len(rows) == 0:
            self.orders.clear()
            return
        keys = self.keys(rows)
        _, group_rank = np.unique(keys[:, 0], return_inverse=True)
        packed = ((group_rank.reshape(-1).astype(np.int64) * (grid.width + 1) + keys[:, 1])
                  * (grid.height + 1) + keys[:, 2]) * 16 + keys[:, 3]
        uniq, first, inverse, counts = np.unique(packed, return_index=True, return_inverse=True, return_counts=True)
        order_rows = np.argsort(inverse.reshape(-1), kind="stable")
        bounds = np.concatenate([[0], np.cumsum(counts)])
        live = set()
        for gi in range(len(uniq)):
            key = tuple(int(v) for v in keys[first[gi]])
            live.add(key)
            members = rows[order_rows[bounds[gi]:bounds[gi + 1]]]
            order = self.orders.get(key)
            if order is None:
                order = self.orders[key] = self._start(key, members)
            order.members = len(members)
            if order.failed:
                self.crowd.fail(members, order.failed)
            elif order.ready:
                self._steer(order, members, dt)
        for key in [k for k in self.orders if k not in live]:
            self.crowd.queue.cancel(("group", key))
            del self.orders[key]

    def _start(self, key, members: np.ndarray) -> GroupOrder:
        crowd = self.crowd
        s, grid = crowd.state, crowd.grid
        goal = (key[1], key[2])
        order = GroupOrder(key, goal)
        order.arrival_radius = self._arrival_radius(goal, len(members), float(s.agent_params[members, P_RADIUS].max()))
        s.nav_state[members, 0] = NavState.PLANNING
        s.mode[members] = Mode.NONE
        s.velocity[members] = 0.0
        if key[3] == LEADER:
            leader = int(members.min())
            order.leader = leader
            start = grid.world_to_cell(*s.position[leader, :2])
            job = GridJob(grid, start, goal, "astar", s.target[leader].copy(), crowd.config.smoothing, crowd.pool)
            crowd.queue.submit(("group", key), _LeaderPlan(job, crowd, order))
        else:
            crowd.queue.submit(("group", key), crowd.field_job(goal))
        return order

    def plan_done(self, key, job) -> None:
        """A group plan finished (called by the crowd when its job completes)."""
        order = self.orders.get(key)
        if order is None:
            return
        s = self.crowd.state
        if isinstance(job, _LeaderPlan):
            route: Route = job.route
            if not route.walkable:
                order.failed = route.reason or "no path for the group's leader"
                return
            order.corridor = job.corridor
            leader = order.leader
            if s.alive[leader] and s.agent_method[leader, 0] == LEADER:
                points = route.points.copy()
                if self.crowd.grid.heights is None:
                    points[:, 2] = s.position[leader, 2]
                s.set_path(leader, points, 1 if len(points) > 1 else 0)
                self.crowd.path_changed(leader)
        elif isinstance(job.value, Exception):
            order.failed = f"flow field failed ({type(job.value).__name__}: {job.value})"
            return
        order.ready = True

    def _arrival_radius(self, goal, count: int, radius: float) -> float:
        """Radius around the goal whose open cells hold ``count`` units of ``radius`` standing
        ``SPACING_RADII`` radii apart."""
        grid = self.crowd.grid
        need = count * (SPACING_RADII * radius) ** 2 / grid.cell_size ** 2
        r_guess = int(math.ceil(math.sqrt(need / math.pi))) + 2
        for r in range(r_guess, 4 * r_guess + 64, max(1, r_guess // 4)):
            x0, x1 = max(0, goal[0] - r), min(grid.width, goal[0] + r + 1)
            y0, y1 = max(0, goal[1] - r), min(grid.height, goal[1] + r + 1)
            ys, xs = np.mgrid[y0:y1, x0:x1]
            inside = ((xs - goal[0]) ** 2 + (ys - goal[1]) ** 2 <= r * r) & grid.passable[y0:y1, x0:x1]
            if inside.sum() >= need:
                return float(r) * grid.cell_size
        return float(4 * r_guess + 64) * grid.cell_size

    # ----------------------------------------------------------------- steering
    def directions(self, order: GroupOrder, members: np.ndarray) -> np.ndarray:
        """``(m, 2)`` unit directions for the followers ``members``."""
        pos = self.crowd.state.position[members]
        if order.corridor is not None:
            direction = order.corridor.sample(pos)
            lost = ~order.corridor.covers(pos)
            if lost.any():
                direction[lost] = self.crowd.flow_field(order.goal).sample(pos[lost])
            return direction
        return self.crowd.flow_field(order.goal).sample(pos)

    def _steer(self, order: GroupOrder, members: np.ndarray, dt: float) -> None:
        s = self.crowd.state
        walking = members[s.nav_state[members, 0] != NavState.FINISHED]
        is_leader = s.mode[walking] == Mode.LEADER if order.leader is not None else np.zeros(len(walking), bool)
        waiting = walking[(s.nav_state[walking, 0] == NavState.PLANNING)]
        if len(waiting):                                     # the plan arrived: they start
            s.nav_state[waiting, 0] = NavState.FOLLOWING
            s.mode[waiting] = Mode.FLOW if order.corridor is None else Mode.CORRIDOR
            if order.leader is not None and order.leader in waiting and s.path_len[order.leader] > 0:
                s.mode[order.leader] = Mode.LEADER
            is_leader = s.mode[walking] == Mode.LEADER
        followers = walking[~is_leader & ~s.agent_flags[walking, F_PAUSED]]
        params = s.agent_params[walking]
        pos = s.position[walking, :2]
        moved = np.hypot(s.velocity[walking, 0], s.velocity[walking, 1])      # achieved last tick
        stalled = np.where(moved < STALL_SPEED * params[:, P_MAX_SPEED], s.stalled[walking] + dt, 0.0)
        s.stalled[walking] = stalled
        offset = s.target[walking, :2] - pos
        dist = np.hypot(offset[:, 0], offset[:, 1])
        if len(followers):
            self._follower_velocities(order, followers, dt)
        # arrival: at the target; or in the disc touching an arrived group-mate; or stalled there
        arrived = dist <= params[:, P_TARGET_DIST]
        near = (dist <= CHAIN_REACH * order.arrival_radius) & ~arrived
        if near.any():
            done = self._arrived_mates(order)
            if len(done):
                reach = (SPACING_RADII + 0.5) * float(params[:, P_RADIUS].max())
                arrived[near] = near_any(np.ascontiguousarray(pos[near]), done, reach)
            arrived |= (dist <= order.arrival_radius) & (stalled >= SETTLE_AFTER)
        if arrived.any():
            s.velocity[walking[arrived]] = 0.0
            self.crowd.arrive(walking[arrived])

    def _follower_velocities(self, order: GroupOrder, followers: np.ndarray, dt: float) -> None:
        s = self.crowd.state
        direction = self.directions(order, followers).astype(np.float64)
        pos = s.position[followers, :2]
        offset = s.target[followers, :2] - pos
        dist = np.hypot(offset[:, 0], offset[:, 1])
        straight = np.all(direction == 0, axis=1) & (dist > 0)
        direction[straight] = offset[straight] / dist[straight, None]
        max_speed = s.agent_params[followers, P_MAX_SPEED]
        speed = max_speed * np.clip(dist / max(order.arrival_radius, 1e-9), MIN_ARRIVAL_SPEED, 1.0)
        speed = np.minimum(speed, dist / dt)
        new = direction * speed[:, None]
        # damp a flip: a heading reversed against last tick's motion is averaged with it, so a
        # unit at a wall corner does not jump between two points every tick
        old = s.velocity[followers, :2]
        flip = (new * old).sum(axis=1) < -0.25 * np.hypot(new[:, 0], new[:, 1]) * np.hypot(old[:, 0], old[:, 1])
        new[flip] = 0.5 * (new[flip] + old[flip])
        s.velocity[followers, :2] = new
        s.velocity[followers, 2] = 0.0

    def _arrived_mates(self, order: GroupOrder) -> np.ndarray:
        """Positions ``(m, 2)`` of agents of this order's group already arrived at its goal."""
        s = self.crowd.state
        n = s.size
        fin = np.flatnonzero((s.nav_state[:n, 0] == NavState.FINISHED) & (s.agent_method[:n, 0] == order.key[3])
                             & s.alive[:n])
        if len(fin) == 0 or order.key[0] < 0:
            return np.zeros((0, 2))
        keys = self.keys(fin)
        same = np.all(keys == np.asarray(order.key), axis=1)
        return np.ascontiguousarray(s.position[fin[same], :2])


class _LeaderPlan(CallJob):
    """A leader order's plan: the leader's A* (sliced), then its corridor field (one step)."""

    def __init__(self, search: GridJob, crowd, order: GroupOrder) -> None:
        self.search, self.crowd, self.order = search, crowd, order
        self.corridor: CorridorField | None = None
        self.step_units = 1

    def advance(self, units: int) -> int:
        if not self.search.done:
            used = self.search.advance(units)
            if self.search.done:
                route = self.search.route
                if route is None or not route.found:
                    self.route = route or Route(PathStatus.UNREACHABLE, reason="no path")
                    self.done = True
                else:                                        # the corridor is the next step
                    self.step_units = int(UNITS["corridor_per_cell"] * max(1, len(route.cells)) * 16)
            return used
        route = self.search.route
        try:
            self.corridor = CorridorField.build(self.crowd.grid, _raw_cells(self.search),
                                                width=self.crowd.config.corridor_width)
        except Exception as e:                               # noqa: BLE001
            self.route = Route(PathStatus.UNREACHABLE, reason=f"corridor failed ({type(e).__name__}: {e})")
        else:
            self.route = route
        self.done = True
        return int(UNITS["corridor_per_cell"] * int(self.corridor.inside.sum()) if self.corridor is not None else 1)

    def release(self) -> None:
        self.search.release()


def _raw_cells(job: GridJob) -> np.ndarray:
    """The unsmoothed A* cells of a finished grid job (the corridor follows every cell)."""
    return job.search.result().cells
