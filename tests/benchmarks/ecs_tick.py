"""ECS tick benchmark: per-processor milliseconds for 1,000 and 10,000 path-following agents.

    python tests/benchmarks/ecs_tick.py [--agents 1000,10000] [--ticks 300] [--json out.json]

Agents spawn on AcrosstheCape (768×768) with orders up to 40 cells away; planning runs first
(not timed here: that is grid_search.py's job), then ``--ticks`` steady ticks are timed while
the agents follow their paths. Baselines in the same run, on the same entity count:
  * ``esper pos += vel*dt``: a plain esper processor looping over Position/Velocity objects;
  * ``copy to numpy and back``: gathering the component objects into arrays and scattering back
    (what a processor without row views would pay every tick).
Also measured: one tick in which an entity spawns (esper rebuilds its query cache then), and
the bound-components mode (``install(position=PlainPos, velocity=PlainVel)``: the game's own
dataclass components, copied in and out once per tick) against the array-backed default.
The cold-start timeline (import, prepare, first tick) is ``cold_start.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import esper
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from rtsnav.components import NavigationAgent, NavState, Position, Velocity  # noqa: E402
from rtsnav.levels import load_movingai_map  # noqa: E402
from rtsnav.systems import Navigation, install, installed_processors  # noqa: E402
from rtsnav.systems.nav import CrowdConfig, warm_up  # noqa: E402
from tests.benchmarks.report import save_json  # noqa: E402


@dataclass(slots=True)
class PlainPos:
    x: float
    y: float
    z: float = 0.0


@dataclass(slots=True)
class PlainVel:
    x: float = 0.0
    y: float = 0.0
    z: float = 0.0


def plain_esper_ms(n: int, ticks: int = 50) -> tuple[float, float]:
    """Median ms of a plain esper movement loop and of a gather/scatter through numpy."""
    esper.switch_world("bench-plain")
    for i in range(n):
        esper.create_entity(PlainPos(float(i), 0.0), PlainVel(1.0, 0.5))
    loop, copy = [], []
    for _ in range(ticks):
        t = time.perf_counter()
        for _, (p, v) in esper.get_components(PlainPos, PlainVel):
            p.x += v.x * 0.016
            p.y += v.y * 0.016
        loop.append(time.perf_counter() - t)
        t = time.perf_counter()
        items = esper.get_components(PlainPos, PlainVel)
        pos = np.array([(p.x, p.y, p.z) for _, (p, _) in items])
        vel = np.array([(v.x, v.y, v.z) for _, (_, v) in items])
        pos += vel * 0.016
        for (_, (p, _)), row in zip(items, pos.tolist()):
            p.x, p.y, p.z = row
        copy.append(time.perf_counter() - t)
    esper.switch_world("default")
    esper.delete_world("bench-plain")
    return float(np.median(loop) * 1e3), float(np.median(copy) * 1e3)


def bench(n: int, ticks: int, grid, bound: bool = False) -> dict:
    world = f"bench-{n}-{bound}"
    esper.switch_world(world)
    nav = Navigation(grid, CrowdConfig(planning_units=10**9, max_searches=1))
    if bound:
        install(nav, position=PlainPos, velocity=PlainVel, methods=("astar",))
    else:
        install(nav, methods=("astar",))
    rng = np.random.default_rng(n)
    labels = grid.components()
    big = np.bincount(labels[labels >= 0]).argmax()
    cells = np.argwhere(labels == big)[:, ::-1]
    for _ in range(n):
        s = cells[rng.integers(0, len(cells))]
        t = s
        for _ in range(50):
            c = s + rng.integers(-40, 41, 2)
            if grid.in_bounds(*c) and labels[c[1], c[0]] == big:
                t = c
                break
        x, y, z = grid.cell_to_world(*s)
        body = (PlainPos(x, y, z), PlainVel()) if bound else (Position(x, y, z), Velocity())
        esper.create_entity(*body, NavigationAgent(target_position=grid.cell_to_world(*t), max_speed=1.5))
    t0 = time.perf_counter()
    esper.process(1 / 60)                               # registers agents and plans every path
    first_tick_s = time.perf_counter() - t0
    procs = installed_processors()
    samples = np.zeros((ticks, len(procs) + 1))
    for k in range(ticks):
        t = time.perf_counter()
        esper.process(1 / 60)
        samples[k, -1] = (time.perf_counter() - t) * 1e3
        samples[k, :-1] = [p.last_ms for p in procs]
    following = int((nav.agents.nav_state[: nav.agents.count, 0] == NavState.FOLLOWING).sum())
    spawn = []
    for _ in range(15):
        x, y, z = grid.cell_to_world(*cells[0])
        body = (PlainPos(x, y, z), PlainVel()) if bound else (Position(x, y, z), Velocity())
        e = esper.create_entity(*body, NavigationAgent())
        t = time.perf_counter()
        esper.process(1 / 60)
        spawn.append((time.perf_counter() - t) * 1e3)
        esper.delete_entity(e)
        esper.process(1 / 60)
    esper.switch_world("default")
    esper.delete_world(world)
    med = np.median(samples, axis=0)
    names = [type(p).__name__ for p in procs]
    follow_move = float(np.median(samples[:, names.index("CrowdProcessor")]))
    sync = 0.0
    if bound:
        sync = float(np.median(samples[:, names.index("BoundReadProcessor")] + samples[:, names.index("BoundWriteProcessor")]))
    return {
        "agents": n, "ticks": ticks, "following_at_end": following, "bound_components": bound,
        "bound_copy_in_out_median_ms": round(sync, 3),
        "bound_copy_us_per_agent": round(sync * 1e3 / n, 3),
        "register_and_plan_first_tick_s": round(first_tick_s, 2),
        "processor_median_ms": {name: round(float(m), 4) for name, m in zip(names, med[:-1])},
        "crowd_update_median_ms": round(follow_move, 3),
        "whole_tick_median_ms": round(float(med[-1]), 3),
        "tick_with_a_spawn_median_ms": round(float(np.median(spawn)), 2),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agents", default="1000,10000")
    ap.add_argument("--ticks", type=int, default=300)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    warm_up()
    grid = load_movingai_map("AcrosstheCape.map")
    rows = []
    for n in (int(v) for v in args.agents.split(",")):
        row = bench(n, args.ticks, grid)
        row["esper_plain_loop_ms"], row["esper_copy_to_numpy_and_back_ms"] = plain_esper_ms(n)
        rows.append(row)
    print(f"{'agents':>7}{'registry':>10}{'crowd update':>14}"
          f"{'tick':>8}{'spawn tick':>12}{'esper loop':>12}{'copy+back':>11}   (median ms)")
    for r in rows:
        p = r["processor_median_ms"]
        print(f"{r['agents']:>7}{p['AgentRegistryProcessor']:>10.3f}"
              f"{r['crowd_update_median_ms']:>14.3f}{r['whole_tick_median_ms']:>8.3f}"
              f"{r['tick_with_a_spawn_median_ms']:>12.2f}{r['esper_plain_loop_ms']:>12.3f}"
              f"{r['esper_copy_to_numpy_and_back_ms']:>11.3f}")
    bound_rows = [bench(n, min(args.ticks, 100), grid, bound=True) for n in (2000, 10000)]
    default_rows = [bench(n, min(args.ticks, 100), grid) for n in (2000, 10000)]
    print("\nbound components (the game's own dataclasses) vs rtsnav's array-backed default, median ms")
    print(f"{'agents':>7}{'default tick':>14}{'bound tick':>12}{'copy in+out':>13}{'µs / agent':>12}")
    for b, d in zip(bound_rows, default_rows):
        print(f"{b['agents']:>7}{d['whole_tick_median_ms']:>14.3f}{b['whole_tick_median_ms']:>12.3f}"
              f"{b['bound_copy_in_out_median_ms']:>13.3f}{b['bound_copy_us_per_agent']:>12.3f}")
    save_json(args.json, {"default": rows, "bound_vs_default": {"bound": bound_rows, "default": default_rows}})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
