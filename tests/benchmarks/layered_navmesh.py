"""Stacked surfaces (issue 41): the layered bake and its queries against the single-surface bake
of the same number of triangles, A and B alternated in one run. Prints a table, writes JSON.

    python tests/benchmarks/layered_navmesh.py [--json out.json] [--repeats 7]

Bakes: each layered scene (an overpass, a three-turn spiral ramp, stairs under an upper floor)
baked with every surface kept, against a one-layer soup with the same triangles laid side by side
instead of stacked (``unstacked``: the same walkable area and triangle count) baked both ways — the single-surface ``NavMesh`` (``layers="top"``, which also bakes the exact query
layer) and the layered bake. Target: layered bake of the stacked soup ≤ 2 × the one-layer bake.
Queries: the overpass's layered mesh against the single-surface mesh of the same soup (top
surface only) on queries both can answer (ground to deck over a ramp, ground to ground beside
the bridge), and the layered-only ones (along the road under the deck).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from rtsnav.systems.nav import NavMesh  # noqa: E402
from tests.benchmarks.report import save_json  # noqa: E402
from tests.systems.nav import layered_scenes as scenes  # noqa: E402

RADIUS = 0.3
CELL = 0.1


def timed(fn, repeats: int) -> float:
    """Median seconds of ``fn`` over ``repeats`` calls (after one warm call)."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def unstacked(v: np.ndarray, t: np.ndarray, band: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The same triangles laid out on one layer: each moved sideways by its height band (the
    centroid's z in steps of ``band``) times the footprint's width plus a gap, so no triangle
    lies over another — the same walkable area and triangle count, without stacking."""
    width = float(v[:, 0].max() - v[:, 0].min()) + 4.0
    corners = v[t]                                             # (T, 3, 3): a soup of its own
    bands = np.floor(corners[:, :, 2].mean(axis=1) / band)
    corners[:, :, 0] += (bands * width)[:, None]
    return corners.reshape(-1, 3), np.arange(3 * len(t)).reshape(-1, 3)


def bakes(repeats: int) -> list[dict]:
    rows = []
    for name, (v, t) in (("overpass", scenes.overpass()), ("spiral", scenes.spiral()), ("stairs", scenes.stairs())):
        flat, flat_t = unstacked(v, t)
        cases = {"layered (stacked soup)": lambda v=v, t=t: NavMesh.from_triangles(v, t, cell_size=CELL,
                                                                                  agent_radius=RADIUS, layers="all"),
                 "layered (one layer)": lambda f=flat, t=flat_t: NavMesh.from_triangles(
                     f, t, cell_size=CELL, agent_radius=RADIUS, layers="all"),
                 "single-surface NavMesh (one layer)": lambda f=flat, t=flat_t: NavMesh.from_triangles(
                     f, t, cell_size=CELL, agent_radius=RADIUS, layers="top")}
        times = {k: [] for k in cases}
        for fn in cases.values():
            fn()
        for _ in range(repeats):                                   # A, B, C alternated
            for k, fn in cases.items():
                t0 = time.perf_counter()
                fn()
                times[k].append(time.perf_counter() - t0)
        med = {k: statistics.median(x) for k, x in times.items()}
        spans = NavMesh.from_triangles(v, t, cell_size=CELL, agent_radius=RADIUS, layers="all")
        rows.append({"scene": name, "triangles": len(t), "layers": spans.layer_count, "spans": spans.span_count,
                     **{f"{k} ms": round(x * 1e3, 2) for k, x in med.items()},
                     "stacked / one-layer single-surface": round(med["layered (stacked soup)"]
                                                                 / med["single-surface NavMesh (one layer)"], 3),
                     "stacked / one-layer layered": round(med["layered (stacked soup)"] / med["layered (one layer)"], 3)})
    return rows


def queries(repeats: int) -> list[dict]:
    v, t = scenes.overpass()
    layered = NavMesh.from_triangles(v, t, cell_size=CELL, agent_radius=RADIUS)
    single = NavMesh.from_triangles(v, t, cell_size=CELL, agent_radius=RADIUS, layers="top")
    cases = [("ground -> deck over the south ramp", (38.0, -32.0, 0.0), (42.0, 4.0, 4.0), True),
             ("ground -> ground beside the bridge", (5.0, -30.0, 0.0), (75.0, 40.0, 0.0), True),
             ("short hop on the ground", (10.0, 20.0, 0.0), (14.0, 23.0, 0.0), True),
             ("round the foot of a ramp (a searched path)", (30.0, -20.0, 0.0), (50.0, -20.0, 0.0), True),
             ("along the road under the deck", (2.0, 4.0, 0.0), (78.0, 4.0, 0.0), False)]
    rows = []
    for label, a, b, both in cases:
        ra = layered.find_path(a, b)
        row = {"query": label, "layered µs": round(timed(lambda: layered.find_path(a, b), repeats) * 1e6, 1),
               "layered cost": round(ra.cost, 3)}
        if both:
            rb = single.find_path(a, b)
            row["single-surface µs"] = round(timed(lambda: single.find_path(a, b), repeats) * 1e6, 1)
            row["single-surface cost"] = round(rb.cost, 3)
            row["layered / single time"] = round(row["layered µs"] / row["single-surface µs"], 2)
        else:
            row["single-surface"] = "no path: the road under the deck is not in a top-surface bake"
        rows.append(row)
    top = (scenes.TURNS * 2 * math.pi + 0.6 * scenes.LANDING, 5.5)
    ground = (-0.6 * scenes.LANDING, 5.5)
    sv, st = scenes.spiral()
    spiral = NavMesh.from_triangles(sv, st, cell_size=CELL, agent_radius=RADIUS)
    a, b = scenes.spiral_point(*top), scenes.spiral_point(*ground)
    rows.append({"query": "spiral: top floor -> ground (3 turns)",
                 "layered µs": round(timed(lambda: spiral.find_path(a, b), repeats) * 1e6, 1),
                 "layered cost": round(spiral.find_path(a, b).cost, 3),
                 "reference cost": round(scenes.spiral_reference(*top, *ground, clearance=RADIUS), 3)})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    np.random.seed(0)
    bake_rows = bakes(args.repeats)
    query_rows = queries(args.repeats)
    for rows in (bake_rows, query_rows):
        for row in rows:
            print("  ".join(f"{k}: {v}" for k, v in row.items()))
        print()
    worst = max(r["stacked / one-layer single-surface"] for r in bake_rows)
    print(f"layered bake of the stacked soups: at most {worst:.2f} × the single-surface bake of one layer "
          f"(target ≤ 2); at most {max(r['stacked / one-layer layered'] for r in bake_rows):.2f} × the layered bake "
          f"of one layer")
    save_json(args.json, {"cell_size": CELL, "agent_radius": RADIUS, "bakes": bake_rows, "queries": query_rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
