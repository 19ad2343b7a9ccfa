"""Arrival chaining: units sent to one point spread around it instead of stacking.

A walking unit close to its target, or held up, that touches a unit already arrived at the same
target cell has arrived too (``SPACING_RADII`` radii, as groups settle). One pass over the agent table in
numba: with 100,000 agents and thousands arrived, the numpy version (masks, ``isin``, fancy
indexing over the whole table) cost ~11 ms on every tick in which a unit came close.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..grid import GridView
from ..steering.proximity_grid import near_any_in_group
from .groups import HEX_DENSITY, SPACING_RADII
from .state import CrowdState, Mode, NavState

__all__ = ["chained_arrivals", "settle_chained", "settle_in_crowd", "CROWD_CELLS"]

#: Slots of the arrived-target-cell filter (a power of two).
_FILTER = 1 << 16
_FOLLOWING, _FINISHED, _PATH = int(NavState.FOLLOWING), int(NavState.FINISHED), int(Mode.PATH)
_FLOW, _CORRIDOR = int(Mode.FLOW), int(Mode.CORRIDOR)
#: Arrived units within this many cells of a stuck unit's target make the crowd it may settle in.
CROWD_CELLS = 4.0


def settle_chained(state: CrowdState, view: GridView) -> np.ndarray:
    """Single units sent to one point spread around it instead of stacking: those touching a
    unit already there stop (velocity 0); returns them, to be marked arrived."""
    touching = chained_arrivals(state, view)
    if len(touching):
        state.velocity[touching] = 0.0
    return touching


def chained_arrivals(state: CrowdState, view: GridView) -> np.ndarray:
    """Ids of walking single units that arrive this tick by touching an arrived unit with the
    same target cell."""
    n = state.size
    return _chained(state.nav_state[:n, 0], state.mode[:n], state.alive[:n], state.path_len[:n],
                    state.path_idx[:n], state.position[:n], state.target[:n],
                    np.ascontiguousarray(state.radius[:n]), state.still_for[:n],
                    np.ascontiguousarray(state.has_target[:n]), view)


@njit(cache=True, inline="always")
def _target_key(target, i, frame):
    """The target cell of agent ``i`` as one integer (``frame``: origin x, y, cell size, width;
    scalars, not the grid view: unpacking its arrays in a loop costs reference counting)."""
    origin_x, origin_y, cell_size, width = frame
    cx = int(math.floor((target[i, 0] - origin_x) / cell_size))
    cy = int(math.floor((target[i, 1] - origin_y) / cell_size))
    return cy * (width + 1) + cx


@njit(cache=True, inline="always")
def _in_sorted(keys, key):
    """``key`` in the sorted ``keys`` (a plain binary search: numba's scalar ``searchsorted`` was
    ~60 ns a call)."""
    lo = 0
    hi = keys.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo < keys.shape[0] and keys[lo] == key


@njit(cache=True)
def _chained(nav_state, mode, alive, path_len, path_idx, position, target, radius, still_for, has_target, view):
    """``chained_arrivals``' kernel: candidates (close to the target or held up),
    those whose target cell has arrived units (binary search in their sorted keys), then the
    touch test on those few."""
    n = nav_state.shape[0]
    cell_size = view.cell_size
    frame = (view.origin_x, view.origin_y, cell_size, view.passable.shape[1])
    walking = np.empty(n, dtype=np.int64)
    w = 0
    for i in range(n):
        # (not only on its last leg: a re-plan around the crowd at its goal has waypoints left)
        # units on their own paths, and group members steered by their group's field (a member
        # held outside a packed crowd of settled mates settles at its edge, as units do)
        own_path = mode[i] == _PATH and path_len[i] > 0
        if not (nav_state[i] == _FOLLOWING and alive[i] and (own_path or mode[i] == _FLOW or mode[i] == _CORRIDOR)):
            continue
        near = 3 * SPACING_RADII * radius[i] + cell_size
        dx = position[i, 0] - target[i, 0]
        dy = position[i, 1] - target[i, 1]
        if dx * dx + dy * dy <= near * near or still_for[i] > 0.25:
            walking[w] = i
            w += 1
    if w == 0:
        return walking[:0]
    done = np.empty(n, dtype=np.int64)
    d = 0
    for i in range(n):
        if nav_state[i] == _FINISHED and alive[i] and has_target[i]:
            done[d] = i
            d += 1
    if d == 0:
        return walking[:0]
    done = done[:d]
    done_key = np.empty(d, dtype=np.int64)
    for k in range(d):
        done_key[k] = _target_key(target, done[k], frame)
    keys = np.sort(done_key)
    seen = np.zeros(_FILTER, dtype=np.bool_)                 # a cheap first test (binary search
    for k in range(d):                                      # branches mispredict: ~50 ns a unit)
        seen[done_key[k] & (_FILTER - 1)] = True
    shared = 0                                              # walking units whose target cell has arrivals
    reach = 0.0
    walking_key = np.empty(w, dtype=np.int64)
    for k in range(w):
        key = _target_key(target, walking[k], frame)
        if seen[key & (_FILTER - 1)] and _in_sorted(keys, key):
            walking[shared] = walking[k]
            walking_key[shared] = key
            shared += 1
            reach = max(reach, (SPACING_RADII + 0.5) * radius[walking[k]])      # of those tested only
    if shared == 0:
        return walking[:0]
    walking = walking[:shared]
    walking_key = walking_key[:shared]
    w = shared
    queries = np.empty((w, 2))
    points = np.empty((d, 2))
    for k in range(w):
        queries[k, 0] = position[walking[k], 0]
        queries[k, 1] = position[walking[k], 1]
    for k in range(d):
        points[k, 0] = position[done[k], 0]
        points[k, 1] = position[done[k], 1]
    touching = near_any_in_group(queries, walking_key, points, done_key, reach)
    return walking[touching]


def settle_in_crowd(state: CrowdState, agents: np.ndarray, cell_size: float) -> np.ndarray:
    """Single units among ``agents`` (without progress for a while) whose target lies inside a
    crowd of arrived units, that touch one of them and stand within the disc that crowd would
    pack into around the target, have arrived: they are part of it (as group units settle in
    their arrival disc) instead of pressing on until their order fails. Stops them; returns them."""
    s = state
    n = s.size
    alone = agents[(s.mode[agents] == Mode.PATH) & (s.flock_group[agents, 0] < 0)]
    done = np.flatnonzero((s.nav_state[:n, 0] == NavState.FINISHED) & s.alive[:n])
    if len(alone) == 0 or len(done) == 0:
        return agents[:0]
    here = s.position[done, :2]
    target, pos, r = s.target[alone, :2], s.position[alone, :2], s.radius[alone]
    # a few units a tick (each reported at most once per ``stuck_after``): all pairs at once
    around = (np.hypot(*(here[None] - target[:, None]).transpose(2, 0, 1)) <= CROWD_CELLS * cell_size).sum(axis=1)
    touching = (np.hypot(*(here[None] - pos[:, None]).transpose(2, 0, 1)) <= ((SPACING_RADII + 0.5) * r)[:, None]).any(axis=1)
    disc = 0.5 * SPACING_RADII * r * np.sqrt((around + 1) / HEX_DENSITY) + 0.5 * cell_size
    arrived = alone[(around > 0) & touching & (np.hypot(*(pos - target).T) <= disc)]
    if len(arrived):
        s.velocity[arrived] = 0.0
    return arrived
