"""Bake stages of the layered navmesh (every walkable surface of a column, as Recast's spans):

1. ``sample_soup``: each triangle that is not vertical is sampled at the cell centres its xy
   projection covers (a *surface* sample: walkable when flat enough, else a ceiling), and each
   triangle too steep to stand on is also sampled densely over its area (*obstacle* points:
   walls, cliffs and steep slopes block the cells they pass through, at the heights they span).
2. ``build_spans``: per cell, a walkable surface is a span when nothing lies above it within
   ``agent_height`` (another surface, or an obstacle point higher than ``max_climb`` over it).
3. ``link_spans``: a span's neighbour in each of the 4 directions is the span of the next cell
   whose height at the shared edge differs by at most ``max_climb`` (links are mutual).
4. ``span_clearance``: each span's distance from its cell centre to the nearest boundary of its
   own surface (found by walking the links, so a floor above or below does not erode this one);
   the bake keeps spans whose clearance is at least ``agent_radius`` — the exact erosion by the
   radius, sampled at cell centres.

Everything is flat arrays; cell index ``y * width + x``; directions E, N, W, S = 0, 1, 2, 3.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..kernels.heap import CLOSED, NOT_IN_HEAP, heap_pop, heap_update
from .build import centres_covered

__all__ = ["sample_soup", "build_spans", "link_spans", "span_clearance", "WALKABLE", "CEILING", "OBSTACLE", "DX", "DY"]

WALKABLE, CEILING, OBSTACLE = 0, 1, 2
DX = np.array([1, 0, -1, 0], dtype=np.int64)
DY = np.array([0, 1, 0, -1], dtype=np.int64)


@njit(cache=True)
def sample_soup(vertices, triangles, allowed, cell_size, origin_x, origin_y, width, height, min_up, write,
                cell, z, kind, tri):
    """Surface and obstacle samples of the soup; with ``write`` False only counts them (so the
    caller can size the arrays), else fills ``cell, z, kind, tri``. Returns the count.
    ``min_up`` is cos(max_slope): the least |normal z| of a walkable triangle; a triangle with
    ``allowed`` False is never walkable (a model's untagged geometry)."""
    n = 0
    step = 0.5 * cell_size
    for t in range(triangles.shape[0]):
        a = vertices[triangles[t, 0]]
        b = vertices[triangles[t, 1]]
        c = vertices[triangles[t, 2]]
        ux, uy, uz = b[0] - a[0], b[1] - a[1], b[2] - a[2]
        vx, vy, vz = c[0] - a[0], c[1] - a[1], c[2] - a[2]
        nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
        nlen = math.sqrt(nx * nx + ny * ny + nz * nz)
        if nlen == 0.0:
            continue
        walkable = allowed[t] and abs(nz) / nlen >= min_up - 1e-12
        if abs(nz) > 1e-12 * nlen:                       # not vertical: sample at cell centres
            hits = centres_covered(a, b, c, cell_size, origin_x, origin_y, width, height)
            if write:
                for h in range(hits.shape[0]):
                    cell[n + h] = int(hits[h, 1]) * width + int(hits[h, 0])
                    z[n + h] = hits[h, 2]
                    kind[n + h] = WALKABLE if walkable else CEILING
                    tri[n + h] = t
            n += hits.shape[0]
        if walkable:
            continue
        # too steep to stand on: points over the whole triangle, from the corner opposite its
        # longest edge (so a long thin wall costs its area, not its length squared)
        la = (b[0] - c[0]) ** 2 + (b[1] - c[1]) ** 2 + (b[2] - c[2]) ** 2
        lb = vx * vx + vy * vy + vz * vz
        lc = ux * ux + uy * uy + uz * uz
        p0, p1, p2 = a, b, c
        if lb >= la and lb >= lc:
            p0, p1, p2 = b, c, a
        elif lc >= la and lc >= lb:
            p0, p1, p2 = c, a, b
        e1x, e1y, e1z = p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]
        e2x, e2y, e2z = p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]
        ni = max(1, int(math.ceil(math.sqrt(e1x * e1x + e1y * e1y + e1z * e1z) / step)))
        nj = max(1, int(math.ceil(math.sqrt(e2x * e2x + e2y * e2y + e2z * e2z) / step)))
        for i in range(ni + 1):
            for j in range(nj + 1):
                if i * nj + j * ni > ni * nj:
                    break
                fi, fj = i / ni, j / nj
                px = p0[0] + e1x * fi + e2x * fj
                py = p0[1] + e1y * fi + e2y * fj
                cx = int(math.floor((px - origin_x) / cell_size))
                cy = int(math.floor((py - origin_y) / cell_size))
                if cx < 0 or cy < 0 or cx >= width or cy >= height:
                    continue
                if write:
                    cell[n] = cy * width + cx
                    z[n] = p0[2] + e1z * fi + e2z * fj
                    kind[n] = OBSTACLE
                    tri[n] = t
                n += 1
    return n


@njit(cache=True)
def build_spans(sample_start, z, kind, tri, agent_height, max_climb, merge):
    """Walkable spans from samples sorted by (cell, z): ``(span_cell, span_z, span_tri)``. A
    walkable sample is a span unless a surface lies above it within ``agent_height``, or an
    obstacle point lies between ``max_climb`` and ``agent_height`` above it (a step lower than
    the climb does not block); coplanar duplicates merge."""
    cells = len(sample_start) - 1
    out_cell = np.empty(len(z), dtype=np.int64)
    out_z = np.empty(len(z))
    out_tri = np.empty(len(z), dtype=np.int64)
    n = 0
    for c in range(cells):
        last = -np.inf
        for i in range(sample_start[c], sample_start[c + 1]):
            if kind[i] != WALKABLE or z[i] <= last + merge:
                continue
            blocked = False
            for j in range(i + 1, sample_start[c + 1]):
                dz = z[j] - z[i]
                if dz >= agent_height:
                    break
                if dz <= merge:
                    continue
                if kind[j] != OBSTACLE or dz > max_climb:
                    blocked = True
                    break
            if blocked:
                continue
            last = z[i]
            out_cell[n] = c
            out_z[n] = z[i]
            out_tri[n] = tri[i]
            n += 1
    return out_cell[:n].copy(), out_z[:n].copy(), out_tri[:n].copy()


@njit(cache=True)
def link_spans(cell_start, span_cell, span_z, grad, width, height, cell_size, max_climb):
    """``(S, 4)`` neighbour span per direction (-1: none): the span of the next cell whose height
    at the shared edge is nearest and within ``max_climb``; only mutual links are kept."""
    s_count = len(span_cell)
    nbr = np.full((s_count, 4), -1, dtype=np.int64)
    half = 0.5 * cell_size
    for s in range(s_count):
        x = span_cell[s] % width
        y = span_cell[s] // width
        for d in range(4):
            nx, ny = x + DX[d], y + DY[d]
            if nx < 0 or ny < 0 or nx >= width or ny >= height:
                continue
            edge = span_z[s] + (grad[s, 0] * DX[d] + grad[s, 1] * DY[d]) * half
            c = ny * width + nx
            best, best_dz = -1, max_climb + 1e-9
            for t in range(cell_start[c], cell_start[c + 1]):
                dz = abs(span_z[t] - (grad[t, 0] * DX[d] + grad[t, 1] * DY[d]) * half - edge)
                if dz <= best_dz:
                    best, best_dz = t, dz
            nbr[s, d] = best
    for s in range(s_count):
        for d in range(4):
            t = nbr[s, d]
            if t >= 0 and nbr[t, (d + 2) % 4] != s:
                nbr[s, d] = -1
    return nbr


@njit(cache=True)
def span_clearance(nbr, span_cell, width, reach_cells):
    """Per span, the distance (cells) from its cell centre to the nearest boundary of its own
    surface, capped at ``reach_cells``. A boundary is a cell edge with no link across it, taken
    at its midpoint (the staircase a raster makes of a slanted or curved edge then sits on the
    true edge on average; its protruding corners would bias every distance low). Distances
    spread from the boundary over the links, each span keeping the nearest boundary point its
    neighbours know (Dijkstra over a vector distance transform), so a floor above or below
    never counts."""
    s_count = len(span_cell)
    dist = np.full(s_count, np.inf)
    bx = np.zeros(s_count)
    by = np.zeros(s_count)
    keys = np.empty(s_count)
    nodes = np.empty(s_count, dtype=np.int64)
    pos = np.full(s_count, NOT_IN_HEAP, dtype=np.int64)
    size = 0
    for s in range(s_count):
        px = span_cell[s] % width + 0.5
        py = span_cell[s] // width + 0.5
        for d in range(4):
            if nbr[s, d] < 0:
                qx, qy = px + 0.5 * DX[d], py + 0.5 * DY[d]
                dd = math.sqrt((qx - px) ** 2 + (qy - py) ** 2)
                if dd < dist[s]:
                    dist[s], bx[s], by[s] = dd, qx, qy
        if dist[s] < np.inf:
            size = heap_update(keys, nodes, pos, size, s, dist[s])
    while size > 0:
        s, size = heap_pop(keys, nodes, pos, size)
        pos[s] = CLOSED
        if dist[s] > reach_cells:
            break
        for d in range(4):
            v = nbr[s, d]
            if v < 0 or pos[v] == CLOSED:
                continue
            vx = span_cell[v] % width + 0.5
            vy = span_cell[v] // width + 0.5
            dd = math.sqrt((bx[s] - vx) ** 2 + (by[s] - vy) ** 2)
            if dd < dist[v]:
                dist[v], bx[v], by[v] = dd, bx[s], by[s]
                size = heap_update(keys, nodes, pos, size, v, dd)
    return np.minimum(dist, reach_cells)
