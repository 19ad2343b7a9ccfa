"""Goal Bounding on graphs stored as CSR (Rabin & Sturtevant, "Faster A* with Goal Bounding",
Game AI Pro 3, 2017), written once for the waypoint graph and the navmesh's visibility graph:
for every edge ``u → v``, the box of the nodes whose shortest path from ``u`` starts with that
edge. A search standing on ``u`` skips an edge whose box holds none of the nodes the goal can be
reached from (the box of those), so it never leaves ``u`` the wrong way; ties count in every
first edge among them, so costs never change (tested for both graphs).

The build is one Dijkstra per node (both cores), so it refuses graphs over ``MAX_NODES`` with an
estimate of its time; it is cached (format version, checksum) and belongs to one graph: a rebuilt
graph (after a map edit) has none until built again. Subclasses say which arrays make the graph
(``_csr``) and what identifies it (``_identity``).
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .bake_cache import grid_digest, load_or_bake, read_baked, require, write_baked
from .errors import NavError
from .kernels.first_moves import csr_goal_boxes
from .kernels.threads import threads_for

__all__ = ["CsrGraph", "CsrGoalBounds"]


class CsrGraph(NamedTuple):
    """A graph as the build reads it: CSR edges with costs, node positions, the sources to build
    from (nodes without edges need none)."""

    start: np.ndarray
    target: np.ndarray
    cost: np.ndarray
    x: np.ndarray
    y: np.ndarray
    sources: np.ndarray


class CsrGoalBounds:
    """Per CSR edge, ``(min x, min y, max x, max y)`` of the nodes whose shortest path from the
    edge's source starts with it (``boxes``, float32; empty boxes have min > max)."""

    FORMAT_VERSION = 1
    #: Measured build cost per (source, node) pair on this machine's two cores, for estimates.
    NS_PER_PAIR = 60.0
    #: Largest graph ``build`` accepts (about a minute on two cores).
    MAX_NODES = 40_000
    #: What the graph and its nodes are called in messages and file names.
    KIND = "graph"
    NODE = "node"
    #: What to do instead, said when a graph is refused.
    INSTEAD = ""

    def __init__(self, graph, boxes: np.ndarray) -> None:
        edges = len(self._csr(graph).target)
        if boxes.shape != (edges, 4):
            raise NavError(f"goal bounds of shape {boxes.shape} do not fit a {self.KIND} of {edges} edges")
        self.graph = graph
        self.boxes = boxes
        #: the graph's edge set these bounds describe (a waypoint graph drops edges a map edit blocks)
        self.edges_epoch = getattr(graph, "edges_epoch", 0)

    # ------------------------------------------------------------------ the graph (subclasses)
    @classmethod
    def _csr(cls, graph) -> CsrGraph:
        raise NotImplementedError

    @classmethod
    def _identity(cls, graph):
        """``(grid or None, arrays)``: the map and the arrays that make ``graph`` this graph."""
        raise NotImplementedError

    # ------------------------------------------------------------------ build and cache
    @property
    def memory_bytes(self) -> int:
        """Bytes of the boxes (16 per directed edge)."""
        return int(self.boxes.nbytes)

    @classmethod
    def check_size(cls, graph) -> None:
        """``NavError`` when ``graph`` is too large to build in reasonable time."""
        nodes = len(cls._csr(graph).sources)
        if nodes > cls.MAX_NODES:
            seconds = nodes * nodes * cls.NS_PER_PAIR * 1e-9
            raise NavError(f"goal bounding a {cls.KIND} needs one Dijkstra search per {cls.NODE}: {nodes:,} "
                           f"{cls.NODE}s is "
                           f"over the limit of {cls.MAX_NODES:,} (it would take about {seconds / 60:.0f} min); "
                           f"{cls.INSTEAD}")

    #: Seconds the last ``build`` took.
    last_build_s = 0.0

    @classmethod
    def build(cls, graph, progress=None, chunk: int = 512):
        """One Dijkstra per node (both cores); ``progress(stage, done, total)`` per chunk."""
        cls.check_size(graph)
        csr = cls._csr(graph)
        boxes = np.empty((len(csr.target), 4), dtype=np.float32)
        n = len(csr.sources)
        t = time.perf_counter()
        for lo in range(0, n, chunk):
            with threads_for(n, "graph_bounds"):
                csr_goal_boxes(csr.start, csr.target, csr.cost, csr.x, csr.y, csr.sources[lo:lo + chunk], boxes)
            if progress is not None:
                progress(f"Dijkstra per {cls.NODE}", min(lo + chunk, n), n)
        cls.last_build_s = time.perf_counter() - t
        return cls(graph, boxes)

    @classmethod
    def cached(cls, graph, cache_dir, progress=None):
        """Load from ``cache_dir`` when a valid file was baked for this graph, else build and save."""
        if cache_dir is None:
            return cls.build(graph, progress)
        return load_or_bake(cls.file_path(graph, cache_dir), lambda p: cls.load(p, graph),
                            lambda: cls.build(graph, progress))

    @classmethod
    def baked(cls, graph, cache_dir):
        """The bounds baked for ``graph`` in ``cache_dir`` (``levels bake --goal-bounds``), or None —
        never a build (the crowd calls this when it makes its graph)."""
        if cache_dir is None:
            return None
        path = cls.file_path(graph, cache_dir)
        try:
            return cls.load(path, graph) if path.exists() else None
        except NavError:
            return None

    @classmethod
    def file_path(cls, graph, cache_dir) -> Path:
        """Where the bounds of ``graph`` are cached in ``cache_dir``."""
        return Path(cache_dir) / f"{cls.KIND.replace(' ', '_')}_goal_bounds_{cls._digest(graph)[:16]}.npz"

    @classmethod
    def _digest(cls, graph) -> str:
        """The grid's digest with the graph's own arrays: bounds fit one graph only."""
        grid, arrays = cls._identity(graph)
        h = hashlib.sha256()
        for a in arrays:
            h.update(np.ascontiguousarray(a).tobytes())
        label = (f"{cls.KIND} goal bounds", cls.FORMAT_VERSION, h.hexdigest())
        if grid is None:                     # a graph that is its own identity (a navmesh)
            return hashlib.sha256(repr(label).encode()).hexdigest()
        return grid_digest(grid, label, heights=False)

    def save(self, path) -> None:
        """Write the boxes in the checksummed bake format."""
        write_baked(path, self.FORMAT_VERSION, np.zeros(0), {"boxes": self.boxes}, self._digest(self.graph),
                    compress=True)

    @classmethod
    def load(cls, path, graph):
        """Read boxes saved by ``save``; ``NavError`` when damaged or baked for another graph."""
        _, arrays, digest = read_baked(path, cls.FORMAT_VERSION, f"{cls.KIND} goal bounds")
        require(arrays, ("boxes",), path, f"{cls.KIND} goal bounds")
        if digest != cls._digest(graph):
            raise NavError(f"{path}: goal bounds baked for another {cls.KIND}")
        return cls(graph, np.ascontiguousarray(arrays["boxes"], dtype=np.float32))
