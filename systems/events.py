"""Names and payloads of the events rtsnav dispatches through ``esper.dispatch_event``.

Godot's NavigationAgent signals, as esper events. Subscribe with
``esper.set_handler(events.TARGET_REACHED, handler)``; use a module function or a bound method
(esper keeps weak references, so a lambda handler silently disappears). Events fire after the
components were written, inside ``esper.process``, in the world the processors run in. A
handler may delete entities, strip agents, spawn units or process again: the tick's events are
bound to entities first and each is sent only while its entity exists and owns its agent.

Event (constant = name)                   Handler arguments
----------------------------------------  -----------------------------------------------------
PATH_CHANGED = "path_changed"             entity: int, path: ndarray (N, 3) float64 — a new path
                                          was planned; world waypoints, the last one the target.
WAYPOINT_REACHED = "waypoint_reached"     entity: int, index: int, position: (x, y, z) — the
                                          agent passed waypoint ``index`` of its path.
TARGET_REACHED = "target_reached"         entity: int — within ``target_desired_distance``.
NAVIGATION_FINISHED =                     entity: int — navigation ended: arrived (right after
  "navigation_finished"                   target_reached) or failed (right after path_failed).
VELOCITY_COMPUTED = "velocity_computed"   entities: ndarray (N,) int64, velocities: ndarray
                                          (N, 3) float64 — once per tick, batched: the safe
                                          velocity (walls slid along, speed clamped) of every
                                          agent following a path or flow. Godot sends one
                                          ``safe_velocity`` per agent; one batch costs one call
                                          for 10,000 agents. Dispatched only when handled.
PATH_FAILED = "path_failed"               entity: int, reason: str — no path to the target:
                                          unreachable, blocked or off-map (the agent walks to the
                                          closest reachable point; with unreachable="fail" it
                                          stops), NaN target (it stops).
LINK_REACHED = "link_reached"             entity: int, kind: str, start: tuple, end: tuple —
                                          the start of an off-mesh link (jump, ladder, teleport)
                                          on a navmesh path; the agent is carried to ``end``.
STUCK = "stuck"                           entity: int — no progress for ``stuck_after`` seconds
                                          (frozen, or waiting in a queue that barely moves, or
                                          for its plan: then no recovery, the plan is queued); a
                                          recovery started (re-plan around the jam, walk alone,
                                          nearest reachable point); a frozen unit's last one
                                          ends in path_failed.
DISPLACED = "displaced"                   entity: int, position: (x, y, z) — a map edit (a
                                          gate, a carving obstacle) closed the cell the agent
                                          stood in; it was moved to ``position``, the nearest
                                          open point.
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
#: safe velocity of every agent following a path or flow (after wall sliding). Batched (not per
#: agent) so 10,000 agents cost one call; only dispatched when a handler is set.
VELOCITY_COMPUTED = "velocity_computed"

#: ``(entity: int, reason: str)`` — no path to the target (unreachable, blocked or off-map
#: target: the agent walks on to the closest reachable point, unless ``CrowdConfig.unreachable``
#: is ``"fail"``; NaN target, planner not available: the agent stops).
PATH_FAILED = "path_failed"

#: ``(entity: int, kind: str, start: tuple, end: tuple)`` — the agent reached the start of an
#: off-mesh link (jump, ladder, teleport) on its navmesh path; it is then carried to ``end``.
LINK_REACHED = "link_reached"

#: ``(entity: int)`` — the agent made no progress for ``stuck_after`` seconds (frozen, or waiting
#: in a queue that barely moves: no unit waits in silence); a recovery started (a queued unit
#: re-plans around the jam; a frozen one's recoveries count, and after the last: ``path_failed``).
#: Also sent each ``stuck_after`` an agent waits for its plan (no recovery: the plan is queued).
STUCK = "stuck"

#: ``(entity: int, position: tuple[float, float, float])`` — a map edit closed the cell the agent
#: stood in; it was moved out, to ``position``.
DISPLACED = "displaced"

ALL = (PATH_CHANGED, WAYPOINT_REACHED, TARGET_REACHED, NAVIGATION_FINISHED, VELOCITY_COMPUTED, PATH_FAILED,
       LINK_REACHED, STUCK, DISPLACED)


def has_handler(name: str) -> bool:
    """True when the current esper world has a handler for ``name`` (skip building payloads otherwise)."""
    import esper

    return bool(esper.event_registry.get(name))
