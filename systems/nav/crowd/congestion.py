"""Congestion-aware group routes (``CrowdConfig.congestion``): the traffic map of the routes
group orders follow, and the grid a new group order plans on — the level with its narrow
passages made dearer by the units already routed through them, so a second army takes the free
bridge when queueing on the busy one would take longer."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy.ndimage import binary_dilation, uniform_filter

from ..flow.field import FlowField
from ..grid import Grid
from .config import CrowdConfig
from .level_cache import LevelCache
from .planners import UNIT_RATES, CallJob

__all__ = ["Traffic", "JAM_COST"]

#: Extra cost of a cell per stalled unit within two cells of it, for re-plans out of a jam (about
#: the cells of walking one stalled body costs to wait out).
JAM_COST = 4.0


class Traffic:
    """The planned group traffic per cell (units whose group route runs there) and the routes
    it is made of. ``searching`` names the one group whose congestion-aware route search runs
    (each sees the routes planned before it)."""

    def __init__(self, grid: Grid, config: CrowdConfig, level: LevelCache) -> None:
        self.grid = grid                         # the level (``planning_grid`` may add costs to it)
        self._config, self._level = config, level
        #: units routed through each cell (float64, the grid's shape)
        self.map = np.zeros(grid.shape, dtype=np.float64)
        self._routes: dict[tuple, tuple[np.ndarray, float]] = {}
        self._since_refresh = 0.0                # seconds since the map was recounted
        self.searching: tuple | None = None
        self._jam: Grid | None = None
        self._jam_time = -np.inf
        self.clock = 0.0                         # seconds of game time (``advance``)

    @property
    def routes(self) -> int:
        """Group routes registered now."""
        return len(self._routes)

    def planning_grid(self) -> Grid:
        """The grid group orders plan on: the level itself, or with ``congestion`` its terrain
        costs raised along the routes other groups already follow."""
        if not self._config.congestion or not self.map.any():
            return self.grid
        g = self.grid
        width = 2.0 * np.maximum(self._level.clearance(), 0.5)
        extra = self._config.congestion_weight * self.map / width
        return Grid(g.passable, np.where(g.passable, g.cost + extra, np.inf), g.heights, cell_size=g.cell_size,
                    origin=g.origin)

    def jam_grid(self, position: np.ndarray, stalled: np.ndarray) -> Grid:
        """The grid recoveries re-plan on: with ``congestion``, the level with the cells around
        slow units made dearer by ``JAM_COST`` per unit (``stalled``: each unit's weight, 0 for
        one walking at full speed, 1 for one standing), so a unit stuck in a jam looks for
        another passage when one is near enough; recounted at most every ``congestion_refresh``
        seconds of game time. Without: the level."""
        if not self._config.congestion:
            return self.grid
        if self._jam is not None and self.clock - self._jam_time < self._config.congestion_refresh:
            return self._jam
        g = self.grid
        some = stalled > 0
        cells = g.world_to_cells(position[some, :2])
        weight = stalled[some]
        h, w = g.shape
        inside = (cells[:, 0] >= 0) & (cells[:, 0] < w) & (cells[:, 1] >= 0) & (cells[:, 1] < h)
        cells, weight = cells[inside], weight[inside]
        count = np.bincount(cells[:, 1] * w + cells[:, 0], weights=weight, minlength=h * w).reshape(h, w)
        # spread over the 5×5 cells around (a jam blocks more than the cells its bodies stand in)
        spread = np.maximum(uniform_filter(count, size=5, mode="constant") * 25.0, 0.0)     # no rounding below 0
        # only passages count: in the open a path around a crowd is no shorter a wait, and a
        # path bent around the crowd in front of the only gap just enters it from the side
        spread *= self.narrow_passages()
        cost = np.where(g.passable, g.cost + JAM_COST * self._config.congestion_weight * spread, np.inf)
        self._jam = Grid(g.passable, cost, g.heights, cell_size=g.cell_size, origin=g.origin)
        self._jam_time = self.clock
        return self._jam

    def narrow_passages(self) -> np.ndarray:
        """Cells of the level's narrow passages (``LevelCache.passages``)."""
        return self._level.passages(self._config.congestion_narrow)[0] >= 0

    def add_route(self, key, cells: np.ndarray, units: float) -> None:
        """Register a group's route (grid cells) carrying ``units`` in the traffic map."""
        self.remove_route(key)
        if not self._config.congestion or len(cells) == 0:
            return
        band = np.zeros(self.grid.shape, dtype=bool)
        band[cells[:, 1], cells[:, 0]] = True
        band = binary_dilation(band, iterations=2) & self.grid.passable
        band &= self._level.clearance() <= self._config.congestion_narrow       # queues form at narrow passages
        self.map[band] += units
        self._routes[key] = (band, units)

    def remove_route(self, key) -> None:
        """A group order ended: its route no longer counts as traffic."""
        old = self._routes.pop(key, None)
        if old is not None:
            self.map[old[0]] -= old[1]
            np.maximum(self.map, 0.0, out=self.map)

    def advance(self, dt: float, members: Mapping) -> None:
        """Every ``congestion_refresh`` seconds recount each route by the members still on their
        way (``members``: order key -> an object with ``members``, the group orders)."""
        self.clock += dt
        if not self._routes:
            return
        self._since_refresh += dt
        if self._since_refresh < self._config.congestion_refresh:
            return
        self._since_refresh = 0.0
        for key, (band, units) in list(self._routes.items()):
            order = members.get(key)
            live = float(order.members) if order is not None else 0.0
            if live <= 0:
                self.remove_route(key)
            elif live != units:
                self.map[band] += live - units
                self._routes[key] = (band, live)
        np.maximum(self.map, 0.0, out=self.map)

    def field_job(self, key, goal: tuple[int, int], start: tuple[int, int], units: float) -> CallJob:
        """A group's own flow field planned around the traffic registered when the job runs
        (so groups ordered in the same tick see each other), its route registered at once."""
        def build():
            planning = self.planning_grid()
            field = (FlowField.build(planning, [goal], integration=self._config.flow_integration,
                                     rule=self._config.flow_rule)
                     if planning is not self.grid else self._level.flow_field(goal))
            if isinstance(field, FlowField):
                self.add_route(key, field.descend(start), units)
            return field

        return CallJob(build, int(UNIT_RATES["field_per_cell"] * int(self.grid.passable.sum())))
