"""Sector fields: one sector's integration and directions, solved on a padded sub-grid of the
sector plus a ring of the cells just outside it, which may only be seeds (the far sides of its
portals, at their costs to the goal).

``sector_field`` solves one sector (a ``SectorGraph``'s in-sector distances, an order's goal
sector); ``sector_fields`` solves many in one kernel call, for any number of orders — a big
crowd's groups build hundreds of sector fields a tick, and a Python call with its small arrays
per sector cost more than the solve itself (measured: ~40 µs of Python around a ~20 µs solve on
16² sectors). Both run the same ``_solve``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..grid import legal_moves
from .direction import directions_serial
from .integration import integrate

__all__ = ["sector_field", "sector_fields"]


@njit(cache=True, inline="always")
def _solve(passable, cost, sx0, sy0, sw, sh, seeds, values, ring_seeds, ring_values, with_directions,
           sub_pass, sub_cost, allowed, dist, best, direction):
    """Fill the scratch arrays (sized for at least ``(sh + 4) · (sw + 4)`` cells) for the sector
    at ``(sx0, sy0)`` of ``sw × sh`` cells and solve it; returns the sub-grid's padded width
    (core cell ``(x, y)`` at ``(y + 2) · wp + x + 2``)."""
    gh, gw = passable.shape
    x0, y0 = sx0 - 1, sy0 - 1
    w, h = sw + 2, sh + 2
    wp = w + 2
    n = (h + 2) * wp
    sub_pass[:n] = 0
    sub_cost[:n] = 1.0
    allowed[:n] = 0
    dist[:n] = np.inf
    uniform = True
    for y in range(h):
        gy = y0 + y
        if gy < 0 or gy >= gh:
            continue
        for x in range(w):
            gx = x0 + x
            if gx < 0 or gx >= gw:
                continue
            u = (y + 1) * wp + x + 1
            ring = x == 0 or y == 0 or x == w - 1 or y == h - 1
            if not ring:
                sub_pass[u] = passable[gy, gx]
                allowed[u] = 1
            c = cost[gy, gx]
            sub_cost[u] = c
            if c != 1.0 and passable[gy, gx]:
                uniform = False
    seed_nodes = np.empty(len(seeds) + len(ring_seeds), dtype=np.int64)
    seed_values = np.empty(len(seeds) + len(ring_seeds))
    for k in range(len(seeds)):
        seed_nodes[k] = (seeds[k, 1] - y0 + 1) * wp + seeds[k, 0] - x0 + 1
        seed_values[k] = values[k]
    for k in range(len(ring_seeds)):
        u = (ring_seeds[k, 1] - y0 + 1) * wp + ring_seeds[k, 0] - x0 + 1
        sub_pass[u] = 1                                    # an open ring cell: a source only
        seed_nodes[len(seeds) + k] = u
        seed_values[len(seeds) + k] = ring_values[k]
    moves = legal_moves(sub_pass[:n], wp)
    integrate(moves, sub_cost[:n], wp, uniform, seed_nodes, seed_values, allowed[:n], dist[:n], np.inf)
    if with_directions:
        directions_serial(moves, sub_cost[:n], wp, uniform, dist[:n], True, best[:n], direction[:n])
    return wp


@njit(cache=True)
def _scratch(n):
    """``_solve``'s scratch arrays for up to ``n`` sub-grid cells."""
    return (np.empty(n, dtype=np.uint8), np.empty(n), np.empty(n, dtype=np.uint8), np.empty(n),
            np.empty(n, dtype=np.int8), np.empty((n, 2), dtype=np.float32))


@njit(cache=True)
def sector_field(passable, cost, sx0, sy0, sw, sh, seeds, values, ring_seeds, ring_values, with_directions):
    """One sector's ``(dist float64 [sh, sw], best_move int8, direction float32 [sh, sw, 2])``
    (the last two zero unless ``with_directions``). ``seeds`` / ``values``: ``(k, 2)`` cells
    inside the sector and their costs; ``ring_seeds`` / ``ring_values``: cells just outside it."""
    n = (sh + 4) * (sw + 4)
    sub_pass, sub_cost, allowed, dist, best, direction = _scratch(n)
    wp = _solve(passable, cost, sx0, sy0, sw, sh, seeds, values, ring_seeds, ring_values, with_directions,
                sub_pass, sub_cost, allowed, dist, best, direction)
    core_dist = np.empty((sh, sw))
    core_best = np.zeros((sh, sw), dtype=np.int8)
    core_dir = np.zeros((sh, sw, 2), dtype=np.float32)
    for y in range(sh):
        for x in range(sw):
            u = (y + 2) * wp + x + 2
            core_dist[y, x] = dist[u]
            if with_directions:
                core_best[y, x] = best[u]
                core_dir[y, x, 0] = direction[u, 0]
                core_dir[y, x, 1] = direction[u, 1]
    return core_dist, core_best, core_dir


#: Interleaved shares of a batch of sectors (threads take them in turn; more shares than threads
#: even out sectors that cost more than others).
SHARES = 8


@njit(cache=True, parallel=True)
def sector_fields(passable, cost, geometry, starts, ring_cells, ring_values, goals, out_cost, out_direction,
                  out_best):
    """Solve sectors ``i = 0..K-1`` with directions. ``geometry[i]``: ``(x0, y0, w, h)`` of the
    sector; its ring seeds are ``ring_cells[starts[i]:starts[i + 1]]`` at ``ring_values`` (inf:
    not a seed); ``goals[i]``: a goal cell inside it at cost 0, or ``(-1, -1)``. Writes the
    sector's costs, directions and best moves into ``out_cost[i]``, ``out_direction[i]`` and
    ``out_best[i]`` (``(K, size, size)`` float32, ``(K, size, size, 2)`` float32, int8). The
    sectors are independent: threads solve interleaved shares of them, each in its own scratch."""
    size = out_cost.shape[1]
    n = (size + 4) * (size + 4)
    count = geometry.shape[0]
    shares = min(SHARES, count)
    for share in prange(shares):
        sub_pass, sub_cost, allowed, dist, best, direction = _scratch(n)
        for i in range(np.int64(share), count, shares):
            _solve_into(passable, cost, geometry, starts, ring_cells, ring_values, goals, out_cost, out_direction,
                        out_best, i, sub_pass, sub_cost, allowed, dist, best, direction)


@njit(cache=True)
def _solve_into(passable, cost, geometry, starts, ring_cells, ring_values, goals, out_cost, out_direction, out_best,
                i, sub_pass, sub_cost, allowed, dist, best, direction):
    """Solve sector ``i`` of a ``sector_fields`` batch in the given scratch and write it out."""
    zero = np.zeros(1)
    sx0, sy0, sw, sh = geometry[i, 0], geometry[i, 1], geometry[i, 2], geometry[i, 3]
    a, b = starts[i], starts[i + 1]
    reached = 0
    for j in range(a, b):
        if ring_values[j] < np.inf:
            reached += 1
    seeds = np.empty((reached, 2), dtype=np.int64)
    values = np.empty(reached)
    m = 0
    for j in range(a, b):
        if ring_values[j] < np.inf:
            seeds[m, 0] = ring_cells[j, 0]
            seeds[m, 1] = ring_cells[j, 1]
            values[m] = ring_values[j]
            m += 1
    k = 1 if goals[i, 0] >= 0 else 0
    wp = _solve(passable, cost, sx0, sy0, sw, sh, goals[i:i + k], zero[:k], seeds, values, True,
                sub_pass, sub_cost, allowed, dist, best, direction)
    for y in range(sh):
        for x in range(sw):
            u = (y + 2) * wp + x + 2
            out_cost[i, y, x] = dist[u]
            out_best[i, y, x] = best[u]
            out_direction[i, y, x, 0] = direction[u, 0]
            out_direction[i, y, x, 1] = direction[u, 1]
