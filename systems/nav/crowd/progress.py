"""The progress watch: no agent stays walking without moving or being told.

Every walking agent has an anchor: where it last made progress. Moving ``PROGRESS_DISTANCE``
cells from it is progress (the anchor moves there). Waiting in a moving queue counts as progress
too: an agent whose anchor is old but that stands within reach of an agent that just progressed
is waiting behind it (the chain reaches back through a queue at a one-cell gap; in a true
deadlock nobody progresses, so nobody is excused). An agent without progress for
``stuck_after`` seconds gets a ``stuck`` event and a recovery, one step further each time:

1. re-plan from where it stands (its own path, or its group's plan);
2. walk alone: leave the group and plan an own A* path from where it stands;
3. aim at the reachable point nearest its target;
and after ``max_recoveries`` failed tries the order fails with ``path_failed`` and a reason.
Coming ``RESET_DISTANCE`` cells closer to its target than ever on this order resets the count.
"""

from __future__ import annotations

import numpy as np

from ..steering.proximity_grid import near_any
from .state import F_PAUSED, P_RADIUS, CrowdState, NavState

__all__ = ["watch_progress", "PROGRESS_DISTANCE", "RESET_DISTANCE", "QUEUE_REACH_RADII"]

#: Cells an agent must move from its anchor to count as progress.
PROGRESS_DISTANCE = 0.5
#: Cells closer to the target than ever before that reset the recovery count.
RESET_DISTANCE = 2.0
#: An agent this many radii (plus one cell) from an agent that just progressed is waiting in a queue.
QUEUE_REACH_RADII = 3.0
#: An anchor younger than this (seconds) counts as "just progressed" for the queue rule.
FRESH = 0.5


def watch_progress(state: CrowdState, dt: float, cell_size: float, stuck_after: float) -> np.ndarray:
    """Update every walking agent's anchor; returns the ids stuck now (their clocks restart)."""
    s = state
    n = s.size
    walking = np.flatnonzero((s.nav_state[:n, 0] == NavState.FOLLOWING) & s.alive[:n] & ~s.agent_flags[:n, F_PAUSED])
    if len(walking) == 0:
        return walking
    pos = s.position[walking, :2]
    away = np.hypot(pos[:, 0] - s.anchor_x[walking], pos[:, 1] - s.anchor_y[walking]) > PROGRESS_DISTANCE * cell_size
    moved = walking[away]
    s.anchor_x[moved] = pos[away, 0]
    s.anchor_y[moved] = pos[away, 1]
    s.still_for[moved] = 0.0
    still = walking[~away]
    s.still_for[still] += dt
    # closer to the target than ever: the recovery count starts again
    distance = np.hypot(s.target[walking, 0] - pos[:, 0], s.target[walking, 1] - pos[:, 1])
    better = distance < s.best_distance[walking] - RESET_DISTANCE * cell_size
    s.best_distance[walking[better]] = distance[better]
    s.recoveries[walking[better]] = 0
    old = still[s.still_for[still] > FRESH]
    if len(old):
        fresh = walking[s.still_for[walking] <= FRESH]
        if len(fresh):
            reach = QUEUE_REACH_RADII * float(s.agent_params[walking, P_RADIUS].max()) + cell_size
            queued = near_any(np.ascontiguousarray(s.position[old, :2]), np.ascontiguousarray(s.position[fresh, :2]),
                              reach)
            s.still_for[old[queued]] = np.minimum(s.still_for[old[queued]], stuck_after / 2)
    stuck = walking[s.still_for[walking] >= stuck_after]
    s.still_for[stuck] = 0.0
    s.anchor_x[stuck] = s.position[stuck, 0]
    s.anchor_y[stuck] = s.position[stuck, 1]
    return stuck
