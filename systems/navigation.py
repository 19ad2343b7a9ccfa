"""``Navigation``: the navigation state of one level, like a Godot NavigationServer map."""

from __future__ import annotations

from systems.nav import Grid, NavError

from .agents import AgentTable
from .requests import PathRequestQueue

__all__ = ["Navigation"]


class Navigation:
    """Owns a level's ``Grid`` and everything the processors share: the agent table, the
    path request queue, and (as they land) the navmesh, hierarchy and flow-field cache.

    One ``Navigation`` per esper world; ``systems.install(navigation)`` adds the processors.

    Args:
        grid: the level grid (``levels.load_movingai_map`` / ``Grid``).
        expansions_per_tick: node expansions all path requests share per tick (the time-slicing
            budget), ≥ 1. 20,000 is about 2.5 ms of A* on this project's reference machine.
        max_searches: path searches in progress at once, ≥ 1 (each holds ~28 bytes per cell).
        smoothing: ``"precise"``, ``"fast"`` or None: how grid paths become waypoints.
        weight: heuristic weight for agents whose method is ``"weighted"``, ≥ 1.
    """

    def __init__(self, grid: Grid, *, expansions_per_tick: int = 20_000, max_searches: int = 4,
                 smoothing: str | None = "precise", weight: float = 1.5) -> None:
        if not isinstance(grid, Grid):
            raise NavError(f"Navigation needs a systems.nav.Grid, got {type(grid).__name__}")
        if smoothing not in ("precise", "fast", None):
            raise NavError(f"smoothing must be 'precise', 'fast' or None, got {smoothing!r}")
        self.grid = grid
        self.smoothing = smoothing
        self.agents = AgentTable()
        self.requests = PathRequestQueue(grid, expansions_per_tick, max_searches, weight=weight)
        self.tick = 0

    def __repr__(self) -> str:
        return (f"Navigation({self.grid!r}, agents={self.agents.count}, "
                f"pending_requests={len(self.requests)})")
