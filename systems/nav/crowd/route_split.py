"""One big group over two passages: traffic assignment at order time.

A group order's route through a narrow passage carries the whole group one body-width lane at a
time; when another passage is not much longer, sending part of the group there gets everybody
across sooner (RTS players split a blob at a bridge by hand; the crowd does it by default with
``CrowdConfig.congestion``). Each route's time is its length at walking speed plus the queue its
share of the group makes at its narrowest point — units over a passage of width ``w`` flow at
most ``floor(w / d)`` lanes × ``v / d`` units a second (bodies of diameter ``d`` at speed ``v``)
— and the share of the second route makes both times equal (Wardrop's equilibrium), clamped to
the group. The members nearest the second route (relative to the first) take it."""

from __future__ import annotations

import math

import numpy as np
from scipy.ndimage import binary_dilation

from ..grid import Grid
from .config import CrowdConfig
from .congestion import Traffic
from .level_cache import LevelCache
from .planners import GridJob, PlanQueue, Route
from .planning import Planning
from .state import CrowdState, Mode, NavState

__all__ = ["SPLIT_MIN", "SPLIT_SHARE_MIN", "RouteSplits", "narrow_part", "blocked_grid", "second_share",
           "pick_members"]

#: Groups smaller than this never split (a small group crosses one passage quickly).
SPLIT_MIN = 16
#: The share of a passage's geometric flow a crowd achieves (measured: a 3-cell gap one way,
#: ``tests/benchmarks/crowd_flows.py``, about half).
FLOW_EFFICIENCY = 0.5
#: A split sending fewer than this share of the group is not worth it.
SPLIT_SHARE_MIN = 0.15


def narrow_part(route: np.ndarray, passages: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, float]:
    """The cells of ``route`` (``(k, 2)`` x y) in its bottleneck — the narrowest of the level's
    passages (``LevelCache.passages``: ``labels, widths``) it runs through — and that passage's
    width in cells (``inf`` when the route crosses none)."""
    labels, widths = passages
    if len(route) == 0:
        return np.zeros(0, dtype=bool), math.inf
    on = labels[route[:, 1], route[:, 0]]
    crossed = np.unique(on[on >= 0])
    if len(crossed) == 0:
        return np.zeros(len(route), dtype=bool), math.inf
    tight = crossed[np.argmin(widths[crossed])]
    return on == tight, float(widths[tight])


def blocked_grid(grid: Grid, cells: np.ndarray) -> Grid:
    """``grid`` with the passage holding ``cells`` (``(k, 2)``, widened by two cells) closed."""
    band = np.zeros(grid.shape, dtype=bool)
    band[cells[:, 1], cells[:, 0]] = True
    band = binary_dilation(band, iterations=2) & grid.passable
    passable = grid.passable & ~band
    return Grid(passable, np.where(passable, grid.cost, np.inf), grid.heights, cell_size=grid.cell_size,
                origin=grid.origin)


def second_share(members: int, length_1: float, width_1: float, length_2: float, width_2: float,
                 diameter: float, speed: float) -> int:
    """How many of ``members`` take the second route so both arrive at the same time (lengths
    and widths in world units); 0 when the split is not worth it."""
    if members < SPLIT_MIN or not (math.isfinite(length_2) and speed > 0 and diameter > 0):
        return 0
    flow_1 = FLOW_EFFICIENCY * max(1.0, math.floor(width_1 / diameter)) * speed / diameter
    flow_2 = (FLOW_EFFICIENCY * max(1.0, math.floor(width_2 / diameter)) * speed / diameter
              if math.isfinite(width_2) else math.inf)
    # length_1 / v + (N - n) / f1 = length_2 / v + n / f2
    n = ((length_1 - length_2) / speed + members / flow_1) / (1.0 / flow_1 + 1.0 / flow_2)
    n = int(min(max(round(n), 0), members))
    return n if n >= SPLIT_SHARE_MIN * members else 0


def pick_members(position: np.ndarray, entry_1: np.ndarray, entry_2: np.ndarray, count: int) -> np.ndarray:
    """Indices into ``position`` (``(m, 2)``) of the ``count`` members for which the second
    route's entry is nearest relative to the first's."""
    gain = np.hypot(*(position - entry_2).T) - np.hypot(*(position - entry_1).T)
    return np.argsort(gain, kind="stable")[:count]


class RouteSplits:
    """Splits big ``"leader"`` group orders over two passages (see the module docs): when the
    leader's route runs through a narrow passage, a second route with that passage closed is
    searched under the budget (``consider``); when it lands (``done``), the share of the group
    that makes both routes equally quick walks it (one search for all of them) — unless another
    group's route runs through its passage (no counterflow made on purpose)."""

    def __init__(self, agents: CrowdState, grid: Grid, config: CrowdConfig, level: LevelCache, queue: PlanQueue,
                 planning: Planning, traffic: Traffic) -> None:
        self._agents, self._grid, self._config, self._level = agents, grid, config, level
        self._queue, self._planning, self._traffic = queue, planning, traffic
        self._pending: dict[tuple, tuple[np.ndarray, float, float]] = {}

    def consider(self, key: tuple, route_cells: np.ndarray, route: Route, members: int, target: np.ndarray) -> None:
        """A group order's leader route landed: search a second route if it is worth one."""
        self._pending.pop(key, None)
        if not self._config.congestion or members < SPLIT_MIN or len(route_cells) < 2:
            return
        narrow, width = narrow_part(route_cells, self._level.passages(self._config.congestion_narrow))
        if not narrow.any():
            return
        blocked = blocked_grid(self._grid, route_cells[narrow])
        start, goal = tuple(int(v) for v in route_cells[0]), tuple(int(v) for v in route_cells[-1])
        if not (blocked.passable[start[1], start[0]] and blocked.passable[goal[1], goal[0]]):
            return
        cs = self._grid.cell_size
        entry = np.asarray(self._grid.cell_to_world(*route_cells[narrow][0])[:2])
        self._pending[key] = (entry, width * cs, _length(route.points))
        self._queue.submit(("split", key), self._planning.astar(start, goal, target.copy(), grid=blocked))

    def done(self, key: tuple, job: GridJob, members: np.ndarray) -> np.ndarray:
        """The second route of ``key`` landed: the members (ids, walking with the group now)
        that take it walk it from its point nearest each; returns them."""
        pending = self._pending.pop(key, None)
        route = job.route
        none = np.zeros(0, dtype=np.int64)
        if pending is None or route is None or not route.found or len(members) == 0:
            return none
        entry_1, width_1, length_1 = pending
        s, cs = self._agents, self._grid.cell_size
        cells = job.search.result().cells if job.search is not None else np.zeros((0, 2), dtype=np.int64)
        narrow, width_2 = narrow_part(cells, self._level.passages(self._config.congestion_narrow))
        if narrow.any() and self._traffic.map[cells[narrow, 1], cells[narrow, 0]].max() > 0:
            return none                     # another group's route runs there: no counterflow made on purpose
        entry_2 = (np.asarray(self._grid.cell_to_world(*cells[narrow][0])[:2]) if narrow.any()
                   else route.points[len(route.points) // 2, :2])
        count = second_share(len(members), length_1, width_1, _length(route.points), width_2 * cs,
                             2.0 * float(s.radius[members].max()), float(np.median(s.max_speed[members])))
        if count == 0:
            return none
        chosen = members[pick_members(s.position[members, :2], entry_1, entry_2, count)]
        # every chosen member walks the second route at once, joining it at its point nearest
        # the member (one search for all; one that finds a wall in the way re-plans as usual)
        points = route.points.copy()
        for i in chosen.tolist():
            k = int(np.argmin(np.hypot(*(points[:, :2] - s.position[i, :2]).T)))
            path = np.concatenate([s.position[i:i + 1], points[k:]])
            path[:, 2] = s.position[i, 2] if self._grid.heights is None else path[:, 2]
            path[-1, :2] = s.target[i, :2]
            s.set_path(i, path, 1)
            s.mode[i] = Mode.PATH                         # the group's steering leaves it alone
            s.nav_state[i, 0] = NavState.FOLLOWING
        return chosen

    def forget(self, key: tuple) -> None:
        """The order ended: no split is pending for it."""
        self._pending.pop(key, None)


def _length(points: np.ndarray) -> float:
    """The length of a polyline's xy."""
    return float(np.hypot(*np.diff(points[:, :2], axis=0).T).sum()) if len(points) > 1 else 0.0
