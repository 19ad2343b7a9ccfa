"""Lanes where flows meet: a coarse velocity field of the crowd (Continuum Crowds' average
velocity, summed per ``LANE_CELL`` × ``LANE_CELL`` block of the map, by direction) tells each walking unit how
much traffic comes toward it a little way ahead; it then turns its preferred velocity to the right
by up to ``KEEP_RIGHT_MAX`` in proportion (pedestrians' consistent side preference, Helbing's
lane formation). Two opposing flows meeting in a passage each take one side of it before they
touch, instead of plugging its mouth; a flow alone keeps its whole width. Cost O(agents + blocks)
a tick."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["keep_right", "LANE_CELL", "LOOK_AHEAD", "ONCOMING_FULL", "KEEP_RIGHT_MAX"]

#: Edge of a block of the velocity field, world units (about two bodies).
LANE_CELL = 2.0
#: Distances ahead (in blocks) where a unit samples the field.
LOOK_AHEAD = (0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5)
#: Oncoming units (summed unit headings against one's own, over the samples) at which the turn
#: is full.
ONCOMING_FULL = 4.0
#: The largest turn to the right, radians (~30°: a unit still walks mostly forward).
KEEP_RIGHT_MAX = 0.5


def keep_right(position: np.ndarray, preferred: np.ndarray, walking: np.ndarray) -> int:
    """Turn the ``walking`` agents' ``preferred`` velocities (``(n, 2)``, updated in place) to the
    right by the oncoming traffic ahead of them. Returns how many turned."""
    if not walking.any():
        return 0
    return int(_keep_right(np.ascontiguousarray(position[:, :2], dtype=np.float64), preferred, walking,
                           LANE_CELL, np.asarray(LOOK_AHEAD, dtype=np.float64), ONCOMING_FULL, KEEP_RIGHT_MAX))


@njit(cache=True)
def _keep_right(pos, pref, walking, cell, ahead, full, most):
    n = pos.shape[0]
    min_x = np.inf
    min_y = np.inf
    max_x = -np.inf
    max_y = -np.inf
    count = 0
    for i in range(n):
        if walking[i] and math.isfinite(pos[i, 0]) and math.isfinite(pos[i, 1]):
            min_x = min(min_x, pos[i, 0])
            min_y = min(min_y, pos[i, 1])
            max_x = max(max_x, pos[i, 0])
            max_y = max(max_y, pos[i, 1])
            count += 1
    if count < 2:
        return 0
    # the field spans the walkers' box (plus the look-ahead), at most ~8 blocks per walker: a
    # sparse crowd over a huge map gets coarser blocks, never a huge array
    reach = ahead[ahead.shape[0] - 1] * cell
    span_x = max_x - min_x + 2 * reach
    span_y = max_y - min_y + 2 * reach
    size = cell
    while (span_x / size + 1) * (span_y / size + 1) > 8 * count + 64:
        size *= 2.0
    ox = min_x - reach
    oy = min_y - reach
    cols = int(span_x / size) + 1
    rows = int(span_y / size) + 1
    # each block's headings split by sign per axis, so a block where both flows mix still shows
    # each one the other (a plain sum would show only the larger)
    east = np.zeros(rows * cols)
    west = np.zeros(rows * cols)
    north = np.zeros(rows * cols)
    south = np.zeros(rows * cols)
    hx = np.zeros(n)
    hy = np.zeros(n)
    for i in range(n):
        if not walking[i]:
            continue
        s = math.sqrt(pref[i, 0] ** 2 + pref[i, 1] ** 2)
        if not (s > 1e-9) or not (math.isfinite(pos[i, 0]) and math.isfinite(pos[i, 1])):
            continue
        hx[i] = pref[i, 0] / s
        hy[i] = pref[i, 1] / s
        k = int((pos[i, 1] - oy) / size) * cols + int((pos[i, 0] - ox) / size)
        if hx[i] > 0.0:
            east[k] += hx[i]
        else:
            west[k] -= hx[i]
        if hy[i] > 0.0:
            north[k] += hy[i]
        else:
            south[k] -= hy[i]
    turned = 0
    for i in range(n):
        if hx[i] == 0.0 and hy[i] == 0.0:
            continue
        oncoming = 0.0
        for a in range(ahead.shape[0]):
            x = pos[i, 0] + hx[i] * ahead[a] * cell
            y = pos[i, 1] + hy[i] * ahead[a] * cell
            c = int((x - ox) / size)
            r = int((y - oy) / size)
            if c < 0 or r < 0 or c >= cols or r >= rows:
                continue
            k = r * cols + c
            oncoming += (max(hx[i], 0.0) * west[k] + max(-hx[i], 0.0) * east[k]
                         + max(hy[i], 0.0) * south[k] + max(-hy[i], 0.0) * north[k])
        if oncoming <= 0.0:
            continue
        angle = -most * min(oncoming / full, 1.0)             # negative: clockwise, to the right
        ca = math.cos(angle)
        sa = math.sin(angle)
        px = pref[i, 0]
        py = pref[i, 1]
        pref[i, 0] = px * ca - py * sa
        pref[i, 1] = px * sa + py * ca
        turned += 1
    return turned
