"""Where an entity is and how it moves: ``Position`` and ``Velocity`` (world units, Z-up)."""

from __future__ import annotations

from .rows import Column, RowComponent, float_field

__all__ = ["Position", "Velocity"]


class Position(RowComponent):
    """World position in Panda3D's Z-up frame: ``x``, ``y`` on the ground plane, ``z`` height.

    Units: world units (a grid cell is ``Grid.cell_size`` world units wide). The coordinates
    have no default: ``Position(x, y)`` or ``Position(x, y, z)``.
    """

    __slots__ = ()
    COLUMNS = {"position": Column("f8", 3, 0.0)}
    FIELDS = ("x", "y", "z")

    def __init__(self, x: float, y: float, z: float = 0.0) -> None:
        super().__init__()
        self.x, self.y, self.z = x, y, z

    x = float_field("position", 0, "world x, world units", "x")
    y = float_field("position", 1, "world y, world units", "y")
    z = float_field("position", 2, "world z (height), world units", "z")

    def as_tuple(self) -> tuple[float, float, float]:
        """``(x, y, z)`` as plain floats."""
        return (self.x, self.y, self.z)


class Velocity(RowComponent):
    """Velocity in world units per second. ``Velocity()`` is a valid zero velocity.

    For navigation agents the path processors write it and ``MovementProcessor`` integrates it
    (after clamping to ``NavigationAgent.max_speed`` and sliding along walls).
    """

    __slots__ = ()
    COLUMNS = {"velocity": Column("f8", 3, 0.0)}
    FIELDS = ("x", "y", "z")

    def __init__(self, x: float = 0.0, y: float = 0.0, z: float = 0.0) -> None:
        super().__init__()
        self.x, self.y, self.z = x, y, z

    x = float_field("velocity", 0, "x speed, world units / s", "x")
    y = float_field("velocity", 1, "y speed, world units / s", "y")
    z = float_field("velocity", 2, "z speed, world units / s", "z")

    def as_tuple(self) -> tuple[float, float, float]:
        """``(x, y, z)`` as plain floats."""
        return (self.x, self.y, self.z)
