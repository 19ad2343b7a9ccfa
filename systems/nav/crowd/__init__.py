"""The crowd (Detour's ``dtCrowd`` in spirit): agents, modes, group orders, one planning budget.

``Crowd`` is the object; ``CrowdConfig`` its settings; ``CrowdEvents`` what one ``update``
reports. Usable from any script, no esper needed (see ``crowd.py``'s example).
"""

from .config import CrowdConfig
from .crowd import Crowd
from .events import CrowdEvents
from .planners import PlanQueue, Route
from .state import GROUP_PLANNERS, PLANNERS, CrowdState, Mode, NavState

__all__ = ["Crowd", "CrowdConfig", "CrowdEvents", "CrowdState", "Mode", "NavState", "PLANNERS", "GROUP_PLANNERS",
           "PlanQueue", "Route"]
