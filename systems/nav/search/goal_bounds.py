"""Goal Bounding (Rabin & Sturtevant, "Faster A* with Goal Bounding", Game AI Pro 3, 2017; used
with JPS+ in Rabin's GDC 2015 talk).

For every cell and each of its 8 moves, the axis-aligned box of every cell whose shortest path
from it starts with that move. A search standing on a cell skips a move whose box does not hold
the goal: no shortest path to the goal starts with it. Ties are kept: a cell reached by several
shortest paths counts in the box of every first move among them, so pruning never removes all
of a goal's shortest paths and costs never change (tested against the search without it).

The build is one Dijkstra search per passable cell: quadratic in the map. Up to ``MAX_CELLS``
passable cells it runs in this process (both cores); larger maps are baked in chunks on a Dask
cluster (a ``LocalCluster`` of this machine by default, or a real one's scheduler) or in local
processes, resumably (``goal_bounds_bake``).
Memory: 64 bytes per padded cell (8 boxes of 4 ``int16``). A map edit invalidates the bounds:
``find_path`` then searches without them and says so in ``reason``.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from rtsnav import checks

from ..errors import NavError
from ..grid import require_grid
from ..kernels.threads import threads_for
from .goal_bounds_bake import bake_boxes, build_rows, empty_rows, row_blocks

__all__ = ["GoalBounds", "MAX_CELLS"]

#: Most passable cells ``GoalBounds.build`` bakes in this process (a 256×256 open map, ~3 min on
#: two cores); larger maps are baked in chunks on Dask or local processes, resumably.
MAX_CELLS = 65_536


class GoalBounds:
    """Per cell and move, the box of the cells whose shortest path starts with that move.

    Build with ``GoalBounds.build(grid)`` (or ``cached``); pass to ``find_path(...,
    goal_bounds=...)`` with ``"astar"``, ``"dijkstra"`` or ``"jps+"``.
    """

    FORMAT_VERSION = 1
    #: Measured build cost per (source, cell) pair on this machine's two cores, for estimates
    #: (41 ns on maze-128-128-10, 47 ns on random-64-64-20).
    NS_PER_PAIR = 45.0
    #: The same on large maps, whose search arrays outgrow the caches: 140 ns a pair on one core
    #: (brc202d ×2, 1024², 171,828 open cells: ``tests/benchmarks/goal_bounds_big.py``).
    NS_PER_PAIR_LARGE = 70.0

    def __init__(self, grid, boxes: np.ndarray) -> None:
        self.grid = require_grid(grid, "GoalBounds")
        shape = ((grid.width + 2) * (grid.height + 2), 8, 4)
        if not isinstance(boxes, np.ndarray) or boxes.shape != shape or boxes.dtype != np.int16:
            raise NavError(f"GoalBounds boxes must be an int16 array of shape {shape} for this grid (from "
                           f"GoalBounds.build), got {getattr(boxes, 'dtype', type(boxes).__name__)} "
                           f"{getattr(boxes, 'shape', '')}")
        self.boxes = np.ascontiguousarray(boxes)
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
    def estimate(cls, grid) -> str:
        """How long a build of ``grid`` takes on this project's two cores, and its memory."""
        grid = require_grid(grid, "GoalBounds.estimate")
        cells = int(grid.passable.sum())
        minutes = cells * cells * (cls.NS_PER_PAIR if cells <= MAX_CELLS else cls.NS_PER_PAIR_LARGE) * 1e-9 / 60
        return (f"{cells:,} passable cells: about {minutes:,.0f} min on two cores (less on more), "
                f"{64 * (grid.width + 2) * (grid.height + 2) / 1e6:,.0f} MB of boxes")

    #: Seconds the last ``build`` took.
    last_build_s = 0.0

    @classmethod
    def build(cls, grid, progress=None, chunk: int = 2048, *, client=None, processes: int | None = None,
              parts_dir=None) -> "GoalBounds":
        """One Dijkstra search per passable cell, on a map of any size; ``progress(stage, done,
        total)`` per chunk.

        Up to ``MAX_CELLS`` passable cells the searches run in this process. Larger maps — or any
        map given ``client``, ``processes`` or ``parts_dir`` — are baked in chunks of ``chunk``
        cells by ``goal_bounds_bake.bake_boxes``: on ``client`` (a ``dask.distributed.Client``,
        e.g. of a real cluster's scheduler), else on a Dask ``LocalCluster`` of this machine's
        cores when Dask is installed (``rtsnav[bake]``), else in ``processes`` local processes
        (default: one per core); chunks finished in ``parts_dir`` are kept, so a killed bake
        continues. The boxes are the same bit for bit whichever way they are baked."""
        if not require_grid(grid, "GoalBounds.build").is_uniform:
            raise NavError("goal bounding is built for uniform-cost grids (this one has terrain costs)")
        chunk = checks.whole_number(chunk, "chunk (cells a task)", low=1, high=1 << 24, error=NavError)
        checks.callback(progress, "progress", error=NavError)
        if processes is not None:
            processes = checks.whole_number(processes, "processes", low=1, high=4096, error=NavError)
        grid.padded()
        moves, wp = grid.move_masks(), grid.width + 2
        (free, _), _ = grid.padded()
        sources = np.flatnonzero(free).astype(np.int64)
        t = time.perf_counter()
        boxes = empty_rows(moves.shape[0])
        if len(sources) <= MAX_CELLS and client is None and processes is None and parts_dir is None:
            for lo in range(0, len(sources), chunk):
                part = sources[lo:lo + chunk]
                rows = empty_rows(len(part))
                with threads_for(len(sources), "goal_bounds"):
                    build_rows(moves, wp, part, rows, row_blocks(len(part)))
                boxes[part] = rows
                if progress is not None:
                    progress("Dijkstra per cell", min(lo + chunk, len(sources)), len(sources))
        else:
            boxes[sources] = bake_boxes(moves, wp, sources, chunk=chunk, client=client, processes=processes,
                                        parts_dir=parts_dir, progress=progress)
        cls.last_build_s = time.perf_counter() - t
        return cls(grid, boxes)

    @classmethod
    def cached(cls, grid, cache_dir, progress=None, *, client=None, processes: int | None = None) -> "GoalBounds":
        """Load from ``cache_dir`` when a valid file was baked for this grid, else build and save
        (a large map's finished chunks wait in ``goal_bounds_<digest>.parts/`` until the whole
        is saved: run it again after a kill and it continues)."""
        if cache_dir is None:
            return cls.build(grid, progress, client=client, processes=processes)
        from pathlib import Path

        from ..bake_cache import grid_digest, load_or_bake

        digest = grid_digest(grid, ("goal bounds", cls.FORMAT_VERSION), heights=False)
        path = Path(cache_dir) / f"goal_bounds_{digest[:16]}.npz"
        parts = Path(cache_dir) / f"goal_bounds_{digest[:16]}.parts"
        large = int(grid.passable.sum()) > MAX_CELLS or client is not None or processes is not None

        def bake() -> "GoalBounds":
            return cls.build(grid, progress, client=client, processes=processes, parts_dir=parts if large else None)

        bounds = load_or_bake(path, lambda p: cls.load(p, grid), bake)
        if path.exists() and parts.exists():
            import shutil

            shutil.rmtree(parts, ignore_errors=True)
        return bounds

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
        try:                                      # shape and dtype: the constructor's checks
            return cls(grid, arrays["boxes"])
        except NavError as e:
            raise NavError(f"{path}: {e}") from None


#: Boxes passed to the search kernels when no bounds are used.
NO_BOUNDS = np.zeros((1, 8, 4), dtype=np.int16)


@njit(cache=True, inline="always")
def inside(boxes, node, move, gx, gy):
    """True when padded cell ``(gx, gy)`` lies in the box of ``node``'s ``move``."""
    return boxes[node, move, 0] <= gx <= boxes[node, move, 2] and boxes[node, move, 1] <= gy <= boxes[node, move, 3]
