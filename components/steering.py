"""Group steering settings: ``Flock``."""

from __future__ import annotations

import numpy as np

from rtsnav.checks import number

from .rows import Column, RowComponent

__all__ = ["Flock"]

FL_SEPARATION, FL_COHESION, FL_ALIGNMENT, FL_RADIUS = range(4)


def _weight(index: int, name: str, doc: str, strict: bool) -> property:
    """A validated ``Flock`` property over one column of its row."""
    def get(self: "Flock") -> float:
        return float(self._store.flock_params[self._row, index])

    def set(self: "Flock", value: float) -> None:
        self._store.flock_params[self._row, index] = number(value, f"Flock.{name}", low=0.0, low_open=strict)

    return property(get, set, doc=doc)


class Flock(RowComponent):
    """Membership of a flock and its steering weights (Reynolds boids).

    Agents that share ``group`` and a target move as one group (``NavigationAgent.method``
    ``"flowfield"`` or ``"leader"``); flocking forces act between members of the same group.

    Args:
        group: flock id, any int ≥ 0.
        separation: weight of the push away from neighbours closer than ``radius``, ≥ 0.
        cohesion: weight of the pull toward the neighbours' centre, ≥ 0.
        alignment: weight of matching the neighbours' mean velocity, ≥ 0.
        radius: neighbourhood radius, world units, > 0.
    """

    __slots__ = ()
    COLUMNS = {
        "flock_params": Column("f8", 4, 0.0),
        "flock_group": Column("i8", 1, -1),          # -1 in the agent table = not in a flock
    }
    FIELDS = ("group", "separation", "cohesion", "alignment", "radius")

    def __init__(self, group: int = 0, separation: float = 1.5, cohesion: float = 0.3,
                 alignment: float = 0.3, radius: float = 2.0) -> None:
        super().__init__()
        self.group = group
        self.separation = separation
        self.cohesion = cohesion
        self.alignment = alignment
        self.radius = radius

    @property
    def group(self) -> int:
        """Flock id (≥ 0)."""
        return int(self._store.flock_group[self._row, 0])

    @group.setter
    def group(self, value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0 or value >= 2 ** 62:
            raise ValueError(f"Flock.group must be an int >= 0, got {value!r}")
        self._store.flock_group[self._row, 0] = int(value)

    separation = _weight(FL_SEPARATION, "separation", "weight, >= 0", False)
    cohesion = _weight(FL_COHESION, "cohesion", "weight, >= 0", False)
    alignment = _weight(FL_ALIGNMENT, "alignment", "weight, >= 0", False)
    radius = _weight(FL_RADIUS, "radius", "world units, > 0", True)
