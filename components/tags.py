"""Game-side tags: which team an entity is on, and whether the player has it selected."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Team", "Selected"]


@dataclass(slots=True)
class Team:
    """The side an entity fights for (1, 2, …)."""

    id: int = 1


@dataclass(slots=True)
class Selected:
    """Marker: the player has this entity selected (no fields)."""
