"""JPS+ (Rabin, "JPS+: Over 100x Faster than A*", GDC 2015) under the no-corner-cutting rule.

JPS scans the grid at query time; JPS+ precomputes, per cell and direction, how far the scan
goes: ``table[d, node] > 0`` is the distance to the next jump point along direction ``d``,
``<= 0`` minus the number of free steps before a wall. The jump points and pruning rules are
JPS's (see ``jps.py``); the goal, which a precomputed table cannot know, is found at query time:
along a straight direction when it lies on the ray within the free or jump distance, along a
diagonal by a "target" point where the goal's row or column is reached (from which a straight
move reaches it), as in Rabin's talk.

Directions are the move-mask order: E, W, S, N, SE, SW, NE, NW. The table is 8 ``int32``
layers over the padded grid (32 bytes per cell). ``_update_table`` redoes only what a change of
cells can affect: the straight distances of the rows and columns within one cell of a change,
then each diagonal chain backwards from every cell whose inputs changed until its values stop
changing (an area, not a few lines) — equal to a full rebuild (tested).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rtsnav import checks

from ..errors import NavError
from ..grid import require_grid
from ..heuristics import OCTILE
from ..kernels.steps import MOVE_DX as DX
from ..kernels.steps import MOVE_DY as DY
from .astar import astar_begin
from .jps import expand_jumps
from .jump_search import jps_plus_run
from .workspace import FOUND

__all__ = ["JumpTable", "jump_table", "jps_plus_query", "build_table", "DX", "DY"]

#: astar_begin's heuristic table, unused in octile mode.
_NO_TABLE = np.zeros(1)



@njit(cache=True, inline="always")
def _forced(free, wp, x, y, dx, dy):
    """A straight move along ``(dx, dy)`` arriving at ``(x, y)`` has a forced neighbour."""
    if dx != 0:
        return (free[(y + 1) * wp + x] and not free[(y + 1) * wp + x - dx]) or \
            (free[(y - 1) * wp + x] and not free[(y - 1) * wp + x - dx])
    return (free[y * wp + x + 1] and not free[(y - dy) * wp + x + 1]) or \
        (free[y * wp + x - 1] and not free[(y - dy) * wp + x - 1])


@njit(cache=True, inline="always")
def _straight_value(free, table, wp, d, x, y, dx, dy):
    nx = x + dx
    ny = y + dy
    m = ny * wp + nx
    if not free[m]:
        return 0
    if _forced(free, wp, nx, ny, dx, dy):
        return 1
    nxt = table[d, m]
    return nxt + 1 if nxt > 0 else nxt - 1


@njit(cache=True, inline="always")
def _diagonal_value(free, table, wp, d, x, y, dx, dy):
    if not (free[y * wp + x + dx] and free[(y + dy) * wp + x] and free[(y + dy) * wp + x + dx]):
        return 0
    m = (y + dy) * wp + x + dx
    hx = 0 if dx > 0 else 1                    # table layers of the straight components
    vy = 2 if dy > 0 else 3
    if table[hx, m] > 0 or table[vy, m] > 0:
        return 1
    nxt = table[d, m]
    return nxt + 1 if nxt > 0 else nxt - 1


@njit(cache=True)
def _straight_line(free, table, wp, hp, d, fixed):
    """Recompute layer ``d`` (straight) on one row (E/W: ``fixed`` = y) or column (S/N: x)."""
    dx = DX[d]
    dy = DY[d]
    if dy == 0:
        y = fixed
        x = wp - 2 if dx > 0 else 1
        while 1 <= x <= wp - 2:
            table[d, y * wp + x] = _straight_value(free, table, wp, d, x, y, dx, 0) if free[y * wp + x] else 0
            x -= dx
    else:
        x = fixed
        y = hp - 2 if dy > 0 else 1
        while 1 <= y <= hp - 2:
            table[d, y * wp + x] = _straight_value(free, table, wp, d, x, y, 0, dy) if free[y * wp + x] else 0
            y -= dy


@njit(cache=True)
def _build_layer(free, table, wp, hp, d, first, last):
    """Fill lines ``first`` to ``last - 1`` of layer ``d`` of ``table``, counted in sweep order
    (straight layers: rows for E/W, columns for S/N, in any order; diagonal layers: rows from
    the far side, each reading the row before). Straight layers must be complete before a
    diagonal one is started: diagonals read them."""
    lines = (hp if d < 2 or d >= 4 else wp) - 2
    last = min(last, lines)
    if d < 4:
        for k in range(first, last):
            _straight_line(free, table, wp, hp, d, k + 1)
        return
    dx = DX[d]
    dy = DY[d]
    for k in range(first, last):
        y = hp - 2 - k if dy > 0 else 1 + k
        x = wp - 2 if dx > 0 else 1
        while 1 <= x <= wp - 2:
            if free[y * wp + x]:
                table[d, y * wp + x] = _diagonal_value(free, table, wp, d, x, y, dx, dy)
            x -= dx


def layer_lines(wp: int, hp: int, d: int) -> int:
    """Lines (rows or columns) of layer ``d``."""
    return (hp if d < 2 or d >= 4 else wp) - 2


def build_table(free: np.ndarray, wp: int, hp: int, progress=None) -> np.ndarray:
    """The JPS+ table, ``int32 [8, (H+2)·(W+2)]``, of the padded passability ``free``;
    ``progress(stage, done, total)`` is told after each of the 8 layers."""
    table = np.zeros((8, wp * hp), dtype=np.int32)
    for d in range(8):
        _build_layer(free, table, wp, hp, d, 0, layer_lines(wp, hp, d))
        if progress is not None:
            progress("jump distances", d + 1, 8)
    return table


@njit(cache=True)
def _update_table(table, free, wp, hp, cells):
    """Bring ``table`` up to date after the cells ``cells`` (``(N, 2)`` unpadded x, y) changed
    passability; ``free`` is already the new padded passability. Returns the entries rewritten."""
    n = wp * hp
    rows = np.zeros(hp, dtype=np.bool_)
    cols = np.zeros(wp, dtype=np.bool_)
    for k in range(cells.shape[0]):
        x = cells[k, 0] + 1
        y = cells[k, 1] + 1
        for r in range(max(1, y - 1), min(hp - 2, y + 1) + 1):
            rows[r] = True
        for c in range(max(1, x - 1), min(wp - 2, x + 1) + 1):
            cols[c] = True
    # the straight layers' old values, only where they are redone (a full copy is most of the time)
    old = np.empty((4, n), dtype=np.int32)
    for y in range(1, hp - 1):
        if rows[y]:
            old[0:2, y * wp:(y + 1) * wp] = table[0:2, y * wp:(y + 1) * wp]
    for x in range(1, wp - 1):
        if cols[x]:
            for y in range(hp):
                old[2, y * wp + x] = table[2, y * wp + x]
                old[3, y * wp + x] = table[3, y * wp + x]
    # the direction as a loop variable, not a literal: each literal compiled the line apart
    for y in range(1, hp - 1):
        if rows[y]:
            for d in range(2):
                _straight_line(free, table, wp, hp, d, y)
    for x in range(1, wp - 1):
        if cols[x]:
            for d in range(2, 4):
                _straight_line(free, table, wp, hp, d, x)
    # seeds: cells whose straight values or passability changed (a diagonal value depends on the
    # cell ahead's straight values and on the three cells of the step)
    # (straight values change only on the rows and columns redone above)
    seed = np.zeros(n, dtype=np.bool_)
    for y in range(1, hp - 1):
        if rows[y]:
            for x in range(1, wp - 1):
                v = y * wp + x
                if table[0, v] != old[0, v] or table[1, v] != old[1, v]:
                    seed[v] = True
    for x in range(1, wp - 1):
        if cols[x]:
            for y in range(1, hp - 1):
                v = y * wp + x
                if table[2, v] != old[2, v] or table[3, v] != old[3, v]:
                    seed[v] = True
    for k in range(cells.shape[0]):
        seed[(cells[k, 1] + 1) * wp + cells[k, 0] + 1] = True
    seeds = np.flatnonzero(seed)
    written = 0
    for d in range(4, 8):
        dx = DX[d]
        dy = DY[d]
        for v in seeds:
            # the cells whose step along d reads v (it is the cell ahead or one beside the
            # step); behind each, the chain reads only the next value: stop where it holds
            for bx, by in ((dx, dy), (0, dy), (dx, 0)):
                x = v % wp - bx
                y = v // wp - by
                while 1 <= x <= wp - 2 and 1 <= y <= hp - 2:
                    u = y * wp + x
                    value = _diagonal_value(free, table, wp, d, x, y, dx, dy) if free[u] else 0
                    if value == table[d, u]:
                        break
                    table[d, u] = value
                    written += 1
                    x -= dx
                    y -= dy
    return written


class JumpTable:
    """The JPS+ jump distances of one grid, kept in step with its edits.

    ``current()`` returns the table for the grid as it is now: after ``Grid.set_passable`` edits
    it updates only what they affect (``_update_table``); after anything it cannot follow
    (terrain costs, a resize, more edits than the grid logs) it rebuilds. Cached on disk with a
    format version and checksum (``cached``). Memory: 32 bytes per cell (8 ``int32`` layers).
    """

    FORMAT_VERSION = 1

    #: Lines (rows or columns) built per ``build_next`` step.
    BAND = 64

    def __init__(self, grid, table: np.ndarray, layers_done: int = 8) -> None:
        self.grid = require_grid(grid, "JumpTable")
        shape = (8, (grid.width + 2) * (grid.height + 2))
        if not isinstance(table, np.ndarray) or table.shape != shape or table.dtype != np.int32:
            raise NavError(f"JumpTable table must be an int32 array of shape {shape} for this grid (from "
                           f"JumpTable.build), got {getattr(table, 'dtype', type(table).__name__)} "
                           f"{getattr(table, 'shape', '')}")
        self.layers_done = checks.whole_number(layers_done, "layers_done", low=0, high=8, error=NavError)
        reach = max(grid.width, grid.height) + 2    # a jump never leaves the padded grid (kernels index by it)
        if self.layers_done and table.size and not -reach <= int(table.min()) <= int(table.max()) <= reach:
            raise NavError(f"JumpTable: the JPS+ table holds jumps of {int(table.min())} .. {int(table.max())} cells, "
                           f"outside -{reach} .. {reach} (a forged or foreign table)")
        self.table = np.ascontiguousarray(table)
        self.version = grid.version
        self.lines_done = 0       # of the layer being built
        self.updates = 0          # incremental updates applied
        self.rebuilds = 0         # full rebuilds after construction

    @classmethod
    def empty(cls, grid) -> "JumpTable":
        """A table to fill one layer at a time (``build_next``), e.g. as budgeted steps of a
        crowd's plan queue, so no tick pays for the whole build."""
        grid = require_grid(grid, "JumpTable.empty")
        return cls(grid, np.zeros((8, (grid.width + 2) * (grid.height + 2)), dtype=np.int32), 0)

    def restart_build(self) -> None:
        """Start the table over, to be built again with ``build_next`` (a fresh zeroed array:
        ``calloc``'d, so no tick pays for clearing it)."""
        self.table = np.zeros(self.table.shape, dtype=self.table.dtype)
        self.layers_done = self.lines_done = 0
        self.version = self.grid.version

    @property
    def ready(self) -> bool:
        """True when all 8 layers are built."""
        return self.layers_done == 8

    def build_next(self) -> int:
        """Build the next ``BAND`` lines of the table (straight layers first: the diagonal ones
        read them); returns the cells built."""
        if self.version != self.grid.version:          # edited mid-build: start over
            self.layers_done = self.lines_done = 0
            self.version = self.grid.version
        (free, _), wp = self.grid.padded()
        hp = self.grid.height + 2
        d = self.layers_done
        lines = layer_lines(wp, hp, d)
        last = min(self.lines_done + self.BAND, lines)
        _build_layer(free, self.table, wp, hp, d, self.lines_done, last)
        cells = (last - self.lines_done) * (self.grid.height if d in (2, 3) else self.grid.width)
        self.lines_done = last
        if last == lines:
            self.layers_done += 1
            self.lines_done = 0
        return cells

    @classmethod
    def build(cls, grid, progress=None) -> "JumpTable":
        """Compute the table (``progress(stage, done, total)`` after each layer)."""
        checks.callback(progress, "progress", error=NavError)
        (free, _), wp = require_grid(grid, "JumpTable.build").padded()
        return cls(grid, build_table(free, wp, grid.height + 2, progress))

    @classmethod
    def cached(cls, grid, cache_dir, progress=None) -> "JumpTable":
        """Load the table from ``cache_dir`` when a valid one was baked for this grid, else build
        and save it (``None``: build only)."""
        if cache_dir is None:
            return cls.build(grid, progress)
        from pathlib import Path

        from ..bake_cache import grid_digest, load_or_bake

        digest = grid_digest(grid, ("jps+", cls.FORMAT_VERSION), heights=False)
        path = Path(cache_dir) / f"jps_plus_{digest[:16]}.npz"
        return load_or_bake(path, lambda p: cls.load(p, grid), lambda: cls.build(grid, progress))

    def save(self, path) -> None:
        """Write the table in the checksummed bake format."""
        from ..bake_cache import grid_digest, write_baked

        write_baked(path, self.FORMAT_VERSION, np.zeros(0), {"table": self.table},
                    grid_digest(self.grid, ("jps+", self.FORMAT_VERSION), heights=False), compress=True)

    @classmethod
    def load(cls, path, grid) -> "JumpTable":
        """Read a table saved by ``save``; ``NavError`` when damaged or baked for another grid."""
        from ..bake_cache import grid_digest, read_baked, require

        _, arrays, digest = read_baked(path, cls.FORMAT_VERSION, "JPS+ table")
        require(arrays, ("table",), path, "JPS+ table")
        if digest != grid_digest(grid, ("jps+", cls.FORMAT_VERSION), heights=False):
            raise NavError(f"{path}: JPS+ table baked for another grid")
        try:                                      # shape, dtype and jump range: the constructor's checks
            return cls(grid, arrays["table"])
        except NavError as e:
            raise NavError(f"{path}: {e}") from None

    def current(self) -> np.ndarray:
        """The table for the grid's present passability (finishing the build if needed)."""
        grid = self.grid
        while not self.ready:
            self.build_next()
        if self.version != grid.version:
            cells = grid.passability_edits_since(self.version)
            (free, _), wp = grid.padded()
            if cells is None:
                self.table = build_table(free, wp, grid.height + 2)
                self.rebuilds += 1
            elif len(cells):
                _update_table(self.table, free, wp, grid.height + 2, cells)
                self.updates += 1
            self.version = grid.version
        return self.table

    @property
    def memory_bytes(self) -> int:
        """Bytes of the table."""
        return int(self.table.nbytes)


def jump_table(grid, cache_dir=None, progress=None) -> JumpTable:
    """The grid's JPS+ table (kept with the grid, following its edits): loaded from or saved to
    ``cache_dir`` when given, else built."""
    return grid.kept("jps+", lambda g: JumpTable.cached(g, cache_dir, progress))


@njit(cache=True)
def jps_plus_query(table, free, wp, ws, start, goal, bounds, use_bounds):
    """One whole JPS+ query in one call (for one-shot ``find_path``: no per-step overhead; call
    the workspace's ``next_stamp`` first). Returns ``(cost, cells)``; cost inf and no cells when
    unreachable."""
    astar_begin(ws, start, goal, wp, OCTILE, 1.0, _NO_TABLE)
    g, parent = ws.g, ws.parent
    status = jps_plus_run(table, free, wp, ws, np.int64(1) << 60, bounds, use_bounds)
    if status != FOUND:
        return np.inf, np.zeros((0, 2), dtype=np.int32)
    return g[goal], expand_jumps(parent, goal, wp)
