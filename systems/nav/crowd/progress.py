"""The progress watch: no agent stays walking without moving or being told.

Every walking agent has an anchor: where it last made progress. Moving ``PROGRESS_DISTANCE``
cells from it is progress (the anchor moves there) — except for units steered by a group's field,
for which only a new lowest cost to go on that field (by ``PROGRESS_DISTANCE``) is progress: a
crowd jostling in a dead end moves but gets nowhere. Waiting in a moving queue counts as progress
too: an agent whose anchor is old but that stands within reach of an agent that just progressed,
or of one waiting behind such an agent, is waiting in the queue (the chain reaches back through
a crowd at a one-cell gap; in a true deadlock nobody progresses, so nobody is excused). An agent without progress for
``stuck_after`` seconds gets a ``stuck`` event and a recovery, one step further each time:

1. re-plan from where it stands (its own path, or its group's plan);
2. walk alone: leave the group and plan an own A* path from where it stands;
3. aim at the reachable point nearest its target;
and after ``max_recoveries`` failed tries the order fails with ``path_failed`` and a reason.
Coming ``RESET_DISTANCE`` cells closer to its target than ever on this order resets the count.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ..kernels.threads import threads_for
from ..steering.proximity_grid import near_any
from .state import CrowdState

__all__ = ["watch_progress", "PROGRESS_DISTANCE", "RESET_DISTANCE", "QUEUE_REACH_RADII", "QUEUE_REACH_CELLS"]

#: Cells an agent must move from its anchor to count as progress.
PROGRESS_DISTANCE = 0.5
#: Cells closer to the target than ever before that reset the recovery count.
RESET_DISTANCE = 2.0
#: An agent within this many radii (at least ``QUEUE_REACH_CELLS``) of an agent that just
#: progressed is waiting in a queue.
QUEUE_REACH_RADII = 3.0
QUEUE_REACH_CELLS = 1.5
#: An anchor younger than this (seconds) counts as "just progressed" for the queue rule.
FRESH = 0.5
#: Hops the queue rule follows back through waiting units per check.
QUEUE_HOPS = 12
#: Ticks between applications of the queue rule.
QUEUE_CHECK_EVERY = 4


def watch_progress(state: CrowdState, dt: float, cell_size: float, stuck_after: float, tick: int = 0) -> np.ndarray:
    """Update every walking agent's anchor; returns the ids stuck now (their clocks restart).
    The queue rule runs every ``QUEUE_CHECK_EVERY`` ticks (it caps a waiting clock at half of
    ``stuck_after``, so a waiting unit never reaches it in between)."""
    s = state
    n = s.size
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    kinds = np.zeros(n, dtype=np.uint8)               # 1 walking, 2 just progressed, 4 waiting long
    with threads_for(n):
        _watch(s.alive, s.nav_state[:, 0], s.paused[:], s.position, s.target, s.anchor_x, s.anchor_y,
               s.still_for, s.best_distance, s.togo, s.best_togo, s.recoveries, dt, PROGRESS_DISTANCE * cell_size,
               RESET_DISTANCE * cell_size, FRESH, kinds)
    old = np.flatnonzero(kinds & 4)
    if len(old) and tick % QUEUE_CHECK_EVERY == 0:
        fresh = np.flatnonzero(kinds & 2)
        reach = max(QUEUE_REACH_RADII * float(s.radius[old].max()), QUEUE_REACH_CELLS * cell_size)
        waiting = np.zeros(len(old), dtype=bool)
        # the queue runs back from the units that progressed, through the units waiting behind
        # them, as far as it goes (a few hops a check; a queue behind a gap is a chain)
        for _ in range(QUEUE_HOPS):
            if len(fresh) == 0:
                break
            behind = near_any(np.ascontiguousarray(s.position[old, :2]), np.ascontiguousarray(s.position[fresh, :2]),
                              reach) & ~waiting
            if not behind.any():
                break
            waiting |= behind
            fresh = old[behind]
        s.still_for[old[waiting]] = np.minimum(s.still_for[old[waiting]], stuck_after / 2)
    stuck = old[s.still_for[old] >= stuck_after]
    s.still_for[stuck] = 0.0
    s.anchor_x[stuck] = s.position[stuck, 0]
    s.anchor_y[stuck] = s.position[stuck, 1]
    return stuck


@njit(cache=True, parallel=True)
def _watch(alive, nav_state, paused, position, target, anchor_x, anchor_y, still_for, best, togo, best_togo,
           recoveries, dt, progress_distance, reset_distance, fresh, kinds):
    for a in prange(alive.shape[0]):
        if not alive[a] or paused[a] or nav_state[a] != 2:
            continue
        kinds[a] = 1
        px, py = position[a, 0], position[a, 1]
        if not math.isnan(togo[a]):
            # on a group field: progress is a new lowest cost to go (jostling in place is not)
            if togo[a] <= best_togo[a] - progress_distance:
                best_togo[a] = togo[a]
                anchor_x[a] = px
                anchor_y[a] = py
                still_for[a] = 0.0
            else:
                still_for[a] += dt
        elif (px - anchor_x[a]) ** 2 + (py - anchor_y[a]) ** 2 > progress_distance * progress_distance:
            anchor_x[a] = px
            anchor_y[a] = py
            still_for[a] = 0.0
        else:
            still_for[a] += dt
        d = math.sqrt((target[a, 0] - px) ** 2 + (target[a, 1] - py) ** 2)
        if d < best[a] - reset_distance:
            best[a] = d
            recoveries[a] = 0
        if still_for[a] <= fresh:
            kinds[a] |= 2
        else:
            kinds[a] |= 4
