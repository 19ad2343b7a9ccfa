"""Path following, one numba pass over every agent that walks its own path (modes PATH, LEADER,
DETOUR, and QUICK: a planning unit's quick route, which ends without an arrival).

An agent passes its waypoint within ``path_desired_distance`` (and, every few ticks, within
``LOOK_CELLS``), but early only when the next waypoint is in sight from where it *really*
stands — its centre and both sides of the body it keeps off walls (its whole ``radius``: the
crowd keeps every disc that far from walls) — so cutting a corner never walks it into a wall; or, when the planner's own next leg grazes a corner
(a path through a one-cell gap), with a clear centre line once within a radius of the waypoint or
pushed past it (units up to half a cell wide). It arrives within
``target_desired_distance`` of the last one. Its speed is capped at ``distance / dt`` so it never
steps past a waypoint and oscillates around it. Every ``DRIFT_CHECK_EVERY`` ticks an agent farther
than ``path_max_distance`` from the legs it walks (the current one, and those it passed early
by looking ahead) is reported to re-plan, and so is a stopped one whose waypoint is hidden from
it by a wall (pushed off its line into a corner). Off-mesh links: an agent stops advancing at a
link's start; the caller carries it across.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..flow.clearance import WIDE
from ..grid_sight import segment_clear
from .state import (
    L_NAVIGATION_LAYERS,
    P_MAX_SPEED,
    P_PATH_DIST,
    P_PATH_MAX,
    P_RADIUS,
    P_TARGET_DIST,
    CrowdState,
    Mode,
    NavState,
)

__all__ = ["FollowResult", "follow_paths", "MAX_ADVANCES_PER_TICK", "DRIFT_CHECK_EVERY"]

#: Waypoints one agent may pass in a single tick (dense paths, fast agents).
MAX_ADVANCES_PER_TICK = 8
#: World distance at which an agent is *at* a waypoint and passes it unconditionally.
AT_WAYPOINT = 1e-3
#: Ticks between checks of the distance to the path (``path_max_distance``).
DRIFT_CHECK_EVERY = 4
#: An agent slower than this fraction of its speed whose waypoint a wall hides from where it
#: stands re-plans (a unit pushed into a wall corner by its crowd otherwise presses into it).
STOPPED = 0.1
#: Every ``LOOK_EVERY`` ticks (staggered over the agents) a unit walking its own path (not a
#: group's leader, whose corridor the group follows) within ``LOOK_CELLS`` of its waypoint passes
#: it as soon as the next one is in sight of its whole body: a crowd heading for a gap's corner
#: waypoint no longer converges on it from everywhere (the units beside it walk straight
#: through; the flow through a 3-cell gap went from one file to two lanes).
LOOK_CELLS = 8.0
LOOK_EVERY = 4
_NO_LINK = np.iinfo(np.int64).max


class FollowResult:
    """What path following saw this tick: arrivals, passed waypoints, taken links, drifters."""

    def __init__(self) -> None:
        self.arrived = np.zeros(0, dtype=np.int64)
        self.waypoints: list[tuple[int, int, tuple[float, float, float]]] = []
        self.links: list[tuple[int, str, tuple, tuple]] = []
        self.drifted = np.zeros(0, dtype=np.int64)


def follow_paths(state: CrowdState, grid, dt: float, tick: int, want_waypoints: bool,
                 surface=None) -> FollowResult:
    """Advance waypoints and write the velocity of every agent walking its own path.
    ``surface``: the stacked-surface navmesh the crowd walks (``LevelCache.surface``), on which
    a waypoint is passed (and the last one reached) only within its ``height_gate`` — a unit on
    the ground beside a ramp has not passed the ramp's waypoints above it."""
    height_gate = math.inf if surface is None else surface.height_gate
    out = FollowResult()
    s = state
    n = s.size
    if n == 0:
        return out
    link_at = np.full(n, _NO_LINK, dtype=np.int64)
    for agent, links in s.links.items():
        ahead = [i for i in links if i >= s.path_idx[agent]]
        if ahead:
            link_at[agent] = min(ahead)
    before = s.path_idx[:n].copy() if want_waypoints else s.path_idx[:0]
    flags = np.zeros(n, dtype=np.uint8)          # 1 arrived, 2 at a link start, 4 drifted
    # agents see the cells of their navigation layers: one pass per mask that hides some cells
    masks = s.agent_layers[:n, L_NAVIGATION_LAYERS]
    everyone = s.alive
    for mask in (np.unique(masks).tolist() if grid.layers is not None or ((masks & 1) == 0).any() else ()):
        seen = grid.masked(mask)
        if seen is not grid:
            group = np.zeros_like(s.alive)
            group[:n] = s.alive[:n] & (masks == mask)
            everyone = everyone & ~group                  # (a new array: the alive column is kept)
            _follow(group, s.mode, s.nav_state[:, 0], s.paused[:], s.position, s.velocity, s.path_start,
                    s.path_len, s.path_idx, s.agent_params, s.paths.points, link_at, seen.passable, grid.cell_size,
                    grid.origin[0], grid.origin[1], dt, tick % DRIFT_CHECK_EVERY == 0, flags, tick, height_gate)
    _follow(everyone, s.mode, s.nav_state[:, 0], s.paused[:], s.position, s.velocity, s.path_start,
            s.path_len, s.path_idx, s.agent_params, s.paths.points, link_at, grid.passable, grid.cell_size,
            grid.origin[0], grid.origin[1], dt, tick % DRIFT_CHECK_EVERY == 0, flags, tick, height_gate)
    out.arrived = np.flatnonzero(flags & 1)
    out.drifted = np.flatnonzero(flags & 4)
    points = s.paths.points
    if want_waypoints:
        for agent in np.flatnonzero(s.path_idx[:n] != before).tolist():
            for i in range(int(before[agent]), int(s.path_idx[agent])):
                x, y, z = points[s.path_start[agent] + i]
                out.waypoints.append((agent, i, (float(x), float(y), float(z))))
    for agent in np.flatnonzero(flags & 2).tolist():        # carried across an off-mesh link
        i = int(s.path_idx[agent])
        a, b = points[s.path_start[agent] + i], points[s.path_start[agent] + i + 1]
        out.links.append((agent, s.links[agent][i], tuple(float(v) for v in a), tuple(float(v) for v in b)))
        s.position[agent] = b
        s.path_idx[agent] = i + 1
    return out


@njit(cache=True)
def _clear_with_body(passable, cs, ox, oy, ax, ay, bx, by, radius):
    if not segment_clear(passable, cs, ox, oy, ax, ay, bx, by):
        return False
    if radius <= 0.0:
        return True
    dx, dy = bx - ax, by - ay
    length = math.sqrt(dx * dx + dy * dy)
    if length == 0.0:
        return True
    px, py = -dy / length * radius, dx / length * radius
    return (segment_clear(passable, cs, ox, oy, ax + px, ay + py, bx + px, by + py)
            and segment_clear(passable, cs, ox, oy, ax - px, ay - py, bx - px, by - py))


@njit(cache=True)
def _follow(alive, mode, nav_state, paused, position, velocity, path_start, path_len, path_idx, params, points,
            link_at, passable, cs, ox, oy, dt, check_drift, flags, tick, height_gate):
    for a in range(alive.shape[0]):
        walks_a_path = mode[a] == 1 or mode[a] == 3 or mode[a] == 5
        quick = mode[a] == 6 and nav_state[a] == 1          # planning: walks its quick route meanwhile
        if not alive[a] or paused[a] or path_len[a] == 0 or not ((nav_state[a] == 2 and walks_a_path) or quick):
            continue
        px, py = position[a, 0], position[a, 1]
        was_stopped = velocity[a, 0] ** 2 + velocity[a, 1] ** 2 < (STOPPED * params[a, 0]) ** 2
        s0 = path_start[a]
        last = path_len[a] - 1
        idx = path_idx[a]
        reach = params[a, 2]
        if (mode[a] == 1 or quick) and (a + tick) % LOOK_EVERY == 0:   # a look further ahead, staggered
            reach = max(reach, LOOK_CELLS * cs)
        for _ in range(MAX_ADVANCES_PER_TICK):
            if idx >= last:
                break
            wx, wy = points[s0 + idx, 0], points[s0 + idx, 1]
            dist = math.sqrt((wx - px) ** 2 + (wy - py) ** 2)
            if dist > reach:
                break
            if abs(points[s0 + idx, 2] - position[a, 2]) > height_gate:
                if dist <= 0.1 * params[a, 1]:
                    flags[a] |= 4                   # on the waypoint in plan, not at its height: re-plan
                break
            nx, ny = points[s0 + idx + 1, 0], points[s0 + idx + 1, 1]
            if dist > AT_WAYPOINT and not _clear_with_body(passable, cs, ox, oy, px, py, nx, ny,
                                                           params[a, 1]):
                # the planner's own leg may graze a corner (a point path through a one-cell gap):
                # within a radius of the waypoint, or pushed past it along the next leg, walking
                # on needs only a clear line — else a crowd jostling around a waypoint at a gap's
                # mouth keeps turning back to it and never passes. (A unit wider than half a cell
                # walks legs planned clear of its whole body: no exception for it.)
                passed = (px - wx) * (nx - wx) + (py - wy) * (ny - wy) > 0.0
                if (params[a, 1] > WIDE * cs or (dist > params[a, 1] and not passed)
                        or not segment_clear(passable, cs, ox, oy, px, py, nx, ny)):
                    break
            if idx == link_at[a]:
                flags[a] |= 2
                break
            idx += 1
        path_idx[a] = idx
        ox_, oy_ = points[s0 + idx, 0] - px, points[s0 + idx, 1] - py
        dist = math.sqrt(ox_ * ox_ + oy_ * oy_)
        if quick and idx >= last and dist <= params[a, 3]:
            velocity[a, 0] = 0.0                                # the quick route's end: wait for the plan
            velocity[a, 1] = 0.0
            velocity[a, 2] = 0.0
            continue
        if idx >= last and dist <= params[a, 3] and abs(points[s0 + idx, 2] - position[a, 2]) <= height_gate:
            flags[a] |= 1
            velocity[a, 0] = 0.0
            velocity[a, 1] = 0.0
            velocity[a, 2] = 0.0
            continue
        speed = min(params[a, 0], dist / dt)
        scale = speed / dist if dist > 0.0 else 0.0
        velocity[a, 0] = ox_ * scale
        velocity[a, 1] = oy_ * scale
        velocity[a, 2] = 0.0
        if check_drift and not quick:
            bx, by = points[s0 + idx, 0], points[s0 + idx, 1]
            off = _off_path(points, s0, idx, px, py, LOOK_CELLS * cs + params[a, 4])
            if off > params[a, 4]:
                flags[a] |= 4
            elif was_stopped and not segment_clear(passable, cs, ox, oy, px, py, bx, by):
                flags[a] |= 4            # pushed where a wall hides its waypoint: walking on would wedge it


@njit(cache=True)
def _off_path(points, s0, idx, px, py, back):
    """The distance from ``(px, py)`` to the legs of the path (starting at ``s0``) that end at
    waypoint ``idx`` or at one passed up to ``back`` along the path before it (a look ahead
    passes waypoints in sight early: the agent may walk a little behind them)."""
    best = np.inf
    walked = 0.0
    k = idx
    while True:
        j = k - 1 if k > 0 else 0
        ax, ay = points[s0 + j, 0], points[s0 + j, 1]
        bx, by = points[s0 + k, 0], points[s0 + k, 1]
        abx, aby = bx - ax, by - ay
        l2 = abx * abx + aby * aby
        t = ((px - ax) * abx + (py - ay) * aby) / l2 if l2 > 0.0 else 0.0
        t = min(max(t, 0.0), 1.0)
        best = min(best, math.hypot(px - (ax + abx * t), py - (ay + aby * t)))
        walked += math.sqrt(l2)
        if k == 0 or walked > back:
            return best
        k -= 1


# the indices the kernel reads, stated once (``_follow`` uses literals for numba)
assert (P_MAX_SPEED, P_RADIUS, P_PATH_DIST, P_TARGET_DIST, P_PATH_MAX) == (0, 1, 2, 3, 4)
assert (int(NavState.FOLLOWING), int(Mode.PATH), int(Mode.LEADER), int(Mode.DETOUR)) == (2, 1, 3, 5)
assert (int(NavState.PLANNING), int(Mode.QUICK)) == (1, 6)
