"""Flocking and wall avoidance on top of the planners' velocities.

Walking members of a flock get separation (within ``PERSONAL_SPACE`` × radius), cohesion and
alignment (their flock's weights, neighbours of the same group within its radius, through a
spatial hash). Group-steered units get a push away from walls within ``radius + 0.5`` cells,
weighted by ``wall_avoidance``, that steers but never brakes. Settled group units keep their
personal space (they yield rather than form a wall), so newcomers settle around them.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ..kernels.threads import threads_for
from ..steering.flocking import flock_forces
from ..steering.wall_repulsion import wall_repulsion
from .groups import group_planned
from .state import (
    FL_ALIGNMENT,
    FL_COHESION,
    FL_RADIUS,
    FL_SEPARATION,
    CrowdState,
    NavState,
)

__all__ = ["apply_flocking", "PERSONAL_SPACE", "LOD_AGENTS", "LOD_STRIDE"]

#: Separation acts within this multiple of an agent's radius (its personal space).
PERSONAL_SPACE = 2.5
#: Steered flock members above which cohesion and alignment are refreshed for one in
#: ``LOD_STRIDE`` per tick (a level of detail: at 50,000 members the full-rate scan of every
#: member's flock radius is half a tick's budget; these pulls change slowly, separation does not).
LOD_AGENTS = 20_000
LOD_STRIDE = 3
#: Skip the flocking scans of members with no mate near (``_mate_gaps``); off, every steered
#: member is scanned (the same forces, tested).
SKIP_CLEAR = True
#: More units joining the flock neighbours in one tick than this (an order's burst) forget every
#: kept gap instead of capping their mates' (bounded work a tick).
FORGET_GAPS_AT = 256
#: 1 / seconds: how fast a settled unit pushed off its arrival slot returns to it.
HOME_PULL = 2.0


def apply_flocking(state: CrowdState, grid, wall_avoidance: float, tick: int = 0) -> int:
    """Add flocking and wall pushes to ``state.velocity``; returns the neighbour pairs examined.
    Above ``LOD_AGENTS`` steered members, cohesion and alignment are refreshed for one in
    ``LOD_STRIDE`` of them per tick (separation and walls every tick)."""
    n = state.size
    if n == 0:
        return 0
    s = state
    nav_state = s.nav_state[:n, 0]
    walking = (nav_state == NavState.FOLLOWING) & ~s.paused[:n] & s.alive[:n]
    member = (s.flock_group[:n, 0] >= 0) & s.alive[:n]
    group_steered = group_planned(s.agent_method[:n, 0])
    # settled units keep their personal space (they yield rather than form a wall); those with an
    # arrival slot are pulled back to it, so the blob lets newcomers through and stays packed
    settled = member & group_steered & (nav_state == NavState.FINISHED)
    steer = (walking & member) | settled
    flow = (walking | settled) & group_steered
    if not (steer.any() or flow.any()):
        return 0
    max_speed = np.ascontiguousarray(s.max_speed[:n])
    pos2 = np.ascontiguousarray(s.position[:n, :2])
    sep, wall = np.zeros((n, 2)), np.zeros((n, 2))
    pairs = 0
    if steer.any():
        refresh = steer & ~settled
        if refresh.sum() > LOD_AGENTS:
            refresh &= ((np.arange(n) + tick) % LOD_STRIDE == 0) | np.isnan(s.pull_x[:n])
        neighbours = member & ((nav_state == NavState.FOLLOWING) | (nav_state == NavState.FINISHED))
        personal = PERSONAL_SPACE * s.radius[:n]
        coh, ali = np.zeros((n, 2)), np.zeros((n, 2))
        group = np.ascontiguousarray(s.flock_group[:n, 0])
        gap = _mate_gaps(s, pos2, neighbours, group) if SKIP_CLEAR else None
        pairs = flock_forces(pos2, np.ascontiguousarray(s.velocity[:n, :2]), group,
                             np.ascontiguousarray(s.flock_params[:n, FL_RADIUS]), personal, max_speed, neighbours,
                             steer, sep, coh, ali, refresh, gap)
        _store_pull(s.pull_x, s.pull_y, coh, ali, s.flock_params, refresh, settled)
    use_walls = bool(flow.any() and wall_avoidance > 0)
    if use_walls:
        reach = np.where(flow, s.radius[:n] + 0.5 * grid.cell_size, 0.0)
        with threads_for(n, "wall_repulsion"):
            wall_repulsion(pos2, flow, reach, grid.view, wall, grid.move_masks(), grid.padded()[1])
    with threads_for(n, "flock_combine"):
        _combine(s.velocity, s.flock_params, max_speed, steer, flow, settled, sep, s.pull_x, s.pull_y, wall,
                 wall_avoidance if use_walls else 0.0, s.position, s.home_x, s.home_y, HOME_PULL)
    return int(pairs)


def _mate_gaps(s: CrowdState, pos: np.ndarray, neighbours: np.ndarray, group: np.ndarray) -> np.ndarray:
    """The members' lower bounds of their distance to the nearest mate (``flock_forces``'
    ``gap``, a view of ``s.mate_gap``), kept true since they were measured: each tick every bound
    shrinks by twice the farthest any neighbour moved (two mates closing in), and a unit that
    joined the neighbours (walking again, or in another group) caps its new mates' bounds at
    their distance to it and has none of its own. A unit leaving only widens gaps."""
    n = len(pos)
    key = np.where(neighbours, group, -1)
    last = s.flock_key[:n]
    gap = s.mate_gap[:n]
    moved = _farthest_move(pos, s.flock_x, s.flock_y, key, last)
    gap -= 2.0 * moved if moved < np.inf else np.inf
    joined = np.flatnonzero((key >= 0) & (key != last))
    if len(joined) > FORGET_GAPS_AT:
        gap[:] = -np.inf                               # an order's burst: everyone is scanned again
    elif len(joined):
        joined = joined[np.argsort(key[joined], kind="stable")]
        _meet(gap, pos, key, np.flatnonzero(np.isin(key, key[joined])), joined, key[joined])
    s.flock_key[:n] = key
    s.flock_x[:n] = pos[:, 0]
    s.flock_y[:n] = pos[:, 1]
    return gap


@njit(cache=True)
def _farthest_move(pos, last_x, last_y, key, last_key) -> float:
    """The farthest a unit that stayed a neighbour (in the same group) moved since ``last_x`` /
    ``last_y`` (inf when not finite)."""
    far = 0.0                                          # squared (a root a unit cost ~1 ms at 50,000)
    for i in range(pos.shape[0]):
        if key[i] >= 0 and key[i] == last_key[i]:
            dx = pos[i, 0] - last_x[i]
            dy = pos[i, 1] - last_y[i]
            d2 = dx * dx + dy * dy
            if not d2 <= far:                          # NaN counts as infinitely far
                far = d2 if d2 == d2 else np.inf
    return math.sqrt(far)


@njit(cache=True)
def _meet(gap, pos, key, mates, joined, joined_keys):
    """Units ``joined`` (sorted by their ``joined_keys``) are new neighbours: the bound of each
    unit ``mates`` (those of their groups) is capped at its distance to each joined unit of its
    group; the joined have none."""
    for i in mates:
        lo = np.searchsorted(joined_keys, key[i])
        hi = np.searchsorted(joined_keys, key[i], side="right")
        for j in joined[lo:hi]:
            if i != j:
                gap[i] = min(gap[i], math.hypot(pos[i, 0] - pos[j, 0], pos[i, 1] - pos[j, 1]) - 1e-9)
    for j in joined:
        gap[j] = -np.inf


@njit(cache=True)
def _store_pull(pull_x, pull_y, cohesion, alignment, flock_params, refresh, settled):
    """The weighted cohesion + alignment of the ``refresh`` units is kept (a level of detail
    refreshes it for some units a tick); a settled unit's is cleared (NaN: walking again, it is
    refreshed at once)."""
    for i in range(refresh.shape[0]):
        if settled[i]:
            pull_x[i] = pull_y[i] = np.nan
        elif refresh[i]:
            pull_x[i] = cohesion[i, 0] * flock_params[i, FL_COHESION] + alignment[i, 0] * flock_params[i, FL_ALIGNMENT]
            pull_y[i] = cohesion[i, 1] * flock_params[i, FL_COHESION] + alignment[i, 1] * flock_params[i, FL_ALIGNMENT]


@njit(cache=True, parallel=True)
def _combine(velocity, flock_params, max_speed, steer, flow, settled, sep, pull_x, pull_y, wall, wall_weight,
             position, home_x, home_y, home_pull):
    """velocity += flock pushes (settled units: only separation, no drift of their own) and the
    wall push, which steers but never brakes (its part against the heading is dropped: at a
    narrow gap's mouth it would cancel the flow and jam it); capped at max_speed."""
    for i in prange(steer.shape[0]):
        if not (steer[i] or flow[i]):
            continue
        vx, vy = velocity[i, 0], velocity[i, 1]
        px = py = 0.0
        if steer[i]:
            px += sep[i, 0] * flock_params[i, 0]
            py += sep[i, 1] * flock_params[i, 0]
            if not settled[i] and not math.isnan(pull_x[i]):      # weighted cohesion + alignment
                px += pull_x[i]
                py += pull_y[i]
        if flow[i] and wall_weight > 0.0:
            wx, wy = wall[i, 0], wall[i, 1]
            norm = math.sqrt(vx * vx + vy * vy)
            if norm > 1e-9:
                ux, uy = vx / norm, vy / norm
                against = min(wx * ux + wy * uy, 0.0)
                wx -= against * ux
                wy -= against * uy
            px += wall_weight * wx
            py += wall_weight * wy
        if settled[i]:
            vx = vy = 0.0
            if not math.isnan(home_x[i]):                   # back to its arrival slot
                vx = (home_x[i] - position[i, 0]) * home_pull
                vy = (home_y[i] - position[i, 1]) * home_pull
        vx += px * max_speed[i]
        vy += py * max_speed[i]
        speed = math.sqrt(vx * vx + vy * vy)
        if speed > max_speed[i]:
            vx *= max_speed[i] / speed
            vy *= max_speed[i] / speed
        velocity[i, 0] = vx
        velocity[i, 1] = vy


# the flock_params column ``_combine`` reads, stated once
assert FL_SEPARATION == 0
