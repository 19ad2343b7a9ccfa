"""Leader-group followers that leave the corridor field for a path of their own (``Mode.DETOUR``).

Two schemes of the flocking article, chosen by ``CrowdConfig.leader_fallback`` (the default,
``"field"``, needs nothing here: the corridor's return field and the whole-map field):

* ``"astar"`` — *the A* fallback that stops at the corridor*: a follower that has stood outside
  its leader's corridor for ``LOST_AFTER["astar"]`` seconds runs its own A* whose goal is the
  whole corridor (``search/region.py``: it ends at the first corridor cell it reaches, the
  cheapest one) and walks that path; back in the corridor it follows the corridor field again.
  (The return field answers the same question for every follower at once; this is the per-unit
  search the article describes.)
* ``"roles"`` — *the Leader/Target role election*: a follower is in touch when a chain of mates,
  each within ``leader_sight`` cells of the next and in straight sight of it, links it to the
  leader (or to mates that arrived). One out of touch for ``LOST_AFTER["roles"]`` seconds becomes
  a temporary leader: it plans its own A* path to the goal and walks it, and reverts to the
  group's steering as soon as it is in touch again.

Either way a detour ends when its path ends, when the unit comes near the goal (the group's
arrival slots take over) or when its path drifts (it falls back to the group's field and may
search again). Searches run as ``("detour", agent)`` jobs under the crowd's planning budget.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..grid import Grid
from ..grid_sight import segment_clear
from ..search.region import GoalRegion
from ..steering.proximity_grid import build_proximity_grid, cell_window, fitted_side
from .config import CrowdConfig
from .events import Outcomes
from .planners import GridJob, PlanQueue
from .planning import Planning
from .state import CrowdState, Mode, NavState

__all__ = ["Detours", "in_touch"]

#: Seconds a follower must be lost before it searches (pushes at the corridor's edge settle first).
LOST_AFTER = {"astar": 0.25, "roles": 1.0}


class Detours:
    """The detours of every leader group of one crowd (see module docs)."""

    def __init__(self, agents: CrowdState, grid: Grid, config: CrowdConfig, queue: PlanQueue, planning: Planning,
                 outcomes: Outcomes, groups) -> None:
        self._agents, self._grid, self._config, self._queue = agents, grid, config, queue
        self._planning, self._outcomes = planning, outcomes
        self._groups = groups                         # the GroupSteering whose leader groups these are
        self.lost_for = np.zeros(0)
        self.pending: dict[int, tuple] = {}          # agent -> the order key its search is for
        self.regions: dict[tuple, GoalRegion] = {}    # order key -> its corridor as a search goal
        #: detours walked so far (searches that gave a path), for benchmarks and tests
        self.taken = 0

    @property
    def scheme(self) -> str:
        """``CrowdConfig.leader_fallback``: ``"field"``, ``"astar"`` or ``"roles"``."""
        return self._config.leader_fallback

    def update(self, order, members: np.ndarray, dt: float) -> None:
        """Start, keep or end the detours of one ready leader group's walking ``members``."""
        s, grid = self._agents, self._grid
        if len(self.lost_for) < s.size:
            self.lost_for = np.concatenate([self.lost_for, np.zeros(s.size - len(self.lost_for))])
        mode = s.mode[members]
        walking = members[((mode == Mode.CORRIDOR) | (mode == Mode.DETOUR)) & (s.nav_state[members, 0] == NavState.FOLLOWING)]
        if len(walking) == 0 or order.corridor is None:
            return
        pos = s.position[walking, :2]
        if self.scheme == "astar":
            cells = grid.world_to_cells(pos)
            back = order.corridor.inside[np.clip(cells[:, 1], 0, grid.height - 1), np.clip(cells[:, 0], 0, grid.width - 1)]
        else:
            back = self._in_touch(order, walking)
        near_goal = np.hypot(*(pos - s.target[walking, :2]).T) <= order.arrival_radius
        self.end(walking[(back | near_goal) & (s.mode[walking] == Mode.DETOUR)])
        lost = walking[~back & ~near_goal & (s.mode[walking] == Mode.CORRIDOR)]
        self.lost_for[walking[back | near_goal]] = 0.0
        if self.pending:                                 # back in touch before its search ended
            waiting = np.fromiter(self.pending, dtype=np.int64, count=len(self.pending))
            for agent in waiting[np.isin(waiting, walking[back | near_goal])].tolist():
                del self.pending[agent]
                self._queue.cancel(("detour", agent))
        self.lost_for[lost] += dt
        ready = lost[self.lost_for[lost] >= LOST_AFTER[self.scheme]]
        for agent in ready.tolist():
            if agent not in self.pending:
                self._search(order, agent)

    def _in_touch(self, order, walking: np.ndarray) -> np.ndarray:
        """Which of ``walking`` a chain of mates in sight links to the leader or arrived mates."""
        s, grid = self._agents, self._grid
        seeds = []
        if order.leader is not None and s.alive[order.leader]:
            seeds.append(order.leader)
        arrived = self._groups.arrived_mates(order)
        points = np.ascontiguousarray(s.position[np.concatenate([walking, np.array(seeds, dtype=np.int64), arrived]), :2])
        is_seed = np.zeros(len(points), dtype=np.bool_)
        is_seed[len(walking):] = True
        if not is_seed.any():
            return np.ones(len(walking), dtype=bool)            # nobody to be in touch with: no roles
        reach = self._config.leader_sight * grid.cell_size
        touch = in_touch(points, is_seed, reach, grid.passable, grid.cell_size, float(grid.origin[0]),
                         float(grid.origin[1]))
        return touch[: len(walking)]

    def _search(self, order, agent: int) -> None:
        s, grid = self._agents, self._grid
        start = grid.world_to_cell(*s.position[agent, :2])
        if self.scheme == "astar":
            region = self.regions.get(order.key)
            if region is None or region.mask is not order.corridor.inside:
                region = self.regions[order.key] = GoalRegion.around_path(
                    order.corridor.inside, order.corridor_path, self._config.corridor_width)
            job = self._planning.astar(start, region.cell, None, goal_region=region)
        else:
            job = self._planning.astar(start, order.goal, s.target[agent].copy())
        self.pending[agent] = order.key
        self._queue.submit(("detour", agent), job)

    def plan_done(self, agent: int, job: GridJob) -> None:
        """A detour search ended: the agent walks the path (if it still needs it)."""
        key = self.pending.pop(agent, None)
        s = self._agents
        if key is None or not s.alive[agent] or s.mode[agent] != Mode.CORRIDOR or key not in self._groups.orders:
            return
        route = job.route
        if route is None or not route.walkable or len(route.points) < 2:
            self.lost_for[agent] = 0.0          # no way back by a path: the group's fields steer it
            return
        points = np.array(route.points, dtype=np.float64)
        points[:, 2] = s.position[agent, 2] if self._grid.heights is None else points[:, 2]
        s.set_path(agent, points, 1)
        s.mode[agent] = Mode.DETOUR
        self.taken += 1
        self._outcomes.path_changed(agent)

    def end(self, agents: np.ndarray) -> None:
        """Detours of ``agents`` end: back to the group's corridor field."""
        if len(agents) == 0:
            return
        s = self._agents
        s.mode[agents] = Mode.CORRIDOR
        self.lost_for[agents] = 0.0
        for agent in agents.tolist():
            s.clear_path(agent)

    def forget(self, key) -> None:
        """A group order ended: its searches stop."""
        self.regions.pop(key, None)
        for agent in [a for a, k in self.pending.items() if k == key]:
            del self.pending[agent]
            self._queue.cancel(("detour", agent))


@njit(cache=True)
def in_touch(points, is_seed, reach, passable, cell_size, origin_x, origin_y):
    """True for each point linked to a seed point by a chain of points, each within ``reach`` of
    the next and in straight sight of it (no wall cell between): a breadth-first walk over a
    spatial hash, O(points × neighbours)."""
    n = points.shape[0]
    linked = is_seed.copy()
    queue = np.empty(n, dtype=np.int64)
    tail = 0
    for i in range(n):
        if linked[i]:
            queue[tail] = i
            tail += 1
    everyone = np.ones(n, dtype=np.bool_)
    side = fitted_side(points, everyone, reach)
    order, starts, hx, hy, cols, rows = build_proximity_grid(points, everyone, side)
    r2 = reach * reach
    head = 0
    while head < tail:
        i = queue[head]
        head += 1
        r0, r1, c0, c1 = cell_window(points[i, 0], points[i, 1], hx, hy, side, cols, rows)
        for row in range(r0, r1 + 1):
            for col in range(c0, c1 + 1):
                k = row * cols + col
                for e in range(starts[k], starts[k + 1]):
                    j = order[e]
                    if linked[j]:
                        continue
                    dx = points[i, 0] - points[j, 0]
                    dy = points[i, 1] - points[j, 1]
                    if dx * dx + dy * dy <= r2 and segment_clear(passable, cell_size, origin_x, origin_y, points[i, 0],
                                                                 points[i, 1], points[j, 0], points[j, 1]):
                        linked[j] = True
                        queue[tail] = j
                        tail += 1
    return linked

