"""What a game feeds the crowd's steering besides orders: velocity inputs (Godot's ``velocity``
for avoidance-only agents) and avoidance obstacles (Godot's ``NavigationObstacle3D`` discs)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rtsnav import checks

from ..errors import NavError
from .agent_checks import agent_ids, each_once
from .state import CrowdState

__all__ = ["SteeringInputs", "OBSTACLE_PRIORITY"]

#: An obstacle's avoidance priority: above any agent's (0 .. 1), so every agent avoids it fully.
OBSTACLE_PRIORITY = 2.0


class SteeringInputs:
    """Sets the velocity inputs of agents and places obstacles (``Crowd.inputs``)."""

    def __init__(self, agents: CrowdState, add_agents: Callable[..., np.ndarray]) -> None:
        self._agents, self._add_agents = agents, add_agents

    def set_velocity(self, ids, velocity, *, forced: bool = False) -> None:
        """The game's velocity input (Godot's ``velocity``): agents without a target walk at it
        (capped at their speed), steered by avoidance; ``velocity_computed`` / ``velocities`` say
        what they made of it. One ``(2|3,)`` velocity or one per id; None stops the input.
        ``forced`` (Godot's ``set_velocity_forced``): neighbours' avoidance sees it at once, as
        after a teleport, instead of the velocity walked last tick."""
        ids = agent_ids(self._agents, ids)
        if velocity is None:
            self._agents.desired_velocity[ids] = np.nan
            return
        try:
            v = checks.float_array(velocity)
        except (TypeError, ValueError, OverflowError):
            raise NavError(f"velocity must be one finite (x, y[, z]) or one per agent ({len(ids)}), "
                           f"got {velocity!r:.100}") from None
        if v.ndim == 1:
            v = np.broadcast_to(v, (len(ids), v.shape[0]))
        elif v.ndim == 2 and len(v) > 1:
            each_once(ids, "velocities")
        if v.ndim != 2 or v.shape[0] != len(ids) or v.shape[1] not in (2, 3) or not np.isfinite(v).all():
            raise NavError(f"velocity must be one finite (x, y[, z]) or one per agent ({len(ids)}), "
                           f"got an array of shape {v.shape}")
        self._agents.desired_velocity[ids] = 0.0
        self._agents.desired_velocity[ids, : v.shape[1]] = v
        if forced:
            for i, row in zip(ids.tolist(), v.tolist()):
                self._agents.forced[i] = (row[0], row[1])
                self._agents.velocity[i, :2] = row[:2]

    def add_obstacles(self, positions, radius: float, *, layers: int = 1) -> np.ndarray:
        """Add avoidance obstacles (Godot's ``NavigationObstacle3D`` with a radius) at world
        ``positions``; returns their ids. Avoiding agents on a mask that takes ``layers`` keep
        clear of them by their radius plus their own, all the way (an obstacle never yields), and
        are pushed off them; they do not plan, walk or count as units. Move them with
        ``move_obstacles``; ``remove`` takes them away."""
        layers = checks.whole_number(layers, "obstacle layers (a bit mask)", low=0, high=2**32 - 1, error=NavError)
        ids = self._add_agents(positions, radius=radius, max_speed=1.0, avoidance=True)
        s = self._agents
        s.obstacle[ids] = True
        s.paused[ids] = True                       # held: the game moves it, contacts push others off
        s.avoidance_params[ids, 0] = OBSTACLE_PRIORITY
        s.agent_layers[ids, 0] = int(layers)
        s.agent_layers[ids, 1] = 0                 # it avoids nothing itself
        return ids

    def move_obstacles(self, ids, positions, velocities=None) -> None:
        """Place obstacles at world ``positions`` (``(N, 2|3)``) moving at ``velocities``
        (``(N, 2|3)``, world units / s; what avoidance expects of them; None: standing)."""
        ids = agent_ids(self._agents, ids)
        if len(ids) == 0 and np.size(positions) == 0 and (velocities is None or np.size(velocities) == 0):
            return                                 # nothing to move (an empty list of places)
        s = self._agents
        units = ids[~s.obstacle[ids]]
        if len(units):
            raise NavError(f"move_obstacles: agent {int(units[0])} is a unit, not an obstacle (add_obstacles makes "
                           "obstacles; units walk by orders)")
        pos = checks.points(positions, "obstacle positions", error=NavError)
        vel = (np.zeros((len(ids), 2)) if velocities is None
               else checks.points(velocities, "obstacle velocities", error=NavError)[:, :2])
        if len(pos) != len(ids) or len(vel) != len(ids):
            raise NavError(f"move_obstacles: {len(ids)} obstacles need as many positions and velocities, got "
                           f"{len(pos)} positions and {len(vel)} velocities")
        each_once(ids, "obstacle positions")
        if len(ids) == 0:
            return
        s.position[ids, : pos.shape[1]] = pos
        s.velocity[ids, :2] = vel
        for i, (vx, vy) in zip(ids.tolist(), vel.tolist()):
            s.forced[i] = (vx, vy)
