"""Eikonal integration: the fast marching method (Sethian 1996) with Godunov upwind updates.

Solves ``|∇T| = cost`` (cost = 1 / speed: the terrain cost) on the 4-connected grid, first
order: a cell's time comes from its smallest known neighbour along x (``a``) and along y
(``b``): ``T = (a + b + sqrt(2c² - (a - b)²)) / 2`` when ``|a - b| < c``, else ``min(a, b) + c``.
Travel times follow straight lines far better than the 8-neighbour Dijkstra's octile metric
(which is up to 8% long off the axes); first-order marching keeps a small error along the
diagonals near the source instead.

Fast marching rather than fast sweeping or fast iterative: it visits each cell once in order
and stops early when asked (``limit``); sweeping needs several passes over the whole map
whatever the obstacles. Its queue is an untidy bucket queue (see ``fast_marching``).

The source is set up as scikit-fmm sets up a zero contour around one negative cell (the
benchmark compares the two): the goal cell at ``√2/4`` of a cell, its four neighbours at half a
cell (times × their cost).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["fast_marching", "source_seeds"]


#: Bucket width of the untidy priority queue, as a fraction of the cheapest open cell's cost.
BUCKET = 0.1


@njit(cache=True, inline="always")
def _solve(dist, closed, wp, v, c):
    """Godunov upwind time of padded cell ``v`` from its accepted (``closed``) neighbours."""
    left = dist[v - 1] if closed[v - 1] else np.inf
    right = dist[v + 1] if closed[v + 1] else np.inf
    up = dist[v - wp] if closed[v - wp] else np.inf
    down = dist[v + wp] if closed[v + wp] else np.inf
    a = min(left, right)
    b = min(up, down)
    if a > b:
        a, b = b, a
    if b - a >= c:
        return a + c
    return 0.5 * (a + b + math.sqrt(2.0 * c * c - (b - a) * (b - a)))


@njit(cache=True)
def _cost_range(free, cost):
    c_min, c_max = np.inf, 0.0
    for u in range(free.size):
        if free[u]:
            c_min = min(c_min, cost[u])
            c_max = max(c_max, cost[u])
    return c_min, c_max


@njit(cache=True)
def _set_seeds(free, seeds, seed_values, dist):
    """Seed times into ``dist``; returns the smallest (inf when no seed is open)."""
    low = np.inf
    for k in range(seeds.size):
        s = seeds[k]
        if free[s]:
            dist[s] = min(dist[s], seed_values[k])
    for k in range(seeds.size):
        if free[seeds[k]]:
            low = min(low, dist[seeds[k]])
    return low


@njit(cache=True, inline="always")
def _push(cell, nxt, head, b, v, spare, used):
    """Put cell ``v`` on bucket ``b``'s stack in a reused entry (or the next new one); the
    caller grows the arrays first when neither is left."""
    if spare >= 0:
        e = spare
        spare = nxt[e]
    else:
        e = used
        used += 1
    cell[e] = v
    nxt[e] = head[b]
    head[b] = e
    return spare, used


@njit(cache=True)
def _grown(a):
    return np.concatenate((a, np.empty(a.size, dtype=a.dtype)))


@njit(cache=True)
def fast_marching(free, cost, wp, seeds, seed_values, dist, limit):
    """Fill ``dist`` (padded flat float, pre-set to inf) with first-order travel times from the
    ``seeds`` (padded flat cells at ``seed_values``) over the open cells of ``free``; cells
    beyond ``limit`` stay inf. Returns the cells accepted.

    The queue is untidy (Yatziv, Bartesaghi & Sapiro, "O(N) implementation of the fast marching
    algorithm", 2006): a ring of buckets ``BUCKET`` × the cheapest cost wide, each a stack; a
    cell is accepted in bucket order, not exactly in time order. O(1) a push and a pop instead
    of the heap's O(log n): 2× faster on a 1024² map, travel times within 0.013% of scikit-fmm's
    exact-order ones there (the error is of the order of the bucket width, well under the
    scheme's own). A cell whose time improves is pushed again; the stale entry, in the same or a
    later bucket, pops after the fresh one and finds the cell accepted."""
    c_min, c_max = _cost_range(free, cost)
    low = _set_seeds(free, seeds, seed_values, dist)
    if not (c_min < np.inf and low < np.inf):
        return 0
    delta = BUCKET * c_min
    inv = 1.0 / delta
    ring = int(math.ceil((c_max + 2.0 * delta) * inv)) + 2       # a push lands at most c_max ahead
    head = np.full(ring, -1, dtype=np.int64)
    cell = np.empty(1024, dtype=np.int64)
    nxt = np.empty(1024, dtype=np.int64)
    spare, used, count = -1, 0, 0               # spare: popped entries, reused
    closed = np.zeros(free.size, dtype=np.bool_)
    base = math.floor(low * inv) * delta
    for k in range(seeds.size):
        if free[seeds[k]]:                        # a seed listed twice: its second entry is stale
            if used == cell.size:
                cell, nxt = _grown(cell), _grown(nxt)
            spare, used = _push(cell, nxt, head, int((dist[seeds[k]] - base) * inv) % ring, seeds[k], spare, used)
            count += 1
    cur, accepted = 0, 0
    while count > 0:
        e = head[cur]
        if e < 0:
            cur = cur + 1 if cur + 1 < ring else 0
            base += delta
            continue
        head[cur] = nxt[e]
        nxt[e] = spare
        spare = e
        count -= 1
        u = cell[e]
        if closed[u]:
            continue
        closed[u] = True
        if dist[u] > limit:
            dist[u] = np.inf
            continue
        accepted += 1
        for v in (u + 1, u - 1, u + wp, u - wp):
            if not free[v] or closed[v]:
                continue
            t = _solve(dist, closed, wp, v, cost[v])
            if t < dist[v]:
                dist[v] = t
                off = int((t - base) * inv)
                b = cur + off if off > 0 else cur
                if b >= ring:
                    b -= ring
                if spare >= 0:
                    e = spare
                    spare = nxt[e]
                else:
                    if used == cell.size:
                        cell, nxt = _grown(cell), _grown(nxt)
                    e = used
                    used += 1
                cell[e] = v
                nxt[e] = head[b]
                head[b] = e
                count += 1
    return accepted


def source_seeds(free: np.ndarray, cost: np.ndarray, wp: int, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Seeds for goal cells (padded flat): each goal at ``√2/4`` × its cost, its open 4-neighbours
    at half their cost — the zero contour scikit-fmm puts around a negative cell."""
    seeds, values = [], []
    for u in np.asarray(cells, dtype=np.int64).reshape(-1):
        seeds.append(u)
        values.append(math.sqrt(2.0) / 4.0 * cost[u])
        for v in (u + 1, u - 1, u + wp, u - wp):
            if free[v]:
                seeds.append(v)
                values.append(0.5 * cost[v])
    return np.asarray(seeds, dtype=np.int64), np.asarray(values, dtype=np.float64)
