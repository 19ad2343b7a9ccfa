"""``NavigationAgent``: Godot's NavigationAgent as an esper component.

Fields keep Godot's names and meanings; units are world units and seconds. Set
``target_position`` and the path processors plan, follow and report through esper events
(``systems.events``). The read-only properties (``state``, ``path``, ``is_target_reached``, …)
show what the processors are doing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from rtsnav import names as columns
from rtsnav.names import GRID_PLANNERS, PLANNERS, NavState, canonical_planner, unknown_name

from .rows import Column, RowComponent, bool_field

__all__ = ["NavigationAgent", "NavState", "PLANNERS", "GRID_PLANNERS"]

def _param(index: int, name: str, doc: str, minimum: float, strict: bool) -> property:
    """A validated ``NavigationAgent`` property over one column of its row."""
    def get(self: "NavigationAgent") -> float:
        return float(self._store.agent_params[self._row, index])

    def set(self: "NavigationAgent", value: float) -> None:
        v = float(value)
        if not math.isfinite(v) or v < minimum or (strict and v == minimum):
            bound = f"> {minimum}" if strict else f">= {minimum}"
            raise ValueError(f"NavigationAgent.{name} must be a finite number {bound}, got {value!r}")
        self._store.agent_params[self._row, index] = v

    return property(get, set, doc=doc)


class NavigationAgent(RowComponent):
    """A navigating unit's settings and state (Godot ``NavigationAgent3D`` names).

    Args:
        target_position: world ``(x, y, z)`` to go to, or None to stand still. Setting it
            (to a different value) makes the agent re-plan once.
        max_speed: world units / s, > 0; the agent's velocity is clamped to it.
        radius: world units, ≥ 0; the agent's body radius (used by flocking / avoidance).
        path_desired_distance: world units, > 0; a waypoint counts as reached within this
            (Godot's default 1.0).
        target_desired_distance: world units, > 0; the target counts as reached within this
            (Godot's default 1.0).
        path_max_distance: world units, > 0; an agent pushed farther than this from its path
            re-plans from where it stands (Godot's default 5.0).
        avoidance_enabled: steer around other agents (used by the steering processors).
        method: the planner, one of ``PLANNERS``.
        paused: a paused agent keeps its target and path but stands still (velocity 0) until
            unpaused; it is never reported stuck. ``max_speed`` stays as it was.

    Raises:
        ValueError: a non-positive speed or distance, a negative radius, an unknown method.
    """

    __slots__ = ()
    COLUMNS = {
        "target": Column("f8", 3, np.nan),
        "agent_params": Column("f8", 5, 0.0),
        "agent_flags": Column("?", 4, False),
        "agent_method": Column("i1", 1, 0),
        "nav_state": Column("i1", 1, int(NavState.IDLE)),
    }
    FIELDS = ("target_position", "max_speed", "radius", "path_desired_distance",
              "target_desired_distance", "path_max_distance", "avoidance_enabled", "method", "paused")

    def __init__(self, target_position: Sequence[float] | None = None, max_speed: float = 4.0,
                 radius: float = 0.4, path_desired_distance: float = 1.0,
                 target_desired_distance: float = 1.0, path_max_distance: float = 5.0,
                 avoidance_enabled: bool = False, method: str = "astar", paused: bool = False) -> None:
        super().__init__()
        self.max_speed = max_speed
        self.radius = radius
        self.path_desired_distance = path_desired_distance
        self.target_desired_distance = target_desired_distance
        self.path_max_distance = path_max_distance
        self.avoidance_enabled = avoidance_enabled
        self.method = method
        self.paused = paused
        self.target_position = target_position

    # ------------------------------------------------------------------ settings
    @property
    def target_position(self) -> tuple[float, float, float] | None:
        """World ``(x, y, z)`` the agent navigates to, or None."""
        if not self._store.agent_flags[self._row, columns.F_HAS_TARGET]:
            return None
        return tuple(float(v) for v in self._store.target[self._row])  # type: ignore[return-value]

    @target_position.setter
    def target_position(self, value: Sequence[float] | None) -> None:
        flags = self._store.agent_flags[self._row]
        if value is None:
            if flags[columns.F_HAS_TARGET]:
                flags[columns.F_HAS_TARGET] = False
                flags[columns.F_TARGET_DIRTY] = True
            return
        try:
            vals = [float(v) for v in value]
        except (TypeError, ValueError):
            vals = [math.nan] * 3           # reported through path_failed, like any bad target
        if len(vals) == 2:
            vals.append(0.0)
        if len(vals) != 3:
            vals = [math.nan] * 3
        current = self._store.target[self._row]
        if flags[columns.F_HAS_TARGET] and all(a == b for a, b in zip(current, vals)):
            return                                          # unchanged: no re-plan
        current[:] = vals
        flags[columns.F_HAS_TARGET] = True
        flags[columns.F_TARGET_DIRTY] = True

    max_speed = _param(columns.P_MAX_SPEED, "max_speed", "world units / s, > 0", 0.0, True)
    radius = _param(columns.P_RADIUS, "radius", "world units, >= 0", 0.0, False)
    path_desired_distance = _param(columns.P_PATH_DIST, "path_desired_distance",
                                   "world units, > 0: a waypoint is reached within this", 0.0, True)
    target_desired_distance = _param(columns.P_TARGET_DIST, "target_desired_distance",
                                     "world units, > 0: the target is reached within this", 0.0, True)
    path_max_distance = _param(columns.P_PATH_MAX, "path_max_distance",
                               "world units, > 0: farther than this from the path, the agent re-plans", 0.0, True)
    avoidance_enabled = bool_field("agent_flags", columns.F_AVOIDANCE, "steer around other agents")
    paused = bool_field("agent_flags", columns.F_PAUSED,
                        "stand still, keeping target and path, until unpaused (never reported stuck)")

    @property
    def method(self) -> str:
        """The planner (one of ``PLANNERS``); changing it re-plans toward the current target."""
        return PLANNERS[int(self._store.agent_method[self._row, 0])]

    @method.setter
    def method(self, value: str) -> None:
        name = canonical_planner(value)
        if name not in PLANNERS:
            raise ValueError("NavigationAgent.method: " + unknown_name("planner", value, PLANNERS))
        code = PLANNERS.index(name)
        if int(self._store.agent_method[self._row, 0]) != code:
            self._store.agent_method[self._row, 0] = code
            flags = self._store.agent_flags[self._row]
            if flags[columns.F_HAS_TARGET]:
                flags[columns.F_TARGET_DIRTY] = True

    # --------------------------------------------------------------- read-only
    @property
    def state(self) -> NavState:
        """The agent's ``NavState``."""
        return NavState(int(self._store.nav_state[self._row, 0]))

    @property
    def path(self) -> np.ndarray:
        """The current path as world points ``(N, 3) float64`` (empty when there is none)."""
        get = getattr(self._store, "path_points", None)
        return get(self._row) if get else np.zeros((0, 3))

    @property
    def path_index(self) -> int:
        """Index in ``path`` of the waypoint the agent is walking to."""
        get = getattr(self._store, "path_index_of", None)
        return get(self._row) if get else 0

    def get_next_path_position(self) -> tuple[float, float, float] | None:
        """The waypoint the agent is walking to (Godot ``get_next_path_position``), or None."""
        path, i = self.path, self.path_index
        return tuple(float(v) for v in path[i]) if i < len(path) else None  # type: ignore[return-value]

    @property
    def failure_reason(self) -> str:
        """Why the last request failed ('' unless ``state`` is FAILED)."""
        get = getattr(self._store, "failure_reason_of", None)
        return get(self._row) if get else ""

    def is_navigation_finished(self) -> bool:
        """True once the agent arrived or its request failed (Godot's meaning)."""
        return self.state in (NavState.FINISHED, NavState.FAILED)

    def is_target_reached(self) -> bool:
        """True once the agent came within ``target_desired_distance`` of the target."""
        return self.state is NavState.FINISHED

    def get_current_navigation_path(self) -> np.ndarray:
        """Godot's name for ``path``: world points ``(N, 3) float64``."""
        return self.path

    def get_current_navigation_path_index(self) -> int:
        """Godot's name for ``path_index``."""
        return self.path_index

    def get_final_position(self) -> tuple[float, float, float] | None:
        """The last point of the current path (the target, or the closest reachable point of a
        partial path); None while there is no path (Godot returns the zero vector)."""
        path = self.path
        return tuple(float(v) for v in path[-1]) if len(path) else None  # type: ignore[return-value]

    def is_target_reachable(self) -> bool:
        """True when the current path ends within ``target_desired_distance`` of the target
        (Godot's meaning); False with no target, no path yet, or a failed request."""
        target = self.target_position
        if target is None or self.state is NavState.FAILED:
            return False
        if self.state is NavState.FINISHED:
            return True
        final = self.get_final_position()
        if final is None:
            # group planners steer by flow field without a path: reachability was checked at order time
            return self.state is NavState.FOLLOWING
        return math.hypot(final[0] - target[0], final[1] - target[1]) <= self.target_desired_distance

    def distance_to_target(self) -> float:
        """Ground-plane distance, world units, from the agent's position to ``target_position``
        (``math.inf`` without a target or while the agent is not registered with a Navigation)."""
        target = self.target_position
        position = getattr(self._store, "position", None) if self.is_bound else None
        if target is None or position is None:
            return math.inf
        x, y = position[self._row, 0], position[self._row, 1]
        return float(math.hypot(target[0] - x, target[1] - y))
