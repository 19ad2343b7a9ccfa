"""The navmesh's route over meshes whose polygons cost differently: A* over portal crossing
points (and off-mesh links), then funnel string-pulling with corners kept off the walls. A part
of ``NavMesh`` (a mixin; its attributes are made by the bake)."""

from __future__ import annotations

import numpy as np

from .crossing_search import CandidateSearch
from .exact import ExactRoute
from .funnel import string_pull
from .mesh_types import CORNER_MARGIN
from .surface import MeshSurface
from .trace import inset_lattice_points

__all__ = ["AreaCostRoute"]


class AreaCostRoute:
    """Area-cost routes (see the module docs): a part of ``NavMesh`` that owns the candidate
    crossing points it makes from the mesh's portals; ``exact`` lends it the corners' cliff
    directions (to keep path corners off the walls)."""

    def __init__(self, mesh: MeshSurface, exact: ExactRoute) -> None:
        self._mesh, self._exact = mesh, exact
        self._cands: tuple | None = None

    def link_adjacency(self) -> dict[int, list]:
        """Polygon -> [(polygon reached, link id; -1 - i taken backwards)] of the off-mesh links."""
        adj: dict[int, list] = {}
        for i, L in enumerate(self._mesh.links):
            pa, pb = self._mesh.polygon_at(L.a), self._mesh.polygon_at(L.b)
            adj.setdefault(pa, []).append((pb, i))
            if L.bidirectional:
                adj.setdefault(pb, []).append((pa, -1 - i))
        return adj

    def candidate_points(self):
        """Every portal's candidate crossing points, flat (CSR by portal), for the crossing-point
        search (built on first use: only meshes with area costs need them)."""
        cached = self._cands
        if cached is None:
            per = [self._candidates(e) for e in range(len(self._mesh.portals[0]))]
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
        cs = self._mesh.config.cell_size
        x0, y0, x1, y1 = self._mesh.portals[2][e]
        a = np.array([self._mesh.origin[0] + x0 * cs, self._mesh.origin[1] + y0 * cs])
        b = np.array([self._mesh.origin[0] + x1 * cs, self._mesh.origin[1] + y1 * cs])
        d = b - a
        length = max(np.hypot(*d), 1e-12)
        m = 2 * CORNER_MARGIN * cs / length
        inner = max(1, int(round(length / (4 * cs))))
        ts = np.concatenate([[m], np.arange(1, inner) / inner, [1 - m]]) if inner > 1 else np.array([m, 0.5, 1 - m])
        return a + d * ts[:, None]

    def astar(self, ps: int, pg: int, s: np.ndarray, g: np.ndarray):
        """A* over portal crossing points and off-mesh links (polygons are convex: any two points
        of one see each other). Returns the route as ``[(polygon, via), ...]`` (via:
        ``("portal", e)`` or ``("link", i)`` — ``-1 - i`` for link i taken backwards; None for the
        start), or None when unreachable."""
        if ps == pg:
            return [(ps, None)]
        search, meta = self.search(ps, pg, s, g)
        _, chain = search.result()
        return self.route_of(chain, ps, meta)

    def search(self, ps: int, pg: int, s: np.ndarray, g: np.ndarray,
                          reverse_links: bool = False) -> tuple[CandidateSearch, tuple]:
        """The crossing-point search from ``s`` in ``ps`` to ``g`` in ``pg`` (not run yet), and
        what ``route_of`` needs to read its answer: ``(candidates, their portals, polygon each
        link state arrives in, link ids, arrival x, arrival y, polygon each link leaves)``.
        ``reverse_links``: every directed link taken the other way (a search from a goal
        outward, ``GoalTree``)."""
        cand_start, cand_x, cand_y, cand_edge = self.candidate_points()
        directed = [(i, L.a, L.b) for i, L in enumerate(self._mesh.links)]
        directed += [(-1 - i, L.b, L.a) for i, L in enumerate(self._mesh.links) if L.bidirectional]
        if reverse_links:
            directed = [(i, b, a) for i, a, b in directed]
        ids = np.array([d[0] for d in directed], dtype=np.int64)
        a = np.array([d[1][:2] for d in directed], dtype=np.float64).reshape(-1, 2)
        b = np.array([d[2][:2] for d in directed], dtype=np.float64).reshape(-1, 2)
        cost = np.array([self._mesh.links[i if i >= 0 else -1 - i].cost for i in ids], dtype=np.float64)
        poly_a = np.array([self._mesh.polygon_at(p) for p in a], dtype=np.int64)
        poly_b = np.array([self._mesh.polygon_at(p) for p in b], dtype=np.int64)
        bx, by = np.ascontiguousarray(b[:, 0]), np.ascontiguousarray(b[:, 1])
        search = CandidateSearch(self._mesh.portal_start, self._mesh.portals[1], cand_start, cand_x, cand_y, cand_edge, self._mesh.area_cost,
                                 ps, pg, float(s[0]), float(s[1]), float(g[0]), float(g[1]),
                                 poly_a, np.ascontiguousarray(a[:, 0]), np.ascontiguousarray(a[:, 1]), poly_b,
                                 bx, by, cost)
        return search, (len(cand_x), cand_edge, poly_b, ids, bx, by, poly_a)

    def route_of(self, chain: np.ndarray, ps: int, meta):
        """The route ``[(polygon, via), ...]`` of a crossing-point search's chain (None if empty)."""
        if len(chain) == 0:
            return None
        n, cand_edge, poly_b, ids = meta[:4]
        route: list[tuple[int, tuple[str, int] | None]] = [(ps, None)]
        for c in chain:
            if c < n:
                e = int(cand_edge[c])
                route.append((int(self._mesh.portals[1][e]), ("portal", e)))
            else:
                route.append((int(poly_b[c - n]), ("link", int(ids[c - n]))))
        return route

    def points(self, route, s: np.ndarray, g: np.ndarray):
        """Funnel each stretch of the route between links; returns (points, cost, link idx, polys).
        Portal ends, segment costs and heights are computed as arrays (a route across a big map
        crosses hundreds of portals)."""
        pts = [np.asarray(s[:2], dtype=np.float64)]
        link_at = []
        kinds = []
        cost = 0.0
        cur = np.asarray(s[:2], dtype=np.float64)
        polys = [route[k][0] for k in range(len(route))]
        stretch: list[tuple[int, int]] = []                     # (polygon left, portal) of the stretch
        for k in range(1, len(route)):
            v, via = route[k]
            u = route[k - 1][0]
            if via[0] == "portal":
                stretch.append((u, via[1]))
                continue
            li = via[1]
            L = self._mesh.links[li if li >= 0 else -1 - li]
            a, b = (L.a, L.b) if li >= 0 else (L.b, L.a)
            pts.extend(self._pull(cur, np.array(a[:2]), *self._portal_ends(stretch))[1:])
            link_at.append(len(pts) - 1)
            kinds.append(L.kind)
            pts.append(np.array(b[:2]))
            cost += L.cost
            cur = np.array(b[:2])
            stretch = []
        pts.extend(self._pull(cur, np.asarray(g[:2], dtype=np.float64), *self._portal_ends(stretch))[1:])
        p2 = self._inset_corners(np.array(pts), keep={0, len(pts) - 1, *link_at, *[i + 1 for i in link_at]})
        walked = np.ones(len(p2) - 1, dtype=bool)
        walked[list(link_at)] = False
        mids = (p2[:-1] + p2[1:]) / 2
        poly = self._polygons_under(mids)
        seg = np.hypot(*(p2[1:] - p2[:-1]).T) * np.where(poly >= 0, self._mesh.area_cost[np.maximum(poly, 0)], 1.0)
        under = self._polygons_under(p2)
        cells = self._cells_under(p2)
        height = np.where(under >= 0, self._mesh.height[cells[:, 1], cells[:, 0]], 0.0)
        out = np.c_[p2, height]
        return out, float(seg[walked].sum() + cost), tuple(link_at), np.array(polys, dtype=np.int64), tuple(kinds)

    def _portal_ends(self, stretch: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
        """Left and right world ends of each portal of a stretch ``[(polygon left, portal)]``,
        seen along the way through it (``_portal`` for many at once)."""
        if not stretch:
            return np.zeros((0, 2)), np.zeros((0, 2))
        cs = self._mesh.config.cell_size
        origin = np.asarray(self._mesh.origin, dtype=np.float64)
        u = np.array([k for k, _ in stretch], dtype=np.int64)
        e = np.array([k for _, k in stretch], dtype=np.int64)
        seg = self._mesh.portals[2][e].astype(np.float64)
        rect = self._mesh.rects[u].astype(np.float64)
        centre = origin + (rect[:, :2] + rect[:, 2:]) * 0.5 * cs
        a = origin + seg[:, :2] * cs
        b = origin + seg[:, 2:] * cs
        travel = (a + b) / 2 - centre
        d = b - a
        m = (CORNER_MARGIN * cs / np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-12))[:, None]
        a, b = a + d * m, b - d * m
        a_left = (travel[:, 0] * (a[:, 1] - b[:, 1]) - travel[:, 1] * (a[:, 0] - b[:, 0]) > 0)[:, None]
        return np.where(a_left, a, b), np.where(a_left, b, a)

    def _cells_under(self, points: np.ndarray) -> np.ndarray:
        cs = self._mesh.config.cell_size
        h, w = self._mesh.poly_of_cell.shape
        c = np.floor((points[:, :2] - np.asarray(self._mesh.origin)) / cs)
        return np.clip(c, 0, [w - 1, h - 1]).astype(np.int64)

    def _polygons_under(self, points: np.ndarray) -> np.ndarray:
        """``polygon_at`` of many points (-1 off the mesh)."""
        cs = self._mesh.config.cell_size
        h, w = self._mesh.poly_of_cell.shape
        c = np.floor((points[:, :2] - np.asarray(self._mesh.origin)) / cs)
        inside = (c[:, 0] >= 0) & (c[:, 0] < w) & (c[:, 1] >= 0) & (c[:, 1] < h)
        cells = self._cells_under(points)
        return np.where(inside, self._mesh.poly_of_cell[cells[:, 1], cells[:, 0]], -1)

    def _inset_corners(self, pts: np.ndarray, keep: set) -> np.ndarray:
        """Nudge path points that sit on grid vertices off their walls (see
        ``inset_lattice_points``); indices in ``keep`` stay put."""
        cs = self._mesh.config.cell_size
        lattice = (pts[:, :2] - np.array(self._mesh.origin)) / cs
        mask = np.zeros(len(pts), dtype=bool)
        mask[list(keep)] = True
        moved = inset_lattice_points(np.ascontiguousarray(lattice), self._mesh.walkable, self._exact.tables().cliff_dirs,
                                     2 * CORNER_MARGIN, mask)
        out = pts.copy()
        out[:, :2] = moved * cs + np.array(self._mesh.origin)
        return out

    @staticmethod
    def _pull(a: np.ndarray, b: np.ndarray, lefts: np.ndarray, rights: np.ndarray) -> np.ndarray:
        if len(lefts) == 0:
            return np.array([a, b])
        return string_pull(a, b, np.ascontiguousarray(lefts), np.ascontiguousarray(rights))
