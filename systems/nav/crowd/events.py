"""What a tick reports (``CrowdEvents``) and the part that records outcomes as they happen
(``Outcomes``): arrivals, failures and new paths, written to the agents' columns and to the
tick's event lists in one place, so every other part says *what* happened, not how it is kept."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .planners import PlanQueue
from .state import CrowdState, Mode, NavState

__all__ = ["CrowdEvents", "Outcomes"]


@dataclass(slots=True)
class CrowdEvents:
    """What happened in one ``update``; ids are agent ids.

    Attributes:
        reached: ``(k,) int64`` agents that arrived.
        failed: ``(k,) int64`` agents whose order failed; ``reasons`` the matching messages.
        waypoints: ``(agent, index, position)`` waypoints passed (only when asked for).
        path_changed: ``(k,) int64`` agents given a new path (``Crowd.path(agent)``).
        stuck: ``(k,) int64`` agents without progress for ``stuck_after`` (a recovery started),
            or waiting that long for their plan (no recovery: it is on its way; a planning
            budget too small for the orders shows here); ``stuck_at`` ``(k, 3)``: where each
            stands (the blocking place).
        links: ``(agent, kind, start, end)`` off-mesh links taken.
        moving / velocities: agents walking and their velocities after movement (the safe
            velocity: wall sliding applied; only when asked for).
        displaced: ``(k,) int64`` agents a map edit moved out of cells it closed (a gate, a
            carving obstacle), since the last tick.
    """

    reached: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    failed: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    reasons: list[str] = field(default_factory=list)
    waypoints: list[tuple[int, int, tuple]] = field(default_factory=list)
    path_changed: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    stuck: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    links: list[tuple[int, str, tuple, tuple]] = field(default_factory=list)
    moving: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    velocities: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    stuck_at: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    displaced: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


class Outcomes:
    """Records the outcomes of one tick: an arrival or failure sets the agents' state columns
    and cancels their queued plans; every outcome lands in the tick's event lists."""

    def __init__(self, agents: CrowdState, queue: PlanQueue) -> None:
        self._agents, self._queue = agents, queue
        self._displaced: list[np.ndarray] = []
        self.begin()

    def displaced(self, ids: np.ndarray) -> None:
        """Agents an edit moved out of closed cells (reported with the next tick's events)."""
        if len(ids):
            self._displaced.append(np.asarray(ids, dtype=np.int64))

    def begin(self) -> None:
        """A new tick: empty event lists (``displaced`` keeps what edits between ticks moved)."""
        self._reached: list[np.ndarray] = []
        self._failed: list[int] = []
        self._reasons: list[str] = []
        self._path_changed: list[int] = []
        self._unplanned = np.zeros(0, dtype=np.int64)

    def waiting_for_plans(self, ids: np.ndarray) -> None:
        """Agents that have waited ``stuck_after`` for their plan: reported as ``stuck`` with the
        units without progress (none waits in silence, whatever the planning budget)."""
        self._unplanned = ids

    def arrive(self, ids: np.ndarray) -> None:
        """Mark agents arrived (FINISHED)."""
        if len(ids) == 0:
            return
        s = self._agents
        s.nav_state[ids, 0] = NavState.FINISHED
        s.mode[ids] = Mode.NONE
        self._reached.append(np.asarray(ids, dtype=np.int64))

    def fail(self, ids, reason: str) -> None:
        """Fail the agents' orders with ``reason``: they stand, their paths and plans dropped."""
        s = self._agents
        for i in np.atleast_1d(ids).tolist():
            s.nav_state[i, 0] = NavState.FAILED
            s.mode[i] = Mode.NONE
            s.velocity[i] = 0.0
            s.clear_path(i)
            s.failure[i] = reason
            self._queue.cancel(("agent", i))
            self._failed.append(i)
            self._reasons.append(reason)

    def partial(self, agent: int, reason: str) -> None:
        """The agent walks to the closest point it can reach: reported as failed with ``reason``."""
        self._agents.failure[agent] = reason
        self._failed.append(agent)
        self._reasons.append(reason)

    def path_changed(self, agent: int) -> None:
        """The agent was given a new path."""
        self._path_changed.append(int(agent))

    def events(self, followed, stuck: np.ndarray, moving: np.ndarray) -> CrowdEvents:
        """The tick's ``CrowdEvents`` (``followed``: the path follower's result; ``stuck``: every
        unit without progress, in a slow queue too)."""
        if len(self._unplanned):
            stuck = np.union1d(stuck, self._unplanned)
        return CrowdEvents(np.concatenate(self._reached) if self._reached else np.zeros(0, dtype=np.int64),
                           np.array(self._failed, dtype=np.int64), self._reasons, followed.waypoints,
                           np.array(self._path_changed, dtype=np.int64), stuck, followed.links, moving,
                           self._agents.velocity[moving].copy(), self._agents.position[stuck].copy(),
                           self._take_displaced())

    def _take_displaced(self) -> np.ndarray:
        moved = np.unique(np.concatenate(self._displaced)) if self._displaced else np.zeros(0, dtype=np.int64)
        self._displaced = []
        return moved
