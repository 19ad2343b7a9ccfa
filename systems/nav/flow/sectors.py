"""Flow field tiles (Emerson, "Crowd Pathfinding and Steering Using Flow Field Tiles", Game AI
Pro, 2013): the grid is cut into square sectors; where open cells face each other across a sector
border, each run of them is a *portal*. An order runs one Dijkstra over the small portal graph
(from the goal), then builds flow fields only for the sectors agents are actually in, lazily,
cached by (goal, sector). Editing cells rebuilds only the sectors they touch.

Portal graph nodes are portal *sides*: node ``2p`` is portal ``p``'s middle cell in its first
sector, ``2p + 1`` in its second. Edges: crossing a portal (one straight step), and between the
sides that share a sector (the in-sector shortest distance, from a bounded Dijkstra).

>>> import numpy as np
>>> from rtsnav.systems.nav import Grid
>>> from rtsnav.systems.nav.flow.sectors import SectorGraph
>>> grid = Grid(np.ones((32, 32), dtype=bool))
>>> tiles = SectorGraph(grid, sector_size=16)
>>> order = tiles.order((30, 30))
>>> d = order.sample(np.array([[1.5, 1.5]]))          # a sector field is built on first use
>>> bool(d[0, 0] > 0.5 and d[0, 1] > 0.5), len(order.fields)
(True, 1)
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from rtsnav import checks

from ..errors import NavError
from ..grid import Grid, require_grid
from ..kernels.csr import csr_dijkstra
from .sector_build import build_fields, drop_stale, ring_table
from .sector_coarse import coarse_directions
from .sector_fields import sector_field, sector_node_distances

__all__ = ["SectorGraph", "SectorOrder"]

_ALL = np.ones(1, dtype=np.uint8)


@dataclass(slots=True)
class _Sector:
    """The padded sub-grid of one sector plus a one-cell ring of its neighbours."""

    x0: int
    y0: int
    w: int
    h: int
    nodes: list = field(default_factory=list)       # portal-side nodes inside this sector


class SectorGraph:
    """Sectors, portals and the portal graph of a grid.

    Args:
        grid: the ``Grid``.
        sector_size: sector edge in cells, ≥ 4 (Emerson uses 10; 16 suits 1024² maps).
        progress: optional ``callable(done, total)`` called while building.
    """

    def __init__(self, grid: Grid, sector_size: int = 16, progress=None) -> None:
        grid = require_grid(grid, "SectorGraph")
        sector_size = _checked_size(sector_size)
        checks.callback(progress, "progress", error=NavError)
        self.grid = grid
        self.size = int(sector_size)
        self.cols = -(-grid.width // self.size)
        self.rows = -(-grid.height // self.size)
        self.version = grid.version
        self._begin()
        total = 3 * len(self.sectors)
        while not self.ready:
            done = self.build_some(64)
            if progress is not None:
                progress(min(done, total), total)

    @classmethod
    def start(cls, grid: Grid, sector_size: int = 16) -> "SectorGraph":
        """A graph to build in steps (``build_some`` until ``ready``), e.g. under a crowd's
        planning budget so that no tick pays for the whole build (0.4 s on a 1024² map)."""
        graph = cls.__new__(cls)
        graph.grid, graph.size = require_grid(grid, "SectorGraph.start"), _checked_size(sector_size)
        graph.cols, graph.rows = -(-grid.width // graph.size), -(-grid.height // graph.size)
        graph.version = grid.version
        cls._begin(graph)
        return graph

    # ------------------------------------------------------------------ build
    # Portals are kept per sector border and in-sector edges per sector, so an edit redoes only
    # the borders and sectors it touched. Portal ids are stable: a portal that an edit removes
    # stays as a dead id (no cells, no edges) and new ones are appended.
    def _begin(self) -> None:
        s, grid = self.size, self.grid
        self.sectors = [
            _Sector(cx * s, cy * s, min(s, grid.width - cx * s), min(s, grid.height - cy * s))
            for cy in range(self.rows) for cx in range(self.cols)
        ]
        self.portal_cells: list[tuple[np.ndarray, np.ndarray]] = []   # per portal: (k, 2) cells each side
        self._border_portals: dict[int, list[int]] = {}                # border (2·sector + 0 east / 1 south)
        self._node_sector: list[int] = []
        self._node_cell: list[tuple[int, int]] = []
        self._rings: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._intra: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self.node_sector = np.zeros(0, dtype=np.int64)
        self.node_cell = np.zeros((0, 2), dtype=np.int64)
        # every sector's edges in one table: (source, target, cost, owning sector)
        self._table: tuple[np.ndarray, ...] = ()
        self.ring_table = None           # the rings in dense rows (``sector_build.RingTable``), on first use
        self.edits = 0                   # edits so far, and the last edit that touched each sector
        self.edited_at = np.zeros(len(self.sectors), dtype=np.int64)
        self._cursor = 0                 # build steps done: every border, then every sector
        self.ready = False

    def build_some(self, count: int) -> int:
        """Do up to ``count`` build steps (a border's portals or a sector's edges each); the
        last assembles the graph and sets ``ready``. Returns the steps done so far."""
        borders, sectors = 2 * len(self.sectors), len(self.sectors)
        if self.version != self.grid.version:          # edited mid-build: start over
            self.version = self.grid.version
            self._begin()
        count = checks.whole_number(count, "count", low=0, error=NavError)
        end = min(self._cursor + max(1, count), borders + sectors)
        for step in range(self._cursor, end):
            if step < borders:
                self._set_border(step)
            else:
                self._set_intra(step - borders)
        self._cursor = end
        if end == borders + sectors and not self.ready:
            self._assemble()
            self.ready = True
        return self._cursor + (sectors if self.ready else 0)

    def _border_runs(self, border: int) -> tuple[list[tuple[np.ndarray, np.ndarray]], int, int]:
        """Runs of open cell pairs across one sector border, and the sectors on either side."""
        sid, south = divmod(border, 2)
        cx, cy = sid % self.cols, sid // self.cols
        sec, p = self.sectors[sid], self.grid.passable
        if not south and cx + 1 < self.cols:              # east border: column x - 1 | x
            x = sec.x0 + sec.w
            first, open_mask, other = sec.y0, p[sec.y0: sec.y0 + sec.h, x - 1] & p[sec.y0: sec.y0 + sec.h, x], sid + 1
            fixed = 0                                     # x is the border's line, y runs along it
        elif south and cy + 1 < self.rows:                # south border: row y - 1 | y
            y = sec.y0 + sec.h
            first, open_mask, other = sec.x0, p[y - 1, sec.x0: sec.x0 + sec.w] & p[y, sec.x0: sec.x0 + sec.w], sid + self.cols
            fixed = 1
        else:
            return [], sid, sid
        if not open_mask.any():
            return [], sid, other
        m = np.concatenate([[False], open_mask, [False]])
        starts = np.flatnonzero(~m[:-1] & m[1:])
        ends = np.flatnonzero(m[:-1] & ~m[1:])
        line = x if fixed == 0 else y
        runs = []
        for s0, e0 in zip(starts.tolist(), ends.tolist()):
            side_b = np.empty((e0 - s0, 2), dtype=np.int64)
            side_b[:, fixed] = line                        # the far side's column (row)
            side_b[:, 1 - fixed] = np.arange(first + s0, first + e0)
            side_a = side_b.copy()
            side_a[:, fixed] = line - 1                    # the near side's
            runs.append((side_a, side_b))
        return runs, sid, other

    def _set_border(self, border: int) -> bool:
        """(Re)derive one border's portals; False when they did not change (ids kept)."""
        runs, sid_a, sid_b = self._border_runs(border)
        old = self._border_portals.get(border, [])
        if len(old) == len(runs) and all(np.array_equal(self.portal_cells[q][0], r[0]) for q, r in zip(old, runs)):
            return False
        empty = np.zeros((0, 2), dtype=np.int64)
        for q in old:                                     # dead: no cells, no nodes in any sector
            self.portal_cells[q] = (empty, empty)
            self.sectors[sid_a].nodes.remove(2 * q)
            self.sectors[sid_b].nodes.remove(2 * q + 1)
            self._node_sector[2 * q] = self._node_sector[2 * q + 1] = -1
            self.node_sector[2 * q: 2 * q + 2] = -1          # the assembled copy (when there is one)
        fresh = []
        for ca, cb in runs:
            q = len(self.portal_cells)
            mid = len(ca) // 2
            self.portal_cells.append((ca, cb))
            self._node_sector += [sid_a, sid_b]
            self._node_cell += [(int(ca[mid, 0]), int(ca[mid, 1])), (int(cb[mid, 0]), int(cb[mid, 1]))]
            self.sectors[sid_a].nodes.append(2 * q)
            self.sectors[sid_b].nodes.append(2 * q + 1)
            fresh.append(q)
        self._border_portals[border] = fresh
        return True

    def _set_intra(self, sid: int) -> None:
        """The in-sector edges of sector ``sid``: shortest distances between its portal sides."""
        sec = self.sectors[sid]
        nodes = np.asarray(sec.nodes, dtype=np.int64)
        if len(nodes) < 2:
            none = np.zeros(0, dtype=np.int64)
            self._intra[sid] = (none, none.copy(), np.zeros(0))
            return
        cells = np.asarray([self._node_cell[a] for a in sec.nodes], dtype=np.int64)
        dist = sector_node_distances(self.grid.passable, self.grid.cost, sec.x0, sec.y0, sec.w, sec.h, cells)
        np.fill_diagonal(dist, np.inf)
        a, b = np.nonzero(np.isfinite(dist))                # row-major: each node's edges in node order
        self._intra[sid] = (nodes[a], nodes[b], dist[a, b].astype(np.float64))

    def _assemble(self, redone: list[int] | None = None) -> None:
        """The portal graph's CSR from the live portals' crossings and every sector's edges;
        ``redone``: the only sectors whose edges changed since the last assembly (None: all)."""
        k = len(self.node_sector) if redone is not None else 0
        self.node_sector = np.concatenate([self.node_sector[:k], np.asarray(self._node_sector[k:], dtype=np.int64)])
        self.node_cell = np.concatenate([self.node_cell[:k],
                                         np.asarray(self._node_cell[k:], dtype=np.int64).reshape(-1, 2)])
        n_nodes = len(self.node_sector)
        parts: list[tuple[np.ndarray, ...]]
        if redone is None:
            parts = [self._intra[sid] for sid in range(len(self.sectors))]
            owner = np.repeat(np.arange(len(self.sectors)), [len(p[0]) for p in parts])
        else:
            keep = ~np.isin(self._table[3], redone)
            parts = [tuple(a[keep] for a in self._table[:3])] + [self._intra[sid] for sid in redone]
            owner = np.concatenate([self._table[3][keep]] + [np.full(len(self._intra[sid][0]), sid) for sid in redone])
        self._table = tuple(np.concatenate([p[i] for p in parts]) for i in range(3)) + (owner,)
        live = np.flatnonzero(self.node_sector[0::2] >= 0)
        a, b = self.node_cell[2 * live], self.node_cell[2 * live + 1]
        c = self.grid.cost
        cross = 0.5 * (c[a[:, 1], a[:, 0]] + c[b[:, 1], b[:, 0]]).astype(np.float64)
        src = np.concatenate([2 * live, 2 * live + 1, self._table[0]])
        dst = np.concatenate([2 * live + 1, 2 * live, self._table[1]])
        cost = np.concatenate([cross, cross, self._table[2]])
        self.adj_start, order = _group_by_source(src, n_nodes)
        self.adj_target = dst[order]
        self.adj_cost = cost[order]

    @property
    def portal_count(self) -> int:
        """Number of live portals (an edit leaves the ids of the portals it removed unused)."""
        return int((self.node_sector[0::2] >= 0).sum())

    def sector_of(self, cells: np.ndarray) -> np.ndarray:
        """Sector ids of ``(N, 2)`` cells of the grid (``NavError`` for cells off it)."""
        return _sector_ids(self, checks.cells(cells, "cells", self.grid.width, self.grid.height, error=NavError))

    def _sector_id(self, sid: int) -> int:
        """``sid`` when it names one of this graph's sectors, else ``NavError``."""
        return checks.whole_number(sid, "sector id", low=0, high=len(self.sectors) - 1, error=NavError)

    # ---------------------------------------------------------- local fields
    def local_field(self, sid: int, seeds, values, ring_seeds=None, ring_values=None,
                    with_directions: bool = False):
        """Integration (and optionally directions) inside sector ``sid`` only.

        ``seeds``: cells inside the sector; ``ring_seeds``: cells just outside it (the far
        sides of its portals) with their costs to the goal. Returns ``dist [h, w]`` (float64),
        or ``(dist, best_move, direction)`` for the sector's cells.
        """
        sec = self.sectors[self._sector_id(sid)]
        grid = self.grid
        with_directions = checks.flag(with_directions, "with_directions", error=NavError)
        # the kernel indexes by these cells unchecked: inside the sector (its ring: one cell around)
        seeds, values = _seeds(seeds, values, "seeds", (sec.x0, sec.y0, sec.w, sec.h))
        if ring_seeds is None:
            ring_seeds, ring_values = np.zeros((0, 2), dtype=np.int64), np.zeros(0)
        ring_seeds, ring_values = _seeds(ring_seeds, ring_values, "ring_seeds", (sec.x0 - 1, sec.y0 - 1, sec.w + 2, sec.h + 2))
        dist, best, direction = sector_field(grid.passable, grid.cost, sec.x0, sec.y0, sec.w, sec.h, seeds, values,
                                              ring_seeds, ring_values, with_directions)
        if not with_directions:
            return dist
        return dist, best, direction

    # ------------------------------------------------------------------ orders
    def order(self, goal) -> "SectorOrder":
        """Plan toward ``goal`` (an ``(x, y)`` cell): one Dijkstra over the portal graph."""
        gx, gy = self.grid.check_cell(goal, "goal")
        if not self.grid.passable[gy, gx]:
            raise NavError(f"goal {(gx, gy)} is a blocked cell")
        if self.version != self.grid.version:
            raise NavError("the grid changed since this SectorGraph was built; call update(cells)")
        while not self.ready:
            self.build_some(1 << 30)
        return SectorOrder(self, (gx, gy))

    def ring(self, sid: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The cells just outside sector ``sid`` across its portals, as ``(cells (k, 2), far
        node of each, distance along the portal from that node's middle cell)``: fixed for a
        built graph, so computed once per sector (an order's sector fields seed from them)."""
        sid = self._sector_id(sid)
        found = self._rings.get(sid)
        if found is None:
            cells, far, along = [np.zeros((0, 2), dtype=np.int64)], [np.zeros(0, dtype=np.int64)], [np.zeros(0)]
            for node in self.sectors[sid].nodes:
                other = node ^ 1
                run = self.portal_cells[other // 2][other & 1]
                cells.append(np.asarray(run, dtype=np.int64))
                far.append(np.full(len(run), other, dtype=np.int64))
                along.append(np.abs(run - self.node_cell[other]).sum(axis=1).astype(np.float64))
            found = self._rings[sid] = (np.concatenate(cells), np.concatenate(far), np.concatenate(along))
        return found

    def update(self, cells: np.ndarray) -> list[int]:
        """Re-derive portals after ``cells`` (``(N, 2)``) changed; returns the sectors touched.

        Only the borders of touched sectors are re-scanned (a border whose runs did not change
        keeps its portal ids) and only touched sectors' in-sector distances are recomputed; the
        portal graph's CSR is then re-assembled (a few milliseconds on a 1024² map, against
        ~0.4 s for a full build). Cached sector fields of live orders are dropped only for
        touched sectors and for sectors whose portal costs changed (``SectorOrder.replan``).
        """
        c = checks.cells(cells, "cells", self.grid.width, self.grid.height, error=NavError)
        if not self.ready:                # mid-build: the build starts over on the edited grid
            return []
        touched = set(_sector_ids(self, c).tolist())
        # a changed cell on a border also changes the neighbour's portals
        s = self.size
        for x, y in c.tolist():
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                nx, ny = x + dx, y + dy
                if self.grid.in_bounds(nx, ny) and (nx // s != x // s or ny // s != y // s):
                    touched.add(int((ny // s) * self.cols + nx // s))
        borders = set()
        for sid in touched:
            borders |= {2 * sid, 2 * sid + 1}
            if sid % self.cols:
                borders.add(2 * (sid - 1))                # the west neighbour's east border
            if sid >= self.cols:
                borders.add(2 * (sid - self.cols) + 1)    # the north neighbour's south border
        for border in sorted(borders):
            self._set_border(border)
        for sid in sorted(touched):
            self._set_intra(sid)
            self._rings.pop(sid, None)
        self.edits += 1
        self.edited_at[sorted(touched)] = self.edits
        if self.ring_table is not None:
            self.ring_table.forget(sorted(touched))
        self._assemble(sorted(touched))
        self.version = self.grid.version
        self.touched = sorted(touched)
        return self.touched


#: Tags of sector orders' field states (``SectorOrder.tag``).
_ORDER_TAGS = itertools.count(1)

class SectorOrder:
    """One goal on a ``SectorGraph``: portal costs to the goal, and sector fields built on demand.

    Attributes:
        goal: the goal cell ``(x, y)``.
        node_cost: cost from every portal side to the goal (inf = unreachable).
        fields: ``{sector id: (dist, best_move, direction)}`` of the sectors built so far
            (views of the order's map-sized arrays).
    """

    def __init__(self, graph: SectorGraph, goal: tuple[int, int]) -> None:
        self.graph = graph
        self.goal = goal
        # Every built sector's directions, costs and best moves land in map-sized arrays, so
        # sampling many units is one gather, whatever the number of sectors they stand in; zeros
        # (pages committed only where a sector is written)
        self._direction = np.zeros(graph.grid.shape + (2,), dtype=np.float32)
        self._cost = np.zeros(graph.grid.shape, dtype=np.float32)
        self._best = np.zeros(graph.grid.shape, dtype=np.int8)
        self._built = np.zeros(len(graph.sectors), dtype=bool)
        self.node_cost = np.zeros(0)
        self._edits_seen = graph.edits
        self.replan()

    @property
    def sector_direction(self) -> np.ndarray:
        """``[h, w, 2] float32`` directions of the built sectors (the batched sampler reads them)."""
        return self._direction

    @property
    def sector_best(self) -> np.ndarray:
        """``[h, w] int8`` each built cell's best move."""
        return self._best

    @property
    def sector_built(self) -> np.ndarray:
        """``(sectors,) bool``: which sectors' fields are built."""
        return self._built

    @property
    def fields(self) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """``{sector id: (dist, best_move, direction)}`` of the sectors built so far."""
        return {sid: self._views(sid) for sid in np.flatnonzero(self._built).tolist()}

    def _views(self, sid: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        sec = self.graph.sectors[sid]
        where = (slice(sec.y0, sec.y0 + sec.h), slice(sec.x0, sec.x0 + sec.w))
        return self._cost[where], self._best[where], self._direction[where]

    def replan(self) -> None:
        """(Re)compute the portal costs to the goal, e.g. after ``SectorGraph.update``; sector
        fields whose inputs did not change are kept."""
        #: changes whenever a built cell's direction or cost may change (samples cached under an
        #: older tag are stale); unique among all orders
        self.tag = next(_ORDER_TAGS)
        g = self.graph
        gsid = int(g.sector_of(np.array([self.goal]))[0])
        self.goal_sector = gsid
        local = g.local_field(gsid, [self.goal], [0.0])
        sec = g.sectors[gsid]
        seeds, costs = [], []
        for node in sec.nodes:
            x, y = g.node_cell[node] - (sec.x0, sec.y0)
            if np.isfinite(local[y, x]):
                seeds.append(node)
                costs.append(local[y, x])
        self.exits = np.full(len(g.sectors), -2, dtype=np.int64)   # coarse route: each sector's exit
        old = self.node_cost
        self.node_cost, _ = csr_dijkstra(g.adj_start, g.adj_target, g.adj_cost,
                                         np.asarray(seeds, dtype=np.int64), np.asarray(costs, dtype=np.float64))
        if self._built.any():
            # a built sector stays while no edit touched it and its ring seeds' costs are the same
            table = ring_table(g)
            drop_stale(self._built, g.edited_at, self._edits_seen, table.count, table.far, old, self.node_cost)
        self._edits_seen = g.edits

    def seed_values(self, sid: int):
        """Ring seeds of sector ``sid``: the far-side cells of its portals, each at its portal
        side's cost plus its distance along the portal from the side's middle cell (inf where
        that side does not reach the goal: such cells seed nothing)."""
        cells, far, along = self.graph.ring(sid)
        return cells, self.node_cost[far] + along

    def field(self, sid: int):
        """``(dist, best_move, direction)`` of sector ``sid``, built now if needed."""
        if not self._built[sid]:
            self.build([sid])
        return self._views(sid)

    def build(self, sids) -> None:
        """Build the fields of sectors ``sids`` not built yet, in one kernel call."""
        build_fields([(self, int(sid)) for sid in sids])

    def _gather(self, cells: np.ndarray, which: int, fill, dtype) -> np.ndarray:
        """Per-cell values from field part ``which`` (0 dist, 1 best_move) of each cell's sector."""
        c = np.asarray(cells, dtype=np.int64)
        sids = _sector_ids(self.graph, c)
        out = np.full(len(c), fill, dtype=dtype)
        for sid in np.unique(sids):
            part = self.field(int(sid))[which]
            sec = self.graph.sectors[int(sid)]
            m = sids == sid
            out[m] = part[c[m, 1] - sec.y0, c[m, 0] - sec.x0]
        return out

    def cost(self, cells: np.ndarray) -> np.ndarray:
        """Tile integration values at ``(N, 2)`` cells (builds the sectors they are in)."""
        return self._gather(cells, 0, np.inf, np.float64)

    def sample(self, points: np.ndarray) -> np.ndarray:
        """Directions for world points ``(N, 2|3)`` -> ``(N, 2) float32`` (zero off-grid);
        builds the fields of sectors not built yet."""
        g = self.graph
        grid = g.grid
        pts = np.ascontiguousarray(np.asarray(points, dtype=np.float64)[:, :2])
        out = np.zeros((len(pts), 2), dtype=np.float32)
        missing = _sample_directions(self._direction, self._built, g.size, g.cols, grid.cell_size, grid.origin[0],
                                     grid.origin[1], pts, out)
        if len(missing):
            for sid in np.unique(missing):
                self.field(int(sid))
            _sample_directions(self._direction, self._built, g.size, g.cols, grid.cell_size, grid.origin[0],
                               grid.origin[1], pts, out)
        return out

    def sample_within(self, points: np.ndarray, max_builds: int) -> tuple[np.ndarray, int, np.ndarray]:
        """``sample`` that builds at most ``max_builds`` missing sector fields (those under the
        most points first; a crowd's budget sets it). Points in a sector still unbuilt get the
        coarse route's direction: straight toward the far side of their sector's portal with the
        least cost to the goal plus distance from the sector's middle (``sector_coarse``).
        Returns ``(directions (N, 2) float32, sectors built, coarse mask)``."""
        g = self.graph
        grid = g.grid
        pts = np.ascontiguousarray(np.asarray(points, dtype=np.float64)[:, :2])
        out = np.zeros((len(pts), 2), dtype=np.float32)
        args = (self._direction, self._built, g.size, g.cols, grid.cell_size, grid.origin[0], grid.origin[1], pts, out)
        missing = _sample_directions(*args)
        builds = 0
        if len(missing) and max_builds > 0:
            sids, counts = np.unique(missing, return_counts=True)
            chosen = sids[np.argsort(-counts, kind="stable")][:max_builds]
            self.build(chosen)                            # one kernel call for all of them
            builds = len(chosen)
            missing = _sample_directions(*args)
        coarse = np.zeros(len(pts), dtype=bool)
        if len(missing):
            cells = np.clip(grid.world_to_cells(pts), 0, [grid.width - 1, grid.height - 1])
            sid_of = _sector_ids(g, cells)
            coarse = ~self._built[sid_of]
            here = np.flatnonzero(coarse)
            coarse_out = np.zeros((len(here), 2))
            coarse_directions(g, self.node_cost, self.exits, pts[here], sid_of[here], coarse_out)
            out[here] = coarse_out
        return out, builds, coarse

    def built_cost_map(self) -> np.ndarray:
        """The map-sized integration values of the sectors built so far (0 in sectors not built
        yet: ``cost_under`` tells them apart); read-only by convention."""
        return self._cost

    def cost_under(self, points: np.ndarray) -> np.ndarray:
        """Integration values under world points ``(N, 2|3)`` (clipped to the map), float64; NaN
        where the sector is not built yet or the cell does not reach the goal. Builds nothing."""
        g = self.graph
        grid = g.grid
        pts = np.ascontiguousarray(np.asarray(points, dtype=np.float64)[:, :2])
        return _cost_under(self._cost, self._built, g.size, g.cols, grid.cell_size, grid.origin[0], grid.origin[1],
                           pts)

    def best_moves(self, cells: np.ndarray) -> np.ndarray:
        """``best_move`` of ``(N, 2)`` cells (-1 where none)."""
        return self._gather(cells, 1, -1, np.int8)


@njit(cache=True)
def _sample_directions(direction, built, size, cols, cell_size, origin_x, origin_y, points, out):
    """Fill ``out`` with the directions under ``points`` whose sector field is built; returns the
    sectors (with repeats) still to build."""
    h, w = direction.shape[0], direction.shape[1]
    missing = np.empty(points.shape[0], dtype=np.int64)
    m = 0
    for i in range(points.shape[0]):
        cx = int(math.floor((points[i, 0] - origin_x) / cell_size))
        cy = int(math.floor((points[i, 1] - origin_y) / cell_size))
        if not (0 <= cx < w and 0 <= cy < h):
            continue
        sid = (cy // size) * cols + cx // size
        if not built[sid]:
            missing[m] = sid
            m += 1
            continue
        out[i, 0] = direction[cy, cx, 0]
        out[i, 1] = direction[cy, cx, 1]
    return missing[:m]


@njit(cache=True)
def _group_by_source(src, n_nodes):
    """CSR start offsets and the edge order grouping edges by source node (a counting sort,
    stable: O(edges), where a general sort of ~70,000 edges took milliseconds)."""
    start = np.zeros(n_nodes + 1, dtype=np.int64)
    for e in range(src.size):
        start[src[e] + 1] += 1
    for i in range(n_nodes):
        start[i + 1] += start[i]
    fill = start[:-1].copy()
    order = np.empty(src.size, dtype=np.int64)
    for e in range(src.size):
        order[fill[src[e]]] = e
        fill[src[e]] += 1
    return start, order


@njit(cache=True)
def _cost_under(cost, built, size, cols, cell_size, origin_x, origin_y, points):
    """``SectorOrder.cost_under``'s pass over the points."""
    h, w = cost.shape
    out = np.empty(points.shape[0])
    for i in range(points.shape[0]):
        x = min(max(int(math.floor((points[i, 0] - origin_x) / cell_size)), 0), w - 1)
        y = min(max(int(math.floor((points[i, 1] - origin_y) / cell_size)), 0), h - 1)
        v = float(cost[y, x])
        out[i] = v if built[(y // size) * cols + x // size] and not math.isinf(v) else np.nan
    return out


def _seeds(cells, values, name: str, box: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """``cells`` (in the ``(x0, y0, w, h)`` box) and one finite value each, else ``NavError``."""
    c = checks.cells(cells, name, 0, 0, error=NavError, on_grid=False)
    x0, y0, w, h = box
    if ((c[:, 0] < x0) | (c[:, 0] >= x0 + w) | (c[:, 1] < y0) | (c[:, 1] >= y0 + h)).any():
        raise NavError(f"{name} must lie in the sector's box x {x0}..{x0 + w - 1}, y {y0}..{y0 + h - 1}, got {c.tolist()}")
    try:
        v = np.asarray(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise NavError(f"{name}' values must be numbers, got {values!r:.100}") from None
    if len(v) != len(c) or not np.isfinite(v).all():
        raise NavError(f"{name}' values must be {len(c)} finite numbers (one per cell), got {v.tolist()}")
    return c, v


def _checked_size(sector_size) -> int:
    """``sector_size`` as an int in 4 .. 2**20, else ``NavError``."""
    return checks.whole_number(sector_size, "sector_size", low=4, high=1 << 20, error=NavError)


def _sector_ids(graph: SectorGraph, c: np.ndarray) -> np.ndarray:
    """``SectorGraph.sector_of`` for ``(N, 2)`` cells known to be on the grid (the hot paths')."""
    return (c[:, 1] // graph.size) * graph.cols + c[:, 0] // graph.size
