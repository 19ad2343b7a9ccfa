"""The navmesh's query graph: a sparse visibility graph over convex corners (numba).

A Euclidean shortest path bends only at convex obstacle corners, and only where it wraps round
the obstacle: each of its segments is *taut* — tangent to the obstacle at both ends (Oh & Leong,
"Edge N-Level Sparse Visibility Graphs", SoCS 2016). So the corners plus the taut segments
between mutually visible corners hold every shortest path. Visibility comes from the exact
view sweep ``visible_from`` (Polyanya's cone projection with a fixed root: Cui, Harabor &
Grastien, IJCAI 2017); A* over the graph uses
landmark (ALT) bounds, with the goal's landmark distances made exact by a sweep from the goal.

Lattice coordinates throughout. A corner's *wedge* ``(qx, qy)`` points at its one unwalkable
cell (0, 0 for corners that sit on a cliff, which get no tautness filter).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..kernels.heap import CLOSED, NOT_IN_HEAP, TIE_BREAK, heap_pop, heap_update
from .geometry import cross, positive_span
from .mesh_types import QueryTables

__all__ = ["VisibilityGraph", "LinkEnds", "VisibilityQuery", "link_bounds", "corner_wedges", "sweep", "visible_from", "build_visibility_graph", "visibility_astar", "vertex_fans",
           "grazed_corners"]



class VisibilityGraph(NamedTuple):
    """A mesh's visibility graph over its convex corners, as ``visibility_astar`` reads it."""

    start: np.ndarray        # CSR: the taut segments leaving each vertex …
    dst: np.ndarray          # … and where they go
    vinfo: np.ndarray        # (V, 4) per vertex: x, y and its wedge qx, qy
    land: np.ndarray         # (V, K) landmark distances
    corners: np.ndarray      # the convex corner ids
    boxes: np.ndarray        # goal bounds per segment (``MeshGoalBounds``), or (0, 4): none
    seg: np.ndarray          # (S, 3) per segment: its direction x, y and its length (``segment_table``)


class LinkEnds(NamedTuple):
    """Off-mesh link ends as extra nodes V..V+E-1 of the query (empty arrays without links).

    End e sees the corners ``cids`` (CSR ``cstart``) at ``cdist``; the other way round, corner u
    is seen by the ends ``seen_by_end`` (CSR ``seen_by_start``) at ``seen_by_dist``; ends see
    each other at ``end_end``; taking the link from end e leads to end ``link_to[e]`` (-1: none
    starts there) for ``link_cost[e]``."""

    xy: np.ndarray
    land: np.ndarray         # (E, K) landmark distances per end
    cstart: np.ndarray
    cids: np.ndarray
    cdist: np.ndarray
    seen_by_start: np.ndarray
    seen_by_end: np.ndarray
    seen_by_dist: np.ndarray
    end_end: np.ndarray
    link_to: np.ndarray
    link_cost: np.ndarray


class VisibilityQuery(NamedTuple):
    """One query's endpoints and what the sweeps from them found."""

    sx: float
    sy: float
    gx: float
    gy: float
    from_start: np.ndarray   # (V,) distance from the start to each vertex it sees (inf elsewhere)
    to_goal: np.ndarray      # (V,) distance to the goal from each vertex that sees it
    d_goal: np.ndarray       # (K,) the goal's landmark distances (``goal_distances``)
    start_end: np.ndarray    # (E,) the start to each link end it sees
    end_goal: np.ndarray     # (E,) each link end to the goal
    link_bound: np.ndarray   # (E,) a lower bound on finishing through the link from each end
    goal_box: np.ndarray     # (4,) min x, min y, max x, max y of the corners that see the goal


_NO_POLYS = np.zeros(0, dtype=np.int64)
#: keys are g + h·_TIE (``TIE_BREAK``): among equal f the node nearer the goal pops first — with
#: landmark bounds many corners tie exactly with the optimum, and the goal then pops before them
_TIE = 1.0 + TIE_BREAK


def corner_wedges(points: np.ndarray, is_corner: np.ndarray, covered: np.ndarray,
                  cliff_dirs: np.ndarray) -> np.ndarray:
    """``(V, 2) int8``: for each corner with exactly one unwalkable cell around it and no cliff
    edge at it, the direction of that cell (±1, ±1); (0, 0) otherwise (no tautness filter: a
    cliff at the corner may be what a path wraps round)."""
    h, w = covered.shape
    pad = np.zeros((h + 2, w + 2), dtype=bool)
    pad[1:-1, 1:-1] = covered
    vx, vy = points[:, 0].astype(np.int64), points[:, 1].astype(np.int64)
    wedge = np.zeros((len(points), 2), dtype=np.int8)
    free = [(pad[vy + 1 + dy, vx + 1 + dx], dx, dy) for dx in (-1, 0) for dy in (-1, 0)]
    count = sum(f.astype(np.int8) for f, _, _ in free)
    for f, dx, dy in free:
        hit = is_corner & (count == 3) & ~f & (cliff_dirs[vy, vx] == 0)
        wedge[hit, 0] = 1 if dx == 0 else -1
        wedge[hit, 1] = 1 if dy == 0 else -1
    return wedge


def vertex_fans(triangles: np.ndarray, vertex_count: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR ``(start, triangles)``: the triangles around each vertex."""
    flat = triangles.reshape(-1)
    order = np.argsort(flat, kind="stable")
    return np.searchsorted(flat[order], np.arange(vertex_count + 1)).astype(np.int64), (order // 3).astype(np.int64)


def sweep(tables: QueryTables, scratch, polys: np.ndarray, px: float, py: float,
          targets=()) -> tuple[np.ndarray, np.ndarray]:
    """What point (px, py) (inside every polygon of ``polys``) sees: ``(distance to every vertex
    it sees (inf elsewhere), distance to each of ``targets`` — ``(x, y, polygons holding it)``
    triples — if seen)``."""
    out = np.full(len(tables.points), np.inf)
    t_poly = [p for _, _, ps in targets for p in ps]
    t_idx = [i for i, (_, _, ps) in enumerate(targets) for _ in ps]
    pts = np.array([(x, y) for x, y, _ in targets], dtype=np.float64).reshape(-1, 2)
    seen = np.full(len(targets), np.inf)
    visible_from(tables.start, tables.dst, tables.va, tables.vb, tables.rev, tables.vstart,
                 tables.verts, tables.points, polys, float(px), float(py), np.array(t_poly, dtype=np.int64),
                 np.array(t_idx, dtype=np.int64), pts, seen, out, _NO_POLYS, scratch.stats)
    return out, seen


def build_visibility_graph(tables: QueryTables, scratch, wedge: np.ndarray, progress=None):
    """Two CSR graphs over vertex ids, ``(start, dst int32)`` each: ``bends`` — for every corner,
    the corners it sees along segments taut at both ends (what a shortest path can continue
    along); ``ends`` — for every corner, the corners it sees along segments taut at *their* end
    (how a shortest path can arrive at it to stop there). ``progress(done, total)`` is called
    now and then."""
    pts = tables.points
    corners = np.flatnonzero(tables.is_corner)
    fan_start, fan = tables.fans
    out = np.full(len(pts), np.inf)
    touched = np.empty(len(pts), dtype=np.int64)
    bend_counts = np.zeros(len(pts) + 1, dtype=np.int64)
    end_counts = np.zeros(len(pts) + 1, dtype=np.int64)
    bend_rows, end_rows = [], []
    chunk = 2048
    for lo in range(0, len(corners), chunk):
        part = corners[lo:lo + chunk]
        bc, bd, ec, ed = _corner_rows(part, tables.is_corner, wedge, fan_start, fan, tables.start, tables.dst,
                                      tables.va, tables.vb, tables.rev, tables.vstart, tables.verts,
                                      pts, out, touched, scratch.stats)
        bend_counts[part + 1], end_counts[part + 1] = bc, ec
        bend_rows.append(bd)
        end_rows.append(ed)
        if progress is not None:
            progress(min(lo + chunk, len(corners)), len(corners))
    def csr(rows, counts):
        dst = np.concatenate(rows) if rows else np.zeros(0, np.int32)
        return np.cumsum(counts).astype(np.int64), dst.astype(np.int32)
    return csr(bend_rows, bend_counts), csr(end_rows, end_counts)


@njit(cache=True)
def _corner_rows(part, is_corner, wedge, fan_start, fan, poly_start, edge_dst, edge_va, edge_vb, edge_rev,
                 poly_vstart, poly_verts, points, out, touched, stats):
    """Sweep from each corner of ``part``: its bend and end neighbours (see
    ``build_visibility_graph``) as counts per corner and flat id lists."""
    bend_counts = np.zeros(part.size, dtype=np.int64)
    end_counts = np.zeros(part.size, dtype=np.int64)
    bends = np.empty(1024, dtype=np.int32)
    ends = np.empty(1024, dtype=np.int32)
    nb = 0
    ne = 0
    none = np.empty(0, dtype=np.int64)
    no_pts = np.empty((0, 2))
    no_out = np.empty(0)
    for i in range(part.size):
        c = part[i]
        nt = visible_from(poly_start, edge_dst, edge_va, edge_vb, edge_rev, poly_vstart, poly_verts, points,
                          fan[fan_start[c]:fan_start[c + 1]], points[c, 0], points[c, 1], none, none, no_pts,
                          no_out, out, touched, stats)
        for k in range(nt):
            v = touched[k]
            out[v] = math.inf
            if v == c or not is_corner[v]:
                continue
            dx, dy = points[v, 0] - points[c, 0], points[v, 1] - points[c, 1]
            if not taut(wedge[v, 0], wedge[v, 1], -dx, -dy):
                continue
            if ne == ends.size:
                ends = _grow_ids(ends)
            ends[ne] = v
            ne += 1
            end_counts[i] += 1
            if taut(wedge[c, 0], wedge[c, 1], dx, dy):
                if nb == bends.size:
                    bends = _grow_ids(bends)
                bends[nb] = v
                nb += 1
                bend_counts[i] += 1
    return bend_counts, bends[:nb].copy(), end_counts, ends[:ne].copy()


@njit(cache=True)
def _grow_ids(a):
    b = np.empty(a.size * 2, dtype=a.dtype)
    b[:a.size] = a
    return b


@njit(cache=True)
def _landmark_h(land, d_goal, v):
    """ALT bound on the distance from vertex v to the goal (``land`` is (V, K))."""
    best = 0.0
    for k in range(land.shape[1]):
        dg = d_goal[k]
        dv = land[v, k]
        if dg == math.inf or dv == math.inf:
            continue
        b = abs(dg - dv)
        if b > best:
            best = b
    return best


@njit(cache=True)
def goal_distances(land, to_goal, corners):
    """Each landmark's distance to the goal: via the best corner the goal sees (exact, because
    landmarks are corners: the last bend of a landmark's path to the goal is one it sees)."""
    k_count = land.shape[1]
    d = np.full(k_count, np.inf)
    for c in corners:
        tg = to_goal[c]
        if tg == math.inf:
            continue
        for k in range(k_count):
            v = land[c, k] + tg
            if v < d[k]:
                d[k] = v
    return d


@njit(cache=True)
def taut(qx, qy, dx, dy):
    """Whether a segment through a corner with wedge (qx, qy), along (dx, dy), can be part of a
    shortest path: its line must not cut the corner's unwalkable cell (either way along it)."""
    if qx == 0:
        return True
    return not ((dx * qx < 0 and dy * qy < 0) or (dx * qx > 0 and dy * qy > 0))


@njit(cache=True)
def wraps(qx, qy, ax, ay, bx, by):
    """Whether arriving at a corner with wedge (qx, qy) along (ax, ay) and leaving along
    (bx, by) bends round its unwalkable cell (a shortest path bends only that way; going
    straight on is allowed)."""
    if qx == 0:
        return True
    turn = ax * by - ay * bx
    if turn == 0:
        return True
    side_in = ax * qy - ay * qx
    side_out = bx * qy - by * qx
    if turn > 0:
        return side_in > 0 and side_out > 0
    return side_in < 0 and side_out < 0


_G, _H, _PARENT, _STAMP = 0, 1, 2, 3


@njit(cache=True)
def _h(land, d_goal, v, link_land, link_bound, straight):
    """Admissible estimate from node v (landmark row ``land[v]``, ``straight`` the straight-line
    distance to the goal) to the goal: the larger of the landmark bound and the straight line
    (both consistent, so their maximum is), or — when off-mesh links could shortcut — the cheapest
    bound through some link: to its start, then ``link_bound`` (its cost plus a bound onwards)."""
    best = max(_landmark_h(land, d_goal, v), straight)
    for i in range(link_bound.size):
        b = 0.0
        for k in range(land.shape[1]):
            dv = land[v, k]
            dl = link_land[i, k]
            if dv == math.inf or dl == math.inf:
                continue
            b = max(b, abs(dv - dl))
        b += link_bound[i]
        if b < best:
            best = b
    return best


@njit(cache=True)
def visibility_astar(graph, links, query, node, heap, stamp, stats):
    """A* from the start to the goal over the visibility graph (``VisibilityGraph``), plus the
    off-mesh link ends (``LinkEnds``) as nodes V..V+E-1, for one ``VisibilityQuery``.

    ``node`` (V+E, 4) is per-node scratch — g, h, parent, stamp in one cache line — reused
    across calls (``stamp`` new each call), and ``heap`` its open list ``(keys, ids, positions)``
    of V+E+1 entries, reused too: a node's position counts only once its stamp is this call's
    (nothing of size V is filled per query: a long query on a 1024² map spent a third of its
    time there); ``stats[1]`` counts expansions. Returns ``(length, node ids in path order)``
    (inf, empty when unreachable)."""
    vg_start, vg_dst, vinfo, land, corners, boxes, seg = graph
    (end_xy, end_land, end_cstart, end_cids, end_cdist, seen_by_start, seen_by_end, seen_by_dist, end_end,
     link_to, link_cost) = links
    sx, sy, gx, gy, from_start, to_goal, d_goal, start_end, end_goal, link_bound, goal_box = query
    bounded = boxes.shape[0] > 0
    lo_x, lo_y, hi_x, hi_y = goal_box[0], goal_box[1], goal_box[2], goal_box[3]
    link_land = end_land
    n = vinfo.shape[0]
    n_end = end_xy.shape[0]
    goal = n + n_end
    keys, ids, pos = heap
    pos[goal] = NOT_IN_HEAP
    size, no_parent = np.int64(0), np.int64(-1)   # not literals: each compiled ``_reach`` apart
    best_goal = math.inf
    goal_parent = -1
    fstamp = float(stamp)
    # the start's successors: corners it sees (taut there) and link ends it sees
    for v in corners:
        d = from_start[v]
        if d == math.inf or not taut(vinfo[v, 2], vinfo[v, 3], sx - vinfo[v, 0], sy - vinfo[v, 1]):
            continue
        size = _reach(node, v, d, no_parent, fstamp, land, d_goal, link_land, link_bound, keys, ids, pos, size,
                      vinfo[v, 0], vinfo[v, 1], gx, gy, best_goal, v)
    for e in range(n_end):
        if start_end[e] < math.inf:
            size = _reach(node, n + e, start_end[e], no_parent, fstamp, end_land, d_goal, link_land, link_bound,
                          keys, ids, pos, size, end_xy[e, 0], end_xy[e, 1], gx, gy, best_goal, e)
    while size > 0:
        u, size = heap_pop(keys, ids, pos, size)
        pos[u] = CLOSED
        stats[1] += 1
        if u == goal:
            break
        nu = node[u]
        gu = nu[_G]
        pu = int(nu[_PARENT])
        if u < n:
            ux, uy, qx, qy = vinfo[u, 0], vinfo[u, 1], vinfo[u, 2], vinfo[u, 3]
        else:
            ux, uy, qx, qy = end_xy[u - n, 0], end_xy[u - n, 1], 0.0, 0.0
        if pu < 0:
            ax, ay = ux - sx, uy - sy
        elif pu < n:
            ax, ay = ux - vinfo[pu, 0], uy - vinfo[pu, 1]
        else:
            ax, ay = ux - end_xy[pu - n, 0], uy - end_xy[pu - n, 1]
        if u < n:
            dg = to_goal[u]
            ok_goal = taut(qx, qy, gx - ux, gy - uy) and wraps(qx, qy, ax, ay, gx - ux, gy - uy)
        else:
            dg = end_goal[u - n]
            ok_goal = True
        if dg < math.inf and gu + dg < best_goal and ok_goal:
            best_goal = gu + dg
            goal_parent = u
            size = heap_update(keys, ids, pos, size, goal, best_goal)
        if u < n:
            # from the way u was reached, only segments that wrap round u's wall the same way
            for e in range(vg_start[u], vg_start[u + 1]):
                if bounded and (boxes[e, 0] > hi_x or boxes[e, 2] < lo_x or boxes[e, 1] > hi_y or boxes[e, 3] < lo_y):
                    continue                  # goal bounds: no corner that sees the goal lies that way
                # the segment's direction and length read in order (not a far corner's record)
                bx, by = seg[e, 0], seg[e, 1]
                if not wraps(qx, qy, ax, ay, bx, by):
                    continue
                v = np.int64(vg_dst[e])
                size = _reach(node, v, gu + seg[e, 2], u, fstamp, land, d_goal, link_land,
                              link_bound, keys, ids, pos, size, ux + bx, uy + by, gx, gy, best_goal, v)
            for k in range(seen_by_start[u], seen_by_start[u + 1]):      # link ends seeing u
                e = seen_by_end[k]
                bx, by = end_xy[e, 0] - ux, end_xy[e, 1] - uy
                if taut(qx, qy, bx, by) and wraps(qx, qy, ax, ay, bx, by):
                    size = _reach(node, n + e, gu + seen_by_dist[k], u, fstamp, end_land, d_goal, link_land,
                                  link_bound, keys, ids, pos, size, end_xy[e, 0], end_xy[e, 1], gx, gy, best_goal, e)
        else:
            e = u - n
            if link_to[e] >= 0:                               # take the link
                size = _reach(node, n + link_to[e], gu + link_cost[e], u, fstamp, end_land, d_goal,
                              link_land, link_bound, keys, ids, pos, size, end_xy[link_to[e], 0],
                              end_xy[link_to[e], 1], gx, gy, best_goal, link_to[e])
            for k in range(end_cstart[e], end_cstart[e + 1]):
                v = end_cids[k]
                if taut(vinfo[v, 2], vinfo[v, 3], ux - vinfo[v, 0], uy - vinfo[v, 1]):
                    size = _reach(node, v, gu + end_cdist[k], u, fstamp, land, d_goal, link_land,
                                  link_bound, keys, ids, pos, size, vinfo[v, 0], vinfo[v, 1], gx, gy, best_goal, v)
            for j in range(n_end):
                if j != e and end_end[e, j] < math.inf:
                    size = _reach(node, n + j, gu + end_end[e, j], u, fstamp, end_land, d_goal,
                                  link_land, link_bound, keys, ids, pos, size, end_xy[j, 0], end_xy[j, 1], gx, gy,
                                  best_goal, j)
    if goal_parent < 0 or best_goal == math.inf:
        return math.inf, np.zeros(0, dtype=np.int64)
    k = 0
    v = goal_parent
    while v >= 0:
        k += 1
        v = int(node[v, _PARENT])
    out = np.empty(k, dtype=np.int64)
    v = goal_parent
    for i in range(k - 1, -1, -1):
        out[i] = v
        v = int(node[v, _PARENT])
    return best_goal, out


@njit(cache=True)
def _reach(node, v, ng, parent, fstamp, land, d_goal, link_land, link_bound, keys, ids, pos, size, vx, vy, gx, gy,
           best, row):
    """Relax node ``v`` (at ``(vx, vy)``) to cost ``ng`` from ``parent``, estimated by ``land[row]``
    and the straight line to the goal ``(gx, gy)``; a new node that cannot
    beat ``best`` (the cheapest way to the goal yet; no links) is not queued. Returns the heap size."""
    nv = node[v]
    if nv[_STAMP] == fstamp:
        if pos[v] == CLOSED or ng >= nv[_G]:
            return size                    # consistent bounds: a closed node cannot improve
    else:
        straight = math.hypot(vx - gx, vy - gy)
        if link_bound.size == 0 and ng + straight >= best:
            return size
        nv[_STAMP] = fstamp
        pos[v] = NOT_IN_HEAP               # what an earlier query left there is not this one's
        nv[_H] = _h(land, d_goal, row, link_land, link_bound, straight)
    nv[_G] = ng
    nv[_PARENT] = parent
    return heap_update(keys, ids, pos, size, v, ng + nv[_H] * _TIE)


@njit(cache=True)
def grazed_corners(lattice, corner_mask):
    """The path ``lattice`` (K, 2) with every convex corner that a segment passes exactly
    through inserted (a path along a lattice line may graze several), so the caller can nudge
    each off the wall. Segments whose ends are not on the half-cell lattice are left alone."""
    hh, ww = corner_mask.shape
    cap = lattice.shape[0] * 4 + 16
    out = np.empty((cap, 2))
    m = 0
    out[0] = lattice[0]
    m = 1
    for i in range(lattice.shape[0] - 1):
        px2, py2 = 2 * lattice[i, 0], 2 * lattice[i, 1]
        qx2, qy2 = 2 * lattice[i + 1, 0], 2 * lattice[i + 1, 1]
        rx, ry, sx_, sy_ = round(px2), round(py2), round(qx2), round(qy2)
        if max(abs(px2 - rx), abs(py2 - ry), abs(qx2 - sx_), abs(qy2 - sy_)) < 1e-9:
            dx, dy = int(sx_ - rx), int(sy_ - ry)
            a, b = abs(dx), abs(dy)
            while b:
                a, b = b, a % b
            n = a
            for k in range(1, n):
                x2 = int(rx) + k * (dx // n)
                y2 = int(ry) + k * (dy // n)
                if x2 % 2 or y2 % 2:
                    continue
                vx, vy = x2 // 2, y2 // 2
                if 0 <= vx < ww and 0 <= vy < hh and corner_mask[vy, vx]:
                    if m + 2 >= out.shape[0]:
                        bigger = np.empty((out.shape[0] * 2, 2))
                        bigger[:m] = out[:m]
                        out = bigger
                    out[m, 0], out[m, 1] = vx, vy
                    m += 1
        if m + 2 >= out.shape[0]:
            bigger = np.empty((out.shape[0] * 2, 2))
            bigger[:m] = out[:m]
            out = bigger
        out[m] = lattice[i + 1]
        m += 1
    return out[:m].copy()


@njit(cache=True)
def visible_from(poly_start, edge_dst, edge_va, edge_vb, edge_rev, poly_vstart, poly_verts, points, polys,
                 px, py, target_poly, target_idx, targets, target_out, out, touched, stats):
    """Sweep the view from point (px, py) (inside every polygon of ``polys``) across the mesh:
    ``out[v]`` gets the distance to every vertex it sees (others untouched; pass them inf), and
    ``target_out[i]`` the distance to point ``targets[i]`` if it is seen (entry ``j`` of
    ``target_poly`` / ``target_idx`` says target ``target_idx[j]`` lies in polygon
    ``target_poly[j]``; a point on an edge has one entry per polygon). Returns ``n``: when
    ``touched`` is not empty its first ``n`` entries list the vertices written, so a caller
    sweeping many times can reset just those.

    Polyanya's cone projection with the root fixed, so each polygon is
    entered through a window (an interval of a portal) and the view narrows window by window;
    nothing is ordered, so a stack does."""
    cap = 256
    st_l = np.empty((cap, 4))                        # window ends (left, right) as seen from p
    st_poly = np.empty(cap, dtype=np.int64)
    st_edge = np.empty(cap, dtype=np.int64)          # the portal entered by (-1: p's own polygon)
    n = 0
    nt = 0
    record = touched.size > 0
    for p in polys:                                  # p's own polygons: seen whole, no window
        if n == st_poly.size:
            st_l, st_poly, st_edge = _grow_stack(st_l, st_poly, st_edge)
        st_l[n, 0], st_l[n, 1], st_l[n, 2], st_l[n, 3] = px, py, px, py
        st_poly[n] = p
        st_edge[n] = -1
        n += 1
    while n > 0:
        n -= 1
        stats[0] += 1
        poly = st_poly[n]
        whole = st_edge[n] < 0
        skip = -1 if whole else edge_rev[st_edge[n]]
        ldx, ldy = st_l[n, 0] - px, st_l[n, 1] - py
        rdx, rdy = st_l[n, 2] - px, st_l[n, 3] - py
        scale = abs(ldx) + abs(ldy) + abs(rdx) + abs(rdy) + 1.0
        tol = 1e-12 * scale * scale
        if not whole and abs(cross(ldx, ldy, rdx, rdy)) <= tol:
            continue                                 # a window seen edge-on shows nothing
        for i in range(poly_vstart[poly], poly_vstart[poly + 1]):
            v = poly_verts[i]
            vx, vy = points[v, 0] - px, points[v, 1] - py
            if whole or (cross(ldx, ldy, vx, vy) <= tol and cross(rdx, rdy, vx, vy) >= -tol):
                d = math.hypot(vx, vy)
                if d < out[v]:
                    if record and out[v] == math.inf:
                        touched[nt] = v
                        nt += 1
                    out[v] = d
        for j in range(target_poly.size):
            if target_poly[j] == poly:
                k = target_idx[j]
                tx, ty = targets[k, 0] - px, targets[k, 1] - py
                if whole or (cross(ldx, ldy, tx, ty) <= tol and cross(rdx, rdy, tx, ty) >= -tol):
                    target_out[k] = min(target_out[k], math.hypot(tx, ty))
        for e in range(poly_start[poly], poly_start[poly + 1]):
            if e == skip:
                continue
            a, b = edge_va[e], edge_vb[e]
            ax, ay, bx, by = points[a, 0], points[a, 1], points[b, 0], points[b, 1]
            if whole:
                lo, hi = 0.0, 1.0
            else:
                cl0 = cross(ldx, ldy, ax - px, ay - py)
                cl1 = cross(ldx, ldy, bx - px, by - py)
                cr0 = cross(rdx, rdy, ax - px, ay - py)
                cr1 = cross(rdx, rdy, bx - px, by - py)
                # the part of a→b inside the window: right of the left ray, left of the right ray
                lo_a, hi_a = positive_span(-cl0 + 2 * tol, -cl1 + 2 * tol, tol)
                lo_b, hi_b = positive_span(cr0 + 2 * tol, cr1 + 2 * tol, tol)
                lo, hi = max(lo_a, lo_b), min(hi_a, hi_b)
                if hi - lo <= 1e-12:
                    continue
            ux, uy = ax + lo * (bx - ax), ay + lo * (by - ay)
            wx, wy = ax + hi * (bx - ax), ay + hi * (by - ay)
            if abs(wx - ux) + abs(wy - uy) <= 1e-7:
                continue
            if cross(ux - px, uy - py, wx - px, wy - py) > 0:
                ux, uy, wx, wy = wx, wy, ux, uy
            if n == st_poly.size:
                st_l, st_poly, st_edge = _grow_stack(st_l, st_poly, st_edge)
            st_l[n, 0], st_l[n, 1], st_l[n, 2], st_l[n, 3] = ux, uy, wx, wy
            st_poly[n] = edge_dst[e]
            st_edge[n] = e
            n += 1
    return nt


@njit(cache=True)
def _grow_stack(st_l, st_poly, st_edge):
    m = st_poly.size * 2
    l2 = np.empty((m, 4))
    p2 = np.empty(m, dtype=np.int64)
    e2 = np.empty(m, dtype=np.int64)
    l2[:st_poly.size] = st_l
    p2[:st_poly.size] = st_poly
    e2[:st_poly.size] = st_edge
    return l2, p2, e2


def link_bounds(end_land: np.ndarray, d_goal: np.ndarray, link_to: np.ndarray, link_cost: np.ndarray) -> np.ndarray:
    """Per link end: a lower bound on reaching the goal by taking the link that starts there —
    its cost plus ``H`` of its far end, where ``H(b) = min(bound(b, goal), min over links j of
    bound(b, start_j) + cost_j + H(far end of j))`` (landmark bounds; Bellman-Ford over the few
    links). inf where no link starts."""
    n = len(link_to)
    if n == 0:
        return np.zeros(0)

    def bound(x, y):
        with np.errstate(invalid="ignore"):
            d = np.abs(x - y)
        return float(np.where(np.isfinite(d), d, 0.0).max(initial=0.0))
    to_goal = np.array([bound(end_land[e], d_goal) for e in range(n)])
    h = to_goal.copy()                                   # H of each end, refined by links
    for _ in range(n):
        changed = False
        for b in range(n):
            for a in range(n):
                if link_to[a] < 0:
                    continue
                v = bound(end_land[b], end_land[a]) + link_cost[a] + h[link_to[a]]
                if v < h[b] - 1e-12:
                    h[b] = v
                    changed = True
        if not changed:
            break
    return np.array([link_cost[a] + h[link_to[a]] if link_to[a] >= 0 else np.inf for a in range(n)])
