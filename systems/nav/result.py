"""Query results: a frozen ``PathResult`` with a ``PathStatus``; "no path" is a result, not an error."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import numpy as np

__all__ = ["PathStatus", "PathResult", "EMPTY_CELLS"]

#: An empty (0, 2) int32 path: what an unsuccessful query returns in ``cells``.
EMPTY_CELLS = np.zeros((0, 2), dtype=np.int32)
EMPTY_CELLS.setflags(write=False)


class PathStatus(enum.Enum):
    """Outcome of a path query (Detour-style status instead of exceptions)."""

    FOUND = "found"                 # complete path start..goal
    UNREACHABLE = "unreachable"     # no path exists (or start/goal blocked); see ``reason``
    PARTIAL = "partial"             # path to the closest reachable point instead of the goal
    IN_PROGRESS = "in_progress"     # a time-sliced search that has not finished yet


@dataclass(frozen=True, slots=True)
class PathResult:
    """Result of a grid path query.

    Attributes:
        status: a ``PathStatus``.
        cost: path cost in cell units (step length × terrain cost); ``inf`` when not found.
        cells: ``(N, 2) int32`` array of ``(x, y)`` cells, start..goal; empty when not found.
        expanded: number of nodes the search expanded (popped from its open list).
        reason: a human-readable explanation when ``found`` is False; when found, ``""`` or a
            note on how the query was answered (e.g. a method that fell back to A*).
    """

    status: PathStatus
    cost: float = float("inf")
    cells: np.ndarray = field(default_factory=lambda: EMPTY_CELLS)
    expanded: int = 0
    reason: str = ""

    @property
    def found(self) -> bool:
        """True when ``cells`` is a complete path from start to goal."""
        return self.status is PathStatus.FOUND

    def __bool__(self) -> bool:  # ``if find_path(...):`` reads naturally
        return self.found

    @staticmethod
    def unreachable(reason: str, expanded: int = 0) -> "PathResult":
        """A ``found = False`` result carrying ``reason``."""
        return PathResult(PathStatus.UNREACHABLE, float("inf"), EMPTY_CELLS, int(expanded), reason)
