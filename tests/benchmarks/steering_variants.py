"""The seed texts' steering variants, each on the four crowd levels of the flow-field issue.

    python tests/benchmarks/steering_variants.py [--json out.json] [--count 200]

200 units (radius 0.35, 4 cells/s) of one group per level, 12 of them started scattered far
from the rest (out of the leader's corridor and out of touch with the group), sent to the
level's goal; every tick checked for wall entries and stuck units (as ``tests/systems/
test_crowds.py`` does). Per variant and level: units arrived, game seconds until the last one
arrived, the longest a walking unit stood still, unit-ticks inside walls, detours taken (leader
groups' own paths back), and the mean wall-clock milliseconds of a whole ECS tick.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import esper  # noqa: E402

from rtsnav.components import Position  # noqa: E402
from rtsnav.systems.nav import warm_up  # noqa: E402
from tests.benchmarks.report import save_json  # noqa: E402
from tests.systems.crowd_levels import LEVELS, far_cells, run_crowd  # noqa: E402

#: (name, planner, Navigation options)
VARIANTS = [
    ("flow field (descent)", "flowfield", {"flow_mode": "full"}),
    ("flow field, Eikonal", "flowfield", {"flow_mode": "full", "flow_integration": "eikonal"}),
    ("flow field, kernel rule", "flowfield", {"flow_mode": "full", "flow_rule": "kernel"}),
    ("flow field, vector as acceleration", "flowfield", {"flow_mode": "full", "flow_acceleration": 20.0}),
    ("leader, return field", "leader", {"leader_fallback": "field"}),
    ("leader, A* back to the corridor", "leader", {"leader_fallback": "astar"}),
    ("leader, Leader/Target roles", "leader", {"leader_fallback": "roles"}),
]
STRAGGLERS = 12


def run(make, planner: str, options: dict, count: int) -> dict:
    esper.clear_database()
    level = make()
    holder: dict = {}

    def scatter(tick, nav, ents):
        if tick == 0:
            holder["nav"] = nav
            for e, (x, y) in zip(ents[-STRAGGLERS:], far_cells(level, STRAGGLERS), strict=True):
                pos = esper.component_for_entity(e, Position)
                pos.x, pos.y = x + 0.5, y + 0.5

    t0 = time.perf_counter()
    result = run_crowd(level, count, planner, navigation_kw=options, before_tick=scatter)
    wall = time.perf_counter() - t0
    return {"level": level.name, "arrived": result.arrived, "total": result.total,
            "seconds": round(result.ticks / 30, 1), "max_still_s": round(result.max_stuck_s, 1),
            "in_wall": result.in_wall, "nan": result.nan, "detours": holder["nav"].crowd.groups.detours.taken,
            "tick_ms": round(1000 * wall / result.ticks, 2)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--count", type=int, default=200)
    args = ap.parse_args(argv)
    warm_up()
    for make in LEVELS:                           # first use of each kernel outside the timings
        run(make, "leader", {"leader_fallback": "roles"}, 20)
        run(make, "leader", {"leader_fallback": "astar"}, 20)
    rows = []
    print(f"{'variant':36s} {'level':16s} {'arrived':>9s} {'game s':>7s} {'still s':>7s} {'in wall':>7s} "
          f"{'detours':>7s} {'tick ms':>7s}")
    for name, planner, options in VARIANTS:
        for make in LEVELS:
            row = {"variant": name, **run(make, planner, options, args.count)}
            rows.append(row)
            print(f"{name:36s} {row['level']:16s} {row['arrived']:>5d}/{row['total']:<3d} {row['seconds']:7.1f} "
                  f"{row['max_still_s']:7.1f} {row['in_wall']:7d} {row['detours']:7d} {row['tick_ms']:7.2f}",
                  flush=True)
    save_json(args.json, {"count": args.count, "stragglers": STRAGGLERS, "rows": rows})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
