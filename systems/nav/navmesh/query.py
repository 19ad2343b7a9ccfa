"""``MeshQuery``: one navmesh query answered in budgeted steps (the crowd's planner job)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..errors import NavError
from ..grid import finite_point
from ..result import PathStatus
from .mesh_types import MeshPath

if TYPE_CHECKING:
    from .mesh import NavMesh
from .crossing_search import CandidateSearch

__all__ = ["MeshQuery"]


class MeshQuery:
    """One navmesh query answered in slices (see ``NavMesh.start_query``). Queries in plain
    sight, on uniform-cost meshes (the exact search: milliseconds) and within one polygon are
    answered by the first ``step``; an area-cost search expands ``budget`` crossing points per
    ``step``. ``expanded`` counts them; ``work`` counts what ``step``'s budget counts (an
    expansion is 1 plus the crossing points it looks at)."""

    def __init__(self, mesh: NavMesh, start: Sequence[float] | np.ndarray, goal: Sequence[float] | np.ndarray) -> None:
        self.mesh = mesh
        self.goal = goal
        self._s = np.array(finite_point(start, "start"), dtype=np.float64)
        self._g = np.array(finite_point(goal, "goal"), dtype=np.float64)
        self._result: MeshPath | None = None
        self._search: CandidateSearch | None = None
        self.expanded = 0
        self.work = 0

    @property
    def done(self) -> bool:
        """True when ``result()`` is final."""
        return self._result is not None

    def step(self, budget: int) -> bool:
        """Advance by about ``budget`` work (see ``work``); True when done."""
        if self._result is not None:
            return True
        mesh = self.mesh
        if self._search is None:
            direct = mesh._in_plain_sight(self._s, self._g)
            if direct is not None:
                mesh.query_counts["direct"] += 1
                self._result = direct
                return True
            mesh.query_counts["searched"] += 1
            self._ps, self._s, self._pg, self._g, failure = mesh._snap(self._s, self._g)
            if failure is not None:
                self._result = failure
                return True
            if mesh._exact_applies() or self._ps == self._pg:
                self._finish(mesh._route(self._ps, self._pg, self._s, self._g))
                return True
            self._search, self._meta = mesh._candidate_search(self._ps, self._pg, self._s, self._g)
        search = self._search
        before, work_before = search.expanded, search.work
        done = search.step(budget)
        self.expanded += search.expanded - before
        self.work += search.work - work_before
        if done:
            _, chain = search.result()
            route = mesh._route_of(chain, self._ps, self._meta)
            self._finish(None if route is None else mesh._points(route, self._s, self._g))
        return self._result is not None

    def _finish(self, found) -> None:
        if found is None:                                       # unreachable: go as close as possible
            self._result = self.mesh._partial(self._ps, self._s, self._g, self.goal)
        else:
            pts, cost, links, polys, kinds = found
            self._result = MeshPath(PathStatus.FOUND, cost, pts, polys, links, kinds)

    def result(self) -> MeshPath:
        """The answer (``step`` until True first)."""
        if self._result is None:
            raise NavError("the navmesh query is still running: step() it until it returns True")
        return self._result
