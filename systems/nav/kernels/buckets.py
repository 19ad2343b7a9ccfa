"""What the one-thread and the two-thread field Dijkstra share (``grid_dijkstra.py``,
``parallel_dijkstra.py``): how many unit-wide buckets a grid needs, the seeds sorted into a queue
of their own, and the state a sweep resumes from."""

from __future__ import annotations

import numpy as np
from numba import njit

from .steps import SQRT2

__all__ = ["BUCKET", "SEED", "SETTLED", "QUEUED", "POS", "bucket_count", "sorted_seeds", "save_state", "next_round", "start"]

#: entries of the state array a sweep resumes from (POS: entries of the bucket already taken)
BUCKET, SEED, SETTLED, QUEUED, POS = range(5)


@njit(cache=True)
def bucket_count(cost, uniform):
    """Buckets live at once: the current one and those one step beyond it (a power of two, so a
    key's bucket is ``int(key) & (count - 1)``)."""
    max_cost = 1.0
    if not uniform:
        for i in range(cost.size):
            if cost[i] > max_cost and cost[i] < np.inf:
                max_cost = cost[i]
    nb = 4
    while nb < int(SQRT2 * max_cost) + 3:
        nb *= 2
    return nb


@njit(cache=True)
def sorted_seeds(seeds, seed_values, dist, limit):
    """The seeds that start below ``dist`` and ``limit``, sorted by starting value (goals usually
    all start at 0), their ``dist`` set: ``(nodes int64, keys of dist's dtype)``."""
    order = np.argsort(seed_values)
    nodes = np.empty(seeds.size, dtype=np.int64)
    keys = np.empty(seeds.size, dtype=dist.dtype)
    count = 0
    for i in range(seeds.size):
        s = seeds[order[i]]
        v = dist.dtype.type(seed_values[order[i]])
        if v < dist[s] and v <= limit:
            dist[s] = v
            nodes[count] = s
            keys[count] = v
            count += 1
    return nodes[:count], keys[:count]


@njit(cache=True)
def save_state(state, bucket, seed, settled, queued, pos):
    """Store where a sweep stopped."""
    state[BUCKET] = bucket
    state[SEED] = seed
    state[SETTLED] = settled
    state[QUEUED] = queued
    state[POS] = pos


@njit(cache=True)
def next_round(k, queued, seed_keys, seed_head):
    """``(bucket, seeds joining it)`` of the next round after bucket ``k - 1`` with ``queued``
    entries left; bucket -1 when nothing is left. An empty queue skips to the next seed's bucket."""
    if queued == 0:
        if seed_head >= seed_keys.size:
            return -1, 0
        k = max(k, int(seed_keys[seed_head]))
    joining = 0
    while seed_head + joining < seed_keys.size and seed_keys[seed_head + joining] < k + 1.0:
        joining += 1
    return k, joining


@njit(cache=True)
def start(cost, uniform, seeds, seed_values, dist, limit):
    """A sweep's set-up: ``(bucket count, seed nodes, seed keys, state)``, the state at the first
    seed's bucket (no seeds: nothing to do)."""
    seed_nodes, seed_keys = sorted_seeds(seeds, seed_values, dist, limit)
    state = np.zeros(5, dtype=np.int64)
    if seed_nodes.size:
        state[BUCKET] = int(seed_keys[0])
    return bucket_count(cost, uniform), seed_nodes, seed_keys, state
