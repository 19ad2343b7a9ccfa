"""``NavigationObstacle``: Godot's NavigationObstacle3D as an esper component (plain data)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from rtsnav.checks import flag, number, point, whole_number

__all__ = ["NavigationObstacle"]


@dataclass(slots=True)
class NavigationObstacle:
    """Something agents keep clear of: a moving disc (``radius`` + ``velocity``), or a static
    outline (``vertices``, relative to the entity's position) that, with
    ``affect_navigation_mesh``, carves its cells out of the level for paths too.

    Place it on an entity with a position (rtsnav's ``Position`` or the game's bound one); the
    navigation processors follow it there every tick (Godot's names and meanings):

    Attributes:
        radius: world units, ≥ 0: avoiding agents keep this plus their own radius from its centre.
        velocity: world ``(x, y, z)`` units / s it moves at (what avoidance expects of it; the
            game moves it).
        vertices: outline ``[(x, y), ...]`` (≥ 3 points, relative to its position) or empty.
            Avoiding agents keep clear of the outline's edges (rtsnav approximates them by
            small discs along the edges); with ``affect_navigation_mesh`` its cells are closed.
        height: world units, ≥ 0 (3D avoidance: agents whose height span misses it ignore it).
        avoidance_enabled: agents avoid it (else it only carves).
        avoidance_layers: bit mask: agents whose ``avoidance_mask`` shares a bit avoid it.
        affect_navigation_mesh: the outline's cells are closed to paths while it stands (units
            inside step out, paths go round), through the map-edit path; reopened when it moves
            or goes.
        carve_navigation_mesh: Godot carves without the agents' radius offset; on rtsnav's grid
            the outline's cells are closed either way (kept for Godot's scripts).
        use_3d_avoidance: see ``height``.
    """

    radius: float = 0.0
    velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)
    vertices: Sequence[tuple[float, float]] = field(default_factory=list)
    height: float = 1.0
    avoidance_enabled: bool = True
    avoidance_layers: int = 1
    affect_navigation_mesh: bool = False
    carve_navigation_mesh: bool = False
    use_3d_avoidance: bool = False

    #: Counts changes to what avoidance and carving read (every field but ``velocity``): the
    #: processors remake the obstacle's discs and recarve its cells when it moves on (Godot
    #: applies a new radius or outline at once).
    revision: int = field(default=0, init=False, repr=False, compare=False)

    def __setattr__(self, name: str, value: object) -> None:
        # every assignment is checked, after construction too: the processors read these fields
        # inside a tick, where a bad value must not arrive
        check = _CHECKS.get(name)
        if check is not None:
            value = check(value)
            if name != "velocity" and getattr(self, name, None) != value:   # the same value again: nothing to redo
                object.__setattr__(self, "revision", getattr(self, "revision", 0) + 1)
        object.__setattr__(self, name, value)

    def get_avoidance_layer_value(self, layer_number: int) -> bool:
        """Whether layer ``layer_number`` (1 .. 32) is on in ``avoidance_layers``."""
        return bool(self.avoidance_layers & (1 << (_layer(layer_number) - 1)))

    def set_avoidance_layer_value(self, layer_number: int, value: bool) -> None:
        """Turn layer ``layer_number`` (1 .. 32) of ``avoidance_layers`` on or off."""
        bit = 1 << (_layer(layer_number) - 1)
        on = flag(value, "NavigationObstacle.set_avoidance_layer_value: value")
        self.avoidance_layers = (self.avoidance_layers | bit) if on else (self.avoidance_layers & ~bit)


def _velocity(value: object) -> tuple[float, float, float]:
    v = point(value, "NavigationObstacle.velocity (x, y) or (x, y, z)")
    return (v[0], v[1], v[2] if len(v) == 3 else 0.0)


def _vertices(value: object) -> list[tuple[float, float]]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ValueError(f"NavigationObstacle.vertices must be a list of (x, y) points, got {value!r}")
    corners = [point(p, f"NavigationObstacle.vertices[{i}]", dims=2) for i, p in enumerate(value)]
    if 0 < len(corners) < 3:
        raise ValueError(f"NavigationObstacle.vertices must be empty or at least 3 finite (x, y) points, got {value!r}")
    return [(p[0], p[1]) for p in corners]


_CHECKS: dict[str, Callable[[object], object]] = {
    "radius": lambda v: number(v, "NavigationObstacle.radius", low=0.0),
    "velocity": _velocity,
    "vertices": _vertices,
    "height": lambda v: number(v, "NavigationObstacle.height", low=0.0),
    "avoidance_enabled": lambda v: flag(v, "NavigationObstacle.avoidance_enabled"),
    "avoidance_layers": lambda v: whole_number(v, "NavigationObstacle.avoidance_layers (a bit mask)", low=0,
                                               high=2 ** 32 - 1),
    "affect_navigation_mesh": lambda v: flag(v, "NavigationObstacle.affect_navigation_mesh"),
    "carve_navigation_mesh": lambda v: flag(v, "NavigationObstacle.carve_navigation_mesh"),
    "use_3d_avoidance": lambda v: flag(v, "NavigationObstacle.use_3d_avoidance"),
}


def _layer(number: int) -> int:
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= 32:
        raise ValueError(f"NavigationObstacle: layer_number must be an int 1 .. 32, got {number!r}")
    return number
