"""Arrival slots: which free slot of a group's hexagonal packing each arriving unit claims.

One numba pass over the units that need a slot this tick (nearest the goal first), so a blob
that fills while hundreds arrive costs no per-unit Python (it cost ~60 µs a unit: an argsort
and a line-of-sight call each).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..grid_sight import segment_clear

__all__ = ["claim_free_slots", "hex_slots"]


def hex_slots(grid, goal: tuple[int, int], centre: np.ndarray, spacing: float, count: int) -> np.ndarray:
    """Up to ``2 · count`` points of a hexagonal packing of pitch ``spacing`` around ``centre``
    (the goal cell's ``goal`` world point), nearest first: on open cells of the goal's component,
    each in straight sight of the centre. ``(k, 2)`` world points."""
    reach = 3.0 * spacing * math.sqrt(count) + 2 * grid.cell_size
    rows_n = int(reach / (spacing * math.sqrt(3) / 2)) + 1
    cols_n = int(reach / spacing) + 1
    j, i = np.mgrid[-rows_n:rows_n + 1, -cols_n:cols_n + 1]
    pts = np.stack([(i + 0.5 * (j % 2)) * spacing, j * spacing * math.sqrt(3) / 2], axis=-1).reshape(-1, 2) + centre
    cells = grid.world_to_cells(pts)
    inside = (cells[:, 0] >= 0) & (cells[:, 0] < grid.width) & (cells[:, 1] >= 0) & (cells[:, 1] < grid.height)
    pts, cells = pts[inside], cells[inside]
    labels = grid.components()
    pts = pts[labels[cells[:, 1], cells[:, 0]] == labels[goal[1], goal[0]]]
    # nearest first, then sight checked in slices until enough are found (the reach is ~9x the
    # area the slots fill: checking every point cost ~6 ms in the tick a 500-unit group arrived)
    pts = pts[np.argsort(np.hypot(*(pts - centre).T), kind="stable")]
    seen: list[np.ndarray] = []
    found = 0
    for at in range(0, len(pts), 4 * count):
        part = pts[at:at + 4 * count]
        part = part[grid.segments_clear(np.repeat(centre[None], len(part), axis=0), part)]
        seen.append(part)
        found += len(part)
        if found >= 2 * count:
            break
    return np.concatenate(seen)[: 2 * count] if seen else pts[:0]


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
