"""``MeshQuery``: one navmesh query answered in budgeted steps (the crowd's planner job).

It needs of the mesh only the sliced query's contract: ``begin_query`` (the answer, or the plan
of a search to step) and ``end_query`` (the answer of a finished plan)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from ..errors import NavError
from ..grid import finite_point
from .mesh_types import MeshPath, QueryPlan

__all__ = ["MeshQuery", "SlicedQueries"]


class SlicedQueries(Protocol):
    """What ``MeshQuery`` needs of a mesh (``NavMesh`` provides it)."""

    def begin_query(self, s: np.ndarray, g: np.ndarray, goal) -> MeshPath | QueryPlan: ...

    def end_query(self, plan: QueryPlan) -> MeshPath: ...


class MeshQuery:
    """One navmesh query answered in slices (see ``NavMesh.start_query``). Queries in plain
    sight, on uniform-cost meshes (the exact search: milliseconds) and within one polygon are
    answered by the first ``step``; an area-cost search expands ``budget`` crossing points per
    ``step``. ``expanded`` counts them; ``work`` counts what ``step``'s budget counts (an
    expansion is 1 plus the crossing points it looks at)."""

    def __init__(self, mesh: SlicedQueries, start: Sequence[float] | np.ndarray,
                 goal: Sequence[float] | np.ndarray) -> None:
        self.mesh = mesh
        self.goal = goal
        self._s = np.array(finite_point(start, "start"), dtype=np.float64)
        self._g = np.array(finite_point(goal, "goal"), dtype=np.float64)
        self._result: MeshPath | None = None
        self._plan: QueryPlan | None = None
        self._links = _link_count(mesh)            # an off-mesh link added since: the answer starts over
        self.expanded = 0
        self.work = 0

    @property
    def done(self) -> bool:
        """True when ``result()`` is final."""
        return self._result is not None

    def step(self, budget: int) -> bool:
        """Advance by about ``budget`` work (see ``work``); True when done."""
        if self._links != _link_count(self.mesh):
            # a link added while it ran (or after it finished) changes the answer: start over on
            # the mesh as it is now (a search half done on the old graph mixed the two)
            self._links, self._plan, self._result = _link_count(self.mesh), None, None
        if self._result is not None:
            return True
        if self._plan is None:
            begun = self.mesh.begin_query(self._s, self._g, self.goal)
            if isinstance(begun, MeshPath):
                self._result = begun
                return True
            self._plan = begun
        search = self._plan.search
        before, work_before = search.expanded, search.work
        done = search.step(budget)
        self.expanded += search.expanded - before
        self.work += search.work - work_before
        if done:
            self._result = self.mesh.end_query(self._plan)
        return self._result is not None

    def result(self) -> MeshPath:
        """The answer (``step`` until True first); for the mesh as it is now — a query that
        finished before an off-mesh link was added runs again first."""
        if self._result is not None and self._links != _link_count(self.mesh):
            while not self.step(1 << 30):
                pass
        if self._result is None:
            raise NavError("the navmesh query is still running: step() it until it returns True")
        return self._result


def _link_count(mesh) -> int:
    """How many off-mesh links ``mesh`` has (links are only ever added)."""
    return len(getattr(mesh, "links", ()))
