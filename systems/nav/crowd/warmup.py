"""The one warm-up: compile kernels and bake the level's structures at load time, not in a tick.

``warm_up()`` compiles (or loads from numba's on-disk cache) every grid-search kernel on a tiny
grid; ``prepare_crowd`` (``Crowd.prepare``) does that and then the crowd's practice run and the
level's bakes; ``Navigation.prepare`` (the esper layer) runs the same stages with its practice
run going through esper.

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
import sys
import time
from collections.abc import Callable, Iterable

import numpy as np

from rtsnav.names import canonical_planner

from ..errors import NavError
from ..grid import Grid
from .config import CrowdConfig
from .level_cache import LevelCache
from .rebuild import first_query
from .state import PLANNERS, NavState

__all__ = ["warm_up", "practice_grid", "practice_crowd", "run_until_arrived", "bake_stages", "bake", "prepare_crowd",
           "freeze_after_load", "kernels_compiled", "compile_notice", "precompile", "compile_part", "FLOCKED",
           "FIRST_COMPILE"]

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


def practice_crowd(crowd_class, grid: Grid, methods: list[str], flow_mode: str, navmesh_radius: float) -> bool:
    """Run a scratch ``Crowd`` on ``grid``: three agents per planner (two avoiding; a flock for
    group planners), all sent to one goal until they arrive, then sent back and a map edit made
    while they walk. Returns whether all arrived the first time (arrival's kernels compiled)."""
    crowd = crowd_class(grid, CrowdConfig(flow_mode=flow_mode, navmesh_radius=navmesh_radius, rebuild_worker=False))
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
    arrived = run_until_arrived(lambda: crowd.update(1 / 20), lambda: crowd.states)
    order((10.5, 50.5))
    for _ in range(10):
        crowd.update(1 / 20)
    grid.set_passable(np.array([[20, 30]]), False)      # the re-plan paths compile too
    crowd.cells_changed(np.array([[20, 30]]))
    for _ in range(5):
        crowd.update(1 / 20)
    return arrived


def run_until_arrived(step: Callable[[], object], states: Callable[[], np.ndarray], limit: int = 600) -> bool:
    """Tick a practice run until no agent walks or plans (arrival and its slots compile too:
    160 ticks left most practice units on the way, and the first arrival of a real game then
    compiled the slot kernel inside a tick), ``limit`` ticks at most. True when all arrived."""
    for _ in range(limit):
        step()
        now = states()
        if not ((now == NavState.FOLLOWING) | (now == NavState.PLANNING)).any():
            return bool((now == NavState.FINISHED).all())
    return False


def bake_stages(methods: Iterable[str] | None, uses_tiles: bool) -> tuple[list[str], list[str]]:
    """``(planners, stages)`` to prepare for ``methods`` (None: every planner): ``kernels``
    first, then each structure they need. Raises ``NavError`` naming unknown planners."""
    if methods is not None:
        listed = list(methods) if isinstance(methods, Iterable) and not isinstance(methods, (str, bytes)) else None
        if listed is None or not all(isinstance(m, str) for m in listed):
            raise NavError(f"prepare(methods=...) must be a list of planner names ({', '.join(PLANNERS)}) or "
                           f"None, got {methods!r}")
        methods = listed
    chosen = list(PLANNERS) if methods is None else list(dict.fromkeys(canonical_planner(m) or m for m in methods))
    unknown = [m for m in chosen if m not in PLANNERS]
    if unknown:
        raise NavError(f"prepare(methods=...): unknown planner(s) {unknown}; expected some of {', '.join(PLANNERS)}")
    stages = ["kernels"] + [s for s in ("navmesh", "hierarchy", "waypoints", "jps+") if s in chosen]
    if any(m in FLOCKED for m in chosen) and uses_tiles:
        stages.append("tiles")
    return chosen, stages


def bake(level: LevelCache, stage: str) -> None:
    """Build (or load from ``level.cache_dir``) the structure of one stage other than ``kernels``."""
    if stage == "navmesh":
        mesh = level.navmesh()
        first_query(mesh, level.grid, three_d=True)         # builds its lazy query tables too
        if mesh.needs_crossing_search:                      # area costs: orders share goal trees
            from ..navmesh.goal_tree import goal_tree_tables

            goal_tree_tables(mesh)
    elif stage == "hierarchy":
        first_query(level.hierarchy(), level.grid, three_d=False)
    elif stage == "waypoints":
        first_query(level.waypoints(), level.grid, three_d=True)
    elif stage == "tiles":
        level.sector_graph()
    elif stage == "jps+":
        from ..search.jps_plus import jump_table

        jump_table(level.grid, level.cache_dir).current()


def freeze_after_load() -> None:
    """``gc.collect()`` then ``gc.freeze()``, as game loops do after loading: what was made so far
    leaves the garbage collector's sweeps, so a tick that allocates does not pay a full
    collection over the loaded level (~50 ms on the 512² highlands). Cycles made before it are
    then never collected."""
    gc.collect()
    gc.freeze()


def prepare_crowd(level: LevelCache, crowd_class, methods: Iterable[str] | None,
                  progress: Callable[[str, int, int], None] | None,
                  practice: Callable[[list[str]], None] | None = None, masks: Iterable[int] = (),
                  workspaces=None) -> dict[str, float]:
    """See ``Crowd.prepare``: ``level`` is the crowd's ``LevelCache``, ``crowd_class`` the class
    of the practice crowds; ``practice(chosen)`` replaces the core practice run (``Navigation``
    runs its own through esper); ``masks``: navigation-layer masks whose own structures are baked
    too (those that hide some cells: ``LevelCache.for_layers``); ``workspaces``: the crowd's
    ``WorkspacePool``, whose memory is mapped here (and its bidirectional workspaces made when
    that planner is prepared)."""
    chosen, stages = bake_stages(methods, level.uses_tiles)
    seconds: dict[str, float] = {}
    level.rebuilds.start_worker(stages)    # map edits rebuild in it: it loads while we bake
    # a first run compiles for minutes: without a loading screen of the game's own, say so
    compiled = kernels_compiled()
    say = _say if progress is None and not compiled else _quiet
    report = _LateProgress() if progress is None else progress     # a prepare over 2 s is never silent
    for done, stage in enumerate(stages):
        report(stage, done, len(stages))
        t0 = time.perf_counter()
        if stage == "kernels":
            practised = (level_kind(level.grid), practice is not None, frozenset(chosen))
            if any(kind == practised[0] and glue == practised[1] and practised[2] <= done_set
                   for kind, glue, done_set in _PRACTISED):
                seconds[stage] = time.perf_counter() - t0      # this process practised it: all compiled
                continue
            if not compiled:
                say(compile_notice())
                precompile(crowd_class, [level_kind(level.grid)])
            warm_up()
            say(f"grid searches ready ({time.perf_counter() - t0:.0f} s)")
            if practice is not None:
                practice(chosen)
            else:
                radius = level.config.navmesh_radius
                practice_crowd(crowd_class, practice_grid(level.grid), chosen, "full", radius)
                flows = [m for m in chosen if m in FLOCKED]
                if flows:
                    practice_crowd(crowd_class, practice_grid(level.grid), flows, "tiles", radius)
            _PRACTISED.append(practised)
            say(f"crowd kernels ready ({time.perf_counter() - t0:.0f} s)")
        else:
            bake(level, stage)
            for mask in masks:
                layered = level.for_layers(mask)
                if layered is not level and stage != "jps+":
                    bake(layered, stage)
        seconds[stage] = time.perf_counter() - t0
    level.sized_grids()                    # the clearance map of agents wider than half a cell
    # what a first crowded tick made: the narrow-passage and clearance maps (~0.15 s on a 768²
    # map), and the search workspaces' memory (page faults: the first bidirectional order took 170 ms)
    level.passages(level.config.congestion_narrow)
    level.clearance()
    if workspaces is not None:
        workspaces.prepare(wide="bidirectional" in chosen)
    # loaded before the game's first tick: its start on the other core slowed the first ticks 3x
    level.rebuilds.start_worker(ready_within=WORKER_READY_S)
    report("done", len(stages), len(stages))
    return seconds


#: (level kind, through esper, planners) of each practice run this process made: a second level
#: of the same kind (a game's next map, a test's next world) needs no practice, its kernels are
#: compiled in this process already (a practice run costs ~1 s even from numba's cache).
_PRACTISED: list[tuple[str, bool, frozenset]] = []

#: How long a first compile of every kernel takes on this project's 2-core machine, in two
#: processes (what the first-run messages announce; ``tests/benchmarks/cold_start.py`` measures
#: it): 77 s one month, 140 s on 2026-11-29 for the same kernels — the shared machine's speed varies.
FIRST_COMPILE = "1–2½ minutes"


def kernels_compiled() -> bool:
    """Whether the kernels are compiled in this process, or in numba's on-disk cache or the wheel's
    shipped kernels for this CPU, numba and source (probed on the A* kernel: every warm-up
    compiles it first and caches it with the rest)."""
    from numba.core.registry import cpu_target

    from ..search.astar import astar_run

    if astar_run.signatures:
        return True
    cache_file = getattr(getattr(astar_run, "_cache", None), "_cache_file", None)
    if cache_file is None:
        return True                                  # caching off: nothing to announce
    try:
        entries = cache_file._load_index()  # noqa: SLF001 (empty when from other source or another numba)
    except Exception:                                # noqa: BLE001 (an unreadable index: it will be rewritten)
        return False
    machine = cpu_target.target_context.codegen().magic_tuple()
    return any(key[1] == machine for key in entries)


def compile_notice() -> str:
    """What a first compile says it is doing (the wheel's kernels did not fit, or there are none)."""
    from ..shipped_kernels import shipped

    why = "the wheel's compiled kernels are for another CPU or numba version: " if shipped() else ""
    return (f"{why}compiling navigation kernels on first use ({FIRST_COMPILE} on 2 cores; cached for "
            "later runs)")


class _LateProgress:
    """The ``progress`` of a ``prepare`` given none: quiet for its first 2 s, then a line on
    standard error per stage (and one when done), so a slow load says what it is doing."""

    QUIET_S = 2.0

    def __init__(self) -> None:
        self._start = time.perf_counter()
        self._spoke = False

    def __call__(self, stage: str, done: int, total: int) -> None:
        elapsed = time.perf_counter() - self._start
        if elapsed < self.QUIET_S:
            return
        if stage == "done":
            if self._spoke:
                _say(f"prepared in {elapsed:.1f} s")
            return
        self._spoke = True
        _say(f"preparing {stage} ({done + 1}/{total}; {elapsed:.1f} s so far)")


def _say(message: str) -> None:
    print(f"rtsnav: {message}", file=sys.stderr, flush=True)


def _quiet(message: str) -> None:
    pass


def warm_up(fields: bool = True) -> float:
    """Run each kernel once on a tiny grid so the first real query pays no JIT cost (``fields``:
    the flow-field kernels a practice run does not reach, too).

    Returns the seconds spent: a full compile on a fresh install, a cache load afterwards.
    """
    from rtsnav import checks

    from ..grid import Grid
    from ..search.bidirectional import reached_share
    from ..search.facade import METHODS, find_path
    from ..search.paths import smooth_path

    fields = checks.flag(fields, "fields", error=NavError)
    t0 = time.perf_counter()
    passable = np.ones((4, 5), dtype=bool)
    passable[1, 1:4] = False
    for grid in (Grid(passable), Grid(passable, cost=np.full((4, 5), 2.0))):
        for method in METHODS:
            # bidirectional: its pocket rule would answer this short query by A*
            r = find_path(grid, (0, 0), (4, 3), method=method, pocket_rule=False)
            smooth_path(grid, r.cells, "fast")
            smooth_path(grid, r.cells, "precise")
        grid.line_of_sight((0, 0), (4, 3))
        (free, _), wp = grid.padded()
        reached_share(free, grid.move_masks(), wp, wp + 1, 2)          # the pocket rule's walk
    if fields:
        _warm_outside_practice(Grid(passable))
    return time.perf_counter() - t0


#: The parts of a first compile, in two processes at once (this one and a helper), each a chain:
#: ``core`` (the crowd's own kernels: a practice run of one planner) then ``searches`` (the crowd
#: with every single-unit planner) and ``extras`` (builders no practice run reaches: goal bounds,
#: eikonal and kernel-rule fields, triangle-soup navmeshes, clearance maps, lookup tables), beside ``direct`` (every grid search and smoothing called
#: directly), ``flows`` (the flow-field kernels a practice run does not reach) and ``groups`` (the
#: crowd with every group planner). Each chain's crowd loads the kernels the other compiled
#: meanwhile: two halves that each ran a whole practice crowd from the start compiled the crowd's
#: kernels twice, ~55 of each half's ~96 s.
COMPILE_CHAINS = (("core", "searches", "extras"), ("direct", "flows", "groups"))
COMPILE_PARTS = tuple(part for chain in COMPILE_CHAINS for part in chain)
SEARCH_PLANNERS = ("astar", "dijkstra", "weighted", "bidirectional", "jps", "jps+", "navmesh", "waypoints",
                   "hierarchy", "dstar-lite")


def level_kind(grid: Grid) -> str:
    """``uniform`` or ``cost`` (terrain costs), with ``+heights``: what decides the kernels' signatures."""
    return ("uniform" if grid.is_uniform else "cost") + ("+heights" if grid.heights is not None else "")


def like_grid(kind: str) -> Grid:
    """A small grid of the level kind ``kind`` (see ``level_kind``)."""
    passable = np.ones((8, 8), dtype=bool)
    cost = np.full((8, 8), 2.0) if kind.startswith("cost") else None
    heights = np.zeros((8, 8), dtype=np.float32) if kind.endswith("+heights") else None
    return Grid(passable, cost, heights)


def compile_part(crowd_class, part: str, kind: str = "uniform") -> None:
    """Compile one of ``COMPILE_PARTS`` (into numba's cache) by practice runs on a level of ``kind``."""
    radius = CrowdConfig().navmesh_radius
    like = like_grid(kind)
    if part == "core":
        practice_crowd(crowd_class, practice_grid(like), ["astar"], "full", radius)
    elif part == "flows":
        passable = np.ones((4, 5), dtype=bool)
        passable[1, 1:4] = False
        _warm_outside_practice(Grid(passable))
    elif part == "direct":
        warm_up(fields=False)
    elif part == "searches":
        practice_crowd(crowd_class, practice_grid(like), list(SEARCH_PLANNERS), "full", radius)
    elif part == "extras":
        _warm_builders(like)
    elif part == "groups":
        groups = [m for m in PLANNERS if m not in SEARCH_PLANNERS]
        practice_crowd(crowd_class, practice_grid(like), groups, "full", radius)
        practice_crowd(crowd_class, practice_grid(like), [m for m in groups if m in FLOCKED], "tiles", radius)
    else:
        raise NavError(f"compile_part: unknown part {part!r}; expected one of {', '.join(COMPILE_PARTS)}")


def precompile(crowd_class, kinds: Iterable[str] = ("uniform",), jobs: int | None = None) -> float:
    """Fill numba's on-disk cache with every kernel for levels of ``kinds`` (see ``level_kind``),
    in ``jobs`` processes at once (default: 2 when the machine has 2 cores or more): this process
    compiles the first of ``COMPILE_CHAINS`` while a helper process (``python -m
    rtsnav.systems.nav.crowd.precompile_worker``) compiles the second. Returns the seconds spent."""
    import os
    import subprocess

    t0 = time.perf_counter()
    kinds = list(kinds)
    jobs = min(2, os.cpu_count() or 1) if jobs is None else jobs
    if getattr(sys, "frozen", False):             # a bundled game: sys.executable is the game, not Python
        jobs = 1
    mine, theirs = COMPILE_CHAINS
    helper = None
    if jobs >= 2:
        helper = subprocess.Popen([sys.executable, "-m", "rtsnav.systems.nav.crowd.precompile_worker",
                                   ",".join(theirs), *kinds])
    for part in mine:
        for kind in kinds:
            compile_part(crowd_class, part, kind)
        if os.environ.get("RTSNAV_COMPILE_TIMES"):
            print(f"{part} compiled at {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    if helper is None or helper.wait() != 0:         # no helper, or it failed: compile its parts here
        for part in theirs:
            for kind in kinds:
                compile_part(crowd_class, part, kind)
    return time.perf_counter() - t0


def _warm_builders(like: Grid) -> None:
    """The builders a game calls at load time that no practice run reaches, on a tiny level like
    ``like`` (each compiled once here instead of in the first process that builds one)."""
    from ..flow.clearance import SizedGrids
    from ..flow.field import FlowField
    from ..navmesh import NavMesh
    from ..search.goal_bounds import GoalBounds
    from ..waypoints.graph import WaypointGraph

    grid = Grid(np.ones((6, 6), dtype=bool), None if like.is_uniform else np.full((6, 6), 2.0))
    if grid.is_uniform:                                 # goal bounds are for uniform-cost grids only
        GoalBounds.build(grid)
    for integration, rule in (("eikonal", "descent"), ("dijkstra", "kernel")):
        FlowField.build(grid, [(1, 1)], integration=integration, rule=rule)
    SizedGrids(grid)
    grid.segments_clear(np.array([[0.5, 0.5]]), np.array([[4.5, 3.5]]))
    WaypointGraph(grid, np.array([[0, 0], [5, 5]]), np.array([[0, 1]])).lookup_tables()
    soup = np.array([[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [4.0, 4.0, 0.0], [0.0, 4.0, 0.0]])
    NavMesh.from_triangles(soup, np.array([[0, 1, 2], [0, 2, 3]]))
    _warm_layered()


def _warm_layered() -> None:
    """A layered navmesh's bake and queries (a floor with a wall and a deck over it)."""
    from ..navmesh import LayeredNavMesh

    floor = [[0, 0, 0], [8, 0, 0], [8, 8, 0], [0, 8, 0]]
    deck = [[2, 2, 3], [6, 2, 3], [6, 6, 3], [2, 6, 3]]
    wall = [[4, 0, 0], [4, 1, 0], [4, 1, 2.5], [4, 0, 2.5]]
    v = np.array(floor + deck + wall, dtype=np.float64)
    t = np.array([[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7], [8, 9, 10], [8, 10, 11]])
    mesh = LayeredNavMesh.from_triangles(v, t, agent_radius=0.5, cell_size=0.25)
    mesh.find_path((1.0, 1.0, 0.0), (7.0, 0.7, 0.0))
    mesh.add_link((1.0, 7.0, 0.0), (3.0, 5.0, 3.0))
    mesh.find_path((1.0, 7.0, 0.0), (5.0, 3.0, 3.0))
    mesh.raycast((1.0, 4.0, 0.0), (7.0, 4.0, 0.0))
    mesh.nearest_point((-1.0, 4.0, 0.0))
    mesh.follow_surface(np.array([[1.0, 1.0, 0.0]]), np.array([[1.2, 1.0, 0.0]]))


def _warm_outside_practice(grid) -> None:
    """Kernels a crowd's practice run does not reach on its small level: the field Dijkstra
    (with its two-thread kernel for big fields) and the parallel direction pass of big fields, the Leader/Target election's chain walk, and the sector tiles' own
    sampling (a crowd samples them in one batched pass; a leader's stray follower calls it), and
    the sight check of a plan smoothed while the map was edited."""
    from ..flow.direction import warm_directions
    from ..flow.field import FlowField
    from ..flow.sectors import SectorGraph
    from ..grid import Grid
    from ..kernels.parallel_dijkstra import integrate_parallel
    from .detours import in_touch

    warm_directions()
    FlowField.build(grid, [(0, 0)])                        # the field Dijkstra
    (_, cost), wp = grid.padded()                           # and its two-thread kernel (big fields)
    integrate_parallel(grid.move_masks(), cost, wp, True, np.array([wp + 1]), np.zeros(1), np.ones(1, np.uint8),
                       np.full(cost.size, np.inf, dtype=np.float32), np.inf, 0, np.full(cost.size, -1, dtype=np.int8))
    from ..search.smoothing import segments_open

    # a plan whose smoothing met a map edit checks its kept cells (int32, as smoothing keeps them)
    segments_open(grid.padded()[0][0], cost, wp, np.array([[0, 0], [1, 1]], dtype=np.int32))
    tiles = SectorGraph(Grid(np.ones((8, 8), dtype=bool)), 4)
    points = np.array([[1.5, 1.5], [6.5, 6.5]])
    tiles.order((1, 1)).sample_within(points, 0)           # the coarse route
    tiles.order((1, 1)).sample(points)
    in_touch(np.array([[0.5, 0.5], [1.5, 0.5]]), np.array([True, False]), 2.0, grid.passable, grid.cell_size,
             float(grid.origin[0]), float(grid.origin[1]))
