"""Arrival slots: which free slot of a group's hexagonal packing each arriving unit claims.

One numba pass over the units that need a slot this tick (nearest the goal first), so a blob
that fills while hundreds arrive costs no per-unit Python (it cost ~60 µs a unit: an argsort
and a line-of-sight call each).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..grid import segment_clear

__all__ = ["claim_free_slots"]


@njit(cache=True)
def claim_free_slots(slots, slot_distance, taken, unit_x, unit_y, inner_first, candidates,
                     passable, cell_size, origin_x, origin_y):
    """For each unit ``(unit_x[k], unit_y[k])`` in turn: of the free slots (``~taken``), the
    ``candidates`` best by distance + ``inner_first`` × the slot's distance from the goal (ties:
    lower slot first), the first one in straight sight is claimed (``taken`` updated). Returns
    each unit's slot, -1 where none was free or in sight (it walks on and tries next tick)."""
    m = slots.shape[0]
    picked = np.full(unit_x.shape[0], -1, dtype=np.int64)
    best = np.empty(candidates, dtype=np.int64)
    best_d = np.empty(candidates)
    for k in range(unit_x.shape[0]):
        x = unit_x[k]
        y = unit_y[k]
        count = 0
        for j in range(m):
            if taken[j]:
                continue
            d = math.hypot(slots[j, 0] - x, slots[j, 1] - y) + inner_first * slot_distance[j]
            if count == candidates and d >= best_d[count - 1]:
                continue
            at = count if count < candidates else candidates - 1
            while at > 0 and best_d[at - 1] > d:          # ties keep the lower slot first
                if at < candidates:
                    best[at] = best[at - 1]
                    best_d[at] = best_d[at - 1]
                at -= 1
            best[at] = j
            best_d[at] = d
            if count < candidates:
                count += 1
        for c in range(count):
            j = best[c]
            if segment_clear(passable, cell_size, origin_x, origin_y, x, y, slots[j, 0], slots[j, 1]):
                picked[k] = j
                taken[j] = True
                break
    return picked
