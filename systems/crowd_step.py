"""``CrowdProcessor``: one crowd update a tick, and its events as Godot's signals."""

from __future__ import annotations

import esper
import numpy as np

from rtsnav.components import NavState

from . import events
from .base import NavProcessor
from .registry import next_entity_id


class CrowdProcessor(NavProcessor):
    """Runs ``Crowd.update(dt)`` (orders, plans under the budget, following, group steering,
    flocking, movement, the progress watch), then dispatches its events with entity ids —
    after every component was written.

    A tick's events are bound to their entities before the first handler runs, and each is
    sent only while its entity still exists and still owns that agent: a handler may delete
    entities, strip their agents, spawn new ones or even run ``esper.process`` again, and no
    later event of the tick goes to a deleted entity, to the wrong one (an agent id handed to a
    newcomer) or fails for an agent that is gone."""

    def update(self, dt: float) -> None:
        nav = self.navigation
        crowd = nav.crowd
        ev = crowd.update(dt, movement=nav.movement, waypoints=events.has_handler(events.WAYPOINT_REACHED),
                          velocities=events.has_handler(events.VELOCITY_COMPUTED))
        id_of, exists, dispatch = nav.id_of, esper.entity_exists, esper.dispatch_event
        batch = len(ev.moving) > 0 and events.has_handler(events.VELOCITY_COMPUTED)
        before = world_mark(nav) if batch else None          # (only the velocity batch needs the stamp)
        for kind, agent, entity, args in tick_signals(crowd, ev):
            if id_of.get(entity) == agent and exists(entity):      # (handlers before may have deleted it)
                dispatch(kind, entity, *args)
        if batch:
            owner = crowd.agents.owner[ev.moving]
            if before is None or world_mark(nav) != before:    # a handler changed the world: the units still there
                keep = np.array([id_of.get(e) == a and exists(e) for e, a in zip(owner.tolist(), ev.moving.tolist())],
                                dtype=bool)
                owner, velocities = owner[keep], ev.velocities[keep]
            else:
                velocities = ev.velocities
            dispatch(events.VELOCITY_COMPUTED, owner, velocities)


def world_mark(nav) -> tuple[int, ...] | None:
    """A cheap stamp that changes when entities are created or deleted or agents registered or
    dropped (esper's tables by length and its next entity id); None when they cannot be read."""
    table, dead, next_id = getattr(esper, "_entities", None), getattr(esper, "_dead_entities", None), next_entity_id()
    if not isinstance(table, dict) or not isinstance(dead, set) or next_id == 0:
        return None
    return len(table), len(dead), next_id, len(nav.id_of), int(nav.crowd.agents.alive_count)


def tick_signals(crowd, ev) -> list[tuple[str, int, int, tuple]]:
    """The tick's per-agent events in dispatch order, ``(event, agent id, entity, payload)``,
    read from the crowd now (entities, paths, states, positions), before any handler can change it."""
    owner = crowd.agents.owner
    signals: list[tuple[str, int, int, tuple]] = []

    def each(kind: str, ids, payloads=None) -> None:
        ids = np.asarray(ids, dtype=np.int64)
        payloads = payloads if payloads is not None else [()] * len(ids)
        signals.extend(zip([kind] * len(ids), ids.tolist(), owner[ids].tolist(), payloads))

    if events.has_handler(events.PATH_CHANGED):
        each(events.PATH_CHANGED, ev.path_changed, [(crowd.path(i),) for i in ev.path_changed.tolist()])
    each(events.WAYPOINT_REACHED, [w[0] for w in ev.waypoints], [w[1:] for w in ev.waypoints])
    each(events.LINK_REACHED, [link[0] for link in ev.links], [link[1:] for link in ev.links])
    short = crowd.agents.failure          # (at a closest point, or a cut path's end: finished, not reached)
    for i, entity in zip(ev.reached.tolist(), owner[ev.reached].tolist()):
        if i not in short:
            signals.append((events.TARGET_REACHED, i, entity, ()))
        signals.append((events.NAVIGATION_FINISHED, i, entity, ()))
    state = crowd.states
    for i, reason in zip(ev.failed.tolist(), ev.reasons):
        signals.append((events.PATH_FAILED, i, int(owner[i]), (reason,)))
        if state[i] == NavState.FAILED:              # a partial path walks on
            signals.append((events.NAVIGATION_FINISHED, i, int(owner[i]), ()))
    each(events.STUCK, ev.stuck)
    each(events.DISPLACED, ev.displaced, [(tuple(p),) for p in crowd.positions[ev.displaced].tolist()])
    return signals
