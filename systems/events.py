"""Names and payloads of the events rtsnav dispatches through ``esper.dispatch_event``.

Godot's NavigationAgent signals, as esper events. Subscribe with
``esper.set_handler(events.TARGET_REACHED, handler)``; use a module function or a bound method
(esper keeps weak references, so a lambda handler silently disappears). Events fire after the
components were written, inside ``esper.process``, in the world the processors run in.
"""

#: ``(entity: int, path: ndarray (N, 3) float64)`` — a new path was planned for the agent;
#: ``path`` holds world waypoints, the last one the target.
PATH_CHANGED = "path_changed"

#: ``(entity: int, index: int, position: tuple[float, float, float])`` — the agent passed
#: waypoint ``index`` of its path (within ``path_desired_distance``).
WAYPOINT_REACHED = "waypoint_reached"

#: ``(entity: int)`` — the agent came within ``target_desired_distance`` of its target.
TARGET_REACHED = "target_reached"

#: ``(entity: int)`` — navigation ended for the agent: it arrived (fires right after
#: ``target_reached``) or its request failed (right after ``path_failed``).
NAVIGATION_FINISHED = "navigation_finished"

#: ``(entities: ndarray (N,) int64, velocities: ndarray (N, 3) float64)`` — once per tick, the
#: velocities the path followers computed for every agent that is following a path. Batched
#: (not per agent) so 10,000 agents cost one call; only dispatched when a handler is set.
VELOCITY_COMPUTED = "velocity_computed"

#: ``(entity: int, reason: str)`` — no path to the target (unreachable, blocked or off-map
#: target, NaN target, planner not available); the agent stops.
PATH_FAILED = "path_failed"

#: ``(entity: int, kind: str, start: tuple, end: tuple)`` — the agent reached the start of an
#: off-mesh link (jump, ladder, teleport) on its navmesh path; it is then carried to ``end``.
LINK_REACHED = "link_reached"

ALL = (PATH_CHANGED, WAYPOINT_REACHED, TARGET_REACHED, NAVIGATION_FINISHED, VELOCITY_COMPUTED, PATH_FAILED,
       LINK_REACHED)


def has_handler(name: str) -> bool:
    """True when the current esper world has a handler for ``name`` (skip building payloads otherwise)."""
    import esper

    return bool(esper.event_registry.get(name))
