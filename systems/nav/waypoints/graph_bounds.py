"""Goal Bounding on waypoint graphs (Rabin & Sturtevant, "Faster A* with Goal Bounding", Game AI
Pro 3, 2017): for every edge ``u → v`` of the graph's CSR, the box of the waypoints whose shortest
path from ``u`` starts with that edge. A search standing on ``u`` skips an edge whose box holds
none of the waypoints the goal can reach (the box of those), so it never leaves ``u`` the wrong
way; ties count in every first edge among them, so costs never change (tested).

This is how large maps get goal bounds: the grid version needs one Dijkstra per cell
(``search/goal_bounds.py``, refused above 65,536 open cells), a waypoint graph one per waypoint
— a 1024² map floodfilled every 4 cells has ~40,000. The build refuses graphs over
``MAX_NODES`` with an estimate of its time; it is cached (format version, checksum) and belongs
to one graph: a rebuilt graph (after a map edit) has none until built again.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from numba import njit, prange

from ..bake_cache import grid_digest, load_or_bake, read_baked, require, write_baked
from ..errors import NavError
from ..kernels.first_moves import first_moves_begin, relax_first_moves, widen_boxes
from ..kernels.heap import CLOSED, heap_pop

__all__ = ["GraphGoalBounds", "MAX_NODES", "NO_GRAPH_BOUNDS"]

#: Largest graph ``GraphGoalBounds.build`` accepts (about a minute on two cores).
MAX_NODES = 40_000
#: Most edges one waypoint may have (first edges are kept as bits of one 64-bit word).
MAX_DEGREE = 64
#: Boxes passed to the graph search when no bounds are used.
NO_GRAPH_BOUNDS = np.zeros((1, 4), dtype=np.float32)


class GraphGoalBounds:
    """Per CSR edge of a ``WaypointGraph``, ``(min x, min y, max x, max y)`` (world) of the
    waypoints whose shortest path from the edge's source starts with it (``boxes``, float32;
    empty boxes have min > max). Build with ``build`` or ``cached``; ``graph.goal_bounds = b``
    makes ``graph.find_path`` use them."""

    FORMAT_VERSION = 1
    #: Measured build cost per (source, waypoint) pair on this machine's two cores, for estimates.
    NS_PER_PAIR = 60.0

    def __init__(self, graph, boxes: np.ndarray) -> None:
        if boxes.shape != (len(graph.adj_target), 4):
            raise NavError(f"goal bounds of shape {boxes.shape} do not fit a graph of {len(graph.adj_target)} edges")
        self.graph = graph
        self.boxes = boxes

    @property
    def memory_bytes(self) -> int:
        """Bytes of the boxes (16 per directed edge)."""
        return int(self.boxes.nbytes)

    @classmethod
    def check_size(cls, graph) -> None:
        """``NavError`` when ``graph`` is too large (or too dense) to build in reasonable time."""
        nodes = len(graph.cells)
        if nodes > MAX_NODES:
            seconds = nodes * nodes * cls.NS_PER_PAIR * 1e-9
            raise NavError(f"goal bounding a waypoint graph needs one Dijkstra search per waypoint: {nodes:,} "
                           f"waypoints is over the limit of {MAX_NODES:,} (it would take about "
                           f"{seconds / 60:.0f} min); floodfill with a larger spacing or use the hierarchy")
        degree = int(np.diff(graph.adj_start).max()) if nodes else 0
        if degree > MAX_DEGREE:
            raise NavError(f"goal bounding supports waypoints of at most {MAX_DEGREE} edges; one has {degree}")

    @classmethod
    def build(cls, graph, progress=None, chunk: int = 512) -> "GraphGoalBounds":
        """One Dijkstra per waypoint (both cores); ``progress(stage, done, total)`` per chunk."""
        cls.check_size(graph)
        boxes = np.empty((len(graph.adj_target), 4), dtype=np.float32)
        n = len(graph.cells)
        arrays = graph._graph_arrays()                  # positions as the search reads them
        node_x, node_y = arrays.node_x, arrays.node_y
        t = time.perf_counter()
        for lo in range(0, n, chunk):
            _build(graph.adj_start, graph.adj_target, graph.adj_cost, node_x, node_y,
                   np.arange(lo, min(lo + chunk, n), dtype=np.int64), boxes)
            if progress is not None:
                progress("Dijkstra per waypoint", min(lo + chunk, n), n)
        cls.last_build_s = time.perf_counter() - t
        return cls(graph, boxes)

    #: Seconds the last ``build`` took.
    last_build_s = 0.0

    @classmethod
    def cached(cls, graph, cache_dir, progress=None) -> "GraphGoalBounds":
        """Load from ``cache_dir`` when a valid file was baked for this graph, else build and save."""
        if cache_dir is None:
            return cls.build(graph, progress)
        return load_or_bake(cls._path(graph, cache_dir), lambda p: cls.load(p, graph),
                            lambda: cls.build(graph, progress))

    @classmethod
    def _path(cls, graph, cache_dir) -> Path:
        """Where the bounds of ``graph`` are cached in ``cache_dir``."""
        return Path(cache_dir) / f"graph_goal_bounds_{cls._digest(graph)[:16]}.npz"

    @classmethod
    def _digest(cls, graph) -> str:
        """The grid's digest with the graph's own arrays: bounds fit one graph only."""
        import hashlib

        h = hashlib.sha256()
        for a in (graph.cells, graph.adj_start, graph.adj_target, graph.adj_cost):
            h.update(np.ascontiguousarray(a).tobytes())
        return grid_digest(graph.grid, ("graph goal bounds", cls.FORMAT_VERSION, h.hexdigest()), heights=False)

    @classmethod
    def baked(cls, graph, cache_dir) -> "GraphGoalBounds | None":
        """The bounds baked for ``graph`` in ``cache_dir`` (``levels bake --goal-bounds``), or None —
        never a build (the crowd calls this when it makes its graph)."""
        if cache_dir is None:
            return None
        path = cls._path(graph, cache_dir)
        try:
            return cls.load(path, graph) if path.exists() else None
        except NavError:
            return None

    def save(self, path) -> None:
        """Write the boxes in the checksummed bake format."""
        write_baked(path, self.FORMAT_VERSION, np.zeros(0), {"boxes": self.boxes}, self._digest(self.graph),
                    compress=True)

    @classmethod
    def load(cls, path, graph) -> "GraphGoalBounds":
        """Read boxes saved by ``save``; ``NavError`` when damaged or baked for another graph."""
        _, arrays, digest = read_baked(path, cls.FORMAT_VERSION, "graph goal bounds")
        require(arrays, ("boxes",), path, "graph goal bounds")
        if digest != cls._digest(graph):
            raise NavError(f"{path}: goal bounds baked for another waypoint graph")
        return cls(graph, np.ascontiguousarray(arrays["boxes"], dtype=np.float32))


@njit(cache=True, parallel=True)
def _build(adj_start, adj_target, adj_cost, node_x, node_y, sources, boxes):
    """Fill the boxes of every edge leaving the ``sources`` waypoints (see the module docs)."""
    n = node_x.size
    for k in prange(sources.shape[0]):
        src = sources[k]
        g, first, stamp, pos, keys, nodes, size = first_moves_begin(n, src)
        e0 = adj_start[src]
        degree = adj_start[src + 1] - e0               # bit j of ``first``: src's j-th edge
        lo_x = np.full(degree, np.inf)
        lo_y = np.full(degree, np.inf)
        hi_x = np.full(degree, -np.inf)
        hi_y = np.full(degree, -np.inf)
        while size > 0:
            u, size = heap_pop(keys, nodes, pos, size)
            pos[u] = CLOSED
            fu = first[u]
            if u != src:
                widen_boxes(fu, degree, node_x[u], node_y[u], lo_x, lo_y, hi_x, hi_y)
            gu = g[u]
            for e in range(adj_start[u], adj_start[u + 1]):
                ng = gu + adj_cost[e]
                label = np.uint64(1) << np.uint64(e - e0) if u == src else fu
                size = relax_first_moves(adj_target[e], ng, label, 1e-9 * max(1.0, ng), g, first, stamp, pos,
                                         keys, nodes, size)
        for j in range(degree):
            boxes[e0 + j, 0] = lo_x[j]
            boxes[e0 + j, 1] = lo_y[j]
            boxes[e0 + j, 2] = hi_x[j]
            boxes[e0 + j, 3] = hi_y[j]
