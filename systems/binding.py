"""Binding a game's own position / velocity components instead of rtsnav's row components.

The default (and fast) path: entities carry rtsnav's ``Position`` / ``Velocity``, which are views
onto rows of the ``Navigation``'s agent table — a tick touches no Python object per agent.

A game that already has its own components binds them at install time::

    install(nav, position=MyPosition, velocity=MyVelocity)             # attributes x, y (, z)
    install(nav, position=Transform, position_fields=("px", "py"))      # other attribute names

Then rtsnav keeps a private row per agent and, once per tick, *reads* every bound position into
it (``bound_sync.BoundReadProcessor``, right after registration — so a game may teleport its units) and
*writes back* positions and velocities (``bound_sync.BoundWriteProcessor``, after movement). That is the one
place where rtsnav touches the game's objects: a Python attribute access per agent and field,
about 0.4 µs per agent per direction here (``tests/benchmarks/ecs_tick.py`` measures it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import esper

from rtsnav.components import Position, Velocity

__all__ = ["ComponentBinding"]


@dataclass(frozen=True, slots=True)
class ComponentBinding:
    """Which component classes hold an agent's position and velocity, and their attribute names.

    Attributes:
        position: the position component class (rtsnav's ``Position`` by default).
        velocity: the velocity component class, or None (a game without one; rtsnav keeps the
            velocity internally and reports it through ``velocity_computed``).
        position_fields: attribute names of x, y and optionally z (world units, Z-up).
        velocity_fields: attribute names of the velocity's x, y and optionally z (units / s).
    """

    position: type = Position
    velocity: type | None = Velocity
    position_fields: tuple[str, ...] = ("x", "y", "z")
    velocity_fields: tuple[str, ...] = ("x", "y", "z")

    def __post_init__(self) -> None:
        for name, fields in (("position_fields", self.position_fields), ("velocity_fields", self.velocity_fields)):
            if isinstance(fields, str) or not isinstance(fields, (tuple, list)) or len(fields) not in (2, 3) \
                    or not all(isinstance(f, str) and f.isidentifier() for f in fields):
                raise TypeError(f"{name} must name 2 or 3 attributes (x, y[, z]), got {fields!r}")

    @property
    def is_default(self) -> bool:
        """True for rtsnav's own array-backed components (no per-tick copying)."""
        return self.position is Position and self.velocity in (Velocity, None)

    def read_position(self, component: Any) -> tuple[float, float, float]:
        """``(x, y, z)`` from a game position component (z = 0 when it has only x, y)."""
        values = [float(getattr(component, f)) for f in self.position_fields]
        return (values[0], values[1], values[2] if len(values) == 3 else 0.0)

    def entity_position(self, entity: int) -> tuple[Any, tuple[float, float, float]] | None:
        """``(position component, (x, y, z))`` of ``entity`` in the current esper world, or None
        when it has none or its fields cannot be read as numbers."""
        component = esper.try_component(entity, self.position)
        if component is None:
            return None
        try:
            return component, self.read_position(component)
        except (AttributeError, TypeError, ValueError):
            return None
