"""``AgentTable``: every navigation agent's state as struct-of-arrays (one row per agent).

The components of a registered entity (``Position``, ``Velocity``, ``NavigationAgent``) are
views onto its row (see ``components.rows``), so processors update all agents with a few numpy
operations and never copy component objects. Rows ``0 .. count-1`` are live; removing an agent
moves the last row into the hole, so the live rows stay dense.
"""

from __future__ import annotations

import numpy as np

from rtsnav.components import Flock, NavigationAgent, Position, Velocity
from rtsnav.components.rows import Column

__all__ = ["AgentTable", "PathBuffer"]

_INTERNAL = {
    "desired": Column("f8", 3, 0.0),        # reserved for steering: preferred velocity
    "stalled": Column("f8", 1, 0.0),        # seconds a group-steered unit has barely moved
}
COLUMNS: dict[str, Column] = {**Position.COLUMNS, **Velocity.COLUMNS, **NavigationAgent.COLUMNS,
                              **Flock.COLUMNS, **_INTERNAL}


class PathBuffer:
    """All agents' paths in one flat ``(M, 3) float64`` array; each agent owns a slice.

    A new path is appended; the old slice becomes garbage, reclaimed by ``compact`` when it
    outweighs the live points.
    """

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
        if total:
            # gather index of every kept point: start of its slice + position within it
            owner = np.repeat(np.arange(len(starts)), lengths)
            within = np.arange(total) - np.repeat(new_starts, lengths)
            packed = self.points[starts[owner] + within]
        else:
            packed = np.zeros((0, 3))
        self.points = np.zeros((max(4096, 2 * total), 3))
        self.points[:total] = packed
        self.used = total
        return new_starts


class AgentTable:
    """Struct-of-arrays state of the agents of one ``Navigation``.

    Columns (rows ``0..count-1`` live), each ``(capacity, width)``: ``position``, ``velocity``
    (world units, units/s), ``target`` (world), ``agent_params`` (max_speed, radius,
    path_desired_distance, target_desired_distance), ``agent_flags`` (has_target, avoidance,
    target_dirty), ``agent_method``, ``nav_state`` (``NavState``), ``desired``.
    Per row also: ``entity`` (esper id), ``path_start`` / ``path_len`` / ``path_idx`` into
    ``paths``.
    """

    def __init__(self, capacity: int = 64) -> None:
        self.count = 0
        self.capacity = 0
        self.entity = np.zeros(0, dtype=np.int64)
        self.path_start = np.zeros(0, dtype=np.int64)
        self.path_len = np.zeros(0, dtype=np.int64)
        self.path_idx = np.zeros(0, dtype=np.int64)
        for name, col in COLUMNS.items():
            setattr(self, name, np.zeros((0, col.width), dtype=col.dtype))
        self._grow(capacity)
        self.paths = PathBuffer()
        self.components: list[tuple[Position, Velocity | None, NavigationAgent, Flock | None]] = []
        self.row_of: dict[int, int] = {}
        self.failure: dict[int, str] = {}
        # entity -> {path index of a link's start: kind} for paths with off-mesh links (rare)
        self.links: dict[int, dict[int, str]] = {}
        # per row: the game's own (position, velocity) components when bound (systems.binding)
        self.external: list[tuple[object, object | None] | None] = []
        self._external_cache: tuple[np.ndarray, list, list] | None = None
        self.external_with_velocity = np.zeros(0, dtype=bool)

    # ------------------------------------------------------------ membership
    def add(self, entity: int, position: Position, velocity: Velocity | None,
            agent: NavigationAgent, flock: Flock | None = None,
            external: tuple[object, object | None] | None = None) -> int:
        """Register an entity's components; they become views onto the new row. ``external``
        holds the game's own position / velocity components when they are bound instead."""
        if self.count == self.capacity:
            self._grow(2 * self.capacity)
        row = self.count
        self.count += 1
        for name, col in COLUMNS.items():
            getattr(self, name)[row] = col.default
        self.entity[row] = entity
        self.path_start[row] = 0
        self.path_len[row] = 0
        self.path_idx[row] = 0
        position.bind(self, row)
        if velocity is not None:
            velocity.bind(self, row)
        agent.bind(self, row)
        if flock is not None:
            flock.bind(self, row)
        self.components.append((position, velocity, agent, flock))
        self.external.append(external)
        if external is not None:
            self._external_cache = None
        self.row_of[entity] = row
        return row

    def rebind(self, row: int, position: Position, velocity: Velocity | None, agent: NavigationAgent,
               flock: Flock | None = None) -> None:
        """The entity's component objects were replaced: unbind the old, bind the new."""
        old = self.components[row]
        for comp_old, comp_new in zip(old, (position, velocity, agent, flock)):
            if comp_old is not comp_new:
                if comp_old is not None:
                    comp_old.unbind()
                if comp_new is not None:
                    comp_new.bind(self, row)
        if flock is None:
            self.flock_group[row] = -1                 # left its flock
        self.components[row] = (position, velocity, agent, flock)

    def remove(self, entity: int) -> None:
        """Unregister an entity: its components get their values back; the last row fills the hole."""
        row = self.row_of.pop(entity)
        if self.external[row] is not None or self.external[-1] is not None:
            self._external_cache = None
        for comp in self.components[row]:
            if comp is not None:
                comp.unbind()
        self.failure.pop(entity, None)
        self.links.pop(entity, None)
        last = self.count - 1
        if row != last:
            for name in COLUMNS:
                arr = getattr(self, name)
                arr[row] = arr[last]
            for arr in (self.entity, self.path_start, self.path_len, self.path_idx):
                arr[row] = arr[last]
            moved = self.components[last]
            self.components[row] = moved
            self.external[row] = self.external[last]
            for comp in moved:
                if comp is not None:
                    comp._row = row
            self.row_of[int(self.entity[row])] = row
        self.components.pop()
        self.external.pop()
        self.count = last

    def external_view(self) -> tuple[np.ndarray, list, list]:
        """Rows whose agents use the game's own components, those position components, and the
        velocity components of the rows where ``external_with_velocity`` is True."""
        if self._external_cache is None:
            rows = [r for r, ext in enumerate(self.external) if ext is not None]
            positions = [self.external[r][0] for r in rows]  # type: ignore[index]
            has_velocity = np.array([self.external[r][1] is not None for r in rows], dtype=bool)  # type: ignore[index]
            velocities = [self.external[r][1] for r in rows if self.external[r][1] is not None]  # type: ignore[index]
            self._external_cache = (np.array(rows, dtype=np.int64), positions, velocities)
            self.external_with_velocity = has_velocity
        return self._external_cache

    def set_external(self, row: int, external: tuple[object, object | None] | None) -> None:
        """Replace the game components bound to ``row`` (the entity's components changed)."""
        self.external[row] = external
        self._external_cache = None

    # ----------------------------------------------------------------- paths
    def set_path(self, row: int, points: np.ndarray, index: int) -> None:
        """Give the agent at ``row`` a new path (world ``(N, 3)``), walking to ``points[index]``."""
        self.links.pop(int(self.entity[row]), None)
        self.path_start[row] = self.paths.append(points)
        self.path_len[row] = len(points)
        self.path_idx[row] = index
        n = self.count
        if self.paths.used > 4096 and self.paths.used > 3 * int(self.path_len[:n].sum()):
            self.path_start[:n] = self.paths.compact(self.path_start[:n], self.path_len[:n])

    def clear_path(self, row: int) -> None:
        """Drop the agent's path."""
        self.links.pop(int(self.entity[row]), None)
        self.path_len[row] = 0
        self.path_idx[row] = 0

    # ----------------------------------- read-only views used by NavigationAgent
    def path_points(self, row: int) -> np.ndarray:
        s, n = int(self.path_start[row]), int(self.path_len[row])
        return self.paths.points[s:s + n].copy()

    def path_index_of(self, row: int) -> int:
        return int(self.path_idx[row])

    def failure_reason_of(self, row: int) -> str:
        return self.failure.get(int(self.entity[row]), "")

    # --------------------------------------------------------------- private
    def _grow(self, capacity: int) -> None:
        capacity = max(capacity, 16)
        for name, col in COLUMNS.items():
            old = getattr(self, name)
            new = np.full((capacity, col.width), col.default, dtype=col.dtype)
            new[: len(old)] = old
            setattr(self, name, new)
        for name in ("entity", "path_start", "path_len", "path_idx"):
            old = getattr(self, name)
            new = np.zeros(capacity, dtype=old.dtype)
            new[: len(old)] = old
            setattr(self, name, new)
        self.capacity = capacity
