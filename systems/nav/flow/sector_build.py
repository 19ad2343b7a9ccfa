"""Building sector fields in batches, straight into their orders' map-sized arrays.

A crowd of scattered groups builds hundreds of sector fields a tick over a hundred orders. The
solve runs in one kernel call (``sector_fields_into``); everything a solve needs that Python
used to assemble per sector is kept in arrays instead: each sector's ring of seed cells
(``RingTable``, filled the first time a sector is built, cleared when an edit touches it) and
the orders' maps as numba lists (``OrderMaps``). Python's work is then per batch, not per
sector (100 groups of 500 scattered over AcrosstheCape, 256 builds a tick: ~3 ms of Python a
tick before).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, typed

from ..kernels.threads import threads_for
from .sector_fields import sector_fields_into

__all__ = ["RingTable", "BatchLists", "OrderMaps", "build_fields", "build_sectors", "drop_stale"]


class RingTable:
    """Every sector's ring in dense rows: the cells just outside it across its portals, the far
    portal side of each and its distance along the portal from that side's middle cell (as
    ``SectorGraph.ring``). A row is filled the first time its sector is built (``ensure``) and
    cleared when an edit touches the sector (``forget``)."""

    def __init__(self, graph) -> None:
        self.graph = graph
        n, width = len(graph.sectors), 4 * graph.size          # a portal cell per border cell at most
        self.count = np.full(n, -1, dtype=np.int64)            # -1: not filled
        self.cells = np.zeros((n, width, 2), dtype=np.int64)
        self.far = np.zeros((n, width), dtype=np.int64)
        self.along = np.zeros((n, width))

    def ensure(self, sids: np.ndarray) -> None:
        """Fill the rows of sectors ``sids`` not filled yet."""
        for sid in np.unique(sids[self.count[sids] < 0]).tolist():
            cells, far, along = self.graph.ring(sid)
            k = len(far)
            self.cells[sid, :k] = cells
            self.far[sid, :k] = far
            self.along[sid, :k] = along
            self.count[sid] = k

    def forget(self, sids) -> None:
        """Clear the rows of sectors ``sids`` (an edit changed their portals)."""
        self.count[np.asarray(sids, dtype=np.int64)] = -1


def ring_table(graph) -> RingTable:
    """The graph's ``RingTable``, made on first use."""
    if graph.ring_table is None:
        graph.ring_table = RingTable(graph)
    return graph.ring_table


class BatchLists:
    """Numba lists of arrays, kept from call to call while the same arrays are asked for in the
    same order (building the lists of 100 groups' maps costs ~0.8 ms)."""

    def __init__(self) -> None:
        self._key: tuple[int, ...] = ()
        self._lists: tuple = ()

    def of(self, *parts: list) -> tuple:
        """A typed list of each of ``parts`` (lists of arrays), reused when unchanged."""
        key = tuple(id(a) for part in parts for a in part)
        if key != self._key:
            # the lists hold the arrays, so their ids cannot be reused while the key is kept
            self._lists = tuple(typed_list(part) for part in parts)
            self._key = key
        return self._lists


def typed_list(arrays: list) -> typed.List:
    """A numba typed list of ``arrays`` (all of one dtype, rank and layout), made by cached kernels:
    ``typed.List(arrays)`` compiles the list's methods in every process that makes one (about
    0.5 s per item type and 2 s more the first time, numba caches none of it), which an unprepared
    crowd would pay inside its first flow-field tick."""
    if not arrays:
        return typed.List()
    items = _list_of(arrays[0])
    for array in arrays[1:]:
        _append(items, array)
    return items


@njit(cache=True)
def _list_of(first):
    items = typed.List()
    items.append(first)
    return items


@njit(cache=True)
def _append(items, item) -> None:
    items.append(item)


class OrderMaps(NamedTuple):
    """What ``sector_fields_into`` reads and writes of a list of ``SectorOrder``s, and their
    coarse routes' exits (for sampling them in the same pass)."""

    node_costs: typed.List
    costs: typed.List
    directions: typed.List
    bests: typed.List
    built: typed.List
    exits: typed.List
    goal_cells: np.ndarray
    goal_sectors: np.ndarray

    @classmethod
    def of(cls, orders: list, lists: BatchLists | None = None) -> "OrderMaps":
        """The maps of ``orders`` (through ``lists``' cache when given)."""
        lists = lists if lists is not None else BatchLists()
        parts = lists.of([o.node_cost for o in orders], [o.built_cost_map() for o in orders],
                         [o.sector_direction for o in orders], [o.sector_best for o in orders], [o.sector_built for o in orders],
                         [o.exits for o in orders])
        goals = np.array([o.goal for o in orders], dtype=np.int64).reshape(-1, 2)
        return cls(parts[0], parts[1], parts[2], parts[3], parts[4], parts[5], goals,
                   np.array([o.goal_sector for o in orders], dtype=np.int64))


def build_sectors(graph, maps: OrderMaps, owner: np.ndarray, sids: np.ndarray) -> None:
    """Build sector ``sids[i]`` of order ``owner[i]`` (an index into ``maps``) for each ``i``, in
    one kernel call; the pairs must be distinct and not built yet."""
    if len(sids) == 0:
        return
    sids = np.asarray(sids, dtype=np.int64)
    table = ring_table(graph)
    table.ensure(sids)
    grid = graph.grid
    with threads_for(len(sids) * graph.size * graph.size, "sector_fields"):
        sector_fields_into(grid.passable, grid.cost, grid.is_uniform, graph.size, graph.cols,
                           np.asarray(owner, dtype=np.int64), sids,
                           maps.goal_cells, maps.goal_sectors, table.count, table.cells, table.far, table.along,
                           maps.node_costs, maps.costs, maps.directions, maps.bests, maps.built)


def build_fields(requests) -> None:
    """Build the sector fields of ``(SectorOrder, sector id)`` pairs not built yet: one kernel
    call per graph for all of them (repeats and built ones are skipped)."""
    by_graph: dict[int, dict[tuple[int, int], tuple]] = {}
    for order, sid in requests:
        if not order.sector_built[sid]:
            by_graph.setdefault(id(order.graph), {})[(id(order), int(sid))] = (order, int(sid))
    for todo in by_graph.values():
        pairs = list(todo.values())
        orders = list({id(o): o for o, _ in pairs}.values())
        index = {id(o): k for k, o in enumerate(orders)}
        owner = np.array([index[id(o)] for o, _ in pairs], dtype=np.int64)
        build_sectors(orders[0].graph, OrderMaps.of(orders), owner, np.array([s for _, s in pairs], dtype=np.int64))


@njit(cache=True)
def drop_stale(built, edited_at, seen, ring_count, ring_far, old_cost, new_cost) -> None:
    """Unmark the built sectors whose field may have changed: touched by an edit after edit
    ``seen`` (``edited_at``; another order may have filled the ring row again since), or with a
    ring seed whose far portal side's cost to the goal changed from ``old_cost`` to
    ``new_cost``."""
    for sid in range(built.shape[0]):
        if not built[sid]:
            continue
        if edited_at[sid] > seen or ring_count[sid] < 0:
            built[sid] = False
            continue
        for j in range(ring_count[sid]):
            far = ring_far[sid, j]
            if old_cost[far] != new_cost[far]:
                built[sid] = False
                break
