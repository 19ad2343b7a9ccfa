"""Landmarks (ALT) for the navmesh's visibility-graph search: a strong admissible heuristic.

Straight-line distance is a weak estimate on maps with long detours (water, cliffs): a search
then explores most of the map. With exact shortest distances ``d(L, v)`` from a few landmarks
``L`` to every mesh vertex, the triangle inequality gives ``d(v, goal) ≥ |d(L, goal) − d(L, v)|``
(Goldberg & Harrelson 2005). Landmarks sit on convex corners, picked farthest-first; each one's
distances come from a view sweep at the landmark plus ``csr_dijkstra`` over the visibility graph (which
holds every shortest path between corners). Because a landmark is a corner, the last bend of its
shortest path to any point is a corner that point sees, so a sweep from the goal gives the
goal's landmark distances exactly.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..kernels.csr import csr_dijkstra
from .mesh_types import QueryTables
from .visibility import visible_from

__all__ = ["bake_landmarks", "triangle_components", "Scratch"]


class Scratch:
    """Per-vertex scratch for the numba searches (reused across queries; not thread-safe)."""

    def __init__(self, vertex_count: int) -> None:
        self.node = np.zeros((vertex_count, 4))              # visibility A*: g, h, parent, stamp
        self.query = 0
        self.stats = np.zeros(3, dtype=np.int64)
        self._heap: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def heap(self, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """An open list of ``size`` entries (keys, node ids, positions), kept between queries."""
        if self._heap is None or len(self._heap[0]) != size:
            self._heap = (np.empty(size), np.empty(size, dtype=np.int64), np.full(size, -1, dtype=np.int64))
        return self._heap

    def next_stamp(self) -> int:
        """A fresh stamp for one search."""
        self.query += 1
        return self.query


_NO_POLYS = np.zeros(0, dtype=np.int64)


def distances_from(tables: QueryTables, bends, ends, corner: int, scratch: Scratch) -> np.ndarray:
    """Exact shortest distance from corner ``corner`` to every corner (inf for other vertices
    and unreachable corners): Dijkstra along ``bends`` (``(start, dst, length)``) gives every
    corner a path can bend at; one pass along ``ends`` then adds last segments that stop at a
    corner without bending."""
    pts = tables.points
    fan_start, fan = tables.fans
    seen = np.full(len(pts), np.inf)
    visible_from(tables.start, tables.dst, tables.va, tables.vb, tables.rev, tables.vstart,
                 tables.verts, pts, fan[fan_start[corner]:fan_start[corner + 1]], float(pts[corner, 0]),
                 float(pts[corner, 1]), _NO_POLYS, _NO_POLYS, np.zeros((0, 2)), np.zeros(0), seen, _NO_POLYS,
                 scratch.stats)
    seen[corner] = 0.0
    sources = np.flatnonzero(np.isfinite(seen))
    dist, _ = csr_dijkstra(bends[0], bends[1], bends[2], sources, seen[sources])
    return _last_segments(ends[0], ends[1], pts, tables.corner_ids, dist)


@njit(cache=True)
def _last_segments(end_start, end_dst, points, corners, dist):
    """``dist`` improved by one last straight segment from a corner into each corner."""
    out = dist.copy()
    for v in corners:
        for e in range(end_start[v], end_start[v + 1]):
            u = end_dst[e]
            d = dist[u] + math.hypot(points[v, 0] - points[u, 0], points[v, 1] - points[u, 1])
            if d < out[v]:
                out[v] = d
    return out


def triangle_components(tables: QueryTables) -> np.ndarray:
    """Connected component of each triangle (through portals)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    n_tri = len(tables.start) - 1
    src = np.repeat(np.arange(n_tri), np.diff(tables.start))
    graph = csr_matrix((np.ones(len(src)), (src, tables.dst)), shape=(n_tri, n_tri))
    return connected_components(graph, directed=False)[1]


def bake_landmarks(tables: QueryTables, bends, ends, count: int = 8, progress=None) -> np.ndarray:
    """``(V, count)`` exact distances from ``count`` corner landmarks picked farthest-first in
    the connected part of the mesh with the most corners (each new landmark is the corner
    farthest from all before it). Elsewhere the bound is 0 and the search falls back to
    straight-line distance. ``progress(i, count)`` is called per landmark."""
    pts = tables.points
    corners = np.flatnonzero(tables.is_corner)
    if count <= 0 or len(corners) == 0:
        return np.zeros((len(pts), 0))
    label = tables.component
    fan_start, fan = tables.fans
    # the bend graph with its segment lengths, for Dijkstra
    src = np.repeat(np.arange(len(bends[0]) - 1), np.diff(bends[0]))
    bends = (bends[0], bends[1], np.hypot(*(pts[bends[1]] - pts[src]).T))
    corner_label = label[fan[fan_start[corners]]]
    corners = corners[corner_label == np.bincount(corner_label).argmax()]
    scratch = Scratch(len(pts))
    pick = int(corners[0])
    gap = distances_from(tables, bends, ends, pick, scratch)
    land = []
    for i in range(count):
        pick = int(corners[int(np.argmax(gap[corners]))])
        d = distances_from(tables, bends, ends, pick, scratch)
        land.append(d)
        gap = np.minimum(gap, d) if i else d
        if progress is not None:
            progress(i + 1, count)
    return np.ascontiguousarray(np.array(land).T)
