"""Headless demonstration of what rtsnav does today.

    python -m rtsnav.systems.demo [--map AcrosstheCape.map] [--agents 2000] [--ticks 1800] [--seed 1]
    python -m rtsnav.systems.demo --scenarios [--sample 300]     # the benchmark table only
    python -m rtsnav.systems.demo --agents-only                  # the ECS run only

1. Benchmark table: every Moving AI scenario of the map solved with A*, a stratified sample with
   every other method, each checked against the benchmark's optimal length.
2. ECS run: an esper world with rtsnav installed; N agents spawn on random cells with random
   targets, T fixed ticks run, and it prints arrivals, failures and per-processor milliseconds.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from rtsnav.levels import load_movingai_map, load_movingai_scenarios
from rtsnav.levels.cli import add_debug_flag, run_command, whole_number_in
from rtsnav.systems.nav import METHODS, CrowdConfig, NavError, find_path, path_length, smooth_path, warm_up

#: Most agents the demonstration's ECS run spawns (each is an esper entity made in Python).
MAX_AGENTS = 100_000


def _row(label, n, exact, ms, expanded, extra=""):
    return f"{label:<16}{n:>7}{exact:>9.1f}{np.median(ms):>11.2f}{np.percentile(ms, 95):>9.2f}{np.median(expanded):>11.0f}  {extra}"


def scenario_table(args) -> None:
    """Solve the map's scenarios with every method and print the table."""
    from rtsnav.systems.nav.crowd import Crowd
    from rtsnav.systems.nav.crowd.warmup import compile_notice, kernels_compiled, precompile

    t = time.perf_counter()
    if not kernels_compiled():
        print(f"preparing: {compile_notice()}...", flush=True)
        precompile(Crowd)
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


def _order_target(grid, start, rng, order_range):
    """A random passable cell up to ``order_range`` cells from ``start`` (a move order), or any
    passable cell when ``order_range`` is 0; it may be unreachable (another region)."""
    for _ in range(100):
        if order_range <= 0:
            t = np.array([rng.integers(0, grid.width), rng.integers(0, grid.height)])
        else:
            t = start + rng.integers(-order_range, order_range + 1, 2)
        if grid.is_passable(int(t[0]), int(t[1])):
            return t
    return start


def run_agents(map_name: str, agents: int, ticks: int, seed: int = 1, dt: float = 1 / 30,
               expansions_per_tick: int = 50_000, order_range: int = 80, quiet: bool = False) -> dict:
    """Spawn ``agents`` on random cells of ``map_name``, each ordered to a random cell up to
    ``order_range`` cells away, in a fresh esper world; run ``ticks`` fixed steps of ``dt`` and
    return a summary (also printed unless ``quiet``)."""
    import esper

    from rtsnav.components import NavigationAgent, NavState, Position, Velocity
    from rtsnav.systems import Navigation, install, installed_processors

    world = f"rtsnav-demo-{seed}"
    previous = esper.current_world
    esper.switch_world(world)
    try:
        grid = load_movingai_map(map_name)
        nav = Navigation(grid, CrowdConfig(planning_units=expansions_per_tick))
        install(nav, methods=("astar",))          # compiles what the run uses, before tick 0
        rng = np.random.default_rng(seed)
        cells = np.argwhere(grid.passable)[:, ::-1]
        if len(cells) == 0:
            raise NavError(f"{grid.name}: no open cell to place agents on")
        for _ in range(agents):
            s = cells[rng.integers(0, len(cells))]
            t = _order_target(grid, s, rng, order_range)
            esper.create_entity(Position(*grid.cell_to_world(*s)), Velocity(),
                                NavigationAgent(target_position=grid.cell_to_world(*t),
                                                max_speed=float(rng.uniform(4.0, 8.0))))
        procs = installed_processors()
        per_tick = np.zeros((ticks, len(procs)))
        in_wall = 0
        t0 = time.perf_counter()
        for k in range(ticks):
            esper.process(dt)
            per_tick[k] = [p.last_ms for p in procs]
            c = grid.world_to_cells(nav.agents.position[: nav.agents.count])
            in_wall += int((~grid.passable[c[:, 1], c[:, 0]]).sum())
        wall_s = time.perf_counter() - t0
        states = nav.agents.nav_state[: nav.agents.count, 0]
        summary: dict[str, Any] = {
            "map": grid.name, "agents": agents, "ticks": ticks, "seconds_simulated": ticks * dt,
            "arrived": int((states == NavState.FINISHED).sum()),
            "failed": int((states == NavState.FAILED).sum()),
            "still_moving": int((states == NavState.FOLLOWING).sum()),
            "planning": int((states == NavState.PLANNING).sum()),
            "agent_ticks_inside_walls": in_wall,
            "wall_clock_s": round(wall_s, 2),
            "processor_ms": {type(p).__name__: {"median": round(float(np.median(per_tick[:, i])), 3),
                                                "p95": round(float(np.percentile(per_tick[:, i], 95)), 3),
                                                "max": round(float(per_tick[:, i].max()), 2)}
                             for i, p in enumerate(procs)},
        }
    finally:
        esper.switch_world(previous)
        esper.delete_world(world)
    if not quiet:
        print(f"\nECS run on {summary['map']}: {agents} agents ordered up to {order_range} cells away, "
              f"{ticks} ticks of {dt * 1e3:.1f} ms "
              f"({summary['seconds_simulated']:.0f} s simulated, {wall_s:.1f} s wall clock)")
        print(f"  arrived {summary['arrived']}, failed (unreachable) {summary['failed']}, "
              f"still walking {summary['still_moving']}, planning {summary['planning']}, "
              f"agent-ticks inside walls {in_wall}")
        print(f"  {'processor':<26}{'median ms':>10}{'p95 ms':>9}{'max ms':>9}")
        for name, v in summary["processor_ms"].items():
            print(f"  {name:<26}{v['median']:>10.3f}{v['p95']:>9.3f}{v['max']:>9.2f}")
    return summary


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (exits 2 with a message on a usage error)."""
    ap = argparse.ArgumentParser(prog="python -m rtsnav.systems.demo", description=__doc__.splitlines()[0])
    add_debug_flag(ap)
    ap.add_argument("--map", default="AcrosstheCape.map", help="a .map with a .map.scen beside it")
    ap.add_argument("--sample", type=whole_number_in(1, 10**6), default=300, help="scenarios for the slower methods")
    ap.add_argument("--agents", type=whole_number_in(1, MAX_AGENTS), default=2000,
                    help=f"agents in the ECS run (at most {MAX_AGENTS:,})")
    ap.add_argument("--ticks", type=whole_number_in(1, 10**6), default=1800, help="ticks of 1/30 s in the ECS run")
    ap.add_argument("--seed", type=whole_number_in(0, 2**63 - 1), default=1)
    ap.add_argument("--range", type=whole_number_in(0, 10**6), default=80,
                    help="order distance in cells (0 = anywhere)")
    ap.add_argument("--scenarios", action="store_true", help="only the benchmark table")
    ap.add_argument("--agents-only", action="store_true", help="only the ECS run")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the demonstration; bad input prints ``error: ...`` and returns 2."""
    return run_command(_run, parse_args(argv))


def _run(args: argparse.Namespace) -> int:
    if not args.agents_only:
        scenario_table(args)
    if not args.scenarios:
        run_agents(args.map, args.agents, args.ticks, args.seed, order_range=args.range)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
