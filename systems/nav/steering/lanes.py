"""Lanes where flows meet: opposing flows pass each other on their right instead of plugging.

In the open, a coarse velocity field of the crowd (Continuum Crowds' average velocity, summed per
``LANE_CELL`` × ``LANE_CELL`` block of the map, by direction) tells each walking unit how much
traffic comes toward it a little way ahead; it turns its preferred velocity to the right by up to
``KEEP_RIGHT_MAX`` in proportion (pedestrians' consistent side preference, Helbing's lane
formation). In a narrow passage (``LevelCache.passages``), and on the way into one, the traffic
that counts is the whole passage's, seen from end to end: with the other flow in it, a unit keeps
to the right half (one in the left half moves over behind its mates, slowly), so each flow takes
one lane before they meet; a passage too narrow for two lanes is taken in turns (a unit about to
enter steps aside while the other flow is in it). A flow alone keeps the whole width. Cost
O(agents + blocks) a tick.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..grid import GridView

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
#: In a narrow passage, or within ``ENTER_STEPS`` × ``ENTER_STEP`` cells of entering one ahead,
#: the traffic that counts is the passage's own (``PASSAGE_ONCOMING`` units against one's way
#: at least). Two lanes fit: a unit in the right half turns ``RIGHT_SIDE_TURN`` to the right
#: and hugs it; one in the left half (``LANE_SLACK`` cells nearer the left wall) steps
#: sideways (``WRONG_SIDE_TURN``) at ``WRONG_SIDE_SPEED`` of its speed, moving over behind its mates. A
#: passage narrower than ``ONE_LANE`` bodies is one lane: taken in turns, a unit about to enter
#: while the other flow is in it steps aside at ``ASIDE_SPEED``.
ENTER_STEP = 0.5
ENTER_STEPS = 6
PASSAGE_ONCOMING = 0.5
RIGHT_SIDE_TURN = 0.3
WRONG_SIDE_TURN = math.pi / 2
WRONG_SIDE_SPEED = 0.5
LANE_SLACK = 0.25
ONE_LANE = 2.0
ASIDE_SPEED = 0.3


def keep_right(position: np.ndarray, preferred: np.ndarray, walking: np.ndarray, radius: np.ndarray,
               passages: tuple[np.ndarray, np.ndarray] | None = None, view: GridView | None = None) -> int:
    """Turn the ``walking`` agents' ``preferred`` velocities (``(n, 2)``, updated in place) to the
    right by the oncoming traffic ahead of them. ``passages``: ``(labels, widths)`` of the
    level's narrow passages (``LevelCache.passages``) over the grid ``view``: inside one or
    about to enter it, the traffic that counts is the passage's own, and a unit keeps to the
    right half of it (see the module docs). Returns how many turned."""
    if not walking.any():
        return 0
    if passages is None or view is None:
        labels, widths = np.full((1, 1), -1, dtype=np.int32), np.zeros(0)
        passable, cell_size, origin_x, origin_y = np.zeros((1, 1), dtype=np.bool_), 1.0, 0.0, 0.0
    else:
        labels, widths = passages
        passable, cell_size, origin_x, origin_y = view[0], view[1], view[2], view[3]
    return int(_keep_right(np.ascontiguousarray(position[:, :2], dtype=np.float64), preferred, walking,
                           np.ascontiguousarray(radius, dtype=np.float64),
                           LANE_CELL, np.asarray(LOOK_AHEAD, dtype=np.float64), ONCOMING_FULL, KEEP_RIGHT_MAX,
                           labels, widths, passable, cell_size, origin_x, origin_y))


@njit(cache=True)
def _keep_right(pos, pref, walking, radius, cell, ahead, full, most, labels, widths, passable, cs, gx, gy):
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
    # the passage each walker is in or about to enter, and each passage's traffic by direction
    count_p = widths.shape[0]
    p_east = np.zeros(count_p)
    p_west = np.zeros(count_p)
    p_north = np.zeros(count_p)
    p_south = np.zeros(count_p)
    passage = np.full(n, -1, dtype=np.int64)
    entering = np.zeros(n, dtype=np.bool_)
    at_x = np.zeros(n)                                     # where the look ahead met the passage
    at_y = np.zeros(n)
    if count_p > 0:
        for i in range(n):
            if hx[i] == 0.0 and hy[i] == 0.0:
                continue
            for a in range(ENTER_STEPS + 1):
                d = a * ENTER_STEP * cs
                p = _label_at(labels, pos[i, 0] + hx[i] * d, pos[i, 1] + hy[i] * d, cs, gx, gy)
                if p >= 0:
                    passage[i] = p
                    entering[i] = a > 0
                    at_x[i] = pos[i, 0] + hx[i] * d
                    at_y[i] = pos[i, 1] + hy[i] * d
                    break
            p = passage[i]
            if p >= 0:
                if hx[i] > 0.0:
                    p_east[p] += hx[i]
                else:
                    p_west[p] -= hx[i]
                if hy[i] > 0.0:
                    p_north[p] += hy[i]
                else:
                    p_south[p] -= hy[i]
    turned = 0
    for i in range(n):
        if hx[i] == 0.0 and hy[i] == 0.0:
            continue
        p = passage[i]
        if p >= 0:
            against = (max(hx[i], 0.0) * p_west[p] + max(-hx[i], 0.0) * p_east[p]
                       + max(hy[i], 0.0) * p_south[p] + max(-hy[i], 0.0) * p_north[p])
            if against < PASSAGE_ONCOMING:
                continue                                     # a flow alone keeps the whole width
            speed = math.sqrt(pref[i, 0] ** 2 + pref[i, 1] ** 2)
            if widths[p] * cs < ONE_LANE * 2.0 * radius[i]:
                if entering[i]:
                    # a one-lane passage with the other flow in it: wait, stepped aside to the right
                    pref[i, 0] = hy[i] * speed * ASIDE_SPEED
                    pref[i, 1] = -hx[i] * speed * ASIDE_SPEED
                    turned += 1
                continue
            # two lanes: keep to the right half; a unit in the left half moves over, slowly. The
            # half is that of the passage's cross-section where the unit is or will enter it
            reach = (widths[p] + 2.0) * cs
            right = _free_run(passable, at_x[i], at_y[i], hy[i], -hx[i], reach, cs, gx, gy)
            left = _free_run(passable, at_x[i], at_y[i], -hy[i], hx[i], reach, cs, gx, gy)
            # the unit's offset to the right of the cross-section's middle
            offset = (pos[i, 0] - at_x[i]) * hy[i] - (pos[i, 1] - at_y[i]) * hx[i] - 0.5 * (right - left)
            if offset < -LANE_SLACK * cs:
                _turn(pref, i, -WRONG_SIDE_TURN, WRONG_SIDE_SPEED)
            else:
                _turn(pref, i, -RIGHT_SIDE_TURN, 1.0)
            turned += 1
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
        _turn(pref, i, -most * min(oncoming / full, 1.0), 1.0)   # negative: clockwise, to the right
        turned += 1
    return turned


@njit(cache=True, inline="always")
def _turn(pref, i, angle, scale):
    ca = math.cos(angle) * scale
    sa = math.sin(angle) * scale
    px = pref[i, 0]
    py = pref[i, 1]
    pref[i, 0] = px * ca - py * sa
    pref[i, 1] = px * sa + py * ca


@njit(cache=True, inline="always")
def _label_at(labels, x, y, cs, gx, gy):
    cx = int(math.floor((x - gx) / cs))
    cy = int(math.floor((y - gy) / cs))
    if cx < 0 or cy < 0 or cy >= labels.shape[0] or cx >= labels.shape[1]:
        return -1
    return labels[cy, cx]


@njit(cache=True)
def _free_run(passable, x, y, dx, dy, reach, cs, gx, gy):
    """How far from ``(x, y)`` along the unit direction ``(dx, dy)`` the first blocked cell
    starts (at most ``reach``), in steps of a quarter cell."""
    step = 0.25 * cs
    d = step
    while d < reach:
        cx = int(math.floor((x + dx * d - gx) / cs))
        cy = int(math.floor((y + dy * d - gy) / cs))
        if cx < 0 or cy < 0 or cy >= passable.shape[0] or cx >= passable.shape[1] or not passable[cy, cx]:
            return d
        d += step
    return reach
