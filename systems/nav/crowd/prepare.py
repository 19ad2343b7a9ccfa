"""``Crowd.prepare``: compile kernels and bake the level's structures at load time, not in a tick.

Kernels are compiled (or loaded from numba's on-disk cache) by a practice run: a scratch
``Crowd`` on a small practice level, a few agents per planner, some avoiding, all arriving, then
a map edit — so exactly the code paths and numba type signatures a real order takes are ready.
The real level's structures (navmesh, hierarchy, sector tiles, waypoint graph, JPS+ table) are
then built or loaded from the crowd's ``cache_dir``, each with one first query so that their lazy
tables are made too. ``Navigation.prepare`` uses the same stages (its practice run goes through
esper, so the glue is exercised as well).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable

import numpy as np

from ..errors import NavError
from ..grid import Grid
from .state import PLANNERS

__all__ = ["practice_grid", "practice_crowd", "run_until_arrived", "first_query", "bake_stages", "bake", "prepare_crowd", "FLOCKED"]

#: Planners practised with a flock, whose orders use sector tiles on large maps.
FLOCKED = ("flowfield", "leader")
#: Seconds ``prepare`` waits at most for the rebuild worker to load (it takes ~0.6 s).
WORKER_READY_S = 10.0


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


def practice_crowd(grid: Grid, methods: list[str], flow_mode: str, navmesh_radius: float) -> bool:
    """Run a scratch ``Crowd`` on ``grid``: three agents per planner (two avoiding; a flock for
    group planners), all sent to one goal until they arrive, then sent back and a map edit made
    while they walk. Returns whether all arrived the first time (arrival's kernels compiled)."""
    from .config import CrowdConfig
    from .crowd import Crowd

    crowd = Crowd(grid, CrowdConfig(flow_mode=flow_mode, navmesh_radius=navmesh_radius, rebuild_worker=False))
    teams = []
    for k, method in enumerate(methods):
        group = k + 1 if method in FLOCKED else -1
        starts = [(5.5 + i, 5.5 + 2 * k % 50) for i in range(3)]
        teams.append((method, group, np.r_[crowd.add_agents(starts[:1], max_speed=8.0, group=group),
                                          crowd.add_agents(starts[1:], max_speed=8.0, group=group, avoidance=True)]))

    def order(goal) -> None:
        for method, group, ids in teams:
            if group >= 0:
                crowd.move(ids, goal, planner=method)
            else:
                for i in ids.tolist():
                    crowd.move([i], goal, planner=method)

    order((50.5, 45.5))
    arrived = run_until_arrived(lambda: crowd.update(1 / 20), crowd.state)
    order((10.5, 50.5))
    for _ in range(10):
        crowd.update(1 / 20)
    grid.set_passable(np.array([[20, 30]]), False)      # the re-plan paths compile too
    crowd.cells_changed(np.array([[20, 30]]))
    for _ in range(5):
        crowd.update(1 / 20)
    return arrived


def run_until_arrived(step: Callable[[], object], state, limit: int = 600) -> bool:
    """Tick a practice run until no agent walks or plans (arrival and its slots compile too:
    160 ticks left most practice units on the way, and the first arrival of a real game then
    compiled the slot kernel inside a tick), ``limit`` ticks at most. True when all arrived."""
    from .state import NavState

    for _ in range(limit):
        step()
        now = state.nav_state[: state.size, 0]
        if not ((now == NavState.FOLLOWING) | (now == NavState.PLANNING)).any():
            return bool((now == NavState.FINISHED).all())
    return False


def first_query(planner, grid: Grid, three_d: bool) -> None:
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


def bake_stages(methods: Iterable[str] | None, uses_tiles: bool) -> tuple[list[str], list[str]]:
    """``(planners, stages)`` to prepare for ``methods`` (None: every planner): ``kernels``
    first, then each structure they need. Raises ``NavError`` naming unknown planners."""
    chosen = list(PLANNERS) if methods is None else list(dict.fromkeys(methods))
    unknown = [m for m in chosen if m not in PLANNERS]
    if unknown:
        raise NavError(f"prepare(methods=...): unknown planner(s) {unknown}; expected some of {', '.join(PLANNERS)}")
    stages = ["kernels"] + [s for s in ("navmesh", "hierarchy", "waypoints", "jps+") if s in chosen]
    if any(m in FLOCKED for m in chosen) and uses_tiles:
        stages.append("tiles")
    return chosen, stages


def bake(crowd, stage: str) -> None:
    """Build (or load from ``crowd.cache_dir``) the structure of one stage other than ``kernels``."""
    if stage == "navmesh":
        mesh = crowd.navmesh()
        first_query(mesh, crowd.grid, three_d=True)         # builds its lazy query tables too
        if mesh.needs_crossing_search:                      # area costs: orders share goal trees
            from ..navmesh.goal_tree import goal_tree_tables

            goal_tree_tables(mesh)
    elif stage == "hierarchy":
        first_query(crowd.hierarchy(), crowd.grid, three_d=False)
    elif stage == "waypoints":
        first_query(crowd.waypoints(), crowd.grid, three_d=True)
    elif stage == "tiles":
        crowd.sector_graph()
    elif stage == "jps+":
        from ..search.jps_plus import jump_table

        jump_table(crowd.grid, crowd.cache_dir).current()


def freeze_after_load() -> None:
    """``gc.collect()`` then ``gc.freeze()``, as game loops do after loading: what was made so far
    leaves the garbage collector's sweeps, so a tick that allocates does not pay a full
    collection over the loaded level (~50 ms on the 512² highlands). Cycles made before it are
    then never collected."""
    gc.collect()
    gc.freeze()


def prepare_crowd(crowd, methods: Iterable[str] | None,
                  progress: Callable[[str, int, int], None] | None,
                  practice: Callable[[list[str]], None] | None = None) -> dict[str, float]:
    """See ``Crowd.prepare``; ``practice(chosen)`` replaces the core practice run (``Navigation``
    runs its own through esper)."""
    chosen, stages = bake_stages(methods, crowd.uses_tiles)
    seconds: dict[str, float] = {}
    crowd.rebuilds.start_worker(stages)    # map edits rebuild in it: it loads while we bake
    for done, stage in enumerate(stages):
        if progress is not None:
            progress(stage, done, len(stages))
        t0 = time.perf_counter()
        if stage == "kernels":
            from ..warmup import warm_up

            warm_up()
            if practice is not None:
                practice(chosen)
            else:
                radius = crowd.config.navmesh_radius
                practice_crowd(practice_grid(crowd.grid), chosen, "full", radius)
                flows = [m for m in chosen if m in FLOCKED]
                if flows:
                    practice_crowd(practice_grid(crowd.grid), flows, "tiles", radius)
        else:
            bake(crowd, stage)
        seconds[stage] = time.perf_counter() - t0
    crowd.sized_grids()                    # the clearance map of agents wider than half a cell
    # loaded before the game's first tick: its start on the other core slowed the first ticks 3x
    crowd.rebuilds.start_worker(ready_within=WORKER_READY_S)
    if progress is not None:
        progress("done", len(stages), len(stages))
    return seconds
