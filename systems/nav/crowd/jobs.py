"""How one agent's plan is made, per planner: the job the crowd's queue runs under its budget.
A part of ``Crowd`` (a mixin): grid methods as sliced searches, the hierarchy, navmesh and
waypoint queries, D* Lite searches kept per agent (``"dstar"``), agents wider than half a cell
on their radius class's grid, and the grid standing in for a structure a map edit made stale."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..clearance import WIDE
from ..result import PathStatus
from .planners import UNITS, CallJob, GridJob, HierarchyJob, MeshJob, Route, route_from_cells
from .state import P_RADIUS, PLANNERS, NavState
from .structures import CrowdStructures

if TYPE_CHECKING:
    from ..search.sliced import WorkspacePool

__all__ = ["CrowdJobs", "GRID_METHODS"]

GRID_METHODS = ("astar", "dijkstra", "weighted", "bidirectional", "jps", "jps+")


class CrowdJobs(CrowdStructures):
    """The planning jobs of a ``Crowd`` (its attributes are made in ``Crowd.__init__``)."""

    pool: WorkspacePool

    def _job(self, i: int, method: str, start: tuple[int, int] | None = None, goal: tuple[int, int] | None = None):
        s, grid = self.state, self.grid
        target = s.target[i].copy()
        if method in self.rebuilds.stale:
            method = "astar"              # its structure predates a map edit: exact on the grid until rebuilt
        radius = float(s.agent_params[i, P_RADIUS])
        if radius > WIDE * grid.cell_size:
            return self._sized_job(i, method, radius, target, start, goal)
        if method == "dstar":
            job = self._dstar_job(i, start, goal, target)
            if job is not None:
                return job
            method = "astar"              # over the cap of D* Lite agents: A*
        if method in GRID_METHODS or method == "hierarchy":
            start = start if start is not None else grid.world_to_cell(*s.position[i, :2])
            goal = goal if goal is not None else grid.world_to_cell(*target[:2])
            if method == "hierarchy":
                return HierarchyJob(self.hierarchy(), start, goal, target)
            return GridJob(grid, start, goal, method, target, self.config.smoothing, self.pool, self.config.weight)
        here = s.position[i].copy()
        if method == "navmesh":
            mesh = self.navmesh()
            return MeshJob(mesh, here, target, _mesh_route, self.goal_tree(mesh, target))
        graph = self.waypoints()
        return CallJob(lambda: graph.find_path(here, target), UNITS["waypoints"],
                       lambda r: route_from_cells(grid, r, None, target))      # its cells are already smoothed

    def _dstar_job(self, i: int, start, goal, target) -> CallJob | None:
        """A ``"dstar"`` agent's plan: its D* Lite search (made on its first order, kept while it
        walks to that goal) plans from its cell — after map edits a repair, not a new search.
        None when ``dstar_agents`` searches are live already."""
        from ..search.dstar_lite import DStarLite

        s, grid, states = self.state, self.grid, self._dstar
        start = start if start is not None else grid.world_to_cell(*s.position[i, :2])
        goal = goal if goal is not None else grid.world_to_cell(*target[:2])
        search = states.get(i)
        if search is not None and search.goal_cell != tuple(goal):
            del states[i]                                 # a new goal: a new search
            search = None
        if search is None:
            dstar = PLANNERS.index("dstar")
            for j in [j for j in states if not s.alive[j] or s.agent_method[j, 0] != dstar
                      or s.nav_state[j, 0] not in (NavState.PLANNING, NavState.FOLLOWING)]:
                del states[j]                             # arrived, failed, removed or re-ordered
            if len(states) >= self.config.dstar_agents:
                return None
            search = states[i] = DStarLite(grid, start, goal)
            units = UNITS["dstar_first"]
        else:
            search.move_to(start)
            units = UNITS["dstar_repair"]
        smoothing = self.config.smoothing
        return CallJob(search.plan, units, lambda r: route_from_cells(grid, r, smoothing, target))

    def _sized_job(self, i: int, method: str, radius: float, target, start, goal):
        """An agent wider than half a cell plans on its radius class's grid (``clearance.py``):
        grid methods as asked, the structure planners by A* there (one bake per size is what the
        class grids avoid). Standing where it does not fit (against a wall), it plans from the
        nearest cell where it does; a goal it cannot fit to fails with the reason."""
        sized = self.sized_grids()
        grid = sized.grid_for(radius)
        start = start if start is not None else grid.world_to_cell(*self.state.position[i, :2])
        goal = goal if goal is not None else grid.world_to_cell(*target[:2])
        start = sized.nearest_fit(grid, start)
        what = f"an agent of radius {radius:g}"
        if start is None:
            return CallJob(lambda: Route(PathStatus.UNREACHABLE, reason=f"{what} fits nowhere on this map"), 1, _same)
        if not grid.passable[goal[1], goal[0]] or not grid.connected(start, goal):
            reason = f"goal {goal} is not reachable for {what} (a passage on the way is too narrow)"
            return CallJob(lambda: Route(PathStatus.UNREACHABLE, reason=reason), 1, _same)
        method = method if method in GRID_METHODS else "astar"
        return GridJob(grid, start, goal, method, target, self.config.smoothing, self.pool, self.config.weight)


def _same(route: Route) -> Route:
    return route


def _mesh_route(result) -> Route:
    """A navmesh ``MeshPath`` as a ``Route``."""
    if len(result.points) == 0:
        return Route(result.status, reason=result.reason)
    links = dict(zip(result.links, result.link_kinds)) if result.links else {}
    return Route(result.status, np.array(result.points, dtype=np.float64), None, float(result.cost), result.reason, links)
