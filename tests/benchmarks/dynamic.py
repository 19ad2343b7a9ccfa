"""Changing worlds: what a map edit costs each planner, on AcrosstheCape scaled to 1024².

    python tests/benchmarks/dynamic.py [--json out.json]

* D* Lite against a fresh A*: an agent walks its path; a 3×3 block lands on the path 5–30 steps
  ahead; expansions and milliseconds of D* Lite's repair against a fresh A* from the agent
  (costs checked equal).
* Path splicing against re-planning, for check intervals K and maximum splice lengths M: the
  same edits; time per repair and the repaired path's cost over the fresh optimum.
* Structures after one gate edit (a 6-cell wall): the JPS+ table's incremental update against
  its full rebuild, the sector tiles' update, the hierarchy's update.
* A gate closing in a running game (``gate_rows``): a prepared ``Crowd`` with a 50-unit flow
  group and single units of every structure planner walking; a 12-cell wall drops across their
  way. The edit's frame (``cells_changed`` + the tick) and every tick after it against the
  median steady tick; ticks until every walking single unit has a new path (or is queued); when
  the navmesh, waypoint graph and hierarchy rebuilt in the worker process were swapped in.
* Re-plans equal fresh queries (``replan_rows``, the 512² highlands level): blocks dropped on
  followed paths; after each, every planner's query cost on the crowd's structures against the
  same query on structures built fresh.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from rtsnav.systems.nav import DStarLite, Hierarchy, JumpTable, SectorGraph, find_path, path_cost  # noqa: E402
from rtsnav.systems.nav.search.jps_plus import build_table  # noqa: E402
from rtsnav.systems.nav.search.splice import splice_path  # noqa: E402
from tests.benchmarks.grid_search import scaled_cape  # noqa: E402
from tests.benchmarks.report import save_json  # noqa: E402


def _ms(fn):
    t = time.perf_counter()
    out = fn()
    return (time.perf_counter() - t) * 1e3, out


def edits(grid, count: int, seed: int = 1, min_length: int = 200):
    """``count`` (start, goal, walked path, block) cases: a 3×3 block 5–30 steps ahead on paths
    of at least ``min_length`` cells."""
    labels = grid.components()
    ys, xs = np.nonzero(labels == np.bincount(labels[labels >= 0]).argmax())
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        i, j = rng.integers(0, len(xs), 2)
        a, b = (int(xs[i]), int(ys[i])), (int(xs[j]), int(ys[j]))
        path = find_path(grid, a, b, "jps").cells
        if len(path) < min_length:
            continue
        c = path[10 + rng.integers(5, 30)]
        block = np.array([(c[0] + dx, c[1] + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)])
        block = block[(block != path[10]).any(axis=1) & (block != np.array(b)).any(axis=1)]
        cases.append((a, b, path, block))
    return cases


def dstar_rows(grid, cases) -> dict:
    ratios, d_ms, a_ms = [], [], []
    for a, b, path, block in cases:
        search = DStarLite(grid, a, b)
        search.plan()
        search.move_to(tuple(path[10]))
        search.plan()
        grid.set_passable(block, False)
        search.cells_changed(block)
        t, r = _ms(search.plan)
        t2, fresh = _ms(lambda: find_path(grid, tuple(path[10]), b, "astar"))
        grid.set_passable(block, True)
        assert r.found == fresh.found and (not r.found or abs(r.cost - fresh.cost) < 1e-6)
        if fresh.found:
            ratios.append(r.expanded / fresh.expanded)
            d_ms.append(t)
            a_ms.append(t2)
    return {"edits": len(ratios), "expansion_ratio_median": float(np.median(ratios)),
            "dstar_repair_ms_median": float(np.median(d_ms)), "fresh_astar_ms_median": float(np.median(a_ms)),
            "memory_mb_per_agent": DStarLite(grid, cases[0][0], cases[0][1]).memory_bytes / 1e6}


def splice_rows(grid, cases) -> list[dict]:
    rows = []
    for k in (4, 8, 16):
        for m in (16, 64, 256):
            times, over, how = [], [], {}
            for a, b, path, block in cases:
                grid.set_passable(block, False)
                at, spent, result = 10, 0.0, None
                while at < len(path) - 1:                        # check every k steps until it is seen
                    t, r = _ms(lambda: splice_path(grid, path, at, k=k, m=m))
                    spent += t
                    if r.how != "clear":
                        result = r
                        break
                    at += k
                if result is not None and len(result.cells):
                    fresh = find_path(grid, tuple(path[at]), b, "astar").cost
                    over.append(path_cost(grid, result.cells) / fresh - 1.0)
                    how[result.how] = how.get(result.how, 0) + 1
                times.append(spent)
                grid.set_passable(block, True)
            rows.append({"K": k, "M": m, "ms_per_edit_median": float(np.median(times)),
                         "cost_over_optimum_mean_pct": 100 * float(np.mean(over)), "outcomes": how})
            print(rows[-1], flush=True)
    return rows


def structure_rows(grid) -> dict:
    gate = np.c_[np.arange(500, 506), np.full(6, 500)]
    gate = gate[grid.passable[gate[:, 1], gate[:, 0]]]
    table = JumpTable.build(grid)
    tiles = SectorGraph(grid, 16)
    hierarchy = Hierarchy.build(grid)
    grid.set_passable(gate, False)
    t_inc, _ = _ms(table.current)
    (free, _), wp = grid.padded()
    t_full, _ = _ms(lambda: build_table(free, wp, grid.height + 2))
    t_tiles, _ = _ms(lambda: tiles.update(gate))
    t_h, _ = _ms(lambda: hierarchy.update(gate))
    grid.set_passable(gate, True)
    return {"gate_cells": int(len(gate)), "jps_plus_update_ms": t_inc, "jps_plus_rebuild_ms": t_full,
            "sector_tiles_update_ms": t_tiles, "hierarchy_update_ms": t_h}


def gate_rows(grid, ticks_after: int = 6000, profile: bool = False, edit: bool = True) -> dict:
    """A gate closing across a walking crowd's way on ``grid`` (see the module docs); with
    ``edit=False`` the same run without the gate (the control: how high ticks go anyway)."""
    from rtsnav.systems.nav.crowd import Crowd, Mode, NavState

    crowd = Crowd(grid)
    planners = ["flowfield", "astar", "navmesh", "waypoints", "hierarchy"]
    crowd.prepare(planners)
    gc.collect()
    gc.freeze()                 # as a game does after loading (Navigation.prepare's freeze_gc)
    labels = grid.components()
    big = np.bincount(labels[labels >= 0]).argmax()
    rng = np.random.default_rng(3)
    cases = edits(grid, 1, seed=11)
    (a, b, path, _), = cases
    start_w, goal_w = grid.cell_to_world(*a)[:2], grid.cell_to_world(*b)[:2]
    spots = np.argwhere(labels == big)[:, ::-1]
    near = spots[np.hypot(*(spots - np.array(a)).T) < 8]
    group = crowd.add_agents(grid.cells_to_world(near[rng.choice(len(near), 50, replace=False)])[:, :2], group=1)
    crowd.move(group, goal_w, planner="flowfield")
    singles = {}
    for planner in planners[1:]:
        ids = crowd.add_agents(grid.cells_to_world(near[rng.choice(len(near), 10, replace=False)])[:, :2])
        crowd.move(ids, goal_w, planner=planner)
        singles[planner] = ids
    steady = []
    for _ in range(120):
        t, _ = _ms(lambda: crowd.update(1 / 20))
        steady.append(t)
    # a wall 12 cells wide across the path, 40 steps ahead of the start, kept off the goal
    c = path[min(len(path) - 1, 60)]
    d = path[min(len(path) - 1, 61)] - path[min(len(path) - 1, 59)]
    normal = np.array([-d[1], d[0]]) / max(1e-9, np.hypot(*d))
    wall = np.unique(np.round(c + np.outer(np.arange(-6, 7), normal)).astype(np.int64), axis=0)
    wall = wall[grid.passable[wall[:, 1], wall[:, 0]]]
    walking = np.concatenate(list(singles.values()))
    walking = walking[crowd.states[walking] == NavState.FOLLOWING]
    if profile:
        import cProfile

        pr = cProfile.Profile()
        pr.enable()
    ways = {i: crowd.path(i)[crowd.agents.path_index_of(i):] for i in walking.tolist()}
    t0 = time.perf_counter()
    if edit:
        grid.set_passable(wall, False)
        crowd.cells_changed(wall)
    crowd.update(1 / 20)
    if edit:             # the walkers whose way ahead the wall cut (the others may keep their paths)
        walking = np.array([i for i, way in ways.items() if not grid.segments_clear(way[:-1, :2], way[1:, :2]).all()],
                           dtype=np.int64)
    frame_ms = (time.perf_counter() - t0) * 1e3
    if profile:
        pr.disable()
        import pstats

        pstats.Stats(pr).sort_stats("cumtime").print_stats(20)
        grid.set_passable(wall, True)
        crowd.cells_changed(wall)
        crowd.update(1 / 20)
        pr = cProfile.Profile()
        pr.enable()
        grid.set_passable(wall, False)
        crowd.cells_changed(wall)
        crowd.update(1 / 20)
        pr.disable()
        pstats.Stats(pr).sort_stats("cumtime").print_stats(25)
    changed = set()
    after, rerouted_at, swapped, group_at = [], None, {}, None
    for tick in range(ticks_after):
        t, ev = _ms(lambda: crowd.update(1 / 20))
        after.append(t)
        changed |= set(ev.path_changed.tolist())
        queued = {key[1] for key in crowd.queue.keys() if key[0] == "agent"}
        if rerouted_at is None and set(walking.tolist()) <= changed | queued:
            rerouted_at = tick + 1
        orders = [o for o in crowd.groups.orders.values() if o.ready]
        if group_at is None and orders and not crowd.agents.mode[group].tolist().count(Mode.NONE):
            group_at = tick + 1                   # the group's order re-planned and every unit on it
        for kind in set(crowd.level.rebuilds.made) - set(crowd.level.rebuilds.in_flight) - set(swapped):
            swapped[kind] = (tick + 1, round(time.perf_counter() - t0, 2))
    base = float(np.median(steady))
    return {"wall_cells": int(len(wall)), "steady_median_ms": base, "edit_frame_ms": frame_ms,
            "edit_frame_over_steady_ms": frame_ms - base, "worst_after_over_steady_ms": float(max(after)) - base,
            "worst_after_at_tick": int(np.argmax(after)) + 1,
            "ticks_until_every_walking_single_replanned_or_queued": rerouted_at,
            "walkers_watched": int(len(walking)), "ticks_until_the_group_follows_its_new_plan": group_at, "structures_swapped_at_tick_and_s": swapped,
            "rebuild_errors": list(crowd.level.rebuilds.errors)}


def _gap(mine: float, fresh: float) -> float:
    if not (np.isfinite(mine) or np.isfinite(fresh)):
        return 0.0                                   # both say unreachable
    return abs(float(mine) - float(fresh))


def fresh_query_gaps(crowd, start_cell, goal_cell) -> dict:
    """Per planner, |cost on the crowd's current structures − cost on structures built fresh
    from the grid as it is now| for one query (0: the crowd answers as a fresh query would).
    Grid methods compare with ``find_path`` on a fresh copy of the grid; the sector tiles, the
    cost to go at the start."""
    from rtsnav.systems.nav import Grid, NavMesh, WaypointGraph, find_path
    from rtsnav.systems.nav.crowd.rebuild import waypoint_seed

    grid = crowd.grid
    copy = Grid(grid.passable.copy(), grid.cost.copy(), grid.heights, cell_size=grid.cell_size, origin=grid.origin)
    a, b = grid.cell_to_world(*start_cell), grid.cell_to_world(*goal_cell)
    gaps = {}
    for method in ("astar", "jps", "jps+", "bidirectional"):
        gaps[method] = _gap(find_path(grid, start_cell, goal_cell, method).cost,
                            find_path(copy, start_cell, goal_cell, method).cost)
    gaps["hierarchy"] = _gap(crowd.level.hierarchy().find_path(start_cell, goal_cell).cost,
                             Hierarchy.build(copy).find_path(start_cell, goal_cell).cost)
    mesh = crowd.level.navmesh()
    k = max(1, round(grid.cell_size / mesh.config.cell_size))
    fresh_mesh = NavMesh.from_grid(copy, mesh.config.agent_radius, subdivide=k)
    gaps["navmesh"] = _gap(mesh.find_path(a, b).cost, fresh_mesh.find_path(a, b).cost)
    graph = WaypointGraph.floodfill(copy, waypoint_seed(copy), spacing=4)
    gaps["waypoints"] = _gap(crowd.level.waypoints().find_path(a, b).cost, graph.find_path(a, b).cost)
    point = np.array([a[:2]])
    mine, fresh = crowd.level.sector_graph().order(goal_cell), SectorGraph(copy, crowd.config.sector_size).order(goal_cell)
    mine.sample(point)
    fresh.sample(point)
    x, y = start_cell
    gaps["tiles"] = _gap(float(mine.built_cost_map()[y, x]), float(fresh.built_cost_map()[y, x]))
    return gaps


def replan_rows(grid, edits_count: int = 10, min_length: int = 200) -> dict:
    """Random 3×3 blocks dropped on followed paths (``edits``) of ``grid``, each announced with
    ``cells_changed`` and its rebuilds waited for: per planner the largest gap between the crowd's
    query cost and a fresh structure's (see ``fresh_query_gaps``)."""
    from rtsnav.systems.nav.crowd import Crowd

    crowd = Crowd(grid)
    crowd.prepare(["astar", "jps+", "hierarchy", "navmesh", "waypoints", "flowfield"])
    worst: dict[str, float] = {}
    for a, b, path, block in edits(grid, edits_count, seed=5, min_length=min_length):
        grid.set_passable(block, False)
        crowd.cells_changed(block)
        crowd.finish_rebuilds()
        start = tuple(int(v) for v in path[10])
        for method, gap in fresh_query_gaps(crowd, start, b).items():
            worst[method] = max(worst.get(method, 0.0), gap)
    return {"map": grid.name, "edits": edits_count, "largest_cost_gap_per_planner": worst}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    grid = scaled_cape(1024)
    cases = edits(grid, args.edits)
    small = edits(grid, 2, seed=9)
    dstar_rows(grid, small)                                       # compile
    report = {"map": grid.name, "dstar_lite": dstar_rows(grid, cases)}
    print(report["dstar_lite"], flush=True)
    report["splice"] = splice_rows(grid, cases)
    report["structures"] = structure_rows(grid)
    print(report["structures"])
    report["gate_in_game"] = gate_rows(scaled_cape(1024))
    print(report["gate_in_game"], flush=True)
    report["gate_in_game_control"] = gate_rows(scaled_cape(1024), edit=False)
    print(report["gate_in_game_control"], flush=True)
    from rtsnav.levels import load_level

    report["replan_equals_fresh"] = replan_rows(load_level("highlands").grid)
    print(report["replan_equals_fresh"], flush=True)
    save_json(args.json, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
