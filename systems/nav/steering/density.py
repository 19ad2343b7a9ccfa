"""Speed by the crowd ahead (Continuum Crowds' speed field: at low density a unit walks at its own
speed, at high density at the speed of the crowd in front of it).

Hard contacts stop bodies overlapping, but a unit steered at full speed into a packed crowd keeps
pressing every tick, and a whole army pressing from behind squeezes its front faster than any
position pass can undo. So before avoidance each walking unit looks one body ahead: if the
ground there is packed (the bodies' area over the block's, summed per ``DENSITY_CELL`` block),
its speed is capped toward the mean speed of the bodies there along its way (standing ones count
as 0) when that crowd is held up, never below ``MIN_SPEED`` of its own, so a jam does not freeze
and a queue starts moving from its front, like a real one. Cost O(agents + blocks) a tick.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .proximity_grid import bounding_box

__all__ = ["cap_speed_by_density", "DENSITY_CELL", "DENSE_FROM", "DENSE_FULL", "MIN_SPEED", "MOVING"]

#: Edge of a block, world units (a few bodies across).
DENSITY_CELL = 3.0
#: The share of a block covered by bodies from which the crowd's own speed starts to count, and
#: where it rules alone (hexagonal packing at contact is ~0.9).
DENSE_FROM = 0.45
DENSE_FULL = 0.7
#: The least share of its own speed a unit keeps in the densest crowd.
MIN_SPEED = 0.2
#: A crowd ahead moving on at this share of the unit's speed or more does not slow it (a dense
#: flock on the march would otherwise brake itself: each unit's cap lowers the next one's).
MOVING = 0.6


def cap_speed_by_density(position: np.ndarray, preferred: np.ndarray, velocity: np.ndarray, radius: np.ndarray,
                         bodies: np.ndarray, walking: np.ndarray) -> int:
    """Cap the ``walking`` agents' ``preferred`` velocities (``(n, 2)``, in place) by the speed
    of the packed crowd just ahead of them; ``velocity`` (``(n, 2)``): what every agent achieved
    last tick; ``bodies``: the agents that take up room. Returns how many were slowed."""
    if not walking.any():
        return 0
    return int(_cap(np.ascontiguousarray(position[:, :2], dtype=np.float64), preferred,
                    np.ascontiguousarray(velocity[:, :2], dtype=np.float64),
                    np.ascontiguousarray(radius, dtype=np.float64), bodies, walking,
                    DENSITY_CELL, DENSE_FROM, DENSE_FULL, MIN_SPEED, MOVING))


@njit(cache=True)
def _cap(pos, pref, vel, radius, bodies, walking, cell, dense_from, dense_full, least, moving):
    n = pos.shape[0]
    count = 0
    for i in range(n):
        if bodies[i] and math.isfinite(pos[i, 0]) and math.isfinite(pos[i, 1]):
            count += 1
    if count < 2:
        return 0
    min_x, min_y, max_x, max_y = bounding_box(pos, bodies)
    reach = 2.0 * cell
    ox = min_x - reach
    oy = min_y - reach
    cols = int((max_x - min_x + 2 * reach) / cell) + 1
    rows = int((max_y - min_y + 2 * reach) / cell) + 1
    if cols * rows > 16 * count + 4096:
        return 0                                # a sparse crowd over a huge map: nobody is packed
    area = np.zeros(rows * cols)
    number = np.zeros(rows * cols)
    vx = np.zeros(rows * cols)
    vy = np.zeros(rows * cols)
    for i in range(n):
        if not bodies[i] or not (math.isfinite(pos[i, 0]) and math.isfinite(pos[i, 1])):
            continue
        k = int((pos[i, 1] - oy) / cell) * cols + int((pos[i, 0] - ox) / cell)
        area[k] += math.pi * radius[i] * radius[i]
        number[k] += 1.0
        if math.isfinite(vel[i, 0]) and math.isfinite(vel[i, 1]):
            vx[k] += vel[i, 0]
            vy[k] += vel[i, 1]
    block = cell * cell
    slowed = 0
    for i in range(n):
        if not walking[i]:
            continue
        speed = math.sqrt(pref[i, 0] ** 2 + pref[i, 1] ** 2)
        if not (speed > 1e-9) or not (math.isfinite(pos[i, 0]) and math.isfinite(pos[i, 1])):
            continue
        hx = pref[i, 0] / speed
        hy = pref[i, 1] / speed
        ahead = radius[i] + 0.5 * cell
        c = int((pos[i, 0] + hx * ahead - ox) / cell)
        r = int((pos[i, 1] + hy * ahead - oy) / cell)
        if c < 0 or r < 0 or c >= cols or r >= rows:
            continue
        k = r * cols + c
        density = area[k] / block
        if density <= dense_from or number[k] == 0.0:
            continue
        flow = (vx[k] * hx + vy[k] * hy) / number[k]
        if flow >= moving * speed:
            continue                            # the crowd ahead is moving on: no brake (it would feed back)
        flow = min(max(flow, least * speed), speed)
        w = min((density - dense_from) / (dense_full - dense_from), 1.0)
        cap = speed * (1.0 - w) + flow * w
        if cap < speed:
            pref[i, 0] *= cap / speed
            pref[i, 1] *= cap / speed
            slowed += 1
    return slowed
