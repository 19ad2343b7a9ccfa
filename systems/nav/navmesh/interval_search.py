"""Exact any-angle search over a convex-polygon mesh (numba): Polyanya's interval search.

After Cui, Harabor & Grastien, "Compromise-free Pathfinding on a Navigation Mesh" (IJCAI 2017).
A search node is a *root* (the start or an obstacle corner the path bends at) plus an *interval*
on a portal that the root sees, leading into the polygon ``poly``. Expanding a node projects
the root's cone through that polygon: portal pieces inside the cone keep the root (observable
successors); pieces beside it are reachable only by bending at the interval's end, allowed when
that end is an obstacle corner (non-observable successors, root = that corner). ``h`` is the
length of the straight route root → interval → goal, so the first goal node popped is the
Euclidean shortest path. Roots are pruned Polyanya-style: a corner reached again with a larger
``g`` is not expanded again.

The navmesh bakes its landmarks with it (``record`` mode: exhaustive, every vertex's distance)
and the tests use it to cross-check the visibility-graph query; the query itself runs on the
visibility graph, which is faster once baked. Coordinates are lattice units (one per cell).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# node columns (one float64 row per node; ids are stored as floats, exact below 2**53)
_RX, _RY, _LX, _LY, _QX, _QY, _G, _ROOTV, _LV, _QV, _POLY, _EDGE, _PARENT = range(13)
_COLS = 13
_FINAL = -2.0             # POLY of the node that reaches the goal
_POINT = 1e-7            # lattice units: shorter intervals are points


@njit(cache=True)
def _cross(ax, ay, bx, by):
    return ax * by - ay * bx


@njit(cache=True)
def _interval_h(rx, ry, lx, ly, qx, qy, gx, gy):
    """Length of the shortest route root → some point of [L, Q] → goal (goal reflected across
    the interval's line when it is on the root's side, as the path must cross the line)."""
    dx, dy = qx - lx, qy - ly
    side_r = _cross(dx, dy, rx - lx, ry - ly)
    side_g = _cross(dx, dy, gx - lx, gy - ly)
    if abs(side_r) <= 1e-12 * (abs(dx) + abs(dy) + abs(rx - lx) + abs(ry - ly) + 1.0) ** 2:
        return min(math.hypot(lx - rx, ly - ry) + math.hypot(gx - lx, gy - ly),
                   math.hypot(qx - rx, qy - ry) + math.hypot(gx - qx, gy - qy))
    if (side_r > 0) == (side_g > 0):
        n2 = dx * dx + dy * dy
        if n2 > 0:
            t = ((gx - lx) * dx + (gy - ly) * dy) / n2
            px, py = lx + t * dx, ly + t * dy
            gx, gy = 2 * px - gx, 2 * py - gy
    o1 = _cross(gx - rx, gy - ry, lx - rx, ly - ry)
    o2 = _cross(gx - rx, gy - ry, qx - rx, qy - ry)
    if (o1 >= 0 and o2 <= 0) or (o1 <= 0 and o2 >= 0):
        return math.hypot(gx - rx, gy - ry)
    return min(math.hypot(lx - rx, ly - ry) + math.hypot(gx - lx, gy - ly),
               math.hypot(qx - rx, qy - ry) + math.hypot(gx - qx, gy - qy))


@njit(cache=True)
def _positive_span(c0, c1, tol):
    """The ``t`` range of [0, 1] where ``c0 + t·(c1 - c0) > 0`` (lo > hi when empty)."""
    p0 = c0 > tol
    p1 = c1 > tol
    if p0 and p1:
        return 0.0, 1.0
    if not p0 and not p1:
        return 1.0, 0.0
    t = c0 / (c0 - c1)
    if t < 1e-12:
        t = 0.0
    elif t > 1 - 1e-12:
        t = 1.0
    if p0:
        return 0.0, t
    return t, 1.0


@njit(cache=True)
def _snap(ax, ay, bx, by, ca, cb, t):
    """Point ``t`` of piece a→b, snapped onto an end (and taking its corner id) when within
    ``_POINT``: a ray through a lattice corner must keep the corner."""
    x, y = ax + t * (bx - ax), ay + t * (by - ay)
    if abs(x - ax) + abs(y - ay) <= _POINT:
        return ax, ay, ca
    if abs(x - bx) + abs(y - by) <= _POINT:
        return bx, by, cb
    return x, y, -1


@njit(cache=True)
def _grow(nodes, heap_f, heap_i, count):
    if count < nodes.shape[0]:
        return nodes, heap_f, heap_i
    cap = nodes.shape[0] * 2
    n2 = np.empty((cap, _COLS))
    n2[:count] = nodes[:count]
    f2 = np.empty(cap)
    f2[:heap_f.size] = heap_f
    i2 = np.empty(cap, dtype=np.int64)
    i2[:heap_i.size] = heap_i
    return n2, f2, i2


@njit(cache=True)
def _heap_push(heap_f, heap_i, size, f, node):
    i = size
    while i > 0:
        parent = (i - 1) >> 1
        if heap_f[parent] <= f:
            break
        heap_f[i] = heap_f[parent]
        heap_i[i] = heap_i[parent]
        i = parent
    heap_f[i] = f
    heap_i[i] = node
    return size + 1


@njit(cache=True)
def _heap_pop(heap_f, heap_i, size):
    top = heap_i[0]
    size -= 1
    if size > 0:
        f = heap_f[size]
        node = heap_i[size]
        i = 0
        while True:
            c = 2 * i + 1
            if c >= size:
                break
            if c + 1 < size and heap_f[c + 1] < heap_f[c]:
                c += 1
            if heap_f[c] >= f:
                break
            heap_f[i] = heap_f[c]
            heap_i[i] = heap_i[c]
            i = c
        heap_f[i] = f
        heap_i[i] = node
    return top, size


@njit(cache=True)
def _reach(px, py, rx, ry, lx, ly, qx, qy, g, gl, gq, turn_l, turn_q, collinear, tol):
    """Cost of reaching point ``p`` of the node's polygon, and how: 0 straight from the root,
    1 round the left end, 2 round the right end (inf, -1 when the node cannot reach it)."""
    if not collinear:
        cl = _cross(lx - rx, ly - ry, px - rx, py - ry)
        cq = _cross(qx - rx, qy - ry, px - rx, py - ry)
        if cl <= tol and cq >= -tol:
            return g + math.hypot(px - rx, py - ry), 0
        if cl > tol and turn_l >= 0:
            return gl + math.hypot(px - lx, py - ly), 1
        if cq < -tol and turn_q >= 0:
            return gq + math.hypot(px - qx, py - qy), 2
        return math.inf, -1
    if turn_l >= 0:
        return gl + math.hypot(px - lx, py - ly), 1
    if turn_q >= 0:
        return gq + math.hypot(px - qx, py - qy), 2
    return math.inf, -1


@njit(cache=True)
def _turn(v, gv, root_best, root_stamp, stamp, record):
    """Whether a path may bend at corner ``v`` with cost ``gv`` (not when ``v`` was reached
    cheaper already); records the best cost."""
    if v < 0:
        return -1
    if root_stamp[v] == stamp and gv > root_best[v] + 1e-9:
        return -1
    if root_stamp[v] != stamp or gv < root_best[v]:
        root_best[v] = gv
    root_stamp[v] = stamp
    if record.size > 0 and gv < record[v]:
        record[v] = gv
    return v


@njit(cache=True)
def interval_search(poly_start, edge_dst, edge_seg, edge_rev, edge_va, edge_vb, is_corner,
                    poly_vstart, poly_verts, points, start_polys, goal_polys, sx, sy, gx, gy,
                    root_best, root_stamp, stamp, stats, record, start_vertex=-1):
    """Shortest path from ``(sx, sy)`` (inside every polygon of ``start_polys``) to ``(gx, gy)``
    (inside ``goal_polys``), lattice coordinates. Returns ``(length, points (K, 2) start..goal,
    polygons crossed)``; length is inf and both arrays empty when the goal is unreachable.

    Mesh: portal ``e`` leads from its polygon (CSR ``poly_start``) into ``edge_dst[e]`` across
    the segment ``edge_seg[e]`` (x0, y0, x1, y1) between vertices ``edge_va/vb[e]``; ``edge_rev``
    is the same portal seen from the other side; ``is_corner[v]``: a path may bend at vertex v;
    ``poly_verts`` (CSR ``poly_vstart``) each polygon's vertices, ``points`` their coordinates.
    ``root_best`` / ``root_stamp``: per-vertex scratch reused across calls (``stamp`` new each
    call). ``start_vertex``: the vertex the start sits on, if any (so it is one root, not two). ``record`` (size V + 1, or 0): when given, the search runs to exhaustion (Dijkstra
    order) and ``record[v]`` receives every vertex's distance from the start, ``record[V]`` the
    goal's (for visibility sweeps pass ``is_corner`` all False: nothing bends, so only what the
    start sees is reached)."""
    for p in start_polys:
        for q in goal_polys:
            if p == q and record.size == 0:
                pts = np.empty((2, 2))
                pts[0, 0], pts[0, 1], pts[1, 0], pts[1, 1] = sx, sy, gx, gy
                polys = np.empty(1, dtype=np.int64)
                polys[0] = p
                return math.hypot(gx - sx, gy - sy), pts, polys
    cap = 1024
    nodes = np.empty((cap, _COLS))
    heap_f = np.empty(cap)
    heap_i = np.empty(cap, dtype=np.int64)
    count = 0
    hsize = 0
    # start: the whole of every portal of every polygon holding the start, root = start
    if start_vertex >= 0:
        root_best[start_vertex] = 0.0
        root_stamp[start_vertex] = stamp
    for p in start_polys:
        if record.size > 0:
            for i in range(poly_vstart[p], poly_vstart[p + 1]):
                v = poly_verts[i]
                record[v] = min(record[v], math.hypot(points[v, 0] - sx, points[v, 1] - sy))
        for e in range(poly_start[p], poly_start[p + 1]):
            ax, ay, bx, by = edge_seg[e, 0], edge_seg[e, 1], edge_seg[e, 2], edge_seg[e, 3]
            ca, cb = edge_va[e], edge_vb[e]
            if _cross(ax - sx, ay - sy, bx - sx, by - sy) > 0:      # b is left of a
                ax, ay, bx, by, ca, cb = bx, by, ax, ay, cb, ca
            nodes, heap_f, heap_i = _grow(nodes, heap_f, heap_i, count)
            row = nodes[count]
            row[_RX], row[_RY], row[_LX], row[_LY], row[_QX], row[_QY] = sx, sy, ax, ay, bx, by
            row[_G], row[_ROOTV], row[_LV], row[_QV] = 0.0, start_vertex, ca, cb
            row[_POLY], row[_EDGE], row[_PARENT] = edge_dst[e], e, -1.0
            f = 0.0 if record.size > 0 else _interval_h(sx, sy, ax, ay, bx, by, gx, gy)
            hsize = _heap_push(heap_f, heap_i, hsize, f, count)
            count += 1
    final = -1
    while hsize > 0:
        cur, hsize = _heap_pop(heap_f, heap_i, hsize)
        stats[1] += 1
        row = nodes[cur]
        if row[_POLY] == _FINAL:
            final = cur
            break
        rootv = int(row[_ROOTV])
        g = row[_G]
        if rootv >= 0 and root_stamp[rootv] == stamp and g > root_best[rootv] + 1e-9:
            continue                                     # the corner was reached cheaper since
        stats[2] += 1
        rx, ry, lx, ly, qx, qy = row[_RX], row[_RY], row[_LX], row[_LY], row[_QX], row[_QY]
        lv, qv = int(row[_LV]), int(row[_QV])
        poly = int(row[_POLY])
        skip = edge_rev[int(row[_EDGE])]
        ldx, ldy = lx - rx, ly - ry
        qdx, qdy = qx - rx, qy - ry
        scale = (abs(ldx) + abs(ldy) + abs(qdx) + abs(qdy) + 1.0)
        tol = 1e-12 * scale * scale
        collinear = abs(_cross(ldx, ldy, qdx, qdy)) <= tol
        # where the path may bend: at an interval end that is a corner (a collinear interval
        # only at its nearer end), unless that corner was reached cheaper
        can_l = lv >= 0 and is_corner[lv]
        can_q = qv >= 0 and is_corner[qv]
        if collinear:
            if math.hypot(ldx, ldy) <= math.hypot(qdx, qdy):
                can_q = False
            else:
                can_l = False
        gl = g + math.hypot(ldx, ldy)
        gq = g + math.hypot(qdx, qdy)
        turn_l = _turn(lv if can_l else -1, gl, root_best, root_stamp, stamp, record)
        turn_q = _turn(qv if can_q else -1, gq, root_best, root_stamp, stamp, record)
        if record.size > 0:
            for i in range(poly_vstart[poly], poly_vstart[poly + 1]):
                v = poly_verts[i]
                c, _ = _reach(points[v, 0], points[v, 1], rx, ry, lx, ly, qx, qy, g, gl, gq,
                              turn_l, turn_q, collinear, tol)
                if c < record[v]:
                    record[v] = c
        for q in goal_polys:
            if q != poly:
                continue
            # the goal as a point of this polygon: seen through the interval, or round a corner
            best, via = _reach(gx, gy, rx, ry, lx, ly, qx, qy, g, gl, gq, turn_l, turn_q, collinear, tol)
            if record.size > 0:
                record[record.size - 1] = min(record[record.size - 1], best)
            elif best < math.inf:
                nodes, heap_f, heap_i = _grow(nodes, heap_f, heap_i, count)
                nr = nodes[count]
                nr[_RX], nr[_RY] = (rx, ry) if via == 0 else ((lx, ly) if via == 1 else (qx, qy))
                nr[_LX], nr[_LY], nr[_QX], nr[_QY] = gx, gy, gx, gy
                nr[_G] = best - math.hypot(gx - nr[_RX], gy - nr[_RY])
                nr[_ROOTV], nr[_LV], nr[_QV] = -1.0, -1.0, -1.0
                nr[_POLY], nr[_EDGE], nr[_PARENT] = _FINAL, -1.0, cur
                hsize = _heap_push(heap_f, heap_i, hsize, best, count)
                count += 1
            break
        for e in range(poly_start[poly], poly_start[poly + 1]):
            if e == skip:
                continue
            ax, ay, bx, by = edge_seg[e, 0], edge_seg[e, 1], edge_seg[e, 2], edge_seg[e, 3]
            ca, cb = edge_va[e], edge_vb[e]
            dst = edge_dst[e]
            # three parts of the piece a→b: in the cone, left of it, right of it (t ranges)
            if collinear:
                lo_l, hi_l = (0.0, 1.0) if turn_l >= 0 else (1.0, 0.0)
                lo_q, hi_q = (0.0, 1.0) if turn_q >= 0 else (1.0, 0.0)
                lo_o, hi_o = 1.0, 0.0
            else:
                cl0 = _cross(ldx, ldy, ax - rx, ay - ry)
                cl1 = _cross(ldx, ldy, bx - rx, by - ry)
                cq0 = _cross(qdx, qdy, ax - rx, ay - ry)
                cq1 = _cross(qdx, qdy, bx - rx, by - ry)
                lo_l, hi_l = _positive_span(cl0, cl1, tol)
                lo_q, hi_q = _positive_span(-cq0, -cq1, tol)
                lo_nl, hi_nl = _positive_span(-cl0 + 2 * tol, -cl1 + 2 * tol, tol)
                lo_nq, hi_nq = _positive_span(cq0 + 2 * tol, cq1 + 2 * tol, tol)
                lo_o, hi_o = max(lo_nl, lo_nq), min(hi_nl, hi_nq)
                if turn_l < 0:
                    lo_l, hi_l = 1.0, 0.0
                if turn_q < 0:
                    lo_q, hi_q = 1.0, 0.0
            for part in range(3):
                if part == 0:
                    lo, hi = lo_o, hi_o
                    prx, pry, pg, prv = rx, ry, g, rootv
                elif part == 1:
                    lo, hi = lo_l, hi_l
                    prx, pry, pg, prv = lx, ly, gl, turn_l
                else:
                    lo, hi = lo_q, hi_q
                    prx, pry, pg, prv = qx, qy, gq, turn_q
                if lo > hi:
                    continue
                ux, uy, cu = _snap(ax, ay, bx, by, ca, cb, lo)
                vx, vy, cv = _snap(ax, ay, bx, by, ca, cb, hi)
                if abs(vx - ux) + abs(vy - uy) <= _POINT:
                    # a single point: the way on is bending round it, so only a corner counts
                    if cu < 0 or not is_corner[cu]:
                        cu = cv
                    if cu < 0 or not is_corner[cu]:
                        continue
                    cv = cu
                if _cross(ux - prx, uy - pry, vx - prx, vy - pry) > 0:     # v is left of u
                    ux, uy, vx, vy, cu, cv = vx, vy, ux, uy, cv, cu
                nodes, heap_f, heap_i = _grow(nodes, heap_f, heap_i, count)
                nr = nodes[count]
                nr[_RX], nr[_RY], nr[_LX], nr[_LY], nr[_QX], nr[_QY] = prx, pry, ux, uy, vx, vy
                nr[_G], nr[_ROOTV], nr[_LV], nr[_QV] = pg, prv, cu, cv
                nr[_POLY], nr[_EDGE], nr[_PARENT] = dst, e, cur
                if record.size > 0:
                    f = pg                               # exhaustive: Dijkstra order
                else:
                    f = pg + _interval_h(prx, pry, ux, uy, vx, vy, gx, gy)
                hsize = _heap_push(heap_f, heap_i, hsize, f, count)
                count += 1
    stats[0] = count
    if final < 0:
        return math.inf, np.zeros((0, 2)), np.zeros(0, dtype=np.int64)
    # walk back: a new point wherever the root changes; polygons in order of crossing
    n = 0
    k = final
    while k >= 0:
        n += 1
        k = int(nodes[k, _PARENT])
    chain = np.empty(n, dtype=np.int64)
    k = final
    for i in range(n - 1, -1, -1):
        chain[i] = k
        k = int(nodes[k, _PARENT])
    polys = np.empty(n, dtype=np.int64)
    polys[0] = edge_dst[edge_rev[int(nodes[chain[0], _EDGE])]]     # the start polygon used
    for i in range(1, n):
        polys[i] = int(nodes[chain[i - 1], _POLY])
    # path points: the start, every change of root, the goal; plus every corner the path
    # only grazes (an interval end on the segment), so callers can nudge it off the wall
    turn = np.empty(n + 1, dtype=np.int64)       # chain index where each root starts
    rootx = np.empty(n + 2)
    rooty = np.empty(n + 2)
    r = 0
    for i in range(n):
        row = nodes[chain[i]]
        if r == 0 or row[_RX] != rootx[r - 1] or row[_RY] != rooty[r - 1]:
            rootx[r], rooty[r] = row[_RX], row[_RY]
            turn[r] = i
            r += 1
    rootx[r], rooty[r] = gx, gy
    turn[r] = n
    # corners touched by the chain's intervals (a collinear run may touch them from a node
    # rooted one bend earlier, so test every segment against all of them)
    cand = np.empty((2 * n, 2))
    nc = 0
    for i in range(n):
        row = nodes[chain[i]]
        for end in range(2):
            v = int(row[_LV + end * (_QV - _LV)])
            if v >= 0 and is_corner[v]:
                cand[nc, 0], cand[nc, 1] = row[_LX + 2 * end], row[_LY + 2 * end]
                nc += 1
    pts = np.empty((r + 2 + 2 * n, 2))
    ts = np.empty(nc)
    m = 0
    for j in range(r):
        ax, ay, bx, by = rootx[j], rooty[j], rootx[j + 1], rooty[j + 1]
        pts[m, 0], pts[m, 1] = ax, ay
        m += 1
        dx, dy = bx - ax, by - ay
        d2 = dx * dx + dy * dy
        if d2 <= 0:
            continue
        for c in range(nc):
            px, py = cand[c, 0], cand[c, 1]
            t = ((px - ax) * dx + (py - ay) * dy) / d2
            if t <= 1e-9 or t >= 1 - 1e-9 or abs(_cross(dx, dy, px - ax, py - ay)) > 1e-9 * d2:
                t = -1.0
            ts[c] = t
        order = np.argsort(ts)
        last = -1.0
        for c in order:
            if ts[c] > 0 and ts[c] - last > 1e-12 and m < pts.shape[0] - 1 - (r - j):
                pts[m, 0], pts[m, 1] = cand[c, 0], cand[c, 1]
                m += 1
                last = ts[c]
    pts[m, 0], pts[m, 1] = gx, gy
    m += 1
    length = 0.0
    for j in range(m - 1):
        length += math.hypot(pts[j + 1, 0] - pts[j, 0], pts[j + 1, 1] - pts[j, 1])
    return length, pts[:m].copy(), polys
