"""Sampling many groups' sector tiles in one pass: the direction and cost to go under every
walking member of every group steered by a ``SectorOrder``, in one numba call instead of a few
per group.

With 100 groups of 500 the per-group calls cost ~40 µs each (4 ms a tick); here the groups are
gathered as they are met (``add``) and sampled at once (``run``). A member standing in a sector
whose field is not built yet gets the coarse route (``flow/sector_coarse.py``) and is reported, so
the caller builds that sector (within a per-tick bound). Only sector tiles
are gathered: they are what large maps (and so large armies) use, and their map-sized arrays
share one type; whole-map fields keep the per-group path.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ..flow.sector_build import BatchLists, OrderMaps, build_sectors
from ..flow.sector_coarse import coarse_exit, sector_nodes, toward
from ..flow.sectors import SectorGraph, SectorOrder
from ..kernels.threads import threads_for

__all__ = ["FieldBatch", "BatchLists", "SampleCache"]


class SampleCache:
    """Per agent id, the last sample taken from a built sector field: its cell, the order's
    ``tag``, the direction and the cost to go. A unit crosses a cell in tens of ticks, so most
    samples repeat the last one; read from here they skip two cache misses in their group's
    map-sized arrays (100 groups of 500: sampling 1.7 -> 0.6 ms a tick spawned together, 4.4 ->
    3.6 ms scattered, where a third stand in sectors not built yet). A unit in a sector not built
    yet keeps its coarse route's exit point the same way (under the tag negated; the direction is
    taken from its position each tick): its scattered reads of the portal graph cost ~240 ns a
    unit, and a third of a scattered crowd is there. The value is a function of (field state,
    cell) alone, so a reused id cannot read a stale one."""

    def __init__(self) -> None:
        self.cell = np.full(0, -1, dtype=np.int64)
        self.tag = np.zeros(0, dtype=np.int64)
        self.direction = np.zeros((0, 2))
        self.togo = np.zeros(0)

    def fit(self, agents: int) -> None:
        """Room for agent ids below ``agents`` (new rows hold no sample)."""
        have = len(self.cell)
        if agents <= have:
            return
        size = max(agents, 2 * have)
        self.cell = np.concatenate((self.cell, np.full(size - have, -1, dtype=np.int64)))
        self.tag = np.concatenate((self.tag, np.zeros(size - have, dtype=np.int64)))
        self.direction = np.concatenate((self.direction, np.zeros((size - have, 2))))
        self.togo = np.concatenate((self.togo, np.zeros(size - have)))


class FieldBatch:
    """Groups gathered for one batched sampling (``add``), then sampled (``run``)."""

    def __init__(self, grid, rows: np.ndarray, lists: BatchLists | None = None,
                 cache: SampleCache | None = None) -> None:
        self.grid = grid
        self.lists = lists if lists is not None else BatchLists()
        self.cache = cache if cache is not None else SampleCache()
        self.rows = rows                                   # the agents of the tick's walking rows
        self.graph: SectorGraph | None = None              # the sector tiles all gathered orders share
        self.taken: list[np.ndarray] = []                  # per group: its indices into ``rows``
        self.orders: list[SectorOrder] = []
        self.first_of: list[int] = []                      # per group: the first group with its order
        self._first: dict[int, int] = {}
        self.owner_of = np.zeros(0, dtype=np.int64)        # per row in an unbuilt sector: its group
        self.maps: OrderMaps | None = None                 # the gathered orders' maps, made by ``run``

    def add(self, field, at: np.ndarray) -> bool:
        """Take the rows ``at`` (indices into ``rows``) of a group steered by ``field``; False
        when it is not a sector-tile order on this grid's tiles (the caller samples it itself)."""
        if not (isinstance(field, SectorOrder) and field.graph.grid is self.grid):
            return False
        if self.graph is None:
            self.graph = field.graph
        elif field.graph is not self.graph:
            return False
        self.first_of.append(self._first.setdefault(id(field), len(self.taken)))
        self.taken.append(at)
        self.orders.append(field)
        return True

    def run(self, position: np.ndarray, direction: np.ndarray, togo_of_agent: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray]:
        """Write ``direction`` (per row) and ``togo_of_agent`` (per agent id) for the gathered
        rows. A row in a sector its group has not built gets the coarse route's direction
        (``sector_coarse``) and no cost to go (NaN); returns those rows and their sectors."""
        if not self.taken:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        graph = self.graph
        assert graph is not None
        view = self.grid.view
        sector_of = np.full(len(self.rows), -1, dtype=np.int64)
        self.owner_of = np.full(len(self.rows), -1, dtype=np.int64)
        starts = np.zeros(len(self.taken) + 1, dtype=np.int64)
        starts[1:] = np.cumsum([len(t) for t in self.taken])
        maps = self.maps = OrderMaps.of(self.orders, self.lists)
        node_starts, nodes = sector_nodes(graph)
        cache = self.cache
        cache.fit(len(togo_of_agent))
        tags = np.array([o.tag for o in self.orders], dtype=np.int64)
        with threads_for(int(starts[-1]), "field_samples"):
            _sample_all(maps.directions, maps.costs, maps.built, maps.node_costs, maps.exits, tags, graph.size,
                        graph.cols, node_starts, nodes, graph.node_cell, np.concatenate(self.taken), starts, self.rows,
                        position, view.origin_x, view.origin_y, view.cell_size, direction, togo_of_agent, sector_of,
                        self.owner_of, cache.cell, cache.tag, cache.direction, cache.togo)
        unbuilt = np.flatnonzero(sector_of >= 0)
        return unbuilt, sector_of[unbuilt]

    def build(self, unbuilt: np.ndarray, sectors: np.ndarray, most: int) -> int:
        """Build at most ``most`` of the sector fields that rows ``unbuilt`` (from ``run``) stand
        in, ``sectors``, those under the most rows first; returns the number built."""
        if len(unbuilt) == 0 or most <= 0:
            return 0
        owner = np.asarray(self.first_of, dtype=np.int64)[self.owner_of[unbuilt]]   # one build per order
        pairs, counts = np.unique(owner * (1 << 32) + sectors, return_counts=True)
        chosen = pairs[np.argsort(-counts, kind="stable")][:most]
        assert self.graph is not None and self.maps is not None
        build_sectors(self.graph, self.maps, chosen >> 32, chosen & 0xFFFFFFFF)
        return len(chosen)


# groups on both threads: each read is a cache (and TLB) miss in another group's map-sized
# arrays, and two threads keep twice as many misses in flight
@njit(cache=True, parallel=True)
def _sample_all(directions, costs, built, node_costs, exits, tags, sector_size, sector_cols, node_starts, nodes, node_cell,
                taken, starts, rows, position, origin_x, origin_y, cell_size, direction, togo, sector_of,
                owner_of, cached_cell, cached_tag, cached_direction, cached_togo):
    """The direction (zero off the map, as ``SectorOrder.sample``) and the cost to go (clipped to
    the map, NaN where the goal is out of reach, as ``SectorOrder.cost_under``) under each
    gathered row's agent, group by group (each group's maps are fetched once). A row whose
    sector is not built gets the coarse direction, a NaN cost, its sector in ``sector_of`` and its
    group in ``owner_of``.
    A row whose agent stands where it was sampled last, under the same field state
    (``SampleCache``), takes that sample again."""
    for gp in prange(starts.shape[0] - 1):
        g = np.int64(gp)                   # typed lists take a signed index; prange's is unsigned
        d = directions[g]
        c = costs[g]
        sectors = built[g]
        tag = tags[g]
        h, w = d.shape[0], d.shape[1]
        for e in range(starts[g], starts[g + 1]):
            k = taken[e]
            a = rows[k]
            fx = int(math.floor((position[a, 0] - origin_x) / cell_size))
            fy = int(math.floor((position[a, 1] - origin_y) / cell_size))
            x = min(max(fx, 0), w - 1)
            y = min(max(fy, 0), h - 1)
            inside = 0 <= fx < w and 0 <= fy < h
            here = y * w + x if inside else -1
            if here >= 0 and cached_cell[a] == here and cached_tag[a] == tag:
                direction[k, 0], direction[k, 1] = cached_direction[a, 0], cached_direction[a, 1]
                togo[a] = cached_togo[a]
                continue
            sid = (y // sector_size) * sector_cols + x // sector_size
            if not sectors[sid]:
                sector_of[k] = sid
                owner_of[k] = g
                # the coarse route's exit point is kept like a sample (its tag negated): fixed for
                # the order's field state and sector, and the unit's cell fixes the sector
                if here >= 0 and cached_cell[a] == here and cached_tag[a] == -tag:
                    ex, ey = cached_direction[a, 0], cached_direction[a, 1]
                else:
                    ex, ey = coarse_exit(sid, node_starts, nodes, node_costs[g], node_cell, cell_size, origin_x,
                                         origin_y, exits[g])
                    cached_cell[a], cached_tag[a] = here, -tag
                    cached_direction[a, 0], cached_direction[a, 1] = ex, ey
                direction[k, 0], direction[k, 1] = toward(position[a, 0], position[a, 1], ex, ey)
                togo[a] = np.nan
                continue
            cached_cell[a] = -1
            direction[k, 0] = d[y, x, 0] if inside else 0.0
            direction[k, 1] = d[y, x, 1] if inside else 0.0
            v = float(c[y, x])
            togo[a] = np.nan if math.isinf(v) else v
            if inside:
                cached_cell[a], cached_tag[a] = here, tag
                cached_direction[a, 0], cached_direction[a, 1] = direction[k, 0], direction[k, 1]
                cached_togo[a] = togo[a]
