"""``PathRequestProcessor``: turns target changes into time-sliced path requests and serves them."""

from __future__ import annotations

import math

import esper
import numpy as np

from rtsnav.components import GRID_PLANNERS, PLANNERS, NavState

FLOW_PLANNERS = ("flowfield", "leader")
#: Planners answered at once, outside the budgeted queue (a hierarchy query costs ~1 ms).
DIRECT_PLANNERS = ("hierarchy",)
#: Planners queued like grid searches but answered in one step (charged a fixed budget).
QUERY_PLANNERS = ("navmesh", "waypoints")
from rtsnav.components.navigation import F_HAS_TARGET, F_TARGET_DIRTY
from rtsnav.systems.nav import NavError, smooth_path

from . import events
from .base import NavProcessor
from .requests import PathRequest, QueryOnce


class PathRequestProcessor(NavProcessor):
    """For every agent whose ``target_position`` changed: queue one path request (merged with
    any pending one); then spend the tick's expansion budget on the queue. Finished requests
    give the agent its waypoints (``path_changed``) or stop it (``path_failed``)."""

    def update(self, dt: float) -> None:
        nav = self.navigation
        table = nav.agents
        n = table.count
        dirty = np.flatnonzero(table.agent_flags[:n, F_TARGET_DIRTY])
        for row in dirty:
            self._target_changed(int(row))
        for request, result in nav.requests.service():
            row = table.row_of.get(request.entity)
            if row is None:
                continue                                   # entity gone meanwhile
            if request.method == "navmesh":
                self._give_points(row, request, result)
            elif result.found:
                self._give_path(row, request, result.cells, smoothed=request.method == "waypoints")
            else:
                self._fail(row, result.reason)
        nav.tick += 1

    # ------------------------------------------------------------------------------
    def _target_changed(self, row: int) -> None:
        nav = self.navigation
        table, grid = nav.agents, nav.grid
        table.agent_flags[row, F_TARGET_DIRTY] = False
        entity = int(table.entity[row])
        nav.requests.cancel(entity)
        table.failure.pop(entity, None)
        if not table.agent_flags[row, F_HAS_TARGET]:
            table.nav_state[row, 0] = NavState.IDLE
            table.clear_path(row)
            table.velocity[row] = 0.0
            return
        target = table.target[row]
        method = PLANNERS[int(table.agent_method[row, 0])]
        if not np.isfinite(target).all():
            return self._fail(row, f"target_position {tuple(float(v) for v in target)} is not a finite point")
        if method not in GRID_PLANNERS + FLOW_PLANNERS + DIRECT_PLANNERS + QUERY_PLANNERS:
            available = ", ".join(GRID_PLANNERS + FLOW_PLANNERS + DIRECT_PLANNERS + QUERY_PLANNERS)
            return self._fail(row, f"planner {method!r} is not available yet; use one of {available}")
        if not np.isfinite(table.position[row, :2]).all():
            return self._fail(row, f"the agent's position {tuple(float(v) for v in table.position[row])} is not finite")
        goal = grid.world_to_cell(float(target[0]), float(target[1]))
        start = grid.world_to_cell(float(table.position[row, 0]), float(table.position[row, 1]))
        if not grid.in_bounds(*goal):
            return self._fail(row, f"target_position ({target[0]:g}, {target[1]:g}) is outside the map")
        if not grid.in_bounds(*start):
            return self._fail(row, "the agent stands outside the map")
        if method in FLOW_PLANNERS:
            # group steering (FlowSteeringProcessor) takes it from here: no per-agent search
            if not grid.passable[goal[1], goal[0]]:
                return self._fail(row, f"goal {goal} is a blocked cell")
            if not grid.passable[start[1], start[0]] or not grid.connected(start, goal):
                return self._fail(row, f"goal {goal} is not reachable from start {start}")
            table.clear_path(row)
            table.velocity[row] = 0.0
            table.nav_state[row, 0] = NavState.FOLLOWING
            return
        if method in QUERY_PLANNERS:
            here = table.position[row].copy()
            there = np.array(target, dtype=np.float64)
            planner = nav.navmesh() if method == "navmesh" else nav.waypoints()
            request = PathRequest(entity, start, goal, method, tuple(float(v) for v in target),
                                  search=QueryOnce(lambda: planner.find_path(here, there)))
            table.nav_state[row, 0] = NavState.PLANNING
            table.velocity[row] = 0.0
            nav.requests.submit(request)
            return
        if method in DIRECT_PLANNERS:
            try:
                result = nav.hierarchy().find_path(start, goal)
            except NavError as e:
                return self._fail(row, str(e))
            request = PathRequest(entity, start, goal, method, tuple(float(v) for v in target))
            if result.found:
                self._give_path(row, request, result.cells, smoothed=True)
            else:
                self._fail(row, result.reason)
            return
        try:
            request = PathRequest(entity, start, goal, method, tuple(float(v) for v in target))
        except NavError as e:  # pragma: no cover - cells were checked above
            return self._fail(row, str(e))
        table.nav_state[row, 0] = NavState.PLANNING
        table.velocity[row] = 0.0
        nav.requests.submit(request)

    def _give_path(self, row: int, request: PathRequest, cells: np.ndarray, smoothed: bool = False) -> None:
        nav = self.navigation
        table, grid = nav.agents, nav.grid
        if nav.smoothing and len(cells) > 2 and not smoothed:
            cells = smooth_path(grid, cells, nav.smoothing)
        points = grid.cells_to_world(cells)
        tx, ty, tz = request.target
        points[-1, 0], points[-1, 1] = tx, ty
        if grid.heights is None:
            points[:, 2] = table.position[row, 2]
            points[-1, 2] = tz if math.isfinite(tz) else points[-1, 2]
        # the first point is the centre of the cell the agent stood in: skip it
        table.set_path(row, points, 1 if len(points) > 1 else 0)
        table.nav_state[row, 0] = NavState.FOLLOWING
        if events.has_handler(events.PATH_CHANGED):
            esper.dispatch_event(events.PATH_CHANGED, int(table.entity[row]), points.copy())

    def _give_points(self, row: int, request: PathRequest, result) -> None:
        """A navmesh answer: world points (a PARTIAL one still walks to the closest point)."""
        if len(result.points) == 0:
            return self._fail(row, result.reason)
        table = self.navigation.agents
        points = np.array(result.points, dtype=np.float64)
        if self.navigation.grid.heights is None:
            points[:, 2] = table.position[row, 2]
        table.set_path(row, points, 1 if len(points) > 1 else 0)
        if result.links:
            table.links[int(table.entity[row])] = dict(zip(result.links, result.link_kinds))
        table.nav_state[row, 0] = NavState.FOLLOWING
        if events.has_handler(events.PATH_CHANGED):
            esper.dispatch_event(events.PATH_CHANGED, int(table.entity[row]), points.copy())
        if not result.found:
            table.failure[int(table.entity[row])] = result.reason
            esper.dispatch_event(events.PATH_FAILED, int(table.entity[row]), result.reason)

    def _fail(self, row: int, reason: str) -> None:
        table = self.navigation.agents
        entity = int(table.entity[row])
        table.nav_state[row, 0] = NavState.FAILED
        table.failure[entity] = reason
        table.clear_path(row)
        table.velocity[row] = 0.0
        esper.dispatch_event(events.PATH_FAILED, entity, reason)
        esper.dispatch_event(events.NAVIGATION_FINISHED, entity)
