"""Flocking and wall avoidance on top of the planners' velocities.

Walking members of a flock get separation (within ``PERSONAL_SPACE`` × radius), cohesion and
alignment (their flock's weights, neighbours of the same group within its radius, through a
spatial hash). Group-steered units get a push away from walls within ``radius + 0.5`` cells,
weighted by ``wall_avoidance``, that steers but never brakes. Settled group units keep their
personal space (they yield rather than form a wall), so newcomers settle around them.
"""

from __future__ import annotations

import numpy as np

from ..steering.avoidance import wall_repulsion
from ..steering.flocking import flock_forces
from .groups import FLOW_CODES
from .state import (F_PAUSED, FL_ALIGNMENT, FL_COHESION, FL_RADIUS, FL_SEPARATION, P_MAX_SPEED, P_RADIUS, CrowdState,
                    NavState)

__all__ = ["apply_flocking", "PERSONAL_SPACE"]

#: Separation acts within this multiple of an agent's radius (its personal space).
PERSONAL_SPACE = 2.5


def apply_flocking(state: CrowdState, grid, wall_avoidance: float) -> int:
    """Add flocking and wall pushes to ``state.velocity``; returns the neighbour pairs examined."""
    n = state.size
    if n == 0:
        return 0
    s = state
    nav_state = s.nav_state[:n, 0]
    walking = (nav_state == NavState.FOLLOWING) & ~s.agent_flags[:n, F_PAUSED] & s.alive[:n]
    member = (s.flock_group[:n, 0] >= 0) & s.alive[:n]
    group_steered = np.isin(s.agent_method[:n, 0], FLOW_CODES)
    settled = member & group_steered & (nav_state == NavState.FINISHED)
    steer = (walking & member) | settled
    flow = (walking | settled) & group_steered
    if not (steer.any() or flow.any()):
        return 0
    params = s.agent_params[:n]
    max_speed = np.ascontiguousarray(params[:, P_MAX_SPEED])
    vel = s.velocity[:n]
    pos2 = np.ascontiguousarray(s.position[:n, :2])
    push = np.zeros((n, 2))
    pairs = 0
    if steer.any():
        neighbours = member & ((nav_state == NavState.FOLLOWING) | (nav_state == NavState.FINISHED))
        fp = s.flock_params[:n]
        sep, coh, ali = np.empty((n, 2)), np.empty((n, 2)), np.empty((n, 2))
        personal = PERSONAL_SPACE * params[:, P_RADIUS]
        pairs = flock_forces(pos2, np.ascontiguousarray(vel[:, :2]), np.ascontiguousarray(s.flock_group[:n, 0]),
                             np.ascontiguousarray(fp[:, FL_RADIUS]), personal, max_speed, neighbours, steer,
                             sep, coh, ali)
        coh[settled] = 0.0
        ali[settled] = 0.0
        push += sep * fp[:, FL_SEPARATION, None] + coh * fp[:, FL_COHESION, None] + ali * fp[:, FL_ALIGNMENT, None]
    if flow.any() and wall_avoidance > 0:
        wall = np.empty((n, 2))
        reach = np.where(flow, params[:, P_RADIUS] + 0.5 * grid.cell_size, 0.0)
        wall_repulsion(pos2, flow, reach, grid.passable, grid.cell_size, grid.origin[0], grid.origin[1], wall)
        heading = vel[:, :2]
        norm = np.hypot(heading[:, 0], heading[:, 1])
        moving = norm > 1e-9
        unit = np.zeros((n, 2))
        unit[moving] = heading[moving] / norm[moving, None]
        against = np.minimum((wall * unit).sum(axis=1), 0.0)
        wall -= against[:, None] * unit
        push += wall_avoidance * wall
    rows = np.flatnonzero(steer | flow)
    base = np.where(settled[rows, None], 0.0, vel[rows, :2])
    v = base + push[rows] * max_speed[rows, None]
    speed = np.hypot(v[:, 0], v[:, 1])
    cap = max_speed[rows]
    over = speed > cap
    v[over] *= (cap[over] / speed[over])[:, None]
    s.velocity[rows, :2] = v
    return int(pairs)
