"""rtsnav's navigation core: pure numpy + numba, no ECS and no rendering.

Usable from a plain script::

    import numpy as np
    from rtsnav.systems.nav import Grid, find_path
    grid = Grid(np.ones((64, 64), dtype=bool))
    result = find_path(grid, (0, 0), (63, 40), method="astar")
    result.found, result.cost, result.cells      # True, 71.79..., (N, 2) int32 array of (x, y)
"""

# first, before any kernel is defined: a wheel's compiled kernels are then found (see the module)
from . import shipped_kernels  # noqa: F401
from .crowd import Crowd, CrowdConfig, CrowdEvents
from .crowd.warmup import warm_up
from .errors import NavError
from .flow.field import FlowField
from .flow.sectors import SectorGraph
from .grid import Grid
from .heuristics import HEURISTICS
from .navmesh import LayeredNavMesh, NavMesh
from .result import PathResult, PathStatus
from .search.dstar_lite import DStarLite
from .search.facade import METHODS, find_path
from .search.goal_bounds import GoalBounds
from .search.jps_plus import JumpTable
from .search.paths import path_cost, path_length, smooth_path, validate_path
from .waypoints.graph import WaypointGraph
from .waypoints.hierarchy import Hierarchy

__all__ = [
    "Grid", "NavError", "PathResult", "PathStatus", "find_path", "METHODS", "HEURISTICS",
    "FlowField", "SectorGraph", "Hierarchy", "WaypointGraph", "NavMesh", "LayeredNavMesh",
    "smooth_path", "path_length", "path_cost", "validate_path", "warm_up", "Crowd", "CrowdConfig", "CrowdEvents",
    "DStarLite", "GoalBounds", "JumpTable",
]
