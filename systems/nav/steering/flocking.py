"""Reynolds flocking (separation, cohesion, alignment) among members of the same group.

Each force is returned unweighted and roughly unit-sized, so the caller's weights compare:
separation sums ``(1 - d / p)`` pushes away from each neighbour closer than the unit's personal
distance ``p`` (dense crowds push harder); cohesion points to the centre of the neighbours within
the flock radius ``r``, scaled by ``1 / r``; alignment is their mean velocity minus one's own,
scaled by ``1 / max_speed``.
"""

from __future__ import annotations

import math

from numba import njit, prange

from .proximity_grid import build_proximity_grid, cell_window

__all__ = ["flock_forces"]


@njit(cache=True, parallel=True)
def flock_forces(pos, vel, group, radius, personal, max_speed, active, steer, separation, cohesion,
                 alignment):
    """Fill the ``(n, 2)`` force arrays for the ``steer`` agents; ``active`` agents (a superset,
    e.g. members that already arrived) count as neighbours. Returns neighbour pairs seen.

    ``pos``, ``vel``: ``(n, 2)``; ``group``: ``int64 (n,)``; ``radius``: flock radius per agent;
    ``personal``: separation distance per agent (≤ radius); ``max_speed``: per agent, > 0.
    """
    n = pos.shape[0]
    separation[:] = 0.0
    cohesion[:] = 0.0
    alignment[:] = 0.0
    cell = 0.0
    for i in range(n):
        if active[i] and radius[i] > cell:
            cell = radius[i]
    if cell <= 0.0:
        return 0
    order, starts, ox, oy, cols, rows = build_proximity_grid(pos, active, cell)
    # neighbours' data in bucket order: the scans below read memory in sequence
    near_pos = pos[order, :2]
    near_vel = vel[order, :2]
    near_group = group[order]
    pairs = 0
    for i in prange(n):
        if not steer[i]:
            continue
        px = pos[i, 0]
        py = pos[i, 1]
        r = radius[i]
        r2 = r * r
        pr = min(personal[i], r)
        gi = group[i]
        pr2 = pr * pr
        r0, r1, c0, c1 = cell_window(px, py, ox, oy, cell, cols, rows)
        cnt = 0
        cx = 0.0
        cy = 0.0
        vx = 0.0
        vy = 0.0
        sx = 0.0
        sy = 0.0
        for row in range(r0, r1 + 1):
            for col in range(c0, c1 + 1):
                k = row * cols + col
                for e in range(starts[k], starts[k + 1]):
                    if near_group[e] != gi:
                        continue
                    j = order[e]
                    if j == i:
                        continue
                    dx = px - near_pos[e, 0]
                    dy = py - near_pos[e, 1]
                    d2 = dx * dx + dy * dy
                    if d2 >= r2:
                        continue
                    pairs += 1
                    cnt += 1
                    cx += near_pos[e, 0]
                    cy += near_pos[e, 1]
                    vx += near_vel[e, 0]
                    vy += near_vel[e, 1]
                    if d2 >= pr2:
                        continue
                    d = math.sqrt(d2)
                    if d > 1e-9:
                        push = (1.0 - d / pr) / d
                        sx += dx * push
                        sy += dy * push
                    else:                              # exactly on top: split by index
                        sx += 1.0 if i < j else -1.0
        if cnt > 0:
            separation[i, 0] = sx
            separation[i, 1] = sy
            cohesion[i, 0] = (cx / cnt - px) / r
            cohesion[i, 1] = (cy / cnt - py) / r
            alignment[i, 0] = (vx / cnt - vel[i, 0]) / max_speed[i]
            alignment[i, 1] = (vy / cnt - vel[i, 1]) / max_speed[i]
    return pairs
