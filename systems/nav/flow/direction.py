"""Flow directions from an integration field.

* ``best_move`` (``int8 [H, W]``): the legal move (bit index of ``MOVE_DX/MOVE_DY``) to the
  neighbour minimising ``integration[v] + step cost`` — the steepest descent, which follows a
  shortest path exactly; -1 at goals and unreachable cells.
* ``direction`` (``float32 [H, W, 2]``, unit ``(x, y)``): away from walls, the descent-weighted
  sum of the 8 move directions (weight = cost drop per unit length), so fields curve instead of
  zig-zagging; on cells with any blocked neighbour, exactly the ``best_move`` direction.
  Directions written later (line of sight) are checked: if the nearest octant is not a legal
  move from the cell, it falls back to ``best_move`` (never into a wall or across a corner).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ..kernels.steps import MOVE_UX, MOVE_UY, SQRT2, move_offsets, step_cost
from ..kernels.threads import threads_for

__all__ = ["SQRT2", "INV_SQRT2", "TAN_22_5", "octant_of", "flow_directions", "directions_serial", "warm_directions", "make_safe", "WALL_PUSH", "kernel_directions"]

INV_SQRT2 = 1.0 / SQRT2


TAN_22_5 = math.tan(math.pi / 8)


@njit(cache=True)
def octant_of(dx, dy):
    """Move bit index (E, W, S, N, SE, SW, NE, NW) nearest to the direction ``(dx, dy)``."""
    ax = abs(dx)
    ay = abs(dy)
    if ay <= TAN_22_5 * ax:
        return 0 if dx > 0 else 1
    if ax <= TAN_22_5 * ay:
        return 2 if dy > 0 else 3
    if dy > 0:
        return 4 if dx > 0 else 5
    return 6 if dx > 0 else 7


#: Fields of more cells than this run the direction pass on every core (a thread pool's start
#: costs more than a small field's whole pass: sector and corridor fields stay on one).
PARALLEL_CELLS = 1 << 18


def flow_directions(moves, cost, wp, uniform, dist, smooth, best_move, direction, moves_known: bool = False) -> None:
    """Fill ``best_move`` (padded flat int8) and ``direction`` (padded flat ``(n, 2)`` float32).
    Each cell reads only its neighbours' integration values, so big fields split the cells
    between threads (1024²: 18 -> 10 ms on 2 cores). ``moves_known``: ``best_move`` already holds
    each cell's descent move (-1 where none; the two-thread Dijkstra keeps them), so only the
    directions are made — 4096², 20% random walls: 8-10 -> 4 ns a cell."""
    if dist.size > PARALLEL_CELLS:
        with threads_for(dist.size, "flow_directions"):
            _directions_parallel(moves, cost, wp, uniform, dist, smooth, best_move, direction, moves_known)
    elif moves_known:
        _directions_span(moves, cost, wp, uniform, dist, smooth, best_move, direction, 0, dist.size, _NO_CELLS, True)
    else:
        directions_serial(moves, cost, wp, uniform, dist, smooth, best_move, direction)


def warm_directions() -> None:
    """Compile both direction passes: the practice levels' fields are too small to reach the
    parallel one, and its first big field would otherwise compile it inside a tick (~1 s)."""
    wp = 5
    moves = np.zeros(wp * wp, dtype=np.uint8)
    dist = np.full(wp * wp, np.inf, dtype=np.float32)
    best = np.empty(wp * wp, dtype=np.int8)
    direction = np.empty((wp * wp, 2), dtype=np.float32)
    cost = np.ones(wp * wp)
    directions_serial(moves, cost, wp, True, dist, True, best, direction)
    for known in (False, True):
        _directions_parallel(moves, cost, wp, True, dist, True, best, direction, known)
    directions_at(moves, cost, wp, True, dist, True, best, direction, np.zeros(1, dtype=np.int64))


@njit(cache=True)
def directions_serial(moves, cost, wp, uniform, dist, smooth, best_move, direction):
    """``flow_directions`` on one thread, callable from other kernels (small fields)."""
    _directions_span(moves, cost, wp, uniform, dist, smooth, best_move, direction, 0, dist.size, _NO_CELLS, False)


@njit(cache=True)
def directions_at(moves, cost, wp, uniform, dist, smooth, best_move, direction, cells):
    """``flow_directions`` for the padded flat ``cells`` only (a bounded or restricted field's
    reached cells; the caller sets the others to no move and a zero direction)."""
    _directions_span(moves, cost, wp, uniform, dist, smooth, best_move, direction, 0, 0, cells, False)


_NO_CELLS = np.zeros(0, dtype=np.int64)
#: rows a thread takes at once in the parallel pass
_ROWS_A_TASK = 16


@njit(cache=True, parallel=True)
def _directions_parallel(moves, cost, wp, uniform, dist, smooth, best_move, direction, moves_known):
    rows = dist.size // wp
    for t in prange((rows + _ROWS_A_TASK - 1) // _ROWS_A_TASK):
        lo = t * _ROWS_A_TASK * wp
        _directions_span(moves, cost, wp, uniform, dist, smooth, best_move, direction,
                         lo, min(lo + _ROWS_A_TASK * wp, dist.size), _NO_CELLS, moves_known)


@njit(cache=True)
def _directions_span(moves, cost, wp, uniform, dist, smooth, best_move, direction, lo, hi, cells, moves_known):
    """Each cell's best move and direction (see the module docs), for padded flat cells
    ``lo..hi``, or for ``cells`` when it is not empty; with ``moves_known`` the best moves are
    given and kept. The per-cell body is written out in the loop: as an ``inline="always"``
    helper it ran 2× slower (12 vs 24 ns a cell, 2048² map)."""
    offs = move_offsets(wp)
    ux = MOVE_UX
    uy = MOVE_UY
    listed = cells.size > 0
    for i in range(cells.size if listed else hi - lo):
        u = cells[i] if listed else lo + i
        m = moves[u]
        du = dist[u]
        best = -1
        out_x = 0.0
        out_y = 0.0
        # all 8 moves legal (no wall nearby): the smoothed slope; else only the best move
        open_all_round = smooth and m == 255
        if moves_known:
            best = best_move[u]
            if best >= 0:
                out_x = ux[best]
                out_y = uy[best]
                # the slope alone, the move being given (the search loop below without its
                # search: sharing that loop made open cells pay for the search, 4096²
                # AcrosstheCape 5 -> 7.5 ns a cell)
                if open_all_round:
                    sx = 0.0
                    sy = 0.0
                    for k in range(8):
                        drop = du - dist[u + offs[k]]
                        if drop > 0.0:
                            w = drop / (SQRT2 if k >= 4 else 1.0)
                            sx += w * ux[k]
                            sy += w * uy[k]
                    norm = math.sqrt(sx * sx + sy * sy)
                    if norm > 0.0:
                        out_x = sx / norm
                        out_y = sy / norm
            direction[u, 0] = out_x
            direction[u, 1] = out_y
            continue
        if m != 0 and du < np.inf and du != 0.0:
            best_val = np.inf
            sx = 0.0
            sy = 0.0
            cu = cost[u] if not uniform else 1.0         # a uniform grid never reads its costs
            for k in range(8):
                if (m >> k) & 1 == 0:
                    continue
                v = u + offs[k]
                dv = dist[v]
                if not (dv < np.inf):
                    continue
                val = dv + step_cost(cost, cu, v, k, uniform)
                if val < best_val:
                    best_val = val
                    best = k
                drop = du - dv
                if open_all_round and drop > 0.0:
                    w = drop / (SQRT2 if k >= 4 else 1.0)          # the slope along the move
                    sx += w * ux[k]
                    sy += w * uy[k]
            if best >= 0:
                norm = math.sqrt(sx * sx + sy * sy)
                if open_all_round and norm > 0.0:
                    out_x = sx / norm
                    out_y = sy / norm
                else:
                    out_x = ux[best]
                    out_y = uy[best]
        best_move[u] = best
        direction[u, 0] = out_x
        direction[u, 1] = out_y


@njit(cache=True)
def make_safe(moves, best_move, direction, cells):
    """For the padded flat ``cells`` given (those whose direction was overwritten, e.g. by the
    line-of-sight pass): where the direction's nearest octant is not a legal move, use
    ``best_move`` instead. (Other cells are safe by construction: smoothed directions only on
    cells where all 8 moves are legal, ``best_move`` directions elsewhere.)"""
    mdx = MOVE_UX
    mdy = MOVE_UY
    fixed = 0
    for i in range(cells.size):
        u = cells[i]
        b = best_move[u]
        if b < 0:
            continue
        k = octant_of(direction[u, 0], direction[u, 1])
        if (moves[u] >> k) & 1 == 0:
            direction[u, 0] = mdx[b]
            direction[u, 1] = mdy[b]
            fixed += 1
    return fixed


#: The article's push away from walls for cells beside them, relative to the unit descent vector.
WALL_PUSH = 0.25


@njit(cache=True)
def kernel_directions(moves, passable, wp, dist, best_move, direction):
    """The vector-field article's rule, over ``best_move`` already filled by ``flow_directions``:
    away from walls each cell's vector is the sum of its 8 neighbours' unit directions weighted
    by 1 / their distance to the goal, normalised (a neighbour that is the goal wins outright);
    neighbours across a blocked diagonal pair do not count; a cell beside a wall gets the direct
    steepest-descent vector plus a small push away from the blocked cells around it. A vector
    whose nearest octant is not a legal move falls back to the steepest descent."""
    n = dist.size
    offs = move_offsets(wp)
    mdx = MOVE_UX
    mdy = MOVE_UY
    for u in range(n):
        b = best_move[u]
        if b < 0:
            continue
        m = moves[u]
        sx = 0.0
        sy = 0.0
        if m == 255:                                   # open all round: the weighted kernel
            goal_k = -1
            for k in range(8):
                dv = dist[u + offs[k]]
                if dv == 0.0:
                    goal_k = k
                    break
                if dv < np.inf:
                    sx += mdx[k] / dv
                    sy += mdy[k] / dv
            if goal_k >= 0:
                sx = mdx[goal_k]
                sy = mdy[goal_k]
        else:                                          # beside a wall: descent plus a push off it
            px = 0.0
            py = 0.0
            for k in range(8):
                if not passable[u + offs[k]]:
                    px -= mdx[k]
                    py -= mdy[k]
            pn = math.sqrt(px * px + py * py)
            sx = mdx[b]
            sy = mdy[b]
            if pn > 0.0:
                sx += WALL_PUSH * px / pn
                sy += WALL_PUSH * py / pn
        norm = math.sqrt(sx * sx + sy * sy)
        if norm > 0.0 and (m >> octant_of(sx, sy)) & 1:
            direction[u, 0] = sx / norm
            direction[u, 1] = sy / norm
        else:
            direction[u, 0] = mdx[b]
            direction[u, 1] = mdy[b]
