"""Sector fields: one sector's integration and directions, solved on a padded sub-grid of the
sector plus a ring of the cells just outside it, which may only be seeds (the far sides of its
portals, at their costs to the goal).

``sector_field`` solves one sector (a ``SectorGraph``'s in-sector distances); ``sector_fields_into``
solves many in one kernel call, for any number of orders, and writes them straight into the
orders' map-sized arrays — a big crowd's groups build hundreds of sector fields a tick, and
Python per sector cost more than the solve itself (measured: ~40 µs of Python around a ~20 µs
solve on 16² sectors when each had its own call; ~12 µs when only the copy-out was left in
Python). Both run the same ``_solve``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..grid import legal_moves
from .direction import directions_serial
from .integration import integrate

__all__ = ["sector_field", "sector_fields_into", "sector_node_distances"]


@njit(cache=True, inline="always")
def _solve(passable, cost, sx0, sy0, sw, sh, seeds, values, ring_seeds, ring_values, with_directions,
           sub_pass, sub_cost, allowed, dist, best, direction, uniform_grid=False):
    """Fill the scratch arrays (sized for at least ``(sh + 4) · (sw + 4)`` cells) for the sector
    at ``(sx0, sy0)`` of ``sw × sh`` cells and solve it; returns the sub-grid's padded width
    (core cell ``(x, y)`` at ``(y + 2) · wp + x + 2``). ``uniform_grid``: every terrain cost is
    1, so ``cost`` is not read (its rows are cache misses when hundreds of sectors are built)."""
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
            if not uniform_grid:
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
def sector_node_distances(passable, cost, sx0, sy0, sw, sh, cells):
    """``(k, k)`` in-sector distances between ``cells`` (``(k, 2)`` x, y inside the sector at
    ``(sx0, sy0)`` of ``sw × sh``): row ``a`` is the field seeded at ``cells[a]`` read at every
    cell (inf where the sector does not connect them). A ``SectorGraph``'s edges, one call a
    sector: a call per portal node spent more in Python than in the solve."""
    k = cells.shape[0]
    out = np.full((k, k), np.inf)
    n = (sh + 4) * (sw + 4)
    sub_pass, sub_cost, allowed, dist, best, direction = _scratch(n)
    seed = np.empty((1, 2), dtype=np.int64)
    zero = np.zeros(1)
    no_ring, no_values = np.empty((0, 2), dtype=np.int64), np.empty(0)
    for a in range(k):
        seed[0, 0], seed[0, 1] = cells[a, 0], cells[a, 1]
        wp = _solve(passable, cost, sx0, sy0, sw, sh, seed, zero, no_ring, no_values, False,
                    sub_pass, sub_cost, allowed, dist, best, direction)
        for b in range(k):
            out[a, b] = dist[(cells[b, 1] - sy0 + 2) * wp + cells[b, 0] - sx0 + 2]
    return out


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
def sector_fields_into(passable, cost, uniform_grid, size, cols, owner, sids, goal_cells, goal_sectors, ring_count,
                       ring_cells, ring_far, ring_along, node_costs, out_cost, out_direction, out_best, built):
    """Solve sectors ``sids[i]`` of orders ``owner[i]`` with directions, straight into the
    orders' map-sized arrays (``out_cost[o]`` float32 ``[h, w]``, ``out_direction[o]`` float32
    ``[h, w, 2]``, ``out_best[o]`` int8; typed lists, one entry per order) and mark them in
    ``built[o]``. An order's sector seeds from its ring (``ring_count[sid]`` rows of
    ``ring_cells`` / ``ring_far`` / ``ring_along``: the cells just outside it, each at its far
    portal side's cost ``node_costs[o][far]`` plus the distance along the portal; inf seeds
    nothing) and, in its goal's sector (``goal_sectors[o]``), from ``goal_cells[o]`` at 0. The
    ``(owner, sid)`` pairs must be distinct: threads solve interleaved shares of them, each in
    its own scratch, and write disjoint cells. ``uniform_grid``: every terrain cost is 1."""
    gh, gw = passable.shape
    n = (size + 4) * (size + 4)
    count = sids.shape[0]
    shares = min(SHARES, count)
    width = ring_cells.shape[1]
    for share in prange(shares):
        sub_pass, sub_cost, allowed, dist, best, direction = _scratch(n)
        seeds = np.empty((width, 2), dtype=np.int64)
        values = np.empty(width)
        goal = np.empty((1, 2), dtype=np.int64)
        zero = np.zeros(1)
        for i in range(np.int64(share), count, shares):
            o = owner[i]
            sid = sids[i]
            node_cost = node_costs[o]
            m = 0
            for j in range(ring_count[sid]):
                v = node_cost[ring_far[sid, j]] + ring_along[sid, j]
                if v < np.inf:
                    seeds[m, 0] = ring_cells[sid, j, 0]
                    seeds[m, 1] = ring_cells[sid, j, 1]
                    values[m] = v
                    m += 1
            sx0 = (sid % cols) * size
            sy0 = (sid // cols) * size
            sw = min(size, gw - sx0)
            sh = min(size, gh - sy0)
            k = 1 if goal_sectors[o] == sid else 0
            goal[0, 0] = goal_cells[o, 0]
            goal[0, 1] = goal_cells[o, 1]
            wp = _solve(passable, cost, sx0, sy0, sw, sh, goal[:k], zero[:k], seeds[:m], values[:m], True,
                        sub_pass, sub_cost, allowed, dist, best, direction, uniform_grid)
            c = out_cost[o]
            d = out_direction[o]
            b = out_best[o]
            for y in range(sh):
                for x in range(sw):
                    u = (y + 2) * wp + x + 2
                    c[sy0 + y, sx0 + x] = dist[u]
                    b[sy0 + y, sx0 + x] = best[u]
                    d[sy0 + y, sx0 + x, 0] = direction[u, 0]
                    d[sy0 + y, sx0 + x, 1] = direction[u, 1]
            built[o][sid] = True
