"""``NavMesh``: convex polygons over the walkable area and exact any-angle queries on it.

A query is answered on the baked visibility graph (see ``visibility.py``): a view sweep from the
goal (which corners it sees, and its exact landmark distances), a sweep from the start, then A*
over the corners with landmark bounds — the Euclidean shortest path through the walkable area,
not an approximation of it. Off-mesh links join that graph as extra nodes. Meshes with differing
area costs use A* over portal crossing points with funnel string-pulling instead (near-optimal).

>>> import numpy as np
>>> from rtsnav.systems.nav import Grid, NavMesh
>>> passable = np.ones((20, 40), dtype=bool)
>>> passable[0:15, 20] = False
>>> mesh = NavMesh.from_grid(Grid(passable), agent_radius=0.0)
>>> r = mesh.find_path((2.5, 2.5, 0.0), (37.5, 2.5, 0.0))
>>> r.found, len(r.points), round(r.cost, 1)       # round both corners of the wall's end
(True, 4, 43.2)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..bake_cache import grid_digest, load_or_bake, read_baked, require, write_baked
from ..errors import NavError
from ..grid import Grid, finite_point, world_segments_clear
from ..result import PathStatus
from .build import connect_regions, erode, grow_regions, rasterize_triangles, validate_triangles, walkable_surface
from .funnel import string_pull
from .landmarks import Scratch, bake_landmarks, triangle_components
from .search import CandidateSearch
from .trace import inset_lattice_points, polygons_along, straight_in_sight
from .triangulate import boundary_corners, portal_tables, triangles_holding, triangulate_walkable
from .visibility import (
    build_visibility_graph,
    corner_wedges,
    goal_distances,
    grazed_corners,
    link_bounds,
    sweep,
    vertex_fans,
    visibility_astar,
)

__all__ = ["NavMesh", "NavMeshConfig", "MeshPath", "OffMeshLink"]

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
        checks = [("cell_size", self.cell_size > 0), ("agent_radius", self.agent_radius >= 0),
                  ("agent_height", self.agent_height > 0), ("max_slope", 0 <= self.max_slope <= 90),
                  ("max_climb", self.max_climb >= 0), ("max_side", self.max_side >= 1),
                  ("landmarks", self.landmarks >= 0)]
        for name, ok in checks:
            if not ok:
                raise NavError(f"NavMeshConfig.{name} out of range: {getattr(self, name)!r}")


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
        polygons: polygon ids crossed; ``links``: indices into ``points`` where a link starts
            (the next point is its end), ``link_kinds`` their kinds.
        reason: why not found; ``closest``: the closest reachable point when PARTIAL.
    """

    status: PathStatus
    cost: float = math.inf
    points: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    polygons: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    links: tuple = ()
    link_kinds: tuple = ()
    reason: str = ""
    closest: tuple | None = None

    @property
    def found(self) -> bool:
        """True for a complete path to the goal."""
        return self.status is PathStatus.FOUND

    @property
    def partial(self) -> bool:
        """True when the goal was unreachable and ``points`` lead to the closest point."""
        return self.status is PathStatus.PARTIAL


class NavMesh:
    """Convex polygons (axis-aligned rectangles of cells) over the walkable, eroded area, plus
    the query layer baked with them.

    Attributes:
        rects: ``(P, 4)`` cell rectangles x0, y0, x1, y1 (exclusive); ``area_cost``: ``(P,)``.
        poly_of_cell: ``int32 [H, W]`` polygon per cell (-1 = off mesh): the point-location grid.
        height: ``[H, W]`` surface height per cell (the detail layer).
        tri_points / tri_triangles: the walkable area triangulated with every vertex on its
            boundary (lattice units); ``vis_start`` / ``vis_dst``: the visibility graph over its
            convex corners (CSR); ``landmarks``: ``(V, K)`` exact corner distances from K landmarks.
    """

    def __init__(self, walkable: np.ndarray, cost: np.ndarray, height: np.ndarray, config: NavMeshConfig,
                 origin: tuple[float, float] = (0.0, 0.0), progress=None) -> None:
        step = (lambda stage: (lambda done, total: progress(stage, done, total))) if progress else (lambda stage: None)
        self.config = config
        self.origin = (float(origin[0]), float(origin[1]))
        self.walkable = walkable
        #: How queries were answered: ``direct`` (start sees goal: no search) or ``searched``.
        self.query_counts = {"direct": 0, "searched": 0}
        self.height = np.where(np.isnan(height), 0.0, height)
        regions = step("regions")
        if regions:
            regions(0, 1)
        self.poly_of_cell, self.rects = grow_regions(walkable, cost.astype(np.float64), self.height,
                                                     config.max_climb, config.max_side)
        self.area_cost = cost[self.rects[:, 1], self.rects[:, 0]].astype(np.float64) if len(self.rects) else np.zeros(0)
        pairs, segs = connect_regions(self.poly_of_cell, self.height, config.max_climb)
        order = np.argsort(pairs[:, 0], kind="stable")
        self._src, self._dst, self._seg = pairs[order, 0], pairs[order, 1], segs[order]
        self._start = np.searchsorted(self._src, np.arange(len(self.rects) + 1))
        if regions:
            regions(1, 1)
        triangulation = step("triangulation")
        if triangulation:
            triangulation(0, 1)
        # the same walkable area triangulated with every vertex on its boundary: the exact
        # any-angle search runs on this (see triangulate.py)
        (self.tri_points, self.tri_triangles, self.tri_neighbours, self.tri_touching,
         self.cell_triangle) = triangulate_walkable(self.poly_of_cell >= 0, self.height, config.max_climb)
        self.links: list[OffMeshLink] = []
        self.source_digest = ""           # the grid digest a cached bake was keyed on
        self._labels: np.ndarray | None = None
        self._itables: dict | None = None
        self._ltables: dict | None = None
        self._plain_sight: bool | None = None
        # the query graph: taut segments between mutually visible corners, and landmarks
        tables = self._query_tables()
        if triangulation:
            triangulation(1, 1)
        bends, ends = build_visibility_graph(tables, tables["scratch"], tables["wedge"], step("visibility graph"))
        self.vis_start, self.vis_dst = bends
        self.landmarks = bake_landmarks(tables, bends, ends, config.landmarks, step("landmarks"))

    # ------------------------------------------------------------------- bakes
    @classmethod
    def from_grid(cls, grid: Grid, agent_radius: float = 0.5, *, max_climb: float = 0.9,
                  max_side: int = 16, landmarks: int = 8, progress=None) -> "NavMesh":
        """Bake from a grid level: walkable cells + heights are already a heightfield (stage 2);
        then erode by ``agent_radius`` (world units), grow regions, connect them."""
        cfg = NavMeshConfig(cell_size=grid.cell_size, agent_radius=agent_radius, max_climb=max_climb,
                            max_side=max_side, landmarks=landmarks)
        heights = grid.heights if grid.heights is not None else np.zeros(grid.shape)
        walk = erode(grid.passable, agent_radius / grid.cell_size)
        return cls(walk, grid.cost, heights.astype(np.float64), cfg, grid.origin, progress)

    @classmethod
    def from_triangles(cls, vertices: np.ndarray, triangles: np.ndarray, config: NavMeshConfig | None = None,
                       progress=None, **overrides) -> "NavMesh":
        """Bake from triangle soup (``vertices (V, 3)`` world, ``triangles (T, 3)`` indices).

        Raises:
            NavError: NaN vertices, indices out of range, degenerate triangles, bad config.
        """
        cfg = config or NavMeshConfig(**overrides)
        v, t = validate_triangles(vertices, triangles)
        lo = v[:, :2].min(axis=0)
        hi = v[:, :2].max(axis=0)
        w = int(math.ceil((hi[0] - lo[0]) / cfg.cell_size)) + 1
        h = int(math.ceil((hi[1] - lo[1]) / cfg.cell_size)) + 1
        z, slope = rasterize_triangles(v, t, cfg.cell_size, lo[0], lo[1], w, h)
        walk, height = walkable_surface(z, slope, cfg.max_slope, cfg.agent_height)
        walk = erode(walk, cfg.agent_radius / cfg.cell_size)
        return cls(walk, np.ones(walk.shape), height, cfg, (float(lo[0]), float(lo[1])), progress)

    # ------------------------------------------------------------------ cache
    FORMAT_VERSION = 8
    _ARRAYS = ("walkable", "height", "poly_of_cell", "rects", "area_cost", "_src", "_dst", "_seg", "_start", "tri_points", "tri_triangles",
               "tri_neighbours", "tri_touching", "cell_triangle", "vis_start", "vis_dst", "landmarks")

    def save(self, path) -> None:
        """Write the baked mesh (checksummed npz, see ``bake_cache``)."""
        cfg = self.config
        meta = np.array([cfg.cell_size, cfg.agent_radius, cfg.agent_height, cfg.max_slope, cfg.max_climb,
                         cfg.max_side, self.origin[0], self.origin[1], cfg.landmarks])
        write_baked(path, self.FORMAT_VERSION, meta, {name.strip("_"): getattr(self, name) for name in self._ARRAYS},
                    grid=self.source_digest)

    @classmethod
    def load(cls, path, expect_digest: str | None = None) -> "NavMesh":
        """Read a mesh written by ``save``; ``NavError`` if corrupt, of another format version, or
        (with ``expect_digest``) baked from another grid or with other parameters."""
        meta, arrays, digest = read_baked(path, cls.FORMAT_VERSION, "navmesh")
        if expect_digest is not None and digest != expect_digest:
            raise NavError(f"{path}: baked for another grid or other parameters")
        require(arrays, [name.strip("_") for name in cls._ARRAYS], path, "navmesh")
        if len(meta) != 9:
            raise NavError(f"{path}: navmesh cache has {len(meta)} parameters, expected 9")
        mesh = cls.__new__(cls)
        mesh.config = NavMeshConfig(float(meta[0]), float(meta[1]), float(meta[2]), float(meta[3]),
                                    float(meta[4]), int(meta[5]), int(meta[8]))
        mesh.origin = (float(meta[6]), float(meta[7]))
        for name in cls._ARRAYS:
            setattr(mesh, name, arrays[name.strip("_")])
        mesh.links = []
        mesh._labels = None
        mesh._itables = None
        mesh.query_counts = {"direct": 0, "searched": 0}
        return mesh

    @classmethod
    def cached(cls, grid: Grid, cache_dir, agent_radius: float = 0.5, progress=None, **kw) -> "NavMesh":
        """The mesh of ``grid`` from ``cache_dir``, or baked and saved there (a corrupt or stale
        file is rebuilt). The file name carries a digest of the grid and the parameters."""
        from pathlib import Path

        digest = grid_digest(grid, (grid.shape, grid.cell_size, grid.origin, agent_radius, sorted(kw.items()),
                                    cls.FORMAT_VERSION))

        def bake() -> "NavMesh":
            mesh = cls.from_grid(grid, agent_radius, progress=progress, **kw)
            mesh.source_digest = digest
            return mesh

        mesh = load_or_bake(Path(cache_dir) / f"navmesh-{digest[:24]}.npz", lambda p: cls.load(p, digest), bake)
        mesh.source_digest = digest
        return mesh

    # --------------------------------------------------------------- geometry
    @property
    def polygon_count(self) -> int:
        """Number of polygons (the search graph's nodes)."""
        return len(self.rects)

    def polygon_vertices(self, p: int) -> np.ndarray:
        """World ``(4, 3)`` corners of polygon ``p`` (counter-clockwise), at its mean height."""
        x0, y0, x1, y1 = self.rects[p]
        cs = self.config.cell_size
        ox, oy = self.origin
        z = float(self.height[y0:y1, x0:x1].mean())
        return np.array([[ox + x0 * cs, oy + y0 * cs, z], [ox + x1 * cs, oy + y0 * cs, z],
                         [ox + x1 * cs, oy + y1 * cs, z], [ox + x0 * cs, oy + y1 * cs, z]])

    def convex_corners(self) -> np.ndarray:
        """Indices into ``tri_points`` of the walkable area's convex corners: the vertices the
        exact any-angle queries bend around."""
        return np.asarray(self._query_tables()["corner_ids"])

    def _cell(self, point) -> tuple[int, int]:
        cs = self.config.cell_size
        return (int(math.floor((point[0] - self.origin[0]) / cs)), int(math.floor((point[1] - self.origin[1]) / cs)))

    def polygon_at(self, point: Sequence[float] | np.ndarray) -> int:
        """Polygon under world ``point`` (-1 when off the mesh); ``NavError`` for a point that is
        not 2 or 3 finite numbers."""
        x, y = self._cell(finite_point(point, "point"))
        h, w = self.poly_of_cell.shape
        return int(self.poly_of_cell[y, x]) if 0 <= x < w and 0 <= y < h else -1

    def nearest_point(self, point: Sequence[float] | np.ndarray, search_cells: int = 64) -> tuple[int, np.ndarray] | None:
        """Nearest polygon and the nearest point on it to world ``point`` (rings of cells of the
        point-location grid, not a scan of all polygons), or None within ``search_cells``."""
        x, y = self._cell(point)
        h, w = self.poly_of_cell.shape
        cs = self.config.cell_size
        best = None
        for r in range(search_cells + 1):
            x0, x1, y0, y1 = max(0, x - r), min(w - 1, x + r), max(0, y - r), min(h - 1, y + r)
            if x0 > x1 or y0 > y1:
                continue
            window = self.poly_of_cell[y0:y1 + 1, x0:x1 + 1]
            ids = np.unique(window[window >= 0])
            for p in ids:
                q = self.closest_on_polygon(int(p), point)
                d = math.hypot(q[0] - point[0], q[1] - point[1])
                if best is None or d < best[0]:
                    best = (d, int(p), q)
            if best is not None and best[0] <= (r - 1) * cs:
                break
        return None if best is None else (best[1], best[2])

    def closest_on_polygon(self, p: int, point: Sequence[float] | np.ndarray) -> np.ndarray:
        """The point of polygon ``p`` nearest to ``point`` (xy), with the mesh height there."""
        x0, y0, x1, y1 = self.rects[p]
        cs = self.config.cell_size
        ox, oy = self.origin
        m = CORNER_MARGIN * cs
        qx = min(max(point[0], ox + x0 * cs + m), ox + x1 * cs - m)
        qy = min(max(point[1], oy + y0 * cs + m), oy + y1 * cs - m)
        return np.array([qx, qy, self.height_at((qx, qy))])

    def height_at(self, point: Sequence[float] | np.ndarray) -> float:
        """Surface height (world z) of the mesh at ``point`` (nan off the mesh)."""
        x, y = self._cell(finite_point(point, "point"))
        h, w = self.height.shape
        if not (0 <= x < w and 0 <= y < h) or not self.walkable[y, x]:
            return math.nan
        return float(self.height[y, x])

    def raycast(self, start: Sequence[float] | np.ndarray, end: Sequence[float] | np.ndarray) -> tuple[bool, np.ndarray]:
        """Walk a straight line on the mesh: ``(clear, hit)`` — ``hit`` is ``end`` when clear,
        else the last point on the mesh before leaving it."""
        a = np.array(finite_point(start, "start"), dtype=np.float64)[:2]
        b = np.array(finite_point(end, "end"), dtype=np.float64)[:2]
        cs = self.config.cell_size
        if world_segments_clear(self.walkable, cs, self.origin[0], self.origin[1], a[None], b[None])[0]:
            return True, np.array([b[0], b[1], self.height_at(b)])
        lo, hi = 0.0, 1.0                                  # bisect the leaving point
        for _ in range(30):
            mid = (lo + hi) / 2
            p = a + (b - a) * mid
            if world_segments_clear(self.walkable, cs, self.origin[0], self.origin[1], a[None], p[None])[0]:
                lo = mid
            else:
                hi = mid
        p = a + (b - a) * lo
        return False, np.array([p[0], p[1], self.height_at(p)])

    # ------------------------------------------------------------------ links
    def add_link(self, a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, cost: float | None = None,
                 kind: str = "jump", bidirectional: bool = True) -> OffMeshLink:
        """An off-mesh connection (jump, ladder, teleport) from ``a`` to ``b``; ``cost`` defaults
        to the straight distance. Both ends must be on the mesh."""
        for name, p in (("a", a), ("b", b)):
            if self.polygon_at(p) < 0:
                raise NavError(f"link end {name} {tuple(p)} is not on the navmesh")
        c = float(cost) if cost is not None else math.dist(a[:2], b[:2])
        link = OffMeshLink((float(a[0]), float(a[1]), float(a[2])), (float(b[0]), float(b[1]), float(b[2])), c, kind,
                            bidirectional)
        self.links.append(link)
        self._plain_sight = None                       # links may beat a straight walk
        self._labels = None
        self._ltables = None
        return link

    # ----------------------------------------------------------------- queries
    def find_path(self, start: Sequence[float] | np.ndarray, goal: Sequence[float] | np.ndarray) -> MeshPath:
        """Shortest path on the mesh between world points: exact (Euclidean shortest, with each
        corner nudged 0.002 cells off its wall; off-mesh links taken where they pay) on
        uniform-cost meshes, funnel-pulled A* over portal crossing points with area costs. Points off the mesh snap to the
        nearest point on it; an unreachable goal gives a PARTIAL result leading to the reachable
        point closest to it."""
        query = self.start_query(start, goal)
        while not query.step(2**40):
            pass
        return query.result()

    def start_query(self, start: Sequence[float] | np.ndarray, goal: Sequence[float] | np.ndarray) -> "MeshQuery":
        """The query of ``find_path`` as an object answered in slices: ``step(budget)`` expands
        up to ``budget`` crossing points of an area-cost search (other queries answer at once)
        until it returns True; ``result()`` is then exactly ``find_path``'s answer."""
        return MeshQuery(self, start, goal)

    def _snap(self, s: np.ndarray, g: np.ndarray):
        """``(ps, s, pg, g, None)`` with points off the mesh moved onto it, or ``(..., failure)``."""
        ps = self.polygon_at(s)
        if ps < 0:
            near = self.nearest_point(s)
            if near is None:
                return -1, s, -1, g, MeshPath(PathStatus.UNREACHABLE, reason=f"start {tuple(s)} is not near the navmesh")
            ps, s = near[0], near[1]
        pg = self.polygon_at(g)
        if pg < 0:
            near = self.nearest_point(g)
            if near is None:
                return ps, s, -1, g, MeshPath(PathStatus.UNREACHABLE, reason=f"goal {tuple(g)} is not near the navmesh")
            pg, g = near[0], near[1]
        return ps, s, pg, g, None

    def _in_plain_sight(self, s: np.ndarray, g: np.ndarray) -> MeshPath | None:
        """The cheap exit before any search: on a flat, uniform-cost mesh without links, two
        points on the mesh that see each other with room to spare (the segment and its two
        copies shifted sideways by the corner margin clear of every blocked cell) are joined by
        the straight segment — what the exact search would return, without its sweeps."""
        if not self._plain_sight_applies():
            return None
        pts, polys = straight_in_sight(self.walkable, self.height, self.poly_of_cell, self.config.cell_size,
                                       self.origin[0], self.origin[1], s[0], s[1], g[0], g[1],
                                       2 * CORNER_MARGIN * self.config.cell_size)
        if len(pts) == 0:
            return None
        return MeshPath(PathStatus.FOUND, math.hypot(g[0] - s[0], g[1] - s[1]) * self._uniform_cost, pts, polys)

    def _plain_sight_applies(self) -> bool:
        flag = getattr(self, "_plain_sight", None)
        if flag is None:
            heights = self.height[self.walkable]
            flag = bool(not self.links and self._exact_applies()
                        and (heights.size == 0 or float(heights.max() - heights.min()) <= self.config.max_climb))
            self._plain_sight = flag
            self._uniform_cost = float(self.area_cost[0])
        return flag

    #: Reachable polygons tried, nearest first, for the closest point of a partial path.
    PARTIAL_TRIES = 32

    def _partial(self, ps: int, s: np.ndarray, g: np.ndarray, goal) -> MeshPath:
        """The path to the reachable point closest to ``g``. The nearest point of a reachable
        polygon can sit where the exact query's triangles say otherwise (a margin, a cliff
        edge): then the next nearest polygon is tried."""
        cand = np.flatnonzero(self._reachable(ps))
        cs = self.config.cell_size
        m = CORNER_MARGIN * cs
        r = self.rects[cand].astype(np.float64) * cs
        qx = np.clip(g[0], self.origin[0] + r[:, 0] + m, self.origin[0] + r[:, 2] - m)
        qy = np.clip(g[1], self.origin[1] + r[:, 1] + m, self.origin[1] + r[:, 3] - m)
        for i in np.argsort(np.hypot(qx - g[0], qy - g[1]), kind="stable")[: self.PARTIAL_TRIES]:
            target = self.closest_on_polygon(int(cand[i]), g)
            found = self._route(ps, int(cand[i]), s, target)
            if found is not None:
                pts, cost, links, polys, kinds = found
                return MeshPath(PathStatus.PARTIAL, cost, pts, polys, links, kinds,
                                reason=f"goal {tuple(map(float, goal))} is not reachable; path to the closest point",
                                closest=tuple(map(float, target)))
        return MeshPath(PathStatus.UNREACHABLE,
                        reason=f"goal {tuple(map(float, goal))} is not reachable and no nearby point is")

    def _route(self, ps: int, pg: int, s: np.ndarray, g: np.ndarray):
        """``(points, cost, links, polygons, link kinds)`` from ``s`` in ``ps`` to ``g`` in ``pg``,
        or None when unreachable. Uniform-cost meshes get the exact visibility-graph search;
        otherwise A* over crossing points, funnel-pulled."""
        if self._exact_applies():
            return self._exact_route(s, g)
        route = self._astar(ps, pg, s[:2], g[:2])
        return None if route is None else self._points(route, s, g)

    # ------------------------------------------------------- exact interval search
    def _exact_applies(self) -> bool:
        """The visibility-graph query answers uniform-cost meshes (with or without links)."""
        return self._query_tables()["uniform"]

    def _query_tables(self) -> dict:
        """The triangulation as flat arrays for the query kernels, plus scratch (built lazily)."""
        tables = getattr(self, "_itables", None)
        if tables is None:
            corner, cliff_dirs = boundary_corners(self.poly_of_cell >= 0, self.height, self.config.max_climb)
            tables = portal_tables(self.tri_points, self.tri_triangles, self.tri_neighbours, corner)
            tables["scratch"] = Scratch(len(self.tri_points))
            tables["corner_mask"] = corner
            tables["cliff_dirs"] = cliff_dirs
            tables["wedge"] = corner_wedges(self.tri_points, tables["is_corner"], self.poly_of_cell >= 0, cliff_dirs)
            tables["fans"] = vertex_fans(self.tri_triangles, len(self.tri_points))
            tables["vinfo"] = np.ascontiguousarray(np.c_[self.tri_points, tables["wedge"]], dtype=np.float64)
            tables["corner_ids"] = np.flatnonzero(tables["is_corner"])
            tables["uniform"] = bool(len(self.area_cost)) and bool(np.all(self.area_cost == self.area_cost[0]))
            tables["component"] = triangle_components(tables)
            self._itables = tables
        return tables

    def _triangles_holding(self, lx: float, ly: float) -> np.ndarray:
        """Triangles holding lattice point (lx, ly) — all of them when it is a mesh vertex, so a
        sweep from there looks every way."""
        held = triangles_holding(self.tri_points, self.tri_triangles, self.tri_touching, self.tri_neighbours,
                                 self.cell_triangle, float(lx), float(ly))
        if len(held):
            corners = self.tri_triangles[held[0]]
            at = np.flatnonzero(np.abs(self.tri_points[corners] - (lx, ly)).max(axis=1) <= 1e-9)
            if len(at):
                fan_start, fan = self._query_tables()["fans"]
                v = corners[at[0]]
                return fan[fan_start[v]:fan_start[v + 1]]
        return held

    def _link_tables(self) -> dict:
        """Off-mesh link ends as extra nodes of the visibility-graph query (built lazily, dropped
        when a link is added; empty arrays without links): what each end sees, its landmark
        distances, where each link goes."""
        cached = getattr(self, "_ltables", None)
        if cached is not None:
            return cached
        t = self._query_tables()
        cs = self.config.cell_size
        ox, oy = self.origin
        ends, link_to, link_cost = [], [], []
        for i, link in enumerate(self.links):
            for k, (p, _other) in enumerate(((link.a, link.b), (link.b, link.a))):
                x, y = (p[0] - ox) / cs, (p[1] - oy) / cs
                ends.append((x, y, self._triangles_holding(x, y)))
                one_way_back = k == 1 and not link.bidirectional
                link_to.append(-1 if one_way_back else 2 * i + 1 - k)
                link_cost.append(math.inf if one_way_back else link.cost)
        n = len(ends)
        ids = t["corner_ids"]
        cstart, cids, cdist = [0], [], []
        end_end = np.full((n, n), np.inf)
        end_land = np.zeros((n, self.landmarks.shape[1]))
        for e, (x, y, tris) in enumerate(ends):
            seen, others = sweep(t, t["scratch"], tris, x, y, ends)
            vis = ids[np.isfinite(seen[ids])]
            cids.append(vis)
            cdist.append(seen[vis])
            cstart.append(cstart[-1] + len(vis))
            end_end[e] = others
            end_end[e, e] = np.inf
            end_land[e] = goal_distances(self.landmarks, seen, ids)
        cids_flat = np.concatenate(cids).astype(np.int64) if cids else np.zeros(0, np.int64)
        cdist_flat = np.concatenate(cdist) if cdist else np.zeros(0)
        owner = np.repeat(np.arange(n), np.diff(cstart))
        by_corner = np.argsort(cids_flat, kind="stable")         # the same pairs, grouped by corner
        v_count = len(t["points"])
        self._ltables = cached = {
            "seen_by_start": np.searchsorted(cids_flat[by_corner], np.arange(v_count + 1)).astype(np.int64),
            "seen_by_end": owner[by_corner].astype(np.int64), "seen_by_dist": cdist_flat[by_corner],
            "node": t["scratch"].node if n == 0 else np.zeros((v_count + n, 4)),
            "ends": ends, "xy": np.array([(x, y) for x, y, _ in ends], dtype=np.float64).reshape(-1, 2),
            "land": end_land, "cstart": np.array(cstart, dtype=np.int64),
            "cids": cids_flat, "cdist": cdist_flat, "end_end": end_end,
            "link_to": np.array(link_to, dtype=np.int64), "link_cost": np.array(link_cost, dtype=np.float64)}
        return cached

    def _exact_route(self, s: np.ndarray, g: np.ndarray):
        t = self._query_tables()
        sc = t["scratch"]
        cs = self.config.cell_size
        ox, oy = self.origin
        sx, sy = (s[0] - ox) / cs, (s[1] - oy) / cs
        gx, gy = (g[0] - ox) / cs, (g[1] - oy) / cs
        start_tris, goal_tris = self._triangles_holding(sx, sy), self._triangles_holding(gx, gy)
        if len(start_tris) == 0 or len(goal_tris) == 0:
            return None
        e = self._link_tables()
        if not self.links and t["component"][start_tris[0]] != t["component"][goal_tris[0]]:
            return None                                      # another island: no search needed
        ends = e["ends"]
        shared = bool(set(start_tris.tolist()) & set(goal_tris.tolist()))
        to_goal, seen_by_goal = sweep(t, sc, goal_tris, gx, gy, [(sx, sy, start_tris)] + ends)
        direct = math.hypot(gx - sx, gy - sy) if shared or math.isfinite(seen_by_goal[0]) else math.inf
        if direct < math.inf and not self.links:              # in plain sight
            path = [np.array([sx, sy]), np.array([gx, gy])]
            link_at: list[tuple[int, int]] = []
        else:
            from_start, start_end = sweep(t, sc, start_tris, sx, sy, ends)
            d_goal = goal_distances(self.landmarks, to_goal, t["corner_ids"])
            length, route = visibility_astar(
                self.vis_start, self.vis_dst, t["vinfo"], self.landmarks, d_goal, t["corner_ids"], from_start,
                to_goal, sx, sy, gx, gy, e["node"], sc.next_stamp(), sc.stats, e["xy"], e["land"], e["cstart"],
                e["cids"], e["cdist"], e["seen_by_start"], e["seen_by_end"], e["seen_by_dist"], e["end_end"], start_end, seen_by_goal[1:], e["link_to"], e["link_cost"],
                e["land"], link_bounds(e["land"], d_goal, e["link_to"], e["link_cost"]))
            if direct <= length:
                route, length = np.zeros(0, np.int64), direct
            if not math.isfinite(length):
                return None
            v_count = len(t["points"])
            path, link_at = [np.array([sx, sy])], []
            for i, r in enumerate(route):
                path.append(t["points"][r] if r < v_count else e["xy"][r - v_count])
                if i + 1 < len(route) and r >= v_count and route[i + 1] >= v_count:
                    a, b = r - v_count, route[i + 1] - v_count
                    if e["link_to"][a] == b and e["link_cost"][a] <= e["end_end"][a, b]:
                        link_at.append((len(path) - 1, a // 2))     # this end and the next: link a // 2
            path.append(np.array([gx, gy]))
        # finish each walked stretch (between links): grazed corners, nudges off the walls
        pieces: list[np.ndarray] = []
        kinds: list[str] = []
        starts: list[int] = []
        cost = 0.0
        bounds = [0] + [i + 1 for i, _ in link_at] + [len(path)]
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            lattice = grazed_corners(np.ascontiguousarray(np.array(path[lo:hi]), dtype=np.float64), t["corner_mask"])
            lattice = inset_lattice_points(lattice, self.walkable, t["cliff_dirs"], 2 * CORNER_MARGIN,
                                           np.zeros(len(lattice), dtype=bool))
            if pieces:
                starts.append(sum(len(p) for p in pieces) - 1)
            pieces.append(lattice)
            cost += float(np.hypot(*np.diff(lattice, axis=0).T).sum()) * cs * float(self.area_cost[0])
        for _, li in link_at:
            kinds.append(self.links[li].kind)
            cost += self.links[li].cost
        lattice = np.concatenate(pieces)
        world = lattice * cs + np.array([ox, oy])
        world[0], world[-1] = s[:2], g[:2]
        out = np.c_[world, self._heights(world)]
        return out, cost, tuple(starts), polygons_along(lattice, self.poly_of_cell), tuple(kinds)

    def polygons_along(self, world: np.ndarray) -> np.ndarray:
        """Polygon ids under a world polyline ``(N, 2+)``, in order: a path's corridor."""
        cells = (world[:, :2] - np.array(self.origin)) / self.config.cell_size
        return polygons_along(np.ascontiguousarray(cells), self.poly_of_cell)

    def _reachable(self, p: int) -> np.ndarray:
        """Polygons reachable from polygon ``p`` (through portals and off-mesh links)."""
        if not self.links:
            if self._labels is None:
                from scipy.sparse import csr_matrix
                from scipy.sparse.csgraph import connected_components

                n = len(self.rects)
                graph = csr_matrix((np.ones(len(self._src)), (self._src, self._dst)), shape=(n, n))
                self._labels = connected_components(graph, directed=False)[1]
            labels = self._labels
            return labels == labels[p]
        seen = np.zeros(len(self.rects), dtype=bool)
        stack = [p]
        seen[p] = True
        link_adj = self._link_adjacency()
        while stack:
            u = stack.pop()
            for v in list(self._dst[self._start[u]:self._start[u + 1]]) + [w for w, _ in link_adj.get(u, [])]:
                if not seen[v]:
                    seen[v] = True
                    stack.append(int(v))
        return seen

    def _link_adjacency(self) -> dict[int, list]:
        adj: dict[int, list] = {}
        for i, L in enumerate(self.links):
            pa, pb = self.polygon_at(L.a), self.polygon_at(L.b)
            adj.setdefault(pa, []).append((pb, i))
            if L.bidirectional:
                adj.setdefault(pb, []).append((pa, -1 - i))
        return adj

    def _portal(self, e: int, travel: np.ndarray):
        """Left and right world points of portal edge ``e``, seen along ``travel``."""
        cs = self.config.cell_size
        ox, oy = self.origin
        x0, y0, x1, y1 = self._seg[e]
        a = np.array([ox + x0 * cs, oy + y0 * cs])
        b = np.array([ox + x1 * cs, oy + y1 * cs])
        d = b - a
        m = CORNER_MARGIN * cs / max(np.hypot(*d), 1e-12)
        a, b = a + d * m, b - d * m
        if travel[0] * (a[1] - b[1]) - travel[1] * (a[0] - b[0]) > 0:     # a is on the left
            return a, b
        return b, a

    def _candidate_points(self):
        """Every portal's candidate crossing points, flat (CSR by portal), for the crossing-point
        search (built on first use: only meshes with area costs need them)."""
        cached = getattr(self, "_cands", None)
        if cached is None:
            per = [self._candidates(e) for e in range(len(self._src))]
            counts = np.array([len(c) for c in per], dtype=np.int64)
            flat = np.concatenate(per) if per else np.zeros((0, 2))
            cached = self._cands = (np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
                                    np.ascontiguousarray(flat[:, 0]), np.ascontiguousarray(flat[:, 1]),
                                    np.repeat(np.arange(len(per), dtype=np.int64), counts))
        return cached

    def _candidates(self, e: int) -> np.ndarray:
        """Points a path may cross portal ``e`` at: both ends (inset off the corners: shortest
        paths bend only at corners, which are portal ends) and every 4 cells between them, so
        crossing a long portal is priced close to where a straight path would cross it."""
        cs = self.config.cell_size
        x0, y0, x1, y1 = self._seg[e]
        a = np.array([self.origin[0] + x0 * cs, self.origin[1] + y0 * cs])
        b = np.array([self.origin[0] + x1 * cs, self.origin[1] + y1 * cs])
        d = b - a
        length = max(np.hypot(*d), 1e-12)
        m = 2 * CORNER_MARGIN * cs / length
        inner = max(1, int(round(length / (4 * cs))))
        ts = np.concatenate([[m], np.arange(1, inner) / inner, [1 - m]]) if inner > 1 else np.array([m, 0.5, 1 - m])
        return a + d * ts[:, None]

    def _astar(self, ps: int, pg: int, s: np.ndarray, g: np.ndarray):
        """A* over portal crossing points and off-mesh links (polygons are convex: any two points
        of one see each other). Returns the route as ``[(polygon, via), ...]`` (via:
        ``("portal", e)`` or ``("link", i)`` — ``-1 - i`` for link i taken backwards; None for the
        start), or None when unreachable."""
        if ps == pg:
            return [(ps, None)]
        search, meta = self._candidate_search(ps, pg, s, g)
        _, chain = search.result()
        return self._route_of(chain, ps, meta)

    def _candidate_search(self, ps: int, pg: int, s: np.ndarray, g: np.ndarray) -> tuple[CandidateSearch, tuple]:
        """The crossing-point search from ``s`` in ``ps`` to ``g`` in ``pg`` (not run yet), and
        what ``_route_of`` needs to read its answer."""
        cand_start, cand_x, cand_y, cand_edge = self._candidate_points()
        directed = [(i, L.a, L.b) for i, L in enumerate(self.links)]
        directed += [(-1 - i, L.b, L.a) for i, L in enumerate(self.links) if L.bidirectional]
        ids = np.array([d[0] for d in directed], dtype=np.int64)
        a = np.array([d[1][:2] for d in directed], dtype=np.float64).reshape(-1, 2)
        b = np.array([d[2][:2] for d in directed], dtype=np.float64).reshape(-1, 2)
        cost = np.array([self.links[i if i >= 0 else -1 - i].cost for i in ids], dtype=np.float64)
        poly_a = np.array([self.polygon_at(p) for p in a], dtype=np.int64)
        poly_b = np.array([self.polygon_at(p) for p in b], dtype=np.int64)
        search = CandidateSearch(self._start, self._dst, cand_start, cand_x, cand_y, cand_edge, self.area_cost,
                                 ps, pg, float(s[0]), float(s[1]), float(g[0]), float(g[1]),
                                 poly_a, np.ascontiguousarray(a[:, 0]), np.ascontiguousarray(a[:, 1]), poly_b,
                                 np.ascontiguousarray(b[:, 0]), np.ascontiguousarray(b[:, 1]), cost)
        return search, (len(cand_x), cand_edge, poly_b, ids)

    def _route_of(self, chain: np.ndarray, ps: int, meta):
        """The route ``[(polygon, via), ...]`` of a crossing-point search's chain (None if empty)."""
        if len(chain) == 0:
            return None
        n, cand_edge, poly_b, ids = meta
        route: list[tuple[int, tuple[str, int] | None]] = [(ps, None)]
        for c in chain:
            if c < n:
                e = int(cand_edge[c])
                route.append((int(self._dst[e]), ("portal", e)))
            else:
                route.append((int(poly_b[c - n]), ("link", int(ids[c - n]))))
        return route

    def _points(self, route, s: np.ndarray, g: np.ndarray):
        """Funnel each stretch of the route between links; returns (points, cost, link idx, polys)."""
        cs = self.config.cell_size
        pts = [np.asarray(s[:2], dtype=np.float64)]
        link_at = []
        kinds = []
        cost = 0.0
        cur = np.asarray(s[:2], dtype=np.float64)
        lefts, rights = [], []
        polys = [route[0][0]]
        for k in range(1, len(route)):
            v, via = route[k]
            polys.append(v)
            u = route[k - 1][0]
            if via[0] == "portal":
                e = via[1]
                x0, y0, x1, y1 = self._seg[e]
                cu = np.array([self.origin[0] + (self.rects[u][0] + self.rects[u][2]) * 0.5 * cs,
                               self.origin[1] + (self.rects[u][1] + self.rects[u][3]) * 0.5 * cs])
                mid = np.array([self.origin[0] + (x0 + x1) * 0.5 * cs, self.origin[1] + (y0 + y1) * 0.5 * cs])
                left_end, right_end = self._portal(e, mid - cu)
                lefts.append(left_end)
                rights.append(right_end)
            else:
                li = via[1]
                L = self.links[li if li >= 0 else -1 - li]
                a, b = (L.a, L.b) if li >= 0 else (L.b, L.a)
                stretch = self._pull(cur, np.array(a[:2]), lefts, rights)
                pts.extend(stretch[1:])
                link_at.append(len(pts) - 1)
                kinds.append(L.kind)
                pts.append(np.array(b[:2]))
                cost += L.cost
                cur = np.array(b[:2])
                lefts, rights = [], []
        stretch = self._pull(cur, np.asarray(g[:2], dtype=np.float64), lefts, rights)
        pts.extend(stretch[1:])
        p2 = self._inset_corners(np.array(pts), keep={0, len(pts) - 1, *link_at, *[i + 1 for i in link_at]})
        seg_cost = 0.0
        for i in range(len(p2) - 1):
            if i in link_at:
                continue
            mid = (p2[i] + p2[i + 1]) / 2
            poly = self.polygon_at(mid)
            seg_cost += math.dist(p2[i], p2[i + 1]) * (self.area_cost[poly] if poly >= 0 else 1.0)
        out = np.c_[p2, [self.height_at(p) if self.polygon_at(p) >= 0 else 0.0 for p in p2]]
        return out, float(seg_cost + cost), tuple(link_at), np.array(polys, dtype=np.int64), tuple(kinds)

    def _inset_corners(self, pts: np.ndarray, keep: set) -> np.ndarray:
        """Nudge path points that sit on grid vertices off their walls (see
        ``inset_lattice_points``); indices in ``keep`` stay put."""
        cs = self.config.cell_size
        lattice = (pts[:, :2] - np.array(self.origin)) / cs
        mask = np.zeros(len(pts), dtype=bool)
        mask[list(keep)] = True
        moved = inset_lattice_points(np.ascontiguousarray(lattice), self.walkable, self._query_tables()["cliff_dirs"],
                                     2 * CORNER_MARGIN, mask)
        out = pts.copy()
        out[:, :2] = moved * cs + np.array(self.origin)
        return out

    def _heights(self, world: np.ndarray) -> np.ndarray:
        """Mesh height under each xy point (0 off the mesh)."""
        cs = self.config.cell_size
        c = np.floor((world[:, :2] - np.array(self.origin)) / cs).astype(np.int64)
        h, w = self.height.shape
        inside = (c[:, 0] >= 0) & (c[:, 0] < w) & (c[:, 1] >= 0) & (c[:, 1] < h)
        out = np.zeros(len(world))
        cx, cy = c[inside, 0], c[inside, 1]
        out[inside] = np.where(self.walkable[cy, cx], self.height[cy, cx], 0.0)
        return out

    @staticmethod
    def _pull(a: np.ndarray, b: np.ndarray, lefts, rights) -> np.ndarray:
        if not lefts:
            return np.array([a, b])
        return string_pull(a, b, np.array(lefts), np.array(rights))


class MeshQuery:
    """One navmesh query answered in slices (see ``NavMesh.start_query``). Queries in plain
    sight, on uniform-cost meshes (the exact search: milliseconds) and within one polygon are
    answered by the first ``step``; an area-cost search expands ``budget`` crossing points per
    ``step``. ``expanded`` counts them."""

    def __init__(self, mesh: NavMesh, start: Sequence[float] | np.ndarray, goal: Sequence[float] | np.ndarray) -> None:
        self.mesh = mesh
        self.goal = goal
        self._s = np.array(finite_point(start, "start"), dtype=np.float64)
        self._g = np.array(finite_point(goal, "goal"), dtype=np.float64)
        self._result: MeshPath | None = None
        self._search: CandidateSearch | None = None
        self.expanded = 0

    @property
    def done(self) -> bool:
        """True when ``result()`` is final."""
        return self._result is not None

    def step(self, budget: int) -> bool:
        """Advance by up to ``budget`` expansions; True when done."""
        if self._result is not None:
            return True
        mesh = self.mesh
        if self._search is None:
            direct = mesh._in_plain_sight(self._s, self._g)
            if direct is not None:
                mesh.query_counts["direct"] += 1
                self._result = direct
                return True
            mesh.query_counts["searched"] += 1
            self._ps, self._s, self._pg, self._g, failure = mesh._snap(self._s, self._g)
            if failure is not None:
                self._result = failure
                return True
            if mesh._exact_applies() or self._ps == self._pg:
                self._finish(mesh._route(self._ps, self._pg, self._s, self._g))
                return True
            self._search, self._meta = mesh._candidate_search(self._ps, self._pg, self._s, self._g)
        search = self._search
        before = search.expanded
        done = search.step(budget)
        self.expanded += search.expanded - before
        if done:
            _, chain = search.result()
            route = mesh._route_of(chain, self._ps, self._meta)
            self._finish(None if route is None else mesh._points(route, self._s, self._g))
        return self._result is not None

    def _finish(self, found) -> None:
        if found is None:                                       # unreachable: go as close as possible
            self._result = self.mesh._partial(self._ps, self._s, self._g, self.goal)
        else:
            pts, cost, links, polys, kinds = found
            self._result = MeshPath(PathStatus.FOUND, cost, pts, polys, links, kinds)

    def result(self) -> MeshPath:
        """The answer (``step`` until True first)."""
        if self._result is None:
            raise NavError("the navmesh query is still running: step() it until it returns True")
        return self._result
