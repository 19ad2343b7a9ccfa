"""Headless demonstration: solve every Moving AI scenario of a benchmark map and print a table.

    python -m systems.demo [--map AcrosstheCape.map] [--sample 300]

Every scenario is solved with A*; a stratified sample with every other method. Each result is
checked against the benchmark's optimal length (within the 6 significant digits the file prints).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from levels import load_movingai_map, load_movingai_scenarios
from systems.nav import METHODS, find_path, smooth_path, path_length, warm_up


def _row(label, n, exact, ms, expanded, extra=""):
    return f"{label:<16}{n:>7}{exact:>9.1f}{np.median(ms):>11.2f}{np.percentile(ms, 95):>9.2f}{np.median(expanded):>11.0f}  {extra}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--map", default="AcrosstheCape.map", help="a .map with a .map.scen beside it")
    ap.add_argument("--sample", type=int, default=300, help="scenarios for the slower methods")
    args = ap.parse_args(argv)

    t = time.perf_counter()
    warm_up()
    jit = time.perf_counter() - t
    grid = load_movingai_map(args.map)
    scens = load_movingai_scenarios(args.map + ".scen")
    print(f"{grid!r}: {len(scens)} scenarios; kernels ready in {jit:.2f} s")
    ordered = sorted(scens, key=lambda s: s.bucket)
    sample = [ordered[i] for i in np.linspace(0, len(ordered) - 1, min(args.sample, len(ordered))).round().astype(int)]

    print(f"\n{'method':<16}{'queries':>7}{'exact %':>9}{'median ms':>11}{'p95 ms':>9}{'expanded':>11}")
    for method in METHODS:
        todo = scens if method == "astar" else sample
        ms, expanded, good, shorter = [], [], 0, []
        for s in todo:
            t = time.perf_counter()
            r = find_path(grid, s.start, s.goal, method=method)
            ms.append((time.perf_counter() - t) * 1e3)
            expanded.append(r.expanded)
            if s.optimal == 0 and s.start != s.goal:
                good += not r.found
                continue
            tol = max(1e-3, 6e-6 * s.optimal)
            ok = r.found and (r.cost <= 1.5 * s.optimal + tol if method == "weighted" else abs(r.cost - s.optimal) <= tol)
            good += ok
            if method == "astar" and r.found and len(r.cells) > 1:
                shorter.append(path_length(smooth_path(grid, r.cells)) / r.cost)
        label = "within 1.5x %" if method == "weighted" else ""
        extra = f"smoothing: {100 * (1 - np.mean(shorter)):.1f}% shorter on average" if shorter else label
        print(_row(method, len(todo), 100.0 * good / len(todo), ms, expanded, extra))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
