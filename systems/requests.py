"""The path request queue: time-sliced searches sharing one per-tick expansion budget.

* One request per agent: a new request for an agent replaces (merges with) its pending one.
* Fair: requests take turns, round robin, each turn at most ``quantum`` expansions, so a long
  search never starves short ones; an unfinished request goes to the back of the line.
* Bounded memory: at most ``max_searches`` searches hold a workspace at once (a workspace is
  ~28 bytes per grid cell); the others wait their turn, in order.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from rtsnav.systems.nav import Grid, NavError, PathResult
from rtsnav.systems.nav.search.sliced import SlicedSearch, WorkspacePool
from rtsnav.systems.nav.search.workspace import SearchWorkspace

__all__ = ["PathRequest", "PathRequestQueue", "QueryOnce", "FailedQuery"]


@dataclass(frozen=True, slots=True)
class FailedQuery:
    """The answer of a planner call that raised: no path, and why (the tick carries on)."""

    reason: str
    found: bool = False
    points: tuple = ()
    cells: tuple = ()
    links: tuple = ()
    link_kinds: tuple = ()


class QueryOnce:
    """A planner call that runs in one step (navmesh, waypoint graph): it waits its turn in the
    queue like any search and charges ``cost`` expansions to the tick's budget. A call that
    raises answers a ``FailedQuery`` naming the error instead of breaking every later tick."""

    def __init__(self, run, cost: int = 64) -> None:
        self._run = run
        self._result = None
        self.expanded = 0
        self.cost = cost

    @property
    def done(self) -> bool:
        return self._result is not None

    def step(self, budget: int):
        if self._result is None:
            try:
                self._result = self._run()
            except Exception as e:                     # noqa: BLE001 - one agent fails, the tick goes on
                self._result = FailedQuery(f"planner error ({type(e).__name__}: {e})")
            self.expanded = self.cost
        return self._result

    def result(self):
        return self._result


@dataclass(slots=True)
class PathRequest:
    """One agent's pending grid path query."""

    entity: int
    start: tuple[int, int]
    goal: tuple[int, int]
    method: str
    target: tuple[float, float, float]
    search: SlicedSearch | QueryOnce | None = None
    workspace: SearchWorkspace | None = None
    ticks: int = 0                      # ticks it has been served in
    expanded: int = field(default=0)


class PathRequestQueue:
    """Pending path requests of one ``Navigation``, served under a per-tick budget.

    Args:
        grid: the level grid.
        expansions_per_tick: node expansions all requests share per tick, ≥ 1.
        max_searches: searches that may be in progress at once (workspaces), ≥ 1.
        quantum: expansions one request gets per turn; default ``expansions_per_tick // 4``.
    """

    def __init__(self, grid: Grid, expansions_per_tick: int, max_searches: int = 4,
                 quantum: int | None = None, weight: float = 1.5) -> None:
        if expansions_per_tick < 1:
            raise NavError(f"expansions_per_tick must be >= 1, got {expansions_per_tick}")
        self.grid = grid
        self.budget = int(expansions_per_tick)
        self.quantum = max(1, int(quantum if quantum is not None else self.budget // 4))
        self.weight = weight
        self.pool = WorkspacePool(grid, max_searches)
        self._pending: OrderedDict[int, PathRequest] = OrderedDict()
        self.last_expanded = 0

    def __len__(self) -> int:
        return len(self._pending)

    def __contains__(self, entity: int) -> bool:
        return entity in self._pending

    def submit(self, request: PathRequest) -> None:
        """Queue ``request``, replacing any pending request of the same entity."""
        self.cancel(request.entity)
        self._pending[request.entity] = request

    def cancel(self, entity: int) -> None:
        """Drop the entity's pending request, if any (deleted entity, cleared target)."""
        old = self._pending.pop(entity, None)
        if old is not None and old.workspace is not None:
            self.pool.release(old.workspace)

    def service(self) -> list[tuple[PathRequest, PathResult]]:
        """Spend up to one tick's budget; returns the requests that finished, with results."""
        budget = self.budget
        done: list[tuple[PathRequest, PathResult]] = []
        served: set[int] = set()
        progress = True
        while budget > 0 and self._pending and progress:
            progress = False
            for entity in list(self._pending):
                if budget <= 0:
                    break
                req = self._pending[entity]
                if req.search is None:
                    if not self._start(req):
                        continue              # no free workspace: wait, keep the order
                if not req.search.done:
                    before = req.search.expanded
                    req.search.step(min(budget, self.quantum))
                    budget -= max(1, req.search.expanded - before)
                if entity not in served:
                    served.add(entity)
                    req.ticks += 1
                progress = True
                if req.search.done:
                    del self._pending[entity]
                    if req.workspace is not None:
                        self.pool.release(req.workspace)
                        req.workspace = None
                    req.expanded = req.search.expanded
                    done.append((req, req.search.result()))
                else:
                    self._pending.move_to_end(entity)        # round robin
        self.last_expanded = self.budget - budget
        return done

    def _start(self, req: PathRequest) -> bool:
        """Create the request's search; False when it must wait for a workspace."""
        if req.search is not None:                       # a QueryOnce made by the caller
            return True
        needs_workspace = req.method != "bidirectional"
        ws = self.pool.acquire() if needs_workspace else None
        if needs_workspace and ws is None:
            return False
        req.workspace = ws
        req.search = SlicedSearch(self.grid, req.start, req.goal, req.method,
                                  weight=self.weight, workspace=ws)
        if req.search.done and ws is not None:        # answered without searching
            self.pool.release(ws)
            req.workspace = None
        return True
