"""``AgentRegistryProcessor``: keeps the crowd's agents in step with the esper world."""

from __future__ import annotations

import esper

from rtsnav.components import NavigationAgent

from .base import NavProcessor
from .registration import register, unregister, warn_unreadable, wanted_components


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
        for entity, agent in current:
            parts = wanted_components(nav, entity, agent)
            if parts is None:
                warn_unreadable(self, entity)
                continue
            live.add(entity)
            register(nav, entity, parts)
        for entity in [e for e in nav.id_of if e not in live]:
            unregister(nav, entity)
