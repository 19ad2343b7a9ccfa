"""Lanes where flows meet: opposing flows pass each other on their right instead of plugging.

In the open, a coarse velocity field of the crowd (Continuum Crowds' average velocity, summed per
``LANE_CELL`` × ``LANE_CELL`` block of the map, by direction) tells each walking unit how much
traffic comes toward it a little way ahead; it turns its preferred velocity to the right by up to
``KEEP_RIGHT_MAX`` in proportion (pedestrians' consistent side preference, Helbing's lane
formation). In a narrow passage (``LevelCache.passages``), and on the way into one, the traffic
that counts is the whole passage's, seen from end to end: with the other flow in it, a unit keeps
to the right half (one in the left half moves over behind its mates, slowly), so each flow takes
one lane before they meet; a passage too narrow for two lanes (its cross-section where the unit
meets it) is taken in turns: the flow inside holds it (when both or neither are, the one with
more traffic there); the other's units about to enter step aside and back from the mouth, one
inside backs out when the other flow is more than twice its own. A flow alone keeps the whole
width. Cost O(agents + blocks) a tick.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..grid import GridView
from .proximity_grid import bounding_box

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
#: A unit that made no progress for a while (``hurried``) keeps its course in a passage of two
#: lanes while no traffic comes against it in the first this many look-ahead blocks (~5 world
#: units): at a corner the other flow far off in the passage stepped it to and fro for good.
NEAR_SAMPLES = 3


def keep_right(position: np.ndarray, preferred: np.ndarray, walking: np.ndarray, radius: np.ndarray,
               passages: tuple[np.ndarray, np.ndarray] | None = None, view: GridView | None = None,
               hurried: np.ndarray | None = None) -> int:
    """Turn the ``walking`` agents' ``preferred`` velocities (``(n, 2)``, updated in place) to the
    right by the oncoming traffic ahead of them. ``passages``: ``(labels, widths)`` of the
    level's narrow passages (``LevelCache.passages``) over the grid ``view``: inside one or
    about to enter it, the traffic that counts is the passage's own, and a unit keeps to the
    right half of it (see the module docs). ``hurried`` (bool per agent): units that made no
    progress for a while keep their course in a passage of two lanes while nobody comes at them
    close ahead (a lane's sidestep for traffic far off must not hold a unit in place; with the
    other flow near, the lanes are what lets both pass; a one-lane passage is still taken in
    turns, and the open keeps right). Returns how many turned."""
    if not walking.any():
        return 0
    if hurried is None:
        hurried = np.zeros(len(walking), dtype=np.bool_)
    if passages is None or view is None:
        labels, widths = np.full((1, 1), -1, dtype=np.int32), np.zeros(0)
        passable, cell_size, origin_x, origin_y = np.zeros((1, 1), dtype=np.bool_), 1.0, 0.0, 0.0
    else:
        labels, widths = passages
        passable, cell_size, origin_x, origin_y = view[0], view[1], view[2], view[3]
    return int(_keep_right(np.ascontiguousarray(position[:, :2], dtype=np.float64), preferred, walking,
                           np.ascontiguousarray(radius, dtype=np.float64),
                           LANE_CELL, np.asarray(LOOK_AHEAD, dtype=np.float64), ONCOMING_FULL, KEEP_RIGHT_MAX,
                           labels, widths, passable, cell_size, origin_x, origin_y,
                           np.ascontiguousarray(hurried, dtype=np.bool_)))


@njit(cache=True)
def _keep_right(pos, pref, walking, radius, cell, ahead, full, most, labels, widths, passable, cs, gx, gy, hurried):
    n = pos.shape[0]
    hx, hy, count = _headings(pos, pref, walking)
    if count < 2:
        return 0
    east, west, north, south, ox, oy, size, cols, rows = _block_traffic(pos, hx, hy, ahead[ahead.shape[0] - 1] * cell,
                                                                      cell, count)
    passage, entering, at_x, at_y, p_east, p_west, p_north, p_south, inside = _passage_traffic(
        pos, hx, hy, labels, widths.shape[0], cs, gx, gy)
    turned = 0
    for i in range(n):
        if hx[i] == 0.0 and hy[i] == 0.0:
            continue
        p = passage[i]
        if p >= 0:
            theirs = _against(hx[i], hy[i], p_east, p_west, p_north, p_south, p)
            if theirs >= PASSAGE_ONCOMING:
                mine = _against(-hx[i], -hy[i], p_east, p_west, p_north, p_south, p)
                # who holds it: the flow with units inside, when only one has
                held = int(_against(-hx[i], -hy[i], inside[0], inside[1], inside[2], inside[3], p) > 0.0) \
                    - int(_against(hx[i], hy[i], inside[0], inside[1], inside[2], inside[3], p) > 0.0)
                # a unit without progress keeps its course while nobody comes at it close ahead
                alone = hurried[i] and _oncoming(pos, hx, hy, i, ahead, NEAR_SAMPLES, cell, east, west, north, south,
                                                 ox, oy, size, cols, rows) == 0.0
                turned += _in_passage(pos, pref, i, hx[i], hy[i], radius[i], widths[p], entering[i], at_x[i],
                                      at_y[i], passable, cs, gx, gy, mine, theirs, held, alone)
            continue                                         # a flow alone keeps the whole width
        oncoming = _oncoming(pos, hx, hy, i, ahead, ahead.shape[0], cell, east, west, north, south, ox, oy, size, cols,
                             rows)
        if oncoming > 0.0:
            _turn(pref, i, -most * min(oncoming / full, 1.0), 1.0)   # negative: clockwise, to the right
            turned += 1
    return turned


@njit(cache=True)
def _oncoming(pos, hx, hy, i, ahead, samples, cell, east, west, north, south, ox, oy, size, cols, rows):
    """The traffic coming against unit ``i`` in the blocks at its first ``samples`` look-ahead distances."""
    total = 0.0
    for a in range(samples):
        c = int((pos[i, 0] + hx[i] * ahead[a] * cell - ox) / size)
        r = int((pos[i, 1] + hy[i] * ahead[a] * cell - oy) / size)
        if 0 <= c < cols and 0 <= r < rows:
            total += _against(hx[i], hy[i], east, west, north, south, r * cols + c)
    return total


@njit(cache=True)
def _headings(pos, pref, walking):
    """Unit headings of the walkers with a finite position and a speed (zero for the others),
    and how many there are."""
    n = pos.shape[0]
    hx = np.zeros(n)
    hy = np.zeros(n)
    count = 0
    for i in range(n):
        if not walking[i]:
            continue
        s = math.sqrt(pref[i, 0] ** 2 + pref[i, 1] ** 2)
        if s > 1e-9 and math.isfinite(pos[i, 0]) and math.isfinite(pos[i, 1]):
            hx[i] = pref[i, 0] / s
            hy[i] = pref[i, 1] / s
            count += 1
    return hx, hy, count


@njit(cache=True)
def _block_traffic(pos, hx, hy, reach, cell, count):
    """The walkers' headings summed per block, split by sign per axis (a block where both flows
    mix still shows each one the other). The blocks span the walkers' box plus ``reach``, at most
    ~8 per walker: a sparse crowd over a huge map gets coarser blocks, never a huge array."""
    n = pos.shape[0]
    min_x, min_y, max_x, max_y = bounding_box(pos, (hx != 0.0) | (hy != 0.0))
    span_x = max_x - min_x + 2 * reach
    span_y = max_y - min_y + 2 * reach
    size = cell
    while (span_x / size + 1) * (span_y / size + 1) > 8 * count + 64:
        size *= 2.0
    ox = min_x - reach
    oy = min_y - reach
    cols = int(span_x / size) + 1
    rows = int(span_y / size) + 1
    east = np.zeros(rows * cols)
    west = np.zeros(rows * cols)
    north = np.zeros(rows * cols)
    south = np.zeros(rows * cols)
    for i in range(n):
        if hx[i] != 0.0 or hy[i] != 0.0:
            _add_heading(east, west, north, south, int((pos[i, 1] - oy) / size) * cols + int((pos[i, 0] - ox) / size),
                         hx[i], hy[i])
    return east, west, north, south, ox, oy, size, cols, rows


@njit(cache=True)
def _passage_traffic(pos, hx, hy, labels, count_p, cs, gx, gy):
    """The passage each walker is in or about to enter (-1: none; ``entering``; where its look
    ahead met it) and each passage's headings summed by direction (of all of them, and of those
    inside: ``inside[k]`` east, west, north, south)."""
    n = pos.shape[0]
    p_east = np.zeros(count_p)
    p_west = np.zeros(count_p)
    p_north = np.zeros(count_p)
    p_south = np.zeros(count_p)
    inside = np.zeros((4, count_p))                       # the same, of the walkers inside only
    passage = np.full(n, -1, dtype=np.int64)
    entering = np.zeros(n, dtype=np.bool_)
    at_x = np.zeros(n)
    at_y = np.zeros(n)
    if count_p == 0:
        return passage, entering, at_x, at_y, p_east, p_west, p_north, p_south, inside
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
                _add_heading(p_east, p_west, p_north, p_south, p, hx[i], hy[i])
                if a == 0:
                    _add_heading(inside[0], inside[1], inside[2], inside[3], p, hx[i], hy[i])
                break
    return passage, entering, at_x, at_y, p_east, p_west, p_north, p_south, inside


@njit(cache=True)
def _in_passage(pos, pref, i, hx, hy, radius, width, entering, at_x, at_y, passable, cs, gx, gy, mine, theirs,
                held, hurried):
    """Turn agent ``i``, in or entering a passage with the other flow in it (``mine`` / ``theirs``:
    the two flows' traffic there; ``held``: 1 when only its own flow is inside, -1 when only the
    other is, else 0; ``hurried``: it keeps its course unless it must take turns); 1 when it
    turned. The passage's width is its cross-section
    where the unit is or will enter it (a gap in a thin wall is as wide as the gap, whatever room
    lies beside it)."""
    speed = math.sqrt(pref[i, 0] ** 2 + pref[i, 1] ** 2)
    reach = (width + 2.0) * cs
    right = _free_run(passable, at_x, at_y, hy, -hx, reach, cs, gx, gy)
    left = _free_run(passable, at_x, at_y, -hy, hx, reach, cs, gx, gy)
    if right + left < ONE_LANE * 2.0 * radius:
        # one lane, taken in turns: the flow with less traffic there gives way (ties: the one
        # heading west, or south); a unit about to enter waits stepped aside to the right, one
        # inside backs out only when the other flow is more than twice its own
        gives_way = held < 0 or (held == 0 and (theirs > mine or (theirs == mine and (
            hx < -1e-9 or (abs(hx) <= 1e-9 and hy < 0.0)))))
        if entering and gives_way:
            # out of the way of those coming out: aside to the right and back from the mouth
            pref[i, 0] = (hy - hx) * speed * ASIDE_SPEED
            pref[i, 1] = (-hx - hy) * speed * ASIDE_SPEED
            return 1
        if not entering and theirs > 2.0 * mine:
            pref[i, 0] = -hx * speed * ASIDE_SPEED
            pref[i, 1] = -hy * speed * ASIDE_SPEED
            return 1
        return 0
    if hurried:
        # a unit that keeps failing to get on (a lane's half cut by a corner the passage turns at:
        # its way steps it back and forth over the line) walks its way; the lanes resume behind it
        return 0
    # two lanes: keep to the right half; a unit in the left half moves over, slowly. The half is
    # that of the passage's cross-section where the unit is or will enter it
    offset = (pos[i, 0] - at_x) * hy - (pos[i, 1] - at_y) * hx - 0.5 * (right - left)   # right of the middle
    if offset < -LANE_SLACK * cs:
        _turn(pref, i, -WRONG_SIDE_TURN, WRONG_SIDE_SPEED)
    else:
        _turn(pref, i, -RIGHT_SIDE_TURN, 1.0)
    return 1


@njit(cache=True, inline="always")
def _add_heading(east, west, north, south, k, hx, hy):
    if hx > 0.0:
        east[k] += hx
    else:
        west[k] -= hx
    if hy > 0.0:
        north[k] += hy
    else:
        south[k] -= hy


@njit(cache=True, inline="always")
def _against(hx, hy, east, west, north, south, k):
    """How much of slot ``k``'s traffic comes against heading ``(hx, hy)``."""
    return (max(hx, 0.0) * west[k] + max(-hx, 0.0) * east[k]
            + max(hy, 0.0) * south[k] + max(-hy, 0.0) * north[k])


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
