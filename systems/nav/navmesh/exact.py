"""The navmesh's exact any-angle route on uniform-cost meshes: the query tables (the walkable
area's triangulation, corners, portals), the off-mesh link tables, and the visibility-graph A*
with landmark bounds. A part of ``NavMesh``, reading its baked arrays."""

from __future__ import annotations

import math

import numpy as np

from .exact_kernel import NO_PATH, ExactScratch, exact_query, segment_table
from .landmarks import Scratch, triangle_components
from .mesh_bounds import NO_MESH_BOUNDS, MeshGoalBounds
from .mesh_types import CORNER_MARGIN, LinkTables, QueryTables
from .surface import MeshSurface
from .trace import inset_lattice_points, lattice_to_world, polygons_along
from .triangulate import boundary_corners, portal_tables, triangles_around
from .visibility import (
    LinkEnds,
    VisibilityGraph,
    VisibilityQuery,
    corner_wedges,
    goal_distances,
    grazed_corners,
    link_bounds,
    sweep,
    vertex_fans,
    visibility_astar,
)

__all__ = ["ExactRoute"]


#: The goal box of a query without goal bounds (not read; the one-call query makes its own).
NO_GOAL_BOX = np.array((np.inf, np.inf, -np.inf, -np.inf))


class ExactRoute:
    """Exact routes on a uniform-cost mesh (see the module docs): a part of ``NavMesh`` that
    owns the query and link tables it makes from the mesh's baked arrays."""

    def __init__(self, mesh: MeshSurface) -> None:
        self._mesh = mesh
        self._itables: QueryTables | None = None
        self._ltables: LinkTables | None = None
        self._kernel_args: tuple | None = None        # exact_query's tables (``_static_kernel_args``) …
        self._kernel_boxes: np.ndarray | None = None  # … gathered with these goal bounds
        self._cost_per_cell = 1.0
        self._segments: np.ndarray | None = None

    def links_changed(self) -> None:
        """An off-mesh link was added: the link tables are made again when next needed."""
        self._ltables = None

    def applies(self) -> bool:
        """The visibility-graph query answers uniform-cost meshes (with or without links)."""
        return self.tables().uniform

    def tables(self) -> QueryTables:
        """The triangulation as flat arrays for the query kernels, plus scratch (built lazily)."""
        if self._itables is None:
            corner, cliff_dirs = boundary_corners(self._mesh.poly_of_cell >= 0, self._mesh.height, self._mesh.config.max_climb)
            portals = portal_tables(self._mesh.tri_points, self._mesh.tri_triangles, self._mesh.tri_neighbours, corner)
            wedge = corner_wedges(self._mesh.tri_points, portals["is_corner"], self._mesh.poly_of_cell >= 0, cliff_dirs)
            tables = QueryTables(
                **portals, scratch=Scratch(len(self._mesh.tri_points)), corner_mask=corner, cliff_dirs=cliff_dirs,
                wedge=wedge, fans=vertex_fans(self._mesh.tri_triangles, len(self._mesh.tri_points)),
                vinfo=np.ascontiguousarray(np.c_[self._mesh.tri_points, wedge], dtype=np.float64),
                corner_ids=np.flatnonzero(portals["is_corner"]),
                uniform=bool(len(self._mesh.area_cost)) and bool(np.all(self._mesh.area_cost == self._mesh.area_cost[0])),
                component=np.zeros(0, dtype=np.int64))
            self._itables = tables._replace(component=triangle_components(tables))
        return self._itables

    def triangles_holding(self, lx: float, ly: float) -> np.ndarray:
        """Triangles holding lattice point (lx, ly) — all of them when it is a mesh vertex, so a
        sweep from there looks every way."""
        m = self._mesh
        fan_start, fan = self.tables().fans
        return triangles_around(m.tri_points, m.tri_triangles, m.tri_touching, m.tri_neighbours, m.cell_triangle,
                                fan_start, fan, float(lx), float(ly))

    def segments(self) -> np.ndarray:
        """The visibility graph's ``segment_table`` (made on first need)."""
        if self._segments is None:
            self._segments = segment_table(self._mesh.vis_start, self._mesh.vis_dst, self.tables().points)
        return self._segments

    def _route_without_links(self, t: QueryTables, sx: float, sy: float, gx: float, gy: float, s: np.ndarray,
                             g: np.ndarray, goal_bounds: MeshGoalBounds | None):
        """``route`` on a mesh without off-mesh links: the whole query in one kernel call."""
        boxes = NO_MESH_BOUNDS if goal_bounds is None else goal_bounds.boxes
        if self._kernel_args is None or self._kernel_boxes is not boxes:
            self._kernel_args, self._kernel_boxes = self._static_kernel_args(t, boxes), boxes
        mesh, portals, graph, grid, node, heap, stats, sight, no_links = self._kernel_args
        found, out, length, lattice = exact_query(mesh, portals, graph, grid, node, heap, t.scratch.next_stamp(),
                                                  stats, sight, no_links, sx, sy, gx, gy,
                                                  (float(s[0]), float(s[1]), float(g[0]), float(g[1])))
        if found == NO_PATH:
            return None
        return out, length * grid[6] * self._cost_per_cell, (), self._corridor(lattice), ()

    def _corridor(self, lattice: np.ndarray):
        """The polygons a path of lattice points crosses, found when first asked for."""
        poly_of_cell, rects = self._mesh.poly_of_cell, self._mesh.rects
        return lambda: polygons_along(lattice, poly_of_cell, rects)

    def _static_kernel_args(self, t: QueryTables, boxes: np.ndarray) -> tuple:
        """What ``exact_query`` reads besides the query's ends, gathered once (as Python
        attribute reads and tuples each query, this was ~40 µs of a long query's ~450)."""
        m = self._mesh
        sight = ExactScratch(len(t.points))
        fan_start, fan = t.fans
        self._cost_per_cell = float(m.area_cost[0])
        return ((t.points, m.tri_triangles, m.tri_touching, m.tri_neighbours, m.cell_triangle, fan_start, fan,
                 t.component),
                (t.start, t.dst, t.va, t.vb, t.rev, t.vstart, t.verts, t.is_corner),
                (m.vis_start, m.vis_dst, t.vinfo, m.landmarks, t.corner_ids, boxes, self.segments()),
                (t.corner_mask, m.walkable, t.cliff_dirs, m.height, m.poly_of_cell, m.rects,
                 float(m.config.cell_size), float(m.origin[0]), float(m.origin[1])),
                t.scratch.node, t.scratch.heap(len(t.points) + 1), t.scratch.stats,
                (sight.to_goal, sight.from_start, sight.touched_goal, sight.touched_start), sight.no_links)

    def _link_tables(self) -> LinkTables:
        """Off-mesh link ends as extra nodes of the visibility-graph query (built lazily, dropped
        when a link is added; empty arrays without links): what each end sees, its landmark
        distances, where each link goes."""
        if self._ltables is not None:
            return self._ltables
        t = self.tables()
        cs = self._mesh.config.cell_size
        ox, oy = self._mesh.origin
        ends, link_to, link_cost = [], [], []
        for i, link in enumerate(self._mesh.links):
            for k, (p, _other) in enumerate(((link.a, link.b), (link.b, link.a))):
                x, y = (p[0] - ox) / cs, (p[1] - oy) / cs
                ends.append((x, y, self.triangles_holding(x, y)))
                one_way_back = k == 1 and not link.bidirectional
                link_to.append(-1 if one_way_back else 2 * i + 1 - k)
                link_cost.append(math.inf if one_way_back else link.cost)
        n = len(ends)
        ids = t.corner_ids
        cstart, cids, cdist = [0], [], []
        end_end = np.full((n, n), np.inf)
        end_land = np.zeros((n, self._mesh.landmarks.shape[1]))
        for e, (x, y, tris) in enumerate(ends):
            seen, others = sweep(t, t.scratch, tris, x, y, ends)
            vis = ids[np.isfinite(seen[ids])]
            cids.append(vis)
            cdist.append(seen[vis])
            cstart.append(cstart[-1] + len(vis))
            end_end[e] = others
            end_end[e, e] = np.inf
            end_land[e] = goal_distances(self._mesh.landmarks, seen, ids)
        cids_flat = np.concatenate(cids).astype(np.int64) if cids else np.zeros(0, np.int64)
        cdist_flat = np.concatenate(cdist) if cdist else np.zeros(0)
        owner = np.repeat(np.arange(n), np.diff(cstart))
        by_corner = np.argsort(cids_flat, kind="stable")         # the same pairs, grouped by corner
        v_count = len(t.points)
        self._ltables = LinkTables(
            seen_by_start=np.searchsorted(cids_flat[by_corner], np.arange(v_count + 1)).astype(np.int64),
            seen_by_end=owner[by_corner].astype(np.int64), seen_by_dist=cdist_flat[by_corner],
            node=t.scratch.node if n == 0 else np.zeros((v_count + n, 4)),
            ends=ends, xy=np.array([(x, y) for x, y, _ in ends], dtype=np.float64).reshape(-1, 2),
            land=end_land, cstart=np.array(cstart, dtype=np.int64), cids=cids_flat, cdist=cdist_flat,
            end_end=end_end, link_to=np.array(link_to, dtype=np.int64),
            link_cost=np.array(link_cost, dtype=np.float64))
        return self._ltables

    def route(self, s: np.ndarray, g: np.ndarray, goal_bounds: MeshGoalBounds | None = None):
        """``(points, cost, link starts, polygons, link kinds)`` from ``s`` to ``g``, or None;
        ``goal_bounds``: to prune with (not used once the mesh has off-mesh links)."""
        t = self.tables()
        sc = t.scratch
        cs = self._mesh.config.cell_size
        ox, oy = self._mesh.origin
        sx, sy = (s[0] - ox) / cs, (s[1] - oy) / cs
        gx, gy = (g[0] - ox) / cs, (g[1] - oy) / cs
        if not self._mesh.links:
            return self._route_without_links(t, float(sx), float(sy), float(gx), float(gy), s, g, goal_bounds)
        # a mesh with off-mesh links: the link ends join the search as nodes
        start_tris, goal_tris = self.triangles_holding(sx, sy), self.triangles_holding(gx, gy)
        if len(start_tris) == 0 or len(goal_tris) == 0:
            return None
        e = self._link_tables()
        ends = e.ends
        to_goal, seen_by_goal = sweep(t, sc, goal_tris, gx, gy, [(sx, sy, start_tris)] + ends)
        shared = bool(set(start_tris.tolist()) & set(goal_tris.tolist()))
        direct = math.hypot(gx - sx, gy - sy) if shared or math.isfinite(seen_by_goal[0]) else math.inf
        from_start, start_end = sweep(t, sc, start_tris, sx, sy, ends)
        d_goal = goal_distances(self._mesh.landmarks, to_goal, t.corner_ids)
        # plain tuples, as the one-call query passes them: one compiled search for both
        graph = tuple(VisibilityGraph(self._mesh.vis_start, self._mesh.vis_dst, t.vinfo, self._mesh.landmarks,
                                      t.corner_ids, NO_MESH_BOUNDS, self.segments()))
        links = tuple(LinkEnds(e.xy, e.land, e.cstart, e.cids, e.cdist, e.seen_by_start, e.seen_by_end,
                               e.seen_by_dist, e.end_end, e.link_to, e.link_cost))
        query = tuple(VisibilityQuery(float(sx), float(sy), float(gx), float(gy), from_start, to_goal, d_goal,
                                      start_end, np.ascontiguousarray(seen_by_goal[1:]),
                                      link_bounds(e.land, d_goal, e.link_to, e.link_cost), NO_GOAL_BOX))
        length, route = visibility_astar(graph, links, query, e.node, sc.heap(len(e.node) + 1), sc.next_stamp(),
                                         sc.stats)
        if direct <= length:
            route, length = np.zeros(0, np.int64), direct
        if not math.isfinite(length):
            return None
        v_count = len(t.points)
        path: list = [np.array([sx, sy])]
        link_at: list[tuple[int, int]] = []
        for i, r in enumerate(route):
            path.append(t.points[r] if r < v_count else e.xy[r - v_count])
            if i + 1 < len(route) and r >= v_count and route[i + 1] >= v_count:
                a, b = r - v_count, route[i + 1] - v_count
                if e.link_to[a] == b and e.link_cost[a] <= e.end_end[a, b]:
                    link_at.append((len(path) - 1, a // 2))     # this end and the next: link a // 2
        path.append(np.array([gx, gy]))
        # finish each walked stretch (between links): grazed corners, nudges off the walls
        pieces: list[np.ndarray] = []
        kinds: list[str] = []
        starts: list[int] = []
        bounds = [0] + [i + 1 for i, _ in link_at] + [len(path)]
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            lattice = grazed_corners(np.array(path[lo:hi], dtype=np.float64), t.corner_mask)
            lattice = inset_lattice_points(lattice, self._mesh.walkable, t.cliff_dirs, 2 * CORNER_MARGIN,
                                           np.zeros(len(lattice), dtype=bool))
            if pieces:
                starts.append(sum(len(p) for p in pieces) - 1)
            pieces.append(lattice)
        lattice = pieces[0] if len(pieces) == 1 else np.concatenate(pieces)
        out, walked = lattice_to_world(lattice, float(cs), float(ox), float(oy), self._mesh.height, self._mesh.walkable,
                                       float(s[0]), float(s[1]), float(g[0]), float(g[1]))
        # a link's two ends are consecutive points: its straight "walk" is its cost instead
        cost = (walked - sum(float(np.hypot(*(lattice[i + 1] - lattice[i]))) for i in starts)) \
            * cs * float(self._mesh.area_cost[0])
        for _, li in link_at:
            kinds.append(self._mesh.links[li].kind)
            cost += self._mesh.links[li].cost
        return out, cost, tuple(starts), self._corridor(lattice), tuple(kinds)
