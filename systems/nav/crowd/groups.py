"""Group orders: agents with a group planner (``flowfield``, ``leader``) move as one group.

Agents are grouped by (flock group — or the agent alone when it has none —, goal cell, planner).

* ``flowfield``: every member samples the flow toward the goal (a whole-map field or sector
  tiles, planned under the crowd's budget and cached per goal while any order uses it).
* ``leader``: the member with the lowest id leads: its A* path is planned under the budget and
  widened into a corridor with its own flow field; followers steer by the corridor field, one
  pushed out of it takes the return field's shortest way back, and beyond its reach the whole
  flow field.

Arrival: units slow down in the group's arrival disc (sized to hold the group). Near the goal
each follower claims the nearest free *slot* of a hexagonal packing around the goal (slots on
open cells in sight of the goal, ``SPACING_RADII`` radii apart; the goal itself is the leader's),
walks straight to it and settles there: the group ends as a tight blob close to the best
packing for its size. A unit that stands still in the disc for ``SETTLE_AFTER`` (its slot
blocked) settles where it is; the leader arrives at the target (it used to be held off its own
target by settled mates).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from dataclasses import field as dataclass_field

import numpy as np

from rtsnav.names import L_NAVIGATION_LAYERS

from ..flow.clearance import WIDE
from ..flow.corridor import CorridorField
from ..flow.field import FlowField
from ..flow.potential import PotentialField
from ..flow.sectors import SectorOrder
from ..grid import Grid
from ..kernels.threads import threads_for
from ..steering.proximity_grid import near_any_in_group
from .config import CrowdConfig
from .congestion import Traffic
from .detours import Detours
from .events import Outcomes
from .field_batch import BatchLists, FieldBatch, SampleCache
from .group_index import GroupIndex, pack_keys
from .group_kernels import NO_MASK, row_keys, steer_members, to_target, values_under
from .leader_plan import LeaderPlan, raw_cells
from .level_cache import LevelCache
from .planners import UNITS, PlanQueue
from .planning import Planning
from .route_split import RouteSplits
from .slots import claim_free_slots, hex_slots
from .state import GROUP_PLANNERS, PLANNERS, CrowdState, Mode, NavState

__all__ = ["GroupOrder", "GroupSteering", "LEADER", "FLOW_CODES", "group_planned"]

FLOW_CODES = np.array([PLANNERS.index(p) for p in GROUP_PLANNERS], dtype=np.int8)
_IS_FLOW = np.zeros(256, dtype=bool)
_IS_FLOW[FLOW_CODES.astype(np.uint8)] = True


def group_planned(methods: np.ndarray) -> np.ndarray:
    """Which planner codes (``agent_method``) are group planners: a table lookup (``np.isin``
    sorts, ~0.3 ms at 50,000 agents)."""
    return _IS_FLOW[np.asarray(methods).astype(np.uint8)]

LEADER = PLANNERS.index("leader")
POTENTIAL = PLANNERS.index("potential")
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
#: Density of a hexagonal packing of discs, π / (2√3).
HEX_DENSITY = math.pi / (2 * math.sqrt(3))
#: A unit held off its slot settles where it stands within this multiple of the packing radius.
SETTLE_WITHIN_PACKING = 1.2
#: Free slots, best first, checked for straight sight from a unit choosing one.
SLOT_CANDIDATES = 8
#: Sector fields a tick may build however busy the planning queue is (more when its budget has
#: room; ~0.1 ms a build). Units in an unbuilt sector walk the coarse route, which wedges units
#: against walls if they stay on it: at 16 a tick, 20,000 units scattered in 40 groups over
#: AcrosstheCape had 1,071 `stuck` events in 3,000 ticks against 91 building every sector at
#: once; at 256, 92 — a bound on a tick's building only a burst (a new order) reaches.
SECTOR_BUILDS_AT_LEAST = 256
#: Sector fields a tick may build for a leader group's strays outside its corridor (the rest walk
#: the coarse route meanwhile).
FALLBACK_BUILDS = 16
#: Slot choice: distance from the unit plus this times the slot's distance from the goal.
INNER_FIRST = 8.0


def _group_key(row: np.ndarray) -> tuple[int, int, int, int]:
    """A group order's key from its row of ``keys``: (group id, goal x, goal y, planner code)."""
    return int(row[0]), int(row[1]), int(row[2]), int(row[3])


@dataclass(slots=True)
class GroupOrder:
    """One group's move order and its plan."""

    key: tuple[int, int, int, int]           # (group id, goal x, goal y, planner code)
    goal: tuple[int, int]
    arrival_radius: float = 0.0
    members: int = 0
    leader: int | None = None                # agent id (leader groups)
    corridor: CorridorField | None = None
    corridor_path: np.ndarray | None = None   # the leader's A* cells the corridor widens
    ready: bool = False                      # the plan arrived: members may move
    failed: str = ""
    pack_radius: float = 0.0                 # radius of the ideal hexagonal packing of the group
    # arrival slots, made when the first member comes near (``slots_made``)
    slots: np.ndarray = dataclass_field(default_factory=lambda: np.zeros((0, 2)))   # (K, 2) hex packing around the goal
    taken: np.ndarray = dataclass_field(default_factory=lambda: np.zeros(0, dtype=bool))   # (K,)
    slot_distance: np.ndarray = dataclass_field(default_factory=lambda: np.zeros(0))     # (K,) distance from the goal
    slots_made: bool = False
    start: tuple[int, int] = (0, 0)          # a cell where the group stood when ordered
    field: FlowField | PotentialField | None = None   # the group's own field (congestion-aware, potential)


class GroupSteering:
    """Keeps the group orders and writes the velocity of every group member (see module docs).
    Subclasses may override ``directions`` (how followers are steered)."""

    def __init__(self, agents: CrowdState, grid: Grid, config: CrowdConfig, queue: PlanQueue, level: LevelCache,
                 planning: Planning, outcomes: Outcomes) -> None:
        self._agents, self._grid, self._config, self._queue = agents, grid, config, queue
        self._level, self._planning, self._outcomes = level, planning, outcomes
        #: the routes of congestion-aware group orders
        self.traffic = Traffic(grid, config, level)
        #: big leader groups split over two passages
        self.splits = RouteSplits(agents, grid, config, level, queue, planning, self.traffic)
        self.orders: dict[tuple[int, int, int, int], GroupOrder] = {}
        level.in_use = self.live_goals                 # fields of live orders stay cached
        self.detours = Detours(agents, grid, config, queue, planning, outcomes, self)
        self.index = GroupIndex()
        self.batch_lists = BatchLists()
        self.sample_cache = SampleCache()

    # ------------------------------------------------------------------ groups
    def keys(self, agents: np.ndarray) -> np.ndarray:
        """``(n, 4) int64`` group keys of ``agents``."""
        s, view = self._agents, self._grid.view
        return row_keys(np.asarray(agents, dtype=np.int64), s.flock_group, s.target, s.agent_method, view.origin_x,
                         view.origin_y, view.cell_size)

    def detours_ended(self, followed) -> None:
        """Members at the end of their detour, or off it (``followed``: the path follower's
        result, edited in place), go back to the group's steering."""
        s = self._agents
        for name in ("arrived", "drifted"):
            ids = getattr(followed, name)
            detour = s.mode[ids] == Mode.DETOUR
            if detour.any():
                self.detours.end(ids[detour])
                setattr(followed, name, ids[~detour])

    def live_goals(self) -> set[tuple[int, int]]:
        """Goal cells of the group orders under way (their fields stay cached)."""
        return {o.goal for o in self.orders.values()}

    def update(self, dt: float, pace: np.ndarray) -> None:
        """Steer every walking group member; start orders for new groups; forget finished ones.
        ``pace``: each agent's velocity as walked last tick (its stall clock). Python runs once per
        group only to sample its flow; the rest is one vectorised pass."""
        s, grid = self._agents, self._grid
        n = s.size
        s.togo[:n] = np.nan                         # measured again below for the units a field steers
        group_planner = group_planned(s.agent_method[:n, 0]) & s.alive[:n] & (s.mode[:n] != Mode.PATH)
        if s.unreachable:                 # a unit sent to the closest point of an unreachable target walks
            alone = np.fromiter(s.unreachable, dtype=np.int64)               # alone (while it plans too)
            group_planner[alone[alone < n]] = False
        state = s.nav_state[:n, 0]
        rows = np.flatnonzero(group_planner & ((state == NavState.FOLLOWING) | (state == NavState.PLANNING)))
        if len(rows) == 0:
            for key in list(self.orders):                     # every order ended: forget them all
                self._forget(key)
            return
        keys = self.keys(rows)
        first, inverse, order_rows, bounds = self.index.of(rows, keys, grid)
        groups = len(first)
        live = set()
        ready = np.zeros(groups, dtype=bool)
        radius = np.zeros(groups)
        settle = np.zeros(groups)
        direction = np.zeros((len(rows), 2))
        follower = np.zeros(len(rows), dtype=bool)
        # per-row facts computed once, not per group
        steerable = _steerable(s, rows)
        detours = self._config.leader_fallback != "field"
        planning = np.bincount(inverse[state[rows] == NavState.PLANNING], minlength=groups) > 0
        batch = FieldBatch(grid, rows, self.batch_lists, self.sample_cache)   # sector-tile groups: one pass
        for gi in range(groups):
            key = _group_key(keys[first[gi]])
            live.add(key)
            members_at = order_rows[bounds[gi]:bounds[gi + 1]]
            members = rows[members_at]
            order = self.orders.get(key)
            if order is None:
                order = self.orders[key] = self._start(key, members)
            order.members = len(members)
            radius[gi] = order.arrival_radius
            settle[gi] = SETTLE_WITHIN_PACKING * order.pack_radius + 0.5 * grid.cell_size
            if order.failed:
                self._outcomes.fail(members, order.failed)
            elif order.ready:
                ready[gi] = True
                if planning[gi]:
                    self._begin_walking(order, members)
                if detours and order.corridor is not None:
                    self.detours.update(order, members, dt)
                if planning[gi] or detours:
                    steerable[members_at] = _steerable(s, members)
                moving = members_at[steerable[members_at]]
                if len(moving):
                    follower[moving] = True
                    if order.corridor is not None or not batch.add(self._field_of(order), moving):
                        direction[moving] = self.directions(order, rows[moving])
                        s.togo[rows[moving]] = self.cost_to_go(order, rows[moving])
        unbuilt, sectors = batch.run(s.position, direction, s.togo)
        if len(unbuilt):
            self._build_sectors(batch, unbuilt, sectors)
        for key in [k for k in self.orders if k not in live]:
            self._forget(key)
        walking = ready[inverse] & (state[rows] == NavState.FOLLOWING)
        aim = np.take(s.target, rows, axis=0)[:, :2]       # np.take: 4x faster than fancy indexing
        self._use_slots(rows, inverse, keys, first, walking & follower, radius, settle, direction, aim)
        at = np.flatnonzero(walking)                        # np.take: 2-D boolean masks are ~15x slower
        self._steer_all(rows[at], inverse[at], np.take(direction, at, axis=0), follower[at], radius,
                        np.take(keys, at, axis=0), dt, np.take(aim, at, axis=0), settle, pace)
        self.traffic.advance(dt, self.orders)

    def _build_sectors(self, batch: FieldBatch, unbuilt: np.ndarray, sectors: np.ndarray) -> None:
        """Rows ``unbuilt`` of the batch stand in sectors ``sectors`` their group's tiles have not
        built (they follow the coarse route meanwhile): build the sectors under what is left of
        the tick's planning budget, at least ``SECTOR_BUILDS_AT_LEAST``, those holding the most
        members first — bounded work a tick, not every sector a crowd wanders into."""
        queue = self._queue
        batch.build(unbuilt, sectors,
                    max(SECTOR_BUILDS_AT_LEAST, (queue.budget - queue.last_units) // UNITS["sector_field"]))

    def _use_slots(self, rows, inverse, keys, first, followers, radius, settle, direction, aim) -> None:
        """Followers near their goal claim the nearest free arrival slot; those with a slot aim
        straight at it (``direction`` and ``aim`` updated in place). Python runs per group only
        where a unit needs a slot or gives one back; the rest is vectorised over all groups."""
        s = self._agents
        to_goal = to_target(rows, s.position, s.target)
        near = followers & (to_goal <= CHAIN_REACH * radius[inverse])
        if not near.any():
            return
        pos = np.take(s.position, rows, axis=0)[:, :2]
        order_of: dict[int, GroupOrder] = {}
        for gi in np.unique(inverse[near]).tolist():
            order = self.orders.get(_group_key(keys[first[gi]]))
            if order is None:
                continue
            if not order.slots_made:
                self._make_slots(order, rows[inverse == gi])
            order_of[gi] = order
        near &= np.isin(inverse, np.fromiter(order_of, dtype=np.int64, count=len(order_of)))
        slot = s.slot[rows]
        # a slot walled off by settled mates is given back
        held_off = near & (slot >= 0) & (s.stalled[rows] >= SETTLE_AFTER) & (to_goal > settle[inverse])
        for k in np.flatnonzero(held_off).tolist():
            _release_slot(s, order_of[inverse[k]], rows[k])
            s.stalled[rows[k]] = 0.0
        needing = np.flatnonzero(near & (s.slot[rows] < 0))
        for gi in np.unique(inverse[needing]).tolist():
            mine = needing[inverse[needing] == gi]
            self._claim_slots(order_of[gi], rows, mine[np.argsort(to_goal[mine], kind="stable")], pos)
        with_slot = np.flatnonzero(near & (s.slot[rows] >= 0))
        if len(with_slot):
            # a slot out of straight sight (pushed behind a tree) is given back
            spot = np.stack([s.home_x[rows[with_slot]], s.home_y[rows[with_slot]]], axis=1)
            lost = ~self._grid.segments_clear(pos[with_slot], spot)
            for k in with_slot[lost].tolist():
                _release_slot(s, order_of[inverse[k]], rows[k])
            with_slot = with_slot[~lost]
            spot = spot[~lost]
            aim[with_slot] = spot
            off = spot - pos[with_slot]
            length = np.hypot(off[:, 0], off[:, 1])
            ok = length > 1e-9
            direction[with_slot[ok]] = off[ok] / length[ok, None]

    def _claim_slots(self, order: GroupOrder, rows: np.ndarray, needing: np.ndarray, pos: np.ndarray) -> None:
        """Units ``rows[needing]`` (nearest the goal first) of one group claim free slots: near
        the unit, but inner slots first (the blob fills from the goal outward), and only a slot
        it can walk to in a straight line (the best few checked; ``claim_free_slots``)."""
        s, grid = self._agents, self._grid
        picked = claim_free_slots(order.slots, order.slot_distance, order.taken,
                                  np.ascontiguousarray(pos[needing, 0]), np.ascontiguousarray(pos[needing, 1]),
                                  INNER_FIRST, SLOT_CANDIDATES, grid.passable, grid.cell_size,
                                  float(grid.origin[0]), float(grid.origin[1]))
        got = picked >= 0
        units = rows[needing[got]]
        s.slot[units] = picked[got]
        s.home_x[units] = order.slots[picked[got], 0]
        s.home_y[units] = order.slots[picked[got], 1]

    def settle_if_near(self, agents: np.ndarray) -> np.ndarray:
        """Group units among ``agents`` (walking with the group or alone after a recovery) that
        stand within the arrival disc of their goal — sized for them and the mates already
        there — have arrived: a stuck unit that close is part of the crowd around its goal.
        Returns the others."""
        s, grid = self._agents, self._grid
        group = agents[np.isin(s.agent_method[agents, 0], FLOW_CODES)]
        if len(group) == 0:
            return agents
        n = s.size
        done = np.flatnonzero((s.nav_state[:n, 0] == NavState.FINISHED) & s.alive[:n])
        done_keys = pack_keys(self.keys(done), grid) if len(done) else np.zeros(0, dtype=np.int64)
        keys = self.keys(group)
        near = np.zeros(len(group), dtype=bool)
        for k, agent in enumerate(group.tolist()):
            mates = int((done_keys == pack_keys(keys[k:k + 1], grid)[0]).sum())
            disc = self.arrival_radius((int(keys[k, 1]), int(keys[k, 2])), mates + 1,
                                        float(s.radius[agent]))
            near[k] = math.hypot(*(s.position[agent, :2] - s.target[agent, :2])) <= disc
        if near.any():
            s.velocity[group[near]] = 0.0
            self._outcomes.arrive(group[near])
        return np.setdiff1d(agents, group[near])

    def _make_slots(self, order: GroupOrder, members: np.ndarray) -> None:
        """A hexagonal packing around the goal on open cells in sight of it, nearest first."""
        s, grid = self._agents, self._grid
        r = float(s.radius[members].max()) if len(members) else 0.4
        spacing = max(SPACING_RADII * r, 1e-3)
        centre = np.array(grid.cell_to_world(*order.goal)[:2])
        pts = hex_slots(grid, order.goal, centre, spacing, max(order.members, len(members)) + 1)
        order.slots = np.ascontiguousarray(pts)
        order.slot_distance = np.hypot(*(pts - centre).T)
        order.taken = np.zeros(len(pts), dtype=bool)
        order.slots_made = True
        if order.leader is not None and len(pts):
            order.taken[0] = True                         # the goal itself: the leader's

    def split_done(self, key, job) -> None:
        """A big group's second route landed (``RouteSplits``): its share of the members
        walking with the group takes it."""
        order = self.orders.get(key)
        if order is None:
            self.splits.forget(key)
            return
        s = self._agents
        n = s.size
        state = s.nav_state[:n, 0]
        rows = np.flatnonzero(s.alive[:n] & (s.agent_method[:n, 0] == key[3]) & (s.flock_group[:n, 0] == key[0])
                              & (s.mode[:n] != Mode.PATH) & (state == NavState.FOLLOWING))
        goal = self._grid.world_to_cells(s.target[rows])
        rows = rows[(goal[:, 0] == key[1]) & (goal[:, 1] == key[2]) & (rows != (order.leader if order.leader is not None else -1))]
        self.splits.done(key, job, rows)

    def _forget(self, key) -> None:
        """A group order ended: its plan is cancelled and its route stops counting as traffic."""
        self._queue.cancel(("group", key))
        self._queue.cancel(("split", key))
        self.splits.forget(key)
        self.traffic.remove_route(key)
        self.detours.forget(key)
        del self.orders[key]

    def _begin_walking(self, order: GroupOrder, members: np.ndarray) -> None:
        """Members still waiting for the plan start walking (the plan arrived)."""
        s = self._agents
        waiting = members[s.nav_state[members, 0] == NavState.PLANNING]
        if len(waiting) == 0:
            return
        s.nav_state[waiting, 0] = NavState.FOLLOWING
        s.mode[waiting] = Mode.FLOW if order.corridor is None else Mode.CORRIDOR
        if order.leader is not None and order.leader in waiting and s.path_len[order.leader] > 0:
            s.mode[order.leader] = Mode.LEADER

    def _steer_all(self, agents: np.ndarray, group: np.ndarray, direction: np.ndarray, follower: np.ndarray,
                   radius: np.ndarray, keys: np.ndarray, dt: float, aim: np.ndarray, settle: np.ndarray,
                   pace: np.ndarray) -> None:
        """Speeds, flip damping and arrival for every walking member of every ready group."""
        if len(agents) == 0:
            return
        s = self._agents
        disc = radius[group]
        status = np.zeros(len(agents), dtype=np.uint8)       # 1 at the target, 2 near the goal, 4 stalled in the disc
        has_slot = s.slot[agents] >= 0
        with threads_for(len(agents), "group_steering"):
            steer_members(agents, direction, follower, disc, settle[group], s.position, s.velocity, pace,
                           np.ascontiguousarray(aim), s.target, has_slot, s.agent_params, s.stalled, dt, STALL_SPEED,
                           MIN_ARRIVAL_SPEED, CHAIN_REACH, SETTLE_AFTER, self._config.flow_acceleration, status)
        arrived = (status & 1) > 0
        near = np.flatnonzero((status & 2) & ~has_slot)
        if len(near):
            mates, mate_group = self._arrived_members(keys, group, agents)
            if len(mates):
                reach = (SPACING_RADII + 0.5) * float(s.radius[agents[near]].max())
                arrived[near] = near_any_in_group(np.ascontiguousarray(s.position[agents[near], :2]),
                                                  group[near].astype(np.int64), mates, mate_group, reach)
        arrived |= (status & 4) > 0
        if arrived.any():
            s.velocity[agents[arrived]] = 0.0
            self._outcomes.arrive(agents[arrived])

    def _arrived_members(self, keys: np.ndarray, group: np.ndarray, agents: np.ndarray):
        """Positions of arrived agents that belong to the walking groups, and their group index
        (``keys``: the group keys of the walking ``agents``, computed once this tick)."""
        s = self._agents
        n = s.size
        fin = np.flatnonzero((s.nav_state[:n, 0] == NavState.FINISHED) & s.alive[:n]
                             & group_planned(s.agent_method[:n, 0]))
        if len(fin) == 0:
            return np.zeros((0, 2)), np.zeros(0, dtype=np.int64)
        fin_keys = self.keys(fin)
        # match finished agents to the walking groups by their packed key (lone units: no mates)
        grid = self._grid
        packed_walk, first = np.unique(pack_keys(keys, grid), return_index=True)
        packed_fin = pack_keys(fin_keys, grid)
        at = np.minimum(np.searchsorted(packed_walk, packed_fin), len(packed_walk) - 1)
        found = packed_walk[at] == packed_fin
        mate_group = np.where(found, group[first[at]], -1).astype(np.int64)
        keep = found & (fin_keys[:, 0] >= 0)
        return np.ascontiguousarray(s.position[fin[keep], :2]), mate_group[keep]

    def arrived_mates(self, order: GroupOrder) -> np.ndarray:
        """Agents of ``order``'s group that arrived at its goal (ids)."""
        s = self._agents
        n = s.size
        if order.key[0] < 0:                                   # a lone agent has no mates
            return np.zeros(0, dtype=np.int64)
        fin = np.flatnonzero((s.nav_state[:n, 0] == NavState.FINISHED) & s.alive[:n]
                             & (s.agent_method[:n, 0] == order.key[3]) & (s.flock_group[:n, 0] == order.key[0]))
        goal = self._grid.world_to_cells(s.target[fin])
        return fin[(goal[:, 0] == order.goal[0]) & (goal[:, 1] == order.goal[1])]

    def _start(self, key, members: np.ndarray) -> GroupOrder:
        s, grid, level, queue = self._agents, self._grid, self._level, self._queue
        goal = (key[1], key[2])
        order = GroupOrder(key, goal)
        if not grid.in_bounds(*goal):     # the orders send these alone to the closest point; never a dead tick
            order.failed = f"the group's goal cell {goal} is outside the map"
            return order
        r_max = float(s.radius[members].max())
        order.arrival_radius = self.arrival_radius(goal, len(members), r_max)
        order.pack_radius = 0.5 * SPACING_RADII * r_max * math.sqrt(len(members) / HEX_DENSITY)
        s.nav_state[members, 0] = NavState.PLANNING
        s.mode[members] = Mode.NONE
        s.velocity[members] = 0.0
        middle = s.position[members, :2].mean(axis=0)
        nearest = members[np.argmin(np.hypot(*(s.position[members, :2] - middle).T))]
        order.start = grid.world_to_cell(*s.position[nearest, :2])
        # navigation layers: the group walks the cells all its members may (its level's grid)
        mask = int(np.bitwise_and.reduce(s.agent_layers[members, L_NAVIGATION_LAYERS]))
        layered = level.for_layers(mask)
        if key[3] == LEADER:
            leader = int(members.min())
            order.leader = leader
            start = grid.world_to_cell(*s.position[leader, :2])
            own = None if layered is level else layered.grid
            job = self._planning.astar(start, goal, s.target[leader].copy(), grid=own)
            queue.submit(("group", key), LeaderPlan(job, self.traffic, self._config, order, own))
        elif key[3] == POTENTIAL:
            queue.submit(("group", key), layered.potential_job(goal))
        elif r_max > WIDE * grid.cell_size:
            queue.submit(("group", key), layered.sized_field_job(goal, r_max))     # wide units
        elif layered is not level:
            queue.submit(("group", key), layered.field_job(goal))
        elif self._config.congestion and not level.uses_tiles:
            queue.submit(("group", key), self.traffic.field_job(key, goal, order.start, len(members)))
        else:
            queue.submit(("group", key), level.field_job(goal))
        return order

    def plan_done(self, key, job) -> None:
        """A group plan finished (called by the crowd when its job completes)."""
        order = self.orders.get(key)
        if order is None:
            return
        s = self._agents
        if isinstance(job, LeaderPlan):
            route = job.route
            if route is None or not route.walkable:
                order.failed = (route.reason if route is not None else "") or "no path for the group's leader"
                return
            order.corridor = job.corridor
            order.corridor_path = raw_cells(job.search)
            leader = order.leader
            if leader is not None and s.alive[leader] and s.agent_method[leader, 0] == LEADER:
                points = route.points.copy()
                if self._grid.heights is None:
                    points[:, 2] = s.position[leader, 2]
                s.set_path(leader, points, 1 if len(points) > 1 else 0)
                self._outcomes.path_changed(leader)
            self.splits.consider(key, order.corridor_path, route, order.members, s.target[order.leader or 0])
        elif isinstance(job.value, Exception):
            order.failed = f"flow field failed ({type(job.value).__name__}: {job.value})"
            return
        elif isinstance(job.value, PotentialField) or (getattr(job.value, "grid", None) is not None
                                                       and job.value.grid is not self._grid) or (
                isinstance(job.value, SectorOrder) and job.value.graph.grid is not self._grid):
            order.field = job.value       # a potential field, planned around traffic, or for wide units
        order.ready = True

    def arrival_radius(self, goal, count: int, radius: float) -> float:
        """Radius around the goal whose open cells hold ``count`` units of ``radius`` standing
        ``SPACING_RADII`` radii apart (0 for a goal off the map)."""
        grid = self._grid
        if not grid.in_bounds(*goal):        # a target off the map: units walk to its closest point alone
            return 0.0
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
    def cost_to_go(self, order: GroupOrder, members: np.ndarray) -> np.ndarray:
        """Each member's remaining cost on the field its group follows (NaN where there is none:
        outside a leader's corridor). The progress watch counts only a new lowest value as
        progress for these units, so a crowd jostling in a dead end is not "moving"."""
        view = self._grid.view
        position = self._agents.position
        if order.corridor is not None:
            return values_under(order.corridor.field.integration, order.corridor.inside, True, False, position,
                                 members, view.origin_x, view.origin_y, view.cell_size)
        field = order.field if order.field is not None else self._level.flow_field(order.goal)
        if isinstance(field, SectorOrder):                  # sector tiles: NaN where not built (sampled, so rare)
            return field.cost_under(position[members])
        return values_under(field.integration, NO_MASK, False, False, position, members, view.origin_x,
                             view.origin_y, view.cell_size)

    def _field_of(self, order: GroupOrder):
        """The field a group without a corridor follows."""
        return order.field if order.field is not None else self._level.flow_field(order.goal)

    def directions(self, order: GroupOrder, members: np.ndarray) -> np.ndarray:
        """``(m, 2)`` unit directions for the followers ``members``."""
        pos = self._agents.position[members]
        flow = order.field if order.field is not None else None
        if order.corridor is not None:
            direction = order.corridor.sample(pos)
            lost = ~order.corridor.covers(pos)
            if lost.any():
                fallback = flow or self._level.cached_flow_field(order.goal)
                if fallback is None:
                    # the whole-map field is planned under the budget, not built in this tick
                    # (4-20 ms on a 512² map); strays wait for it, a few ticks
                    self._level.want_flow_field(order.goal)
                    direction[lost] = 0.0
                elif isinstance(fallback, SectorOrder):     # a few sector builds a tick, coarse meanwhile
                    direction[lost] = fallback.sample_within(pos[lost], FALLBACK_BUILDS)[0]
                else:
                    direction[lost] = fallback.sample(pos[lost])
            return direction
        return (flow or self._level.flow_field(order.goal)).sample(pos)


def _steerable(s, rows: np.ndarray) -> np.ndarray:
    """Rows the group's field steers: not its leader, not on a detour, not paused."""
    mode = s.mode[rows]
    return (mode != Mode.LEADER) & (mode != Mode.DETOUR) & ~s.paused[rows]


def _release_slot(state, order: GroupOrder, agent: int) -> None:
    """``agent`` gives its arrival slot back (it will claim another)."""
    order.taken[state.slot[agent]] = False
    state.slot[agent] = -1
    state.home_x[agent] = state.home_y[agent] = np.nan
