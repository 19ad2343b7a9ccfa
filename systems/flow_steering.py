"""``FlowSteeringProcessor``: moves flow-field and leader groups toward their targets.

Agents whose ``NavigationAgent.method`` is ``"flowfield"`` or ``"leader"`` are grouped by
(``Flock.group`` — or the entity itself when it has no ``Flock`` — , target cell, method):

* ``"flowfield"``: every member samples the flow toward the target (a whole-map field or sector
  tiles, cached per goal by the ``Navigation``).
* ``"leader"``: the member with the lowest entity id leads: it gets an A* path and walks it like
  any path follower. The path is widened into a corridor with its own flow field; followers
  steer by the corridor field, and one pushed out of the corridor takes the return field's
  shortest way back. Beyond the return field's reach a follower falls back to the whole flow.

Arrival: units slow down near the target and settle spread around it: a unit arrives within
``target_desired_distance`` of the target, or anywhere in the group's arrival disc (sized to
hold the whole group on the open cells around the target) once it touches a group-mate that
already arrived. ``target_reached`` / ``navigation_finished`` fire per unit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import esper
import numpy as np

from rtsnav.components import NavState, PLANNERS
from rtsnav.components.navigation import F_PAUSED, P_MAX_SPEED, P_RADIUS, P_TARGET_DIST
from rtsnav.systems.nav import find_path, smooth_path
from rtsnav.systems.nav.flow.corridor import CorridorField
from rtsnav.systems.nav.steering.proximity_grid import near_any

from . import events
from .base import NavProcessor

FLOW_METHODS = (PLANNERS.index("flowfield"), PLANNERS.index("leader"))
LEADER = PLANNERS.index("leader")
#: Fraction of max speed a unit keeps while decelerating inside its arrival disc.
MIN_ARRIVAL_SPEED = 0.25
#: Units settle about this many radii apart (flocking's personal space, see flocking.py).
SPACING_RADII = 2.5
#: Units that touch an arrived group-mate settle up to this multiple of the disc radius.
CHAIN_REACH = 1.25
#: Inside its arrival disc, a unit slower than this fraction of its max speed for
#: ``SETTLE_AFTER`` seconds has reached the crowd around the goal: it settles there.
STALL_SPEED = 0.2
SETTLE_AFTER = 1.0


@dataclass(slots=True)
class GroupOrder:
    """One group's move order."""

    key: tuple[int, int, int, int]           # (group id, goal x, goal y, method code)
    goal: tuple[int, int]
    arrival_radius: float = 0.0
    members: int = 0
    leader: int | None = None                # entity id (leader groups)
    corridor: CorridorField | None = None


class FlowSteeringProcessor(NavProcessor):
    """Writes the velocity of every flow-field / leader-group follower (see module docs)."""

    def __init__(self, navigation) -> None:
        super().__init__(navigation)
        self.orders: dict[tuple[int, int, int, int], GroupOrder] = {}
        self._version = navigation.grid.version

    def update(self, dt: float) -> None:
        nav = self.navigation
        t, grid = nav.agents, nav.grid
        if self._version != grid.version:          # the map changed: leaders re-plan, corridors rebuild
            self.orders.clear()
            self._version = grid.version
        n = t.count
        method = t.agent_method[:n, 0]
        state = t.nav_state[:n, 0]
        flow = np.isin(method, FLOW_METHODS)
        rows = np.flatnonzero(flow & (state == NavState.FOLLOWING) & (t.path_len[:n] == 0)
                              & ~t.agent_flags[:n, F_PAUSED])
        if len(rows) == 0:
            self._forget_orders(set())
            return
        keys = self._keys(rows)
        # one int64 per unit for its (group, goal, method): np.unique on 1D is several times
        # faster than on rows
        _, group_rank = np.unique(keys[:, 0], return_inverse=True)
        packed = ((group_rank.reshape(-1).astype(np.int64) * (grid.width + 1) + keys[:, 1])
                  * (grid.height + 1) + keys[:, 2]) * 16 + keys[:, 3]
        uniq, first, inverse, counts = np.unique(packed, return_index=True, return_inverse=True,
                                                 return_counts=True)
        inverse = inverse.reshape(-1)
        order_rows = np.argsort(inverse, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(counts)])
        live = set()
        for gi in range(len(uniq)):
            key = tuple(int(v) for v in keys[first[gi]])
            live.add(key)
            members = rows[order_rows[bounds[gi]:bounds[gi + 1]]]
            order = self.orders.get(key)
            if order is None:
                order = self._new_order(key, members)
                self.orders[key] = order
            order.members = int(counts[gi])
            self._steer(order, members, dt)
        self._forget_orders(live)

    # ------------------------------------------------------------------ groups
    def _keys(self, rows: np.ndarray) -> np.ndarray:
        t, grid = self.navigation.agents, self.navigation.grid
        group = t.flock_group[rows, 0]
        ids = np.where(group >= 0, group, -(t.entity[rows] + 1))
        goal = grid.world_to_cells(t.target[rows])
        return np.stack([ids, goal[:, 0], goal[:, 1], t.agent_method[rows, 0].astype(np.int64)], axis=1)

    def _forget_orders(self, live: set) -> None:
        """Drop orders with no unit left walking (a new order for the same key starts afresh)."""
        for key in [k for k in self.orders if k not in live]:
            del self.orders[key]

    def _new_order(self, key, members: np.ndarray) -> GroupOrder:
        nav = self.navigation
        t, grid = nav.agents, nav.grid
        goal = (key[1], key[2])
        order = GroupOrder(key, goal)
        order.arrival_radius = self._arrival_radius(goal, len(members), float(t.agent_params[members, P_RADIUS].max()))
        if key[3] == LEADER:
            leader_row = int(members[np.argmin(t.entity[members])])
            order.leader = int(t.entity[leader_row])
            start = grid.world_to_cell(*t.position[leader_row, :2])
            r = find_path(grid, start, goal)
            if r.found:
                order.corridor = CorridorField.build(grid, r.cells, width=nav.corridor_width)
                cells = smooth_path(grid, r.cells) if nav.smoothing else r.cells
                points = grid.cells_to_world(cells)
                points[-1, :2] = t.target[leader_row, :2]
                if grid.heights is None:
                    points[:, 2] = t.position[leader_row, 2]
                t.set_path(leader_row, points, 1 if len(points) > 1 else 0)
                if events.has_handler(events.PATH_CHANGED):
                    esper.dispatch_event(events.PATH_CHANGED, order.leader, points.copy())
        return order

    def _arrival_radius(self, goal, count: int, radius: float) -> float:
        """Radius around the goal whose open cells can hold ``count`` units of ``radius``
        standing ``SPACING_RADII`` radii apart."""
        grid = self.navigation.grid
        need = count * (SPACING_RADII * radius) ** 2 / grid.cell_size ** 2   # in cells
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
    def _steer(self, order: GroupOrder, members: np.ndarray, dt: float) -> None:
        nav = self.navigation
        t = nav.agents
        pos = t.position[members]
        if order.corridor is not None:
            direction = order.corridor.sample(pos)
            lost = ~order.corridor.covers(pos)
            if lost.any():
                direction[lost] = nav.flow_field(order.goal).sample(pos[lost])
        else:
            direction = nav.flow_field(order.goal).sample(pos)
        params = t.agent_params[members]
        moved = np.hypot(t.velocity[members, 0], t.velocity[members, 1])   # achieved last tick
        stalled = np.where(moved < STALL_SPEED * params[:, P_MAX_SPEED], t.stalled[members, 0] + dt, 0.0)
        t.stalled[members, 0] = stalled
        target = t.target[members, :2]
        offset = target - pos[:, :2]
        dist = np.hypot(offset[:, 0], offset[:, 1])
        # inside the goal cell (or where the field has no direction) head straight for the target
        straight = np.all(direction == 0, axis=1) & (dist > 0)
        direction[straight] = offset[straight] / dist[straight, None]
        slow = np.clip(dist / max(order.arrival_radius, 1e-9), MIN_ARRIVAL_SPEED, 1.0)
        speed = params[:, P_MAX_SPEED] * slow
        speed = np.minimum(speed, dist / dt)                  # never step past the target
        vel = np.zeros((len(members), 3))
        vel[:, :2] = direction * speed[:, None]
        # arrival: at the target; or in the disc, touching a group-mate that already arrived
        # (touching = within the spacing flocking keeps), or stalled against the crowd there
        arrived = dist <= params[:, P_TARGET_DIST]
        in_disc = (dist <= order.arrival_radius) & ~arrived
        near = (dist <= CHAIN_REACH * order.arrival_radius) & ~arrived
        if near.any():
            done = self._arrived_mates(order, members)
            if len(done):
                reach = (SPACING_RADII + 0.5) * float(params[:, P_RADIUS].max())
                arrived[near] = near_any(np.ascontiguousarray(pos[near, :2]), done, reach)
            arrived |= in_disc & (stalled >= SETTLE_AFTER)
        vel[arrived] = 0.0
        t.velocity[members] = vel
        if arrived.any():
            self.arrive(members[arrived])

    def _arrived_mates(self, order: GroupOrder, members: np.ndarray) -> np.ndarray:
        """Positions ``(m, 2)`` of units of this order's group already arrived at its goal."""
        t = self.navigation.agents
        n = t.count
        fin = np.flatnonzero((t.nav_state[:n, 0] == NavState.FINISHED)
                             & (t.agent_method[:n, 0] == order.key[3]))
        if len(fin) == 0:
            return np.zeros((0, 2))
        keys = self._keys(fin)
        same = np.all(keys == np.asarray(order.key), axis=1)
        if order.key[0] < 0:
            same[:] = False                                   # a lone unit has no mates
        return np.ascontiguousarray(t.position[fin[same], :2])
