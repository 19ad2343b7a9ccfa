"""The grid Dijkstra on a uniform grid (every step 1 or √2): two FIFO queues instead of a
priority queue.

Why two queues are exact: Dijkstra pops nodes in nondecreasing distance, so the keys pushed
by straight steps (``d(u) + 1``) arrive in nondecreasing order, and so do those pushed by
diagonal steps (``d(u) + √2``): each queue is sorted by construction, and the smaller of the two
heads is the global minimum (the multiple-queue form of Dial's algorithm for few distinct step
costs; Dial 1969, Ahuja et al., "Network Flows", §4.6). An improved node is pushed again; its
older entry is recognised as stale by its key no longer equalling ``dist`` (a node's live entry
is the only one whose key does: improvements are strict). Each pop and push is O(1) and both
queues are read and written in order — no heap, no bucket lists; 2-2.5× faster than the bucket
queue on 1024²-4096² maps, with the same distances (the same fixpoint of
``d(v) = min d(u) + step`` in the same float arithmetic; tests compare both kernels).

The queues are ring buffers that grow by doubling: their live part is the wavefront, so memory
is O(frontier), not O(cells) (no page faults for map-sized scratch arrays).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .steps import SQRT2

__all__ = ["integrate_uniform"]


#: entries of the state array the sweep resumes from
_SH, _ST, _DH, _DT, _SEED, _SETTLED = range(6)


@njit(cache=True)
def _grow(nodes, keys, head, tail):
    """Double a ring buffer, its live entries ``head..tail`` moved to the front in order."""
    cap = nodes.size
    count = tail - head
    new_nodes = np.empty(2 * cap, dtype=nodes.dtype)
    new_keys = np.empty(2 * cap, dtype=keys.dtype)
    mask = cap - 1
    for i in range(count):
        j = (head + i) & mask
        new_nodes[i] = nodes[j]
        new_keys[i] = keys[j]
    return new_nodes, new_keys


@njit(cache=True)
def integrate_uniform(moves, wp, seeds, seed_values, allowed, dist, limit):
    """Fill ``dist`` (padded flat, pre-set to inf) with the cost to the nearest seed on a uniform
    grid (``moves``: its legal-move masks; ``wp``: its padded width). Arguments and result as
    ``grid_dijkstra.integrate``'s: ``seeds`` / ``seed_values`` padded flat cells and their
    starting costs, ``allowed`` the cells that may be entered (a 1-element array = all),
    ``limit`` the largest cost kept. Returns the number of cells settled.

    >>> import numpy as np
    >>> from rtsnav.systems.nav import Grid
    >>> grid = Grid(np.ones((3, 4), dtype=bool))
    >>> _, wp = grid.padded()
    >>> dist = np.full(5 * 6, np.inf)
    >>> integrate_uniform(grid.move_masks(), wp, np.array([wp + 1]), np.zeros(1), np.ones(1, np.uint8), dist, np.inf)
    12
    >>> round(float(dist[3 * wp + 4]), 4)              # cell (3, 2): two diagonal steps and one straight
    3.8284
    """
    ftype = dist.dtype.type
    # seeds: a third queue, sorted by starting value (goals usually all start at 0)
    order = np.argsort(seed_values)
    seed_nodes = np.empty(seeds.size, dtype=np.int64)
    seed_keys = np.empty(seeds.size, dtype=dist.dtype)
    seed_count = 0
    for i in range(seeds.size):
        s = seeds[order[i]]
        v = ftype(seed_values[order[i]])
        if v < dist[s] and v <= limit:
            dist[s] = v
            seed_nodes[seed_count] = s
            seed_keys[seed_count] = v
            seed_count += 1
    cap = 1024
    while cap < 4 * wp:
        cap *= 2
    sq_nodes = np.empty(cap, dtype=np.int32)           # pushed by straight steps
    sq_keys = np.empty(cap, dtype=dist.dtype)
    dq_nodes = np.empty(cap, dtype=np.int32)           # pushed by diagonal steps
    dq_keys = np.empty(cap, dtype=dist.dtype)
    state = np.zeros(6, dtype=np.int64)
    while not _sweep(moves, wp, seed_nodes[:seed_count], seed_keys[:seed_count], allowed, dist, limit,
                     sq_nodes, sq_keys, dq_nodes, dq_keys, state):
        # a queue is nearly full: grow it (the sweep never reallocates, which keeps its loop tight)
        if state[_ST] - state[_SH] > sq_nodes.size - 8:
            sq_nodes, sq_keys = _grow(sq_nodes, sq_keys, state[_SH], state[_ST])
            state[_ST] -= state[_SH]
            state[_SH] = 0
        if state[_DT] - state[_DH] > dq_nodes.size - 8:
            dq_nodes, dq_keys = _grow(dq_nodes, dq_keys, state[_DH], state[_DT])
            state[_DT] -= state[_DH]
            state[_DH] = 0
    return state[_SETTLED]


@njit(cache=True, inline="always")
def _relax(m, first, u, offs, du, step, limit, dist, restrict, allowed, q_nodes, q_keys, tail):
    """Relax the four moves ``first..first+3`` (straight or diagonal: one step length, one
    queue) from node ``u`` of distance ``du``; returns the queue's new tail."""
    wide = du + step                                    # in float64, rounded as the bucket kernel does
    nd = dist.dtype.type(wide)
    mask = q_nodes.size - 1
    for k in range(first, first + 4):
        if (m >> k) & 1 == 0:
            continue
        v = u + offs[k]
        if nd < dist[v] and wide <= limit:
            if restrict and allowed[v] == 0:
                continue
            dist[v] = nd
            q_nodes[tail & mask] = v
            q_keys[tail & mask] = nd
            tail += 1
    return tail


@njit(cache=True)
def _sweep(moves, wp, seed_nodes, seed_keys, allowed, dist, limit, sq_nodes, sq_keys, dq_nodes, dq_keys, state):
    """Pop and relax until both queues are empty (True) or one has fewer than 8 free slots
    (False: the caller grows it and calls again). Resumes from ``state``."""
    restrict = allowed.size == dist.size
    ftype = dist.dtype.type
    sh, st, dh, dt, seed_head, settled = state[0], state[1], state[2], state[3], state[4], state[5]
    seed_count = seed_nodes.size
    smask = sq_nodes.size - 1
    dmask = dq_nodes.size - 1
    slack = sq_nodes.size - 4
    dslack = dq_nodes.size - 4
    offs = np.array((1, -1, wp, -wp, wp + 1, wp - 1, -wp + 1, -wp - 1))
    inf = ftype(np.inf)
    done = False
    while True:
        if st - sh > slack or dt - dh > dslack:
            break
        while sh < st and sq_keys[sh & smask] != dist[sq_nodes[sh & smask]]:
            sh += 1                                     # stale: improved since it was queued
        while dh < dt and dq_keys[dh & dmask] != dist[dq_nodes[dh & dmask]]:
            dh += 1
        a = sq_keys[sh & smask] if sh < st else inf
        b = dq_keys[dh & dmask] if dh < dt else inf
        c = inf
        if seed_head < seed_count:
            while seed_head < seed_count and seed_keys[seed_head] != dist[seed_nodes[seed_head]]:
                seed_head += 1
            if seed_head < seed_count:
                c = seed_keys[seed_head]
        if c < a and c < b:
            u = seed_nodes[seed_head]
            du = c
            seed_head += 1
        elif a <= b:
            if a == inf:
                done = True
                break
            u = sq_nodes[sh & smask]
            du = a
            sh += 1
        else:
            u = dq_nodes[dh & dmask]
            du = b
            dh += 1
        settled += 1
        m = moves[u]
        st = _relax(m, 0, u, offs, du, 1.0, limit, dist, restrict, allowed, sq_nodes, sq_keys, st)
        dt = _relax(m, 4, u, offs, du, SQRT2, limit, dist, restrict, allowed, dq_nodes, dq_keys, dt)
    state[0] = sh
    state[1] = st
    state[2] = dh
    state[3] = dt
    state[4] = seed_head
    state[5] = settled
    return done
