"""Ticking 10,000 unit-AI behaviour trees: compiled jump tables against the interpreter.

    python tests/benchmarks/behaviour_trees.py [--agents 10000] [--json out.json]

The tree is an RTS unit's (retreat when hurt, fight an enemy in range, attack-move, patrol
between two points with a memory sequence, idle); leaves read and write numpy arrays of the
blackboard. Both runners tick the same tree over the same states for 20 ticks and must agree on
every status; times are medians per tick. The interpreter is the classic recursive walk, one
agent at a time; the compiled tree runs all agents through its jump tables together.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from rtsnav.systems.nav.behaviour import (  # noqa: E402
    Action,
    Condition,
    Fallback,
    Interpreter,
    Sequence,
    Status,
    compile_tree,
)
from tests.benchmarks.report import save_json  # noqa: E402


class Board:
    """The units' state, one row per agent."""

    def __init__(self, n: int, seed: int) -> None:
        rng = np.random.default_rng(seed)
        self.health = rng.random(n)
        self.enemy_distance = rng.random(n) * 40
        self.order = rng.integers(0, 3, n)          # 0 none, 1 attack-move, 2 patrol
        self.progress = rng.random(n)               # how far along the current walk
        self.leg = np.zeros(n, dtype=np.int64)

    def walk(self, ids: np.ndarray, speed: float) -> np.ndarray:
        self.progress[ids] += speed
        done = self.progress[ids] >= 1.0
        self.progress[ids[done]] = 0.0
        return np.where(done, np.int8(Status.SUCCESS), np.int8(Status.RUNNING))


def unit_tree():
    """Retreat when hurt, fight in range, attack-move, patrol (memory), else idle."""
    return Fallback(
        Sequence(Condition("hurt", lambda ids, b: b.health[ids] < 0.25),
                 Action("retreat", lambda ids, b: b.walk(ids, 0.2))),
        Sequence(Condition("enemy in range", lambda ids, b: b.enemy_distance[ids] < 8.0),
                 Condition("healthy enough", lambda ids, b: b.health[ids] > 0.4),
                 Action("attack", lambda ids, b: np.full(len(ids), Status.RUNNING, dtype=np.int8))),
        Sequence(Condition("attack-move order", lambda ids, b: b.order[ids] == 1),
                 Action("walk to order", lambda ids, b: b.walk(ids, 0.05))),
        Sequence(Condition("patrol order", lambda ids, b: b.order[ids] == 2),
                 Sequence(Action("walk to A", lambda ids, b: b.walk(ids, 0.1)),
                          Action("walk to B", lambda ids, b: b.walk(ids, 0.1)), memory=True)),
        Action("idle", lambda ids, b: np.full(len(ids), Status.SUCCESS, dtype=np.int8)),
    )


def run(agents: int, ticks: int = 20) -> dict:
    ids = np.arange(agents)
    boards = [Board(agents, 7), Board(agents, 7)]
    interp, comp = Interpreter(unit_tree()), compile_tree(unit_tree())
    t_interp, t_comp = [], []
    for _ in range(ticks):
        for b in boards:                             # the world moves the same way for both
            b.enemy_distance += np.random.default_rng(len(t_comp)).normal(0, 2, agents)
        t = time.perf_counter()
        a = interp.tick(ids, boards[0])
        t_interp.append(time.perf_counter() - t)
        t = time.perf_counter()
        c = comp.tick(ids, boards[1])
        t_comp.append(time.perf_counter() - t)
        if a.tolist() != c.tolist():
            raise SystemExit("compiled and interpreted statuses differ")
    out = {"agents": agents, "ticks": ticks, "entries": comp.entries,
           "interpreted_ms": float(np.median(t_interp) * 1e3), "compiled_ms": float(np.median(t_comp) * 1e3)}
    out["speedup"] = out["interpreted_ms"] / out["compiled_ms"]
    out["compiled_us_per_agent"] = out["compiled_ms"] * 1e3 / agents
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--agents", type=int, default=10_000)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows = [run(1_000), run(args.agents)]
    print(f"{'agents':>8}{'interpreted ms':>16}{'compiled ms':>13}{'speedup':>9}{'µs/agent':>10}")
    for r in rows:
        print(f"{r['agents']:>8}{r['interpreted_ms']:>16.2f}{r['compiled_ms']:>13.3f}{r['speedup']:>8.1f}×"
              f"{r['compiled_us_per_agent']:>10.3f}")
    print(f"target: ticking {args.agents:,} compiled trees ≥ 5× faster than interpreting them — "
          f"{'met' if rows[-1]['speedup'] >= 5 else 'NOT met'}")
    if args.json:
        save_json(args.json, {"rows": rows})


if __name__ == "__main__":
    main()
