"""The flow-field paper's experiment, shipped: five algorithms × 1–200 agents on a 50×40 grid.

    python tests/benchmarks/paper_flowfield.py [--json out.json] [--picture map.png]

The paper (an RTS flow-field pathfinding study in the seed texts) compares Dijkstra per agent,
A* per agent, an artificial potential field, a basic flow field and its improved flow field for
1, 10, 20, 50, 100 and 200 agents on a 50×40 grid (a 200×160 map in cells of 4) with the goal at
(0, 0). Table 1 is the average pathfinding time, Table 2 the time until every agent finished
moving. Here: the same grid shape, agent counts and goal, on a seeded map of walls with a
concave bay facing the spawn (where potential fields get stuck); rtsnav's planners in the roles:

* Dijkstra / A* per agent: ``find_path`` per agent (pathfinding time: all of them), then the
  crowd following those paths;
* potential field: ``PotentialField`` (goal attraction, wall repulsion), then the crowd on it;
* flow field (basic): one ``FlowField`` (8-neighbour Dijkstra integration, no line of sight);
* flow field (improved): ``FlowField(integration="eikonal", rule="kernel")`` — the seed texts'
  Eikonal integration and the vector-field article's direction rule — with the line-of-sight pass.

Movement runs through ``Crowd`` (30 ticks a second, agents of radius 0.35 at 4 cells a second,
flocking on for the group planners) until everyone arrived or 120 s. ``stuck`` counts the
progress watch's stuck events: potential-field units caught in local minima (rtsnav then walks
them out alone — the paper's baseline would leave them there). Times are medians of 5 runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from rtsnav.systems.nav import Grid, find_path  # noqa: E402
from rtsnav.systems.nav.crowd import Crowd, CrowdConfig  # noqa: E402
from rtsnav.systems.nav.flow import FlowField  # noqa: E402
from rtsnav.systems.nav.flow.potential import PotentialField  # noqa: E402
from tests.benchmarks.report import save_json  # noqa: E402

COUNTS = (1, 10, 20, 50, 100, 200)
ALGORITHMS = ("Dijkstra per agent", "A* per agent", "potential field", "flow field (basic)",
              "flow field (improved)")
GOAL = (0, 0)
DT = 1 / 30


def paper_map(seed: int = 11) -> Grid:
    """50×40 cells: seeded wall blocks, and a bay (a U open to the spawn) across the way."""
    w, h = 50, 40
    passable = np.ones((h, w), dtype=bool)
    rng = np.random.default_rng(seed)
    for _ in range(14):
        x, y = rng.integers(4, w - 8), rng.integers(4, h - 6)
        passable[y:y + rng.integers(1, 4), x:x + rng.integers(2, 7)] = False
    passable[14:26, 18] = False                # the bay's back wall, facing the spawn at the east
    passable[14, 18:27] = False
    passable[25, 18:27] = False
    passable[:3, :3] = True                    # the goal corner stays open
    passable[30:, 38:] = True                  # and the spawn
    grid = Grid(passable, name="paper 50×40")
    labels = grid.components()
    keep = labels == labels[GOAL[1], GOAL[0]]
    return Grid(keep, name="paper 50×40")      # pockets cut off from the goal are walls


def spawn_cells(grid: Grid, count: int, seed: int) -> np.ndarray:
    free = np.argwhere(grid.passable[28:, 34:])[:, ::-1] + (34, 28)
    rng = np.random.default_rng(seed)
    return free[rng.choice(len(free), count, replace=len(free) < count)]


def pathfinding_ms(grid: Grid, algorithm: str, starts: np.ndarray) -> float:
    """Wall time to plan for all agents."""
    t = time.perf_counter()
    if algorithm in ("Dijkstra per agent", "A* per agent"):
        method = "dijkstra" if algorithm.startswith("Dijkstra") else "astar"
        for s in starts:
            find_path(grid, (int(s[0]), int(s[1])), GOAL, method)
    elif algorithm == "potential field":
        PotentialField.build(grid, GOAL)
    elif algorithm == "flow field (basic)":
        FlowField.build(grid, [GOAL], los_radius=0)
    else:
        FlowField.build(grid, [GOAL], integration="eikonal", rule="kernel")
    return (time.perf_counter() - t) * 1e3


def movement(grid: Grid, algorithm: str, starts: np.ndarray) -> dict:
    """Simulated seconds until every agent arrived (or 120 s), arrivals and stuck events."""
    planner = {"Dijkstra per agent": "dijkstra", "A* per agent": "astar", "potential field": "potential",
               "flow field (basic)": "flowfield", "flow field (improved)": "flowfield"}[algorithm]
    improved = "improved" in algorithm
    config = CrowdConfig(flow_integration="eikonal" if improved else "dijkstra",
                         flow_rule="kernel" if improved else "descent", flow_mode="full")
    crowd = Crowd(grid, config)
    group = 1 if planner in ("potential", "flowfield") else -1
    jitter = np.random.default_rng(len(starts)).uniform(0.2, 0.8, (len(starts), 2))
    ids = crowd.add_agents(starts + jitter, radius=0.35, max_speed=4.0, group=group)
    crowd.move(ids, grid.cell_to_world(*GOAL), planner=planner)
    arrived: set[int] = set()
    stuck = 0
    for tick in range(int(120 / DT)):
        ev = crowd.update(DT)
        arrived |= set(ev.reached.tolist())
        stuck += len(ev.stuck)
        if len(arrived) == len(ids):
            break
    return {"seconds": round((tick + 1) * DT, 2), "arrived": len(arrived), "stuck_events": stuck}


def run(runs: int = 5) -> dict:
    grid = paper_map()
    for algorithm in ALGORITHMS:                              # compile
        pathfinding_ms(grid, algorithm, spawn_cells(grid, 2, 0))
        movement(grid, algorithm, spawn_cells(grid, 2, 0))
    table1, table2 = {}, {}
    for algorithm in ALGORITHMS:
        table1[algorithm], table2[algorithm] = {}, {}
        for count in COUNTS:
            starts = spawn_cells(grid, count, count)
            table1[algorithm][count] = round(float(np.median([pathfinding_ms(grid, algorithm, starts)
                                                              for _ in range(runs)])), 3)
            table2[algorithm][count] = movement(grid, algorithm, starts)
    return {"map": {"cells": list(grid.shape[::-1]), "goal": GOAL, "open_cells": int(grid.passable.sum()),
                    "potential_minima": int(len(PotentialField.build(grid, GOAL).local_minima()))},
            "pathfinding_ms": table1, "movement": table2}


def print_tables(report: dict) -> None:
    head = f"{'algorithm':<24}" + "".join(f"{c:>12}" for c in COUNTS)
    print("\nTable 1: average pathfinding time (ms), by number of agents")
    print(head)
    print("-" * len(head))
    for algorithm, row in report["pathfinding_ms"].items():
        print(f"{algorithm:<24}" + "".join(f"{row[c]:>12.3f}" for c in COUNTS))
    print("\nTable 2: time until all agents finished moving (s; arrived/agents, stuck events)")
    print(head)
    print("-" * len(head))
    for algorithm, row in report["movement"].items():
        print(f"{algorithm:<24}" + "".join(f"{row[c]['seconds']:>12.1f}" for c in COUNTS))
        print(f"{'  arrived, stuck':<24}"
              + "".join(f"{str(row[c]['arrived']) + '/' + str(c) + ', ' + str(row[c]['stuck_events']):>12} "
                        for c in COUNTS))


def picture(path: Path) -> None:
    """The map with the basic and improved fields' directions, and the potential's minima."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    grid = paper_map()
    fig, axes = plt.subplots(2, 2, figsize=(12, 9.2))
    fields = [("flow field: Dijkstra, steepest descent (basic)", FlowField.build(grid, [GOAL], los_radius=0)),
              ("Eikonal + kernel rule + line of sight (improved)",
               FlowField.build(grid, [GOAL], integration="eikonal", rule="kernel")),
              ("the vector-field article's kernel rule", FlowField.build(grid, [GOAL], los_radius=0, rule="kernel")),
              ("potential field (x: local minima)", PotentialField.build(grid, GOAL))]
    axes = axes.ravel()
    ys, xs = np.nonzero(grid.passable)
    for ax, (title, field) in zip(axes, fields):
        ax.imshow(~grid.passable, cmap="Greys", origin="upper")
        d = field.direction[ys, xs]
        ax.quiver(xs, ys, d[:, 0], -d[:, 1], scale=60, width=0.003, color="tab:blue")
        ax.plot(*GOAL, "g*", markersize=14)
        if isinstance(field, PotentialField):
            m = field.local_minima()
            ax.plot(m[:, 0], m[:, 1], "rx", markersize=10, mew=2)
        ax.set_title(title)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    print(f"wrote {path}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--picture", type=Path)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    t = time.perf_counter()
    report = run(args.runs)
    print_tables(report)
    print(f"\n(map: {report['map']}; {time.perf_counter() - t:.0f} s)")
    if args.picture:
        picture(args.picture)
    save_json(args.json, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
