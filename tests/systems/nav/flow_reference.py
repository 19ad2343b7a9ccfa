"""An independent reference for integration fields: the same graph built with numpy and solved
with scipy's C Dijkstra (tests only)."""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra


def grid_graph(grid):
    """CSR matrix of the 8-connected, no-corner-cutting graph with rtsnav's step costs."""
    h, w = grid.shape
    p = grid.passable
    c = grid.cost.astype(np.float64)
    idx = np.arange(h * w).reshape(h, w)
    rows, cols, vals = [], [], []
    for dx, dy in ((1, 0), (0, 1), (1, 1), (-1, 1)):
        ys = slice(0, h - dy)
        ys2 = slice(dy, h)
        xs = slice(max(0, -dx), w - max(0, dx))
        xs2 = slice(max(0, dx), w - max(0, -dx) if dx < 0 else w)
        if dx < 0:
            xs2 = slice(0, w + dx)
        a = p[ys, xs] & p[ys2, xs2]
        if dx and dy:                   # both orthogonal neighbours must be open
            a &= p[ys, xs2] & p[ys2, xs]
        length = math.sqrt(2.0) if (dx and dy) else 1.0
        cost = length * 0.5 * (c[ys, xs] + c[ys2, xs2])
        rows.append(idx[ys, xs][a])
        cols.append(idx[ys2, xs2][a])
        vals.append(cost[a])
    r = np.concatenate(rows)
    q = np.concatenate(cols)
    v = np.concatenate(vals)
    return sp.csr_matrix((np.concatenate([v, v]), (np.concatenate([r, q]), np.concatenate([q, r]))),
                         shape=(h * w, h * w))


def reference_field(grid, goals, values=None, graph=None):
    """Cost to the nearest goal for every cell, ``float64 [H, W]`` (inf where unreachable)."""
    h, w = grid.shape
    g = np.asarray(goals).reshape(-1, 2)
    graph = grid_graph(grid) if graph is None else graph
    d = dijkstra(graph, directed=False, indices=g[:, 1] * w + g[:, 0])
    d = np.atleast_2d(d)
    if values is not None:
        d = d + np.asarray(values, dtype=np.float64)[:, None]
    out = d.min(axis=0).reshape(h, w)
    out[~grid.passable] = np.inf
    return out
