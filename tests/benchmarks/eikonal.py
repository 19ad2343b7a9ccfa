"""Eikonal integration against scikit-fmm (first order), same maps, same run.

    python tests/benchmarks/eikonal.py [--json out.json]

Maps: AcrosstheCape scaled to 1024² (uniform speed) and the same with a terrain-speed band (cost
3 = speed 1/3 over a third of the map). Times are medians of 5 runs; the error is the largest
relative difference of travel times at cells at least 5 from the source (rtsnav's goal costs 0,
scikit-fmm's its distance to the zero contour: that offset is added back).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from rtsnav.systems.nav import Grid  # noqa: E402
from rtsnav.systems.nav.flow import FlowField  # noqa: E402
from tests.benchmarks.grid_search import scaled_cape  # noqa: E402
from tests.benchmarks.report import save_json  # noqa: E402


def _median_ms(fn, runs: int = 5):
    out, ts = None, []
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts) * 1e3), out


def row(grid: Grid, label: str) -> dict:
    import skfmm

    labels = grid.components()
    ys, xs = np.nonzero(labels == np.bincount(labels[labels >= 0]).argmax())
    gx, gy = int(xs[len(xs) // 2]), int(ys[len(ys) // 2])
    FlowField.build(grid, [(gx, gy)], integration="eikonal", los_radius=0)            # compile
    ours_ms, field = _median_ms(lambda: FlowField.build(grid, [(gx, gy)], integration="eikonal", los_radius=0))
    dijkstra_ms, _ = _median_ms(lambda: FlowField.build(grid, [(gx, gy)], los_radius=0))
    phi = np.ones(grid.shape)
    phi[gy, gx] = -1
    masked = np.ma.MaskedArray(phi, ~grid.passable)
    speed = 1.0 / grid.cost
    ref_ms, ref = _median_ms(lambda: skfmm.travel_time(masked, speed, dx=1.0, order=1), 3)
    ref = np.abs(np.ma.filled(ref, np.inf))
    ours = field.integration.astype(np.float64) + np.sqrt(2) / 4 * grid.cost[gy, gx]
    yy, xx = np.mgrid[0:grid.height, 0:grid.width]
    far = (np.hypot(xx - gx, yy - gy) >= 5) & np.isfinite(ref) & np.isfinite(ours)
    err = float((np.abs(ours[far] - ref[far]) / ref[far]).max())
    out = {"map": label, "eikonal_field_ms": ours_ms, "dijkstra_field_ms": dijkstra_ms, "scikit_fmm_ms": ref_ms,
           "ratio_to_scikit_fmm": ours_ms / ref_ms, "max_relative_error": err}
    print(out, flush=True)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    cape = scaled_cape(1024)
    cost = np.ones(cape.shape)
    cost[:, 300:650] = 3.0
    rows = [row(cape, "AcrosstheCape 1024²"),
            row(Grid(cape.passable, cost, name="with a speed band"), "AcrosstheCape 1024², speed band")]
    save_json(args.json, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
