"""``NavigationObstacle``: Godot's NavigationObstacle3D as an esper component (plain data)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rtsnav.checks import number, point, whole_number

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

    def __post_init__(self) -> None:
        self.radius = number(self.radius, "NavigationObstacle.radius", low=0.0)
        self.height = number(self.height, "NavigationObstacle.height", low=0.0)
        v = point(self.velocity, "NavigationObstacle.velocity (x, y) or (x, y, z)")
        self.velocity = (v[0], v[1], v[2] if len(v) == 3 else 0.0)
        if isinstance(self.vertices, (str, bytes)):
            raise ValueError(f"NavigationObstacle.vertices must be a list of (x, y) points, got {self.vertices!r}")
        corners = [point(p, f"NavigationObstacle.vertices[{i}]", dims=2) for i, p in enumerate(self.vertices)]
        if 0 < len(corners) < 3:
            raise ValueError("NavigationObstacle.vertices must be empty or at least 3 finite (x, y) points, "
                             f"got {self.vertices!r}")
        self.vertices = [(p[0], p[1]) for p in corners]
        self.avoidance_layers = whole_number(self.avoidance_layers, "NavigationObstacle.avoidance_layers (a bit mask)",
                                             low=0, high=2 ** 32 - 1)

    def get_avoidance_layer_value(self, layer_number: int) -> bool:
        """Whether layer ``layer_number`` (1 .. 32) is on in ``avoidance_layers``."""
        return bool(self.avoidance_layers & (1 << (_layer(layer_number) - 1)))

    def set_avoidance_layer_value(self, layer_number: int, value: bool) -> None:
        """Turn layer ``layer_number`` (1 .. 32) of ``avoidance_layers`` on or off."""
        bit = 1 << (_layer(layer_number) - 1)
        self.avoidance_layers = (self.avoidance_layers | bit) if value else (self.avoidance_layers & ~bit)


def _layer(number: int) -> int:
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= 32:
        raise ValueError(f"NavigationObstacle: layer_number must be an int 1 .. 32, got {number!r}")
    return number
