"""Search kernels over waypoint graphs stored as CSR arrays (``adj_start``, ``adj_target``,
``adj_cost``), with node positions ``node_x``/``node_y`` in grid cells for the octile heuristic.

Sources and targets are given as lists with costs, so a query point that is not a node (a unit's
cell) enters as "virtual" edges: start → sources, targets → goal. Only nodes whose ``allowed``
flag is set are entered, which restricts a search to a corridor of clusters.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..kernels.chain import parent_chain
from ..kernels.heap import CLOSED, NOT_IN_HEAP, heap_pop, heap_push, heap_sift_up, heap_update
from ..kernels.steps import octile, step_cost

__all__ = ["NO_ESTIMATE", "OCTILE_ESTIMATE", "STRAIGHT_ESTIMATE", "GraphArrays", "GraphEnds", "GraphScratch", "ScratchArrays", "graph_search", "refine_legs"]

@njit(cache=True, inline="always")
def _touch(u, cur, stamp, g, parent, pos, to_goal):
    """First time this search meets node ``u``: reset its stamped entries."""
    if stamp[u] != cur:
        stamp[u] = cur
        g[u] = np.inf
        parent[u] = -1
        pos[u] = NOT_IN_HEAP
        to_goal[u] = np.inf


class GraphArrays(NamedTuple):
    """A waypoint graph as ``graph_search`` reads it: CSR edges and node positions (cells)."""

    start: np.ndarray        # CSR: the edges leaving node u are start[u]:start[u + 1] …
    target: np.ndarray       # … to these nodes …
    cost: np.ndarray         # … at these costs
    node_x: np.ndarray
    node_y: np.ndarray


NO_ESTIMATE, OCTILE_ESTIMATE, STRAIGHT_ESTIMATE = 0, 1, 2


@njit(cache=True, inline="always")
def _estimate(x, y, goal_x, goal_y, heuristic):
    if heuristic == OCTILE_ESTIMATE:
        return octile(x, y, goal_x, goal_y)
    if heuristic == STRAIGHT_ESTIMATE:
        return math.sqrt((x - goal_x) ** 2 + (y - goal_y) ** 2)
    return 0.0


class GraphEnds(NamedTuple):
    """A query's virtual ends: start → ``src`` nodes at ``src_cost``, ``dst`` nodes → goal at
    ``dst_cost``; the goal's position feeds the estimate ``heuristic``: ``NO_ESTIMATE``,
    ``OCTILE_ESTIMATE`` (edges that are grid paths: the hierarchy) or ``STRAIGHT_ESTIMATE``
    (edges that are straight segments: a waypoint graph — octile would over-estimate them)."""

    src: np.ndarray
    src_cost: np.ndarray
    dst: np.ndarray
    dst_cost: np.ndarray
    goal_x: float
    goal_y: float
    heuristic: int


class ScratchArrays(NamedTuple):
    """``GraphScratch``'s arrays as the kernel takes them (one argument)."""

    g: np.ndarray
    parent: np.ndarray
    pos: np.ndarray
    keys: np.ndarray
    nodes: np.ndarray
    to_goal: np.ndarray
    stamp: np.ndarray


class GraphScratch:
    """Per-graph search arrays reused between searches (stamped, never cleared)."""

    def __init__(self, n: int) -> None:
        self.g = np.empty(n + 1)
        self.parent = np.empty(n + 1, dtype=np.int64)
        self.pos = np.empty(n + 1, dtype=np.int32)
        self.keys = np.empty(n + 1)
        self.nodes = np.empty(n + 1, dtype=np.int32)
        self.to_goal = np.empty(n + 1)
        self.stamp = np.zeros(n + 1, dtype=np.int32)
        self.cur = 0

    def next(self) -> int:
        """A fresh stamp for the next search."""
        if self.cur >= np.iinfo(np.int32).max - 2:
            self.stamp[:] = 0
            self.cur = 0
        self.cur += 1
        return self.cur

    def arrays(self) -> ScratchArrays:
        """The scratch arrays as ``graph_search`` takes them."""
        return ScratchArrays(self.g, self.parent, self.pos, self.keys, self.nodes, self.to_goal, self.stamp)


@njit(cache=True)
def graph_search(graph, allowed, ends, scratch, cur, report, bounds, use_bounds):
    """A* (or Dijkstra when ``ends.heuristic`` is ``NO_ESTIMATE``) over ``graph`` (``GraphArrays``)
    from the virtual start to the virtual goal of ``ends`` (``GraphEnds``), entering only nodes
    whose ``allowed`` flag is set. With ``use_bounds``, an edge whose goal-bounding box
    (``bounds``, ``waypoints/graph_bounds.py``) holds none of the ``ends.dst`` nodes is skipped.

    ``scratch`` is a ``GraphScratch``'s ``arrays()`` (``cur`` its fresh stamp). Returns
    ``(cost, path, reported)``: ``path`` the node ids from a source to a target (empty when no
    target is reachable or there are none), ``reported`` the settled cost of each node of
    ``report`` (inf where not settled) — the Dijkstra distances an insertion needs.
    """
    adj_start, adj_target, adj_cost, node_x, node_y = graph
    src, src_cost, dst, dst_cost, goal_x, goal_y, heuristic = ends
    g, parent, pos, keys, nodes, to_goal, stamp = scratch
    n = node_x.size
    goal = n                                      # slot n = the virtual goal
    stamp[goal] = cur
    g[goal] = np.inf
    parent[goal] = -1
    pos[goal] = NOT_IN_HEAP
    # the box of the nodes that reach the goal: an edge whose bounds miss it leads nowhere useful
    dst_x0, dst_y0, dst_x1, dst_y1 = np.inf, np.inf, -np.inf, -np.inf
    for i in range(dst.size):
        u = dst[i]
        dst_x0 = min(dst_x0, node_x[u])
        dst_y0 = min(dst_y0, node_y[u])
        dst_x1 = max(dst_x1, node_x[u])
        dst_y1 = max(dst_y1, node_y[u])
        _touch(u, cur, stamp, g, parent, pos, to_goal)
        if dst_cost[i] < to_goal[u]:
            to_goal[u] = dst_cost[i]
    size = 0
    for i in range(src.size):
        u = src[i]
        if allowed[u] == 0:
            continue
        _touch(u, cur, stamp, g, parent, pos, to_goal)
        if src_cost[i] >= g[u]:
            continue
        g[u] = src_cost[i]
        h = _estimate(node_x[u], node_y[u], goal_x, goal_y, heuristic)
        size = heap_update(keys, nodes, pos, size, u, g[u] + h)
    while size > 0:
        u, size = heap_pop(keys, nodes, pos, size)
        pos[u] = CLOSED
        if u == goal:
            break
        gu = g[u]
        if to_goal[u] < np.inf:
            ng = gu + to_goal[u]
            if ng < g[goal]:
                g[goal] = ng
                parent[goal] = u
                size = heap_update(keys, nodes, pos, size, goal, ng)
        for e in range(adj_start[u], adj_start[u + 1]):
            v = adj_target[e]
            if allowed[v] == 0:
                continue
            if stamp[v] == cur and pos[v] == CLOSED:
                continue
            if use_bounds and (bounds[e, 2] < dst_x0 or bounds[e, 0] > dst_x1 or bounds[e, 3] < dst_y0
                               or bounds[e, 1] > dst_y1):
                continue
            _touch(v, cur, stamp, g, parent, pos, to_goal)
            ng = gu + adj_cost[e]
            if ng < g[v]:
                g[v] = ng
                parent[v] = u
                h = _estimate(node_x[v], node_y[v], goal_x, goal_y, heuristic)
                size = heap_update(keys, nodes, pos, size, v, ng + h)
    reported = np.full(report.size, np.inf)
    for i in range(report.size):
        u = report[i]
        if stamp[u] == cur and pos[u] == CLOSED:
            reported[i] = g[u]
    if not (g[goal] < np.inf) or pos[goal] != CLOSED:
        return np.inf, np.zeros(0, dtype=np.int64), reported
    return g[goal], parent_chain(parent, parent[goal]), reported


@njit(cache=True)
def refine_legs(moves, cost, wp, uniform, xs, ys, csize, width, height):
    """Grid path through the waypoints ``(xs[i], ys[i])`` (consecutive ones share a cluster or
    face each other across a border): one small A* per leg, inside the box of the leg's one or
    two clusters, on local arrays of at most (2·csize)² cells (they stay in cache, where a
    grid-sized workspace would not). Returns ``(cells (N, 2) int32, expanded, ok)``."""
    side = 2 * csize
    cap = side * side
    g = np.empty(cap)
    parent = np.empty(cap, dtype=np.int64)
    stamp = np.zeros(cap, dtype=np.int32)
    pos = np.empty(cap, dtype=np.int32)
    keys = np.empty(cap)
    heap_nodes = np.empty(cap, dtype=np.int32)
    mdx = np.array((1, -1, 0, 0, 1, -1, 1, -1))
    mdy = np.array((0, 0, 1, -1, 1, 1, -1, -1))
    k = xs.size
    out = np.empty((1, 2), dtype=np.int32)
    out[0, 0] = xs[0]
    out[0, 1] = ys[0]
    pieces = [out]
    total = 1
    expanded = 0
    way_idx = np.zeros(k, dtype=np.int64)
    for i in range(k - 1):
        ax, ay, bx, by = xs[i], ys[i], xs[i + 1], ys[i + 1]
        x0 = min(ax // csize, bx // csize) * csize
        y0 = min(ay // csize, by // csize) * csize
        x1 = min((max(ax // csize, bx // csize) + 1) * csize, width)
        y1 = min((max(ay // csize, by // csize) + 1) * csize, height)
        lw = x1 - x0
        cur = i + 1
        a = (ay - y0) * lw + (ax - x0)
        b = (by - y0) * lw + (bx - x0)
        stamp[a] = cur
        g[a] = 0.0
        parent[a] = -1
        pos[a] = NOT_IN_HEAP
        size = heap_push(keys, heap_nodes, pos, 0, octile(ax, ay, bx, by), a)
        found = False
        while size > 0:
            u, size = heap_pop(keys, heap_nodes, pos, size)
            pos[u] = CLOSED
            if u == b:
                found = True
                break
            expanded += 1
            ux = u % lw + x0
            uy = u // lw + y0
            gu = g[u]
            gi = (uy + 1) * wp + ux + 1
            cu = cost[gi]
            m = moves[gi]
            for d in range(8):
                if (m >> d) & 1 == 0:
                    continue
                vx = ux + mdx[d]
                vy = uy + mdy[d]
                if vx < x0 or vx >= x1 or vy < y0 or vy >= y1:
                    continue
                v = (vy - y0) * lw + (vx - x0)
                ng = gu + step_cost(cost, cu, (vy + 1) * wp + vx + 1, d, uniform)
                if stamp[v] != cur:
                    stamp[v] = cur
                    g[v] = ng
                    parent[v] = u
                    size = heap_push(keys, heap_nodes, pos, size, ng + (1.0 + 1e-9) * octile(vx, vy, bx, by), v)
                elif ng < g[v] - 1e-12 and pos[v] != CLOSED:
                    g[v] = ng
                    parent[v] = u
                    keys[pos[v]] = ng + (1.0 + 1e-9) * octile(vx, vy, bx, by)
                    heap_sift_up(keys, heap_nodes, pos, pos[v])
        if not found:
            return np.zeros((0, 2), dtype=np.int32), expanded, False, way_idx
        n = 0
        u = b
        while u != a:
            n += 1
            u = parent[u]
        piece = np.empty((n, 2), dtype=np.int32)
        u = b
        j = n - 1
        while u != a:
            piece[j, 0] = u % lw + x0
            piece[j, 1] = u // lw + y0
            j -= 1
            u = parent[u]
        pieces.append(piece)
        total += n
        way_idx[i + 1] = total - 1
    cells = np.empty((total, 2), dtype=np.int32)
    j = 0
    for piece in pieces:
        cells[j:j + piece.shape[0]] = piece
        j += piece.shape[0]
    return cells, expanded, True, way_idx
