"""The steps every resumable best-first search over a ``SearchArrays`` workspace shares: resume
its loop state and save it again (the pop and the relax step stay written out in each loop:
in same-run A/Bs on AcrosstheCape a shared pop helper cost A* 7–10%, a shared relax helper
taking the label arrays doubled A* and bidirectional query times). Inlined into
each search loop at numba's IR level (``inline="always"``), so they cost nothing over writing
them out."""

from __future__ import annotations

import numpy as np
from numba import njit

from .workspace import EXPANDED, GOAL, HEAP_SIZE, STAMP, STATUS, WORK

__all__ = ["resume", "suspend"]


@njit(cache=True, inline="always")
def resume(state, wp):
    """``(stamp, heap size, goal, goal x, goal y, expanded)`` of a search saved in ``state``."""
    goal = state[GOAL]
    return np.int32(state[STAMP]), state[HEAP_SIZE], goal, goal % wp, goal // wp, state[EXPANDED]


@njit(cache=True, inline="always")
def suspend(state, size, expanded, status, work):
    """Save the loop state (``work``: budget units spent this call) and return ``status``."""
    state[HEAP_SIZE] = size
    state[EXPANDED] = expanded
    state[STATUS] = status
    state[WORK] += work
    return status
