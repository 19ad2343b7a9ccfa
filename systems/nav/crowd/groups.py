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
from numba import njit

from ..flow.corridor import CorridorField
from ..result import PathStatus
from ..steering.proximity_grid import near_any_in_group
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
        """Steer every walking group member; start orders for new groups; forget finished ones.
        Python runs once per group only to sample its flow; the rest is one vectorised pass."""
        s, grid = self.crowd.state, self.crowd.grid
        n = s.size
        group_planner = np.isin(s.agent_method[:n, 0], FLOW_CODES) & s.alive[:n] & (s.mode[:n] != Mode.PATH)
        state = s.nav_state[:n, 0]
        rows = np.flatnonzero(group_planner & ((state == NavState.FOLLOWING) | (state == NavState.PLANNING)))
        if len(rows) == 0:
            self.orders.clear()
            return
        keys = self.keys(rows)
        uniq, first, inverse = _group_index(keys, grid)
        order_rows = np.argsort(inverse, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(inverse, minlength=len(uniq)))])
        live = set()
        ready = np.zeros(len(uniq), dtype=bool)
        radius = np.zeros(len(uniq))
        direction = np.zeros((len(rows), 2))
        follower = np.zeros(len(rows), dtype=bool)
        for gi in range(len(uniq)):
            key = tuple(int(v) for v in keys[first[gi]])
            live.add(key)
            members_at = order_rows[bounds[gi]:bounds[gi + 1]]
            members = rows[members_at]
            order = self.orders.get(key)
            if order is None:
                order = self.orders[key] = self._start(key, members)
            order.members = len(members)
            radius[gi] = order.arrival_radius
            if order.failed:
                self.crowd.fail(members, order.failed)
            elif order.ready:
                ready[gi] = True
                self._begin_walking(order, members)
                lead = s.mode[members] == Mode.LEADER
                moving = members_at[~lead & ~s.agent_flags[members, F_PAUSED]]
                if len(moving):
                    direction[moving] = self.directions(order, rows[moving])
                    follower[moving] = True
        for key in [k for k in self.orders if k not in live]:
            self.crowd.queue.cancel(("group", key))
            del self.orders[key]
        walking = ready[inverse] & (s.nav_state[rows, 0] == NavState.FOLLOWING)
        self._steer_all(rows[walking], inverse[walking], direction[walking], follower[walking], radius, keys, dt)

    def _begin_walking(self, order: GroupOrder, members: np.ndarray) -> None:
        """Members still waiting for the plan start walking (the plan arrived)."""
        s = self.crowd.state
        waiting = members[s.nav_state[members, 0] == NavState.PLANNING]
        if len(waiting) == 0:
            return
        s.nav_state[waiting, 0] = NavState.FOLLOWING
        s.mode[waiting] = Mode.FLOW if order.corridor is None else Mode.CORRIDOR
        if order.leader is not None and order.leader in waiting and s.path_len[order.leader] > 0:
            s.mode[order.leader] = Mode.LEADER

    def _steer_all(self, agents: np.ndarray, group: np.ndarray, direction: np.ndarray, follower: np.ndarray,
                   radius: np.ndarray, keys: np.ndarray, dt: float) -> None:
        """Speeds, flip damping and arrival for every walking member of every ready group."""
        if len(agents) == 0:
            return
        s = self.crowd.state
        disc = radius[group]
        status = np.zeros(len(agents), dtype=np.uint8)       # 1 at the target, 2 near the goal, 4 stalled in the disc
        _steer_members(agents, direction, follower, disc, s.position, s.velocity, s.target, s.agent_params, s.stalled,
                       dt, STALL_SPEED, MIN_ARRIVAL_SPEED, CHAIN_REACH, SETTLE_AFTER, status)
        arrived = (status & 1) > 0
        near = np.flatnonzero(status & 2)
        if len(near):
            mates, mate_group = self._arrived_members(keys, group, agents)
            if len(mates):
                reach = (SPACING_RADII + 0.5) * float(s.agent_params[agents[near], P_RADIUS].max())
                arrived[near] = near_any_in_group(np.ascontiguousarray(s.position[agents[near], :2]),
                                                  group[near].astype(np.int64), mates, mate_group, reach)
            arrived[near] |= (status[near] & 4) > 0
        if arrived.any():
            s.velocity[agents[arrived]] = 0.0
            self.crowd.arrive(agents[arrived])

    def _arrived_members(self, keys: np.ndarray, group: np.ndarray, agents: np.ndarray):
        """Positions of arrived agents that belong to the walking groups, and their group index."""
        s = self.crowd.state
        n = s.size
        fin = np.flatnonzero((s.nav_state[:n, 0] == NavState.FINISHED) & s.alive[:n]
                             & np.isin(s.agent_method[:n, 0], FLOW_CODES))
        if len(fin) == 0:
            return np.zeros((0, 2)), np.zeros(0, dtype=np.int64)
        fin_keys = self.keys(fin)
        # match finished agents to the walking groups by their packed key (lone units: no mates)
        grid = self.crowd.grid
        packed_walk, first = np.unique(_pack(self.keys(agents), grid), return_index=True)
        packed_fin = _pack(fin_keys, grid)
        at = np.minimum(np.searchsorted(packed_walk, packed_fin), len(packed_walk) - 1)
        found = packed_walk[at] == packed_fin
        mate_group = np.where(found, group[first[at]], -1).astype(np.int64)
        keep = found & (fin_keys[:, 0] >= 0)
        return np.ascontiguousarray(s.position[fin[keep], :2]), mate_group[keep]

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


@njit(cache=True)
def _steer_members(agents, direction, follower, disc, position, velocity, target, params, stalled, dt, stall_speed,
                   min_arrival_speed, chain_reach, settle_after, status):
    """Per walking member: the stall clock, the follower's velocity along ``direction`` (slowing in
    the arrival disc, never past the target, a reversed heading averaged with the last one so a
    unit at a wall corner does not flip every tick), and its arrival status bits."""
    for k in range(agents.shape[0]):
        a = agents[k]
        moved = math.sqrt(velocity[a, 0] ** 2 + velocity[a, 1] ** 2)
        stalled[a] = stalled[a] + dt if moved < stall_speed * params[a, 0] else 0.0
        ox, oy = target[a, 0] - position[a, 0], target[a, 1] - position[a, 1]
        dist = math.sqrt(ox * ox + oy * oy)
        if follower[k]:
            dx, dy = direction[k, 0], direction[k, 1]
            if dx == 0.0 and dy == 0.0 and dist > 0.0:
                dx, dy = ox / dist, oy / dist
            speed = params[a, 0] * min(max(dist / max(disc[k], 1e-9), min_arrival_speed), 1.0)
            speed = min(speed, dist / dt)
            nx, ny = dx * speed, dy * speed
            vx, vy = velocity[a, 0], velocity[a, 1]
            if nx * vx + ny * vy < -0.25 * math.sqrt(nx * nx + ny * ny) * math.sqrt(vx * vx + vy * vy):
                nx, ny = 0.5 * (nx + vx), 0.5 * (ny + vy)
            velocity[a, 0] = nx
            velocity[a, 1] = ny
            velocity[a, 2] = 0.0
        if dist <= params[a, 3]:
            status[k] = 1
        elif dist <= chain_reach * disc[k]:
            status[k] = 2
            if dist <= disc[k] and stalled[a] >= settle_after:
                status[k] |= 4


def _pack(keys: np.ndarray, grid) -> np.ndarray:
    """One int64 per (group id, goal x, goal y, planner) key."""
    return ((keys[:, 0] * (grid.width + 1) + keys[:, 1]) * (grid.height + 1) + keys[:, 2]) * 16 + keys[:, 3]


def _group_index(keys: np.ndarray, grid):
    """Unique groups of ``keys``: (unique packed keys, first row of each, group index per row)."""
    _, group_rank = np.unique(keys[:, 0], return_inverse=True)
    ranked = keys.copy()
    ranked[:, 0] = group_rank.reshape(-1)
    uniq, first, inverse = np.unique(_pack(ranked, grid), return_index=True, return_inverse=True)
    return uniq, first, inverse.reshape(-1)


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
