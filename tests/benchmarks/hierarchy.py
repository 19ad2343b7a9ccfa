"""Hierarchy benchmark: build time, memory, per-query time and path quality, next to rtsnav's
flat A* and tcod's exact graph on the same queries, in the same run.

    python tests/benchmarks/hierarchy.py [--json out.json] [--maps AcrosstheCape.map,...]

Queries: AcrosstheCape's long-path buckets (the top fifth), and seeded random pairs on other
maps (optimum from rtsnav's exact A*). Two timings:
  * sequential (the headline, as in grid_search.py): each library answers all queries in a row;
  * interleaved: the three answer each query in turn, so each starts with caches the others
    just filled — closer to a game, where a query runs between frames of other work.
Suboptimality is the hierarchy's smoothed path cost over the grid optimum (negative: any-angle
smoothing beat the 8-connected optimum).
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
from rtsnav.systems.nav import find_path, warm_up  # noqa: E402
from rtsnav.systems.nav.waypoints.hierarchy import Hierarchy  # noqa: E402
from tests.benchmarks.grid_search import tcod_exact_query, tcod_exact_setup  # noqa: E402
from tests.benchmarks.report import save_json  # noqa: E402


def queries_for(name: str, grid, count: int):
    scen = ROOT / "levels" / "maps" / (name + ".scen")
    if scen.exists():
        scens = [s for s in load_movingai_scenarios(scen) if s.optimal > 0]
        top = max(s.bucket for s in scens)
        long = [s for s in scens if s.bucket >= 0.8 * top]
        picks = np.linspace(0, len(long) - 1, min(count, len(long))).round().astype(int)
        return [(long[i].start, long[i].goal, long[i].optimal) for i in picks], "long-path buckets"
    rng = np.random.default_rng(5)
    cells = np.argwhere(grid.passable)[:, ::-1]
    out = []
    while len(out) < count:
        s, t = (tuple(int(v) for v in cells[i]) for i in rng.integers(0, len(cells), 2))
        r = find_path(grid, s, t)
        if r.found and r.cost > 0.25 * max(grid.shape):
            out.append((s, t, r.cost))
    return out, "seeded random pairs, optimum from exact A*"


def bench(name: str, count: int) -> dict:
    grid = load_movingai_map(name)
    t = time.perf_counter()
    h = Hierarchy.build(grid)
    build_s = time.perf_counter() - t
    graph = tcod_exact_setup(grid)
    queries, label = queries_for(name, grid, count)
    h.find_path(queries[0][0], queries[0][1])
    # sequential
    hier, flat, tcod, sub = [], [], [], []
    for s, g, best in queries:
        t = time.perf_counter()
        r = h.find_path(s, g)
        hier.append(time.perf_counter() - t)
        sub.append(r.cost / best - 1.0)
    for s, g, best in queries:
        t = time.perf_counter()
        find_path(grid, s, g)
        flat.append(time.perf_counter() - t)
    for s, g, best in queries:
        t = time.perf_counter()
        tcod_exact_query(graph, s, g)
        tcod.append(time.perf_counter() - t)
    # interleaved
    hier_i, flat_i = [], []
    for s, g, best in queries:
        t = time.perf_counter()
        h.find_path(s, g)
        hier_i.append(time.perf_counter() - t)
        t = time.perf_counter()
        find_path(grid, s, g)
        flat_i.append(time.perf_counter() - t)
        tcod_exact_query(graph, s, g)
    ms = lambda a: np.array(a) * 1e3  # noqa: E731
    return {
        "map": grid.name, "size": f"{grid.width}x{grid.height}", "queries": len(queries), "kind": label,
        "build_s": round(build_s, 3), "levels": h.levels, "cluster_sizes": h.sizes,
        "waypoints": h.node_count, "edges_per_level": h.edge_counts(), "memory_mb": round(h.memory_bytes() / 1e6, 2),
        "hierarchy_median_ms": float(np.median(ms(hier))), "hierarchy_p95_ms": float(np.percentile(ms(hier), 95)),
        "flat_astar_median_ms": float(np.median(ms(flat))), "tcod_exact_median_ms": float(np.median(ms(tcod))),
        "speedup_vs_flat_astar": float(np.median(ms(flat)) / np.median(ms(hier))),
        "speedup_vs_tcod": float(np.median(ms(tcod)) / np.median(ms(hier))),
        "suboptimality_mean": float(np.mean(sub)), "suboptimality_max": float(np.max(sub)),
        "interleaved_hierarchy_median_ms": float(np.median(ms(hier_i))),
        "interleaved_flat_astar_median_ms": float(np.median(ms(flat_i))),
        "interleaved_speedup_vs_flat_astar": float(np.median(ms(flat_i)) / np.median(ms(hier_i))),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--maps", default="AcrosstheCape.map,w_woundedcoast.map,brc202d.map")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    warm_up()
    rows = [bench(m, args.queries) for m in args.maps.split(",")]
    head = (f"{'map':<20}{'n':>4}{'build s':>9}{'MB':>6}{'hier ms':>9}{'p95':>7}{'flat A*':>9}{'tcod':>8}"
            f"{'vs A*':>7}{'vs tcod':>8}{'subopt mean':>13}{'max':>8}")
    print(head)
    print("-" * len(head))
    for r in rows:
        print(f"{r['map']:<20}{r['queries']:>4}{r['build_s']:>9.2f}{r['memory_mb']:>6.1f}{r['hierarchy_median_ms']:>9.2f}"
              f"{r['hierarchy_p95_ms']:>7.2f}{r['flat_astar_median_ms']:>9.2f}{r['tcod_exact_median_ms']:>8.2f}"
              f"{r['speedup_vs_flat_astar']:>6.1f}x{r['speedup_vs_tcod']:>7.1f}x"
              f"{100 * r['suboptimality_mean']:>12.2f}%{100 * r['suboptimality_max']:>7.2f}%")
    print("\ninterleaved (cold caches):")
    for r in rows:
        print(f"  {r['map']:<20} hierarchy {r['interleaved_hierarchy_median_ms']:.2f} ms, flat A* "
              f"{r['interleaved_flat_astar_median_ms']:.2f} ms -> {r['interleaved_speedup_vs_flat_astar']:.1f}x")
    save_json(args.json, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
