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

import dataclasses
import math
from collections.abc import Sequence

import numpy as np

from rtsnav import checks

from ..bake_cache import (
    check_indices,
    check_offsets,
    check_values,
    grid_digest,
    load_or_bake,
    read_baked,
    require,
    write_baked,
)
from ..errors import NavError
from ..grid import Grid, require_grid
from ..result import PathStatus
from .area_cost import AreaCostRoute
from .build import connect_regions, erode, grow_regions, rasterize_triangles, validate_triangles, walkable_surface
from .exact import ExactRoute
from .landmarks import bake_landmarks
from .layered import LayeredNavMesh
from .mesh_bounds import MeshGoalBounds
from .mesh_types import CORNER_MARGIN, MeshPath, NavMeshConfig, OffMeshLink, QueryPlan, QueryTables
from .query import MeshQuery
from .surface import MeshSurface
from .trace import polygons_along, straight_in_sight
from .triangulate import triangulate_walkable
from .visibility import (
    build_visibility_graph,
)

__all__ = ["NavMesh", "NavMeshConfig", "MeshPath", "OffMeshLink", "MeshQuery"]



#: Cells a triangle bake rasterises at most (16384²: about 2 GB of working arrays).
MAX_RASTER_CELLS = 16384 * 16384


#: Cells an automatically chosen cell size allows at most (a 2048² raster).
AUTO_MAX_CELLS = 2048 * 2048


def auto_cell_size(vertices: np.ndarray, config: NavMeshConfig) -> float:
    """The cell size a triangle bake of checked ``vertices (V, 3)`` uses when none is given:
    ``agent_radius / 3`` (Recast advises a half to a third: the erosion and the paths then err by
    a fraction of the radius), or ``agent_height / 8`` at radius 0, coarsened until the model's
    footprint fits ``AUTO_MAX_CELLS`` cells."""
    cs = config.agent_radius / 3 if config.agent_radius > 0 else config.agent_height / 8
    v = np.asarray(vertices, dtype=np.float64)
    if len(v):
        span = v[:, :2].max(axis=0) - v[:, :2].min(axis=0)
        cs = max(cs, math.sqrt(float(span[0]) * float(span[1]) / AUTO_MAX_CELLS), float(span.max()) / 16384)
    return float(min(max(cs, 1e-6), 1e6))


class NavMesh(MeshSurface):
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

    _labels: np.ndarray | None              # polygon components (without links), made on first use
    _plain_sight: bool | None               # whether the plain-sight exit applies (None: not known yet)
    _goal_bounds: MeshGoalBounds | None

    def __init__(self, walkable: np.ndarray, cost: np.ndarray, height: np.ndarray, config: NavMeshConfig,
                 origin: tuple[float, float] = (0.0, 0.0), progress=None) -> None:
        checks.callback(progress, "progress", error=NavError)
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
        self._forget_tables()
        # the query graph: taut segments between mutually visible corners, and landmarks
        tables = self.query_tables()
        if triangulation:
            triangulation(1, 1)
        bends, ends = build_visibility_graph(tables, tables.scratch, tables.wedge, step("visibility graph"))
        self.vis_start, self.vis_dst = bends
        self.landmarks = bake_landmarks(tables, bends, ends, config.landmarks, step("landmarks"))

    # ------------------------------------------------------------------- bakes
    @classmethod
    def from_grid(cls, grid: Grid, agent_radius: float = 0.5, *, max_climb: float = 0.9,
                  max_side: int = 16, landmarks: int = 8, progress=None, subdivide: int = 1) -> "NavMesh":
        """Bake from a grid level: walkable cells + heights are already a heightfield (stage 2);
        then erode by ``agent_radius`` (world units), grow regions, connect them.

        Erosion is conservative: a cell stays only if every point of it clears the walls by the
        radius, so with whole cells any corridor two cells wide or less closes for a radius > 0.
        ``subdivide = k`` rasterises each cell as k×k sub-cells first (Recast's finer voxels): a
        2-cell bridge stays open to agents of radius ≤ 0.5 cell with k = 2. The bake costs about
        k² more; ``max_side`` stays in grid cells."""
        if isinstance(subdivide, bool) or not isinstance(subdivide, (int, float, np.integer, np.floating)) \
                or not math.isfinite(subdivide) or int(subdivide) != subdivide or not 1 <= subdivide <= 8:
            raise NavError(f"subdivide must be a whole number 1..8, got {subdivide!r}")
        k = int(subdivide)
        grid = require_grid(grid, "NavMesh.from_grid")
        max_side = checks.whole_number(max_side, "max_side", low=1, high=1 << 16, error=NavError)
        cfg = NavMeshConfig(cell_size=grid.cell_size / k, agent_radius=agent_radius, max_climb=max_climb,
                            max_side=max_side * k, landmarks=landmarks)
        heights = grid.heights if grid.heights is not None else np.zeros(grid.shape)
        up = (lambda a: np.repeat(np.repeat(a, k, axis=0), k, axis=1)) if k > 1 else (lambda a: a)  # noqa: E731
        walk = erode(up(grid.passable), agent_radius / cfg.cell_size)
        return cls(walk, up(grid.cost), up(heights.astype(np.float64)), cfg, grid.origin, progress)

    @classmethod
    def from_triangles(cls, vertices: np.ndarray, triangles: np.ndarray, config: NavMeshConfig | None = None,
                       progress=None, layers: str = "auto", walkable: np.ndarray | None = None,
                       **overrides) -> "NavMesh | LayeredNavMesh":
        """Bake from triangle soup (``vertices (V, 3)`` world, ``triangles (T, 3)`` indices).

        ``layers``: ``"auto"`` (default) keeps every walkable surface — when some column holds
        more than one (a road under a bridge, floors of a building) the answer is a
        ``LayeredNavMesh`` (any-angle paths over and under); else this single-surface mesh with
        exact queries. ``"top"``: the single-surface mesh of the highest surface per cell;
        ``"all"``: always the ``LayeredNavMesh``. ``agent_climb`` is accepted for ``max_climb``.
        Without ``config`` or ``cell_size`` the cell size is chosen as Recast advises
        (``auto_cell_size``: a third of the agent radius). ``walkable``: ``(T,)`` bools, the
        triangles that may be stood on (a model's tagged ground; the rest block): always baked
        layered.

        Raises:
            NavError: NaN vertices, indices out of range, degenerate triangles, bad config.
        """
        checks.choice(layers, "layers", ("auto", "top", "all"), error=NavError)
        checks.known_keys(overrides, [f.name for f in dataclasses.fields(NavMeshConfig)] + ["agent_climb"],
                          "NavMesh.from_triangles", error=NavError)
        if "agent_climb" in overrides:
            if "max_climb" in overrides:
                raise NavError("give agent_climb or max_climb (the same setting), not both: got "
                               f"agent_climb={overrides['agent_climb']!r}, max_climb={overrides['max_climb']!r}")
            overrides["max_climb"] = overrides.pop("agent_climb")
        v, t = validate_triangles(vertices, triangles)
        if config is None and "cell_size" not in overrides:
            overrides["cell_size"] = auto_cell_size(v, NavMeshConfig(**overrides))
        cfg = config or NavMeshConfig(**overrides)
        if layers == "all" or walkable is not None:
            return LayeredNavMesh.from_triangles(v, t, cfg, walkable)
        if layers == "auto":
            layered = LayeredNavMesh.if_stacked(v, t, cfg)
            if layered is not None:
                return layered
        lo = v[:, :2].min(axis=0)
        hi = v[:, :2].max(axis=0)
        w = int(math.ceil((hi[0] - lo[0]) / cfg.cell_size)) + 1
        h = int(math.ceil((hi[1] - lo[1]) / cfg.cell_size)) + 1
        if w * h > MAX_RASTER_CELLS:
            raise NavError(f"the triangles span {hi[0] - lo[0]:g} x {hi[1] - lo[1]:g} world units: {w} x {h} cells of "
                           f"cell_size {cfg.cell_size:g}, more than the {MAX_RASTER_CELLS:,} a bake rasterises "
                           "(scale the model or choose a larger cell_size)")
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
        _check_mesh_arrays(path, arrays)
        mesh = cls.__new__(cls)
        mesh.config = NavMeshConfig(float(meta[0]), float(meta[1]), float(meta[2]), float(meta[3]),
                                    float(meta[4]), int(meta[5]), int(meta[8]))
        mesh.origin = (float(meta[6]), float(meta[7]))
        for name in cls._ARRAYS:
            setattr(mesh, name, arrays[name.strip("_")])
        mesh.links = []
        cls._forget_tables(mesh)
        mesh.source_digest = ""
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
    def convex_corners(self) -> np.ndarray:
        """Indices into ``tri_points`` of the walkable area's convex corners: the vertices the
        exact any-angle queries bend around."""
        return np.asarray(self.query_tables().corner_ids)

    # ------------------------------------------------------------------ links
    def add_link(self, a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, cost: float | None = None,
                 kind: str = "jump", bidirectional: bool = True) -> OffMeshLink:
        """An off-mesh connection (jump, ladder, teleport) from ``a`` to ``b``; ``cost`` defaults
        to the straight distance. Both ends must be on the mesh."""
        ends = []
        for name, given in (("a", a), ("b", b)):
            p = checks.point(given, name, error=NavError)
            if self.polygon_at(p) < 0:
                raise NavError(f"link end {name} {p} is not on the navmesh")
            ends.append((*p[:2], p[2] if len(p) == 3 else self.height_at(p)))   # 2D: on the surface
        a, b = ends
        if cost is not None:
            checks.number(cost, "link cost (None: the straight distance)", low=0.0, error=NavError)
        if not isinstance(kind, str) or not kind:
            raise NavError(f"link kind must be a non-empty string such as 'jump', got {kind!r}")
        bidirectional = checks.flag(bidirectional, "bidirectional", error=NavError)
        c = float(cost) if cost is not None else math.dist(a[:2], b[:2])
        link = OffMeshLink((float(a[0]), float(a[1]), float(a[2])), (float(b[0]), float(b[1]), float(b[2])), c, kind,
                            bidirectional)
        self.links.append(link)
        self._plain_sight = None                       # links may beat a straight walk
        self._labels = None
        self.exact.links_changed()
        self.goal_tables = None
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

    def _forget_tables(self) -> None:
        """The route parts, and the lazily made query tables not made yet."""
        self._labels = None
        self._plain_sight = None
        self._goal_bounds = None
        #: the exact any-angle route (uniform costs) and the area-cost route: parts of the mesh
        self.exact = ExactRoute(self)
        self.area = AreaCostRoute(self, self.exact)

    @property
    def goal_bounds(self) -> MeshGoalBounds | None:
        """``MeshGoalBounds`` of this mesh: the exact query prunes with them when set (not once
        the mesh has off-mesh links)."""
        return self._goal_bounds

    @goal_bounds.setter
    def goal_bounds(self, bounds: MeshGoalBounds | None) -> None:
        if bounds is not None and bounds.graph is not self:
            raise NavError("goal_bounds must be MeshGoalBounds built for this mesh (MeshGoalBounds.build(mesh))")
        self._goal_bounds = bounds

    def query_tables(self) -> QueryTables:
        """The triangulation as flat arrays for the query kernels (``ExactRoute.tables``)."""
        return self.exact.tables()

    def exact_applies(self) -> bool:
        """The exact visibility-graph query answers this mesh (uniform costs, with or without links)."""
        return self.exact.applies()

    @property
    def needs_crossing_search(self) -> bool:
        """True when queries run the crossing-point search (polygons of different costs): then
        many units sent to one goal should share a ``GoalTree``."""
        return not self.exact.applies()

    def use_plain_sight(self, allowed: bool | None) -> None:
        """``False``: every query searches (for comparisons); ``None``: the plain-sight exit is
        used where it applies (the default)."""
        self._plain_sight = None if allowed is None else checks.flag(allowed, "allowed", error=NavError)

    # --------------------------------------------- the sliced query's contract (``MeshQuery``)
    def begin_query(self, s: np.ndarray, g: np.ndarray, goal) -> MeshPath | QueryPlan:
        """The first slice of a query from ``s`` to ``g`` (``goal``: as the caller gave it):
        the final answer when no search is needed (plain sight, the exact search, one polygon,
        a point off the mesh), else the ``QueryPlan`` of its area-cost search, to be stepped and
        answered by ``end_query``."""
        if self.polygon_count == 0:                    # eroded away (a corridor narrower than the agent)
            return MeshPath(PathStatus.UNREACHABLE, reason="the navmesh is empty: no walkable area is left after "
                            f"eroding by the agent radius {self.config.agent_radius:g}")
        direct = self._in_plain_sight(s, g)
        if direct is not None:
            self.query_counts["direct"] += 1
            return direct
        self.query_counts["searched"] += 1
        ps, s, pg, g, failure = self.snap(s, g)
        if failure is not None:
            return failure
        if self.exact.applies() or ps == pg:
            return self._answer(self.route_between(ps, pg, s, g), ps, s, g, goal)
        search, meta = self.area.search(ps, pg, s, g)
        return QueryPlan(ps, s, pg, g, goal, search, meta)

    def end_query(self, plan: QueryPlan) -> MeshPath:
        """The answer of a ``QueryPlan`` whose search has finished."""
        _, chain = plan.search.result()
        route = self.area.route_of(chain, plan.ps, plan.meta)
        found = None if route is None else self.area.points(route, plan.s, plan.g)
        return self._answer(found, plan.ps, plan.s, plan.g, plan.goal)

    def _answer(self, found, ps: int, s: np.ndarray, g: np.ndarray, goal) -> MeshPath:
        if found is None:                                       # unreachable: go as close as possible
            return self.partial(ps, s, g, goal)
        pts, cost, links, polys, kinds = found
        return MeshPath(PathStatus.FOUND, cost, pts, polys, links, kinds)

    def snap(self, s: np.ndarray, g: np.ndarray):
        """``(ps, s, pg, g, None)`` with points off the mesh moved onto it, or ``(..., failure)``."""
        ps = self._polygon_under(s)
        if ps < 0:
            near = self.nearest_point(s)
            if near is None:
                return -1, s, -1, g, MeshPath(PathStatus.UNREACHABLE, reason=f"start {tuple(s)} is not near the navmesh")
            ps, s = near[0], near[1]
        pg = self._polygon_under(g)
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
        pts, polys = straight_in_sight(self.walkable, self.height, self.poly_of_cell, self.rects, self.config.cell_size,
                                       self.origin[0], self.origin[1], s[0], s[1], g[0], g[1],
                                       2 * CORNER_MARGIN * self.config.cell_size)
        if len(pts) == 0:
            return None
        return MeshPath(PathStatus.FOUND, math.hypot(g[0] - s[0], g[1] - s[1]) * self._uniform_cost, pts, polys)

    def _plain_sight_applies(self) -> bool:
        flag = self._plain_sight
        if flag is None:
            heights = self.height[self.walkable]
            flag = bool(not self.links and self.exact.applies()
                        and (heights.size == 0 or float(heights.max() - heights.min()) <= self.config.max_climb))
            self._plain_sight = flag
            self._uniform_cost = float(self.area_cost[0])
        return flag

    #: Reachable polygons tried, nearest first, for the closest point of a partial path.
    PARTIAL_TRIES = 32

    def partial(self, ps: int, s: np.ndarray, g: np.ndarray, goal) -> MeshPath:
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
            found = self.route_between(ps, int(cand[i]), s, target)
            if found is not None:
                pts, cost, links, polys, kinds = found
                return MeshPath(PathStatus.PARTIAL, cost, pts, polys, links, kinds,
                                reason=f"goal {tuple(map(float, goal))} is not reachable; path to the closest point",
                                closest=tuple(map(float, target)))
        return MeshPath(PathStatus.UNREACHABLE,
                        reason=f"goal {tuple(map(float, goal))} is not reachable and no nearby point is")

    def route_between(self, ps: int, pg: int, s: np.ndarray, g: np.ndarray):
        """``(points, cost, links, polygons, link kinds)`` from ``s`` in ``ps`` to ``g`` in ``pg``,
        or None when unreachable. Uniform-cost meshes get the exact visibility-graph search;
        otherwise A* over crossing points, funnel-pulled."""
        if self.exact.applies():
            found = self.exact.route(s, g, self.goal_bounds)
            if found is not None or not self._reachable(ps)[pg]:
                return found
            # the polygons connect, yet the exact search saw no way: a start a hair inside a
            # polygon's corner by a wall (den520d after a building went up: the start snapped to
            # 1e-3 from the corner) saw nothing from some parts of it. The crossing-point search
            # answers instead (within a few per cent of the exact length) rather than "unreachable".
        route = self.area.astar(ps, pg, s[:2], g[:2])
        return None if route is None else self.area.points(route, s, g)

    def polygons_along(self, world: np.ndarray) -> np.ndarray:
        """Polygon ids under a world polyline ``(N, 2+)``, in order: a path's corridor."""
        cells = (checks.points(world, "world", error=NavError)[:, :2] - np.array(self.origin)) / self.config.cell_size
        return polygons_along(np.ascontiguousarray(cells), self.poly_of_cell, self.rects)

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
        link_adj = self.area.link_adjacency()
        while stack:
            u = stack.pop()
            for v in list(self._dst[self._start[u]:self._start[u + 1]]) + [w for w, _ in link_adj.get(u, [])]:
                if not seen[v]:
                    seen[v] = True
                    stack.append(int(v))
        return seen


def _check_mesh_arrays(path, a: dict[str, np.ndarray]) -> None:
    """Shapes and index ranges of a loaded navmesh's arrays (``bake_cache.check_indices``)."""
    shape = a["walkable"].shape
    if a["height"].shape != shape or a["poly_of_cell"].shape != shape or a["rects"].ndim != 2:
        raise NavError(f"{path}: navmesh cache's cell arrays disagree in shape")
    rects, points, triangles = len(a["rects"]), len(a["tri_points"]), len(a["tri_triangles"])
    for name, values, upper, lowest in (("poly_of_cell", a["poly_of_cell"], rects, -1), ("src", a["src"], rects, 0),
                                        ("dst", a["dst"], rects, 0), ("tri_triangles", a["tri_triangles"], points, 0),
                                        ("tri_neighbours", a["tri_neighbours"], triangles, -1),
                                        ("tri_touching", a["tri_touching"], triangles, -1),
                                        ("cell_triangle", a["cell_triangle"], triangles, -1),
                                        ("vis_dst", a["vis_dst"], points, 0)):
        check_indices(path, "navmesh", name, values, upper, lowest)
    if len(a["dst"]) != len(a["src"]) or len(a["seg"]) != len(a["src"]) or len(a["area_cost"]) != rects:
        raise NavError(f"{path}: navmesh cache's edge arrays disagree in length")
    check_offsets(path, "navmesh", "start", a["start"], rects, len(a["src"]))
    check_offsets(path, "navmesh", "vis_start", a["vis_start"], points, len(a["vis_dst"]))
    h, w = shape
    for name, want, low, high, inf in (("rects", (rects, 4), 0, max(h, w), False), ("height", shape, -1e30, 1e30, False),
                                       ("area_cost", (rects,), 0, 1e30, False), ("seg", (-1, 4), -1, max(h, w) + 1, False),
                                       ("tri_points", (points, 2), 0, max(h, w), False),
                                       # (index ranges checked above: only their shapes here)
                                       ("tri_triangles", (triangles, 3), -np.inf, np.inf, False),
                                       ("tri_neighbours", (triangles, 3), -np.inf, np.inf, False),
                                       ("tri_touching", (triangles, 3), -np.inf, np.inf, False),
                                       ("cell_triangle", shape, -np.inf, np.inf, False),
                                       ("landmarks", (points, -1), 0, np.inf, True)):
        check_values(path, "navmesh", name, a[name], want, low, high, allow_inf=inf)
    if len(a["tri_points"]) and ((a["tri_points"][:, 0] > w).any() or (a["tri_points"][:, 1] > h).any()):
        raise NavError(f"{path}: navmesh cache's tri_points lie outside its {w}x{h} cells")
