"""Reynolds flocking (separation, cohesion, alignment) among members of the same group.

Each force is returned unweighted and roughly unit-sized, so the caller's weights compare:
separation sums ``(1 - d / p)`` pushes away from each neighbour closer than the unit's personal
distance ``p`` (dense crowds push harder); cohesion points to the centre of the neighbours within
the flock radius ``r``, scaled by ``1 / r``; alignment is their mean velocity minus one's own,
scaled by ``1 / max_speed``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ..kernels.threads import threads_for
from .proximity_grid import build_proximity_grid_xy, fitted_side

__all__ = ["flock_forces"]

#: Bucket columns per flock radius (buckets are a radius tall and this many times narrower).
STRIPS = 2
#: A unit with no mate in its radius looks this many radii out for the nearest one: the farther
#: the gap it measures, the more ticks it skips its scans (``flock_forces``' ``gap``).
GAP_REACH = 2.0


def flock_forces(pos, vel, group, radius, personal, max_speed, active, steer, separation, cohesion, alignment,
                 refresh=None, gap=None) -> int:
    """Fill the ``(n, 2)`` force arrays for the ``steer`` agents; ``active`` agents (a superset,
    e.g. members that already arrived) count as neighbours. Returns neighbour pairs seen.

    ``pos``, ``vel``: ``(n, 2)``; ``group``: ``int64 (n,)``; ``radius``: flock radius per agent;
    ``personal``: separation distance per agent (≤ radius); ``max_speed``: per agent, > 0.
    ``refresh`` (bool ``(n,)``, default all): the agents whose cohesion and alignment are
    computed; the other ``steer`` agents get separation only (their rows of ``cohesion`` and
    ``alignment`` are left as they are), from a scan of their personal space alone.
    ``gap`` (float ``(n,)``, optional, updated): per agent a lower bound of its distance to the
    nearest active mate (-inf: unknown). An agent whose bound reaches its radius (refreshed) or
    its personal space (separation only) has no mate there: it is not scanned and gets zero
    forces, exactly what a scan would give. Each refreshed agent that is scanned gets its bound
    measured: with no mate in its radius, the distance to its nearest mate (looked for up to
    ``GAP_REACH`` radii out), else -inf. The caller keeps the bounds true
    as agents move (``crowd/steering.py``: a scattered crowd's members mostly have no mate near,
    and skip their scans for many ticks).
    """
    if refresh is None:
        refresh = steer
    separation[:] = 0.0
    if not active.any():
        return 0
    cell = float(radius[active].max())
    if cell <= 0.0:
        return 0
    if gap is None:
        gap = np.full(len(pos), -np.inf)
    else:
        # no mate within the radius: zero pulls and no separation, unscanned
        clear = steer & refresh & (gap >= radius)
        at = np.flatnonzero(clear)                      # row indices: a 2-D boolean mask is ~10x slower
        cohesion[at] = 0.0
        alignment[at] = 0.0
        steer = steer & ~clear & ~(~refresh & (gap >= np.minimum(personal, radius)))
    # buckets as tall as the widest flock radius and narrower: a scan reads one run of neighbours
    # per row of buckets (so few rows: per-row bookkeeping is what small square buckets cost),
    # and narrow columns keep that run close to the circle it needs
    strip = fitted_side(pos, active, cell / STRIPS)
    if strip > cell / STRIPS:                     # a tiny flock radius over a wide crowd: fewer, larger buckets
        cell = STRIPS * strip
    buckets = build_proximity_grid_xy(pos, active, cell / STRIPS, cell)
    pairs = 0
    full = steer & refresh
    near_only = steer & ~refresh
    with threads_for(int(steer.sum()), "flocking"):
        near = _in_bucket_order(buckets[0], pos, vel, group)      # once for both passes
        if full.any():
            pairs += flock_pass(pos, vel, group, radius, personal, max_speed, active, full, separation, cohesion,
                                 alignment, buckets, near, cell, STRIPS, cell, True, gap)
        if near_only.any():
            # separation only: scan just the bucket runs the personal space touches
            reach = np.minimum(personal, radius)
            pairs += flock_pass(pos, vel, group, reach, personal, max_speed, active, near_only, separation,
                                 cohesion, alignment, buckets, near, cell, STRIPS, float(reach[near_only].max()), False,
                                 gap)
    return pairs


@njit(cache=True, parallel=True)
def _in_bucket_order(order, pos, vel, group):
    """Neighbours' positions, velocities and groups in bucket order (the scans read them in
    sequence); on both threads, as a scattered crowd's reads are cache misses."""
    m = order.shape[0]
    near_pos = np.empty((m, 2))
    near_vel = np.empty((m, 2))
    near_group = np.empty(m, dtype=group.dtype)
    for t in prange(m):
        i = order[t]
        near_pos[t, 0] = pos[i, 0]
        near_pos[t, 1] = pos[i, 1]
        near_vel[t, 0] = vel[i, 0]
        near_vel[t, 1] = vel[i, 1]
        near_group[t] = group[i]
    return near_pos, near_vel, near_group


# reassociation lets the bucket scans' sums vectorise; no finite-math assumptions (NaN stays NaN)
@njit(cache=True, parallel=True, fastmath={"reassoc", "contract", "nsz", "arcp"})
def flock_pass(pos, vel, group, radius, personal, max_speed, active, steer, separation, cohesion, alignment,
                buckets, near, cell, strips, scan, with_pull, gap):
    """One scan of the ``steer`` agents' neighbourhoods: the ``buckets`` (``cell`` ≥ every
    ``radius`` tall, ``cell / strips`` wide) within ``scan`` of each; separation, and with
    ``with_pull`` cohesion and alignment (zero without mates) and ``gap``: for a unit without
    mates in its radius the distance to the nearest one (at most ``GAP_REACH`` · ``scan``), else -inf."""
    n = pos.shape[0]
    order, starts, ox, oy, cols, rows = buckets
    cell_x = cell / strips
    near_pos, near_vel, near_group = near
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
        r0 = max(int(math.floor((py - scan - oy) / cell)), 0)
        r1 = min(int(math.floor((py + scan - oy) / cell)), rows - 1)
        cnt = 0.0
        on_top = 0.0
        cx = 0.0
        cy = 0.0
        vx = 0.0
        vy = 0.0
        sx = 0.0
        sy = 0.0
        for row in range(r0, r1 + 1):
            c0, c1 = _row_run(row, px, py, scan, ox, oy, cell, cell_x, cols)
            if c0 <= c1:
                a, b, c, d, e, f, g, h = _scan_run(starts[row * cols + c0], starts[row * cols + c1 + 1], px, py, gi,
                                                   r2, pr, near_pos, near_vel, near_group)
                cnt += a
                on_top += b
                cx += c
                cy += d
                vx += e
                vy += f
                sx += g
                sy += h
        own = 1.0 if active[i] else 0.0                # the agent itself was counted when a neighbour
        cnt, on_top, cx, cy, vx, vy = cnt - own, on_top - own, cx - own * px, cy - own * py, vx - own * vel[i, 0], \
            vy - own * vel[i, 1]
        if on_top > 0.0:                               # mates exactly on top (they share its bucket)
            sx += _split_on_top(i, px, py, gi, ox, oy, cell_x, cell, cols, starts, order, near_pos, near_group)
        pairs += int(cnt)
        separation[i, 0] = sx if cnt > 0 else 0.0
        separation[i, 1] = sy if cnt > 0 else 0.0
        if with_pull:
            # the nearest mate, for a unit with none in its radius (a second look at the same
            # runs, now in cache; in the vectorised scan it slowed dense flocks by a third)
            gap[i] = _nearest_mate(px, py, gi, GAP_REACH * scan, ox, oy, cell, cell_x, cols, rows, starts, near_pos,
                                   near_group) if cnt <= 0 and on_top <= 0 else -np.inf
            has = cnt > 0
            cohesion[i, 0] = (cx / cnt - px) / r if has else 0.0
            cohesion[i, 1] = (cy / cnt - py) / r if has else 0.0
            alignment[i, 0] = (vx / cnt - vel[i, 0]) / max_speed[i] if has else 0.0
            alignment[i, 1] = (vy / cnt - vel[i, 1]) / max_speed[i] if has else 0.0
    return pairs


@njit(cache=True, inline="always", fastmath={"reassoc", "contract", "nsz", "arcp"})
def _scan_run(e0, e1, px, py, gi, r2, pr, near_pos, near_vel, near_group):
    """Sums over neighbours ``e0 .. e1`` (in bucket order) of a unit at ``(px, py)`` of group
    ``gi``: mates within the radius, those on top, their positions and velocities, and the
    separation push. Branch-free (mates within the radius weigh 1, others 0), so the compiler
    vectorises it; a unit itself adds a count and an ``on_top`` (d = 0), nothing else."""
    cnt = on_top = cx = cy = vx = vy = sx = sy = 0.0
    for e in range(e0, e1):
        dx = px - near_pos[e, 0]
        dy = py - near_pos[e, 1]
        d2 = dx * dx + dy * dy
        mate = 1.0 if near_group[e] == gi else 0.0
        w = mate if d2 < r2 else 0.0
        cnt += w
        cx += w * near_pos[e, 0]
        cy += w * near_pos[e, 1]
        vx += w * near_vel[e, 0]
        vy += w * near_vel[e, 1]
        d = math.sqrt(d2)
        push = w * (1.0 - d / pr) / d if 1e-9 < d < pr else 0.0
        sx += dx * push
        sy += dy * push
        on_top += w if d <= 1e-9 else 0.0
    return cnt, on_top, cx, cy, vx, vy, sx, sy


@njit(cache=True, inline="always")
def _row_run(row, px, py, scan, ox, oy, cell, cell_x, cols):
    """The first and last bucket columns of bucket row ``row`` that a circle of radius ``scan``
    around ``(px, py)`` touches (one run of neighbours; empty when ``c0 > c1``)."""
    band = oy + row * cell
    dy_band = min(max(band - py, py - band - cell, 0.0), scan)
    half = math.sqrt(scan * scan - dy_band * dy_band)
    c0 = max(int(math.floor((px - half - ox) / cell_x)), 0)
    c1 = min(int(math.floor((px + half - ox) / cell_x)), cols - 1)
    return c0, c1


@njit(cache=True)
def _nearest_mate(px, py, gi, scan, ox, oy, cell, cell_x, cols, rows, starts, near_pos, near_group):
    """Distance from ``(px, py)`` to the nearest unit of group ``gi`` other than one exactly
    there (itself), over the runs a scan of reach ``scan`` reads; ``scan`` when none is nearer.
    A lower bound, a hair under the true distance whatever the rounding."""
    nearest = scan * scan
    r0 = max(int(math.floor((py - scan - oy) / cell)), 0)
    r1 = min(int(math.floor((py + scan - oy) / cell)), rows - 1)
    for row in range(r0, r1 + 1):
        c0, c1 = _row_run(row, px, py, scan, ox, oy, cell, cell_x, cols)
        if c0 > c1:
            continue
        for e in range(starts[row * cols + c0], starts[row * cols + c1 + 1]):
            if near_group[e] == gi:
                d2 = (px - near_pos[e, 0]) ** 2 + (py - near_pos[e, 1]) ** 2
                if d2 > 1e-18:
                    nearest = min(nearest, d2)
    return math.sqrt(nearest) - 1e-9


@njit(cache=True, inline="always")
def _split_on_top(i, px, py, gi, ox, oy, cell_x, cell, cols, starts, order, near_pos, near_group):
    """Separation along x from mates exactly on top of agent ``i`` (they share its bucket): +1
    from each of higher index, -1 from each of lower (kept out of the vectorised scan)."""
    k = int(math.floor((py - oy) / cell)) * cols + int(math.floor((px - ox) / cell_x))
    sx = 0.0
    for e in range(starts[k], starts[k + 1]):
        j = order[e]
        if j != i and near_group[e] == gi and (px - near_pos[e, 0]) ** 2 + (py - near_pos[e, 1]) ** 2 <= 1e-18:
            sx += 1.0 if i < j else -1.0
    return sx
