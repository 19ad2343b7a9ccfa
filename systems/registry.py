"""``AgentRegistryProcessor``: keeps the crowd's agents in step with the esper world."""

from __future__ import annotations

import esper

from rtsnav.components import Flock, NavigationAgent, Position, Velocity

from .base import NavProcessor
from .registration import register, unregister, wanted_components, warn_unreadable


class AgentRegistryProcessor(NavProcessor):
    """Entities that gained a ``NavigationAgent`` (and a position rtsnav can read — its own
    ``Position`` or the game's bound one) become crowd agents, their components views onto the
    agent's row; deleted or stripped entities leave. An entity with a ``NavigationAgent`` but no
    readable position gets one ``RuntimeWarning``. esper hands out the same cached query list
    until something changes, so a quiet tick costs one identity check."""

    def __init__(self, navigation) -> None:
        super().__init__(navigation)
        self._seen: list | None = None
        self.warned: set[int] = set()

    def update(self, dt: float) -> None:
        current = esper.get_component(NavigationAgent)
        if current is self._seen:
            return
        self._seen = current
        nav = self.navigation
        live = set()
        unchanged = _unchanged_test(nav)
        for entity, agent in current:
            if unchanged is not None and unchanged(entity, agent):
                live.add(entity)
                continue
            parts = wanted_components(nav, entity, agent)
            if parts is None:
                warn_unreadable(self, entity)
                continue
            live.add(entity)
            register(nav, entity, parts)
        for entity in [e for e in nav.id_of if e not in live]:
            unregister(nav, entity)


def _unchanged_test(nav):
    """A fast check that a registered entity still has the very components bound to its row
    (esper's own entity table read directly: a dict lookup per component instead of
    ``try_component``); None when the game binds its own components or esper's internals differ."""
    table = getattr(esper, "_entities", None)
    if not nav.binding.is_default or not isinstance(table, dict):
        return None
    id_of, components = nav.id_of, nav.components

    def unchanged(entity: int, agent) -> bool:
        agent_id = id_of.get(entity)
        if agent_id is None:
            return False
        bound = components[agent_id]
        comps = table[entity]
        return (bound[2] is agent and bound[0] is comps.get(Position) and bound[1] is comps.get(Velocity)
                and bound[3] is comps.get(Flock))

    return unchanged
