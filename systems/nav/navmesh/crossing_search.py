"""A* over portal crossing points (numba): ``NavMesh.find_path`` on meshes with area costs
(near-optimal; uniform-cost meshes get the exact visibility-graph query instead).

States are candidate points on portals (CSR: ``cand_start[e]..cand_start[e+1]`` belong to portal
``e``, which leads into polygon ``edge_dst[e]``). From a point inside polygon ``v`` the search may
go straight (polygons are convex) to any candidate of any portal of ``v``, at ``length ×
area_cost[v]``; the goal is reached from any point in the goal polygon.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..kernels.chain import parent_chain
from ..kernels.heap import CLOSED, NOT_IN_HEAP, heap_pop, heap_update

__all__ = ["CandidateSearch", "candidate_astar"]


#: Slots of a resumable candidate search's integer state (WORK: expansions plus the states they
#: looked at, what ``step``'s budget counts).
_U, _V, _SIZE, _STATUS, _EXPANDED, _WORK = range(6)
RUNNING, FOUND, EXHAUSTED = 0, 1, 2


class CandidateSearch:
    """A crossing-point A* that can run in slices (``step``) and answers exactly what one
    uninterrupted run answers: the query of a mesh with area costs may expand many thousand
    crossing points, so a crowd spreads it over ticks."""

    def __init__(self, poly_start, edge_dst, cand_start, cand_x, cand_y, cand_edge, area_cost, ps, pg, sx, sy,
                 gx, gy, link_from, link_ax, link_ay, link_to, link_bx, link_by, link_cost) -> None:
        self.tables = (poly_start, edge_dst, cand_start, cand_x, cand_y, cand_edge, area_cost)
        self.links = (link_from, link_ax, link_ay, link_to, link_bx, link_by, link_cost)
        self.ends = np.array((ps, pg), dtype=np.int64)
        self.goal_xy = np.array((gx, gy), dtype=np.float64)
        size = cand_x.size + link_from.size + 1
        # a state's entries are valid once ``touched``: filling all of them up front (np.full, 684k
        # states on the highlands mesh) showed as 6 ms of a profiled order tick; zeroed pages
        # are handed out lazily, as the search reaches them
        self.touched = np.zeros(size, dtype=np.bool_)
        self.g = np.empty(size)
        self.parent = np.empty(size, dtype=np.int64)
        self.pos = np.empty(size, dtype=np.int32)
        self.keys = np.empty(size)
        self.nodes = np.empty(size, dtype=np.int32)
        goal = size - 1
        self.touched[goal], self.g[goal], self.parent[goal], self.pos[goal] = True, np.inf, -1, NOT_IN_HEAP
        self.ints = np.array((-1, ps, 0, RUNNING, 0, 0), dtype=np.int64)   # the start is state -1
        self.floats = np.array((0.0, sx, sy), dtype=np.float64)            # its g and position

    @property
    def done(self) -> bool:
        """True once the goal was reached or every state expanded."""
        return self.ints[_STATUS] != RUNNING

    @property
    def expanded(self) -> int:
        """States expanded so far."""
        return int(self.ints[_EXPANDED])

    @property
    def work(self) -> int:
        """Work done so far: each expansion counts 1 plus the states it looked at (a polygon with
        many portals costs more than one with few; a crowd's budget charges this)."""
        return int(self.ints[_WORK])

    def step(self, budget: int) -> bool:
        """Expand states until ``budget`` work is done (at least one expansion); True when done."""
        if not self.done:
            _candidate_run(*self.tables, self.ends, self.goal_xy, *self.links, self.touched, self.g, self.parent,
                           self.pos, self.keys, self.nodes, self.ints, self.floats, np.int64(max(1, budget)))
        return self.done

    def costs(self, states: np.ndarray) -> np.ndarray:
        """The cost found so far to each of ``states`` (inf where the search never came)."""
        return np.where(self.touched[states], self.g[states], np.inf)

    def result(self):
        """``(cost, chain)`` as ``candidate_astar`` returns (run to the end first)."""
        while not self.done:
            self.step(2**40)
        goal = self.g.size - 1
        if self.ints[_STATUS] != FOUND:
            return np.inf, np.zeros(0, dtype=np.int64)
        return self.g[goal], parent_chain(self.parent, self.parent[goal])


def candidate_astar(poly_start, edge_dst, cand_start, cand_x, cand_y, cand_edge, area_cost,
                    ps, pg, sx, sy, gx, gy, link_from, link_ax, link_ay, link_to, link_bx, link_by, link_cost):
    """Returns ``(cost, chain)``: the states passed, in order (empty if unreachable). States
    ``0..n-1`` are candidates; ``n + m`` is "arrived at the far end of directed off-mesh link
    ``m``" (it starts at (link_ax, link_ay) in polygon ``link_from[m]``, ends at (link_bx,
    link_by) in ``link_to[m]`` and costs ``link_cost[m]``; M may be 0)."""
    return CandidateSearch(poly_start, edge_dst, cand_start, cand_x, cand_y, cand_edge, area_cost, ps, pg, sx, sy,
                           gx, gy, link_from, link_ax, link_ay, link_to, link_bx, link_by, link_cost).result()


@njit(cache=True, inline="always")
def _touch(c, touched, g, parent, pos):
    """Give state ``c`` its starting entries the first time the search meets it."""
    if not touched[c]:
        touched[c] = True
        g[c] = np.inf
        parent[c] = -1
        pos[c] = NOT_IN_HEAP


@njit(cache=True)
def _candidate_run(poly_start, edge_dst, cand_start, cand_x, cand_y, cand_edge, area_cost, ends, goal_xy,
                   link_from, link_ax, link_ay, link_to, link_bx, link_by, link_cost,
                   touched, g, parent, pos, keys, nodes, ints, floats, budget):
    """Expand the current state, pop the next, until ``budget`` work is done (or to the end); the
    state to expand next and the heap size are kept in ``ints`` / ``floats``."""
    n = cand_x.size
    m_links = link_from.size
    goal = n + m_links
    pg = ends[1]
    gx = goal_xy[0]
    gy = goal_xy[1]
    u = ints[_U]
    v = ints[_V]
    size = ints[_SIZE]
    expanded = ints[_EXPANDED]
    gu = floats[0]
    ux = floats[1]
    uy = floats[2]
    status = RUNNING
    work = ints[_WORK]
    stop = work + budget
    while work < stop:
        cv = area_cost[v]
        if v == pg:
            ng = gu + math.hypot(gx - ux, gy - uy) * cv
            if ng < g[goal]:
                g[goal] = ng
                parent[goal] = u
                size = heap_update(keys, nodes, pos, size, goal, ng)
        work += 1 + m_links
        for e in range(poly_start[v], poly_start[v + 1]):
            work += cand_start[e + 1] - cand_start[e]
            for c in range(cand_start[e], cand_start[e + 1]):
                _touch(c, touched, g, parent, pos)
                if pos[c] == CLOSED:
                    continue
                ng = gu + math.hypot(cand_x[c] - ux, cand_y[c] - uy) * cv
                if ng < g[c]:
                    g[c] = ng
                    parent[c] = u
                    size = heap_update(keys, nodes, pos, size, c, ng + math.hypot(cand_x[c] - gx, cand_y[c] - gy))
        for m in range(m_links):
            if link_from[m] != v:
                continue
            _touch(n + m, touched, g, parent, pos)
            if pos[n + m] == CLOSED:
                continue
            ng = gu + math.hypot(link_ax[m] - ux, link_ay[m] - uy) * cv + link_cost[m]
            if ng < g[n + m]:
                g[n + m] = ng
                parent[n + m] = u
                size = heap_update(keys, nodes, pos, size, n + m, ng + math.hypot(link_bx[m] - gx, link_by[m] - gy))
        expanded += 1
        if size == 0:
            status = EXHAUSTED
            break
        u, size = heap_pop(keys, nodes, pos, size)
        pos[u] = CLOSED
        if u == goal:
            status = FOUND
            break
        gu = g[u]
        if u < n:
            ux, uy, v = cand_x[u], cand_y[u], edge_dst[cand_edge[u]]
        else:
            ux, uy, v = link_bx[u - n], link_by[u - n], link_to[u - n]
    ints[_U] = u
    ints[_V] = v
    ints[_SIZE] = size
    ints[_STATUS] = status
    ints[_EXPANDED] = expanded
    ints[_WORK] = work
    floats[0] = gu
    floats[1] = ux
    floats[2] = uy
