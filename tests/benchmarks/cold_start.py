"""Cold start: import, ``prepare`` (run by ``install``) and the first order tick of each planner.

    python tests/benchmarks/cold_start.py [--map AcrosstheCape.map] [--agents 200] [--wheel W] [--json out.json]

First, from the wheel of ``make wheel`` (built here unless ``--wheel`` names one) unpacked into a
new venv, empty numba and bake caches: import + first ``find_path`` on 256² (acceptance ≤ 10 s),
``install(Navigation(grid))`` with every planner (≤ 30 s), the headless demo from launch to its
first frame (≤ 45 s), and how many kernels each had to compile. Then from this checkout (the
kernels compile), on empty caches: import + the first ``find_path`` on a 256² grid (acceptance ≤ 10 s), and
the headless demo from launch to its first frame (≤ 45 s). Then two fresh processes: one with an
empty numba cache and an empty bake cache (reporting the kernels that take longest to compile),
one with both warm (the second run reuses the first one's caches). In each, after ``install`` (which compiles the
kernels and bakes the navmesh, hierarchy, tiles and waypoint graph), every planner in turn orders
``--agents`` new agents. Reported per planner: the first order tick, the same order repeated
later to other targets (everything compiled, every bake done: the tick's own planning work), and
a steady tick. The acceptance: first order tick − repeated order tick < 50 ms on an empty cache,
and ``prepare`` with warm caches < 2 s.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

PLANNERS = ("astar", "dijkstra", "weighted", "bidirectional", "jps", "jps+", "navmesh", "waypoints", "hierarchy", "flowfield",
            "leader")


def compile_timer():
    """Seconds numba spends compiling each kernel (its own time, callees excluded), by name."""
    from numba.core import event

    seconds: dict[str, float] = {}
    stack: list[list] = []

    class Listener(event.Listener):
        def on_start(self, e):
            stack.append([e.data["dispatcher"], time.perf_counter(), 0.0])

        def on_end(self, e):
            dispatcher, start, inner = stack.pop()
            spent = time.perf_counter() - start
            name = f"{dispatcher.py_func.__module__.removeprefix('rtsnav.systems.nav.')}.{dispatcher.py_func.__qualname__}"
            seconds[name] = seconds.get(name, 0.0) + spent - inner
            if stack:
                stack[-1][2] += spent

    event.register("numba:compile", Listener())
    return seconds


def first_path() -> dict:
    """Import, then the first ``find_path`` on a 256² map (what a new user's first script does)."""
    t0 = time.perf_counter()
    import numpy as np

    from rtsnav.systems.nav import Grid, find_path

    imported = time.perf_counter() - t0
    passable = np.ones((256, 256), dtype=bool)
    passable[20:230, 128] = False
    t = time.perf_counter()
    result = find_path(Grid(passable), (5, 128), (250, 128))
    return {"import_s": round(imported, 2), "first_find_path_s": round(time.perf_counter() - t, 2),
            "found": bool(result.found)}


def child(map_name: str, agents: int) -> dict:
    t0 = time.perf_counter()
    compiles = compile_timer()
    import esper
    import numpy as np

    from rtsnav.components import Flock, NavigationAgent, Position, Velocity
    from rtsnav.levels import load_movingai_map
    from rtsnav.systems import Navigation, install

    out: dict = {"import_s": time.perf_counter() - t0}
    grid = load_movingai_map(map_name)
    nav = Navigation(grid)
    t = time.perf_counter()
    install(nav)
    out["install_and_prepare_s"] = time.perf_counter() - t
    out["kernels_compiled"] = len(compiles)
    out["slowest_compiles_s"] = {k: round(v, 2) for k, v in sorted(compiles.items(), key=lambda kv: -kv[1])[:15]}
    labels = grid.components()
    big = np.bincount(labels[labels >= 0]).argmax()
    cells = np.argwhere(labels == big)[:, ::-1]
    rng = np.random.default_rng(7)

    def order(method: str, group: int) -> list[int]:
        centre = cells[rng.integers(0, len(cells))]
        goal = cells[rng.integers(0, len(cells))]
        near = cells[np.argsort(np.abs(cells - centre).sum(axis=1))[:agents]]
        made = []
        for c in near:
            parts = [Position(*grid.cell_to_world(*c)), Velocity(),
                     NavigationAgent(target_position=grid.cell_to_world(*goal), max_speed=4.0, method=method)]
            if method in ("flowfield", "leader"):
                parts.append(Flock(group=group))
            made.append(esper.create_entity(*parts))
        return made

    def tick_ms() -> float:
        t = time.perf_counter()
        esper.process(1 / 30)
        return (time.perf_counter() - t) * 1e3

    rows = {}
    for k, method in enumerate(PLANNERS):
        first_units = order(method, 2 * k + 1)
        first = tick_ms()
        steady = sorted(tick_ms() for _ in range(15))[7]
        for e in first_units:
            esper.delete_entity(e, immediate=True)
        tick_ms()
        order(method, 2 * k + 2)
        again = tick_ms()
        for _ in range(3):
            tick_ms()
        for e, _ in list(esper.get_component(NavigationAgent)):
            esper.delete_entity(e, immediate=True)
        tick_ms()
        rows[method] = {"first_order_tick_ms": round(first, 2), "repeated_order_tick_ms": round(again, 2),
                        "steady_tick_ms": round(steady, 2), "excess_ms": round(first - again, 2)}
    out["planners"] = rows
    out["total_s"] = time.perf_counter() - t0
    return out


WHEEL_FIRST_PATH = """
import json, time
t0 = time.perf_counter()
import numpy as np
from rtsnav.systems.nav import Grid, find_path
imported = time.perf_counter() - t0
passable = np.ones((256, 256), dtype=bool)
passable[20:230, 128] = False
t = time.perf_counter()
found = bool(find_path(Grid(passable), (5, 128), (250, 128)).found)
print(json.dumps({"import_s": round(imported, 2), "first_find_path_s": round(time.perf_counter() - t, 2), "found": found}))
"""
WHEEL_INSTALL = """
import json, time, rtsnav
from rtsnav.levels import load_movingai_map
from rtsnav.systems import Navigation, install
nav = Navigation(load_movingai_map("AcrosstheCape.map"))
t = time.perf_counter()
install(nav)
print(json.dumps({"install_every_planner_s": round(time.perf_counter() - t, 2), "rtsnav": rtsnav.__file__}))
"""


def wheel_venv(wheel: Path, where: Path) -> str:
    """A bare venv with ``wheel`` unpacked into it and this environment's packages beside it (its
    ``.pth`` files, such as an editable rtsnav, not run); returns its Python."""
    import sysconfig
    import zipfile

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = str(where / "bin" / "python")
    purelib = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  capture_output=True, text=True, check=True).stdout.strip())
    zipfile.ZipFile(wheel).extractall(purelib)
    (purelib / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def from_wheel(wheel: Path) -> dict:
    """Cold start from ``wheel`` in a new venv, with an empty numba cache and bake cache."""
    out: dict = {"wheel": wheel.name}
    with tempfile.TemporaryDirectory() as tmp:
        python = wheel_venv(wheel, Path(tmp) / "venv")
        for label, run in (("first path", ["-c", WHEEL_FIRST_PATH]), ("install", ["-c", WHEEL_INSTALL]),
                           ("demo", ["-m", "rtsnav.game", "--headless", "--frames", "1"])):
            with tempfile.TemporaryDirectory() as numba_cache, tempfile.TemporaryDirectory() as bake_cache:
                env = dict(os.environ, NUMBA_CACHE_DIR=numba_cache, RTSNAV_CACHE_DIR=bake_cache)
                t = time.perf_counter()
                res = subprocess.run([python, *run], env=env, cwd=tmp, capture_output=True, text=True, check=True)
                seconds = time.perf_counter() - t
                compiled = sum(1 for _ in Path(numba_cache).rglob("*.nbi"))
            if label == "demo":
                out["demo_launch_to_first_frame_s"] = round(seconds, 1)
            else:
                out.update(json.loads(res.stdout.strip().splitlines()[-1]))
            out[f"{label}: kernels compiled"] = compiled
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--map", default="AcrosstheCape.map")
    ap.add_argument("--agents", type=int, default=200)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--wheel", type=Path, help="a wheel from `make wheel` (default: build one, ~2 min)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--first-path", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.map, args.agents)))
        return 0
    if args.first_path:
        print(json.dumps(first_path()))
        return 0
    results: dict = {}
    if args.wheel is None:
        from tools.build_wheel import build

        args.wheel = build(Path(tempfile.mkdtemp(prefix="rtsnav-dist-")))
    results["from the wheel (kernels compiled in), empty caches"] = wheel_row = from_wheel(args.wheel)
    print(f"from {args.wheel.name}: import {wheel_row['import_s']} s + first find_path on 256² "
          f"{wheel_row['first_find_path_s']} s; install with every planner {wheel_row['install_every_planner_s']} s; "
          f"headless demo launch to first frame {wheel_row['demo_launch_to_first_frame_s']} s "
          f"(kernels compiled: {wheel_row['first path: kernels compiled']}/{wheel_row['install: kernels compiled']}/"
          f"{wheel_row['demo: kernels compiled']})", flush=True)
    with tempfile.TemporaryDirectory() as numba_cache, tempfile.TemporaryDirectory() as bake_cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=numba_cache, RTSNAV_CACHE_DIR=bake_cache)
        res = subprocess.run([sys.executable, __file__, "--first-path"], env=env, capture_output=True, text=True,
                             check=True)
        results["first path, empty cache"] = json.loads(res.stdout.strip().splitlines()[-1])
    with tempfile.TemporaryDirectory() as numba_cache, tempfile.TemporaryDirectory() as bake_cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=numba_cache, RTSNAV_CACHE_DIR=bake_cache)
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "rtsnav.game", "--headless", "--frames", "1"], env=env, check=True,
                       capture_output=True)
        results["demo, empty caches"] = {"launch_to_first_frame_s": round(time.perf_counter() - t, 1)}
    with tempfile.TemporaryDirectory() as numba_cache, tempfile.TemporaryDirectory() as bake_cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=numba_cache, RTSNAV_CACHE_DIR=bake_cache)
        for label in ("empty caches", "warm caches"):
            res = subprocess.run([sys.executable, __file__, "--child", "--map", args.map, "--agents", str(args.agents)],
                                 env=env, capture_output=True, text=True)
            if res.returncode != 0:
                print(res.stderr[-3000:])
                return 1
            results[label] = json.loads(res.stdout.strip().splitlines()[-1])
    print(f"first find_path on 256² (empty cache): {results['first path, empty cache']}")
    print(f"headless demo, launch to first frame (empty caches): {results['demo, empty caches']}")
    for label in ("empty caches", "warm caches"):
        r = results[label]
        print(f"\n{label}: import {r['import_s']:.2f} s, install + prepare {r['install_and_prepare_s']:.2f} s")
        print(f"{'planner':>14}{'first order tick':>18}{'repeated order':>16}{'excess':>9}{'steady':>9}   (ms)")
        for method, p in r["planners"].items():
            print(f"{method:>14}{p['first_order_tick_ms']:>18.1f}{p['repeated_order_tick_ms']:>16.1f}"
                  f"{p['excess_ms']:>9.1f}{p['steady_tick_ms']:>9.2f}")
        print(f"kernels compiled in this process: {r['kernels_compiled']}; slowest: {r['slowest_compiles_s']}")
    if args.json:
        from tests.benchmarks.report import save_json

        save_json(args.json, results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
