"""``Navigation.prepare``: compile kernels and bake navigation data at load time, not in a tick.

Kernels are compiled by running rtsnav's own processors on a small practice level in a scratch
esper world — one agent group per planner, a few dozen ticks — so exactly the code paths (and
numba type signatures) a real order takes are compiled, or loaded from numba's on-disk cache.
The real level's bakes (navmesh, hierarchy, sector tiles, waypoint graph) are then built or
loaded from the ``Navigation``'s cache folder.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import esper
import numpy as np

from rtsnav.components import PLANNERS, Flock, NavigationAgent, Position, Velocity
from rtsnav.systems.nav import Grid, NavError

__all__ = ["prepare_navigation", "practice_grid"]

_SCRATCH_WORLD = "__rtsnav_prepare__"
#: Planners that need a baked structure of the level, and which one.
_BAKES = {"navmesh": "navmesh", "hierarchy": "hierarchy", "waypoints": "waypoints"}


def practice_grid(like: Grid) -> Grid:
    """A 64×64 level with walls, a gap and (like ``like``) terrain costs and heights, so the
    practice run compiles the same kernel signatures as the real level."""
    passable = np.ones((64, 64), dtype=bool)
    passable[8:56, 30] = False
    passable[40, 30] = True
    passable[20:24, 10:20] = False
    cost = None
    if not like.is_uniform:
        cost = np.ones((64, 64))
        cost[:, 40:44] = 2.0
    heights = None
    if like.heights is not None:
        heights = np.tile(np.linspace(0.0, 3.0, 64, dtype=np.float32), (64, 1)).astype(like.heights.dtype)
    return Grid(passable, cost, heights, cell_size=like.cell_size)


def _practice(grid: Grid, methods: list[str], flow_mode: str, navmesh_radius: float) -> None:
    """Run the processors on ``grid`` in a scratch world, a small group per planner."""
    from .navigation import Navigation
    from .plugin import install

    previous = esper.current_world
    esper.switch_world(_SCRATCH_WORLD)
    try:
        nav = Navigation(grid, cache_dir=False, flow_mode=flow_mode, navmesh_radius=navmesh_radius)
        install(nav, prepare=False)
        for k, method in enumerate(methods):
            for i in range(3):
                # some avoid (ORCA, team contacts), all arrive within the run (slots, chaining)
                parts = [Position(5.5 + i, 5.5 + 2 * k % 50), Velocity(),
                         NavigationAgent(target_position=(50.5, 45.5, 0.0), max_speed=8.0, method=method,
                                         avoidance_enabled=i > 0)]
                if method in ("flowfield", "leader"):
                    parts.append(Flock(group=k + 1))
                esper.create_entity(*parts)
        for _ in range(160):
            esper.process(1 / 20)
        # a map edit and a re-order: the re-plan paths compile too
        nav.grid.set_passable(np.array([[20, 30]]), False)
        nav.cells_changed(np.array([[20, 30]]))
        for _ in range(5):
            esper.process(1 / 20)
    finally:
        esper.switch_world(previous)
        esper.delete_world(_SCRATCH_WORLD)


def _first_query(planner, grid: Grid, three_d: bool) -> None:
    """One query between two far cells of the largest region: lazy per-structure tables are
    built now rather than in the first order's tick."""
    labels = grid.components()
    if not (labels >= 0).any():
        return
    big = np.bincount(labels[labels >= 0]).argmax()
    ys, xs = np.nonzero(labels == big)
    a, b = (int(xs[0]), int(ys[0])), (int(xs[-1]), int(ys[-1]))
    if three_d:
        planner.find_path(grid.cell_to_world(*a), grid.cell_to_world(*b))
    else:
        planner.find_path(a, b)


def prepare_navigation(nav, methods: Iterable[str] | None,
                       progress: Callable[[str, int, int], None] | None) -> dict[str, float]:
    """See ``Navigation.prepare``."""
    chosen = list(PLANNERS) if methods is None else list(dict.fromkeys(methods))
    unknown = [m for m in chosen if m not in PLANNERS]
    if unknown:
        raise NavError(f"prepare(methods=...): unknown planner(s) {unknown}; expected some of {', '.join(PLANNERS)}")
    stages = ["kernels"] + [s for s in ("navmesh", "hierarchy", "waypoints", "jps+") if s in chosen]
    if any(m in ("flowfield", "leader") for m in chosen) and nav.uses_tiles:
        stages.append("tiles")
    seconds: dict[str, float] = {}

    def report(stage: str, done: int) -> None:
        if progress is not None:
            progress(stage, done, len(stages))

    for done, stage in enumerate(stages):
        report(stage, done)
        t0 = time.perf_counter()
        if stage == "kernels":
            from rtsnav.systems.nav import warm_up

            warm_up()
            practice = practice_grid(nav.grid)
            _practice(practice, chosen, "full", nav.crowd.config.navmesh_radius)
            if any(m in ("flowfield", "leader") for m in chosen):
                _practice(practice_grid(nav.grid), [m for m in chosen if m in ("flowfield", "leader")],
                          "tiles", nav.crowd.config.navmesh_radius)
        elif stage == "navmesh":
            mesh = nav.navmesh()
            _first_query(mesh, nav.grid, three_d=True)      # builds its lazy query tables too
            if mesh.needs_crossing_search:                 # area costs: orders share goal trees
                from rtsnav.systems.nav.navmesh.goal_tree import goal_tree_tables

                goal_tree_tables(mesh)
        elif stage == "hierarchy":
            _first_query(nav.hierarchy(), nav.grid, three_d=False)
        elif stage == "waypoints":
            _first_query(nav.waypoints(), nav.grid, three_d=True)
        elif stage == "tiles":
            nav.sector_graph()
        elif stage == "jps+":
            from rtsnav.systems.nav.search.jps_plus import jump_table

            jump_table(nav.grid, nav.cache_dir).current()
        seconds[stage] = time.perf_counter() - t0
    report("done", len(stages))
    return seconds
