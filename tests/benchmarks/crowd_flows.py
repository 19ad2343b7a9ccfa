"""Where flows meet: the crowd scenes of the chokepoint issue, measured with default settings
(units avoid each other, as a game sets them). Prints a table, writes JSON.

    python tests/benchmarks/crowd_flows.py [--json out.json] [--quick]

Scenes (``Crowd`` only, no esper):
* bridge N v N — single A* units of two teams head-on over one 3-cell bridge (10, 40, 100 a side):
  completion, time against one team crossing alone (target ≤ 2.5×), overlaps;
* gap flow — units of radius 0.4 at speed 3 through a 3-cell gap, one way and both ways: units per
  second against the geometric limit (gap / diameter) × (speed / diameter) (targets 60% / 40%);
* river 200 v 200 — two armies of mixed planners (a flock of 100 and 100 single units of A*,
  navmesh, hierarchy, JPS+) swap banks: arrived within 120 s (target ≥ 98%), silent stuck units;
* bridges — one leader group of 250 to a mid-map point across the river: the share of each bridge
  (target ≥ 25% each);
* first steps — 200 single units ordered across a 256² map: the share moving toward the target
  within 0.3 s (target ≥ 95%);
* spawn — units spawned overlapping: pairs closer than 0.5 × the radii sum after 3 s idle;
* wall clearance — units of radius 0.3 … 1.5 across room-64-64-8 (scaled ×4): the closest a
  centre came to a wall, in radii (target ≥ 0.95);
* four-way — four groups of 50 crossing a plaza to the opposite sides;
* corner — 250 units ordered into a 9×9 pocket that holds far fewer: settled, failed, still pushing;
* cost — ms per tick of 2,000 and 10,000 avoiding agents walking (targets 4 and 16 ms), and the
  5,000-agent circle against RVO2's C++ ORCA (pyrvo) in the same run;
* demo river — the demo (offscreen) with 500 and 2,000 units, both teams ordered to the other
  bank, by move and attack-move: overlaps (target: none under 0.5 ×, under 0.9 × at most 0.5% of
  the units at the worst tick).
Overlap columns: the most pairs closer than 0.9 × the radii sum at one tick (mates, others) and
whether any pair came closer than 0.5 ×.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy.spatial import cKDTree

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from rtsnav.levels import load_level  # noqa: E402
from rtsnav.names import NavState  # noqa: E402
from rtsnav.systems.nav import Grid  # noqa: E402
from rtsnav.systems.nav.crowd import Crowd, CrowdConfig  # noqa: E402
from tests.benchmarks.report import save_json  # noqa: E402

DT = 1 / 30


class Watch:
    """Per-tick overlap counts (same team / other team) and silent stuck units: under an order,
    no movement of 0.5 world units for more than 5 s, and no ``stuck`` or ``path_failed`` event
    in the last 5 s (an event is due at least every ``stuck_after`` + 0.5 s while it stands)."""

    def __init__(self, crowd: Crowd, team: np.ndarray, radius: np.ndarray) -> None:
        self.crowd, self.team, self.radius = crowd, team, radius
        self.worst_mates = self.worst_others = 0
        self.under_half = 0
        self.still = np.zeros(len(team))
        self.anchor = crowd.positions[:, :2].copy()
        self.silent = set()
        self.now = 0.0
        self.told = np.full(len(team), -np.inf)             # when each unit was last told about

    def tick(self, stuck: np.ndarray) -> None:
        pos = self.crowd.positions[:, :2]
        pairs = np.array(sorted(cKDTree(pos).query_pairs(2 * 0.9 * self.radius.max())), dtype=np.int64).reshape(-1, 2)
        if len(pairs):
            d = np.hypot(*(pos[pairs[:, 0]] - pos[pairs[:, 1]]).T)
            limit = self.radius[pairs[:, 0]] + self.radius[pairs[:, 1]]
            close = d < 0.9 * limit
            same = self.team[pairs[:, 0]] == self.team[pairs[:, 1]]
            self.worst_mates = max(self.worst_mates, int((close & same).sum()))
            self.worst_others = max(self.worst_others, int((close & ~same).sum()))
            self.under_half += int((d < 0.5 * limit).sum())
        walking = (self.crowd.states == NavState.FOLLOWING) | (self.crowd.states == NavState.PLANNING)
        moved = np.hypot(*(pos - self.anchor).T) > 0.5
        self.anchor[moved] = pos[moved]
        self.still = np.where(moved | ~walking, 0.0, self.still + DT)
        self.now += DT
        self.told[stuck] = self.now
        self.silent.update(np.flatnonzero((self.still > 5.0) & (self.now - self.told > 5.0)).tolist())

    def row(self) -> dict:
        return {"overlap_mates_worst": self.worst_mates, "overlap_others_worst": self.worst_others,
                "pair_ticks_under_half": self.under_half, "silent_stuck": len(self.silent)}


def _run(crowd: Crowd, ids: np.ndarray, team: np.ndarray, radius: np.ndarray, limit_s: float) -> dict:
    watch = Watch(crowd, team, radius)
    done = np.zeros(len(ids), dtype=bool)
    first = np.full(len(ids), np.nan)
    t0 = time.perf_counter()
    ticks = 0
    for ticks in range(1, int(limit_s / DT) + 1):
        ev = crowd.update(DT)
        hit = np.isin(ids, ev.reached)
        first[hit & ~done] = ticks * DT
        done |= hit
        watch.tick(np.concatenate([ev.stuck, ev.failed]))
        if done.all():
            break
    return {"arrived": int(done.sum()), "units": len(ids), "seconds": round(ticks * DT, 1),
            "ms_per_tick": round((time.perf_counter() - t0) * 1e3 / max(ticks, 1), 2), **watch.row(),
            "last_arrival_s": round(float(np.nanmax(first)) if done.any() else math.nan, 1)}


def _bridge_grid() -> Grid:
    p = np.zeros((40, 120), dtype=bool)
    p[:, :50] = True
    p[:, 70:] = True
    p[19:22, 50:70] = True                       # the bridge: 3 cells wide, 20 long
    return Grid(p)


def _block(x0: float, y0: float, n: int, cols: int, spacing: float = 1.0) -> np.ndarray:
    k = np.arange(n)
    return np.stack([x0 + (k % cols) * spacing, y0 + (k // cols) * spacing], axis=1) + 0.5


def bridge(n: int, both: bool) -> dict:
    crowd = Crowd(_bridge_grid(), CrowdConfig(rebuild_worker=False))
    west = crowd.add_agents(_block(20, 10, n, 10), radius=0.4, max_speed=3.0, avoidance=True)
    ids, team = [west], [np.zeros(n, dtype=np.int64)]
    for i in west.tolist():
        crowd.move([i], (105.5, 20.5))
    if both:
        east = crowd.add_agents(_block(90, 10, n, 10), radius=0.4, max_speed=3.0, avoidance=True)
        for i in east.tolist():
            crowd.move([i], (14.5, 20.5))
        ids.append(east)
        team.append(np.ones(n, dtype=np.int64))
    all_ids = np.concatenate(ids)
    return _run(crowd, all_ids, np.concatenate(team), np.full(len(all_ids), 0.4), 240.0)


def gap_flow(both: bool, count: int = 60) -> dict:
    p = np.ones((40, 80), dtype=bool)
    p[:, 40] = False
    p[19:22, 40] = True                          # a 3-cell gap in a wall
    crowd = Crowd(Grid(p), CrowdConfig(rebuild_worker=False))
    r, v = 0.4, 3.0
    west = crowd.add_agents(_block(20, 5, count, 6), radius=r, max_speed=v, avoidance=True)
    for i in west.tolist():
        crowd.move([i], (70.5, 20.5))
    ids = [west]
    if both:
        east = crowd.add_agents(_block(54, 5, count, 6), radius=r, max_speed=v, avoidance=True)
        for i in east.tolist():
            crowd.move([i], (9.5, 20.5))
        ids.append(east)
    all_ids = np.concatenate(ids)
    side = np.sign(crowd.positions[all_ids, 0] - 40.5)
    crossed_at = np.full(len(all_ids), np.nan)
    for tick in range(1, int(180 / DT)):
        crowd.update(DT)
        now = np.sign(crowd.positions[all_ids, 0] - 40.5)
        new = (now != side) & np.isnan(crossed_at)
        crossed_at[new] = tick * DT
        if not np.isnan(crossed_at).any():
            break
    t = np.sort(crossed_at[~np.isnan(crossed_at)])
    # steady flow: the middle 80% of the crossings
    lo, hi = int(0.1 * len(t)), max(int(0.9 * len(t)) - 1, int(0.1 * len(t)) + 1)
    flow = (hi - lo) / max(t[hi] - t[lo], 1e-9) if len(t) > 2 else 0.0
    limit = (3.0 / (2 * r)) * (v / (2 * r))
    return {"crossed": int(len(t)), "units": len(all_ids), "flow_per_s": round(float(flow), 2),
            "geometric_limit_per_s": round(limit, 2), "share_of_limit": round(float(flow / limit), 2)}


def river_armies(per_side: int = 200) -> dict:
    level = load_level("river")
    grid = level.grid
    crowd = Crowd(grid, CrowdConfig(rebuild_worker=False))
    rng = np.random.default_rng(3)
    ids, team, goals = [], [], {1: (84.5, 32.5), 2: (11.5, 32.5)}
    for side, spawn in level.spawns.items():
        cells = np.asarray(spawn)[rng.choice(len(spawn), per_side, replace=len(spawn) < per_side)]
        pos = cells + 0.5 + rng.uniform(-0.25, 0.25, (per_side, 2))
        flock = crowd.add_agents(pos[: per_side // 2], radius=0.35, max_speed=5.0, group=side, avoidance=True)
        crowd.move(flock, goals[side], planner="leader")
        singles = crowd.add_agents(pos[per_side // 2:], radius=0.35, max_speed=5.0, avoidance=True)
        for k, i in enumerate(singles.tolist()):
            crowd.move([i], goals[side], planner=("astar", "navmesh", "hierarchy", "jps+")[k % 4])
        ids += [flock, singles]
        team.append(np.full(per_side, side))
    all_ids = np.concatenate(ids)
    return _run(crowd, all_ids, np.concatenate(team), np.full(len(all_ids), 0.35), 120.0)


def bridge_shares(units: int = 250) -> dict:
    level = load_level("river")
    crowd = Crowd(level.grid, CrowdConfig(rebuild_worker=False))
    spawn = np.asarray(level.spawns[1])
    rng = np.random.default_rng(5)
    pos = spawn[rng.choice(len(spawn), units, replace=len(spawn) < units)] + 0.5 + rng.uniform(-0.25, 0.25, (units, 2))
    ids = crowd.add_agents(pos, radius=0.35, max_speed=5.0, group=1, avoidance=True)
    crowd.move(ids, (70.5, 32.5), planner="leader")
    used = np.zeros(len(ids), dtype=np.int64)         # 1 north, 2 south
    for _ in range(int(90 / DT)):
        crowd.update(DT)
        p = crowd.positions[ids]
        on = (p[:, 0] >= 46.5) & (p[:, 0] <= 49.5) & (used == 0)
        used[on & (p[:, 1] < 32)] = 1
        used[on & (p[:, 1] >= 32)] = 2
    crossed = max(int((used > 0).sum()), 1)
    return {"units": units, "crossed": int((used > 0).sum()), "north_share": round(float((used == 1).sum() / crossed), 2),
            "south_share": round(float((used == 2).sum() / crossed), 2)}


def first_steps(units: int = 200) -> dict:
    p = np.ones((256, 256), dtype=bool)
    rng = np.random.default_rng(9)
    for _ in range(60):                              # scattered walls so searches are real work
        x, y = rng.integers(20, 236, 2)
        p[y:y + rng.integers(2, 30), x:x + 2] = False
    grid = Grid(p)
    crowd = Crowd(grid, CrowdConfig(rebuild_worker=False))
    open_left = np.argwhere(p[:, :40])[:, ::-1]
    pos = open_left[rng.choice(len(open_left), units, replace=False)] + 0.5
    ids = crowd.add_agents(pos, radius=0.4, max_speed=4.0, avoidance=True)
    target = (245.5, 128.5)
    for i in ids.tolist():
        crowd.move([i], target)
    start = crowd.positions[ids, :2].copy()
    for _ in range(int(round(0.3 / DT))):
        crowd.update(DT)
    to = np.asarray(target) - start
    moved = crowd.positions[ids, :2] - start
    toward = (moved * to).sum(axis=1) / np.hypot(*to.T) > 0.05
    return {"units": units, "moving_toward_target_within_0.3s": round(float(toward.mean()), 3)}


def spawn_overlap(units: int = 200) -> dict:
    crowd = Crowd(Grid(np.ones((40, 40), dtype=bool)), CrowdConfig(rebuild_worker=False))
    rng = np.random.default_rng(2)
    pos = 20 + rng.uniform(-3, 3, (units, 2))       # far denser than bodies allow
    crowd.add_agents(pos, radius=0.4, avoidance=True, group=1)
    for _ in range(90):
        crowd.update(DT)
    p = crowd.positions[:, :2]
    d = np.array([np.hypot(*(p[a] - p[b])) for a, b in cKDTree(p).query_pairs(0.8)])
    return {"units": units, "pairs_under_half_after_3s_idle": int((d < 0.4).sum()) if len(d) else 0}


def wall_clearance(radii=(0.3, 0.6, 1.0, 1.5)) -> dict:
    from scipy.ndimage import distance_transform_edt

    from rtsnav.levels import load_movingai_map

    room = load_movingai_map("room-64-64-8.map").passable
    p = np.kron(room, np.ones((4, 4), dtype=bool))          # 256² cells: doors 4 cells wide, room for 1.5
    grid = Grid(p)
    # distance from each point to the nearest wall cell, sampled on a fine lattice
    fine = 8
    wall_dist = distance_transform_edt(np.kron(p, np.ones((fine, fine), dtype=bool))) / fine
    out = {}
    rng = np.random.default_rng(4)
    for r in radii:
        crowd = Crowd(grid, CrowdConfig(rebuild_worker=False))
        clear = distance_transform_edt(p) > r + 0.6
        cells = np.argwhere(clear)[:, ::-1]
        picks = cells[rng.choice(len(cells), 40, replace=False)]
        ids = crowd.add_agents(picks + 0.5, radius=r, max_speed=4.0, avoidance=True)
        goals = cells[rng.choice(len(cells), 40, replace=False)] + 0.5
        for i, g in zip(ids.tolist(), goals):
            crowd.move([i], g)
        worst = np.inf
        for _ in range(int(60 / DT)):
            crowd.update(DT)
            pos = crowd.positions[ids, :2]
            k = np.clip((pos * fine).astype(np.int64), 0, np.array(wall_dist.shape[::-1]) - 1)
            worst = min(worst, float((wall_dist[k[:, 1], k[:, 0]] / r).min()))
        arrived = int((crowd.states[ids] == NavState.FINISHED).sum())
        out[f"radius {r}"] = {"closest_to_wall_in_radii": round(worst, 2), "arrived": arrived, "units": len(ids)}
    return out


def four_way(per_side: int = 50) -> dict:
    p = np.zeros((80, 80), dtype=bool)
    p[30:50, :] = True
    p[:, 30:50] = True                                       # a plus-shaped plaza
    crowd = Crowd(Grid(p), CrowdConfig(rebuild_worker=False))
    starts = {"west": (2, 32, (77.5, 40.5)), "east": (68, 32, (2.5, 40.5)), "north": (32, 2, (40.5, 77.5)),
              "south": (32, 68, (40.5, 2.5))}
    ids, team = [], []
    for k, (name, (x0, y0, goal)) in enumerate(starts.items()):
        across, along = np.arange(per_side) % 16, np.arange(per_side) // 16     # 16 wide, rows deep
        if name in ("west", "east"):
            block = np.stack([x0 + along, y0 + across], axis=1) + 0.5
        else:
            block = np.stack([x0 + across, y0 + along], axis=1) + 0.5
        a = crowd.add_agents(block, radius=0.4, max_speed=3.0, avoidance=True)
        for i in a.tolist():
            crowd.move([i], goal)
        ids.append(a)
        team.append(np.full(per_side, k))
    all_ids = np.concatenate(ids)
    return _run(crowd, all_ids, np.concatenate(team), np.full(len(all_ids), 0.4), 180.0)


def corner(units: int = 250) -> dict:
    p = np.ones((60, 60), dtype=bool)
    p[50:60, 50] = False
    p[50, 50:60] = False
    p[50, 54:57] = True                                      # a pocket of 9×9 cells behind a 3-cell door
    crowd = Crowd(Grid(p), CrowdConfig(rebuild_worker=False))
    ids = crowd.add_agents(_block(2, 2, units, 16, 1.0), radius=0.5, max_speed=4.0, group=1, avoidance=True)
    crowd.move(ids, (57.5, 57.5), planner="flowfield")
    failed = set()
    for _ in range(int(90 / DT)):
        failed |= set(crowd.update(DT).failed.tolist())
    states = crowd.states[ids]
    pushing = int(((states == NavState.FOLLOWING) & (np.hypot(*crowd.velocities[ids, :2].T) > 0.2)).sum())
    return {"units": units, "settled": int((states == NavState.FINISHED).sum()), "failed": len(failed),
            "still_walking": int((states == NavState.FOLLOWING).sum()), "pushing": pushing}


def cost(counts=(2000, 10000)) -> dict:
    from rtsnav.levels import load_movingai_map

    grid = load_movingai_map("AcrosstheCape.map")
    rng = np.random.default_rng(8)
    cells = np.argwhere(grid.passable)[:, ::-1]
    out = {}
    for n in counts:
        crowd = Crowd(grid, CrowdConfig(rebuild_worker=False, planning_units=10**9))
        ids = crowd.add_agents(cells[rng.choice(len(cells), n, replace=False)] + 0.5, avoidance=True)
        goals = cells[rng.choice(len(cells), n, replace=False)] + 0.5
        near = goals.copy()
        pos = crowd.positions[ids, :2]
        step = goals - pos
        near = pos + step * np.minimum(1.0, 30.0 / np.maximum(np.hypot(*step.T), 1e-9))[:, None]
        near_cells = np.floor(near).astype(np.int64)
        ok = grid.passable[np.clip(near_cells[:, 1], 0, grid.height - 1), np.clip(near_cells[:, 0], 0, grid.width - 1)]
        for i, g, fine in zip(ids.tolist(), near, ok):
            if fine:
                crowd.move([i], g)
        for _ in range(300):                                  # orders taken (150 a tick), plans landed
            crowd.update(DT)
            if not (crowd.states == NavState.PLANNING).any():
                break
        t = []
        for _ in range(60):
            t0 = time.perf_counter()
            crowd.update(DT)
            t.append((time.perf_counter() - t0) * 1e3)
        out[f"{n} agents"] = {"median_ms": round(float(np.median(t)), 2), "p95_ms": round(float(np.percentile(t, 95)), 2)}
    # the same run: RVO2's C++ ORCA (pyrvo) and rtsnav on the 5,000-agent circle, 60 ticks each
    from tests.benchmarks.crowd import circle_rtsnav, circle_rvo2

    out["circle 5000 rtsnav"] = circle_rtsnav(5000, 60)["ms_per_tick"]
    try:
        out["circle 5000 RVO2 (pyrvo)"] = circle_rvo2(5000, 60)["ms_per_tick"]
    except ImportError:
        out["circle 5000 RVO2 (pyrvo)"] = "pyrvo missing: pip install -e .[bench]"
    return out


def demo_armies(units: int, mode: str, seconds: float = 40.0) -> dict:
    """The demo's river level with ``units`` in all (``rtsnav.game``, offscreen): both teams
    ordered to the other bank (``mode`` ``"move"`` or ``"attack"``); the most pairs closer than
    0.9 × the radii sum at one tick (mates, others), pair-ticks closer than 0.5 ×, arrivals."""
    from rtsnav.game.__main__ import _apply
    from rtsnav.game.app import RtsApp

    app = RtsApp("river", units, headless=True, size=(320, 200))
    try:
        crowd, team, ids = app.navigation.crowd, app.army.team, app.army.ids
        app.step(30)
        w, h = app.level.grid.width, app.level.grid.height
        for t in (1, 2):
            _apply(app, "order", {"select": t, "target": [w - 12.5, h / 2] if t == 1 else [11.5, h / 2], "mode": mode})
        worst_mates = worst_others = under = 0
        for _ in range(int(seconds / DT)):
            app.step(1)
            living = app.army.alive                  # the dead left the crowd (attack mode kills)
            pos = crowd.agents.position[ids[living], :2]
            radius, side = crowd.agents.radius[ids[living]], team[living]
            pairs = np.array(sorted(cKDTree(pos).query_pairs(2 * radius.max())), dtype=np.int64).reshape(-1, 2)
            if len(pairs):
                d = np.hypot(*(pos[pairs[:, 0]] - pos[pairs[:, 1]]).T)
                limit = radius[pairs[:, 0]] + radius[pairs[:, 1]]
                same = side[pairs[:, 0]] == side[pairs[:, 1]]
                worst_mates = max(worst_mates, int(((d < 0.9 * limit) & same).sum()))
                worst_others = max(worst_others, int(((d < 0.9 * limit) & ~same).sum()))
                under += int((d < 0.5 * limit).sum())
        states = crowd.states[ids[app.army.alive]]
        return {"units": units, "mode": mode, "deaths": sum(app.army.deaths.values()), "worst_pairs_under_0.9_mates": worst_mates,
                "worst_pairs_under_0.9_others": worst_others, "allowed_0.5%_of_units": round(0.005 * units, 1),
                "pair_ticks_under_0.5": under, "finished": int((states == NavState.FINISHED).sum()),
                "failed": int((states == NavState.FAILED).sum())}
    finally:
        app.destroy()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--quick", action="store_true", help="10 and 40 a side only, no river armies")
    args = ap.parse_args(argv)
    rows: dict[str, dict] = {}

    def put(name: str, row: dict) -> None:
        rows[name] = row
        print(f"{name:30s} {row}", flush=True)             # as it comes: a long run shows progress

    for n in (10, 40) if args.quick else (10, 40, 100):
        alone, both = bridge(n, False), bridge(n, True)
        complete = both["arrived"] == both["units"]
        both["time_vs_alone"] = round(both["last_arrival_s"] / alone["last_arrival_s"], 2) if complete else None
        put(f"bridge {n} alone", alone)
        put(f"bridge {n} v {n}", both)
    put("gap one way", gap_flow(False))
    put("gap both ways", gap_flow(True))
    if not args.quick:
        put("river 200 v 200", river_armies())
    put("leader group over the river", bridge_shares())
    put("first steps 256^2", first_steps())
    put("spawn overlap", spawn_overlap())
    put("wall clearance", wall_clearance())
    put("four-way", four_way())
    put("corner", corner())
    put("cost", cost())
    if not args.quick:
        for units, mode in ((500, "move"), (500, "attack"), (2000, "move"), (2000, "attack")):
            put(f"demo river {units} {mode}", demo_armies(units, mode))
    save_json(args.json, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
