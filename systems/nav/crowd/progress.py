"""The progress watch: no agent stays walking without moving or being told.

Every walking agent has an anchor: where it last made progress. Progress is getting nearer the
goal along the way it walks, never mere movement (a crowd jostling in a plug moves but gets
nowhere): for a unit on its own path, coming ``PROGRESS_DISTANCE`` cells nearer its goal along
the path (waypoints passed, then the distance to the next) while really moving that far, half
of it toward the waypoint; for a
unit steered by a group's field, a new lowest cost to go on that field (by
``PROGRESS_DISTANCE``; none where the field does not reach it); for others, moving
``PROGRESS_DISTANCE`` cells from the anchor.

An agent without progress for ``stuck_after`` seconds re-plans around the jams
(``Orders.recover``), whether it waits in a moving queue or not: a long wait is worth another
passage when one is near. A *frozen* agent — one not waiting in a moving queue — also gets a
``stuck`` event (with where it stands) and its recoveries count toward failure — unless the
traffic around it moves (units close by progress, whatever their way: a churning crossing, not a
dead end), when its count is held. A unit waits in
a moving queue when it stands within reach of a unit heading the same way that just progressed,
or of one waiting behind such a unit, and so on back (a queue behind a gap is a chain; in a
true deadlock nobody progresses, so nobody is excused). A frozen
agent's tries: an own A* path around the jams, twice, then the reachable point nearest its
target; after ``max_recoveries`` the order fails with ``path_failed`` and a reason. Coming
``RESET_DISTANCE`` cells closer to its target than ever on this order resets the count.

Progress along a path can be counted for a unit pressed against a wall or a queue that slides
back and forth by a few tenths of a cell (its anchor is where it last progressed, not where it
last really moved). So a second, plainer clock guards the first: a unit under an order that has
not moved ``PROGRESS_DISTANCE`` cells from where it last did for ``stuck_after`` +
``REST_SLACK`` seconds, and was not told meanwhile, is reported and re-plans as one that waited
— what a player (or a test) watching for units that stand still without a word sees.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ..kernels.threads import threads_for
from ..steering.proximity_grid import near_any, near_any_in_group
from .state import CrowdState

__all__ = ["watch_progress", "PROGRESS_DISTANCE", "RESET_DISTANCE", "QUEUE_REACH_RADII", "QUEUE_REACH_CELLS", "FRESH",
           "REST_SLACK"]

#: What passing a waypoint is worth in the path progress measure (more than any leg's length).
_WAYPOINT_WORTH = 1e9
#: Cells an agent must move from its anchor to count as progress.
PROGRESS_DISTANCE = 0.5
#: Cells closer to the target than ever before that reset the recovery count.
RESET_DISTANCE = 2.0
#: An agent within this many radii (at least ``QUEUE_REACH_CELLS``) of an agent that just
#: progressed is waiting in a queue.
QUEUE_REACH_RADII = 3.0
QUEUE_REACH_CELLS = 1.5
#: An anchor younger than this (seconds) counts as "just progressed" for the queue rule ...
FRESH = 0.5
#: ... or than this share of ``stuck_after`` when that is shorter.
FRESH_SHARE = 0.25
#: Sectors of the bearing to the target: units in one sector (of either of two offset
#: divisions) form a queue.
QUEUE_SECTORS = 8
#: Hops the queue rule follows back through waiting units per check.
QUEUE_HOPS = 12
#: A unit that has not really moved for ``stuck_after`` plus this (seconds) is reported even
#: when the progress measure counted its jostling as progress.
REST_SLACK = 0.5


def watch_progress(state: CrowdState, dt: float, cell_size: float,
                   stuck_after: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Update every walking agent's anchor. Returns ``(waited, frozen, churning, unplanned)``:
    the ids without progress for ``stuck_after`` now (their clocks restart; each re-plans around
    the jams), those of them not waiting in a moving queue (stuck: each gets a ``stuck`` event),
    those of the frozen whose traffic around moves (their recovery count is held), and those
    that have waited ``stuck_after`` for a plan (a ``stuck`` event too, no recovery: the plan is
    on its way — a planning budget too small for the orders must not keep units silent)."""
    s = state
    n = s.size
    none = np.zeros(0, dtype=np.int64)
    if n == 0:
        return none, none, none, none
    kinds = np.zeros(n, dtype=np.uint8)               # 1 walking, 2 just progressed, 4 waiting long, 8 no plan yet
    # "just progressed" is a short share of the stuck time: with stuck_after at or under FRESH a
    # reported unit's restarted clock was already due again (a stuck event every tick)
    fresh_for = min(FRESH, FRESH_SHARE * stuck_after)
    with threads_for(n, "progress"):
        _watch(s.alive, s.nav_state[:, 0], s.paused[:], s.position, s.target, s.anchor_x, s.anchor_y,
               s.still_for, s.best_distance, s.togo, s.best_togo, s.recoveries, s.mode, s.path_start, s.path_len,
               s.path_idx, s.paths.points, s.path_best, s.unplanned_for, dt, PROGRESS_DISTANCE * cell_size,
               RESET_DISTANCE * cell_size, fresh_for, stuck_after, kinds)
        _watch_rest(s.alive, s.nav_state[:, 0], s.paused[:], s.position, s.rest_x, s.rest_y, s.rest_for, dt,
                    PROGRESS_DISTANCE * cell_size, stuck_after + REST_SLACK, kinds)
    # units the plain clock caught (not really moved, not told) join those the progress measure did
    resting = np.flatnonzero(kinds & 16)
    unplanned = np.union1d(np.flatnonzero(kinds & 8), resting[s.nav_state[resting, 0] == 1])
    old = np.flatnonzero(kinds & 4)
    stalled = old[s.still_for[old] >= stuck_after]
    stuck = np.union1d(stalled, resting[s.nav_state[resting, 0] == 2])
    s.rest_for[unplanned] = 0.0
    s.rest_for[stuck] = 0.0                              # told now: the plain clock starts again
    if len(stuck) == 0:
        return none, none, none, unplanned
    fresh = np.setdiff1d(np.flatnonzero(kinds & 2), stuck, assume_unique=True)
    # only the progress measure's own can be frozen (the plain clock's were counted as progressing)
    frozen = (stalled[~_in_moving_queue(s, old, fresh, cell_size)[np.searchsorted(old, stalled)]]
              if len(stalled) else none)
    # frozen in traffic that moves (other units progressing close by, any way): its count is
    # held, so a crossing that churns for a while does not fail orders; a dead stop escalates
    reach = max(QUEUE_REACH_RADII * float(s.radius[frozen].max()), QUEUE_REACH_CELLS * cell_size) if len(frozen) else 0.0
    churning = (near_any(np.ascontiguousarray(s.position[frozen, :2]), np.ascontiguousarray(s.position[fresh, :2]),
                         reach) if len(frozen) and len(fresh) else np.zeros(len(frozen), dtype=bool))
    # the clocks restart just past the fresh time (the next event comes stuck_after - fresh_for
    # later: 3.5 s by default): a unit reported is no "just progressed" unit that
    # would excuse the ones around it (mutual excuses kept a dead end silent); its anchor stays
    # where it last progressed (re-anchored where it was reported, a jostle of half a cell
    # counted as progress and kept a unit that had not moved on silent)
    s.still_for[stuck] = fresh_for + 1e-6
    return stuck, frozen, frozen[churning], unplanned


def _in_moving_queue(s: CrowdState, old: np.ndarray, fresh: np.ndarray, cell_size: float) -> np.ndarray:
    """Which of the ``old`` agents (no progress for a while) wait in a moving queue: within
    reach of one heading the same way that just progressed (``fresh``), or of one waiting behind
    such a unit, and so on back (a queue behind a gap is a chain; in a true deadlock nobody
    progresses, so nobody is excused)."""
    n = s.size
    reach = max(QUEUE_REACH_RADII * float(s.radius[old].max()), QUEUE_REACH_CELLS * cell_size)
    waiting = np.zeros(len(old), dtype=bool)
    # a queue is units heading the same way (a unit waiting while the other flow passes is not
    # in a moving queue): the bearing to the target in sectors, twice half a sector apart
    bearing = np.nan_to_num(np.arctan2(*(s.target[:n, 1::-1] - s.position[:n, 1::-1]).T)) / (2 * np.pi / QUEUE_SECTORS)
    sectors = [np.floor(bearing).astype(np.int64) % QUEUE_SECTORS,
               np.floor(bearing + 0.5).astype(np.int64) % QUEUE_SECTORS]
    here = np.ascontiguousarray(s.position[old, :2])
    for _ in range(QUEUE_HOPS):
        if len(fresh) == 0:
            break
        there = np.ascontiguousarray(s.position[fresh, :2])
        behind = np.zeros(len(old), dtype=bool)
        for sector in sectors:
            behind |= near_any_in_group(here, sector[old], there, sector[fresh], reach)
        behind &= ~waiting
        if not behind.any():
            break
        waiting |= behind
        fresh = old[behind]
    return waiting


@njit(cache=True)
def _watch_rest(alive, nav_state, paused, position, rest_x, rest_y, rest_for, dt, distance, due, kinds):
    """The plain clock (see the module docs): seconds under an order (planning or walking, not
    paused) since the agent last moved ``distance`` from where it last did; ``kinds |= 16`` when
    it reaches ``due``."""
    for a in range(alive.shape[0]):
        if not alive[a]:
            continue
        px, py = position[a, 0], position[a, 1]
        if math.isnan(rest_x[a]) or (px - rest_x[a]) ** 2 + (py - rest_y[a]) ** 2 >= distance * distance:
            rest_x[a] = px
            rest_y[a] = py
            rest_for[a] = 0.0
        elif (nav_state[a] == 1 or nav_state[a] == 2) and not paused[a]:
            rest_for[a] += dt
            if rest_for[a] >= due:
                kinds[a] |= 16
        else:
            rest_for[a] = 0.0


@njit(cache=True, inline="always")
def _nearer(px, py, ax, ay, tx, ty, progress_distance):
    """Moved ``progress_distance`` from the anchor ``(ax, ay)`` and that much nearer the target."""
    was = math.sqrt((tx - ax) ** 2 + (ty - ay) ** 2)
    now = math.sqrt((tx - px) ** 2 + (ty - py) ** 2)
    return now <= was - progress_distance and (px - ax) ** 2 + (py - ay) ** 2 >= progress_distance ** 2


@njit(cache=True, parallel=True)
def _watch(alive, nav_state, paused, position, target, anchor_x, anchor_y, still_for, best, togo, best_togo,
           recoveries, mode, path_start, path_len, path_idx, points, path_best, unplanned_for, dt,
           progress_distance, reset_distance, fresh, stuck_after, kinds):
    for a in prange(alive.shape[0]):
        if not alive[a] or paused[a]:
            continue
        if nav_state[a] == 1:
            # waiting for its plan (or its group's field): reported each stuck_after it waits,
            # unless its quick route (mode 6) brings it nearer its target meanwhile
            if mode[a] == 6 and _nearer(position[a, 0], position[a, 1], anchor_x[a], anchor_y[a], target[a, 0],
                                        target[a, 1], progress_distance):
                anchor_x[a] = position[a, 0]
                anchor_y[a] = position[a, 1]
                unplanned_for[a] = 0.0
                continue
            unplanned_for[a] += dt
            if unplanned_for[a] >= stuck_after:
                unplanned_for[a] = 0.0
                kinds[a] = 8
            continue
        unplanned_for[a] = 0.0
        if nav_state[a] != 2:
            continue
        kinds[a] = 1
        px, py = position[a, 0], position[a, 1]
        on_path = (mode[a] == 1 or mode[a] == 3 or mode[a] == 5) and path_len[a] > 0
        if on_path:
            # waypoints left (each worth more than any distance), then the distance to the next
            k = path_start[a] + path_idx[a]
            left = (path_len[a] - path_idx[a]) * _WAYPOINT_WORTH + math.sqrt(
                (points[k, 0] - px) ** 2 + (points[k, 1] - py) ** 2)
            if math.isinf(path_best[a]):
                # a new path: measured from here; progress only if it came nearer its target since
                # its anchor (a chase re-targeted every frame gets a new path every few ticks)
                path_best[a] = left
                if _nearer(px, py, anchor_x[a], anchor_y[a], target[a, 0], target[a, 1], progress_distance):
                    anchor_x[a] = px
                    anchor_y[a] = py
                    still_for[a] = 0.0
                else:
                    still_for[a] += dt
            elif left <= path_best[a] - progress_distance and _moved_on(
                    px - anchor_x[a], py - anchor_y[a], points[k, 0] - anchor_x[a], points[k, 1] - anchor_y[a],
                    progress_distance):
                # nearer the goal along its path, and really moved on (a re-plan's waypoints, or
                # ones passed early while jostling by a corner, are no progress)
                path_best[a] = left
                anchor_x[a] = px
                anchor_y[a] = py
                still_for[a] = 0.0
            else:
                still_for[a] += dt
        elif not math.isnan(togo[a]):
            # on a group field: progress is a new lowest cost to go (jostling in place is not),
            # having moved on (a field rebuilt around it lowers its cost where it stands); where
            # the field does not reach (inf) there is none (inf <= inf - d held, and a unit cut
            # off from its group's goal jostling half a cell stood for good without an event)
            if math.isfinite(togo[a]) and togo[a] <= best_togo[a] - progress_distance and (
                    (px - anchor_x[a]) ** 2 + (py - anchor_y[a]) ** 2 >= progress_distance * progress_distance):
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


@njit(cache=True, inline="always")
def _moved_on(dx, dy, wx, wy, distance):
    """Moved ``distance`` from the anchor, half of it toward the waypoint (``(wx, wy)`` from the
    anchor): jostling beside a queue while passing waypoints is no progress."""
    if dx * dx + dy * dy < distance * distance:
        return False
    w = math.sqrt(wx * wx + wy * wy)
    return w < 1e-9 or (dx * wx + dy * wy) / w >= 0.5 * distance
