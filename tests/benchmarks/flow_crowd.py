"""Flow fields and crowds: build times against scipy's C Dijkstra, sector-tile orders, and full
ECS ticks of flocking crowds against PandAI (Panda3D's built-in AI), all in the same run.

    python tests/benchmarks/flow_crowd.py [--json out.json] [--quick]

Map: AcrosstheCape scaled to 1024×1024 (nearest neighbour), the "1024² map" of the issue.
  * field per map: the whole-map field on four Moving AI maps scaled to 1024² and a 20%-random
    map, each against scipy's Dijkstra; ns per cell at 4096² (AcrosstheCape, 20% random).
  * full field: ``FlowField.build`` (integration + directions), with and without the LOS pass;
    scipy: building the CSR graph + ``scipy.sparse.csgraph.dijkstra`` from the goal.
  * tiles: ``SectorGraph`` build (one-off bake), then per order: the portal Dijkstra plus the
    fields of the sectors a 200-unit group stands in — what must be ready before it moves.
  * crowd tick: N flocking units (one group, ``method="flowfield"``) walking across the map,
    median of whole ``esper.process`` ticks and per processor.
  * PandAI: ``AIWorld.update()`` with N characters flocking and seeking, in a subprocess.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import esper  # noqa: E402

from rtsnav.components import Flock, NavigationAgent, Position, Velocity  # noqa: E402
from rtsnav.levels import load_movingai_map  # noqa: E402
from rtsnav.systems import Navigation, install, installed_processors  # noqa: E402
from rtsnav.systems.nav import Grid, warm_up  # noqa: E402
from rtsnav.systems.nav.flow import FlowField  # noqa: E402
from rtsnav.systems.nav.flow.sectors import SectorGraph  # noqa: E402
from tests.benchmarks.report import save_json  # noqa: E402

PANDAI = r"""
import sys, time, numpy as np
from panda3d.core import NodePath, ClockObject, Vec3
from panda3d.ai import AIWorld, AICharacter, Flock
n = int(sys.argv[1])
render = NodePath("render")
world = AIWorld(render)
flock = Flock(1, 270, 10, 2, 4, 1)
rng = np.random.default_rng(0)
chars = []
for i in range(n):
    node = render.attachNewNode("u%d" % i)
    node.setPos(float(rng.uniform(0, 60)), float(rng.uniform(0, 60)), 0)
    c = AICharacter("u%d" % i, node, 100, 0.05, 5)
    world.addAiChar(c)
    flock.addAiChar(c)
    chars.append(c)
world.addFlock(flock)
world.flockOn(1)
for c in chars:
    c.getAiBehaviors().flock(0.5)
    c.getAiBehaviors().seek(Vec3(200, 200, 0), 0.5)
clock = ClockObject.getGlobalClock()
ts = []
for f in range(int(sys.argv[2])):
    clock.tick()
    t = time.perf_counter(); world.update(); ts.append(time.perf_counter() - t)
print(float(np.median(ts) * 1e3))
"""


def scaled_cape(size: int = 1024) -> Grid:
    cape = load_movingai_map("AcrosstheCape.map")
    idx = np.arange(size) * cape.width // size
    return Grid(cape.passable[np.ix_(idx, idx)].copy(), name=f"AcrosstheCape scaled to {size}²")


def median_ms(fn, runs: int) -> float:
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts) * 1e3)


def bench_fields(grid: Grid, runs: int) -> dict:
    from scipy.sparse.csgraph import dijkstra

    from tests.systems.nav.flow_reference import grid_graph

    labels = grid.components()
    big = np.bincount(labels[labels >= 0]).argmax()
    cells = np.argwhere(labels == big)[:, ::-1]
    goal = tuple(int(v) for v in cells[len(cells) // 2])
    FlowField.build(grid, [goal])
    out = {
        "rtsnav_flowfield_ms": median_ms(lambda: FlowField.build(grid, [goal], los_radius=0), runs),
        "rtsnav_flowfield_los64_ms": median_ms(lambda: FlowField.build(grid, [goal]), runs),
    }
    t = time.perf_counter()
    graph = grid_graph(grid)
    out["scipy_graph_build_ms"] = (time.perf_counter() - t) * 1e3
    src = goal[1] * grid.width + goal[0]
    out["scipy_dijkstra_ms"] = median_ms(lambda: dijkstra(graph, directed=False, indices=src), max(3, runs // 2))
    out["speedup_vs_scipy_dijkstra"] = out["scipy_dijkstra_ms"] / out["rtsnav_flowfield_ms"]
    return out


def scaled_map(name: str, size: int) -> Grid:
    """A Moving AI map scaled to ``size``² (nearest neighbour), or ``"random20"``: 20% random walls."""
    if name == "random20":
        return Grid(np.random.default_rng(0).random((size, size)) >= 0.2, name=f"20% random walls {size}²")
    m = load_movingai_map(name)
    iy, ix = np.arange(size) * m.height // size, np.arange(size) * m.width // size
    return Grid(m.passable[np.ix_(iy, ix)].copy(), name=f"{name.removesuffix('.map')} scaled to {size}²")


def bench_field_maps(runs: int, big: bool) -> list[dict]:
    """Whole-map field (integration + directions, no LOS pass) on several maps at 1024² against
    scipy's C Dijkstra alone, and per cell at 4096² (scipy skipped there: minutes per run)."""
    from scipy.sparse.csgraph import dijkstra

    from tests.systems.nav.flow_reference import grid_graph

    rows = []
    sizes = (1024, 4096) if big else (1024,)
    for size in sizes:
        names = (("AcrosstheCape.map", "w_woundedcoast.map", "brc202d.map", "den520d.map", "random20") if size == 1024
                 else ("AcrosstheCape.map", "random20"))
        for name in names:
            grid = scaled_map(name, size)
            labels = grid.components()
            cells = np.argwhere(labels == np.bincount(labels[labels >= 0]).argmax())[:, ::-1]
            goal = tuple(int(v) for v in cells[len(cells) // 2])
            FlowField.build(grid, [goal], los_radius=0)
            ms = median_ms(lambda: FlowField.build(grid, [goal], los_radius=0), runs if size == 1024 else 3)
            row = {"map": grid.name, "field_ms": round(ms, 1), "ns_per_cell": round(ms * 1e6 / size ** 2, 1),
                   "reachable": round(len(cells) / size ** 2, 2)}
            if size == 1024:
                graph = grid_graph(grid)
                src = goal[1] * grid.width + goal[0]
                row["scipy_dijkstra_ms"] = round(median_ms(lambda: dijkstra(graph, directed=False, indices=src), 3), 1)
                row["ratio"] = round(ms / row["scipy_dijkstra_ms"], 2)
            rows.append(row)
    return rows


def bench_tiles(grid: Grid, orders: int) -> dict:
    t = time.perf_counter()
    tiles = SectorGraph(grid, 16)
    build_s = time.perf_counter() - t
    labels = grid.components()
    big = np.bincount(labels[labels >= 0]).argmax()
    cells = np.argwhere(labels == big)[:, ::-1]
    rng = np.random.default_rng(4)
    tiles.order(tuple(cells[0]))                     # compile
    ready = []
    for _ in range(orders):
        goal, start = (tuple(int(v) for v in cells[i]) for i in rng.integers(0, len(cells), 2))
        group = np.clip(np.array(start) + rng.integers(-8, 9, (200, 2)), 0, grid.width - 1)
        group = group[grid.passable[group[:, 1], group[:, 0]]]
        t = time.perf_counter()
        order = tiles.order(goal)
        order.sample(grid.cells_to_world(group))
        ready.append((time.perf_counter() - t) * 1e3)
    return {"sector_size": 16, "sectors": len(tiles.sectors), "portals": tiles.portal_count,
            "bake_s": round(build_s, 2), "order_ready_median_ms": float(np.median(ready)),
            "order_ready_p95_ms": float(np.percentile(ready, 95))}


def bench_crowd(grid: Grid, n: int, ticks: int) -> dict:
    world = f"crowd-{n}"
    esper.switch_world(world)
    nav = Navigation(grid)
    install(nav)
    labels = grid.components()
    big = np.bincount(labels[labels >= 0]).argmax()
    cells = np.argwhere(labels == big)[:, ::-1]
    rng = np.random.default_rng(n)
    centre = cells[rng.integers(len(cells))]
    near = cells[np.argsort(np.hypot(*(cells - centre).T))[: max(n, 1)]]
    goal = cells[np.argmax(np.hypot(*(cells - centre).T))]
    target = grid.cell_to_world(*goal)
    for x, y in near[:n]:
        esper.create_entity(Position(x + 0.5, y + 0.5), Velocity(), Flock(group=1),
                            NavigationAgent(target_position=target, max_speed=4.0, radius=0.35,
                                            method="flowfield"))
    for _ in range(5):
        esper.process(1 / 30)                          # registration, order, first fields
    procs = installed_processors()
    samples = np.zeros((ticks, len(procs) + 1))
    for k in range(ticks):
        t = time.perf_counter()
        esper.process(1 / 30)
        samples[k, -1] = (time.perf_counter() - t) * 1e3
        samples[k, :-1] = [p.last_ms for p in procs]
    esper.switch_world("default")
    esper.delete_world(world)
    med = np.median(samples, axis=0)
    return {"agents": n, "ticks": ticks, "tick_median_ms": float(med[-1]),
            "tick_p95_ms": float(np.percentile(samples[:, -1], 95)),
            "processor_median_ms": {type(p).__name__: float(m) for p, m in zip(procs, med[:-1])}}


def bench_pandai(n: int, frames: int) -> float | None:
    res = subprocess.run([sys.executable, "-c", PANDAI, str(n), str(frames)], capture_output=True, text=True)
    try:
        return float(res.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = ap.parse_args(argv)
    runs = 5 if args.quick else 11
    warm_up()
    grid = scaled_cape(1024)
    report = {"map": grid.name, "fields": bench_fields(grid, runs), "tiles": bench_tiles(grid, 10 if args.quick else 30)}
    report["field_maps"] = bench_field_maps(runs, big=not args.quick)
    report["crowds"] = [bench_crowd(grid, n, 40 if args.quick else 120) for n in (1000, 10_000)]
    report["pandai_ms"] = {n: bench_pandai(n, 10 if n > 500 else 30) for n in (200, 1000)}
    f, tl = report["fields"], report["tiles"]
    print(f"{grid.name}")
    print(f"  full flow field (integration + directions): {f['rtsnav_flowfield_ms']:.1f} ms, "
          f"with LOS pass r=64: {f['rtsnav_flowfield_los64_ms']:.1f} ms")
    print(f"  scipy C Dijkstra: {f['scipy_dijkstra_ms']:.1f} ms (+ {f['scipy_graph_build_ms']:.0f} ms graph build) "
          f"-> rtsnav {f['speedup_vs_scipy_dijkstra']:.1f}x faster")
    print(f"  sector tiles: bake {tl['bake_s']:.2f} s ({tl['sectors']} sectors, {tl['portals']} portals); "
          f"order ready to move: median {tl['order_ready_median_ms']:.2f} ms, p95 {tl['order_ready_p95_ms']:.2f} ms")
    for r in report["field_maps"]:
        vs = f", scipy {r['scipy_dijkstra_ms']:.1f} ms -> {r['ratio']:.2f}x its time" if "ratio" in r else ""
        print(f"  field on {r['map']}: {r['field_ms']:.1f} ms ({r['ns_per_cell']:.1f} ns per cell, "
              f"{r['reachable']:.0%} reachable){vs}")
    for c in report["crowds"]:
        procs = ", ".join(f"{k.replace('Processor', '')} {v:.2f}" for k, v in c["processor_median_ms"].items())
        print(f"  {c['agents']:>6} flocking units, whole tick median {c['tick_median_ms']:.2f} ms "
              f"(p95 {c['tick_p95_ms']:.2f}): {procs}")
    p = report["pandai_ms"]
    ours_1000 = report["crowds"][0]["tick_median_ms"]
    print(f"  PandAI AIWorld.update: 200 chars {p[200]} ms, 1000 chars {p[1000]} ms"
          + (f" -> rtsnav {p[1000] / ours_1000:.0f}x faster at 1000" if p[1000] else ""))
    save_json(args.json, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
