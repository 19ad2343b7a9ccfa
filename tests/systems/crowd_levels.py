"""Hand-built crowd levels from the flow-field issue, and a runner that checks every tick.

Each level: a passable map, a spawn box for 200 units and a goal. Cells are 1 world unit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import esper
import numpy as np

from rtsnav.components import Flock, NavigationAgent, NavState, Position, Velocity
from rtsnav.systems import Navigation, install
from rtsnav.systems.nav import CrowdConfig, Grid
from rtsnav.systems.nav.flow import FlowField


@dataclass
class CrowdLevel:
    name: str
    grid: Grid
    spawn: tuple[int, int, int, int]          # x0, y0, x1, y1 (cells, inclusive-exclusive)
    goal: tuple[int, int]
    gap_width: int                            # narrowest passage on the way, cells


def narrow_passage() -> CrowdLevel:
    """A wall across the map with a single one-cell gap, off the straight line."""
    p = np.ones((40, 60), dtype=bool)
    p[:, 30] = False
    p[30, 30] = True                                     # the one-cell gap (x=30, y=30)
    return CrowdLevel("narrow passage", Grid(p), (4, 5, 20, 20), (50, 10), 1)


def u_trap() -> CrowdLevel:
    """A concave U whose mouth faces the units; the goal lies straight behind its bottom."""
    p = np.ones((50, 70), dtype=bool)
    p[10:40, 40] = False                                 # bottom of the U
    p[10, 22:41] = False                                 # arms reaching back toward the units
    p[39, 22:41] = False
    return CrowdLevel("U trap", Grid(p), (18, 16, 34, 34), (62, 25), 10)


def open_field() -> CrowdLevel:
    p = np.ones((50, 80), dtype=bool)
    return CrowdLevel("open field", Grid(p), (3, 15, 19, 35), (72, 25), 50)


def long_corridor() -> CrowdLevel:
    """Two rooms joined by a corridor two cells wide and sixty long."""
    p = np.zeros((40, 110), dtype=bool)
    p[5:35, 2:22] = True                                 # west room
    p[19:21, 22:82] = True                               # corridor, 2 wide, 60 long
    p[5:35, 82:108] = True                               # east room
    return CrowdLevel("2-wide corridor", Grid(p), (4, 8, 20, 32), (100, 20), 2)


LEVELS = [narrow_passage, u_trap, open_field, long_corridor]


@dataclass
class CrowdResult:
    arrived: int
    total: int
    ticks: int
    max_stuck_s: float        # longest time a walking unit stayed within 1% of speed × 5 s of a spot
    in_wall: int
    nan: bool


def spawn_crowd(level: CrowdLevel, count: int, method: str, seed: int | None = 0, speed: float = 4.0,
                radius: float = 0.35):
    """Spawn ``count`` units of one flock in the level's spawn box, ordered to its goal
    (``seed=None``: one unit per cell centre, row by row, no randomness)."""
    grid = level.grid
    rng = np.random.default_rng(seed)
    x0, y0, x1, y1 = level.spawn
    cells = [(x, y) for y in range(y0, y1) for x in range(x0, x1) if grid.passable[y, x]]
    if seed is None:
        picks = np.arange(count)
    else:
        picks = rng.choice(len(cells), size=count, replace=len(cells) < count)
    target = grid.cell_to_world(*level.goal)
    ents = []
    for i in picks:
        x, y = cells[i]
        jitter = rng.uniform(-0.3, 0.3, 2) if seed is not None else np.zeros(2)
        ents.append(esper.create_entity(
            Position(x + 0.5 + jitter[0], y + 0.5 + jitter[1]), Velocity(), Flock(group=1),
            NavigationAgent(target_position=target, max_speed=speed, radius=radius, method=method)))
    return ents


def far_cells(level: CrowdLevel, count: int) -> list[tuple[int, int]]:
    """Open cells at least 10 cells from the spawn box, no farther (by path) from the goal than
    the box's farthest cell, spread by a fixed seed."""
    cost = FlowField.build(level.grid, [level.goal]).integration
    x0, y0, x1, y1 = level.spawn
    box = cost[y0:y1, x0:x1]
    far = float(box[np.isfinite(box)].max())
    ys, xs = np.nonzero(np.isfinite(cost) & (cost <= far))
    gap = np.maximum.reduce([x0 - xs, xs - (x1 - 1), y0 - ys, ys - (y1 - 1), np.zeros_like(xs)])
    keep = gap >= 10
    picks = np.random.default_rng(3).choice(int(keep.sum()), size=count, replace=False)
    return list(zip(xs[keep][picks].tolist(), ys[keep][picks].tolist(), strict=True))


def tick_bound(level: CrowdLevel, count: int, speed: float, dt: float) -> int:
    """Walking time of the farthest unit at ``speed`` plus queueing through the narrowest gap."""
    ff = FlowField.build(level.grid, [level.goal])
    x0, y0, x1, y1 = level.spawn
    far = float(np.nanmax(np.where(np.isfinite(ff.integration[y0:y1, x0:x1]), ff.integration[y0:y1, x0:x1], np.nan)))
    seconds = 1.5 * far / speed + 1.5 * count / (speed * level.gap_width) + 5.0
    return int(math.ceil(seconds / dt))


def run_crowd(level: CrowdLevel, count: int = 200, method: str = "flowfield", seed: int | None = 0,
              speed: float = 4.0, dt: float = 1 / 30, navigation_kw: dict | None = None,
              before_tick=None, radius: float = 0.35) -> CrowdResult:
    """Run a crowd to its goal, checking walls, NaN and stuck units every tick."""
    nav = Navigation(level.grid, CrowdConfig(**(navigation_kw or {})))
    install(nav)
    ents = spawn_crowd(level, count, method, seed, speed, radius)
    bound = tick_bound(level, count, speed, dt)
    # "stuck": a walking unit that stays within 1% of (speed × 5 s) of one spot; the clock of a
    # unit restarts whenever it gets that far from where its clock started
    still = 0.01 * speed * 5.0
    anchor = None
    still_for = np.zeros(count)
    max_stuck = 0.0
    in_wall = 0
    nan = False
    grid = level.grid
    t = nav.agents
    for tick in range(bound):
        if before_tick is not None:
            before_tick(tick, nav, ents)
        esper.process(dt)
        n = t.count
        pos = t.position[:n]
        if not np.isfinite(pos).all() or not np.isfinite(t.velocity[:n]).all():
            nan = True
        cells = grid.world_to_cells(pos)
        in_wall += int((~grid.passable[cells[:, 1], cells[:, 0]]).sum())
        state = t.nav_state[:n, 0]
        walking = state == NavState.FOLLOWING
        rows = np.array([t.row_of[e] for e in ents])
        now = t.position[rows, :2]
        if anchor is None:
            anchor = now.copy()
        away = np.hypot(*(now - anchor).T) > still
        reset = away | ~walking[rows]
        anchor[reset] = now[reset]
        still_for = np.where(reset, 0.0, still_for + dt)
        max_stuck = max(max_stuck, float(still_for.max()))
        if not (walking | (state == NavState.PLANNING)).any() and tick > 2:
            break
    arrived = int((t.nav_state[: t.count, 0] == NavState.FINISHED).sum())
    return CrowdResult(arrived, count, tick + 1, max_stuck, in_wall, nan)


def seek_leader_baseline():
    """The simple design the seed texts try first: the leader walks its A* path, followers steer
    straight at the leader (plus flocking). Returns a ``GroupSteering`` class to put in the
    crowd's instead of the corridor one (``crowd.groups.__class__ = ...``)."""
    from rtsnav.systems.nav.crowd.groups import GroupSteering

    class SeekLeaderSteering(GroupSteering):
        def directions(self, order, members):
            s = self._agents
            if order.leader is None or not s.alive[order.leader]:
                return super().directions(order, members)
            offset = s.position[order.leader, :2] - s.position[members, :2]
            dist = np.hypot(offset[:, 0], offset[:, 1])
            out = np.zeros_like(offset)
            keep = dist > 1e-9
            out[keep] = offset[keep] / dist[keep, None]     # "head for the leader"; arrival unchanged
            return out

    return SeekLeaderSteering


def gap_by_the_corner() -> CrowdLevel:
    """The README's example: 100 units packed near a long wall whose one-cell gap they must
    queue through (two units used to jam the gap's mouth, pushed back by wall avoidance)."""
    p = np.ones((40, 60), dtype=bool)
    p[:, 30] = False
    p[30, 30] = True
    return CrowdLevel("gap by the corner", Grid(p), (5, 5, 15, 15), (50, 10), 1)
