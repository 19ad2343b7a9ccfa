"""``MovementProcessor``: integrates agent velocities, never entering a blocked cell."""

from __future__ import annotations

import esper
import numpy as np

from rtsnav.components import NavState
from rtsnav.components.navigation import F_PAUSED, P_MAX_SPEED
from rtsnav.systems.nav.steering.collision import move_agents

from . import events
from .base import NavProcessor

_NO_HEIGHTS = np.zeros((1, 1), dtype=np.float32)


class MovementProcessor(NavProcessor):
    """``position += velocity · dt`` for every agent (velocity clamped to ``max_speed``; paused
    agents stand still), sliding along walls so no agent centre ever enters a blocked cell;
    ``velocity`` becomes the velocity actually achieved — the *safe* velocity — and z follows
    the grid's heights when it has them. With ``install(movement="game")`` positions are left
    to the game: the safe velocity is computed the same way on a scratch copy.
    Then ``velocity_computed`` reports the safe velocities of the agents following a path or flow."""

    def update(self, dt: float) -> None:
        nav = self.navigation
        table, grid = nav.agents, nav.grid
        n = table.count
        if n == 0 or not dt > 0.0:
            return
        heights = grid.heights if grid.heights is not None else _NO_HEIGHTS
        vel = table.velocity[:n]
        paused = table.agent_flags[:n, F_PAUSED]
        if paused.any():
            vel[paused] = 0.0
        pos = table.position[:n] if nav.movement == "rtsnav" else table.position[:n].copy()
        move_agents(pos, vel, np.ascontiguousarray(table.agent_params[:n, P_MAX_SPEED]), dt,
                    grid.passable, grid.cell_size, grid.origin[0], grid.origin[1], heights,
                    grid.heights is not None)
        if events.has_handler(events.VELOCITY_COMPUTED):
            rows = np.flatnonzero(table.nav_state[:n, 0] == NavState.FOLLOWING)
            esper.dispatch_event(events.VELOCITY_COMPUTED, table.entity[rows].copy(), vel[rows].copy())
