"""Plain-data esper components: nouns, stdlib and numpy only.

``Position``, ``Velocity`` and ``NavigationAgent`` are row views (see ``components.rows``): they
hold their own values until the navigation processors register the entity, then read and write
a row of the ``Navigation``'s agent arrays, so processors work on all agents at once.
"""

from .navigation import GRID_PLANNERS, PLANNERS, NavigationAgent, NavigationPathResult, NavState
from .obstacle import NavigationObstacle
from .steering import Flock
from .tags import Selected, Team
from .transform import Position, Velocity

__all__ = ["Position", "Velocity", "NavigationAgent", "NavigationObstacle", "NavigationPathResult", "NavState",
           "Flock", "Team", "Selected", "PLANNERS", "GRID_PLANNERS"]
