"""Goal Bounding beyond 65,536 cells: bake on a 1024² map, then JPS+ and A* with and without it.

    python tests/benchmarks/goal_bounds_big.py [--json out.json] [--queries 300] [--cache DIR]

The map is brc202d scaled ×2 into a 1024² frame (172,604 open cells, 2.6× the in-process limit).
The bake runs in chunks on a Dask ``LocalCluster`` of this machine's cores when Dask is installed
(``rtsnav[bake]``), else in local processes; it is cached in ``--cache`` and resumable (kill it
and run again: it continues from the chunks on disk). Reported: bake time (or load time when
cached), memory, a bit-for-bit check of 256 random cells' boxes against the in-process kernel,
and per-query medians of A* and JPS+ with and without the bounds on long random queries of the
largest region (every cost checked equal). Target (issue 42): JPS+ with bounds ≥ 3× JPS+ alone.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from rtsnav.systems.nav import find_path  # noqa: E402
from rtsnav.systems.nav.search.goal_bounds import GoalBounds  # noqa: E402
from rtsnav.systems.nav.search.goal_bounds_bake import build_rows, empty_rows, row_blocks  # noqa: E402
from tests.benchmarks.busy_cores import map_1024  # noqa: E402
from tests.benchmarks.report import save_json  # noqa: E402


def long_queries(grid, count: int, seed: int = 7, min_octile: float = 400.0) -> list[tuple]:
    """``count`` start/goal pairs in the largest region at least ``min_octile`` apart."""
    labels = grid.components()
    big = np.bincount(labels[labels >= 0]).argmax()
    cells = np.argwhere(labels == big)[:, ::-1]
    rng = np.random.default_rng(seed)
    out: list[tuple] = []
    while len(out) < count:
        a, b = cells[rng.integers(len(cells), size=2)]
        dx, dy = abs(int(a[0]) - int(b[0])), abs(int(a[1]) - int(b[1]))
        if max(dx, dy) + 0.41421356 * min(dx, dy) >= min_octile:
            out.append(((int(a[0]), int(a[1])), (int(b[0]), int(b[1]))))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--cache", type=Path, default=Path("bench-results/cache"))
    args = ap.parse_args(argv)
    grid = map_1024()
    cells = int(grid.passable.sum())
    print(f"{grid.name}: {grid.width}x{grid.height}, {cells:,} open cells; {GoalBounds.estimate(grid)}")
    args.cache.mkdir(parents=True, exist_ok=True)
    stamp = args.cache / "goal_bounds_big.bake.json"
    bars: dict[str, tqdm] = {}

    def progress(stage: str, done: int, total: int) -> None:
        bar = bars.setdefault(stage, tqdm(total=total, desc=f"goal bounds: {stage}", unit="cell"))
        bar.n = done
        bar.refresh()

    t = time.perf_counter()
    bounds = GoalBounds.cached(grid, args.cache, progress)
    took = time.perf_counter() - t
    for bar in bars.values():
        bar.close()
    if GoalBounds.last_build_s > 0:                 # baked now (perhaps resumed): remember how long
        stamp.write_text(json.dumps({"bake_s": round(GoalBounds.last_build_s, 1)}))
        bake = {"bake_s": round(GoalBounds.last_build_s, 1), "loaded": False}
    else:
        earlier = json.loads(stamp.read_text()) if stamp.exists() else {}
        bake = {"bake_s": earlier.get("bake_s"), "load_s": round(took, 2), "loaded": True}

    rng = np.random.default_rng(3)
    (free, _), _ = grid.padded()
    sources = np.sort(rng.choice(np.flatnonzero(free), 256, replace=False)).astype(np.int64)
    rows = empty_rows(len(sources))
    import numba

    numba.set_num_threads(1)                    # the per-cell cost of one core
    t = time.perf_counter()
    build_rows(grid.move_masks(), grid.width + 2, sources, rows, row_blocks(len(sources)))
    ns_per_pair = (time.perf_counter() - t) / len(sources) / cells * 1e9
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    bit_equal = bool(np.array_equal(rows, bounds.boxes[sources]))
    projection = {f"{cores} cores": f"{cells * cells * ns_per_pair * 1e-9 / cores / 60:.1f} min"
                  for cores in (2, 64)}
    projection_754k = {f"{cores} cores": f"{754_304 ** 2 * ns_per_pair * 1e-9 / cores / 3600:.1f} h"
                       for cores in (2, 64)}

    queries = long_queries(grid, args.queries)
    variants = [("astar", None), ("astar", bounds), ("jps+", None), ("jps+", bounds)]
    for method, b in variants:                       # warm: kernels, the JPS+ table
        find_path(grid, *queries[0], method, goal_bounds=b)
    times: dict[str, list[float]] = {f"{m}{' + bounds' if b is not None else ''}": [] for m, b in variants}
    costs_equal = True
    for s, g in queries:
        costs = []
        for (method, b), name in zip(variants, times):      # alternate A and B within each query
            t = time.perf_counter()
            r = find_path(grid, s, g, method, goal_bounds=b)
            times[name].append(time.perf_counter() - t)
            costs.append(r.cost)
        costs_equal &= bool(np.allclose(costs, costs[0], rtol=1e-9))
    medians = {name: float(np.median(v)) * 1e6 for name, v in times.items()}
    speedup = {"astar": medians["astar"] / medians["astar + bounds"],
               "jps+": medians["jps+"] / medians["jps+ + bounds"]}
    print(f"\nbake: {bake}; memory {bounds.memory_bytes / 1e6:.0f} MB "
          f"({bounds.memory_bytes / (grid.width + 2) / (grid.height + 2):.0f} B per padded cell); "
          f"256 random cells' boxes equal to the in-process kernel: {bit_equal}")
    print(f"per-cell cost: {ns_per_pair:.0f} ns per (source, cell) pair on one core, i.e. "
          f"{ns_per_pair * cells * 1e-6:.1f} ms per cell; this map: {projection}; "
          f"a 1024² map of 754,304 open cells: {projection_754k}")
    print(f"{'method':<16}{'median µs':>12}")
    for name, us in medians.items():
        print(f"{name:<16}{us:>12.1f}")
    print(f"speed-up with bounds: A* {speedup['astar']:.2f}×, JPS+ {speedup['jps+']:.2f}× "
          f"(target JPS+ ≥ 3×); every cost equal: {costs_equal}")
    save_json(args.json, {
        "map": grid.name, "size": f"{grid.width}x{grid.height}", "open_cells": cells, "bake": bake,
        "memory_mb": round(bounds.memory_bytes / 1e6, 1), "bit_equal_sample": bit_equal, "queries": len(queries),
        "ns_per_pair_one_core": round(ns_per_pair, 1), "projection": projection,
        "projection_754k_cells": projection_754k,
        "median_us": {k: round(v, 1) for k, v in medians.items()},
        "speedup": {k: round(v, 2) for k, v in speedup.items()}, "costs_equal": costs_equal})
    return 0 if bit_equal and costs_equal else 1


if __name__ == "__main__":
    raise SystemExit(main())
