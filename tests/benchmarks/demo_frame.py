"""Demo frame cost, headless: simulation, scene sync and (software) render per frame.

    python tests/benchmarks/demo_frame.py [--runs river:2000,highlands:10000] [--frames 200] [--json out.json]

Avoidance is on (every unit steers around every other, enemies included) and the unit AI
(behaviour trees) runs every tick. Both teams get a cross-map move order at the start (groups:
leader + corridor flow field), so the frames measured are of moving, flocking crowds that meet.
Rendering here is Panda3D's software renderer (p3tinydisplay); a GPU machine draws far faster,
so it is reported apart. The frame is split by system: each rtsnav processor's own time (the
crowd's update is ``Crowd``), and the rest of the simulation (the unit AI, esper). Targets
(issue 40): the demo's simulation ≤ 2.5 × the core crowd's update of the same agents, measured
in the same frames; earlier targets (avoidance on): 2,000 units sim + sync ≤ 6 ms, 10,000 ≤ 20 ms.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.report import save_json  # noqa: E402


def bench(level: str, units: int, frames: int) -> dict:
    from rtsnav.game.app import RtsApp

    app = RtsApp(level, units, headless=True, size=(800, 500))
    for team, other in ((1, 2), (2, 1)):
        far = app.level.spawns[other].mean(axis=0)
        app.select_team(team)
        app.order_move(app.level.grid.cell_to_world(int(far[0]), int(far[1])))
    app.select_team(0)
    from rtsnav.systems.plugin import installed_processors

    procs = installed_processors()
    samples, systems = [], []
    for _ in range(frames):
        app.render_frame()                      # headless: one simulation tick a frame
        samples.append((app.frame_ms["simulation"], app.frame_ms["sync"], app.frame_ms["render"]))
        systems.append([p.last_ms for p in procs])
    app.destroy()
    s = np.array(samples[10:])
    by = np.array(systems[10:])
    split = {type(p).__name__.replace("Processor", ""): round(float(np.median(by[:, k])), 2)
             for k, p in enumerate(procs)}
    crowd = float(np.median(by[:, [k for k, p in enumerate(procs) if type(p).__name__ == "CrowdProcessor"][0]]))
    sim = float(np.median(s[:, 0]))
    # the game's own work: the unit AI and esper's other processors (sim less rtsnav's processors)
    game = float(np.median(s[:, 0] - by.sum(axis=1)))
    return {"level": level, "units": units, "frames": len(s),
            "simulation_ms": sim, "sync_ms": float(np.median(s[:, 1])),
            "sim_plus_sync_ms": float(np.median(s[:, 0] + s[:, 1])),
            "sim_plus_sync_p95_ms": float(np.percentile(s[:, 0] + s[:, 1], 95)),
            "software_render_ms": float(np.median(s[:, 2])),
            "by_system_ms": {**split, "unit AI and game": round(game, 2)},
            "core_crowd_update_ms": crowd, "sim_over_crowd": round(sim / crowd, 2)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", default="river:500,river:2000,highlands:10000", help="level:units,...")
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    rows = []
    for run in args.runs.split(","):
        level, units = run.split(":")
        rows.append(bench(level, int(units), args.frames))
    targets = {2000: 6.0, 10000: 20.0}
    print(f"{'level':>10}{'units':>6}{'sim ms':>9}{'sync ms':>9}{'sim+sync':>10}{'p95':>8}{'render ms (software)':>22}")
    for r in rows:
        print(f"{r['level']:>10}{r['units']:>6}{r['simulation_ms']:>9.2f}{r['sync_ms']:>9.2f}{r['sim_plus_sync_ms']:>10.2f}"
              f"{r['sim_plus_sync_p95_ms']:>8.2f}{r['software_render_ms']:>22.1f}"
              + (f"   target ≤ {targets[r['units']]:g} ms: {'met' if r['sim_plus_sync_ms'] <= targets[r['units']] else 'NOT met'}"
                 if r["units"] in targets else ""))
    print("\nby system (median ms a frame; Crowd is the core crowd's update of the same agents):")
    for r in rows:
        print(f"{r['level']:>10}{r['units']:>6}  " + "  ".join(f"{k} {v:.2f}" for k, v in r["by_system_ms"].items())
              + f"   sim / crowd = {r['sim_over_crowd']:.2f} (target ≤ 2.5)")
    save_json(args.json, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
