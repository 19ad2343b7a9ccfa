"""The crowd's struct-of-arrays state: one row per agent id, ids stable for an agent's life.

Columns are numpy arrays ``(capacity, width)`` named as the esper components that bind to them
(``rtsnav.components`` mirrors ``COLUMNS``; a test keeps the two in step). Removing an agent
frees its row for a later ``add``; no other agent is renumbered. Rows ``0 .. size-1`` have been
used; ``alive`` says which hold an agent now.

Codes written down once:

* ``NavState`` (Godot-facing status): IDLE 0, PLANNING 1, FOLLOWING 2, FINISHED 3, FAILED 4.
* ``Mode`` (what drives the agent's velocity, stated, never implied): see ``Mode``.
* ``agent_params`` columns ``P_*`` and ``agent_flags`` columns ``F_*``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import numpy as np

from rtsnav.names import (
    F_AVOIDANCE,
    F_HAS_TARGET,
    F_PAUSED,
    F_TARGET_DIRTY,
    GROUP_PLANNERS,
    L_NAVIGATION_LAYERS,
    P_MAX_SPEED,
    P_PATH_DIST,
    P_PATH_MAX,
    P_RADIUS,
    P_TARGET_DIST,
    PLANNERS,
    NavState,
)

__all__ = ["COLUMNS", "AgentStatus", "NavState", "Mode", "PLANNERS", "GROUP_PLANNERS", "CrowdState",
           "P_MAX_SPEED", "P_RADIUS", "P_PATH_DIST", "P_TARGET_DIST", "P_PATH_MAX",
           "F_HAS_TARGET", "F_AVOIDANCE", "F_TARGET_DIRTY", "F_PAUSED", "L_NAVIGATION_LAYERS",
           "FL_SEPARATION", "FL_COHESION", "FL_ALIGNMENT", "FL_RADIUS"]


class Mode(enum.IntEnum):
    """What drives an agent's velocity this tick (``mode`` array, int8)."""

    NONE = 0          # standing: idle, planning, finished or failed
    PATH = 1          # walking its own path (grid, navmesh, waypoints, hierarchy planners)
    FLOW = 2          # a member of a flow-field group: samples the group's field
    LEADER = 3        # leads a "leader" group: walks its own path, the group follows its corridor
    CORRIDOR = 4      # follows its group leader's corridor field
    DETOUR = 5        # a leader-group member walking its own path back to the group (``crowd/detours.py``)
    QUICK = 6         # planning, meanwhile walking a short route toward its target (``crowd/quick_steps.py``)


FL_SEPARATION, FL_COHESION, FL_ALIGNMENT, FL_RADIUS = range(4)

#: name -> (dtype, width, default of a fresh row). Units: world units, seconds.
COLUMNS: dict[str, tuple[str, int, float]] = {
    "position": ("f8", 3, 0.0),
    "velocity": ("f8", 3, 0.0),
    "target": ("f8", 3, np.nan),
    "agent_params": ("f8", 5, 0.0),       # max_speed, radius, path_desired, target_desired, path_max
    "agent_flags": ("?", 4, False),       # has_target, avoidance, target_dirty, paused
    "agent_method": ("i1", 1, 0),         # index into PLANNERS
    "nav_state": ("i1", 1, 0),
    "flock_params": ("f8", 4, 0.0),       # separation, cohesion, alignment weights, flock radius
    "flock_group": ("i8", 1, -1),         # -1: in no flock
    "desired_velocity": ("f8", 3, np.nan),  # the game's velocity input (Godot ``velocity``; NaN: none)
    "avoidance_params": ("f8", 5, np.nan),  # priority, neighbour distance, max neighbours, horizons (A_*)
    "agent_layers": ("i8", 3, 1),           # avoidance layers, avoidance mask, navigation layers (L_*)
    "path_settings": ("f8", 8, 0.0),        # height, offset, search / return limits, simplify (S_*)
    "agent_options": ("?", 3, False),       # simplify path, keep z velocity, 3D avoidance (O_*)
}
#: Per-agent bookkeeping of the crowd itself: name -> (dtype, default).
INTERNAL: dict[str, tuple[str, float]] = {
    "alive": ("?", False),
    "mode": ("i1", 0),
    "path_start": ("i8", 0),              # the agent's path: a slice of PathBuffer.points
    "path_len": ("i8", 0),
    "path_idx": ("i8", 0),                # index of the waypoint walked to
    "stalled": ("f8", 0.0),               # seconds a group unit has barely moved
    "anchor_x": ("f8", 0.0),              # progress watch: where the agent last made progress
    "anchor_y": ("f8", 0.0),
    "still_for": ("f8", 0.0),             # seconds since then
    "unplanned_for": ("f8", 0.0),         # seconds it has waited for a plan (PLANNING)
    "rest_x": ("f8", np.nan),             # where it last moved ``PROGRESS_DISTANCE`` from (NaN: not yet)
    "rest_y": ("f8", np.nan),
    "rest_for": ("f8", 0.0),              # seconds under an order since then, or since it was last told
    "planning_since": ("i8", 0),          # the order-taking round it began waiting (the oldest waiter plans first)
    "order_waits": ("?", False),          # its new order was left for a later round (``ORDERS_PER_TICK``)
    "asked_x": ("f8", np.nan),            # the point its queued plan heads for (a PLANNING unit's)
    "asked_y": ("f8", np.nan),
    "ordered_x": ("f8", np.nan),          # the target of its last order taken (an unreachable one's too)
    "ordered_y": ("f8", np.nan),
    "planned_radius": ("f8", np.nan),     # the radius its order was planned for (a wide unit's class)
    "planned_layers": ("i8", -1),         # the navigation layers it was planned for (-1: never ordered)
    "best_distance": ("f8", np.inf),      # closest it came to its target on this order
    "togo": ("f8", np.nan),               # cost to go on its group's field (NaN: not measured)
    "best_togo": ("f8", np.inf),          # the lowest cost to go it reached on this order
    "path_best": ("f8", np.inf),          # the least path left it reached on its path (``progress.py``)
    "recoveries": ("i4", 0),              # stuck recoveries tried on this order
    "give_way": ("f8", 0.0),              # seconds it still backs off in a dead stop (Motion)
    "way_x": ("f8", np.nan),              # ... from this point (the unit it gives way to)
    "way_y": ("f8", np.nan),
    "slot": ("i8", -1),                   # arrival slot in its group order (-1: none yet)
    "home_x": ("f8", np.nan),             # where that slot is (a settled unit returns there)
    "home_y": ("f8", np.nan),
    "owner": ("i8", -1),                  # the caller's id for the agent (an esper entity), or -1
    "obstacle": ("?", False),             # an avoidance obstacle (``SteeringInputs.add_obstacles``), not a unit
    "pull_x": ("f8", np.nan),             # its flock's weighted cohesion + alignment, last refreshed
    "pull_y": ("f8", np.nan),
    "mate_gap": ("f8", -np.inf),         # flocking: a lower bound of its distance to the nearest mate
    "flock_key": ("i8", -1),              # its group while a flock neighbour (-1: not one), last tick
    "flock_x": ("f8", np.nan),            # where it stood then
    "flock_y": ("f8", np.nan),
}


@dataclass(frozen=True, slots=True)
class AgentStatus:
    """A read-only look at some agents' orders and settings (copies; row k = the k-th id asked).

    Attributes:
        target: ``(k, 3)`` world targets (NaN: none given yet).
        has_target / pending / paused: an order stands / it is given but not planned yet /
            the agent stands still keeping it.
        max_speed / radius: world units / s, world units.
        path_index: index in its path of the waypoint walked to.
        group: flock group (-1: none).
    """

    target: np.ndarray
    has_target: np.ndarray
    pending: np.ndarray
    paused: np.ndarray
    max_speed: np.ndarray
    radius: np.ndarray
    path_index: np.ndarray
    group: np.ndarray


class PathBuffer:
    """All agents' paths in one flat ``(M, 3) float64`` array; each agent owns a slice. A new
    path is appended; dead slices are reclaimed by ``compact`` when they outweigh live points."""

    def __init__(self, capacity: int = 4096) -> None:
        self.points = np.zeros((capacity, 3), dtype=np.float64)
        self.used = 0

    def append(self, path: np.ndarray) -> int:
        """Store ``path`` (``(N, 3)``); returns its start offset."""
        n = len(path)
        if self.used + n > len(self.points):
            grown = np.zeros((max(2 * len(self.points), self.used + n), 3))
            grown[: self.used] = self.points[: self.used]
            self.points = grown
        start = self.used
        self.points[start:start + n] = path
        self.used += n
        return start

    def compact(self, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Keep only the given slices, packed; returns their new starts."""
        total = int(lengths.sum())
        new_starts = np.zeros(len(starts), dtype=np.int64)
        if len(lengths):
            new_starts[1:] = np.cumsum(lengths)[:-1]
        packed = np.zeros((0, 3))
        if total:
            owner = np.repeat(np.arange(len(starts)), lengths)
            within = np.arange(total) - np.repeat(new_starts, lengths)
            packed = self.points[starts[owner] + within]
        self.points = np.zeros((max(4096, 2 * total), 3))
        self.points[:total] = packed
        self.used = total
        return new_starts


def _column_view(table: str, index: int, doc: str) -> Any:
    """A property: column ``index`` of the packed array ``table``, as a view (reads and writes)."""
    def get(self: CrowdState) -> np.ndarray:
        return getattr(self, table)[:, index]

    return property(get, doc=doc)


class CrowdState:
    """The arrays of every agent (rows = agent ids; see the module docs for the codes)."""

    # Declared for readers and type checkers; ``__init__`` creates them from COLUMNS / INTERNAL.
    position: np.ndarray
    velocity: np.ndarray
    target: np.ndarray
    agent_params: np.ndarray
    agent_flags: np.ndarray
    agent_method: np.ndarray
    nav_state: np.ndarray
    flock_params: np.ndarray
    flock_group: np.ndarray
    desired_velocity: np.ndarray
    avoidance_params: np.ndarray
    agent_layers: np.ndarray
    path_settings: np.ndarray
    agent_options: np.ndarray
    alive: np.ndarray
    mode: np.ndarray
    path_start: np.ndarray
    path_len: np.ndarray
    path_idx: np.ndarray
    stalled: np.ndarray
    anchor_x: np.ndarray
    anchor_y: np.ndarray
    still_for: np.ndarray
    unplanned_for: np.ndarray
    rest_x: np.ndarray
    rest_y: np.ndarray
    rest_for: np.ndarray
    planning_since: np.ndarray
    order_waits: np.ndarray
    asked_x: np.ndarray
    asked_y: np.ndarray
    ordered_x: np.ndarray
    ordered_y: np.ndarray
    planned_radius: np.ndarray
    planned_layers: np.ndarray
    best_distance: np.ndarray
    togo: np.ndarray
    best_togo: np.ndarray
    path_best: np.ndarray
    recoveries: np.ndarray
    give_way: np.ndarray
    way_x: np.ndarray
    way_y: np.ndarray
    slot: np.ndarray
    home_x: np.ndarray
    home_y: np.ndarray
    owner: np.ndarray
    obstacle: np.ndarray
    pull_x: np.ndarray
    pull_y: np.ndarray
    mate_gap: np.ndarray
    flock_key: np.ndarray
    flock_x: np.ndarray
    flock_y: np.ndarray

    def __init__(self, capacity: int = 64) -> None:
        self.spawned = False                    # agents were added since the crowd last ticked
        self.newcomers: list[np.ndarray] = []   # ... and their ids (the next tick pulls them apart)
        self.size = 0                                  # rows ever used (ids < size)
        self.capacity = 0
        self._free: list[int] = []
        for name, (dtype, width, default) in COLUMNS.items():
            setattr(self, name, np.full((0, width), default, dtype=dtype))
        for name, (dtype, default) in INTERNAL.items():
            setattr(self, name, np.full(0, default, dtype=dtype))
        self.paths = PathBuffer()
        self.failure: dict[int, str] = {}              # id -> why its last order failed
        self.row_of: dict[int, int] = {}               # owner id (an esper entity) -> agent id
        self.links: dict[int, dict[int, str]] = {}     # id -> {path index of a link start: kind}
        self.forced: dict[int, tuple[float, float]] = {}  # id -> velocity neighbours see at once (``set_velocity_forced``)
        self.unreachable: dict[int, tuple[int, int]] = {}  # id -> the closest reachable cell it walks to instead
        self.replans: set[int] = set()                 # ids whose target was set again (Godot re-queries a path)
        self.navigation: object = None                 # the esper ``Navigation`` serving this table, if any
        #: the crowd's avoidance values for ``avoidance_params`` NaNs (the ``CrowdConfig``'s, world units)
        self.avoidance_defaults = np.array([1.0, 2.0, 10.0, 1.0, 0.5])
        self._grow(capacity)

    # ------------------------------------------------------- named columns
    # The settings and flags are stored packed (``agent_params`` ``(capacity, 5)``, ``agent_flags``
    # ``(capacity, 4)``: one block each for the numba kernels and for the esper components that
    # bind to a row); Python code reads and writes them by name through these views.
    max_speed = _column_view("agent_params", P_MAX_SPEED, "``(capacity,)`` top speed, world units / s (a view).")
    radius = _column_view("agent_params", P_RADIUS, "``(capacity,)`` body radius, world units (a view).")
    path_desired_distance = _column_view("agent_params", P_PATH_DIST, "``(capacity,)`` how near a waypoint counts as reached (a view).")
    target_desired_distance = _column_view("agent_params", P_TARGET_DIST, "``(capacity,)`` how near the target counts as arrived (a view).")
    path_max_distance = _column_view("agent_params", P_PATH_MAX, "``(capacity,)`` how far off its path an agent may drift before it re-plans (a view).")
    has_target = _column_view("agent_flags", F_HAS_TARGET, "``(capacity,) bool`` an order stands (a view).")
    avoidance = _column_view("agent_flags", F_AVOIDANCE, "``(capacity,) bool`` reciprocal avoidance on (a view).")
    target_dirty = _column_view("agent_flags", F_TARGET_DIRTY, "``(capacity,) bool`` the order is new: it is taken at the next tick (a view).")
    paused = _column_view("agent_flags", F_PAUSED, "``(capacity,) bool`` standing still keeping target and path (a view).")

    # --------------------------------------------------------------- ids
    @property
    def count(self) -> int:
        """Rows in use (ids ``0 .. count-1``; dead rows among them are reset: IDLE, no path)."""
        return self.size

    @property
    def alive_count(self) -> int:
        """Agents alive."""
        return self.size - len(self._free)

    def allocate(self, count: int) -> np.ndarray:
        """Ids for ``count`` new agents (freed ids first, then new rows), rows reset to defaults;
        ``spawned`` is set (the crowd's next tick pulls apart bodies standing on each other)."""
        self.spawned = True
        reuse = [self._free.pop() for _ in range(min(count, len(self._free)))]
        fresh = count - len(reuse)
        if self.size + fresh > self.capacity:
            self._grow(max(2 * self.capacity, self.size + fresh))
        ids = np.array(reuse + list(range(self.size, self.size + fresh)), dtype=np.int64)
        self.size += fresh
        self.reset_rows(ids)
        self.alive[ids] = True
        self.newcomers.append(ids)
        return ids

    def release(self, ids: np.ndarray) -> None:
        """Free the rows of ``ids`` (they become dead rows, reused by later ``allocate``)."""
        ids = np.asarray(ids, dtype=np.int64)
        self.reset_rows(ids)
        for i in ids.tolist():
            self.failure.pop(i, None)
            self.links.pop(i, None)
            self.forced.pop(i, None)
            self.unreachable.pop(i, None)
            self.replans.discard(i)
        self._free.extend(ids.tolist())

    def forget_order_notes(self, ids: np.ndarray, unreachable: bool = True) -> None:
        """Drop what an older order left about ``ids``: its failure reason, a pending re-plan of the
        same target and (``unreachable``) the closest reachable cell it walked to instead."""
        for i in np.asarray(ids, dtype=np.int64).tolist():
            self.failure.pop(i, None)
            self.replans.discard(i)
            if unreachable:
                self.unreachable.pop(i, None)

    def reset_rows(self, ids: np.ndarray) -> None:
        """Every column of ``ids`` back to its default (a fresh or a freed row)."""
        for name, (_, _, default) in COLUMNS.items():
            getattr(self, name)[ids] = default
        for name, (_, default) in INTERNAL.items():
            getattr(self, name)[ids] = default

    def status(self, ids: np.ndarray) -> AgentStatus:
        """The ``AgentStatus`` of ``ids`` (copies)."""
        return AgentStatus(self.target[ids], self.has_target[ids], self.target_dirty[ids], self.paused[ids],
                           self.max_speed[ids], self.radius[ids], self.path_idx[ids], self.flock_group[ids, 0])

    # ----------------------------------------------------------- paths
    def set_path(self, agent: int, points: np.ndarray, index: int) -> None:
        """Give ``agent`` a new path (world ``(N, 3)``), walking to ``points[index]``."""
        self.links.pop(agent, None)
        self.path_start[agent] = self.paths.append(points)
        self.path_len[agent] = len(points)
        self.path_idx[agent] = index
        self.path_best[agent] = np.inf                  # progress is measured on the new path
        n = self.size
        if self.paths.used > 4096 and self.paths.used > 3 * int(self.path_len[:n].sum()):
            self.path_start[:n] = self.paths.compact(self.path_start[:n], self.path_len[:n])

    def clear_path(self, agent: int) -> None:
        """Drop the agent's path."""
        self.links.pop(agent, None)
        self.path_len[agent] = 0
        self.path_idx[agent] = 0

    def path_points(self, agent: int) -> np.ndarray:
        """The agent's path, world ``(N, 3)`` (a copy)."""
        s, n = int(self.path_start[agent]), int(self.path_len[agent])
        return self.paths.points[s:s + n].copy()

    def path_index_of(self, agent: int) -> int:
        """Index in its path of the waypoint the agent walks to."""
        return int(self.path_idx[agent])

    def failure_reason_of(self, agent: int) -> str:
        """Why the agent's last order failed ('' otherwise)."""
        return self.failure.get(int(agent), "")

    # --------------------------------------------------------- private
    def _grow(self, capacity: int) -> None:
        capacity = max(capacity, 16)
        for name, (dtype, width, default) in COLUMNS.items():
            old = getattr(self, name)
            new = np.full((capacity, width), default, dtype=dtype)
            new[: len(old)] = old
            setattr(self, name, new)
        for name, (dtype, default) in INTERNAL.items():
            old = getattr(self, name)
            new_column = np.full(capacity, default, dtype=dtype)
            new_column[: len(old)] = old
            setattr(self, name, new_column)
        self.capacity = capacity
