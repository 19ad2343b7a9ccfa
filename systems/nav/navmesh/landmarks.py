"""Landmarks (ALT) for the navmesh's visibility-graph search: a strong admissible heuristic.

Straight-line distance is a weak estimate on maps with long detours (water, cliffs): a search
then explores most of the map. With exact shortest distances ``d(L, v)`` from a few landmarks
``L`` to every mesh vertex, the triangle inequality gives ``d(v, goal) ≥ |d(L, goal) − d(L, v)|``
(Goldberg & Harrelson 2005). Landmarks sit on convex corners, picked farthest-first, each baked
by one exhaustive run of the exact interval search. Because a landmark is a corner, the last
bend of its shortest path to any point is a corner that point sees, so a sweep from the goal
gives the goal's landmark distances exactly.
"""

from __future__ import annotations

import numpy as np

from .interval_search import interval_search

__all__ = ["bake_landmarks", "triangle_components", "Scratch"]


class Scratch:
    """Per-vertex scratch for the numba searches (reused across queries; not thread-safe)."""

    def __init__(self, vertex_count: int) -> None:
        self.best = np.zeros(vertex_count)
        self.stamp = np.zeros(vertex_count, dtype=np.int64)
        self.node = np.zeros((vertex_count, 4))              # visibility A*: g, h, parent, stamp
        self.query = 0
        self.stats = np.zeros(3, dtype=np.int64)

    def next_stamp(self) -> int:
        """A fresh stamp for one search."""
        self.query += 1
        return self.query


_NO_POLYS = np.zeros(0, dtype=np.int64)


def distances_from(tables: dict, vertex: int, fan: np.ndarray, scratch: Scratch) -> np.ndarray:
    """Shortest distance from vertex ``vertex`` (its triangles: ``fan``) to every vertex (inf
    where unreachable). The search starts a hair (1e-6 cells) inside the first triangle: from an
    exact lattice point, equal-length detours tie everywhere and each tie is searched twice."""
    pts = tables["points"]
    record = np.full(len(pts) + 1, np.inf)
    tri = int(fan[0])
    centre = pts[tables["verts"][3 * tri:3 * tri + 3]].mean(axis=0)
    x, y = pts[vertex] + (centre - pts[vertex]) * (1e-6 / max(np.hypot(*(centre - pts[vertex])), 1e-12))
    interval_search(tables["start"], tables["dst"], tables["seg"], tables["rev"], tables["va"], tables["vb"],
                    tables["is_corner"], tables["vstart"], tables["verts"], pts, np.array([tri], dtype=np.int64),
                    _NO_POLYS, float(x), float(y), float(x), float(y),
                    scratch.best, scratch.stamp, scratch.next_stamp(), scratch.stats, record)
    record[vertex] = 0.0
    return record[:-1]


def triangle_components(tables: dict) -> np.ndarray:
    """Connected component of each triangle (through portals)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    n_tri = len(tables["start"]) - 1
    src = np.repeat(np.arange(n_tri), np.diff(tables["start"]))
    graph = csr_matrix((np.ones(len(src)), (src, tables["dst"])), shape=(n_tri, n_tri))
    return connected_components(graph, directed=False)[1]


def bake_landmarks(tables: dict, fans, count: int = 8, progress=None) -> np.ndarray:
    """``(V, count)`` exact distances from ``count`` corner landmarks picked farthest-first in
    the connected part of the mesh with the most corners (each new landmark is the corner
    farthest from all before it). Elsewhere the bound is 0 and the search falls back to
    straight-line distance. ``progress(i, count)`` is called per landmark."""
    pts = tables["points"]
    corners = np.flatnonzero(tables["is_corner"])
    if count <= 0 or len(corners) == 0:
        return np.zeros((len(pts), 0))
    label = tables["component"]
    fan_start, fan = fans
    corner_label = label[fan[fan_start[corners]]]
    corners = corners[corner_label == np.bincount(corner_label).argmax()]
    scratch = Scratch(len(pts))
    pick = int(corners[0])
    gap = distances_from(tables, pick, fan[fan_start[pick]:fan_start[pick + 1]], scratch)
    land = []
    for i in range(count):
        pick = int(corners[int(np.argmax(gap[corners]))])
        d = distances_from(tables, pick, fan[fan_start[pick]:fan_start[pick + 1]], scratch)
        land.append(d)
        gap = np.minimum(gap, d) if i else d
        if progress is not None:
            progress(i + 1, count)
    return np.ascontiguousarray(np.array(land).T)
