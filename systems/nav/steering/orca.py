"""Reciprocal avoidance: ORCA (van den Berg, Guy, Lin & Manocha, "Reciprocal n-Body Collision
Avoidance", 2011), written for numba over flat arrays, with grid walls as hard constraints.

For each agent with avoidance on: its neighbours within ``neighbour_distance`` (the nearest
``max_neighbours``, found through a spatial hash) each give a half-plane of velocities that avoid
them for ``time_horizon`` seconds; the agent takes its share of the avoidance (``priority``:
``share = p_other / (p_self + p_other)``, so an idle unit with a low priority steps aside for a
moving group; near walls, between equal priorities heading the same way, ``lead`` weighs it,
``share = 1 / (1 + e^(lead_self - lead_other))``, so a queue in a narrow place does not freeze —
in the open, and head-on, equal shares untangle crowds better: measured on the crowd scenes).
Walls within reach give half-planes that keep the agent from reaching them within
``wall_horizon``; against walls a unit of at most half a cell's radius keeps only ``WALL_BODY``
of it clear (``wall_body``: its radius spaces it from other agents; the grid's own corners leave a
radius-0.4 unit in a one-cell gap 0.1 each side, and the full body's wall planes then all but
stopped it in the gap's mouth while its queue pressed behind); a wider unit, planned on a grid
of cells that clear its radius, keeps all of it. The safe velocity is the one closest to the
preferred velocity inside all
half-planes (a 2D linear program, RVO2's incremental algorithm); when they have no common point,
the one that violates the agent-agent planes least while keeping the wall planes (RVO2's 3D
program). A small deterministic rotation of the preferred velocity per agent (and a bias to the
right) breaks the symmetric deadlocks of head-on encounters.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ..flow.clearance import WIDE
from .proximity_grid import build_proximity_grid, cell_window, fitted_side

__all__ = ["OrcaAgents", "OrcaRules", "OrcaSettings", "orca_velocities", "uniform_rules", "WALL_BODY", "wall_body"]

#: The fraction of a small unit's radius kept clear of walls (avoidance's wall planes, and the
#: body path following checks sight with: one rule for both, so a unit never aims where it may
#: not go).
WALL_BODY = 0.5


@njit(cache=True, inline="always")
def wall_body(radius, cell_size):
    """The part of ``radius`` kept clear of walls: ``WALL_BODY`` of it up to half a cell (units
    planned on the plain grid), all of it above (units planned on cells that clear it)."""
    return radius if radius > WIDE * cell_size else WALL_BODY * radius


class OrcaAgents(NamedTuple):
    """The per-agent inputs of ``orca_velocities``, ``n`` rows each."""

    position: np.ndarray     # (n, 2) xy
    velocity: np.ndarray     # (n, 2) the velocity neighbours saw last tick
    preferred: np.ndarray    # (n, 2) what the planners and steering ask for
    radius: np.ndarray       # (n,)
    max_speed: np.ndarray    # (n,) > 0
    priority: np.ndarray     # (n,) > 0: higher keeps its course, lower yields
    lead: np.ndarray         # (n,) between equal priorities: e^(lead difference) weighs the share
    group: np.ndarray        # int64 (n,): flock mates (same id ≥ 0) do not avoid each other here
    active: np.ndarray       # bool (n,): agents that get a safe velocity
    present: np.ndarray      # bool (n,): agents that count as neighbours


class OrcaRules(NamedTuple):
    """Per-agent avoidance rules (Godot ``NavigationAgent3D``'s), ``n`` rows each."""

    rank: np.ndarray         # (n,) avoidance_priority: a neighbour of lower rank is not avoided
    layers: np.ndarray       # int64 (n,) the agent's avoidance layers
    mask: np.ndarray         # int64 (n,) the layers it avoids (a neighbour on none of them: ignored)
    reach: np.ndarray        # (n,) neighbour distance, world units
    max_near: np.ndarray     # int64 (n,) neighbours avoided at most (≤ ``OrcaSettings.max_neighbours``)
    horizon: np.ndarray      # (n,) seconds ahead it keeps clear of agents
    wall_horizon: np.ndarray  # (n,) ... and of walls
    z: np.ndarray            # (n,) height of its feet
    height: np.ndarray       # (n,) its body's height (``use_3d``: neighbours whose spans miss are ignored)
    use_3d: np.ndarray       # bool (n,)


def uniform_rules(n: int, settings: "OrcaSettings") -> OrcaRules:
    """Every agent with the same rules: the settings' distance, neighbours and horizons."""
    return OrcaRules(np.ones(n), np.ones(n, dtype=np.int64), np.ones(n, dtype=np.int64),
                     np.full(n, float(settings.neighbour_distance)), np.full(n, int(settings.max_neighbours)),
                     np.full(n, float(settings.time_horizon)), np.full(n, float(settings.wall_horizon)),
                     np.zeros(n), np.zeros(n), np.zeros(n, dtype=np.bool_))


class OrcaSettings(NamedTuple):
    """How far and how many neighbours ORCA looks at (the largest of any agent's: the spatial
    hash's reach and the scratch size), and its default time horizons (seconds)."""

    neighbour_distance: float   # world units
    max_neighbours: int
    time_horizon: float         # against other agents
    wall_horizon: float         # against blocked cells

#: Walking neighbours whose preferred velocities are within ~25° of each other (cosine above
#: this) walk one stream: they do not avoid each other here (the contact pass spaces them).
SAME_WAY = 0.9
#: A walking neighbour ahead whose preferred velocity opposes (cosine below minus this), within
#: ``LANE_WIDTH`` × the radii sum of the agent's line, is oncoming: each one turns the agent's
#: preferred velocity ``KEEP_RIGHT`` radians to the right, at most ``KEEP_RIGHT_MAX``.
ONCOMING = 0.5
LANE_WIDTH = 2.0
KEEP_RIGHT = 0.15
KEEP_RIGHT_MAX = 0.6

_EPS = 1e-5
_MAX_LINES = 48
_MAX_WALLS = 8
_CHUNK = 128


@njit(cache=True)
def _det(ax, ay, bx, by):
    return ax * by - ay * bx


@njit(cache=True)
def _lp1(lines, line_no, radius, opt_x, opt_y, direction_opt, result):
    """Linear program on one line (RVO2 linearProgram1); False when infeasible."""
    px, py = lines[line_no, 0], lines[line_no, 1]
    dx, dy = lines[line_no, 2], lines[line_no, 3]
    dot = px * dx + py * dy
    disc = dot * dot + radius * radius - (px * px + py * py)
    if disc < 0.0:
        return False
    sq = math.sqrt(disc)
    t_left = -dot - sq
    t_right = -dot + sq
    for i in range(line_no):
        qx, qy = lines[i, 0], lines[i, 1]
        ex, ey = lines[i, 2], lines[i, 3]
        denom = _det(dx, dy, ex, ey)
        numer = _det(ex, ey, px - qx, py - qy)
        if abs(denom) <= _EPS:
            if numer < 0.0:
                return False
            continue
        t = numer / denom
        if denom >= 0.0:
            t_right = min(t_right, t)
        else:
            t_left = max(t_left, t)
        if t_left > t_right:
            return False
    if direction_opt:
        t = t_right if opt_x * dx + opt_y * dy > 0.0 else t_left
    else:
        t = dx * (opt_x - px) + dy * (opt_y - py)
        t = min(max(t, t_left), t_right)
    result[0] = px + t * dx
    result[1] = py + t * dy
    return True


@njit(cache=True)
def _lp2(lines, count, radius, opt_x, opt_y, direction_opt, result):
    """Linear program over ``count`` lines (RVO2 linearProgram2); returns the first failing line
    (``count`` when all hold)."""
    if direction_opt:
        result[0] = opt_x * radius
        result[1] = opt_y * radius
    elif opt_x * opt_x + opt_y * opt_y > radius * radius:
        norm = math.sqrt(opt_x * opt_x + opt_y * opt_y)
        result[0] = opt_x / norm * radius
        result[1] = opt_y / norm * radius
    else:
        result[0] = opt_x
        result[1] = opt_y
    tmp = np.empty(2)
    for i in range(count):
        if _det(lines[i, 2], lines[i, 3], lines[i, 0] - result[0], lines[i, 1] - result[1]) > 0.0:
            tmp[0] = result[0]
            tmp[1] = result[1]
            if not _lp1(lines, i, radius, opt_x, opt_y, direction_opt, result):
                result[0] = tmp[0]
                result[1] = tmp[1]
                return i
    return count


@njit(cache=True)
def _lp3(lines, count, walls, begin, radius, result):
    """When the planes conflict: minimise the largest violation of the agent planes while keeping
    the ``walls`` first lines (RVO2 linearProgram3)."""
    distance = 0.0
    proj = np.empty((_MAX_LINES, 4))
    tmp = np.empty(2)
    for i in range(begin, count):
        if _det(lines[i, 2], lines[i, 3], lines[i, 0] - result[0], lines[i, 1] - result[1]) > distance:
            n = 0
            for k in range(walls):
                proj[n] = lines[k]
                n += 1
            for j in range(walls, i):
                dx, dy = lines[i, 2], lines[i, 3]
                ex, ey = lines[j, 2], lines[j, 3]
                determinant = _det(dx, dy, ex, ey)
                if abs(determinant) <= _EPS:
                    if dx * ex + dy * ey > 0.0:
                        continue                  # same direction: the other line is stricter or equal
                    px = 0.5 * (lines[i, 0] + lines[j, 0])
                    py = 0.5 * (lines[i, 1] + lines[j, 1])
                else:
                    t = _det(ex, ey, lines[i, 0] - lines[j, 0], lines[i, 1] - lines[j, 1]) / determinant
                    px = lines[i, 0] + t * dx
                    py = lines[i, 1] + t * dy
                qx, qy = ex - dx, ey - dy
                norm = math.sqrt(qx * qx + qy * qy)
                if norm <= _EPS:
                    continue
                proj[n, 0] = px
                proj[n, 1] = py
                proj[n, 2] = qx / norm
                proj[n, 3] = qy / norm
                n += 1
            tmp[0] = result[0]
            tmp[1] = result[1]
            if _lp2(proj, n, radius, -lines[i, 3], lines[i, 2], True, result) < n:
                result[0] = tmp[0]
                result[1] = tmp[1]
            distance = _det(lines[i, 2], lines[i, 3], lines[i, 0] - result[0], lines[i, 1] - result[1])


@njit(cache=True)
def _open(passable, cx, cy):
    return 0 <= cx < passable.shape[1] and 0 <= cy < passable.shape[0] and passable[cy, cx]


@njit(cache=True)
def _wall_lines(lines, px, py, r, reach, wall_horizon, passable, cs, ox, oy, best_d, best_n):
    """Half-planes keeping the agent from reaching the nearest blocked cells within
    ``wall_horizon``; returns how many were written (nearest first, at most ``len(best_d)``;
    ``best_d`` / ``best_n`` are scratch)."""
    gx = (px - ox) / cs
    gy = (py - oy) / cs
    span = int(math.ceil(reach / cs)) + 1
    cx0, cy0 = int(math.floor(gx)), int(math.floor(gy))
    max_walls = best_d.shape[0]
    count = 0
    # beyond one ring outside the grid every cell is blocked and farther than that ring (the
    # same walls, farther): a reach of 1e300 (a huge horizon or speed) looped for ever
    h, w = passable.shape
    for cy in range(max(cy0 - span, -1), min(cy0 + span, h) + 1):
        for cx in range(max(cx0 - span, -1), min(cx0 + span, w) + 1):
            if _open(passable, cx, cy):
                continue
            # nearest point of the blocked cell's square
            qx = min(max(px, ox + cx * cs), ox + (cx + 1) * cs)
            qy = min(max(py, oy + cy * cs), oy + (cy + 1) * cs)
            dx, dy = px - qx, py - qy
            d = math.sqrt(dx * dx + dy * dy)
            if d > reach or d <= 1e-9:
                continue
            nx, ny = dx / d, dy / d
            # skip a cell whose normal another, nearer wall already covers
            dup = False
            for k in range(count):
                if best_n[k, 0] * nx + best_n[k, 1] * ny > 0.999 and best_d[k] <= d:
                    dup = True
                    break
            if dup:
                continue
            if count < max_walls:
                slot = count
                count += 1
            else:
                slot = -1
                worst = -1.0
                for k in range(max_walls):
                    if best_d[k] > worst:
                        worst = best_d[k]
                        slot = k
                if worst <= d:
                    continue
            best_d[slot] = d
            best_n[slot, 0] = nx
            best_n[slot, 1] = ny
    for k in range(count):
        c = max(best_d[k] - r, 0.0) / wall_horizon
        nx, ny = best_n[k, 0], best_n[k, 1]
        lines[k, 0] = -nx * c
        lines[k, 1] = -ny * c
        lines[k, 2] = ny
        lines[k, 3] = -nx
    return count


@njit(cache=True, parallel=True)
def orca_velocities(agents, rules, settings, view, dt, out):
    """Safe velocities ``out`` ``(n, 2)`` for the ``agents.active`` (others: their preferred one).

    ``agents``: ``OrcaAgents``; ``rules``: ``OrcaRules`` (Godot's per-agent priority, layers and
    mask, distances and horizons: a neighbour of lower ``rank``, or on no layer of the agent's
    ``mask``, is not avoided; one of higher rank is avoided all the way, not half);
    ``settings``: ``OrcaSettings``; ``view``: ``Grid.view`` (blocked cells are static obstacles). Agents of one flock ``group`` (≥ 0) do not avoid each other
    here: their flocking separation spaces them (measured: ORCA between mates jams a 250-unit group at a 3-cell bridge, and its
    extra constraints make the cross-group ones infeasible more often).
    Returns the number of neighbour pairs examined."""
    position, velocity, preferred, radius, max_speed, priority, lead, group, active, present = agents
    rank, layers, mask, reach, max_near, horizon, wall_reach, foot, height, use_3d = rules
    neighbour_distance, max_neighbours, _, _ = settings
    passable, cs, ox, oy, _, _ = view
    n = position.shape[0]
    bucket = fitted_side(position[:, :2], present, neighbour_distance)      # no memory bomb at a tiny distance
    order, starts, gx0, gy0, cols, rows = build_proximity_grid(position[:, :2], present, bucket)
    # the bucketed agents' positions and groups in bucket order: the neighbour scans read
    # memory in sequence instead of jumping through the agent table
    near_pos = position[order, :2]
    near_group = group[order]
    # a bucket holding one flock only (the inside of an army) is skipped whole by its members
    bucket_group = np.full(starts.shape[0] - 1, -2, dtype=np.int64)
    for k in range(starts.shape[0] - 1):
        if starts[k + 1] > starts[k]:
            first = near_group[starts[k]]
            same = first >= 0
            for e in range(starts[k] + 1, starts[k + 1]):
                if near_group[e] != first:
                    same = False
                    break
            if same:
                bucket_group[k] = first
    pairs = 0
    # scratch is allocated once per chunk of agents, not per agent (allocation inside a
    # parallel loop contends between threads); the chunks keep the result independent of threads
    chunks = (n + _CHUNK - 1) // _CHUNK
    for c in prange(chunks):
        lines = np.empty((_MAX_LINES, 4))
        result = np.empty(2)
        near_id = np.empty(max_neighbours, dtype=np.int64)
        near_d = np.empty(max_neighbours)
        wall_d = np.empty(_MAX_WALLS)
        wall_n = np.empty((_MAX_WALLS, 2))
        for i in range(c * _CHUNK, min(n, (c + 1) * _CHUNK)):
            if not active[i]:
                out[i, 0] = preferred[i, 0]
                out[i, 1] = preferred[i, 1]
                continue
            far_slot = 0
            wall_d[:] = np.inf
            gi = group[i]
            px, py = position[i, 0], position[i, 1]
            vx, vy = velocity[i, 0], velocity[i, 1]
            opt_x = preferred[i, 0]
            opt_y = preferred[i, 1]
            wall_horizon = wall_reach[i]
            walls = _wall_lines(lines, px, py, wall_body(radius[i], cs), radius[i] + max_speed[i] * wall_horizon,
                                wall_horizon,
                                passable, cs, ox, oy, wall_d, wall_n)
            near_most = min(max_near[i], max_neighbours)
            mask_i, rank_i = mask[i], rank[i]
            z0, z1 = foot[i], foot[i] + height[i]
            # nearest neighbours
            count = 0
            oncoming = 0
            pref2 = opt_x * opt_x + opt_y * opt_y
            pref_len = math.sqrt(pref2)
            walking = pref2 > 1e-12
            r0, r1, c0, c1 = cell_window(px, py, gx0, gy0, bucket, cols, rows)
            r2 = reach[i] * reach[i]
            for row in range(r0, r1 + 1):
                for col in range(c0, c1 + 1):
                    k = row * cols + col
                    if gi >= 0 and bucket_group[k] == gi:
                        continue
                    for e in range(starts[k], starts[k + 1]):
                        if gi >= 0 and near_group[e] == gi:
                            continue
                        j = order[e]
                        if j == i:
                            continue
                        pairs += 1
                        rx = near_pos[e, 0] - px
                        ry = near_pos[e, 1] - py
                        d2 = rx * rx + ry * ry
                        if d2 > r2:
                            continue
                        if (mask_i & layers[j]) == 0 or rank[j] < rank_i:
                            continue                   # not on a layer it avoids, or it gives way
                        if use_3d[i] and (foot[j] > z1 or foot[j] + height[j] < z0):
                            continue                   # above or below it
                        if walking and active[j] and priority[j] == priority[i]:
                            qx = preferred[j, 0]
                            qy = preferred[j, 1]
                            q2 = qx * qx + qy * qy
                            along = opt_x * qx + opt_y * qy
                            if along > SAME_WAY * math.sqrt(pref2 * q2):
                                # walking the same way: one stream, spaced by the contact pass
                                # (ORCA between them slows a file to the pace of its slowest)
                                continue
                            if along < -ONCOMING * math.sqrt(pref2 * q2):
                                ahead = rx * opt_x + ry * opt_y
                                side = abs(rx * opt_y - ry * opt_x)
                                if ahead > 0.0 and side < LANE_WIDTH * pref_len * (radius[i] + radius[j]):
                                    oncoming += 1
                        if count < near_most:
                            near_id[count] = j
                            near_d[count] = d2
                            if count == 0 or d2 > near_d[far_slot]:
                                far_slot = count
                            count += 1
                            continue
                        if near_d[far_slot] <= d2:
                            continue
                        near_id[far_slot] = j
                        near_d[far_slot] = d2
                        for mm in range(near_most):                    # the new farthest
                            if near_d[mm] > near_d[far_slot]:
                                far_slot = mm
            if count > 0:
                # among neighbours, the preferred velocity rotated 2.9-4.6 degrees (per agent, to
                # the right) against symmetric deadlocks: a dense ring started at once turns into
                # one vortex instead of a jam (alone, an agent keeps to its path)
                angle = -0.05 - 0.03 * ((i * 2654435761) % 1000) / 1000.0
                # keep right of oncoming walkers in the way (pedestrians' side preference): two
                # opposing flows through a passage form a lane each instead of a plug
                angle -= min(KEEP_RIGHT * oncoming, KEEP_RIGHT_MAX)
                ca, sa = math.cos(angle), math.sin(angle)
                opt_x, opt_y = opt_x * ca - opt_y * sa, opt_x * sa + opt_y * ca
            m = walls
            for k in range(count):
                if m >= _MAX_LINES:
                    break
                j = near_id[k]
                rpx, rpy = position[j, 0] - px, position[j, 1] - py
                rvx, rvy = vx - velocity[j, 0], vy - velocity[j, 1]
                dist2 = rpx * rpx + rpy * rpy
                inv_h = 1.0 / horizon[i]
                combined = radius[i] + radius[j]
                combined2 = combined * combined
                if dist2 > combined2:
                    wx, wy = rvx - inv_h * rpx, rvy - inv_h * rpy
                    w2 = wx * wx + wy * wy
                    dot1 = wx * rpx + wy * rpy
                    if dot1 < 0.0 and dot1 * dot1 > combined2 * w2:
                        wl = math.sqrt(w2)
                        ux, uy = wx / wl, wy / wl
                        lx, ly = uy, -ux
                        sx, sy = (combined * inv_h - wl) * ux, (combined * inv_h - wl) * uy
                    else:
                        leg = math.sqrt(dist2 - combined2)
                        if _det(rpx, rpy, wx, wy) > 0.0:
                            lx = (rpx * leg - rpy * combined) / dist2
                            ly = (rpx * combined + rpy * leg) / dist2
                        else:
                            lx = -(rpx * leg + rpy * combined) / dist2
                            ly = -(-rpx * combined + rpy * leg) / dist2
                        dot2 = rvx * lx + rvy * ly
                        sx, sy = dot2 * lx - rvx, dot2 * ly - rvy
                else:                                   # overlapping now: separate within one tick
                    inv_t = 1.0 / dt
                    wx, wy = rvx - inv_t * rpx, rvy - inv_t * rpy
                    wl = math.sqrt(wx * wx + wy * wy)
                    if wl <= 1e-12:
                        wx, wy, wl = -rpx + 1e-6, -rpy, math.sqrt(rpx * rpx + rpy * rpy) + 1e-6
                    ux, uy = wx / wl, wy / wl
                    lx, ly = uy, -ux
                    sx, sy = (combined * inv_t - wl) * ux, (combined * inv_t - wl) * uy
                share = 1.0
                if active[j] and rank[j] == rank_i:
                    ratio = priority[i] / priority[j]
                    if (walls > 0 and priority[i] == priority[j]
                            and opt_x * preferred[j, 0] + opt_y * preferred[j, 1] > 0.0):
                        ratio *= math.exp(min(max(lead[i] - lead[j], -30.0), 30.0))
                    share = 1.0 / (1.0 + ratio)
                lines[m, 0] = vx + share * sx
                lines[m, 1] = vy + share * sy
                lines[m, 2] = lx
                lines[m, 3] = ly
                m += 1
            fail = _lp2(lines, m, max_speed[i], opt_x, opt_y, False, result)
            if fail < m:
                _lp3(lines, m, walls, fail, max_speed[i], result)
            out[i, 0] = result[0]
            out[i, 1] = result[1]
    return pairs

