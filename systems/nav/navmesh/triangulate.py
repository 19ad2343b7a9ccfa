"""Bake stage 6: a triangulation of the walkable area whose vertices all lie on its boundary.

The navmesh's rectangles are good polygons for area costs and overlays, but their corners in
open ground split every line of sight that passes them, which makes an exact any-angle search
over them slow. This stage triangulates the same walkable area with every vertex on the boundary
(walls, map edge, cliffs) instead — the role of Recast's contour + polygon stages.

How: trace the boundary as straight segments between the lattice points where it turns or
branches (Recast's contours, exact: nothing is simplified away), Delaunay-triangulate those
points (scipy/Qhull), and split any segment the triangulation misses at a lattice point in its
middle until all are edges (a conforming Delaunay triangulation; a unit lattice edge's
diametral circle holds no other lattice point, so splitting always ends). Then no triangle
crosses the boundary and a triangle is walkable iff its centroid is. Triangles joined across a
cliff edge (height step above ``max_climb``) are not neighbours.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["boundary_corners", "triangulate_walkable", "triangles_holding", "portal_tables"]


#: bits of ``cliff_dirs``: which of the four unit edges leaving a lattice point is a cliff
CLIFF_UP, CLIFF_DOWN, CLIFF_LEFT, CLIFF_RIGHT = 1, 2, 4, 8


def _unit_edges(covered: np.ndarray, height: np.ndarray, max_climb: float, walls: bool):
    """``(up, down, left, right)`` over the ``(H+1, W+1)`` lattice: whether the unit edge leaving
    each point that way is a cliff (walkable both sides, a height step above ``max_climb``) — or,
    with ``walls``, any edge of the walkable area."""
    h, w = covered.shape
    pad = np.zeros((h + 2, w + 2), dtype=bool)
    pad[1:-1, 1:-1] = covered
    hpad = np.zeros((h + 2, w + 2))
    hpad[1:-1, 1:-1] = np.where(covered, height, 0.0)

    def border(a, b, ha, hb):
        cliff = a & b & (np.abs(ha - hb) > max_climb)
        return cliff | (a != b) if walls else cliff
    vertical = border(pad[:, :-1], pad[:, 1:], hpad[:, :-1], hpad[:, 1:])      # [row + 1, x]
    horizontal = border(pad[:-1, :], pad[1:, :], hpad[:-1, :], hpad[1:, :])    # [y, column + 1]
    return vertical[1:, :], vertical[:-1, :], horizontal[:, :-1], horizontal[:, 1:]


def boundary_corners(covered: np.ndarray, height: np.ndarray, max_climb: float):
    """``(corner, cliff_dirs)`` over the ``(H+1, W+1)`` lattice: the convex corners of the
    walkable area, where a shortest path may bend (three of the four cells around are walkable,
    or all four with a cliff ending or turning there), and per point the bits of the cliff
    edges leaving it (``CLIFF_*``)."""
    h, w = covered.shape
    pad = np.zeros((h + 2, w + 2), dtype=bool)
    pad[1:-1, 1:-1] = covered
    around = pad[:-1, :-1].astype(np.int8) + pad[:-1, 1:] + pad[1:, :-1] + pad[1:, 1:]
    up, down, left, right = _unit_edges(covered, height, max_climb, walls=False)
    cliff_dirs = (up * CLIFF_UP | down * CLIFF_DOWN | left * CLIFF_LEFT | right * CLIFF_RIGHT).astype(np.uint8)
    edges = up.astype(np.int8) + down + left + right
    straight = (edges == 2) & ((up & down) | (left & right))
    corner = (around == 3) | ((around == 4) & (edges > 0) & ~straight)
    return corner, cliff_dirs


def triangulate_walkable(covered: np.ndarray, height: np.ndarray, max_climb: float):
    """Triangles over the walkable cells. Returns ``(points (V, 2) float lattice coordinates,
    triangles (T, 3) vertex ids, neighbours (T, 3): the triangle across the edge opposite each
    vertex, -1 for none / a wall / a cliff, touching (T, 3): the same but keeping cliffs (for
    point location), cell_triangle (H, W) int32: a triangle holding each walkable cell's centre,
    -1 elsewhere)``."""
    h, w = covered.shape
    points, segments = _outline(covered, height, max_climb)
    none = np.zeros((0, 3), np.int64)
    empty = (points, none, none, none, np.full((h, w), -1, np.int32))
    if len(points) < 3:
        return empty
    points, tri = _conforming_delaunay(points, segments, w, h)
    simplices = tri.simplices.astype(np.int64)
    centroid = points[simplices].mean(axis=1)
    cx = np.clip(np.floor(centroid[:, 0]).astype(np.int64), 0, w - 1)
    cy = np.clip(np.floor(centroid[:, 1]).astype(np.int64), 0, h - 1)
    keep = covered[cy, cx]
    new_id = np.full(len(simplices), -1, dtype=np.int64)
    new_id[keep] = np.arange(int(keep.sum()))
    triangles = simplices[keep]
    nb = tri.neighbors[keep].astype(np.int64)
    neighbours = np.where(nb >= 0, new_id[np.maximum(nb, 0)], -1)
    touching = neighbours.copy()
    _cut_cliffs(points, triangles, neighbours, covered, height, max_climb)
    points, triangles = _split_sheets(points, triangles, neighbours)
    yy, xx = np.nonzero(covered)
    found = tri.find_simplex(np.c_[xx + 0.5, yy + 0.5])
    cell_triangle = np.full((h, w), -1, dtype=np.int32)
    cell_triangle[yy, xx] = np.where(found >= 0, new_id[np.maximum(found, 0)], -1)
    return points, triangles, neighbours, touching, cell_triangle


def _outline(covered, height, max_climb):
    """The walkable area's boundary as straight segments: ``(points (K, 2) float lattice
    coordinates of every point where it turns or branches, segments (S, 2) point ids)``."""
    h, w = covered.shape
    up, down, left, right = _unit_edges(covered, height, max_climb, walls=True)
    count = right.astype(np.int8) + left + up + down
    straight = (count == 2) & ((left & right) | (up & down))
    keep = (count > 0) & ~straight
    vy, vx = np.nonzero(keep)                          # row-major: sorted by (y, x)
    points = np.c_[vx, vy].astype(np.float64)
    ids = np.full((h + 1, w + 1), -1, dtype=np.int64)
    ids[vy, vx] = np.arange(len(vx))
    segs = []
    # along rows: from each kept point with an edge to its right to the next kept point
    starts = np.flatnonzero(right[vy, vx])
    segs.append(np.c_[starts, starts + 1])
    # along columns: the same in column-major order
    order = np.lexsort((vy, vx))
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    starts = np.flatnonzero(up[vy, vx])
    segs.append(np.c_[starts, order[rank[starts] + 1]])
    return points, np.concatenate(segs).astype(np.int64)


def _conforming_delaunay(points, segments, w, h):
    """Delaunay triangulation of ``points`` in which every segment is an edge: a missing segment
    is split at the lattice point nearest its middle and the triangulation redone."""
    from scipy.spatial import Delaunay

    ids = {}
    for i, (x, y) in enumerate(points.astype(np.int64)):
        ids[(int(x), int(y))] = i
    points = [tuple(p) for p in points]
    segments = [tuple(sg) for sg in segments]
    for _ in range(64):
        pts = np.array(points, dtype=np.float64)
        tri = Delaunay(pts)
        simp = tri.simplices.astype(np.int64)
        n = len(pts)
        e = np.concatenate([simp[:, [0, 1]], simp[:, [1, 2]], simp[:, [2, 0]]])
        have = np.unique(np.minimum(e[:, 0], e[:, 1]) * n + np.maximum(e[:, 0], e[:, 1]))
        sg = np.array(segments, dtype=np.int64)
        want = np.minimum(sg[:, 0], sg[:, 1]) * n + np.maximum(sg[:, 0], sg[:, 1])
        missing = np.flatnonzero(~np.isin(want, have))
        if len(missing) == 0:
            return pts, tri
        keep = [segments[i] for i in np.flatnonzero(np.isin(want, have))]
        for i in missing:
            a, b = segments[i]
            (ax, ay), (bx, by) = points[a], points[b]
            length = int(abs(bx - ax) + abs(by - ay))
            if length < 2:
                raise RuntimeError("a unit boundary edge is missing from the Delaunay triangulation")
            k = length // 2
            mx = int(ax + np.sign(bx - ax) * k)
            my = int(ay + np.sign(by - ay) * k)
            m = ids.get((mx, my))
            if m is None:
                m = ids[(mx, my)] = len(points)
                points.append((float(mx), float(my)))
            keep += [(a, m), (m, b)]
        segments = keep
    raise RuntimeError("boundary segments did not converge into the triangulation")


def _split_sheets(points, triangles, neighbours):
    """Give each vertex one copy per *sheet* around it — the triangles joined to each other
    through edges at that vertex — so that a vertex on a cliff (or where two walls touch
    diagonally) is two vertices: a path bending there stays on the side it came from."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    t_count = len(triangles)
    rows, cols = [], []
    for k in range(3):
        t = np.flatnonzero(neighbours[:, k] >= 0)
        n = neighbours[t, k]
        for j in ((k + 1) % 3, (k + 2) % 3):           # the two slots on the shared edge
            v = triangles[t, j]
            j2 = np.argmax(triangles[n] == v[:, None], axis=1)
            rows.append(3 * t + j)
            cols.append(3 * n + j2)
    r = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    c = np.concatenate(cols) if cols else np.zeros(0, np.int64)
    graph = coo_matrix((np.ones(len(r)), (r, c)), shape=(3 * t_count, 3 * t_count))
    _, label = connected_components(graph, directed=False)
    first = np.full(label.max() + 1 if len(label) else 0, -1, dtype=np.int64)
    first[label[::-1]] = np.arange(3 * t_count)[::-1]
    new_points = points[triangles.reshape(-1)[first]]
    return new_points, label.reshape(t_count, 3).astype(np.int64)


def _cut_cliffs(points, triangles, neighbours, covered, height, max_climb) -> None:
    """Drop adjacency across axis-aligned edges (boundary segments) whose two sides differ in
    height by more than max_climb (judged at the segment's first cell)."""
    for j in range(3):
        a = points[triangles[:, (j + 1) % 3]]
        b = points[triangles[:, (j + 2) % 3]]
        d = b - a
        unit = ((d[:, 0] == 0) | (d[:, 1] == 0)) & (neighbours[:, j] >= 0)
        if not unit.any():
            continue
        lo = np.minimum(a, b)[unit].astype(np.int64)
        vertical = d[unit, 0] == 0
        # the two cells either side of the edge's first unit step from lattice point lo
        c1x = np.where(vertical, lo[:, 0] - 1, lo[:, 0])
        c1y = np.where(vertical, lo[:, 1], lo[:, 1] - 1)
        c2x, c2y = lo[:, 0], lo[:, 1]
        hh, ww = covered.shape
        ok1 = (c1x >= 0) & (c1y >= 0)
        ok2 = (c2x < ww) & (c2y < hh)
        h1 = height[np.clip(c1y, 0, hh - 1), np.clip(c1x, 0, ww - 1)]
        h2 = height[np.clip(c2y, 0, hh - 1), np.clip(c2x, 0, ww - 1)]
        cut = ok1 & ok2 & (np.abs(h1 - h2) > max_climb)
        rows = np.flatnonzero(unit)[cut]
        neighbours[rows, j] = -1


@njit(cache=True)
def _locate_triangle(points, triangles, touching, start, px, py):
    """Walk from triangle ``start`` towards point ``(px, py)``; returns the triangle holding it
    (-1 if the walk leaves the mesh)."""
    t = start
    for _ in range(10000):
        moved = False
        for j in range(3):
            a = triangles[t, (j + 1) % 3]
            b = triangles[t, (j + 2) % 3]
            c = triangles[t, j]
            ax, ay = points[a, 0], points[a, 1]
            bx, by = points[b, 0], points[b, 1]
            side_p = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
            side_c = (bx - ax) * (points[c, 1] - ay) - (by - ay) * (points[c, 0] - ax)
            if side_p * side_c < 0 and abs(side_p) > 1e-12:
                n = touching[t, j]
                if n < 0:
                    return -1
                t = n
                moved = True
                break
        if not moved:
            return t
    return -1


@njit(cache=True)
def triangles_holding(points, triangles, touching, neighbours, cell_triangle, x, y):
    """Triangles holding point (x, y): the one a walk from its cell's triangle ends in, plus the
    neighbours across any edge the point lies on (empty off the mesh)."""
    h, w = cell_triangle.shape
    cx = min(max(int(math.floor(x)), 0), w - 1)
    cy = min(max(int(math.floor(y)), 0), h - 1)
    out = np.empty(4, dtype=np.int64)
    t0 = cell_triangle[cy, cx]
    if t0 < 0:
        return out[:0]
    t = _locate_triangle(points, triangles, touching, t0, x, y)
    if t < 0:
        return out[:0]
    out[0] = t
    n = 1
    for j in range(3):
        a = triangles[t, (j + 1) % 3]
        b = triangles[t, (j + 2) % 3]
        side = (points[b, 0] - points[a, 0]) * (y - points[a, 1]) - (points[b, 1] - points[a, 1]) * (x - points[a, 0])
        if abs(side) <= 1e-9 and neighbours[t, j] >= 0:
            out[n] = neighbours[t, j]
            n += 1
    return out[:n]


@njit(cache=True)
def triangles_around(points, triangles, touching, neighbours, cell_triangle, fan_start, fan, x, y):
    """``triangles_holding``, but every triangle round the vertex when (x, y) is a mesh vertex
    (so a sweep from there looks every way); ``fan_start``/``fan``: the triangles per vertex."""
    held = triangles_holding(points, triangles, touching, neighbours, cell_triangle, x, y)
    if held.size:
        for j in range(3):
            v = triangles[held[0], j]
            if abs(points[v, 0] - x) <= 1e-9 and abs(points[v, 1] - y) <= 1e-9:
                return fan[fan_start[v]:fan_start[v + 1]].copy()
    return held


def portal_tables(points: np.ndarray, triangles: np.ndarray, neighbours: np.ndarray,
                  corner: np.ndarray) -> dict:
    """Flat arrays for the view sweeps: portals grouped by triangle (CSR ``start``), their far
    triangle ``dst``, end vertices ``va``/``vb``, reverse portal ``rev``;
    ``is_corner`` per vertex; each triangle's vertices (CSR ``vstart``/``verts``)."""
    src, side = np.nonzero(neighbours >= 0)               # row-major: grouped by source triangle
    dst = neighbours[src, side]
    va = triangles[src, (side + 1) % 3]
    vb = triangles[src, (side + 2) % 3]
    edge_id = np.full(neighbours.shape, -1, dtype=np.int64)
    edge_id[src, side] = np.arange(len(src))
    back = np.argmax(neighbours[dst] == src[:, None], axis=1) if len(src) else np.zeros(0, np.int64)
    vx, vy = points[:, 0].astype(np.int64), points[:, 1].astype(np.int64)
    return {"start": np.searchsorted(src, np.arange(len(triangles) + 1)).astype(np.int64),
            "dst": dst.astype(np.int64),
            "rev": edge_id[dst, back].astype(np.int64), "va": va.astype(np.int64), "vb": vb.astype(np.int64),
            "is_corner": np.ascontiguousarray(corner[vy, vx]) if len(points) else np.zeros(0, bool),
            "vstart": np.arange(0, 3 * len(triangles) + 1, 3, dtype=np.int64),
            "verts": np.ascontiguousarray(triangles.reshape(-1)).astype(np.int64),
            "points": np.ascontiguousarray(points, dtype=np.float64)}
