"""A plain, obviously-correct Dijkstra used as the oracle in tests (pure Python, heapq)."""

from __future__ import annotations

import heapq
import math

import numpy as np

MOVES = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)]


def reference_costs(grid, source):
    """Cost from ``source`` to every cell (inf where unreachable), same rules as rtsnav."""
    h, w = grid.shape
    dist = np.full((h, w), np.inf)
    sx, sy = source
    if not grid.passable[sy, sx]:
        return dist
    dist[sy, sx] = 0.0
    heap = [(0.0, sx, sy)]
    while heap:
        d, x, y = heapq.heappop(heap)
        if d > dist[y, x]:
            continue
        for dx, dy in MOVES:
            nx, ny = x + dx, y + dy
            if not (0 <= nx < w and 0 <= ny < h) or not grid.passable[ny, nx]:
                continue
            if dx and dy and not (grid.passable[y, nx] and grid.passable[ny, x]):
                continue
            step = (math.sqrt(2.0) if dx and dy else 1.0) * 0.5 * (float(grid.cost[y, x]) + float(grid.cost[ny, nx]))
            if d + step < dist[ny, nx]:
                dist[ny, nx] = d + step
                heapq.heappush(heap, (d + step, nx, ny))
    return dist
