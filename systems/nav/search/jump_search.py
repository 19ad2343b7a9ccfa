"""One best-first loop over jump points for JPS and JPS+, resumable.

Both expand the same jump points under the same pruning rules (``jps.py``); they differ only in
how a successor is found: JPS scans the grid (``jps._straight`` / ``jps._diagonal``), JPS+ reads
the distance from its precomputed table and finds the goal on the ray at query time
(``_table_jump``). ``jump_search_run`` holds the loop once; ``jps_run`` and ``jps_plus_run`` name
its two uses.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..kernels.heap import CLOSED, heap_pop
from ..kernels.steps import MOVE_DX, MOVE_DY, SQRT2
from .goal_bounds import NO_BOUNDS, inside
from .jps import SCAN_PER_UNIT, _diagonal, _straight, relax_jump
from .open_list import resume, suspend
from .workspace import EXHAUSTED, FOUND, IN_PROGRESS, STATUS

__all__ = ["jump_search_run", "jps_run", "jps_plus_run", "pruned_directions"]


@njit(cache=True, inline="always")
def _direction(dx, dy):
    """The move index (E, W, S, N, SE, SW, NE, NW) of step ``(dx, dy)``."""
    if dy == 0:
        return 0 if dx > 0 else 1
    if dx == 0:
        return 2 if dy > 0 else 3
    return 4 + (dx < 0) + 2 * (dy < 0)


@njit(cache=True, inline="always")
def pruned_directions(free, wp, ux, uy, parent, dirs):
    """The directions to look along from jump point ``(ux, uy)`` reached from padded flat
    ``parent`` (< 0: the start, all eight), as move indices written to ``dirs``; returns how
    many. Under the no-corner-cutting rule (``jps.py``): arriving diagonally, the diagonal and
    its two straight parts; arriving straight, straight on plus both moves toward each forced
    side cell."""
    if parent < 0:
        for d in range(8):
            dirs[d] = d
        return 8
    px = parent % wp
    py = parent // wp
    dx = (ux > px) - (ux < px)
    dy = (uy > py) - (uy < py)
    dirs[0] = _direction(dx, dy)
    if dx != 0 and dy != 0:
        dirs[1] = _direction(dx, 0)
        dirs[2] = _direction(0, dy)
        return 3
    nd = 1
    for s in (-1, 1):
        if dx != 0:
            forced = free[(uy + s) * wp + ux] and not free[(uy + s) * wp + ux - dx]
            side_x, side_y = 0, s
        else:
            forced = free[uy * wp + ux + s] and not free[(uy - dy) * wp + ux + s]
            side_x, side_y = s, 0
        if forced:
            dirs[nd] = _direction(side_x, side_y)
            dirs[nd + 1] = _direction(dx + side_x, dy + side_y)
            nd += 2
    return nd


@njit(cache=True, inline="always")
def _table_jump(table, d, u, ux, uy, dx, dy, gx, gy):
    """JPS+'s successor along direction ``d`` from ``u``: steps to the next jump point, or to
    the goal (or the goal's row or column, on a diagonal) when the ray reaches it first; 0: none."""
    dist = table[d, u]
    reach = dist if dist > 0 else -dist
    steps = 0
    if d < 4:
        along = (gx - ux) * dx if dx != 0 else (gy - uy) * dy
        on_ray = gy == uy if dx != 0 else gx == ux
        if on_ray and 0 < along <= reach:
            steps = along
    else:
        ax = (gx - ux) * dx
        ay = (gy - uy) * dy
        if ax > 0 and ay > 0:                      # the goal in this quadrant
            k_to = min(ax, ay)
            if k_to <= reach:                      # its row or column is reached on the way
                steps = k_to
    if steps == 0 and dist > 0:
        steps = dist
    return steps


@njit(cache=True)
def jump_search_run(free, wp, ws, budget, table, use_table, bounds, use_bounds):
    """Expand jump points until the goal, exhaustion or ``budget`` units (seed the workspace
    ``ws``, a ``SearchArrays``, with ``astar_begin`` in octile mode first). Successors come from
    ``table`` (JPS+) with ``use_table``, else from scanning ``free`` (JPS: a unit is an expansion
    or ``SCAN_PER_UNIT`` cells scanned). With ``use_bounds``, a direction whose goal-bounding box
    (``bounds``) misses the goal is skipped. Returns the status."""
    g, parent, stamp, pos, heap_key, heap_node, state = ws
    if state[STATUS] != IN_PROGRESS:
        return state[STATUS]
    cur, size, goal, gx, gy, expanded = resume(state, wp)
    status = IN_PROGRESS
    dirs = np.empty(8, dtype=np.int64)
    used = 0
    while used < budget:
        if size == 0:
            status = EXHAUSTED
            break
        u, size = heap_pop(heap_key, heap_node, pos, size)
        pos[u] = CLOSED
        if u == goal:
            status = FOUND
            break
        expanded += 1
        used += 1
        ux = u % wp
        uy = u // wp
        gu = g[u]
        nd = pruned_directions(free, wp, ux, uy, parent[u], dirs)
        for k in range(nd):
            d = dirs[k]
            if use_bounds and not inside(bounds, u, d, gx, gy):
                continue
            dx = MOVE_DX[d]
            dy = MOVE_DY[d]
            if use_table:
                steps = _table_jump(table, d, u, ux, uy, dx, dy, gx, gy)
            else:
                if d >= 4:
                    steps, scanned = _diagonal(free, wp, ux, uy, dx, dy, gx, gy)
                else:
                    steps, scanned = _straight(free, wp, ux, uy, dx, dy, gx, gy)
                used += scanned // SCAN_PER_UNIT
            if steps <= 0:
                continue
            vx = ux + dx * steps
            vy = uy + dy * steps
            length = steps * SQRT2 if d >= 4 else float(steps)
            size = relax_jump(g, parent, stamp, pos, heap_key, heap_node, size, cur, u, vy * wp + vx, vx, vy,
                              gu + length, gx, gy)
    return suspend(state, size, expanded, status, used)


#: The table argument of a JPS run (never read).
_NO_TABLE = np.zeros((8, 1), dtype=np.int32)


@njit(cache=True)
def jps_run(free, wp, ws, budget):
    """JPS: ``jump_search_run`` scanning the grid."""
    return jump_search_run(free, wp, ws, budget, _NO_TABLE, False, NO_BOUNDS, False)


@njit(cache=True)
def jps_plus_run(table, free, wp, ws, budget, bounds, use_bounds):
    """JPS+: ``jump_search_run`` reading ``table`` (``JumpTable.table``)."""
    return jump_search_run(free, wp, ws, budget, table, True, bounds, use_bounds)
