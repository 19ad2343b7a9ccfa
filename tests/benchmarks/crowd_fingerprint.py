"""Fingerprints of crowd scenes: a checksum of every agent's end position and of the events of
every tick, so a change that should only move code around can be checked bit for bit.

    python tests/benchmarks/crowd_fingerprint.py --json before.json     # on the old tree
    python tests/benchmarks/crowd_fingerprint.py --compare before.json  # on the new one

Scenes (public calls only, rebuild worker off so map edits are deterministic):
river (500 units, every planner, groups and singles, avoidance), narrow gap (200 flowfield
units), map edit (a wall closed on walking units of several planners), contacts (hard contacts
on, two groups head-on), esper (the plugin with components).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from rtsnav.systems.nav import Grid  # noqa: E402
from rtsnav.systems.nav.crowd import Crowd, CrowdConfig  # noqa: E402
from tests.benchmarks.report import save_json  # noqa: E402

DT = 1 / 30


class Digest:
    """A running sha256 over arrays."""

    def __init__(self) -> None:
        self.h = hashlib.sha256()

    def add(self, *arrays) -> None:
        for a in arrays:
            a = np.ascontiguousarray(np.asarray(a))
            self.h.update(str(a.dtype).encode() + str(a.shape).encode())
            self.h.update(a.tobytes())

    def hex(self) -> str:
        return self.h.hexdigest()[:16]


def _run(crowd: Crowd, ticks: int) -> dict:
    events = Digest()
    for _ in range(ticks):
        ev = crowd.update(DT)
        events.add(ev.reached, ev.failed, ev.stuck, ev.path_changed)
    end = Digest()
    end.add(crowd.positions, crowd.velocities)
    return {"positions": end.hex(), "events": events.hex()}


def river() -> dict:
    from rtsnav.levels import load_level

    level = load_level("river")
    grid = level.grid
    crowd = Crowd(grid, CrowdConfig(rebuild_worker=False))
    rng = np.random.default_rng(7)
    open_cells = np.argwhere(grid.passable[:, : grid.width // 3])[:, ::-1]
    picks = open_cells[rng.choice(len(open_cells), 500, replace=False)]
    pos = grid.origin + (picks + 0.5) * grid.cell_size
    planners = ["astar", "jps+", "navmesh", "hierarchy", "waypoints", "dstar", "flowfield", "leader"]
    goal = np.asarray(grid.origin) + (np.array([grid.width - 6, grid.height // 2]) + 0.5) * grid.cell_size
    if not grid.passable[grid.height // 2, grid.width - 6]:
        cells = np.argwhere(grid.passable[:, -12:])[:, ::-1] + [grid.width - 12, 0]
        goal = np.asarray(grid.origin) + (cells[len(cells) // 2] + 0.5) * grid.cell_size
    for k, planner in enumerate(planners):
        chunk = pos[k::len(planners)]
        group = 10 + k if planner in ("flowfield", "leader") else -1
        ids = crowd.add_agents(chunk, radius=0.4, max_speed=4.0, group=group, avoidance=True)
        if group >= 0:
            crowd.move(ids, goal, planner=planner)
        else:
            for i in ids.tolist():
                crowd.move([i], goal, planner=planner)
    return _run(crowd, 900)


def narrow_gap() -> dict:
    p = np.ones((40, 60), dtype=bool)
    p[:, 30] = False
    p[30, 30] = True
    grid = Grid(p)
    crowd = Crowd(grid, CrowdConfig(rebuild_worker=False))
    xs, ys = np.meshgrid(np.arange(4, 20) + 0.5, np.arange(5, 20) + 0.5)
    pos = np.stack([xs.ravel(), ys.ravel()], axis=1)[:200]
    ids = crowd.add_agents(pos, radius=0.4, max_speed=3.0, group=1, avoidance=True)
    crowd.move(ids, (50.5, 10.5), planner="flowfield")
    return _run(crowd, 900)


def map_edit() -> dict:
    p = np.ones((48, 64), dtype=bool)
    p[5:45, 32] = False
    p[20:24, 32] = True
    p[40:44, 32] = True
    grid = Grid(p)
    crowd = Crowd(grid, CrowdConfig(rebuild_worker=False))
    planners = ["astar", "jps", "bidirectional", "dstar", "navmesh", "hierarchy", "flowfield"]
    for k, planner in enumerate(planners):
        starts = [(3.5 + i, 4.5 + 5 * k) for i in range(6)]
        ids = crowd.add_agents(starts, avoidance=True, group=5 if planner == "flowfield" else -1)
        crowd.move(ids, (58.5, 30.5), planner=planner)
    out = {}
    for _ in range(90):
        crowd.update(DT)
    cells = np.array([[32, y] for y in range(20, 24)])
    grid.set_passable(cells, False)
    crowd.cells_changed(cells)
    crowd.finish_rebuilds()
    out.update(_run(crowd, 600))
    return out


def contacts() -> dict:
    p = np.ones((30, 80), dtype=bool)
    p[:12, 40] = False
    p[18:, 40] = False
    grid = Grid(p)
    crowd = Crowd(grid, CrowdConfig(contacts=True, rebuild_worker=False))
    left = [(5.5 + (i % 6), 10.5 + i // 6) for i in range(60)]
    right = [(74.5 - (i % 6), 10.5 + i // 6) for i in range(60)]
    a = crowd.add_agents(left, group=1, avoidance=True)
    b = crowd.add_agents(right, group=2, avoidance=True)
    crowd.move(a, (75.5, 15.5), planner="flowfield")
    crowd.move(b, (5.5, 15.5), planner="leader")
    return _run(crowd, 900)


def esper_scene() -> dict:
    import esper

    from rtsnav.components import Flock, NavigationAgent, Position, Velocity
    from rtsnav.systems import Navigation, install

    esper.switch_world(f"fingerprint{np.random.default_rng().integers(1 << 30)}")
    p = np.ones((40, 60), dtype=bool)
    p[10:30, 25] = False
    nav = Navigation(Grid(p), cache_dir=False)
    install(nav)
    for i in range(40):
        esper.create_entity(Position(3.5 + i % 5, 5.5 + i // 5, 0.0), Velocity(),
                            NavigationAgent(target_position=(55.5, 20.5, 0.0), max_speed=4.0, radius=0.4,
                                            method="astar" if i % 2 else "navmesh"))
    for i in range(30):
        esper.create_entity(Position(3.5 + i % 5, 25.5 + i // 5, 0.0), Velocity(), Flock(group=3),
                            NavigationAgent(target_position=(50.5, 30.5, 0.0), max_speed=4.0, radius=0.4,
                                            method="flowfield"))
    positions = Digest()
    for _ in range(600):
        esper.process(DT)
    for _, (pos,) in sorted(esper.get_components(Position)):
        positions.add(np.array([pos.x, pos.y, pos.z]))
    return {"positions": positions.hex()}


SCENES = {"river": river, "narrow_gap": narrow_gap, "map_edit": map_edit, "contacts": contacts, "esper": esper_scene}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, help="write the fingerprints here")
    ap.add_argument("--compare", help="compare with fingerprints written before; exit 1 on a difference")
    ap.add_argument("--scenes", nargs="*", default=list(SCENES))
    args = ap.parse_args(argv)
    result = {}
    for name in args.scenes:
        result[name] = SCENES[name]()
        print(f"{name:12s} {result[name]}", flush=True)
    save_json(args.json, result)
    if args.compare:
        with open(args.compare) as f:
            before = json.load(f)
        same = all(before.get(k) == v for k, v in result.items())
        print("identical to", args.compare if same else "DIFFERENT from", args.compare)
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
