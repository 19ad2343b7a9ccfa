"""``FlockingProcessor``: flocking and wall avoidance on top of the group-steering velocity."""

from __future__ import annotations

import numpy as np

from rtsnav.components import NavState, PLANNERS
from rtsnav.components.navigation import P_MAX_SPEED, P_RADIUS
from rtsnav.components.steering import FL_ALIGNMENT, FL_COHESION, FL_RADIUS, FL_SEPARATION
from rtsnav.systems.nav.steering.avoidance import wall_repulsion
from rtsnav.systems.nav.steering.flocking import flock_forces

from .base import NavProcessor

FLOW_METHODS = (PLANNERS.index("flowfield"), PLANNERS.index("leader"))
#: Separation acts within this multiple of a unit's ``NavigationAgent.radius`` (its personal
#: space); cohesion and alignment use the whole ``Flock.radius``.
PERSONAL_SPACE = 2.5


class FlockingProcessor(NavProcessor):
    """For walking members of a ``Flock``: add separation (within ``PERSONAL_SPACE`` × radius),
    cohesion and alignment (weights from each unit's ``Flock``, neighbours of the same group
    within its radius, found through a spatial hash). For walking flow-field / leader units: add a push away from walls within
    ``radius + 0.5`` cells, weighted by ``Navigation.wall_avoidance`` (above the flock weights).
    Units of a group that arrived still count as neighbours and keep their personal space (they
    are pushed aside rather than forming a wall), so newcomers settle around them."""

    def __init__(self, navigation) -> None:
        super().__init__(navigation)
        self.pairs = 0

    def update(self, dt: float) -> None:
        nav = self.navigation
        t, grid = nav.agents, nav.grid
        n = t.count
        if n == 0:
            return
        state = t.nav_state[:n, 0]
        walking = state == NavState.FOLLOWING
        member = t.flock_group[:n, 0] >= 0
        group_steered = np.isin(t.agent_method[:n, 0], FLOW_METHODS)
        # settled group units keep their personal space: crowded, they yield like a fluid
        settled = member & group_steered & (state == NavState.FINISHED)
        steer = (walking & member) | settled
        flow = (walking | settled) & group_steered
        if not (steer.any() or flow.any()):
            return
        params = t.agent_params[:n]
        max_speed = np.ascontiguousarray(params[:, P_MAX_SPEED])
        vel = t.velocity[:n]
        pos2 = np.ascontiguousarray(t.position[:n, :2])
        push = np.zeros((n, 2))
        if steer.any():
            neighbours = member & ((state == NavState.FOLLOWING) | (state == NavState.FINISHED))
            fp = t.flock_params[:n]
            sep = np.empty((n, 2))
            coh = np.empty((n, 2))
            ali = np.empty((n, 2))
            personal = PERSONAL_SPACE * params[:, P_RADIUS]
            self.pairs = flock_forces(pos2, np.ascontiguousarray(vel[:, :2]),
                                      np.ascontiguousarray(t.flock_group[:n, 0]),
                                      np.ascontiguousarray(fp[:, FL_RADIUS]), personal, max_speed,
                                      neighbours, steer, sep, coh, ali)
            coh[settled] = 0.0                        # settled units only keep their distance
            ali[settled] = 0.0
            push += (sep * fp[:, FL_SEPARATION, None] + coh * fp[:, FL_COHESION, None]
                     + ali * fp[:, FL_ALIGNMENT, None])
        if flow.any() and nav.wall_avoidance > 0:
            wall = np.empty((n, 2))
            reach = np.where(flow, params[:, P_RADIUS] + 0.5 * grid.cell_size, 0.0)
            wall_repulsion(pos2, flow, reach, grid.passable, grid.cell_size, grid.origin[0], grid.origin[1], wall)
            # Walls steer, they never brake: drop the part of the push that opposes where the
            # unit is heading (at a narrow gap's mouth it would cancel the flow and jam it).
            heading = vel[:, :2]
            norm = np.hypot(heading[:, 0], heading[:, 1])
            moving = norm > 1e-9
            unit = np.zeros((n, 2))
            unit[moving] = heading[moving] / norm[moving, None]
            against = np.minimum((wall * unit).sum(axis=1), 0.0)
            wall -= against[:, None] * unit
            push += nav.wall_avoidance * wall
        rows = np.flatnonzero(steer | flow)
        base = np.where(settled[rows, None], 0.0, vel[rows, :2])   # settled: no drift of their own
        v = base + push[rows] * max_speed[rows, None]
        speed = np.hypot(v[:, 0], v[:, 1])
        cap = max_speed[rows]
        over = speed > cap
        v[over] *= (cap[over] / speed[over])[:, None]
        t.velocity[rows, :2] = v
