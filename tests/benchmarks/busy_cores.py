"""Parallel kernels on a busy machine: each with numba's threads (default) and with one thread,
with the cores free and with every core busy (busy-loop processes this benchmark starts and
ends), A and B alternated in one run. Prints a table, writes JSON.

    python tests/benchmarks/busy_cores.py [--json out.json] [--repeats 15] [--ignore-load]

Target (issue 42): with every core busy, default ≤ 1.15 × its one-thread time; with free cores
the default keeps its speed-up. Kernels: whole-map flow fields on a 1024² map (brc202d scaled
×2, two-thread integration and direction pass) and a 4096² one, ORCA with 5,000 agents (RVO2's
circle, one crowd tick), 100,000 path followers and 50,000 flocking units (one crowd tick each).
``--ignore-load``: every big kernel on all threads whatever the load (as before issue 42).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from rtsnav.levels import load_movingai_map  # noqa: E402
from rtsnav.names import NavState  # noqa: E402
from rtsnav.systems.nav import FlowField, Grid  # noqa: E402
from rtsnav.systems.nav.crowd import Crowd, CrowdConfig  # noqa: E402
from tests.benchmarks.crowd import _circle, _populate  # noqa: E402
from tests.benchmarks.report import save_json  # noqa: E402

DT = 1 / 30


def map_1024() -> Grid:
    """brc202d (530×481) scaled ×2 into a 1024² frame (walls around): a whole-map field of
    ~1M cells takes the two-thread integration."""
    small = load_movingai_map("brc202d.map").passable
    big = np.kron(small, np.ones((2, 2), dtype=bool))[:1024, :1024]
    frame = np.zeros((1024, 1024), dtype=bool)
    frame[: big.shape[0], : big.shape[1]] = big
    return Grid(frame, name="brc202d x2")


def flow_field_case():
    grid = map_1024()
    labels = grid.components()
    big = np.bincount(labels[labels >= 0]).argmax()
    goal = tuple(int(v) for v in np.argwhere(labels == big)[0][::-1])
    return lambda: FlowField.build(grid, [goal])


def big_field_case():
    """A 4096² grid with 20% random walls: the issue's 46× collapse."""
    passable = np.random.default_rng(1).random((4096, 4096)) > 0.2
    passable[10, 10] = True
    grid = Grid(passable)
    return lambda: FlowField.build(grid, [(10, 10)])


def circle_case(n: int = 5000):
    size, start, goal, _ = _circle(n)
    crowd = Crowd(Grid(np.ones((size, size), dtype=bool)), CrowdConfig(planning_units=10**9, rebuild_worker=False))
    ids = crowd.add_agents(start, radius=0.5, max_speed=2.0, avoidance=True)
    for i in ids:
        crowd.move([i], goal[i])
    for _ in range(200):
        crowd.update(DT)
        if not (crowd.states == NavState.PLANNING).any():
            break
    return lambda: crowd.update(DT)


def crowd_case(kind: str, n: int):
    grid = load_movingai_map("AcrosstheCape.map")
    crowd = Crowd(grid, CrowdConfig(rebuild_worker=False))
    _populate(crowd, n, kind, np.random.default_rng(n))
    for _ in range(40 if kind == "follow" else 120):
        crowd.update(DT)
    return lambda: crowd.update(DT)


def _median_ms(call, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        call()
        times.append((time.perf_counter() - t) * 1e3)
    return float(np.median(times))


def measure(call, repeats: int, threads: int) -> tuple[float, float]:
    """``(default ms, one-thread ms)``, alternated call by call block."""
    default, single = [], []
    for _ in range(repeats):
        numba.set_num_threads(threads)
        default.append(_median_ms(call, 1))
        numba.set_num_threads(1)
        single.append(_median_ms(call, 1))
    numba.set_num_threads(threads)
    return float(np.median(default)), float(np.median(single))


class BusyCores:
    """Busy-loop processes on every core while the block runs."""

    def __enter__(self):
        code = "while True: pass"
        self.procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(os.cpu_count() or 1)]
        time.sleep(0.5)                                    # they are running (and the counters see them)
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()
        time.sleep(0.3)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--ignore-load", action="store_true",
                    help="as before issue 42: every big kernel on all threads, whatever the load")
    args = ap.parse_args(argv)
    if args.ignore_load:
        from rtsnav.systems.nav.kernels import threads as policy

        policy.free_cores = lambda: float(os.cpu_count() or 1)
        policy.Choice.parallel = lambda self: True
    threads = numba.get_num_threads()
    cases = {"flow field 1024² (whole map)": flow_field_case(), "flow field 4096² (20% walls)": big_field_case(),
             "ORCA circle 5,000": circle_case(), "100,000 path followers": crowd_case("follow", 100_000),
             "50,000 flocking units": crowd_case("flock_blob", 50_000)}
    rows = []
    print(f"{'kernel':32s}{'free: default':>15}{'1 thread':>10}{'busy: default':>15}{'1 thread':>10}"
          f"{'busy ratio':>12}   (median ms, {threads} threads)")
    for name, call in cases.items():
        call()                                             # compiled and warm
        repeats = max(5, args.repeats // 3) if "4096" in name else args.repeats     # (a second a call)
        free = measure(call, repeats, threads)
        with BusyCores():
            busy = measure(call, repeats, threads)
        ratio = busy[0] / busy[1]
        rows.append({"kernel": name, "free_default_ms": round(free[0], 2), "free_one_thread_ms": round(free[1], 2),
                     "busy_default_ms": round(busy[0], 2), "busy_one_thread_ms": round(busy[1], 2),
                     "busy_default_over_one_thread": round(ratio, 2), "target": "<= 1.15"})
        print(f"{name:32s}{free[0]:>15.2f}{free[1]:>10.2f}{busy[0]:>15.2f}{busy[1]:>10.2f}{ratio:>12.2f}", flush=True)
    save_json(args.json, {"threads": threads, "cores": os.cpu_count(), "ignore_load": args.ignore_load, "rows": rows})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
