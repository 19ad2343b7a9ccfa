"""Sampling many groups' fields in one pass: the direction and cost to go under every walking
member of every group whose field is a map-sized array (a whole-map flow or potential field, or
sector tiles' built sectors), in one numba call instead of a few per group.

With 100 groups of 500 the per-group calls cost ~40 µs each (4 ms a tick); here the groups are
gathered as they are met (``add``) and sampled at once (``run``). A member standing in a sector
whose field is not built yet is left to the per-group path (which builds it).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, typed

from ..flow.field import FlowField
from ..flow.potential import PotentialField
from ..flow.sectors import SectorOrder

__all__ = ["FieldBatch"]

_NO_SECTORS = np.zeros(0, dtype=np.bool_)


class _Part:
    """The gathered groups whose cost maps share one dtype (one numba list holds one type)."""

    def __init__(self) -> None:
        self.taken: list[np.ndarray] = []               # per group: its indices into the rows
        self.directions: list[np.ndarray] = []
        self.costs: list[np.ndarray] = []
        self.built: list[np.ndarray] = []
        self.unknown_if_inf: list[bool] = []


class FieldBatch:
    """Groups gathered for one batched sampling (``add``), then sampled (``run``)."""

    def __init__(self, grid, rows: np.ndarray) -> None:
        self.grid = grid
        self.rows = rows                                   # the agents of the tick's walking rows
        self.parts = {np.dtype(np.float32): _Part(), np.dtype(np.float64): _Part()}
        self.sector_size = 1
        self.sector_cols = 1

    def add(self, field, at: np.ndarray) -> bool:
        """Take the rows ``at`` (indices into ``rows``) of a group steered by ``field``; False
        when the field is not a map-sized array on this grid (the caller samples it itself)."""
        if isinstance(field, SectorOrder) and field.graph.grid is self.grid:
            self.sector_size, self.sector_cols = field.graph.size, field.graph.cols
            return self._take(field._direction, field.built_cost_map(), field._built, True, at)
        if isinstance(field, (FlowField, PotentialField)) and field.grid is self.grid:
            return self._take(field.direction, field.integration, _NO_SECTORS, False, at)
        return False

    def _take(self, direction, cost, built, unknown_if_inf, at) -> bool:
        part = self.parts.get(cost.dtype)
        if part is None or not (direction.dtype == np.float32 and direction.flags.c_contiguous
                                and cost.flags.c_contiguous and built.dtype == np.bool_):
            return False
        part.taken.append(at)
        part.directions.append(direction)
        part.costs.append(cost)
        part.built.append(built)
        part.unknown_if_inf.append(unknown_if_inf)
        return True

    def run(self, position: np.ndarray, direction: np.ndarray, togo_of_agent: np.ndarray) -> np.ndarray:
        """Write ``direction`` (per row) and ``togo_of_agent`` (per agent id) for the gathered
        rows; returns the row indices whose sector is not built (sample those per group)."""
        view = self.grid.view
        missing = np.zeros(len(self.rows), dtype=np.bool_)
        for part in self.parts.values():
            if not part.taken:
                continue
            starts = np.zeros(len(part.taken) + 1, dtype=np.int64)
            starts[1:] = np.cumsum([len(t) for t in part.taken])
            _sample_all(typed.List(part.directions), typed.List(part.costs), typed.List(part.built),
                        np.array(part.unknown_if_inf), self.sector_size, self.sector_cols, np.concatenate(part.taken),
                        starts, self.rows, position, view.origin_x, view.origin_y, view.cell_size, direction,
                        togo_of_agent, missing)
        return np.flatnonzero(missing)


@njit(cache=True)
def _sample_all(directions, costs, built, unknown_if_inf, sector_size, sector_cols, taken, starts, rows, position,
                origin_x, origin_y, cell_size, direction, togo, missing):
    """The direction (zero off the map, as ``sample_cells``) and the cost to go (clipped to the
    map, NaN where unknown, as ``_values_under``) under each gathered row's agent, group by group
    (each group's maps are fetched once)."""
    for g in range(starts.shape[0] - 1):
        d = directions[g]
        c = costs[g]
        sectors = built[g]
        unknown = unknown_if_inf[g]
        h, w = d.shape[0], d.shape[1]
        for e in range(starts[g], starts[g + 1]):
            k = taken[e]
            a = rows[k]
            fx = int(math.floor((position[a, 0] - origin_x) / cell_size))
            fy = int(math.floor((position[a, 1] - origin_y) / cell_size))
            x = min(max(fx, 0), w - 1)
            y = min(max(fy, 0), h - 1)
            if sectors.shape[0] > 0 and not sectors[(y // sector_size) * sector_cols + x // sector_size]:
                missing[k] = True
                continue
            inside = 0 <= fx < w and 0 <= fy < h
            direction[k, 0] = d[y, x, 0] if inside else 0.0
            direction[k, 1] = d[y, x, 1] if inside else 0.0
            v = float(c[y, x])
            togo[a] = np.nan if unknown and math.isinf(v) else v
