"""A crowd of every planner through one one-cell gap: how long until everyone arrived.

    python tests/benchmarks/gap_jam.py [--json out.json] [--seeds 12]

The practice level (64², a wall with one one-cell gap): three units per planner (13 planners, 39
units, speed 8 cells/s, two of three avoiding), starts jittered by up to 0.3 cells per seed, all
sent through the gap to one goal. Run twice per seed: the group planners' units as flocks, and
every unit alone with its own order. Per run: ticks (1/20 s) until nobody walks or plans (capped
at 2,400), failed orders. Before the gap fix this crowd jammed at the gap's mouth for good.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from rtsnav.systems.nav import Grid  # noqa: E402
from rtsnav.systems.nav.crowd import Crowd, CrowdConfig, NavState  # noqa: E402
from rtsnav.systems.nav.crowd.state import PLANNERS  # noqa: E402
from rtsnav.systems.nav.crowd.warmup import FLOCKED, practice_grid  # noqa: E402
from tests.benchmarks.report import save_json  # noqa: E402

GOAL = (50.5, 45.5)
CAP = 2400


def run(seed: int, flocks: bool) -> tuple[int, int]:
    """Ticks until everyone arrived (``CAP`` when some never did) and failed orders."""
    rng = np.random.default_rng(seed)
    crowd = Crowd(practice_grid(Grid(np.ones((8, 8), dtype=bool))), CrowdConfig(rebuild_worker=False))
    for k, method in enumerate(PLANNERS):
        group = k + 1 if flocks and method in FLOCKED else -1
        ids = [int(crowd.add_agents([(5.5 + i + rng.uniform(-0.3, 0.3), 5.5 + 2 * k + rng.uniform(-0.3, 0.3))],
                                    max_speed=8.0, group=group, avoidance=i > 0)[0]) for i in range(3)]
        for part in ([ids] if group >= 0 else [[a] for a in ids]):
            crowd.move(part, GOAL, planner=method)
    failed = 0
    state = crowd.agents
    for tick in range(CAP):
        failed += len(crowd.update(1 / 20).failed)
        now = state.nav_state[: state.size, 0]
        if not ((now == NavState.FOLLOWING) | (now == NavState.PLANNING)).any():
            return tick + 1, failed
    return CAP, failed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=12)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows = []
    print(f"{'crowd':<14}{'mean ticks':>12}{'worst':>8}{'never done':>12}{'failed':>8}")
    for flocks in (True, False):
        runs = [run(seed, flocks) for seed in range(args.seeds)]
        ticks = np.array([t for t, _ in runs])
        row = {"crowd": "flocks" if flocks else "single units", "seeds": args.seeds,
               "mean_ticks": float(ticks.mean()), "worst_ticks": int(ticks.max()),
               "never_done": int((ticks >= CAP).sum()), "failed_orders": int(sum(f for _, f in runs))}
        rows.append(row)
        print(f"{row['crowd']:<14}{row['mean_ticks']:>12.0f}{row['worst_ticks']:>8}{row['never_done']:>12}"
              f"{row['failed_orders']:>8}")
    save_json(args.json, rows)


if __name__ == "__main__":
    main()
