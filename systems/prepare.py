"""``Navigation.prepare``: compile kernels and bake navigation data at load time, not in a tick.

Kernels are compiled by running rtsnav's own processors on a small practice level in a scratch
esper world — one agent group per planner, a few dozen ticks — so exactly the code paths (and
numba type signatures) a real order takes are compiled, or loaded from numba's on-disk cache.
The real level's bakes (navmesh, hierarchy, sector tiles, waypoint graph) are then built or
loaded from the ``Navigation``'s cache folder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import esper
import numpy as np

from rtsnav.components import Flock, NavigationAgent, Position, Velocity
from rtsnav.systems.nav import Grid
from rtsnav.systems.nav.crowd.prepare import FLOCKED, practice_grid, prepare_crowd, run_until_arrived

__all__ = ["prepare_navigation", "practice_grid"]

_SCRATCH_WORLD = "__rtsnav_prepare__"


def _practice(grid: Grid, methods: list[str], flow_mode: str, navmesh_radius: float) -> None:
    """Run the processors on ``grid`` in a scratch world, a small group per planner."""
    from .navigation import Navigation
    from .plugin import install

    previous = esper.current_world
    esper.switch_world(_SCRATCH_WORLD)
    try:
        nav = Navigation(grid, cache_dir=False, flow_mode=flow_mode, navmesh_radius=navmesh_radius,
                         rebuild_worker=False)
        install(nav, prepare=False)
        for k, method in enumerate(methods):
            for i in range(3):
                # some avoid (ORCA, team contacts), all arrive within the run (slots, chaining)
                parts = [Position(5.5 + i, 5.5 + 2 * k % 50), Velocity(),
                         NavigationAgent(target_position=(50.5, 45.5, 0.0), max_speed=8.0, method=method,
                                         avoidance_enabled=i > 0)]
                if method in FLOCKED:
                    parts.append(Flock(group=k + 1))
                esper.create_entity(*parts)
        run_until_arrived(lambda: esper.process(1 / 20), nav.crowd.state)
        # sent back, and a map edit while they walk: the re-plan paths compile too
        for _, agent in esper.get_component(NavigationAgent):
            agent.target_position = (10.5, 50.5, 0.0)
        for _ in range(10):
            esper.process(1 / 20)
        nav.grid.set_passable(np.array([[20, 30]]), False)
        nav.cells_changed(np.array([[20, 30]]))
        for _ in range(5):
            esper.process(1 / 20)
    finally:
        esper.switch_world(previous)
        esper.delete_world(_SCRATCH_WORLD)


def prepare_navigation(nav, methods: Iterable[str] | None,
                       progress: Callable[[str, int, int], None] | None) -> dict[str, float]:
    """See ``Navigation.prepare``: the core's stages (``Crowd.prepare``), with the practice run
    going through esper and rtsnav's processors."""
    radius = nav.crowd.config.navmesh_radius

    def practice(chosen: list[str]) -> None:
        _practice(practice_grid(nav.grid), chosen, "full", radius)
        flocked = [m for m in chosen if m in FLOCKED]
        if flocked:
            _practice(practice_grid(nav.grid), flocked, "tiles", radius)

    return prepare_crowd(nav.crowd, methods, progress, practice)
