"""The demo's armies: RTS commands over many units at once, and unit AI from a behaviour tree.

No Panda3D here: the app (mouse and keys) and orders files (tests) call the same commands.
Per-unit state is numpy arrays indexed like ``entities``; the crowd moves the units
(``Crowd.move`` / ``stop`` / ``pause`` on whole batches).

Commands: move, attack-move, patrol, shift-queued waypoints, stop, hold position, formation
moves at a shared speed, control groups, and which planner group orders use. The unit AI
(``unit_tree``) is compiled to jump tables and ticked for every unit each tick: retreat home
when hurt (and heal there), fight an enemy in range unless on a plain move order, patrol between
two points (a memory sequence), take the next queued order on arrival.
"""

from __future__ import annotations

import enum
import itertools

import esper
import numpy as np
from scipy.spatial import cKDTree

from rtsnav.components import NavState
from rtsnav.systems.nav.behaviour import Action, Condition, Fallback, Sequence, Status, compile_tree

from .unit_types import UNIT_TYPES

__all__ = ["Army", "UnitMode", "GROUP_PLANNER_CYCLE", "unit_tree"]

#: What ``P`` cycles through for group orders (a single unit always uses A*-like planners).
GROUP_PLANNER_CYCLE = ("leader", "flowfield", "potential", "navmesh", "hierarchy", "jps+", "astar")
GROUP_PLANNERS = ("leader", "flowfield", "potential")
ATTACK_RANGE = 4.0          # world units: the rank behind the front one still has a line of fire
ACQUIRE_RANGE = 12.0        # attack-moving and patrolling units close in on enemies this near
DAMAGE_PER_S = 0.12         # health (1 = full) a unit takes per second from one attacker
HURT_BELOW = 0.3
SHOVED = 2.0                # world units an idle unit may be pushed from its post before it walks back
HEAL_PER_S = 0.2
THINK_HZ = 10.0             # unit AI decisions per second
SUCCESS, FAILURE, RUNNING = np.int8(Status.SUCCESS), np.int8(Status.FAILURE), np.int8(Status.RUNNING)


class UnitMode(enum.IntEnum):
    """The order a unit is carrying out (``Army.mode``)."""

    IDLE = 0
    MOVE = 1            # walk there, ignore enemies
    ATTACK_MOVE = 2     # walk there, fighting enemies met on the way
    PATROL = 3          # walk between two points, fighting on the way
    HOLD = 4            # stand, fight only what comes in range
    RETREAT = 5         # hurt: walk home, heal, then idle


def unit_tree():
    """The unit AI. Leaves read the blackboard (an ``Army``) and act on whole batches."""
    return Fallback(
        # the player's order wins: a hurt unit carries it out before it retreats
        Sequence(Condition("hurt", lambda u, a: ((a.health[u] < HURT_BELOW) & ~a.obeying[u])
                           | (a.mode[u] == UnitMode.RETREAT)),
                 Action("retreat home and heal", lambda u, a: a.retreat(u))),
        Sequence(Condition("may fight", lambda u, a: a.mode[u] != UnitMode.MOVE),
                 Condition("enemy in range", lambda u, a: (a.enemy_distance[u] <= ATTACK_RANGE) & a.fire_clear[u]),
                 Action("attack", lambda u, a: a.attack(u))),
        Sequence(Condition("may chase", lambda u, a: (a.mode[u] == UnitMode.ATTACK_MOVE) | (a.mode[u] == UnitMode.PATROL)),
                 Condition("enemy near", lambda u, a: a.enemy_distance[u] <= ACQUIRE_RANGE),
                 Action("close in", lambda u, a: a.close_in(u))),
        Sequence(Condition("patrolling", lambda u, a: a.mode[u] == UnitMode.PATROL),
                 Sequence(Action("walk to B", lambda u, a: a.walk(u, 1)),
                          Action("walk back to A", lambda u, a: a.walk(u, 0)), memory=True)),
        Sequence(Condition("order done", lambda u, a: a.arrived(u)),
                 Condition("more orders queued", lambda u, a: a.has_queued(u)),
                 Action("take the next order", lambda u, a: a.next_order(u))),
        Action("carry on", lambda u, a: a.carry_on(u)),
    )


class Army:
    """Every unit's commands and AI state. ``entities`` in the app's order; ``teams`` per unit;
    ``combat=False`` leaves out fighting (and so retreating): orders and navigation only."""

    def __init__(self, navigation, entities: list[int], teams: np.ndarray, level, combat: bool = True,
                 kinds: np.ndarray | None = None) -> None:
        self.nav = navigation
        self.crowd = navigation.crowd
        self.level = level
        self.entities = list(entities)
        self.ids = navigation.agent_ids(self.entities)
        n = len(self.entities)
        self.team = np.asarray(teams, dtype=np.int64)
        self.health = np.ones(n)
        #: each unit's kind (``unit_types.UNIT_TYPES``): what it takes and deals in a fight
        self.kind = np.zeros(n, dtype=np.int8) if kinds is None else np.asarray(kinds, dtype=np.int8)
        self.toughness = np.array([UNIT_TYPES[k].toughness for k in self.kind.tolist()])
        self.power = np.array([UNIT_TYPES[k].power for k in self.kind.tolist()])
        self.wide = self.crowd.status(self.ids).radius > 0.5 * level.grid.cell_size
        #: False once a unit died: its entity is deleted (its agent leaves the crowd) and no
        #: command, AI leaf or count touches its slot again; slots keep their index
        self.alive = np.ones(n, dtype=bool)
        self.deaths: dict[int, int] = {int(t): 0 for t in np.unique(self.team).tolist()}
        self.fallen = np.zeros(0, dtype=np.int64)            # who died in the last AI tick
        self.mode = np.zeros(n, dtype=np.int8)
        self.patrol = np.full((n, 2, 2), np.nan)             # per unit: point A, point B
        self.goal = np.full((n, 2), np.nan)                  # where the current order leads
        self.order_group = np.full(n, -1, dtype=np.int64)    # the order (group id) each unit carries out
        #: where an idle unit belongs: where it last finished an order (or spawned, or stopped);
        #: shoved more than ``SHOVED`` away by passing units, it walks back
        self.post = self.crowd.positions[self.ids, :2].copy()
        self.queue: dict[int, list[tuple[int, float, float, int]]] = {}   # unit -> [(mode, x, y, group)]
        self.base_speed = self.crowd.status(self.ids).max_speed.copy()
        self.fighting = np.zeros(n, dtype=bool)
        #: carrying out the player's order (retreat waits until it is done; fighting does not)
        self.obeying = np.zeros(n, dtype=bool)
        self.enemy_distance = np.full(n, np.inf)
        self.enemy = np.full(n, -1, dtype=np.int64)
        self.fire_clear = np.zeros(n, dtype=bool)            # a clear line to ``enemy`` (within attack range)
        self.control_groups: dict[int, np.ndarray] = {}
        self.planner = GROUP_PLANNER_CYCLE[0]
        self._group_ids = itertools.count(5000)
        grid = level.grid
        self.home = np.zeros((n, 2))
        for t, cells in level.spawns.items():
            c = np.asarray(cells).mean(axis=0)
            self.home[self.team == t] = grid.cell_to_world(int(c[0]), int(c[1]))[:2]
        self.tree = compile_tree(unit_tree())
        self.combat = combat                                 # False: units never fight (navigation only)
        self.dt = 0.0
        self._since = 1.0                                    # think on the first tick

    # ---------------------------------------------------------------- commands
    def command(self, units, target, mode: UnitMode = UnitMode.MOVE, *, queue: bool = False,
                formation: bool = False) -> int:
        """Order ``units`` (indices) to world ``target`` in ``mode`` (MOVE, ATTACK_MOVE or
        PATROL). ``queue`` appends it after their current orders (shift + right-click);
        ``formation`` keeps their layout and moves them at the slowest one's speed."""
        units = self.living(units)
        if len(units) == 0:
            return 0
        x, y = float(target[0]), float(target[1])
        group = next(self._group_ids)
        busy = units[self.mode[units] != UnitMode.IDLE] if queue else units[:0]
        for u in busy.tolist():
            self.queue.setdefault(u, []).append((int(mode), x, y, group))
        free = np.setdiff1d(units, busy)
        for u in free.tolist():
            self.queue.pop(u, None)
        self.obeying[units] = True
        if len(free):
            self._go(free, np.array([x, y]), UnitMode(mode), formation, group)
        return len(units)

    def stop(self, units) -> None:
        """Stop: drop orders and queues; the units stand and fight what comes in range."""
        units = self.living(units)
        self.crowd.stop(self.ids[units])
        self.crowd.pause(self.ids[units], False)
        self.mode[units] = UnitMode.IDLE
        self.obeying[units] = False
        self.post[units] = self.crowd.positions[self.ids[units], :2]
        for u in units.tolist():
            self.queue.pop(u, None)

    def hold(self, units) -> None:
        """Hold position: stand here, never chase, fight only what is in range (an order that
        stands: hurt units hold too)."""
        self.stop(units)
        units = self.living(units)
        self.mode[units] = UnitMode.HOLD
        self.obeying[units] = True

    def set_control_group(self, number: int, units) -> None:
        """Ctrl + number: remember ``units`` as control group ``number`` (1..9)."""
        self.control_groups[int(number)] = np.asarray(units, dtype=np.int64).copy()

    def control_group(self, number: int) -> np.ndarray:
        """The living units of control group ``number`` (empty if none)."""
        return self.living(self.control_groups.get(int(number), np.zeros(0, dtype=np.int64)))

    def living(self, units) -> np.ndarray:
        """``units`` (indices) without the dead."""
        units = np.asarray(units, dtype=np.int64).reshape(-1)
        return units[self.alive[units]]

    def next_planner(self) -> str:
        """Cycle the planner used by group orders; returns the new one."""
        i = GROUP_PLANNER_CYCLE.index(self.planner)
        self.planner = GROUP_PLANNER_CYCLE[(i + 1) % len(GROUP_PLANNER_CYCLE)]
        return self.planner

    def _go(self, units: np.ndarray, target: np.ndarray, mode: UnitMode, formation: bool, group: int) -> None:
        crowd, ids = self.crowd, self.ids[units]
        pos = crowd.positions[ids, :2]
        crowd.pause(ids, False)
        self.fighting[units] = False
        self.mode[units] = mode
        self.goal[units] = target
        self.order_group[units] = group
        if mode == UnitMode.PATROL:
            self.patrol[units, 0] = pos.mean(axis=0)
            self.patrol[units, 1] = target
            self.tree.reset(units)                       # the patrol's memory starts at "walk to B"
        speeds = self.base_speed[units]
        if formation and len(units) > 1:
            crowd.set_speed(ids, speeds.min())                                  # one speed: the layout holds
            targets = self._formation_targets(pos, target, crowd.status(ids).radius.max())
            crowd.move(ids, targets, "astar")
            return
        crowd.set_speed(ids, speeds)
        wide = self.wide[units]
        if wide.any() and not wide.all() and self.planner in GROUP_PLANNERS:
            # the wide ones (tanks) as a group of their own: its leader plans on their clearance
            # class, where a mixed group's infantry leader led them past gaps only infantry fit
            patrol = self.patrol[units[wide]].copy()              # the whole group's patrol points
            self._go(units[wide], target, mode, False, next(self._group_ids))
            self.patrol[units[wide]] = patrol
            self.order_group[units[wide]] = group                  # one order: its legs are taken together
            units, ids = units[~wide], ids[~wide]
        planner = self.planner if len(units) > 1 else ("astar" if self.planner in GROUP_PLANNERS else self.planner)
        crowd.move(ids, target, planner, group=group if planner in GROUP_PLANNERS else None)

    def _formation_targets(self, pos: np.ndarray, target: np.ndarray, radius: float) -> np.ndarray:
        """The group's layout kept but packed (gaps closed to 2.6 radii), centred on ``target``;
        every slot moved onto the nearest walkable cell."""
        offset = pos - pos.mean(axis=0)
        spread = np.abs(offset).max()
        rows = max(1, int(np.ceil(np.sqrt(len(pos)))))
        packed = 2.6 * max(radius, 0.3) * rows / 2
        if spread > packed:
            offset *= packed / spread
        grid = self.level.grid
        out = target + offset
        cells = grid.world_to_cells(out)
        cells[:, 0] = np.clip(cells[:, 0], 0, grid.width - 1)
        cells[:, 1] = np.clip(cells[:, 1], 0, grid.height - 1)
        bad = ~grid.passable[cells[:, 1], cells[:, 0]]
        if bad.any():
            out[bad] = target
        return out

    # ------------------------------------------------------------------ AI tick
    def tick(self, dt: float) -> np.ndarray | None:
        """Called every simulation tick; the AI thinks ``THINK_HZ`` times a second (as RTS unit
        AI does), sensing the nearest enemy of each unit, then ticking every unit's behaviour
        tree over the time since it last thought. Returns the statuses when it thought."""
        self._since += dt
        if self._since + 1e-9 < 1.0 / THINK_HZ:
            return None
        self.dt, self._since = self._since, 0.0
        pos = self.crowd.positions[self.ids, :2]
        self.enemy_distance[:] = np.inf
        self.enemy[:] = -1
        for t in (np.unique(self.team).tolist() if self.combat else []):
            mine = np.flatnonzero((self.team == t) & self.alive)
            theirs = np.flatnonzero((self.team != t) & self.alive)
            if len(theirs) == 0 or len(mine) == 0:
                continue
            d, k = cKDTree(pos[theirs]).query(pos[mine], distance_upper_bound=ACQUIRE_RANGE)
            found = np.isfinite(d)
            self.enemy_distance[mine[found]] = d[found]
            self.enemy[mine[found]] = theirs[k[found]]
        # a line of fire: no wall, tree or water between a unit and its target (else it closes in)
        aiming = np.flatnonzero(self.enemy_distance <= ATTACK_RANGE)
        self.fire_clear[:] = False
        if len(aiming):
            self.fire_clear[aiming] = self.level.grid.segments_clear(pos[aiming], pos[self.enemy[aiming]])
        self.fighting[:] = False
        statuses = self.tree.tick(np.flatnonzero(self.alive), self)
        self._bury(np.flatnonzero(self.alive & (self.health <= 0.0)))
        return statuses

    def _bury(self, dead: np.ndarray) -> None:
        """``dead`` died: their entities are deleted (the navigation plugin takes their agents
        out of the crowd on its next tick), their orders dropped, the deaths counted."""
        self.fallen = dead
        if len(dead) == 0:
            return
        self.alive[dead] = False
        self.mode[dead] = UnitMode.IDLE
        self.obeying[dead] = False
        self.fighting[dead] = False
        for u in dead.tolist():
            self.queue.pop(u, None)
            self.deaths[int(self.team[u])] += 1
            if esper.entity_exists(self.entities[u]):
                esper.delete_entity(self.entities[u], immediate=True)

    def winner(self) -> int | None:
        """The one team with units left when every other team has none (None while two fight)."""
        standing = np.unique(self.team[self.alive]).tolist()
        return int(standing[0]) if len(standing) == 1 and len(self.deaths) > 1 else None

    # ------------------------------------------------------------------ leaves
    def _state(self, units: np.ndarray) -> np.ndarray:
        return self.crowd.states[self.ids[units]]

    def arrived(self, units: np.ndarray) -> np.ndarray:
        """The order is over: reached, failed, or never had a target."""
        s = self._state(units)
        pending = self.crowd.status(self.ids[units]).pending                      # ordered, not planned yet
        return ((s == NavState.FINISHED) | (s == NavState.FAILED) | (s == NavState.IDLE)) & ~pending

    def _mates_done(self, units: np.ndarray) -> np.ndarray:
        """Per unit: every living member of the order it carries out (``order_group``) is done."""
        groups = self.order_group[units]
        ready = np.ones(len(units), dtype=bool)
        for g in np.unique(groups[groups >= 0]).tolist():
            mates = np.flatnonzero((self.order_group == g) & self.alive)
            if not self.arrived(mates).all():
                ready[groups == g] = False
        return ready

    def has_queued(self, units: np.ndarray) -> np.ndarray:
        return np.array([bool(self.queue.get(u)) for u in units.tolist()], dtype=bool)

    def next_order(self, units: np.ndarray) -> np.ndarray:
        """Units done with their order take their next queued one together: a unit waits until
        every living member of the group it walked with is done too (legs taken one by one on
        each unit's own arrival scattered an army over the map)."""
        ready = self._mates_done(units)
        waiting = units[~ready]
        units = units[ready]
        by_order: dict[tuple, list[int]] = {}
        for u in units.tolist():
            mode, x, y, group = self.queue[u].pop(0)
            if not self.queue[u]:
                del self.queue[u]
            by_order.setdefault((mode, x, y, group), []).append(u)
        for (mode, x, y, group), members in by_order.items():
            self._go(np.array(members, dtype=np.int64), np.array([x, y]), UnitMode(mode), False, group)
        return np.where(ready, SUCCESS, RUNNING) if len(waiting) else np.full(len(ready), SUCCESS)

    def retreat(self, units: np.ndarray) -> np.ndarray:
        starting = units[self.mode[units] != UnitMode.RETREAT]
        if len(starting):
            self.mode[starting] = UnitMode.RETREAT
            for u in starting.tolist():
                self.queue.pop(u, None)
            self.crowd.pause(self.ids[starting], False)
            for t in np.unique(self.team[starting]).tolist():
                these = starting[self.team[starting] == t]
                self.crowd.move(self.ids[these], self.home[these[0]], "flowfield", group=next(self._group_ids))
        home = self.arrived(units)                       # home, or as near as it could get
        self.health[units[home]] = np.minimum(1.0, self.health[units[home]] + HEAL_PER_S * self.dt)
        healed = home & (self.health[units] >= 1.0)
        self.mode[units[healed]] = UnitMode.IDLE
        self.post[units[healed]] = self.crowd.positions[self.ids[units[healed]], :2]
        return np.where(healed, SUCCESS, RUNNING)

    def attack(self, units: np.ndarray) -> np.ndarray:
        self.fighting[units] = True
        self.crowd.pause(self.ids[units], True)                       # stand and fight
        targets = self.enemy[units]
        np.subtract.at(self.health, targets, DAMAGE_PER_S * self.dt * self.power[units] / self.toughness[targets])
        np.maximum(self.health, 0.0, out=self.health)
        return np.full(len(units), RUNNING)

    def walk(self, units: np.ndarray, leg: int) -> np.ndarray:
        goal = self.patrol[units, leg]
        ids = self.ids[units]
        status = self.crowd.status(ids)
        off = np.hypot(*(status.target[:, :2] - goal).T) > 1e-6
        stale = off | ~status.has_target                                        # not walking there yet
        if stale.any():
            starting = units[stale]
            self.crowd.set_speed(self.ids[starting], self.base_speed[starting])
            self.crowd.pause(self.ids[starting], False)
            groups = self.patrol[starting, leg]
            for point in np.unique(groups, axis=0):
                these = starting[(groups == point).all(axis=1)]
                planner = self.planner if len(these) > 1 else "astar"
                self.crowd.move(self.ids[these], point, planner,
                                group=next(self._group_ids) if planner in GROUP_PLANNERS else None)
        # the patrol turns together: each end waits for every member (turning on each unit's own
        # arrival spread a patrol over its whole route, and jammed a bridge both ways)
        done = ~stale & self.arrived(units)
        done[done] &= self._mates_done(units[done])
        return np.where(done, SUCCESS, RUNNING)

    def close_in(self, units: np.ndarray) -> np.ndarray:
        """Walk at the nearest enemy (re-planned only when it moved 2 units from where the unit walks)."""
        ids = self.ids[units]
        status = self.crowd.status(ids)
        enemy_at = self.crowd.positions[self.ids[self.enemy[units]], :2]
        stale = ~status.has_target | (np.hypot(*(status.target[:, :2] - enemy_at).T) > 2.0)
        if status.paused.any():
            self.crowd.pause(ids[status.paused], False)
        if stale.any():
            self.crowd.move(ids[stale], enemy_at[stale], "astar")
        return np.full(len(units), RUNNING)

    def _back_to_post(self, idle: np.ndarray) -> None:
        """Idle units shoved ``SHOVED`` or more from their post (a passing army, a fight) walk back."""
        if len(idle) == 0:
            return
        ids = self.ids[idle]
        away = np.hypot(*(self.crowd.positions[ids, :2] - self.post[idle]).T) > SHOVED
        status = self.crowd.status(ids)
        heading_home = status.has_target & (np.hypot(*(status.target[:, :2] - self.post[idle]).T) < 1e-6)
        back = idle[away & ~heading_home]
        if len(back):
            self.crowd.move(self.ids[back], np.c_[self.post[back], np.zeros(len(back))], "astar")

    def carry_on(self, units: np.ndarray) -> np.ndarray:
        status = self.crowd.status(self.ids[units])
        paused = units[status.paused]
        if len(paused):
            self.crowd.pause(self.ids[paused], False)                 # the fight is over
        # an attack-move that chased an enemy walks on to where it was ordered
        off = (self.mode[units] == UnitMode.ATTACK_MOVE) & (np.hypot(*(status.target[:, :2] - self.goal[units]).T) > 1e-3)
        if off.any():
            resume = units[off]
            for point in np.unique(self.goal[resume], axis=0):
                these = resume[(self.goal[resume] == point).all(axis=1)]
                planner = self.planner if len(these) > 1 else "astar"
                self.crowd.move(self.ids[these], point, planner,
                                group=next(self._group_ids) if planner in GROUP_PLANNERS else None)
        done = self.arrived(units) & (self.mode[units] != UnitMode.HOLD) & (self.mode[units] != UnitMode.PATROL)
        settling = units[done & (self.mode[units] != UnitMode.IDLE)]
        self.mode[settling] = UnitMode.IDLE
        self.post[settling] = self.crowd.positions[self.ids[settling], :2]
        self._back_to_post(units[done & (self.mode[units] == UnitMode.IDLE)])
        self.obeying[units[done & ~self.has_queued(units)]] = False       # the player's order is done
        return np.full(len(units), SUCCESS)
