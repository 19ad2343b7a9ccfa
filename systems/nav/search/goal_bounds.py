"""Goal Bounding (Rabin & Sturtevant, "Faster A* with Goal Bounding", Game AI Pro 3, 2017; used
with JPS+ in Rabin's GDC 2015 talk).

For every cell and each of its 8 moves, the axis-aligned box of every cell whose shortest path
from it starts with that move. A search standing on a cell skips a move whose box does not hold
the goal: no shortest path to the goal starts with it. Ties are kept: a cell reached by several
shortest paths counts in the box of every first move among them, so pruning never removes all
of a goal's shortest paths and costs never change (tested against the search without it).

The build is one Dijkstra search per passable cell (both cores): quadratic in the map. It refuses
grids beyond ``MAX_CELLS`` passable cells with an estimate of the time it would take; on large
maps, bound the hierarchy, waypoint or navmesh graphs' searches instead (see `docs/planners.md`).
Memory: 64 bytes per padded cell (8 boxes of 4 ``int16``). A map edit invalidates the bounds:
``find_path`` then searches without them and says so in ``reason``.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit, prange

from ..errors import NavError
from ..kernels.first_moves import first_moves_begin, relax_first_moves, widen_boxes
from ..kernels.heap import CLOSED, heap_pop
from ..kernels.steps import SQRT2
from ..kernels.threads import threads_for

__all__ = ["GoalBounds", "MAX_CELLS"]

#: Largest number of passable cells ``GoalBounds.build`` accepts (a 256×256 open map).
MAX_CELLS = 65_536
_DX = np.array((1, -1, 0, 0, 1, -1, 1, -1), dtype=np.int64)
_DY = np.array((0, 0, 1, -1, 1, 1, -1, -1), dtype=np.int64)


@njit(cache=True, parallel=True)
def _build(moves, wp, sources, boxes):
    """Fill ``boxes[node, move] = (min x, min y, max x, max y)`` (padded coordinates; empty boxes
    have min > max) for every node of ``sources`` (padded flat ids)."""
    n = moves.shape[0]
    for k in prange(sources.shape[0]):
        src = sources[k]
        g, first, stamp, pos, keys, nodes, size = first_moves_begin(n, src)
        offs = np.array((1, -1, wp, -wp, wp + 1, wp - 1, -wp + 1, -wp - 1))
        lo_x = np.full(8, 1 << 14, dtype=np.int64)
        lo_y = np.full(8, 1 << 14, dtype=np.int64)
        hi_x = np.full(8, -1, dtype=np.int64)
        hi_y = np.full(8, -1, dtype=np.int64)
        while size > 0:
            u, size = heap_pop(keys, nodes, pos, size)
            pos[u] = CLOSED
            fu = first[u]
            if u != src:
                widen_boxes(fu, 8, u % wp, u // wp, lo_x, lo_y, hi_x, hi_y)
            mu = moves[u]
            gu = g[u]
            for m in range(8):
                if (mu >> m) & 1 == 0:
                    continue
                label = np.uint64(1) << np.uint64(m) if u == src else fu
                size = relax_first_moves(u + offs[m], gu + (SQRT2 if m >= 4 else 1.0),   # uniform grids only
                                         label, 1e-9, g, first, stamp, pos, keys, nodes, size)
        for m in range(8):
            boxes[src, m, 0] = lo_x[m]
            boxes[src, m, 1] = lo_y[m]
            boxes[src, m, 2] = hi_x[m]
            boxes[src, m, 3] = hi_y[m]


class GoalBounds:
    """Per cell and move, the box of the cells whose shortest path starts with that move.

    Build with ``GoalBounds.build(grid)`` (or ``cached``); pass to ``find_path(...,
    goal_bounds=...)`` with ``"astar"``, ``"dijkstra"`` or ``"jps+"``.
    """

    FORMAT_VERSION = 1
    #: Measured build cost per (source, cell) pair on this machine's two cores, for estimates
    #: (41 ns on maze-128-128-10, 47 ns on random-64-64-20).
    NS_PER_PAIR = 45.0

    def __init__(self, grid, boxes: np.ndarray) -> None:
        self.grid = grid
        self.boxes = boxes
        self.version = grid.version

    @property
    def valid(self) -> bool:
        """False once the grid was edited after the build."""
        return self.version == self.grid.version

    @property
    def memory_bytes(self) -> int:
        """Bytes of the boxes."""
        return int(self.boxes.nbytes)

    @classmethod
    def check_size(cls, grid) -> None:
        """``NavError`` when ``grid`` has too many passable cells to build in reasonable time."""
        cells = int(grid.passable.sum())
        if cells > MAX_CELLS:
            seconds = cells * cells * cls.NS_PER_PAIR * 1e-9
            raise NavError(f"goal bounding needs one Dijkstra search per cell: {cells:,} passable cells is "
                           f"over the limit of {MAX_CELLS:,} (it would take about {seconds / 60:.0f} min and "
                           f"{64 * (grid.width + 2) * (grid.height + 2) / 1e6:.0f} MB); on maps this large use JPS+, "
                           "the hierarchy, or goal bounds on the waypoint graph (GraphGoalBounds; "
                           "`levels bake --goal-bounds` bakes them)")

    #: Seconds the last ``build`` took.
    last_build_s = 0.0

    @classmethod
    def build(cls, grid, progress=None, chunk: int = 2048) -> "GoalBounds":
        """One Dijkstra search per passable cell; ``progress(stage, done, total)`` per chunk."""
        if not grid.is_uniform:
            raise NavError("goal bounding is built for uniform-cost grids (this one has terrain costs)")
        cls.check_size(grid)
        grid.padded()
        moves, wp = grid.move_masks(), grid.width + 2
        boxes = np.empty((moves.shape[0], 8, 4), dtype=np.int16)
        boxes[:, :, 0:2] = 1 << 14
        boxes[:, :, 2:4] = -1
        (free, _), _ = grid.padded()
        sources = np.flatnonzero(free).astype(np.int64)
        t = time.perf_counter()
        for lo in range(0, len(sources), chunk):
            with threads_for(len(sources), "goal_bounds"):
                _build(moves, wp, sources[lo:lo + chunk], boxes)
            if progress is not None:
                progress("Dijkstra per cell", min(lo + chunk, len(sources)), len(sources))
        cls.last_build_s = time.perf_counter() - t
        return cls(grid, boxes)

    @classmethod
    def cached(cls, grid, cache_dir, progress=None) -> "GoalBounds":
        """Load from ``cache_dir`` when a valid file was baked for this grid, else build and save."""
        if cache_dir is None:
            return cls.build(grid, progress)
        from pathlib import Path

        from ..bake_cache import grid_digest, load_or_bake

        digest = grid_digest(grid, ("goal bounds", cls.FORMAT_VERSION), heights=False)
        path = Path(cache_dir) / f"goal_bounds_{digest[:16]}.npz"
        return load_or_bake(path, lambda p: cls.load(p, grid), lambda: cls.build(grid, progress))

    def save(self, path) -> None:
        """Write the boxes in the checksummed bake format."""
        from ..bake_cache import grid_digest, write_baked

        write_baked(path, self.FORMAT_VERSION, np.zeros(0), {"boxes": self.boxes},
                    grid_digest(self.grid, ("goal bounds", self.FORMAT_VERSION), heights=False), compress=True)

    @classmethod
    def load(cls, path, grid) -> "GoalBounds":
        """Read boxes saved by ``save``; ``NavError`` when damaged or baked for another grid."""
        from ..bake_cache import grid_digest, read_baked, require

        _, arrays, digest = read_baked(path, cls.FORMAT_VERSION, "goal bounds")
        require(arrays, ("boxes",), path, "goal bounds")
        if digest != grid_digest(grid, ("goal bounds", cls.FORMAT_VERSION), heights=False):
            raise NavError(f"{path}: goal bounds baked for another grid")
        boxes = arrays["boxes"]
        if boxes.shape != ((grid.width + 2) * (grid.height + 2), 8, 4):
            raise NavError(f"{path}: goal bounds of shape {boxes.shape} do not fit this grid")
        return cls(grid, np.ascontiguousarray(boxes))


#: Boxes passed to the search kernels when no bounds are used.
NO_BOUNDS = np.zeros((1, 8, 4), dtype=np.int16)


@njit(cache=True, inline="always")
def inside(boxes, node, move, gx, gy):
    """True when padded cell ``(gx, gy)`` lies in the box of ``node``'s ``move``."""
    return boxes[node, move, 0] <= gx <= boxes[node, move, 2] and boxes[node, move, 1] <= gy <= boxes[node, move, 3]
