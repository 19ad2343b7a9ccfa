"""The grid Dijkstra on two threads, for map-sized fields: exact, the same distances bit for bit.

Why a bucket can be split between threads: buckets are one cost unit wide and every step costs
at least 1, so no entry of the current bucket can improve another of it (``grid_dijkstra.py``) —
its entries are independent and may be taken in any order, by any thread. (This is Δ-stepping
with Δ equal to the shortest step, where no edge is "light": Meyer & Sanders, "Δ-stepping: a
parallelizable shortest path algorithm", J. Algorithms 2003.)

Who writes where: the map's cells are dealt to the two threads in alternating blocks of
consecutive flat indices (``2**shift`` cells, at least ``BLOCK_ROWS`` rows: the owner of cell
``v`` is ``(v >> shift) & 1``, no division), each thread keeps its own buckets, and it writes
only its own cells' distances. A relaxation into the other thread's cells goes to a mailbox
instead, applied by one thread between rounds (a few percent of relaxations: those across block
edges). So the threads write no memory in common, with no atomics (a thread reads the other's
distances, which only saves mail: a value lowered meanwhile is still a true path's cost); the rounds are parallel
regions, one per bucket (a few microseconds each), taken only when the bucket holds enough work
to pay for it.

Each cell's descent move can be kept as it goes: the move back to the neighbour whose relaxation
last lowered it, written with that distance (by its owner; the mail carries the move). Its final
distance is that neighbour's plus the step, so the move follows a shortest path — the flow
field's best move, found without the direction pass searching every cell's neighbours (4096², 20%
random walls: the pass 8-10 -> 4 ns a cell for 2-3 ns a cell more here). Tried and slower: the
pass's own search (or the whole pass) done as each cell settles, 6-8 ns a cell more here.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .buckets import BUCKET, QUEUED, SEED, SETTLED, next_round, save_state, start
from .prefetch import PREFETCH_AHEAD, prefetch_around
from .steps import move_offsets, step_cost

__all__ = ["integrate_parallel", "BLOCK_ROWS", "NO_MOVES", "BACK_MOVE"]

#: the least number of rows in a block of cells one thread owns (blocks alternate; 32, 64 and
#: 128 measured 21.1 / 20.4 / 19.5 ns a cell on 20% random walls at 4096²)
BLOCK_ROWS = 128
#: ``best`` for a run that keeps no moves
NO_MOVES = np.zeros(0, dtype=np.int8)
#: the move back along each move (E<->W, S<->N, SE<->NW, SW<->NE)
BACK_MOVE = np.array((1, 0, 3, 2, 7, 6, 5, 4), dtype=np.int8)


@njit(cache=True)
def integrate_parallel(moves, cost, wp, uniform, seeds, seed_values, allowed, dist, limit, min_parallel, best):
    """``grid_dijkstra.integrate`` (same arguments and result) with each bucket of at least
    ``min_parallel`` entries split between two threads. When ``best`` (padded flat int8, pre-set
    to -1) is as big as ``dist`` it gets each reached cell's descent move (see the module docs;
    -1 stays on seeds never lowered); ``NO_MOVES``: none kept."""
    nb, seed_nodes, seed_keys, state = start(cost, uniform, seeds, seed_values, dist, limit)
    if seed_nodes.size == 0:
        return 0
    shift = 0
    while (1 << shift) < BLOCK_ROWS * wp:
        shift += 1
    cap = 1024
    nodes = np.empty((2, nb, cap), dtype=np.int32)
    keys = np.empty((2, nb, cap), dtype=dist.dtype)
    # per thread a row of bucket fills, at least a cache line apart (no false sharing)
    filled = np.zeros((2, max(nb, 8)), dtype=np.int64)
    while not _sweep(moves, cost, wp, uniform, seed_nodes, seed_keys, allowed, dist, limit,
                     min_parallel, nb, shift, nodes, keys, filled, state, best):
        cap *= 2
        grown_nodes = np.empty((2, nb, cap), dtype=np.int32)
        grown_keys = np.empty((2, nb, cap), dtype=dist.dtype)
        for t in range(2):
            for b in range(nb):
                grown_nodes[t, b, :filled[t, b]] = nodes[t, b, :filled[t, b]]
                grown_keys[t, b, :filled[t, b]] = keys[t, b, :filled[t, b]]
        nodes = grown_nodes
        keys = grown_keys
    return state[SETTLED]


@njit(cache=True)
def _sweep(moves, cost, wp, uniform, seed_nodes, seed_keys, allowed, dist, limit, min_parallel, nb, shift,
           nodes, keys, filled, state, best):
    """Empty buckets in order until none is left (True) or the next round might overflow one
    (False: the caller grows them and calls again). Resumes from ``state``."""
    restrict = allowed.size == dist.size
    mask = nb - 1
    cap = nodes.shape[2]
    offs = move_offsets(wp)
    k, seed_head, settled, queued = state[BUCKET], state[SEED], state[SETTLED], state[QUEUED]
    mail_nodes = np.empty((2, cap), dtype=np.int32)
    mail_keys = np.empty((2, cap), dtype=dist.dtype)
    mail_moves = np.empty((2, cap), dtype=np.int8)
    keep = best.size == dist.size
    counts = np.zeros((2, 8), dtype=np.int64)            # per thread: settled, pushed, mailed (a line each)
    while True:
        k, seeds_now = next_round(k, queued, seed_keys, seed_head)
        if k < 0:
            break
        b = k & mask
        work = filled[0, b] + filled[1, b] + seeds_now
        if filled.max() + 9 * work > cap:
            save_state(state, k, seed_head, settled, queued, 0)
            return False
        for _ in range(seeds_now):                       # this round's seeds join its bucket
            u = seed_nodes[seed_head]
            o = (u >> shift) & 1
            nodes[o, b, filled[o, b]] = u
            keys[o, b, filled[o, b]] = seed_keys[seed_head]
            filled[o, b] += 1
            seed_head += 1
        if work >= min_parallel:
            _round(b, moves, cost, offs, uniform, dist, limit, restrict, allowed, nodes, keys, filled, mask, shift,
                   mail_nodes, mail_keys, mail_moves, counts, best, keep)
        else:
            for t in range(2):
                _take(t, b, moves, cost, offs, uniform, dist, limit, restrict, allowed, nodes[t], keys[t], filled[t],
                      mask, shift, mail_nodes[t], mail_keys[t], mail_moves[t], counts[t], best, keep)
        # the mail: relaxations into the other thread's cells, applied by this thread alone
        for t in range(2):
            for i in range(counts[t, 2]):
                v = mail_nodes[t, i]
                nd = mail_keys[t, i]
                if nd < dist[v]:
                    dist[v] = nd
                    if keep:
                        best[v] = mail_moves[t, i]
                    o = (v >> shift) & 1
                    bb = int(nd) & mask
                    c = filled[o, bb]
                    nodes[o, bb, c] = v
                    keys[o, bb, c] = nd
                    filled[o, bb] = c + 1
                    queued += 1
        settled += counts[0, 0] + counts[1, 0]
        queued += counts[0, 1] + counts[1, 1] + seeds_now - work
        filled[0, b] = 0
        filled[1, b] = 0
        k += 1
    save_state(state, k, seed_head, settled, queued, 0)
    return True


@njit(cache=True, parallel=True)
def _round(b, moves, cost, offs, uniform, dist, limit, restrict, allowed, nodes, keys, filled, mask, shift,
           mail_nodes, mail_keys, mail_moves, counts, best, keep):
    """Bucket ``b`` on two threads, each taking its own cells' entries."""
    for t in prange(2):
        _take(t, b, moves, cost, offs, uniform, dist, limit, restrict, allowed, nodes[t], keys[t], filled[t],
              mask, shift, mail_nodes[t], mail_keys[t], mail_moves[t], counts[t], best, keep)


@njit(cache=True)
def _take(t, b, moves, cost, offs, uniform, dist, limit, restrict, allowed, nodes, keys, filled, mask, shift,
          mail_nodes, mail_keys, mail_moves, counts, best, keep):
    """Thread ``t``'s share of bucket ``b`` (``nodes``, ``keys``, ``filled``, the mail arrays and
    ``counts`` are its own rows): entries relaxed, writing to its own cells only (their ``best``
    too, when ``keep``). Counts are kept in locals and written once."""
    back = BACK_MOVE
    settled = 0
    pushed = 0
    mailed = 0
    count = filled[b]
    for i in range(count):
        if i + PREFETCH_AHEAD < count:                  # the rows around an entry a few ahead
            prefetch_around(dist, moves, nodes[b, i + PREFETCH_AHEAD], offs[2])
        u = nodes[b, i]
        du = keys[b, i]
        if du != dist[u]:                               # stale: improved since it was queued
            continue
        settled += 1
        m = moves[u]
        cu = cost[u] if not uniform else 1.0
        for k in range(8):
            if (m >> k) & 1 == 0:
                continue
            v = u + offs[k]
            wide = du + step_cost(cost, cu, v, k, uniform)     # in float64, then rounded to dist's dtype
            nd = dist.dtype.type(wide)
            # (the other thread's cells are read too: a value it lowers meanwhile only makes
            # this test fail where the mail would have changed nothing)
            if not (nd < dist[v] and wide <= limit):
                continue
            if restrict and allowed[v] == 0:
                continue
            if (v >> shift) & 1 != t:
                mail_nodes[mailed] = v
                mail_keys[mailed] = nd
                mail_moves[mailed] = back[k]
                mailed += 1
            else:
                dist[v] = nd
                if keep:
                    best[v] = back[k]
                bb = int(nd) & mask
                c = filled[bb]
                nodes[bb, c] = v
                keys[bb, c] = nd
                filled[bb] = c + 1
                pushed += 1
    counts[0] = settled
    counts[1] = pushed
    counts[2] = mailed
