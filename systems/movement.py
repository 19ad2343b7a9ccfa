"""``MovementProcessor``: integrates agent velocities, never entering a blocked cell."""

from __future__ import annotations

import numpy as np

from rtsnav.components.navigation import P_MAX_SPEED
from rtsnav.systems.nav.steering.collision import move_agents

from .base import NavProcessor

_NO_HEIGHTS = np.zeros((1, 1), dtype=np.float32)


class MovementProcessor(NavProcessor):
    """``position += velocity · dt`` for every agent (velocity clamped to ``max_speed``),
    sliding along walls so no agent centre ever enters a blocked cell; ``velocity`` becomes the
    velocity actually achieved, and z follows the grid's heights when it has them."""

    def update(self, dt: float) -> None:
        nav = self.navigation
        table, grid = nav.agents, nav.grid
        n = table.count
        if n == 0:
            return
        heights = grid.heights if grid.heights is not None else _NO_HEIGHTS
        pos = table.position[:n]
        vel = table.velocity[:n]
        move_agents(pos, vel, np.ascontiguousarray(table.agent_params[:n, P_MAX_SPEED]), dt,
                    grid.passable, grid.cell_size, grid.origin[0], grid.origin[1], heights,
                    grid.heights is not None)
