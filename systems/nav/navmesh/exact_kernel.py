"""The exact any-angle query of a mesh without off-mesh links as one numba call: locate both
ends, sweep what each sees, bound the goal by the landmarks, search the visibility graph, and
finish the path (grazed corners, nudges off the walls, world points and heights; the polygons
it crosses are found when the result's ``polygons`` is read).

As a dozen numba and numpy calls from Python the query paid ~10 µs of dispatch per call once a
game's other work had pushed the interpreter out of the CPU caches (a long query on a 1024² map
took 650-830 µs beside grid A* instead of ~220 µs alone); one call pays that once. The per-vertex
sweep results are kept between queries and only the entries a query wrote are reset, so nothing
the size of the mesh is filled per query."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .mesh_types import CORNER_MARGIN
from .trace import inset_lattice_points, lattice_to_world
from .triangulate import triangles_around
from .visibility import goal_distances, grazed_corners, visibility_astar, visible_from

__all__ = ["exact_query", "ExactScratch", "NO_PATH", "segment_table"]

#: ``exact_query``'s answer when there is none (an end off the mesh, another island, no way).
NO_PATH = 0
#: ... and when it found the path.
FOUND_PATH = 1


class ExactScratch:
    """Per-vertex arrays ``exact_query`` keeps between queries: what the goal and the start see
    (inf where unseen: a query resets only what it wrote) and the vertices each sweep wrote."""

    def __init__(self, vertex_count: int) -> None:
        self.to_goal = np.full(vertex_count, np.inf)
        self.from_start = np.full(vertex_count, np.inf)
        self.touched_goal = np.empty(max(1, vertex_count), dtype=np.int64)
        self.touched_start = np.empty(max(1, vertex_count), dtype=np.int64)
        #: an empty ``LinkEnds`` (the search's link-end arguments on a mesh without links)
        self.no_links = (np.zeros((0, 2)), np.zeros((0, 1)), np.zeros(1, np.int64), np.zeros(0, np.int64),
                         np.zeros(0), np.zeros(vertex_count + 1, np.int64), np.zeros(0, np.int64), np.zeros(0),
                         np.zeros((0, 0)), np.zeros(0, np.int64), np.zeros(0))


def segment_table(vis_start: np.ndarray, vis_dst: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``(S, 3)`` per visibility-graph segment: the vector from its corner to the far one and its
    length, so the search reads them in order instead of from the far corner's record."""
    owner = np.repeat(np.arange(len(vis_start) - 1), np.diff(vis_start))
    d = points[vis_dst] - points[owner]
    return np.ascontiguousarray(np.c_[d, np.hypot(d[:, 0], d[:, 1])], dtype=np.float64)


@njit(cache=True)
def _seen_corners(touched, n, is_corner):
    """The convex corners among the first ``n`` vertices of ``touched``."""
    out = np.empty(n, dtype=np.int64)
    k = 0
    for i in range(n):
        if is_corner[touched[i]]:
            out[k] = touched[i]
            k += 1
    return out[:k]


@njit(cache=True)
def exact_query(mesh, portals, graph, grid, node, heap, stamp, stats, sight, no_links, sx, sy, gx, gy, world):
    """The exact path from lattice point ``(sx, sy)`` to ``(gx, gy)``: ``(FOUND_PATH, world
    points (K, 3), length in cells, the points in cells (K, 2))`` or ``(NO_PATH, ...)``.

    ``mesh``: (points, triangles, touching, neighbours, cell_triangle, fan_start, fan, component)
    of the triangulation; ``portals``: (start, dst, va, vb, rev, vstart, verts, is_corner) of the
    sweeps; ``graph``: the ``VisibilityGraph`` tuple; ``grid``: (corner_mask, walkable,
    cliff_dirs, height, poly_of_cell, rects, cell_size, ox, oy); ``sight``: ``ExactScratch``'s (to_goal,
    from_start, touched_goal, touched_start); ``no_links``: ``ExactScratch.no_links`` (its
    goal bounds prune when ``graph``'s boxes are not empty); ``world``: (sx, sy, gx, gy) as the caller gave them (the path's exact ends)."""
    points, triangles, touching, neighbours, cell_triangle, fan_start, fan, component = mesh
    start, dst, va, vb, rev, vstart, verts, is_corner = portals
    corner_mask, walkable, cliff_dirs, height, poly_of_cell, rects, cs, ox, oy = grid
    to_goal, from_start, touched_goal, touched_start = sight
    empty = np.zeros((0, 3))
    start_tris = triangles_around(points, triangles, touching, neighbours, cell_triangle, fan_start, fan, sx, sy)
    goal_tris = triangles_around(points, triangles, touching, neighbours, cell_triangle, fan_start, fan, gx, gy)
    if start_tris.size == 0 or goal_tris.size == 0 or component[start_tris[0]] != component[goal_tris[0]]:
        return NO_PATH, empty, math.inf, np.zeros((0, 2))
    shared = False
    for a in start_tris:
        for b in goal_tris:
            shared = shared or a == b
    targets = np.array([[sx, sy]])
    seen_start = np.full(1, np.inf)
    n_goal = visible_from(start, dst, va, vb, rev, vstart, verts, points, goal_tris, gx, gy, start_tris,
                          np.zeros(start_tris.size, dtype=np.int64), targets, seen_start, to_goal, touched_goal, stats)
    direct = math.hypot(gx - sx, gy - sy) if shared or seen_start[0] < math.inf else math.inf
    n_start = 0
    if direct < math.inf:
        path = np.array([[sx, sy], [gx, gy]])
    else:
        none = np.zeros(0, dtype=np.int64)      # not the module's constant: numba makes globals read-only,
        n_start = visible_from(start, dst, va, vb, rev, vstart, verts, points, start_tris, sx, sy, none,  # a
                               none, np.zeros((0, 2)), np.zeros(0), from_start, touched_start, stats)  # 2nd compile
        vg_start, vg_dst, vinfo, land, _, boxes, seg = graph
        goal_seen = _seen_corners(touched_goal, n_goal, is_corner)
        d_goal = goal_distances(land, to_goal, goal_seen)
        box = np.array((np.inf, np.inf, -np.inf, -np.inf))
        if boxes.shape[0] > 0:
            for c in goal_seen:
                box[0], box[1] = min(box[0], vinfo[c, 0]), min(box[1], vinfo[c, 1])
                box[2], box[3] = max(box[2], vinfo[c, 0]), max(box[3], vinfo[c, 1])
        search_graph = (vg_start, vg_dst, vinfo, land, _seen_corners(touched_start, n_start, is_corner), boxes, seg)
        query = (sx, sy, gx, gy, from_start, to_goal, d_goal, np.zeros(0), np.zeros(0), np.zeros(0), box)
        length, route = visibility_astar(search_graph, no_links, query, node, heap, stamp, stats)
        if math.isfinite(length):
            path = np.empty((route.size + 2, 2))
            path[0, 0], path[0, 1] = sx, sy
            for i in range(route.size):
                path[i + 1, 0], path[i + 1, 1] = points[route[i], 0], points[route[i], 1]
            path[-1, 0], path[-1, 1] = gx, gy
        else:
            path = np.zeros((0, 2))
    for i in range(n_goal):                            # what this query wrote, for the next one
        to_goal[touched_goal[i]] = math.inf
    for i in range(n_start):
        from_start[touched_start[i]] = math.inf
    if path.shape[0] == 0:
        return NO_PATH, empty, math.inf, path
    lattice = grazed_corners(path, corner_mask)
    lattice = inset_lattice_points(lattice, walkable, cliff_dirs, 2 * CORNER_MARGIN,
                                   np.zeros(lattice.shape[0], dtype=np.bool_))
    out, length = lattice_to_world(lattice, cs, ox, oy, height, walkable, world[0], world[1], world[2], world[3])
    return FOUND_PATH, out, length, lattice
