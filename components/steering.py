"""Group steering settings: ``Flock``."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Flock"]


@dataclass(slots=True)
class Flock:
    """Membership of a flock and its steering weights (Reynolds boids).

    Agents that share ``group`` and a target move as one group.

    Attributes:
        group: flock id, any int; agents flock only with their own group.
        separation: weight of the push away from neighbours closer than ``radius``, ≥ 0.
        cohesion: weight of the pull toward the neighbours' centre, ≥ 0.
        alignment: weight of matching the neighbours' mean velocity, ≥ 0.
        radius: neighbourhood radius, world units, > 0.
    """

    group: int = 0
    separation: float = 1.5
    cohesion: float = 1.0
    alignment: float = 1.0
    radius: float = 2.0

    def __post_init__(self) -> None:
        for name in ("separation", "cohesion", "alignment"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"Flock.{name} must be >= 0, got {getattr(self, name)!r}")
        if not self.radius > 0:
            raise ValueError(f"Flock.radius must be > 0, got {self.radius!r}")
