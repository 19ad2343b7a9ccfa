"""An independent any-angle reference: shortest paths among square-cell obstacles bend only at
obstacle corners, so Dijkstra over the visibility graph of those corners (plus start and goal)
is exact. Corners are inset 1e-4 cells into free space so touching a wall face is allowed."""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from rtsnav.systems.nav.grid_sight import world_segments_clear

EPS = 1e-4


class AnyAngle:
    def __init__(self, passable: np.ndarray) -> None:
        self.passable = passable
        h, w = passable.shape
        pad = np.zeros((h + 2, w + 2), dtype=bool)
        pad[1:-1, 1:-1] = passable
        # vertex (x, y) sits between cells (x-1, y-1), (x, y-1), (x-1, y), (x, y)
        q = [pad[0:-1, 0:-1], pad[0:-1, 1:], pad[1:, 0:-1], pad[1:, 1:]]   # [y, x] per vertex
        stack = np.stack(q)
        corner = stack.sum(axis=0) == 3                                      # one blocked: convex corner
        ys, xs = np.nonzero(corner)
        pts = []
        for x, y in zip(xs, ys):
            blocked = int(np.argmin(stack[:, y, x]))
            dx = -1 if blocked in (1, 3) else 1       # move away from the blocked cell's side
            dy = -1 if blocked in (2, 3) else 1
            pts.append((x + dx * EPS, y + dy * EPS))
        self.points = np.array(pts, dtype=np.float64).reshape(-1, 2)
        n = len(self.points)
        i, j = np.triu_indices(n, k=1)
        ok = world_segments_clear(passable, 1.0, 0.0, 0.0, np.ascontiguousarray(self.points[i]),
                                  np.ascontiguousarray(self.points[j])) if n > 1 else np.zeros(0, bool)
        i, j = i[ok], j[ok]
        d = np.hypot(*(self.points[i] - self.points[j]).T)
        self.edges = (i, j, d)

    def shortest(self, s, t) -> float:
        s = np.asarray(s, dtype=np.float64)[:2]
        t = np.asarray(t, dtype=np.float64)[:2]
        if world_segments_clear(self.passable, 1.0, 0.0, 0.0, s[None], t[None])[0]:
            return float(np.hypot(*(t - s)))
        n = len(self.points)
        i, j, d = self.edges
        rows, cols, vals = [i, j], [j, i], [d, d]
        for k, p in ((n, s), (n + 1, t)):
            vis = world_segments_clear(self.passable, 1.0, 0.0, 0.0, np.repeat(p[None], n, 0),
                                       np.ascontiguousarray(self.points))
            idx = np.flatnonzero(vis)
            dist = np.hypot(*(self.points[idx] - p).T)
            rows += [np.full(len(idx), k), idx]
            cols += [idx, np.full(len(idx), k)]
            vals += [dist, dist]
        g = csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n + 2, n + 2))
        return float(dijkstra(g, indices=n)[n + 1])
