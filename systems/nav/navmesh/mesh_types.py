"""The navmesh's plain types: its settings (``NavMeshConfig``), off-mesh links and query results."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ..errors import NavError
from ..result import PathStatus

__all__ = ["NavMeshConfig", "OffMeshLink", "MeshPath", "QueryTables", "LinkTables", "CORNER_MARGIN"]

#: How far funnel points stay off polygon corners (cells), so paths never touch a wall corner.
CORNER_MARGIN = 1e-3


@dataclass(frozen=True, slots=True)
class NavMeshConfig:
    """Bake parameters (Recast's ``rcConfig``): every field with its unit and limits.

    Attributes:
        cell_size: world units per cell edge, > 0 (grids: the grid's own).
        agent_radius: world units, ≥ 0: walkable area is eroded by this much.
        agent_height: world units, > 0: free space needed above a surface (triangle bakes).
        max_slope: degrees, 0..90: steeper surfaces are not walkable (triangle bakes).
        max_climb: world units, ≥ 0: largest height step between neighbouring cells (Recast's
            walkableClimb; larger steps are cliffs no path crosses).
        max_side: cells, ≥ 1: longest polygon side (shorter sides price crossings better in the
            search used with area costs).
        landmarks: count, ≥ 0: landmarks for the exact search's heuristic (each costs one
            exhaustive search at bake time and 8 bytes per boundary vertex; 0 = straight line).
    """

    cell_size: float = 1.0
    agent_radius: float = 0.5
    agent_height: float = 2.0
    max_slope: float = 35.0
    max_climb: float = 0.9
    max_side: int = 16
    landmarks: int = 8

    def __post_init__(self) -> None:
        for name in ("cell_size", "agent_radius", "agent_height", "max_slope", "max_climb", "max_side", "landmarks"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                    or not math.isfinite(value) or abs(float(value)) > 1e300:
                raise NavError(f"NavMeshConfig.{name} must be a finite number, got {value!r}")
            # plain floats / ints from here on: a Python int past 64 bits must not reach a kernel
            object.__setattr__(self, name, int(value) if name in ("max_side", "landmarks") and value == int(value)
                               else float(value))
        checks = [("cell_size", 1e-6 <= self.cell_size <= 1e6, "in [1e-6, 1e6]"),
                  ("agent_radius", 0 <= self.agent_radius <= 1e3 * self.cell_size, "in [0, 1000 cells]"),
                  ("agent_height", self.agent_height > 0, "> 0"), ("max_slope", 0 <= self.max_slope <= 90, "in [0, 90]"),
                  ("max_climb", self.max_climb >= 0, ">= 0"),
                  ("max_side", isinstance(self.max_side, int) and 1 <= self.max_side <= 1 << 20,
                   "a whole number in [1, 2**20]"),
                  ("landmarks", isinstance(self.landmarks, int) and 0 <= self.landmarks <= 64, "a whole number in [0, 64]")]
        for name, ok, expected in checks:
            if not ok:
                raise NavError(f"NavMeshConfig.{name} must be {expected}, got {getattr(self, name)!r}")


@dataclass(frozen=True, slots=True)
class OffMeshLink:
    """A jump / ladder / teleport from world point ``a`` to ``b`` with its own ``cost``."""

    a: tuple[float, float, float]
    b: tuple[float, float, float]
    cost: float
    kind: str = "jump"
    bidirectional: bool = True


@dataclass(frozen=True, slots=True)
class MeshPath:
    """A navmesh query result.

    Attributes:
        status: ``PathStatus`` (FOUND, UNREACHABLE, or PARTIAL: a path to the reachable point
            closest to the goal, in ``points``; ``found`` is then False).
        cost: path cost (length × area cost per polygon; links add their cost); inf if none.
        points: ``(N, 3)`` world waypoints, start..goal (or ..closest point).
        polygons: polygon ids crossed (the corridor; found on first read: a long path crosses
            hundreds of polygons and most callers never ask); ``links``: indices into ``points``
            where a link starts (the next point is its end), ``link_kinds`` their kinds.
        reason: why not found; ``closest``: the closest reachable point when PARTIAL.
    """

    status: PathStatus
    cost: float = math.inf
    points: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    #: the polygon ids, or a function that finds them (``polygons`` calls it once)
    corridor: np.ndarray | Callable[[], np.ndarray] | None = field(default=None, repr=False, compare=False)
    links: tuple = ()
    link_kinds: tuple = ()
    reason: str = ""
    closest: tuple | None = None

    @property
    def polygons(self) -> np.ndarray:
        """Polygon ids the path crosses, in order."""
        corridor = self.corridor
        if corridor is None:
            corridor = np.zeros(0, dtype=np.int64)
        elif callable(corridor):
            corridor = corridor()
        else:
            return corridor
        object.__setattr__(self, "corridor", corridor)            # frozen: kept once found
        return corridor

    @property
    def found(self) -> bool:
        """True for a complete path to the goal."""
        return self.status is PathStatus.FOUND

    @property
    def partial(self) -> bool:
        """True when the goal was unreachable and ``points`` lead to the closest point."""
        return self.status is PathStatus.PARTIAL


class QueryPlan(NamedTuple):
    """A navmesh query that needs an area-cost search: the snapped start ``s`` in polygon
    ``ps``, goal ``g`` in ``pg``, the goal as given, the ``CandidateSearch`` to step and what
    ``NavMesh.end_query`` needs to read its answer (``meta``)."""

    ps: int
    s: np.ndarray
    pg: int
    g: np.ndarray
    goal: Any
    search: Any
    meta: Any


class QueryTables(NamedTuple):
    """The query triangulation as flat arrays — what the exact route's sweeps and searches read.
    Coordinates are lattice units (cells from the mesh origin)."""

    start: np.ndarray          # portals grouped by triangle: CSR start per triangle (T + 1)
    dst: np.ndarray            # each portal's far triangle
    rev: np.ndarray            # the same portal seen from the far side
    va: np.ndarray             # each portal's end vertices
    vb: np.ndarray
    is_corner: np.ndarray      # per vertex: a convex boundary corner paths bend around
    vstart: np.ndarray         # each triangle's vertices (CSR)
    verts: np.ndarray
    points: np.ndarray         # vertex coordinates (V, 2)
    scratch: Any               # reusable sweep arrays (landmarks.Scratch)
    corner_mask: np.ndarray    # (H, W) lattice corners that are convex
    cliff_dirs: np.ndarray     # per lattice corner: directions blocked by a climb
    wedge: np.ndarray          # per vertex: the free wedge of directions at a corner
    fans: tuple                # (fan_start, fan): the triangles around each vertex
    vinfo: np.ndarray          # points and wedges in one array (the kernels' vertex record)
    corner_ids: np.ndarray     # indices of the convex corners
    uniform: bool              # every polygon costs the same (the exact route applies)
    component: np.ndarray      # connected component per triangle


class LinkTables(NamedTuple):
    """Off-mesh link ends as extra nodes of the exact query: what each end sees, its landmark
    distances, where each link goes (empty arrays without links)."""

    seen_by_start: np.ndarray  # per corner, the link ends that see it (CSR) …
    seen_by_end: np.ndarray
    seen_by_dist: np.ndarray   # … and at what distance
    node: np.ndarray           # search records for corners + ends
    ends: list                 # per end: (x, y, triangles holding it)
    xy: np.ndarray             # end coordinates (lattice units)
    land: np.ndarray           # landmark distances per end
    cstart: np.ndarray         # per end, the corners it sees (CSR) …
    cids: np.ndarray
    cdist: np.ndarray          # … and at what distance
    end_end: np.ndarray        # straight distances between ends that see each other
    link_to: np.ndarray        # the end a link leads to (-1: none)
    link_cost: np.ndarray      # its traversal cost
