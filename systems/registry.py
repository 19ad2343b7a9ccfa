"""``AgentRegistryProcessor``: keeps the agent table in step with the esper world."""

from __future__ import annotations

import esper

from rtsnav.components import Flock, NavigationAgent, Position, Velocity

from .base import NavProcessor


class AgentRegistryProcessor(NavProcessor):
    """Registers entities that gained a ``NavigationAgent`` (and have a ``Position``; a
    ``Velocity`` and a ``Flock`` are optional), and unregisters those deleted or stripped of it.

    esper hands out the same cached query list until an entity or component changes, so a tick
    without changes costs one identity check; a tick with changes costs one pass over the agents.
    """

    def __init__(self, navigation) -> None:
        super().__init__(navigation)
        self._seen: list | None = None

    def update(self, dt: float) -> None:
        current = esper.get_component(NavigationAgent)
        if current is self._seen:
            return
        self._seen = current
        table = self.navigation.agents
        requests = self.navigation.requests
        row_of = table.row_of
        bound = table.components
        try_component = esper.try_component
        live = set()
        for entity, agent in current:
            position = try_component(entity, Position)
            if position is None:
                continue                      # not an agent until it has a Position
            live.add(entity)
            velocity = try_component(entity, Velocity)
            flock = try_component(entity, Flock)
            row = row_of.get(entity)
            if row is None:
                table.add(entity, position, velocity, agent, flock)
                continue
            pos_b, vel_b, agent_b, flock_b = bound[row]
            if pos_b is not position or vel_b is not velocity or agent_b is not agent or flock_b is not flock:
                table.rebind(row, position, velocity, agent, flock)
        if len(live) != len(row_of):
            for entity in [e for e in row_of if e not in live]:
                requests.cancel(entity)
                table.remove(entity)
