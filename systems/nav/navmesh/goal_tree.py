"""``GoalTree``: every crossing point's cost to one goal on a mesh with area costs, so that any
number of units sent to that goal are answered at once.

An area-cost query is an A* over portal crossing points that expands a large part of the mesh
(~290,000 of 684,000 points, 0.17 s, for one query across the 512² highlands level); 500 units
ordered to one point made 500 such searches, which under the crowd's budget took longer than the
walk. The tree is one exhaustive crossing-point search from the goal — costs are symmetric (a
straight move inside a polygon costs the same both ways), off-mesh links are taken reversed —
after which a start is answered by the cheapest crossing point on its polygon's boundary plus
the straight move to it, and the parent chain read backwards is the route, funnelled as the
forward search's is. Both are near-optimal routes over the same discretised crossing points, not
always the same one: over 100 random starts on the highlands the tree's were 0.2% cheaper on
average, within ±4.6% of the forward search's (``tests/systems/nav/test_goal_tree.py`` bounds it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..grid import finite_point
from ..kernels.chain import parent_chain
from ..result import PathStatus
from .crossing_search import CandidateSearch
from .mesh_types import MeshPath

if TYPE_CHECKING:
    from .mesh import NavMesh

__all__ = ["GoalTree", "goal_tree_tables"]


class GoalTree:
    """Costs to ``goal`` from every crossing point of ``mesh`` (built in ``step`` slices), and
    ``route(start)`` from them. Only for meshes that need the crossing-point search (with area
    costs); memory ~40 bytes per crossing point."""

    def __init__(self, mesh: NavMesh, goal: Sequence[float] | np.ndarray) -> None:
        self.mesh = mesh
        self.goal = np.array(finite_point(goal, "goal"), dtype=np.float64)
        pg = mesh.polygon_at(self.goal)
        if pg < 0:
            near = mesh.nearest_point(self.goal)
            pg, self.goal = (near[0], np.asarray(near[1], dtype=np.float64)) if near is not None else (-1, self.goal)
        self.goal_polygon = int(pg)
        self._search: CandidateSearch | None = None
        if pg >= 0:
            self._search, self._meta = mesh.area.search(pg, -1, self.goal, self.goal, reverse_links=True)
        _, self._cand_x, self._cand_y, self._cand_edge = mesh.area.candidate_points()
        self._n = len(self._cand_edge)
        self._into, self._into_start, self._twin = goal_tree_tables(mesh)

    @property
    def done(self) -> bool:
        """True once every crossing point's cost is known."""
        return self._search is None or self._search.done

    @property
    def expanded(self) -> int:
        """Crossing points expanded so far."""
        return 0 if self._search is None else self._search.expanded

    @property
    def work(self) -> int:
        """Work done so far (``CandidateSearch.work``: what ``step``'s budget counts)."""
        return 0 if self._search is None else self._search.work

    def step(self, budget: int) -> bool:
        """Expand crossing points until ``budget`` work is done; True when the tree is complete."""
        if self._search is not None:
            self._search.step(budget)
        return self.done

    def route(self, start: Sequence[float] | np.ndarray) -> MeshPath:
        """The path from ``start`` to the goal (the tree must be ``done``), as a ``MeshPath`` like
        ``find_path``'s, in well under a millisecond."""
        mesh = self.mesh
        s = np.array(finite_point(start, "start"), dtype=np.float64)
        ps, s, pg, g, failure = mesh.snap(s, self.goal)
        if failure is not None:
            return failure
        if ps == pg:
            found = mesh.route_between(ps, pg, s, g)
            return self._path(found, ps, s, g)
        assert self._search is not None
        n = self._n
        states = self._into[self._into_start[ps]:self._into_start[ps + 1]]
        if len(states) == 0:
            return mesh.partial(ps, s, g, self.goal)
        _, _, _, link_ids, link_x, link_y, link_from = self._meta
        link = np.maximum(states - n, 0)
        cand = np.minimum(states, n - 1)
        x = np.where(states < n, self._cand_x[cand] if n else 0.0, link_x[link] if len(link_x) else 0.0)
        y = np.where(states < n, self._cand_y[cand] if n else 0.0, link_y[link] if len(link_y) else 0.0)
        total = self._search.costs(states) + np.hypot(x - s[0], y - s[1]) * mesh.area_cost[ps]
        best = int(np.argmin(total))
        if not np.isfinite(total[best]):
            return mesh.partial(ps, s, g, self.goal)
        chain = parent_chain(self._search.parent, int(states[best]))[::-1]     # from the start's side
        route: list[tuple[int, tuple[str, int] | None]] = [(ps, None)]
        for c in chain.tolist():
            if c < n:
                e = int(self._cand_edge[c])
                route.append((int(mesh.portals[0][e]), ("portal", int(self._twin[e]))))
            else:
                route.append((int(link_from[c - n]), ("link", int(link_ids[c - n]))))
        return self._path(mesh.area.points(route, s, g), ps, s, g)

    def _path(self, found, ps: int, s: np.ndarray, g: np.ndarray) -> MeshPath:
        if found is None:
            return self.mesh.partial(ps, s, g, self.goal)
        pts, cost, links, polys, kinds = found
        return MeshPath(PathStatus.FOUND, cost, pts, polys, links, kinds)


def goal_tree_tables(mesh: NavMesh) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The goal-independent tables of a mesh's goal trees, made once (``Navigation.prepare``
    makes them at load): the crossing states arriving in each polygon (CSR: candidates of the
    portals into it, then the reversed off-mesh links ending in it) and each portal's twin."""
    if mesh.goal_tables is None:
        _, _, _, cand_edge = mesh.area.candidate_points()
        # a reversed link arrives where the forward one starts
        link_to = np.array([mesh.polygon_at(L.a[:2]) for L in mesh.links]
                           + [mesh.polygon_at(L.b[:2]) for L in mesh.links if L.bidirectional], dtype=np.int64)
        arrive = np.concatenate([mesh.portals[1][cand_edge], link_to]).astype(np.int64)
        order = np.argsort(arrive, kind="stable").astype(np.int64)
        start = np.searchsorted(arrive[order], np.arange(len(mesh.rects) + 1)).astype(np.int64)
        mesh.goal_tables = (order, start, _twins(mesh))
    return mesh.goal_tables


def _twins(mesh: NavMesh) -> np.ndarray:
    """For each portal (directed, polygon to polygon), the portal crossing the same segment the
    other way: portals sorted by their unordered polygon pair and segment come in twin pairs."""
    src, dst, seg = mesh.portals
    seg = np.asarray(seg, dtype=np.float64).reshape(-1, 4)
    src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    # segments are axis-aligned rectangle edges: per-axis min/max names one the same both ways
    lo_x, hi_x = np.minimum(seg[:, 0], seg[:, 2]), np.maximum(seg[:, 0], seg[:, 2])
    lo_y, hi_y = np.minimum(seg[:, 1], seg[:, 3]), np.maximum(seg[:, 1], seg[:, 3])
    order = np.lexsort((src, hi_y, lo_y, hi_x, lo_x, np.maximum(src, dst), np.minimum(src, dst)))
    first, second = order[0::2], order[1::2]
    if len(order) % 2 or not (np.array_equal(src[first], dst[second]) and np.array_equal(dst[first], src[second])):
        raise AssertionError("navmesh portals do not come in twin pairs")
    twin = np.empty(len(src), dtype=np.int64)
    twin[first], twin[second] = second, first
    return twin
