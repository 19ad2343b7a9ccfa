"""A multi-level waypoint hierarchy for long-range grid paths (HPA*: Botea, Müller, Schaeffer,
"Near Optimal Hierarchical Path-Finding", J. Game Development 1(1), 2004), 3 levels by default.

* **Level 1** cuts the grid into clusters of ``cluster_size`` cells. Where open cells face each
  other across a cluster border, each run of them is an *entrance* with one transition at its
  middle (two, at its ends, for runs of 6 or more); a transition's two cells are waypoints.
  Waypoints in one cluster are joined by their in-cluster shortest distance (bounded Dijkstra).
* **Level ℓ ≥ 2** groups ``ratio × ratio`` clusters of level ℓ-1. Its waypoints are the level-1
  waypoints on its cluster borders; their in-cluster distances come from searching level ℓ-1's
  graph inside the cluster. Every level is a waypoint graph (CSR), served by one search kernel.
* **Query**: unreachable goals are answered from connected-component labels without search.
  Otherwise start and goal are inserted into every level up to the highest level ℓ* where they lie
  in different clusters, level ℓ* is searched, and the route is refined level by level, each
  search restricted to the corridor of clusters chosen above; the last refinement is a grid A*
  inside the corridor of level-1 clusters. Finally the path is smoothed.
* ``update(changed_cells)`` recomputes only the clusters the change touches, at every level.

>>> import numpy as np
>>> from rtsnav.systems.nav import Grid
>>> from rtsnav.systems.nav.waypoints.hierarchy import Hierarchy
>>> passable = np.ones((128, 128), dtype=bool)
>>> passable[20:120, 60] = False
>>> h = Hierarchy.build(Grid(passable), levels=3, cluster_size=8)
>>> r = h.find_path((5, 100), (120, 100))
>>> r.found, round(r.cost, 1) <= 1.02 * 149.3
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from rtsnav import checks

from ..bake_cache import grid_digest, load_or_bake, read_baked, require, write_baked
from ..errors import NavError
from ..grid import Grid, legal_moves, require_grid
from ..kernels.grid_dijkstra import integrate
from ..result import PathResult, PathStatus
from ..search.facade import find_path
from ..search.paths import path_cost
from .coarse_route import CoarseRoute, finished_result
from .graph_bounds import NO_GRAPH_BOUNDS
from .graph_search import (
    NO_ESTIMATE,
    OCTILE_ESTIMATE,
    GraphArrays,
    GraphEnds,
    GraphScratch,
    graph_search,
    refine_legs,
)
from .near_pairs import are_near, window_search

__all__ = ["Hierarchy", "CoarseRoute"]

FORMAT_VERSION = 3
_ALL = np.ones(1, dtype=np.uint8)
_NONE = np.zeros(0, dtype=np.int64)


#: More levels than this cannot help: with the smallest cluster and ratio, level 16's one cluster
#: spans 2^17 cells, beyond any map the grid holds.
MAX_LEVELS = 16


class Hierarchy:
    """A built hierarchy over one grid; see the module docs. Make one with ``Hierarchy.build``.

    Attributes:
        levels: number of abstract levels (≥ 1).
        sizes: cluster edge in cells per level, e.g. ``[32, 128, 512]`` (the default).
        node_x, node_y: waypoint cells; ``node_level``: the highest level each belongs to.
        rebuilt: clusters recomputed per level by the last ``build``/``update``.
    """

    def __init__(self, grid: Grid, levels: int, cluster_size: int, ratio: int) -> None:
        grid = require_grid(grid, "Hierarchy")
        for name, value, low in (("levels", levels, 1), ("cluster_size", cluster_size, 4), ("ratio", ratio, 2)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise NavError(f"{name} must be an integer >= {low}, got {value!r}")
        if levels > MAX_LEVELS or cluster_size > 1 << 20 or ratio > 1 << 10:
            raise NavError(f"levels must be <= {MAX_LEVELS}, cluster_size <= {1 << 20} and ratio <= {1 << 10} (beyond, "
                           f"a level's clusters exceed any map), got {levels}, {cluster_size}, {ratio}")
        self.grid = grid
        self.levels = int(levels)
        self.sizes = [int(cluster_size) * int(ratio) ** i for i in range(levels)]
        self.ratio = int(ratio)
        self.version = grid.version
        # per level: cluster id -> (cells_a (k,2), cells_b (k,2), costs (k,)) of its intra edges
        self._intra: list[dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]] = [{} for _ in range(levels)]
        self._node_sets: list[dict[int, frozenset]] = [{} for _ in range(levels)]
        self.rebuilt = [0] * levels
        self._compact = False             # see ``compact``
        self._scratch: GraphScratch | None = None

    # ================================================================== building
    @classmethod
    def build(cls, grid: Grid, levels: int = 3, cluster_size: int = 32, ratio: int = 4,
              progress: Callable[[str, int, int], None] | None = None) -> "Hierarchy":
        """Build the hierarchy of ``grid``.

        Args:
            levels: abstract levels, ≥ 1 (3 by default).
            cluster_size: level-1 cluster edge in cells, ≥ 4 (32: on AcrosstheCape, 768², this
                built 3× faster than 16 with queries as good and a little faster).
            ratio: each level's clusters are ``ratio × ratio`` clusters of the level below, ≥ 2.
            progress: optional ``callable(stage, done, total)``.
        """
        h = cls(grid, levels, cluster_size, ratio)
        h._refresh(None, checks.callback(progress, "progress", error=NavError))
        return h

    def _cluster_of(self, x, y, level: int):
        """Cluster id at ``level`` (1-based) of cells (arrays or ints)."""
        s = self.sizes[level - 1]
        cols = -(-self.grid.width // s)
        if isinstance(x, (int, np.integer)) and isinstance(y, (int, np.integer)):
            return (int(y) // s) * cols + int(x) // s
        return (np.asarray(y) // s) * cols + np.asarray(x) // s

    def cluster_count(self, level: int) -> int:
        """Clusters at ``level`` (1 .. ``levels``)."""
        s = self.sizes[self._level(level) - 1]
        return (-(-self.grid.width // s)) * (-(-self.grid.height // s))

    def _entrances(self) -> tuple[np.ndarray, np.ndarray]:
        """Transition cell pairs ``(a (k,2), b (k,2))`` across every level-1 cluster border."""
        p = self.grid.passable
        s = self.sizes[0]
        h, w = p.shape
        a_list: list[tuple[int, int]] = []
        b_list: list[tuple[int, int]] = []
        for horizontal in (False, True):
            # borders between column x-1 | x (vertical borders) or row y-1 | y (horizontal)
            for line in range(s, (h if horizontal else w), s):
                if horizontal:
                    pairs = p[line - 1, :] & p[line, :]
                else:
                    pairs = p[:, line - 1] & p[:, line]
                span = len(pairs)
                for seg0 in range(0, span, s):
                    seg = pairs[seg0:seg0 + s]
                    if not seg.any():
                        continue
                    m = np.concatenate([[False], seg, [False]])
                    starts = np.flatnonzero(~m[:-1] & m[1:])
                    ends = np.flatnonzero(m[:-1] & ~m[1:])
                    for r0, r1 in zip(starts, ends):
                        length = r1 - r0
                        picks = [r0 + length // 2] if length < 6 else [r0, r1 - 1]
                        for k in picks:
                            t = int(seg0 + k)
                            if horizontal:
                                a_list.append((t, line - 1))
                                b_list.append((t, line))
                            else:
                                a_list.append((line - 1, t))
                                b_list.append((line, t))
        a = np.array(a_list, dtype=np.int64).reshape(-1, 2)
        b = np.array(b_list, dtype=np.int64).reshape(-1, 2)
        return a, b

    def _refresh(self, touched_cells: np.ndarray | None, progress=None, trust_cache: bool = False) -> None:
        """(Re)derive nodes and edges; recompute intra edges of clusters whose inputs changed
        (all of them when ``touched_cells`` is None; with ``trust_cache``, only clusters missing
        from the intra-edge tables, e.g. after loading them from disk)."""
        grid = self.grid
        a, b = self._entrances()
        cells = np.unique(np.concatenate([a, b]), axis=0) if len(a) else np.zeros((0, 2), np.int64)
        self.node_x = np.ascontiguousarray(cells[:, 0])
        self.node_y = np.ascontiguousarray(cells[:, 1])
        n = len(cells)
        index = {(int(x), int(y)): i for i, (x, y) in enumerate(cells)}
        ia = np.array([index[(int(x), int(y))] for x, y in a], dtype=np.int64)
        ib = np.array([index[(int(x), int(y))] for x, y in b], dtype=np.int64)
        c = grid.cost
        step = 0.5 * (c[a[:, 1], a[:, 0]].astype(np.float64) + c[b[:, 1], b[:, 0]]) if len(a) else np.zeros(0)
        # an inter edge belongs to every level whose clusters it crosses
        edge_level = np.zeros(len(a), dtype=np.int64)
        for lv in range(1, self.levels + 1):
            crosses = self._cluster_of(a[:, 0], a[:, 1], lv) != self._cluster_of(b[:, 0], b[:, 1], lv)
            edge_level[crosses] = lv
        node_level = np.zeros(n, dtype=np.int64)
        np.maximum.at(node_level, ia, edge_level)
        np.maximum.at(node_level, ib, edge_level)
        self.node_level = node_level
        self.inter = (ia, ib, step, edge_level)
        self._node_cluster = [self._cluster_of(self.node_x, self.node_y, lv) for lv in range(1, self.levels + 1)]
        self._at_level = [node_level >= lv for lv in range(1, self.levels + 1)]
        # which clusters need their intra edges recomputed
        changed_below: set[int] = set()
        self.rebuilt = [0] * self.levels
        self._csr = []
        for lv in range(1, self.levels + 1):
            members = np.flatnonzero(node_level >= lv)
            cl = self._cluster_of(self.node_x[members], self.node_y[members], lv)
            node_sets: dict[int, frozenset] = {}
            order = np.argsort(cl, kind="stable")
            for k, grp in _groups(cl[order]):
                node_sets[int(k)] = frozenset((int(self.node_x[m]), int(self.node_y[m])) for m in members[order][grp])
            old_sets = self._node_sets[lv - 1]
            if trust_cache:
                redo = {k for k in node_sets if k not in self._intra[lv - 1]}
            elif touched_cells is None:
                redo = set(node_sets)
            else:
                redo = {k for k in node_sets if node_sets[k] != old_sets.get(k)}
                redo |= {k for k in old_sets if k not in node_sets}
                if lv == 1:
                    redo |= set(self._cluster_of(touched_cells[:, 0], touched_cells[:, 1], 1).tolist())
                else:
                    # clusters containing a recomputed cluster of the level below
                    redo |= {self._parent_cluster(k, lv - 1) for k in changed_below}
            for k in redo:
                self._intra[lv - 1].pop(k, None)
            todo = sorted(k for k in redo if k in node_sets)
            for i, k in enumerate(todo):
                if progress is not None and i % 64 == 0:
                    progress(f"level {lv}", i, len(todo))
                members_k = np.array(sorted(index[c_] for c_ in node_sets[k]), dtype=np.int64)
                self._intra[lv - 1][k] = (self._intra_level1(k, members_k) if lv == 1
                                          else self._intra_upper(lv, k, members_k))
            if progress is not None:
                progress(f"level {lv}", len(todo), len(todo))
            self.rebuilt[lv - 1] = len(todo)
            self._node_sets[lv - 1] = node_sets
            changed_below = set(todo)
            self._csr.append(self._make_csr(lv, index))
        self._labels = [_components(*csr, n) for csr in self._csr]
        self.version = grid.version

    def _parent_cluster(self, k: int, level: int) -> int:
        """Id at ``level + 1`` of the cluster containing cluster ``k`` of ``level``."""
        s = self.sizes[level - 1]
        cols = -(-self.grid.width // s)
        x, y = (k % cols) * s, (k // cols) * s
        return int(self._cluster_of(x, y, level + 1))

    def _intra_level1(self, k: int, members: np.ndarray):
        """In-cluster grid distances between the waypoints of level-1 cluster ``k``."""
        s = self.sizes[0]
        cols = -(-self.grid.width // s)
        x0, y0 = (k % cols) * s, (k // cols) * s
        sub = _SubGrid(self.grid, x0, y0, s)
        pa, pb, pc = [], [], []
        xs, ys = self.node_x[members], self.node_y[members]
        for i in range(len(members)):
            dist = sub.distances([(xs[i], ys[i])], [0.0])
            for j in range(i + 1, len(members)):
                d = dist[ys[j] - y0, xs[j] - x0]
                if np.isfinite(d):
                    pa.append((xs[i], ys[i]))
                    pb.append((xs[j], ys[j]))
                    pc.append(d)
        return _edge_arrays(pa, pb, pc)

    def _intra_upper(self, lv: int, k: int, members: np.ndarray):
        """In-cluster distances between level-``lv`` waypoints, searched on level ``lv-1``."""
        adj = self._csr[lv - 2]
        inside = (self._node_cluster[lv - 1] == k) & (self.node_level >= lv - 1)
        allowed = inside.astype(np.uint8)
        pa, pb, pc = [], [], []
        none = np.zeros(0, dtype=np.int64)
        for i in range(len(members)):
            _, _, dist = self._search(adj, allowed, members[i:i + 1], np.zeros(1), none, np.zeros(0),
                                      (0, 0), False, members)
            for j in range(i + 1, len(members)):
                d = dist[j]
                if np.isfinite(d):
                    pa.append((self.node_x[members[i]], self.node_y[members[i]]))
                    pb.append((self.node_x[members[j]], self.node_y[members[j]]))
                    pc.append(d)
        return _edge_arrays(pa, pb, pc)

    def _search(self, csr, allowed, src, src_cost, dst, dst_cost, goal, heuristic, report):
        """``graph_search`` on one level's CSR with this hierarchy's scratch arrays."""
        scratch = self._scratch
        if scratch is None or len(scratch.stamp) != len(self.node_x) + 1:
            scratch = self._scratch = GraphScratch(len(self.node_x))
        ends = GraphEnds(src, src_cost, dst, dst_cost, float(goal[0]), float(goal[1]),
                         OCTILE_ESTIMATE if heuristic else NO_ESTIMATE)
        return graph_search(GraphArrays(*csr, self.node_x, self.node_y), allowed, ends, scratch.arrays(),
                            scratch.next(), np.asarray(report, dtype=np.int64), NO_GRAPH_BOUNDS, False)

    def _make_csr(self, lv: int, index: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        ia, ib, step, edge_level = self.inter
        keep = edge_level >= lv
        src = [ia[keep], ib[keep]]
        dst = [ib[keep], ia[keep]]
        cost = [step[keep], step[keep]]
        for ca, cb, cc in self._intra[lv - 1].values():
            if len(cc) == 0:
                continue
            u = np.array([index[(int(x), int(y))] for x, y in ca], dtype=np.int64)
            v = np.array([index[(int(x), int(y))] for x, y in cb], dtype=np.int64)
            src += [u, v]
            dst += [v, u]
            cost += [cc, cc]
        s = np.concatenate(src) if src else np.zeros(0, np.int64)
        d = np.concatenate(dst) if dst else np.zeros(0, np.int64)
        c = np.concatenate(cost) if cost else np.zeros(0)
        order = np.argsort(s, kind="stable")
        n = len(self.node_x)
        start = np.searchsorted(s[order], np.arange(n + 1)).astype(np.int64)
        return start, d[order].astype(np.int64), c[order].astype(np.float64)

    # =================================================================== queries
    def find_path(self, start: Sequence[int], goal: Sequence[int], *, smooth: bool = True) -> PathResult:
        """A path from ``start`` to ``goal`` cells, in the same ``PathResult`` shape as
        ``find_path``. With ``smooth`` (default) ``cells`` are the smoothed waypoints and ``cost``
        their polyline cost (each segment's terrain cost integrated along it); without, the
        refined grid path and its exact cost."""
        smooth = checks.flag(smooth, "smooth", error=NavError)
        route = self._route(start, goal, keep_waypoints=True)
        if isinstance(route, PathResult):
            return finished_result(self.grid, route, smooth)
        s, g, corridor, way = route
        cells, expanded = self._legs(way)
        way_idx = self._last_way_idx
        if cells is None:                          # defensive: the abstract graph disagreed
            return finished_result(self.grid, find_path(self.grid, s, g), smooth)
        result = PathResult(PathStatus.FOUND, path_cost(self.grid, cells), cells, expanded)
        return finished_result(self.grid, result, smooth, way_idx)

    def _legs(self, way: np.ndarray):
        """Grid cells through the level-1 waypoints ``way`` (one small search per leg)."""
        grid = self.grid
        (_, cost), wp = grid.padded()
        cells, expanded, ok, way_idx = refine_legs(grid.move_masks(), cost, wp, grid.is_uniform,
                                                   np.ascontiguousarray(way[:, 0]), np.ascontiguousarray(way[:, 1]),
                                                   self.sizes[0], grid.width, grid.height)
        self._last_way_idx = way_idx
        return (cells if ok else None), int(expanded)

    def plan(self, start: Sequence[int], goal: Sequence[int]) -> "CoarseRoute | PathResult":
        """Refinement on demand: the coarse route (level-1 waypoints) now, each grid leg when
        asked (``CoarseRoute.next_leg``), so a long order costs little per frame. Returns a
        ``PathResult`` instead when the answer needs no hierarchy (unreachable, short)."""
        route = self._route(start, goal, keep_waypoints=True)
        if isinstance(route, PathResult):
            return route
        return CoarseRoute(self._legs, self.grid, route)

    def _route(self, start, goal, keep_waypoints: bool = False):
        grid = self.grid
        if self.version != grid.version:
            raise NavError("the grid changed since this Hierarchy was built; call update(cells)")
        s = grid.check_cell(start, "start")
        g = grid.check_cell(goal, "goal")
        if not grid.passable[s[1], s[0]]:
            return PathResult.unreachable(f"start {s} is a blocked cell")
        if not grid.passable[g[1], g[0]]:
            return PathResult.unreachable(f"goal {g} is a blocked cell")
        if not grid.connected(s, g):
            return PathResult.unreachable(f"goal {g} is not reachable from start {s} (different connected regions)")
        top = 0
        for lv in range(self.levels, 0, -1):
            if int(self._cluster_of(*s, lv)) != int(self._cluster_of(*g, lv)):
                top = lv
                break
        if top == 0:                                   # same level-1 cluster: a short flat search
            return find_path(grid, s, g)
        s_edges = self._insert(s, top)
        g_edges = self._insert(g, top)
        # search the top level, then each level below inside the corridor chosen above
        path = None
        for lv in range(top, 0, -1):
            allowed = self._at_level[lv - 1]
            if path is not None:
                corridor = np.zeros(self.cluster_count(lv + 1), dtype=bool)
                corridor[self._node_cluster[lv][path]] = True
                corridor[[int(self._cluster_of(*s, lv + 1)), int(self._cluster_of(*g, lv + 1))]] = True
                allowed = allowed & corridor[self._node_cluster[lv]]   # a new array: the level mask is shared
            se, sc = s_edges[lv - 1]
            ge, gc = g_edges[lv - 1]
            cost, path, _ = self._search(self._csr[lv - 1], allowed.astype(np.uint8), se, sc, ge, gc,
                                         g, True, _NONE)
            if len(path) == 0:
                return find_path(grid, s, g)           # defensive: abstract graph disagrees
        corridor = np.zeros(self.cluster_count(1), dtype=np.uint8)
        corridor[self._cluster_of(self.node_x[path], self.node_y[path], 1)] = 1
        corridor[[int(self._cluster_of(*s, 1)), int(self._cluster_of(*g, 1))]] = 1
        if keep_waypoints:
            way = np.concatenate([[s], np.stack([self.node_x[path], self.node_y[path]], axis=1), [g]]).astype(np.int64)
            if are_near(s, g, self.sizes[0]):          # the cheaper of the route and a window search
                return self._nearer(s, g, way)
            return s, g, corridor, way
        return s, g, corridor

    def _nearer(self, s, g, way: np.ndarray) -> PathResult:
        """A near pair's answer (``near_pairs.py``): the route through ``way`` refined, or the
        window search's path when that costs less."""
        cells, expanded = self._legs(way)
        routed = None if cells is None else PathResult(PathStatus.FOUND, path_cost(self.grid, cells), cells, expanded)
        direct = window_search(self.grid, s, g, self.sizes[0])
        if routed is None or (direct.found and direct.cost < routed.cost):
            return direct if direct.found else find_path(self.grid, s, g)
        return routed

    def _insert(self, cell, top: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Edges from ``cell`` to the waypoints of its cluster, at levels 1..top."""
        x, y = cell
        s = self.sizes[0]
        k = int(self._cluster_of(x, y, 1))
        cols = -(-self.grid.width // s)
        x0, y0 = (k % cols) * s, (k // cols) * s
        dist = _SubGrid(self.grid, x0, y0, s).distances([(x, y)], [0.0])
        in1 = np.flatnonzero(self._node_cluster[0] == k)
        d1 = dist[self.node_y[in1] - y0, self.node_x[in1] - x0]
        ok = np.isfinite(d1)
        edges = [(in1[ok].astype(np.int64), d1[ok].astype(np.float64))]
        none = np.zeros(0, dtype=np.int64)
        for lv in range(2, top + 1):
            kk = int(self._cluster_of(x, y, lv))
            inside = self._node_cluster[lv - 1] == kk
            allowed = (inside & self._at_level[lv - 2]).astype(np.uint8)
            se, sc = edges[-1]
            candidates = np.flatnonzero(inside & self._at_level[lv - 1])
            _, _, dist_l = self._search(self._csr[lv - 2], allowed, se, sc, none, np.zeros(0),
                                        (0, 0), False, candidates)
            ok = np.isfinite(dist_l)
            edges.append((candidates[ok].astype(np.int64), dist_l[ok]))
        return edges

    # =================================================================== updates
    def update(self, changed_cells: np.ndarray) -> list[int]:
        """Bring the hierarchy up to date after ``changed_cells`` (``(N, 2)``) were opened,
        blocked or re-costed; only clusters the change touches are recomputed, at every level.
        Returns the number of clusters recomputed per level (also in ``rebuilt``)."""
        cells = checks.cells(changed_cells, "changed_cells", self.grid.width, self.grid.height, error=NavError)
        self._refresh(None if self._compact else cells)     # compact: no per-cluster tables to reuse
        self._compact = False
        return list(self.rebuilt)

    def compact(self) -> "Hierarchy":
        """Drop the per-cluster tables only ``update`` reuses (thousands of small arrays and
        sets), keeping everything queries need; a later ``update`` rebuilds in full. What the
        rebuild worker sends: the hierarchy of a 1024² map then unpickles in a few milliseconds."""
        self._intra = [{} for _ in range(self.levels)]
        self._node_sets = [{} for _ in range(self.levels)]
        self._compact = True
        return self

    # ============================================================== persistence
    def grid_checksum(self) -> str:
        """Identity of the grid and build parameters this hierarchy belongs to."""
        return grid_digest(self.grid, (self.levels, self.sizes, self.ratio, self.grid.shape), heights=False)

    def save(self, path: str | Path) -> None:
        """Write to ``path`` (checksummed npz, see ``bake_cache``)."""
        arrays: dict[str, np.ndarray] = {}
        for lv, table in enumerate(self._intra):
            for name, idx in (("a", 0), ("b", 1), ("c", 2)):
                parts = [v[idx] for v in table.values()]
                arrays[f"intra{lv}_{name}"] = np.concatenate(parts) if parts else np.zeros((0, 2) if idx < 2 else 0)
            arrays[f"intra{lv}_cluster"] = np.concatenate(
                [np.full(len(v[2]), k, dtype=np.int64) for k, v in table.items()]) if table else np.zeros(0, np.int64)
            arrays[f"intra{lv}_keys"] = np.array(sorted(table), dtype=np.int64)
        meta = np.array([self.levels, self.sizes[0], self.ratio], dtype=np.int64)
        write_baked(path, FORMAT_VERSION, meta, arrays, grid=self.grid_checksum(), compress=True)

    @classmethod
    def load(cls, path: str | Path, grid: Grid) -> "Hierarchy":
        """Read a hierarchy saved for ``grid``; raises ``NavError`` if the file is corrupt, of
        another format version, or for another grid."""
        meta, f, digest = read_baked(path, FORMAT_VERSION, "hierarchy")
        if len(meta) < 3:
            raise NavError(f"{path}: hierarchy cache has {len(meta)} parameters, expected 3")
        h = cls(grid, int(meta[0]), int(meta[1]), int(meta[2]))
        if h.grid_checksum() != digest:
            raise NavError(f"{path}: built for another grid or other parameters")
        require(f, [f"intra{lv}_{part}" for lv in range(h.levels) for part in ("a", "b", "c", "cluster", "keys")],
                path, "hierarchy")
        for lv in range(h.levels):
            a, b, c = f[f"intra{lv}_a"], f[f"intra{lv}_b"], f[f"intra{lv}_c"]
            cl = f[f"intra{lv}_cluster"]
            if len(c) and not (np.isfinite(c).all() and c.min() >= 0):
                raise NavError(f"{path}: hierarchy cache holds edge costs that are negative or not finite")
            # the ends are cells looked up among the level's waypoints (an unknown one is a
            # KeyError there: the file is rebaked)
            for k in f[f"intra{lv}_keys"]:
                m = cl == k
                h._intra[lv][int(k)] = (a[m].astype(np.int64), b[m].astype(np.int64), c[m])
        h._refresh_from_cache()
        return h

    def _refresh_from_cache(self) -> None:
        """Derive nodes and graphs from loaded intra edges (no searches)."""
        self._refresh(None, trust_cache=True)
        self.rebuilt = [0] * self.levels

    @classmethod
    def cached(cls, grid: Grid, cache_dir: str | Path, levels: int = 3, cluster_size: int = 32,
               ratio: int = 4, progress=None) -> "Hierarchy":
        """Load the hierarchy of ``grid`` from ``cache_dir`` or build and save it; a corrupt or
        stale cache file is rebuilt."""
        probe = cls(grid, levels, cluster_size, ratio)
        path = Path(cache_dir) / f"hierarchy-{probe.grid_checksum()[:24]}.npz"
        return load_or_bake(path, lambda p: cls.load(p, grid),
                            lambda: cls.build(grid, levels, cluster_size, ratio, progress))

    # ================================================================ statistics
    @property
    def node_count(self) -> int:
        """Waypoints (level-1 transition cells)."""
        return len(self.node_x)

    def edge_counts(self) -> list[int]:
        """Directed edges per level."""
        return [len(csr[1]) for csr in self._csr]

    def memory_bytes(self) -> int:
        """Bytes held by the node and edge arrays."""
        total = self.node_x.nbytes + self.node_y.nbytes + self.node_level.nbytes
        total += sum(a.nbytes for csr in self._csr for a in csr)
        total += sum(a.nbytes for a in self.inter)
        return int(total)

    def component_labels(self, level: int) -> np.ndarray:
        """Connected-component label of every waypoint in the level's graph (-1 = not in it)."""
        return self._labels[self._level(level) - 1]

    def _level(self, level: int) -> int:
        """``level`` when it is one of 1 .. ``levels``, else ``NavError`` (0 or -1 would count
        from the end)."""
        return checks.whole_number(level, "level", low=1, high=self.levels, error=NavError)


class _SubGrid:
    """One cluster as a padded sub-grid, for in-cluster Dijkstra."""

    def __init__(self, grid: Grid, x0: int, y0: int, size: int) -> None:
        w = min(size, grid.width - x0)
        h = min(size, grid.height - y0)
        self.x0, self.y0, self.w, self.h = x0, y0, w, h
        pad = np.zeros((h + 2, w + 2), dtype=np.uint8)
        pad[1:-1, 1:-1] = grid.passable[y0:y0 + h, x0:x0 + w]
        cost = np.ones((h + 2, w + 2))
        cost[1:-1, 1:-1] = grid.cost[y0:y0 + h, x0:x0 + w]
        self.wp = w + 2
        self.moves = legal_moves(pad.ravel(), self.wp)
        self.cost = cost.ravel()
        self.uniform = bool(np.all(self.cost == 1.0))

    def distances(self, seeds, values) -> np.ndarray:
        s = np.array([(y - self.y0 + 1) * self.wp + (x - self.x0 + 1) for x, y in seeds], dtype=np.int64)
        dist = np.full(self.moves.size, np.inf)
        integrate(self.moves, self.cost, self.wp, self.uniform, s, np.asarray(values, dtype=np.float64),
                  _ALL, dist, np.inf)
        return dist.reshape(self.h + 2, self.w + 2)[1:-1, 1:-1]


def _edge_arrays(pa, pb, pc):
    return (np.array(pa, dtype=np.int64).reshape(-1, 2), np.array(pb, dtype=np.int64).reshape(-1, 2),
            np.array(pc, dtype=np.float64))


def _groups(sorted_keys: np.ndarray):
    """``(key, slice)`` for each run of equal values in a sorted array."""
    if len(sorted_keys) == 0:
        return
    cuts = np.flatnonzero(np.diff(sorted_keys)) + 1
    bounds = np.concatenate([[0], cuts, [len(sorted_keys)]])
    for i in range(len(bounds) - 1):
        yield sorted_keys[bounds[i]], slice(bounds[i], bounds[i + 1])


def _components(start: np.ndarray, target: np.ndarray, cost: np.ndarray, n: int) -> np.ndarray:
    """Connected components of a CSR graph (labels, -1 for nodes without edges)."""
    labels = np.full(n, -1, dtype=np.int64)
    current = 0
    for seed in range(n):
        if labels[seed] >= 0 or start[seed] == start[seed + 1]:
            continue
        stack = [seed]
        labels[seed] = current
        while stack:
            u = stack.pop()
            for v in target[start[u]:start[u + 1]]:
                if labels[v] < 0:
                    labels[v] = current
                    stack.append(int(v))
        current += 1
    return labels
