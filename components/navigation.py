"""``NavigationAgent``: Godot's NavigationAgent as an esper component.

Fields keep Godot's names and meanings; units are world units and seconds. Set
``target_position`` and the path processors plan, follow and report through esper events
(``systems.events``). The read-only properties (``state``, ``path``, ``is_target_reached``, …)
show what the processors are doing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from rtsnav import names as columns
from rtsnav.checks import flag, number, point, whole_number
from rtsnav.names import GRID_PLANNERS, PLANNERS, POSTPROCESSING, NavState, canonical_planner, unknown_name

from .rows import Column, RowComponent, bool_field

__all__ = ["NavigationAgent", "NavState", "PLANNERS", "GRID_PLANNERS", "NavigationPathResult", "AVOIDANCE_DEFAULTS"]

#: What ``neighbor_distance``, ``max_neighbors``, ``time_horizon_agents`` / ``_obstacles`` read
#: before the agent joins a crowd and sets none (``CrowdConfig``'s defaults on a 1-unit grid); in a
#: crowd, that crowd's own.
AVOIDANCE_DEFAULTS = (1.0, 4.0, 10.0, 1.5, 0.3)
#: Path points of these kinds (Godot's ``path_types``): on the walkable surface, or an off-mesh link's end.
PATH_TYPE_REGION, PATH_TYPE_LINK = 0, 1


@dataclass(frozen=True)
class NavigationPathResult:
    """Godot's ``NavigationPathQueryResult3D``: the agent's current path and what it is.

    Attributes:
        path: world points ``(N, 3)`` (``path_height_offset`` below the surface, as Godot's).
        path_types: per point, ``PATH_TYPE_REGION`` (0) or ``PATH_TYPE_LINK`` (1: an off-mesh link's start).
        path_length: world units along the path.
        reachable: the path ends at the target (False: at the closest reachable point).
        reason: why the target is not reached by it ('' when it is).
    """

    path: np.ndarray
    path_types: np.ndarray
    path_length: float
    reachable: bool
    reason: str


def _layer_bit(layer_number: int, what: str) -> int:
    """The bit of Godot's 1-based layer number (1 .. 32)."""
    if isinstance(layer_number, bool) or not isinstance(layer_number, (int, np.integer)) or not 1 <= layer_number <= 32:
        raise ValueError(f"NavigationAgent.{what}: layer_number must be an int 1 .. 32, got {layer_number!r}")
    return 1 << (int(layer_number) - 1)


def _mask_field(index: int, name: str, doc: str) -> property:
    """A 32-bit layer mask over one column of ``agent_layers``."""
    def get(self: "NavigationAgent") -> int:
        return int(self._store.agent_layers[self._row, index])

    def set(self: "NavigationAgent", value: int) -> None:
        self._store.agent_layers[self._row, index] = whole_number(value, f"NavigationAgent.{name} (a bit mask)",
                                                                  low=0, high=2 ** 32 - 1)

    return property(get, set, doc=doc)


def _avoidance_param(index: int, name: str, doc: str, lowest: float, highest: float = math.inf,
                     whole: bool = False) -> property:
    """A per-agent avoidance value; unset, the crowd's (``CrowdConfig``) value is read."""
    def get(self: "NavigationAgent") -> float:
        value = float(self._store.avoidance_params[self._row, index])
        if math.isnan(value):
            value = float(getattr(self._store, "avoidance_defaults", AVOIDANCE_DEFAULTS)[index])
        return int(value) if whole else value

    def set(self: "NavigationAgent", value: float) -> None:
        what = f"NavigationAgent.{name}"
        if whole:
            v: float = whole_number(value, what, low=lowest, high=highest)
        else:      # a time or a distance of 0 means nothing; a priority of 0 is the lowest
            v = number(value, what, low=lowest, high=highest, low_open=index != columns.A_PRIORITY)
        self._store.avoidance_params[self._row, index] = v

    return property(get, set, doc=doc)


def _setting(index: int, name: str, doc: str, lowest: float = 0.0, whole: bool = False) -> property:
    """A value of ``path_settings`` (finite, ≥ ``lowest``; 0 = no limit for the limits)."""
    def get(self: "NavigationAgent") -> float:
        value = float(self._store.path_settings[self._row, index])
        return int(value) if whole else value

    def set(self: "NavigationAgent", value: float) -> None:
        what = f"NavigationAgent.{name}"
        v = whole_number(value, what, low=lowest) if whole else number(value, what, low=lowest)
        self._store.path_settings[self._row, index] = v

    return property(get, set, doc=doc)


def _vector(value: Sequence[float] | None, what: str) -> tuple[float, float, float]:
    """``value`` as a finite ``(x, y, z)`` (a 2-vector gets z = 0)."""
    vals = point(value, f"NavigationAgent.{what} (x, y) or (x, y, z)")
    return vals[0], vals[1], vals[2] if len(vals) == 3 else 0.0

def _param(index: int, name: str, doc: str, minimum: float, strict: bool) -> property:
    """A validated ``NavigationAgent`` property over one column of its row."""
    def get(self: "NavigationAgent") -> float:
        return float(self._store.agent_params[self._row, index])

    def set(self: "NavigationAgent", value: float) -> None:
        self._store.agent_params[self._row, index] = number(value, f"NavigationAgent.{name}", low=minimum,
                                                            low_open=strict)

    return property(get, set, doc=doc)


def _target(value: object) -> list[float]:
    """A target as ``[x, y, z]`` floats, else ``ValueError``: what is not 2 or 3 numbers is
    refused on the spot. NaN or inf inside a pair is stored (a game's arithmetic can make one):
    the agent's next tick fails it with a reason (``path_failed``)."""
    bad = ValueError(f"NavigationAgent.target_position must be (x, y) or (x, y, z) numbers or None, got {value!r}")
    if isinstance(value, (str, bytes)):
        raise bad
    try:
        items = list(value)  # type: ignore[call-overload]
        if any(isinstance(v, (bool, np.bool_, str, bytes)) for v in items):
            raise TypeError
        vals = [float(v) for v in items]
    except (TypeError, ValueError, OverflowError):
        raise bad from None
    if len(vals) not in (2, 3):
        raise bad
    return vals + [0.0] * (3 - len(vals))


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
        **settings: any other Godot member by name (``avoidance_priority=0.5``,
            ``navigation_layers=0b11``, ``velocity=(1, 0, 0)``, …): see the properties.

    The rest of Godot's members are properties: ``velocity`` (the game's velocity input, for
    avoidance-only agents), ``avoidance_priority`` / ``_layers`` / ``_mask``, ``neighbor_distance``,
    ``max_neighbors``, ``time_horizon_agents`` / ``_obstacles``, ``navigation_layers``, ``height``,
    ``path_height_offset``, the path search and return limits, ``path_postprocessing``,
    ``simplify_path`` / ``_epsilon``, ``keep_y_velocity``, ``use_3d_avoidance``, the ``debug_*``
    fields; docs/godot.md maps every one.

    Raises:
        ValueError: a non-positive speed or distance, a negative radius, an unknown method.
    """

    # debug drawing settings live on the component (the game's own drawing reads them)
    __slots__ = ("debug_enabled", "debug_use_custom", "debug_path_custom_color", "debug_path_custom_point_size",
                 "path_metadata_flags")
    COLUMNS = {
        "target": Column("f8", 3, np.nan),
        "agent_params": Column("f8", 5, 0.0),
        "agent_flags": Column("?", 4, False),
        "agent_method": Column("i1", 1, 0),
        "nav_state": Column("i1", 1, int(NavState.IDLE)),
        "desired_velocity": Column("f8", 3, np.nan),
        "avoidance_params": Column("f8", 5, np.nan),
        "agent_layers": Column("i8", 3, 1),
        "path_settings": Column("f8", 8, 0.0),
        "agent_options": Column("?", 3, False),
    }
    FIELDS = ("target_position", "max_speed", "radius", "path_desired_distance",
              "target_desired_distance", "path_max_distance", "avoidance_enabled", "method", "paused")
    #: Set by ``rtsnav.systems.install``: finds where an agent not yet registered stands (its
    #: entity's position), so ``distance_to_target`` and ``get_next_path_position`` answer from creation.
    locate: ClassVar[Callable[["NavigationAgent"], tuple[float, float, float] | None] | None] = None

    def __init__(self, target_position: Sequence[float] | None = None, max_speed: float = 4.0,
                 radius: float = 0.4, path_desired_distance: float = 1.0,
                 target_desired_distance: float = 1.0, path_max_distance: float = 5.0,
                 avoidance_enabled: bool = False, method: str = "astar", paused: bool = False,
                 **settings: Any) -> None:
        super().__init__()
        self.debug_enabled = False
        self.debug_use_custom = False
        self.debug_path_custom_color = (1.0, 1.0, 1.0, 1.0)
        self.debug_path_custom_point_size = 4.0
        self.path_metadata_flags = 7            # Godot's default: types, RIDs and owners
        self.height = 1.0
        self.simplify_epsilon = 0.0
        self.max_speed = max_speed
        self.radius = radius
        self.path_desired_distance = path_desired_distance
        self.target_desired_distance = target_desired_distance
        self.path_max_distance = path_max_distance
        self.avoidance_enabled = avoidance_enabled
        self.method = method
        self.paused = paused
        self.target_position = target_position
        for name, value in settings.items():
            if not isinstance(getattr(type(self), name, None), property) or name in _READ_ONLY:
                raise TypeError("NavigationAgent: " + unknown_name("setting", name, _SETTINGS))
            setattr(self, name, value)

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
        vals = _target(value)
        current = self._store.target[self._row]
        if flags[columns.F_HAS_TARGET] and all(a == b for a, b in zip(current, vals)):
            # the same target again: Godot queries a new path (the world may have changed); a
            # walking agent walks on while it is planned, and one plan at a time is queued
            again = getattr(self._store, "replans", None)
            if again is not None:
                again.add(self._row)
            return
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

    # ------------------------------------------------------------- avoidance (Godot's names)
    @property
    def velocity(self) -> tuple[float, float, float]:
        """The game's velocity input (Godot ``velocity``), world units / s: an agent without a
        target walks at it (capped at ``max_speed``), steered by avoidance; ``velocity_computed``
        and the ``Velocity`` component report the safe velocity. ``(0, 0, 0)`` until set; set
        None to stop giving one (the agent stands when idle)."""
        v = self._store.desired_velocity[self._row]
        return (0.0, 0.0, 0.0) if math.isnan(v[0]) else (float(v[0]), float(v[1]), float(v[2]))

    @velocity.setter
    def velocity(self, value: Sequence[float] | None) -> None:
        self._store.desired_velocity[self._row] = math.nan if value is None else _vector(value, "velocity")

    def set_velocity_forced(self, velocity: Sequence[float]) -> None:
        """Godot's ``set_velocity_forced``: the velocity input, and the velocity other agents'
        avoidance sees this tick (as after a teleport) instead of the one walked last tick."""
        v = _vector(velocity, "set_velocity_forced(velocity)")
        self._store.desired_velocity[self._row] = v
        forced = getattr(self._store, "forced", None)
        if forced is not None:
            forced[self._row] = (v[0], v[1])
            self._store.velocity[self._row, :2] = v[:2]

    avoidance_priority = _avoidance_param(
        columns.A_PRIORITY, "avoidance_priority",
        "0 .. 1 (default 1): an agent does not avoid agents of lower priority (they avoid it all "
        "the way); between equals, walking agents keep their course and standing ones step aside", 0.0, 1.0)
    neighbor_distance = _avoidance_param(columns.A_NEIGHBOR_DISTANCE, "neighbor_distance",
                                         "world units, > 0: agents this near are avoided (default: the crowd's)", 0.0)
    max_neighbors = _avoidance_param(columns.A_MAX_NEIGHBORS, "max_neighbors",
                                     "int 1 .. 40: the nearest this many are avoided (default: the crowd's)",
                                     1, 40, whole=True)
    time_horizon_agents = _avoidance_param(columns.A_HORIZON_AGENTS, "time_horizon_agents",
                                           "seconds, > 0: how far ahead other agents are avoided", 0.0)
    time_horizon_obstacles = _avoidance_param(columns.A_HORIZON_OBSTACLES, "time_horizon_obstacles",
                                              "seconds, > 0: how far ahead walls are avoided", 0.0)
    avoidance_layers = _mask_field(columns.L_AVOIDANCE_LAYERS, "avoidance_layers",
                                   "bit mask (default 1): the layers this agent is on for others' avoidance")
    avoidance_mask = _mask_field(columns.L_AVOIDANCE_MASK, "avoidance_mask",
                                 "bit mask (default 1): agents on none of these layers are not avoided (nor pushed)")
    _navigation_layers = _mask_field(columns.L_NAVIGATION_LAYERS, "navigation_layers", "")

    @property
    def navigation_layers(self) -> int:
        """Bit mask (default 1): paths use only cells on one of these layers (``Grid.set_layers``;
        polygons, nodes and fields follow the cells); changing it re-plans."""
        return self._navigation_layers

    @navigation_layers.setter
    def navigation_layers(self, value: int) -> None:
        before = int(self._store.agent_layers[self._row, columns.L_NAVIGATION_LAYERS])
        self._navigation_layers = value
        flags = self._store.agent_flags[self._row]
        if before != value and flags[columns.F_HAS_TARGET]:
            flags[columns.F_TARGET_DIRTY] = True
    keep_y_velocity = bool_field("agent_options", columns.O_KEEP_Z_VELOCITY,
                                 "keep the velocity input's vertical part in the safe velocity (Godot's name; "
                                 "rtsnav is Z-up, so it is z)")
    use_3d_avoidance = bool_field("agent_options", columns.O_3D_AVOIDANCE,
                                  "ignore agents whose height span (z .. z + height) does not overlap its own")

    # ------------------------------------------------------------------ path query settings
    height = _setting(columns.S_HEIGHT, "height", "world units, >= 0 (default 1): its body's height")
    path_height_offset = _setting(columns.S_HEIGHT_OFFSET, "path_height_offset",
                                  "world units: path points are reported this far below the surface (Godot)",
                                  -math.inf)
    path_search_max_distance = _setting(columns.S_SEARCH_MAX_DISTANCE, "path_search_max_distance",
                                        "world units, 0 = no limit: a target farther than this from the agent is "
                                        "searched for only this far; the path ends at the closest point found")
    path_search_max_polygons = _setting(columns.S_SEARCH_MAX_POLYGONS, "path_search_max_polygons",
                                        "int, 0 = no limit: a path of more than this many corners ends there "
                                        "(partial)", whole=True)
    path_return_max_length = _setting(columns.S_RETURN_MAX_LENGTH, "path_return_max_length",
                                      "world units, 0 = no limit: the path is cut at this length")
    path_return_max_radius = _setting(columns.S_RETURN_MAX_RADIUS, "path_return_max_radius",
                                      "world units, 0 = no limit: the path is cut where it leaves this radius "
                                      "around the agent")
    simplify_path = bool_field("agent_options", columns.O_SIMPLIFY_PATH,
                               "drop path corners within ``simplify_epsilon`` of the line (Ramer-Douglas-Peucker)")
    simplify_epsilon = _setting(columns.S_SIMPLIFY_EPSILON, "simplify_epsilon",
                                "world units, >= 0: how far a dropped corner may be from the simplified path")

    @property
    def path_postprocessing(self) -> str:
        """``"corridorfunnel"`` (default: the level's smoothing, a funnel on the navmesh),
        ``"edgecentered"`` (cell centres, unsmoothed) or ``"none"``; Godot's ints 0, 1, 2 too."""
        return POSTPROCESSING[int(self._store.path_settings[self._row, columns.S_POSTPROCESSING])]

    @path_postprocessing.setter
    def path_postprocessing(self, value: str | int) -> None:
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and 0 <= value < len(POSTPROCESSING):
            value = POSTPROCESSING[int(value)]
        if value not in POSTPROCESSING:
            raise ValueError("NavigationAgent.path_postprocessing: " + unknown_name("value", value, POSTPROCESSING))
        self._store.path_settings[self._row, columns.S_POSTPROCESSING] = POSTPROCESSING.index(value)

    @property
    def pathfinding_algorithm(self) -> str:
        """Godot's name for ``method`` (Godot has A* only; rtsnav has every planner of ``PLANNERS``)."""
        return self.method

    @pathfinding_algorithm.setter
    def pathfinding_algorithm(self, value: str) -> None:
        self.method = value

    # --------------------------------------------------------------------- layer bits
    def get_avoidance_layer_value(self, layer_number: int) -> bool:
        """Whether layer ``layer_number`` (1 .. 32) is on in ``avoidance_layers``."""
        return bool(self.avoidance_layers & _layer_bit(layer_number, "get_avoidance_layer_value"))

    def set_avoidance_layer_value(self, layer_number: int, value: bool) -> None:
        """Turn layer ``layer_number`` (1 .. 32) of ``avoidance_layers`` on or off."""
        bit = _layer_bit(layer_number, "set_avoidance_layer_value")
        on = flag(value, "NavigationAgent.set_avoidance_layer_value: value")
        self.avoidance_layers = (self.avoidance_layers | bit) if on else (self.avoidance_layers & ~bit)

    def get_avoidance_mask_value(self, mask_number: int) -> bool:
        """Whether layer ``mask_number`` (1 .. 32) is on in ``avoidance_mask``."""
        return bool(self.avoidance_mask & _layer_bit(mask_number, "get_avoidance_mask_value"))

    def set_avoidance_mask_value(self, mask_number: int, value: bool) -> None:
        """Turn layer ``mask_number`` (1 .. 32) of ``avoidance_mask`` on or off."""
        bit = _layer_bit(mask_number, "set_avoidance_mask_value")
        on = flag(value, "NavigationAgent.set_avoidance_mask_value: value")
        self.avoidance_mask = (self.avoidance_mask | bit) if on else (self.avoidance_mask & ~bit)

    def get_navigation_layer_value(self, layer_number: int) -> bool:
        """Whether layer ``layer_number`` (1 .. 32) is on in ``navigation_layers``."""
        return bool(self.navigation_layers & _layer_bit(layer_number, "get_navigation_layer_value"))

    def set_navigation_layer_value(self, layer_number: int, value: bool) -> None:
        """Turn layer ``layer_number`` (1 .. 32) of ``navigation_layers`` on or off."""
        bit = _layer_bit(layer_number, "set_navigation_layer_value")
        on = flag(value, "NavigationAgent.set_navigation_layer_value: value")
        self.navigation_layers = (self.navigation_layers | bit) if on else (self.navigation_layers & ~bit)

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
        """The current path as world points ``(N, 3) float64`` (empty when there is none),
        ``path_height_offset`` below the surface (Godot's rule)."""
        get = getattr(self._store, "path_points", None)
        path = get(self._row) if get else np.zeros((0, 3))
        offset = self.path_height_offset
        if offset:
            path[:, 2] -= offset
        return path

    @property
    def path_index(self) -> int:
        """Index in ``path`` of the waypoint the agent is walking to."""
        get = getattr(self._store, "path_index_of", None)
        return get(self._row) if get else 0

    def get_next_path_position(self) -> tuple[float, float, float] | None:
        """The waypoint the agent is walking to (Godot ``get_next_path_position``); with no path
        or once arrived, the agent's own position (None while it stands nowhere yet)."""
        path, i = self.path, self.path_index
        if i < len(path) and self.state is not NavState.FINISHED:
            return tuple(float(v) for v in path[i]) if len(path) else None  # type: ignore[return-value]
        return self._where()

    def _where(self) -> tuple[float, float, float] | None:
        """The agent's position: its crowd row's, or (not registered yet) its entity's."""
        position = getattr(self._store, "position", None) if self.is_bound else None
        if position is not None:
            return tuple(float(v) for v in position[self._row])  # type: ignore[return-value]
        locate = type(self).locate
        return locate(self) if locate is not None else None

    def get_path_length(self) -> float:
        """World units along the current path (0 without one)."""
        path = self.path
        return float(np.hypot(*np.diff(path[:, :2], axis=0).T).sum()) if len(path) > 1 else 0.0

    def get_current_navigation_result(self) -> NavigationPathResult:
        """The current path and what it is (Godot ``get_current_navigation_result``)."""
        path = self.path
        types = np.zeros(len(path), dtype=np.int8)
        links = getattr(self._store, "links", {}).get(self._row, {}) if self.is_bound else {}
        for index in links:
            if 0 <= index < len(types):
                types[index] = PATH_TYPE_LINK
        return NavigationPathResult(path, types, self.get_path_length(), self.is_target_reachable(),
                                    self.failure_reason)

    def get_navigation_map(self) -> Any:
        """The ``Navigation`` this agent is registered with (None before its first tick)."""
        return getattr(self._store, "navigation", None) if self.is_bound else None

    def set_navigation_map(self, navigation: Any) -> None:
        """Godot moves an agent to another map; in rtsnav an agent belongs to the ``Navigation``
        of its esper world, so this only accepts that one (anything else: ``ValueError``)."""
        if navigation is not self.get_navigation_map():
            raise ValueError("NavigationAgent.set_navigation_map: an agent belongs to the Navigation installed in "
                             "its esper world; move the entity to that world (esper.switch_world) instead")

    def get_rid(self) -> int:
        """The agent's id in its crowd (Godot's RID; -1 while not registered)."""
        return self._row if self.is_bound else -1

    @property
    def failure_reason(self) -> str:
        """Why the last request failed ('' unless ``state`` is FAILED)."""
        get = getattr(self._store, "failure_reason_of", None)
        return get(self._row) if get else ""

    def is_navigation_finished(self) -> bool:
        """True once the agent arrived or its request failed (Godot's meaning)."""
        return self.state in (NavState.FINISHED, NavState.FAILED)

    def is_target_reached(self) -> bool:
        """True once the agent came within ``target_desired_distance`` of the target (not when
        it stopped at the closest point of an unreachable one)."""
        return self.state is NavState.FINISHED and not self.failure_reason

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
        (Godot's meaning); False with no target, no path yet, a failed request, or a path to
        the closest reachable point of an unreachable target."""
        target = self.target_position
        if target is None or self.state is NavState.FAILED or self.failure_reason:
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
        (from creation, once ``install`` ran; ``math.inf`` without a target or a position)."""
        target, here = self.target_position, self._where()
        if target is None or here is None:
            return math.inf
        return float(math.hypot(target[0] - here[0], target[1] - here[1]))


#: Read-only members (not settable by keyword).
_READ_ONLY = {"state", "path", "path_index", "failure_reason", "row", "is_bound"}
#: Every setting a keyword may name.
_SETTINGS = tuple(sorted(name for name, value in vars(NavigationAgent).items()
                         if isinstance(value, property) and name not in _READ_ONLY and not name.startswith("_")))
