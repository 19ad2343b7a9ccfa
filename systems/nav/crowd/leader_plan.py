"""A leader group's plan as one budgeted job: the leader's A* (sliced), then its corridor."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..flow.corridor import CorridorField
from ..result import PathStatus
from .config import CrowdConfig
from .congestion import Traffic
from .planners import UNIT_RATES, CallJob, GridJob, Route

__all__ = ["LeaderPlan", "raw_cells"]


class LeaderPlan(CallJob):
    """A leader order's plan: the leader's A* (sliced), then its corridor in three steps (band,
    corridor field, return field)."""

    def __init__(self, search: GridJob, traffic: Traffic, config: CrowdConfig, order, layered=None) -> None:
        self.search, self.order = search, order
        #: the grid of the group's navigation layers (None: the level's), planned and banded on
        self._layered = layered
        self._traffic, self._config = traffic, config
        # the band holds the group abreast: at least the radius of its packing (a 7-cell band
        # squeezed a 1,000-unit army sideways into itself and against the map's edge)
        self.width = max(config.corridor_width, order.pack_radius / traffic.grid.cell_size)
        self.corridor: CorridorField | None = None
        self._stages: Iterator[CorridorField | None] | None = None
        self.step_units = 1

    def advance(self, units: int) -> int:
        traffic = self._traffic
        if self._config.congestion and not self.search.done and self._layered is None:
            # one congestion-aware route search at a time: each sees the routes planned before it
            if traffic.searching not in (None, self.order.key):
                return 0
            if self.search.search is None:
                traffic.searching = self.order.key
                self.search.grid = traffic.planning_grid()        # around the traffic registered by now
        if not self.search.done:
            used = self.search.advance(units)
            if self.search.done:
                route = self.search.route
                if route is None or not route.found:
                    self.route = route or Route(PathStatus.UNREACHABLE, reason="no path")
                    self.done = True
                else:                                        # the corridor's three stages are next
                    traffic.add_route(self.order.key, raw_cells(self.search), self.order.members)
                    band = len(raw_cells(self.search)) * (2 * self.width + 1)
                    self.step_units = int(UNIT_RATES["corridor_per_cell"] * max(band, 1) * 8)
                if traffic.searching == self.order.key:
                    traffic.searching = None
            return used
        route = self.search.route
        try:
            if self._stages is None:                             # band, field, return field: one a step
                self._stages = CorridorField.stages(self._layered or self._traffic.grid, raw_cells(self.search),
                                                    width=self.width)
            built = next(self._stages)
        except Exception as e:                               # noqa: BLE001
            self.route = Route(PathStatus.UNREACHABLE, reason=f"corridor failed ({type(e).__name__}: {e})")
            self.done = True
            return self.step_units
        if built is None:
            return self.step_units
        self.corridor = built
        self.route = route
        self.done = True
        return self.step_units

    def release(self) -> None:
        self.search.release()
        if self._traffic.searching == self.order.key:
            self._traffic.searching = None


def raw_cells(job: GridJob) -> np.ndarray:
    """The unsmoothed A* cells of a finished grid job (the corridor follows every cell)."""
    assert job.search is not None                         # finished: it searched
    return job.search.result().cells
