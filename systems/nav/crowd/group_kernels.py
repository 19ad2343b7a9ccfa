"""The numba kernels of group steering (``groups.py``): group keys, distances to targets, field
values under members, and every walking member's speed, flip damping and arrival status."""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

__all__ = ["row_keys", "to_target", "values_under", "steer_members", "NO_MASK"]


@njit(cache=True)
def row_keys(agents, flock_group, target, agent_method, origin_x, origin_y, cell_size):
    """``(n, 4) int64`` group keys (group id or -(id + 1) alone, goal cell, planner) of ``agents``."""
    keys = np.empty((agents.shape[0], 4), dtype=np.int64)
    for k in range(agents.shape[0]):
        a = agents[k]
        keys[k, 0] = flock_group[a, 0] if flock_group[a, 0] >= 0 else -(a + 1)
        keys[k, 1] = int(math.floor((target[a, 0] - origin_x) / cell_size))
        keys[k, 2] = int(math.floor((target[a, 1] - origin_y) / cell_size))
        keys[k, 3] = agent_method[a, 0]
    return keys


@njit(cache=True)
def to_target(agents, position, target):
    """Straight-line distance (xy) of each of ``agents`` from its target."""
    out = np.empty(agents.shape[0])
    for k in range(agents.shape[0]):
        a = agents[k]
        out[k] = math.sqrt((position[a, 0] - target[a, 0]) ** 2 + (position[a, 1] - target[a, 1]) ** 2)
    return out


#: "No mask" for ``values_under``.
NO_MASK = np.ones((1, 1), dtype=bool)


@njit(cache=True)
def values_under(values, inside, masked, unknown_if_inf, position, members, origin_x, origin_y, cell_size):
    """``values`` (a map) under each member's cell (clipped to the map), as float64; NaN when
    ``masked`` and outside ``inside``, or when ``unknown_if_inf`` and infinite: one pass instead
    of a dozen numpy calls per group and tick."""
    h, w = values.shape
    out = np.empty(members.shape[0])
    for k in range(members.shape[0]):
        a = members[k]
        x = min(max(int(math.floor((position[a, 0] - origin_x) / cell_size)), 0), w - 1)
        y = min(max(int(math.floor((position[a, 1] - origin_y) / cell_size)), 0), h - 1)
        v = float(values[y, x])
        out[k] = np.nan if (masked and not inside[y, x]) or (unknown_if_inf and math.isinf(v)) else v
    return out


@njit(cache=True, parallel=True)
def steer_members(agents, direction, follower, disc, settle_radius, position, velocity, pace, aim, target, has_slot,
                   params, stalled, dt, stall_speed, min_arrival_speed, chain_reach, settle_after, acceleration, status):
    """Per walking member: the stall clock, the follower's velocity along ``direction`` toward its
    ``aim`` (its slot, else the target; slowing in the arrival disc, never past the aim, a
    reversed heading averaged with the last one so a unit at a wall corner does not flip every
    tick), and its arrival status bits (1 arrived, 2 near the goal, 4 stalled in the disc). With
    ``acceleration`` > 0 the direction accelerates the unit instead (capped at that speed)."""
    for k in prange(agents.shape[0]):         # members are distinct agents
        a = agents[k]
        # the pace it made last tick: a leader's velocity is already its path's wish this tick (a
        # leader held off its target by its settled mates never stalled and held the group's order)
        moved = math.sqrt(pace[a, 0] ** 2 + pace[a, 1] ** 2)
        stalled[a] = stalled[a] + dt if moved < stall_speed * params[a, 0] else 0.0
        ox, oy = aim[k, 0] - position[a, 0], aim[k, 1] - position[a, 1]
        dist = math.sqrt(ox * ox + oy * oy)
        gx, gy = target[a, 0] - position[a, 0], target[a, 1] - position[a, 1]
        to_goal = math.sqrt(gx * gx + gy * gy)
        if follower[k]:
            dx, dy = direction[k, 0], direction[k, 1]
            if dx == 0.0 and dy == 0.0 and dist > 0.0:
                dx, dy = ox / dist, oy / dist
            speed = params[a, 0] * min(max(dist / max(disc[k], 1e-9), min_arrival_speed), 1.0)
            speed = min(speed, dist / dt)
            vx, vy = velocity[a, 0], velocity[a, 1]
            if acceleration > 0.0:                     # the vector-field article: a force, not a velocity
                nx, ny = vx + dx * acceleration * dt, vy + dy * acceleration * dt
                mag = math.sqrt(nx * nx + ny * ny)
                if mag > speed:
                    nx, ny = nx * speed / mag, ny * speed / mag
            else:
                nx, ny = dx * speed, dy * speed
                if nx * vx + ny * vy < -0.25 * math.sqrt(nx * nx + ny * ny) * math.sqrt(vx * vx + vy * vy):
                    nx, ny = 0.5 * (nx + vx), 0.5 * (ny + vy)
            velocity[a, 0] = nx
            velocity[a, 1] = ny
            velocity[a, 2] = 0.0
        if dist <= (min(params[a, 3], 0.25) if has_slot[k] else params[a, 3]):
            status[k] = 1
        elif to_goal <= chain_reach * disc[k]:
            status[k] = 2
            if to_goal <= (settle_radius[k] if has_slot[k] else disc[k]) and stalled[a] >= settle_after:
                status[k] |= 4
