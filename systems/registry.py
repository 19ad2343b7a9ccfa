"""``AgentRegistryProcessor``: keeps the agent table in step with the esper world."""

from __future__ import annotations

import warnings

import esper

from rtsnav.components import Flock, NavigationAgent, Position, Velocity

from .base import NavProcessor


class AgentRegistryProcessor(NavProcessor):
    """Registers entities that gained a ``NavigationAgent`` (and have a position component — rtsnav's
    ``Position`` or the game's own bound one; a velocity and a ``Flock`` are optional), and
    unregisters those deleted or stripped of it. An entity with a ``NavigationAgent`` but no
    position rtsnav can read gets one ``RuntimeWarning`` naming it and what it lacks.

    esper hands out the same cached query list until an entity or component changes, so a tick
    without changes costs one identity check; a tick with changes costs one pass over the agents.
    """

    def __init__(self, navigation) -> None:
        super().__init__(navigation)
        self._seen: list | None = None
        self._warned: set[int] = set()

    def update(self, dt: float) -> None:
        current = esper.get_component(NavigationAgent)
        if current is self._seen:
            return
        self._seen = current
        binding = self.navigation.binding
        table = self.navigation.agents
        row_of = table.row_of
        live: set[int] = set()
        for entity, agent in current:
            if binding.is_default:
                position = esper.try_component(entity, Position)
                velocity = esper.try_component(entity, Velocity)
                external = None
            else:
                position, velocity, external = self._bound_components(entity)
            if position is None:
                self._warn_unreadable(entity, binding.position.__name__)
                continue                      # not an agent until it has a position
            live.add(entity)
            flock = esper.try_component(entity, Flock)
            row = row_of.get(entity)
            if row is None:
                table.add(entity, position, velocity, agent, flock, external)
                continue
            pos_b, vel_b, agent_b, flock_b = table.components[row]
            if external is not None and (table.external[row] is None
                                         or any(a is not b for a, b in zip(table.external[row], external))):
                table.set_external(row, external)
            if pos_b is not position or vel_b is not velocity or agent_b is not agent or flock_b is not flock:
                table.rebind(row, position, velocity, agent, flock)
        if len(live) != len(row_of):
            for entity in [e for e in row_of if e not in live]:
                self.navigation.requests.cancel(entity)
                table.remove(entity)

    def _bound_components(self, entity: int):
        """The game's components of ``entity`` and the private rows that mirror them."""
        binding = self.navigation.binding
        theirs = esper.try_component(entity, binding.position)
        if theirs is None:
            return None, None, None
        try:
            x, y, z = binding.read_position(theirs)
        except (AttributeError, TypeError, ValueError) as e:
            self._warn_unreadable(entity, f"{binding.position.__name__} with attributes "
                                  f"{binding.position_fields} ({type(e).__name__}: {e})")
            return None, None, None
        their_velocity = esper.try_component(entity, binding.velocity) if binding.velocity is not None else None
        table = self.navigation.agents
        row = table.row_of.get(entity)
        if row is not None:                                  # already mirrored: keep its rows
            return table.components[row][0], table.components[row][1], (theirs, their_velocity)
        return Position(x, y, z), Velocity(), (theirs, their_velocity)

    def _warn_unreadable(self, entity: int, wanted: str) -> None:
        if entity not in self._warned:
            self._warned.add(entity)
            warnings.warn(f"entity {entity} has a NavigationAgent but no {wanted} component rtsnav can "
                          "read; it is ignored until it gets one", RuntimeWarning, stacklevel=2)
