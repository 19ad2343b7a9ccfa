"""The words every layer shares, defined once: planner names, agent states, column codes.

Plain Python (no numpy, no esper): the algorithm core (``rtsnav.systems.nav``), the esper
components (``rtsnav.components``) and ``find_path`` all import them from here, so a planner's
name means the same everywhere and a code stored in a crowd column means the same to whoever
reads it.
"""

from __future__ import annotations

import difflib
import enum

__all__ = ["Planner", "PLANNERS", "GRID_PLANNERS", "GROUP_PLANNERS", "SEARCH_METHODS", "NavState",
           "canonical_planner", "unknown_name", "P_MAX_SPEED", "P_RADIUS", "P_PATH_DIST", "P_TARGET_DIST",
           "P_PATH_MAX", "F_HAS_TARGET", "F_AVOIDANCE", "F_TARGET_DIRTY", "F_PAUSED", "A_PRIORITY",
           "A_NEIGHBOR_DISTANCE", "A_MAX_NEIGHBORS", "A_HORIZON_AGENTS", "A_HORIZON_OBSTACLES", "L_AVOIDANCE_LAYERS",
           "L_AVOIDANCE_MASK", "L_NAVIGATION_LAYERS", "S_HEIGHT", "S_HEIGHT_OFFSET", "S_SEARCH_MAX_DISTANCE",
           "S_SEARCH_MAX_POLYGONS", "S_RETURN_MAX_LENGTH", "S_RETURN_MAX_RADIUS", "S_SIMPLIFY_EPSILON",
           "S_POSTPROCESSING", "O_SIMPLIFY_PATH", "O_KEEP_Z_VELOCITY", "O_3D_AVOIDANCE", "POSTPROCESSING"]


class Planner(enum.IntEnum):
    """How an agent plans; the value is the code stored in the crowd's ``agent_method`` column."""

    ASTAR = 0
    DIJKSTRA = 1
    WEIGHTED = 2
    BIDIRECTIONAL = 3
    JPS = 4
    JPS_PLUS = 5
    NAVMESH = 6
    WAYPOINTS = 7
    HIERARCHY = 8
    FLOWFIELD = 9
    LEADER = 10
    POTENTIAL = 11
    DSTAR_LITE = 12

    @property
    def label(self) -> str:
        """The planner's name as callers write it (``"jps+"``, ``"dstar-lite"``)."""
        return PLANNERS[self.value]


#: Every planner name, in the order of their codes (``Planner``).
PLANNERS = ("astar", "dijkstra", "weighted", "bidirectional", "jps", "jps+", "navmesh", "waypoints", "hierarchy",
            "flowfield", "leader", "potential", "dstar-lite")
#: Planners that are one grid search (``find_path`` methods an agent can use).
GRID_PLANNERS = PLANNERS[:6]
#: Planners that move agents as a group (keyed by flock group, goal cell and planner).
GROUP_PLANNERS = ("flowfield", "leader", "potential")
#: ``find_path`` methods: the grid planners, the B* crawler and D* Lite.
SEARCH_METHODS = ("dijkstra", "astar", "weighted", "bidirectional", "jps", "jps+", "bstar", "dstar-lite")
#: Other spellings accepted for a name (older releases said ``"dstar"``).
_ALIASES = {"dstar": "dstar-lite", "dstar_lite": "dstar-lite", "d*lite": "dstar-lite", "jps_plus": "jps+"}


def canonical_planner(name: object) -> str | None:
    """``name`` as one of ``PLANNERS`` / ``SEARCH_METHODS`` spellings (aliases resolved), or None
    when it is not a name at all."""
    if not isinstance(name, str):
        return None
    return _ALIASES.get(name, name)


def unknown_name(what: str, value: object, choices: tuple[str, ...]) -> str:
    """A message for an unknown name: what was given, the closest choice, every choice."""
    close = difflib.get_close_matches(str(value), choices, n=1) if isinstance(value, str) else []
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown {what} {value!r}{hint}; expected one of {', '.join(choices)}"


class NavState(enum.IntEnum):
    """Where an agent is in its navigation cycle (the crowd's ``nav_state`` column, int8)."""

    IDLE = 0          # no target
    PLANNING = 1      # its plan is queued or being computed (time-sliced)
    FOLLOWING = 2     # walking toward the target
    FINISHED = 3      # reached the target (navigation_finished fired)
    FAILED = 4        # no way to the target (path_failed fired; a reason is kept)


# Columns of the crowd's ``agent_params`` (P_*) and ``agent_flags`` (F_*) tables.
P_MAX_SPEED, P_RADIUS, P_PATH_DIST, P_TARGET_DIST, P_PATH_MAX = range(5)
F_HAS_TARGET, F_AVOIDANCE, F_TARGET_DIRTY, F_PAUSED = range(4)
# Columns of ``avoidance_params`` (A_*, NaN: the crowd's ``CrowdConfig`` value; priority NaN: 1).
A_PRIORITY, A_NEIGHBOR_DISTANCE, A_MAX_NEIGHBORS, A_HORIZON_AGENTS, A_HORIZON_OBSTACLES = range(5)
# Columns of ``agent_layers`` (L_*: 32-bit layer masks, Godot's layer 1 = bit 0 by default).
L_AVOIDANCE_LAYERS, L_AVOIDANCE_MASK, L_NAVIGATION_LAYERS = range(3)
# Columns of ``path_settings`` (S_*: 0 = no limit, as Godot's) and ``agent_options`` (O_*).
(S_HEIGHT, S_HEIGHT_OFFSET, S_SEARCH_MAX_DISTANCE, S_SEARCH_MAX_POLYGONS, S_RETURN_MAX_LENGTH, S_RETURN_MAX_RADIUS,
 S_SIMPLIFY_EPSILON, S_POSTPROCESSING) = range(8)
O_SIMPLIFY_PATH, O_KEEP_Z_VELOCITY, O_3D_AVOIDANCE = range(3)
#: Godot's ``path_postprocessing`` values, by code: the level's smoothing (a funnel on the
#: navmesh), cell / edge centres, or the search's raw corners.
POSTPROCESSING = ("corridorfunnel", "edgecentered", "none")
