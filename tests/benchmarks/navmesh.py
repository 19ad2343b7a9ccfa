"""Navmesh benchmark: bake time, polygon count, query median/p95 on AcrosstheCape long-path
scenarios, next to rtsnav's grid A* and the exact any-angle length, in the same run; then short
and long queries on 1024² maps made from maps nobody tuned for (``big_maps``), against grid A*
on the same pairs, each navmesh query followed by its grid A* one (so neither finds the caches
as the other left them warm).

    python tests/benchmarks/navmesh.py [--queries 60] [--held-out-only] [--json out.json]

Issue 5's target: navmesh query median ≥ 10× faster than grid A* on the same pairs, with
shorter paths.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from rtsnav.levels import load_movingai_map, load_movingai_scenarios  # noqa: E402
from rtsnav.systems.nav import NavMesh, find_path, warm_up  # noqa: E402
from tests.benchmarks.report import save_json  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--held-out-only", action="store_true", help="only the held-out 1024² maps")
    args = ap.parse_args(argv)
    warm_up()
    if args.held_out_only:
        save_json(args.json, {"held_out": held_out_maps()})
        return 0
    from tests.systems.nav.anyangle import AnyAngle

    grid = load_movingai_map("AcrosstheCape.map")
    NavMesh.from_grid(load_movingai_map("arena.map"))            # compile
    t = time.perf_counter()
    mesh = NavMesh.from_grid(grid, agent_radius=0.0)
    bake = time.perf_counter() - t
    import tempfile

    with tempfile.TemporaryDirectory() as cache:
        NavMesh.cached(grid, cache, agent_radius=0.0)
        t = time.perf_counter()
        again = NavMesh.cached(grid, cache, agent_radius=0.0)
        again.find_path((300.5, 300.5, 0.0), (301.5, 300.5, 0.0))      # ready to answer: lazy tables built
        reload_s = time.perf_counter() - t
    scens = [s for s in load_movingai_scenarios("AcrosstheCape.map.scen") if s.bucket >= 236]
    picks = np.linspace(0, len(scens) - 1, min(args.queries, len(scens))).round().astype(int)
    queries = [scens[i] for i in picks]
    t = time.perf_counter()
    reference = AnyAngle(grid.passable)
    ref_s = time.perf_counter() - t
    q0 = queries[0]
    mesh.find_path((q0.start[0] + .5, q0.start[1] + .5, 0), (q0.goal[0] + .5, q0.goal[1] + .5, 0))
    mesh_ms, grid_ms, vs_grid, vs_best = [], [], [], []
    for s in queries:
        a, b = (s.start[0] + .5, s.start[1] + .5, 0.0), (s.goal[0] + .5, s.goal[1] + .5, 0.0)
        t = time.perf_counter()
        r = mesh.find_path(a, b)
        mesh_ms.append((time.perf_counter() - t) * 1e3)
        t = time.perf_counter()
        gpath = find_path(grid, s.start, s.goal)
        grid_ms.append((time.perf_counter() - t) * 1e3)
        vs_grid.append(r.cost / gpath.cost)
        vs_best.append(r.cost / reference.shortest(a, b))
    row = {"map": grid.name, "queries": len(queries), "bake_s": round(bake, 3), "cache_reload_s": round(reload_s, 3),
           "polygons": mesh.polygon_count, "visibility_edges": int(mesh.vis_start[-1]),
           "landmarks": int(mesh.landmarks.shape[1]),
           "walkable_cells": int(mesh.walkable.sum()),
           "navmesh_median_ms": float(np.median(mesh_ms)), "navmesh_p95_ms": float(np.percentile(mesh_ms, 95)),
           "grid_astar_median_ms": float(np.median(grid_ms)),
           "speedup_vs_grid_astar": float(np.median(grid_ms) / np.median(mesh_ms)),
           "length_vs_grid_path": float(np.mean(vs_grid)), "length_vs_any_angle_optimum_mean": float(np.mean(vs_best)),
           "length_vs_any_angle_optimum_max": float(np.max(vs_best)), "reference_build_s": round(ref_s, 2)}
    print(f"{row['map']}: bake {row['bake_s']:.2f} s, cache reload {row['cache_reload_s']:.2f} s, {row['polygons']} polygons for {row['walkable_cells']} cells "
          f"({row['walkable_cells'] / row['polygons']:.0f}x fewer)")
    print(f"  navmesh query median {row['navmesh_median_ms']:.2f} ms (p95 {row['navmesh_p95_ms']:.2f}), grid A* "
          f"{row['grid_astar_median_ms']:.2f} ms -> {row['speedup_vs_grid_astar']:.2f}x")
    print(f"  path length: {100 * (row['length_vs_grid_path'] - 1):+.1f}% vs the grid path, "
          f"{100 * (row['length_vs_any_angle_optimum_mean'] - 1):+.2f}% mean / "
          f"{100 * (row['length_vs_any_angle_optimum_max'] - 1):+.2f}% worst vs the any-angle optimum")
    row["goal_bounds"] = bounded_queries(mesh, queries)
    row["short"] = [short_queries(mesh, grid, "AcrosstheCape.map.scen")]
    den = load_movingai_map("den520d.map")
    row["short"].append(short_queries(NavMesh.from_grid(den, agent_radius=0.0), den, None))
    row["held_out"] = held_out_maps()
    save_json(args.json, row)
    return 0


def bounded_queries(mesh, queries) -> dict:
    """The same long queries with and without goal bounds on the visibility graph (built here,
    one Dijkstra per convex corner): time, corners searched, and that no cost changes."""
    from rtsnav.systems.nav.navmesh.mesh_bounds import MeshGoalBounds

    t = time.perf_counter()
    bounds = MeshGoalBounds.build(mesh)
    build_s = time.perf_counter() - t
    stats = mesh.query_tables().scratch.stats
    runs = {}
    for use in (False, True):
        mesh.goal_bounds = bounds if use else None
        ms, searched, costs = [], [], []
        for rep in range(2):                        # the first pass warms the caches alike
            for s in queries:
                a, b = (s.start[0] + .5, s.start[1] + .5, 0.0), (s.goal[0] + .5, s.goal[1] + .5, 0.0)
                before = stats[1]
                t = time.perf_counter()
                r = mesh.find_path(a, b)
                if rep:
                    ms.append((time.perf_counter() - t) * 1e3)
                    searched.append(int(stats[1] - before))
                    costs.append(r.cost)
        runs[use] = (ms, searched, costs)
    mesh.goal_bounds = None
    out = {"build_s": round(build_s, 2), "memory_mb": round(bounds.memory_bytes / 1e6, 2),
           "corners": int(len(mesh.query_tables().corner_ids)),
           "median_ms": float(np.median(runs[False][0])), "bounded_median_ms": float(np.median(runs[True][0])),
           "searched_median": float(np.median(runs[False][1])), "bounded_searched_median": float(np.median(runs[True][1])),
           "largest_cost_change": float(np.max(np.abs(np.subtract(runs[True][2], runs[False][2]))))}
    print(f"  goal bounds ({out['corners']} corners, built in {out['build_s']:.1f} s, {out['memory_mb']:.1f} MB): "
          f"median {out['median_ms']:.3f} -> {out['bounded_median_ms']:.3f} ms, corners searched "
          f"{out['searched_median']:.0f} -> {out['bounded_searched_median']:.0f}, "
          f"largest cost change {out['largest_cost_change']:.1e}")
    return out


def short_queries(mesh, grid, scen: str | None, count: int = 300) -> dict:
    """Short queries (scenario buckets 0-2, under 12 cells; or seeded pairs within 8 cells):
    navmesh median against grid A* in the same run, and the share answered by the cheap exit."""
    if scen is not None:
        pairs = [(s.start, s.goal) for s in load_movingai_scenarios(scen) if s.bucket <= 2 and s.optimal > 0][:count]
    else:
        from tests.benchmarks.big_maps import short_pairs

        pairs = short_pairs(grid, count)
    a0, b0 = pairs[0]
    mesh.find_path((a0[0] + .5, a0[1] + .5, 0), (b0[0] + .5, b0[1] + .5, 0))
    find_path(grid, a0, b0)
    before = dict(mesh.query_counts)
    mesh_ms, grid_ms = [], []
    for a, b in pairs:
        t = time.perf_counter()
        mesh.find_path((a[0] + .5, a[1] + .5, 0.0), (b[0] + .5, b[1] + .5, 0.0))
        mesh_ms.append((time.perf_counter() - t) * 1e3)
        t = time.perf_counter()
        find_path(grid, a, b)
        grid_ms.append((time.perf_counter() - t) * 1e3)
    direct = mesh.query_counts["direct"] - before["direct"]
    out = {"map": grid.name, "queries": len(pairs), "navmesh_median_ms": float(np.median(mesh_ms)),
           "grid_astar_median_ms": float(np.median(grid_ms)), "navmesh_p95_ms": float(np.percentile(mesh_ms, 95)),
           "direct_share": direct / len(pairs)}
    print(f"  short queries on {grid.name}: navmesh median {out['navmesh_median_ms'] * 1e3:.0f} µs "
          f"(p95 {out['navmesh_p95_ms'] * 1e3:.0f}), grid A* {out['grid_astar_median_ms'] * 1e3:.0f} µs; "
          f"{100 * out['direct_share']:.0f}% in plain sight")
    return out


def held_out_maps() -> list[dict]:
    """Short (within 8 cells) and long queries on 1024² maps made from held-out maps, navmesh
    (default agent radius 0.5, and 0) against grid A* on the same cell pairs."""
    from tests.benchmarks.big_maps import joined, long_pairs, scaled, short_pairs

    rows = []
    grids = [scaled(n) for n in ("brc202d.map", "den520d.map", "lak303d.map", "w_woundedcoast.map")]
    grids += [joined(n) for n in ("den520d.map", "brc202d.map")]
    for grid in grids:
        for radius in (0.5, 0.0):
            t = time.perf_counter()
            mesh = NavMesh.from_grid(grid, agent_radius=radius)
            row = {"map": grid.name, "agent_radius": radius, "bake_s": round(time.perf_counter() - t, 2),
                   "polygons": mesh.polygon_count}
            for label, pairs in (("short", short_pairs(grid)), ("long", long_pairs(grid))):
                mesh_us, grid_us = [], []
                for rep in range(2):                       # the first pass warms up alike
                    for a, b in pairs:
                        t = time.perf_counter()
                        mesh.find_path((a[0] + .5, a[1] + .5, 0.0), (b[0] + .5, b[1] + .5, 0.0))
                        t2 = time.perf_counter()
                        find_path(grid, a, b)
                        t3 = time.perf_counter()
                        if rep:
                            mesh_us.append((t2 - t) * 1e6)
                            grid_us.append((t3 - t2) * 1e6)
                row[f"{label}_navmesh_median_us"] = float(np.median(mesh_us))
                row[f"{label}_grid_astar_median_us"] = float(np.median(grid_us))
                row[f"{label}_speedup"] = float(np.median(grid_us) / np.median(mesh_us))
            print(f"  {grid.name}, radius {radius}: bake {row['bake_s']} s, {row['polygons']} polygons; short "
                  f"{row['short_navmesh_median_us']:.0f} vs A* {row['short_grid_astar_median_us']:.0f} µs "
                  f"({row['short_speedup']:.2f}x); long {row['long_navmesh_median_us']:.0f} vs A* "
                  f"{row['long_grid_astar_median_us']:.0f} µs ({row['long_speedup']:.1f}x)", flush=True)
            rows.append(row)
    return rows


if __name__ == "__main__":
    raise SystemExit(main())
