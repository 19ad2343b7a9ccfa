"""The coarse route on sector tiles: for a unit in a sector whose field is not built yet, the
direction toward the far side of its sector's portal with the least cost to the goal plus
distance from the sector's middle (the portal graph's answer, which a built field refines).

A crowd bounds the sector fields a tick builds (``crowd/groups.py`` ``SECTOR_BUILDS_AT_LEAST``);
units that reach an unbuilt sector walk this way for the tick or few until it is built. It is a
stopgap, not a route: units kept on it long wedge against walls.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["coarse_directions", "coarse_direction", "coarse_exit", "toward", "sector_nodes"]


def coarse_directions(graph, node_cost: np.ndarray, exits: np.ndarray, points: np.ndarray,
                      sector_ids: np.ndarray, out: np.ndarray) -> None:
    """Write into ``out`` (``(N, 2)``) the coarse direction of each of ``points`` (``(N, 2)`` world)
    standing in sector ``sector_ids[i]`` (zero where no portal of it leads to the goal); ``exits``:
    the order's chosen exit per sector (``coarse_direction``), updated."""
    starts, nodes = sector_nodes(graph)
    grid = graph.grid
    _coarse(np.ascontiguousarray(points, dtype=np.float64), sector_ids.astype(np.int64), starts, nodes, node_cost,
            graph.node_cell, float(grid.cell_size), float(grid.origin[0]), float(grid.origin[1]), exits, out)


def sector_nodes(graph) -> tuple[np.ndarray, np.ndarray]:
    """Per sector, its live portal-side nodes as CSR ``(starts, nodes)``, kept until the portal
    graph is assembled again (``node_sector`` is then a new array)."""
    kept = getattr(graph, "sector_nodes_cache", None)
    if kept is not None and kept[0] is graph.node_sector:
        return kept[1], kept[2]
    live = np.flatnonzero(graph.node_sector >= 0)
    owner = graph.node_sector[live]
    order = np.argsort(owner, kind="stable")
    starts = np.zeros(len(graph.sectors) + 1, dtype=np.int64)
    np.add.at(starts, owner + 1, 1)
    starts = np.cumsum(starts)
    nodes = live[order].astype(np.int64)
    graph.sector_nodes_cache = (graph.node_sector, starts, nodes)
    return starts, nodes


@njit(cache=True)
def _coarse(points, sector_ids, starts, nodes, node_cost, node_cell, cell_size, origin_x, origin_y, exits, out):
    for i in range(points.shape[0]):
        out[i, 0], out[i, 1] = coarse_direction(points[i, 0], points[i, 1], sector_ids[i], starts, nodes, node_cost,
                                                node_cell, cell_size, origin_x, origin_y, exits)


@njit(cache=True)
def coarse_direction(px, py, sid, starts, nodes, node_cost, node_cell, cell_size, origin_x, origin_y, exits):
    """The coarse direction ``(dx, dy)`` of one point ``(px, py)`` in sector ``sid``: toward the
    far side of the sector's portal with the least cost to the goal plus distance from the
    sector's centre, chosen once per sector and kept in ``exits`` (-2 not chosen yet, -1 none)."""
    ex, ey = coarse_exit(sid, starts, nodes, node_cost, node_cell, cell_size, origin_x, origin_y, exits)
    return toward(px, py, ex, ey)


@njit(cache=True)
def toward(px, py, ex, ey):
    """The unit direction from ``(px, py)`` to the exit point ``(ex, ey)`` (zero when that is NaN:
    no exit)."""
    if ex != ex:
        return 0.0, 0.0
    dx = ex - px
    dy = ey - py
    d = max(math.sqrt(dx * dx + dy * dy), 1e-9)
    return dx / d, dy / d


@njit(cache=True)
def coarse_exit(sid, starts, nodes, node_cost, node_cell, cell_size, origin_x, origin_y, exits):
    """The world point a coarse route in sector ``sid`` heads for (``coarse_direction``), NaN when
    no portal of the sector leads to the goal."""
    far = exits[sid]
    if far == -2:
        far = -1
        best = np.inf
        cx = cy = 0.0
        count = 0.0
        for e in range(starts[sid], starts[sid + 1]):
            cx += node_cell[nodes[e], 0]
            cy += node_cell[nodes[e], 1]
            count += 1.0
        cx /= max(count, 1.0)
        cy /= max(count, 1.0)
        for e in range(starts[sid], starts[sid + 1]):
            node = nodes[e]
            c = node_cost[node]
            if not c < np.inf:
                continue
            other = node ^ 1                               # the portal's other side, in the next sector
            d = math.sqrt((node_cell[other, 0] - cx) ** 2 + (node_cell[other, 1] - cy) ** 2) * cell_size
            if c + d < best:
                best = c + d
                far = other
        exits[sid] = far
    if far < 0:
        return np.nan, np.nan
    return origin_x + (node_cell[far, 0] + 0.5) * cell_size, origin_y + (node_cell[far, 1] + 0.5) * cell_size
