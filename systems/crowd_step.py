"""``CrowdProcessor``: one crowd update a tick, and its events as Godot's signals."""

from __future__ import annotations

import esper

from rtsnav.components import NavState

from . import events
from .base import NavProcessor


class CrowdProcessor(NavProcessor):
    """Runs ``Crowd.update(dt)`` (orders, plans under the budget, following, group steering,
    flocking, movement, the progress watch), then dispatches its events with entity ids —
    after every component was written."""

    def update(self, dt: float) -> None:
        nav = self.navigation
        crowd = nav.crowd
        ev = crowd.update(dt, movement=nav.movement, waypoints=events.has_handler(events.WAYPOINT_REACHED),
                          velocities=events.has_handler(events.VELOCITY_COMPUTED))
        owner, state = crowd.agents.owner, crowd.states
        dispatch = esper.dispatch_event
        for i in ev.path_changed.tolist():
            dispatch(events.PATH_CHANGED, int(owner[i]), crowd.path(i))
        for i, index, point in ev.waypoints:
            dispatch(events.WAYPOINT_REACHED, int(owner[i]), index, point)
        for i, kind, start, end in ev.links:
            dispatch(events.LINK_REACHED, int(owner[i]), kind, start, end)
        short = crowd.agents.failure          # (at a closest point, or a cut path's end: finished, not reached)
        for i in ev.reached.tolist():
            if i not in short:
                dispatch(events.TARGET_REACHED, int(owner[i]))
            dispatch(events.NAVIGATION_FINISHED, int(owner[i]))
        for i, reason in zip(ev.failed.tolist(), ev.reasons):
            dispatch(events.PATH_FAILED, int(owner[i]), reason)
            if state[i] == NavState.FAILED:              # a partial path walks on
                dispatch(events.NAVIGATION_FINISHED, int(owner[i]))
        for i in ev.stuck.tolist():
            dispatch(events.STUCK, int(owner[i]))
        for i in ev.displaced.tolist():
            if owner[i] >= 0:
                dispatch(events.DISPLACED, int(owner[i]), tuple(float(v) for v in crowd.positions[i]))
        if len(ev.moving) and events.has_handler(events.VELOCITY_COMPUTED):
            dispatch(events.VELOCITY_COMPUTED, owner[ev.moving].copy(), ev.velocities)
