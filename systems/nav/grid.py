"""The grid model every grid algorithm works on.

Array conventions (written down once, here):

* Grids are numpy arrays indexed ``[y, x]`` (row, column); a cell is addressed ``(x, y)``.
* ``passable``: ``bool [H, W]``, True where an agent may stand.
* ``cost``: ``float32 [H, W]``, terrain cost ≥ 1 that multiplies step length. A step between two
  cells costs ``length × (cost[a] + cost[b]) / 2`` (length 1 straight, √2 diagonal). The mean
  keeps the cost of a step symmetric, so a search from the goal (flow fields, bidirectional A*)
  sees the same costs as one from the start. On blocked cells the value is ignored.
* ``heights``: ``float32 [H, W]`` world-space z of each cell's ground, or ``None`` (flat, z = 0).
* Paths: ``(N, 2) int32`` arrays of ``(x, y)`` cells, start..goal.
* Movement: 8-connected, **no corner cutting**: a diagonal step needs both orthogonal neighbours
  passable (the Moving AI benchmark rule).
* World space is Panda3D's Z-up frame; cell ``(x, y)`` covers world
  ``[origin_x + x·cell_size, origin_x + (x+1)·cell_size)`` (likewise y); its centre is at ``+0.5``.

>>> import numpy as np
>>> from rtsnav.systems.nav import Grid
>>> g = Grid(np.array([[1, 1, 1], [1, 0, 1], [1, 1, 1]], dtype=bool), cell_size=2.0)
>>> g.world_to_cell(3.9, 0.1)
(1, 0)
>>> g.cell_to_world(1, 0)
(3.0, 1.0, 0.0)
>>> g.line_of_sight((0, 0), (2, 2))   # passes the blocked centre
False
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numba import njit

from rtsnav import checks

from .errors import NavError
from .grid_edits import frozen, labels_after_closing, labels_after_opening, legal_moves, refresh_moves, write_cells
from .grid_layers import masked_grid, set_cell_layers
from .grid_points import checked_heights, finite_point, integer_cell, integer_cells
from .grid_sight import world_segments_clear

__all__ = ["Grid", "GridView"]

#: Largest finite terrain cost (costs are stored as float32).
FLOAT32_MAX = float(np.finfo(np.float32).max)


#: Cell sizes a grid accepts: beyond, world coordinates of a big map lose their cells or overflow.
CELL_SIZE_RANGE = (1e-6, 1e6)
#: How far (in cells) the origin may lie from (0, 0): cell indexes are int32, and a world
#: coordinate within 2**31 cells keeps its cell to ~1e-6 of a cell in float64.
ORIGIN_CELLS = float(2 ** 31)

def require_grid(grid: object, where: str) -> "Grid":
    """``grid`` when it is a ``Grid``, else ``NavError`` naming ``where`` it was handed (a bare
    array has no version, edits or caches; ``Grid(array)`` makes one)."""
    if not isinstance(grid, Grid):
        raise NavError(f"{where} takes a Grid (make one with Grid(passable)), got {type(grid).__name__}")
    return grid


def _key(key: object) -> str:
    """``key`` of a per-grid structure: a string, else ``NavError``."""
    if not isinstance(key, str):
        raise NavError(f"key must be a string naming the structure, got {key!r}")
    return key


def _made(factory, grid: "Grid"):
    """``factory(grid)``, when ``factory`` is a function; else ``NavError``."""
    if not callable(factory):
        raise NavError(f"factory must be a function of the grid, got {factory!r}")
    return factory(grid)


#: Fields of a ``Grid`` that only its edit methods change (``Grid.__setattr__``).
_FIXED = frozenset({"passable", "cost", "heights", "layers", "cell_size", "origin", "version"})


class GridView(NamedTuple):
    """The grid as the movement and steering kernels read it — one typed argument (numba reads
    a NamedTuple's fields at no cost) instead of six positional ones. From ``Grid.view``."""

    passable: np.ndarray     # bool [H, W]
    cell_size: float
    origin_x: float
    origin_y: float
    heights: np.ndarray      # float32 [H, W] ground z; a 1×1 placeholder when ``has_heights`` is False
    has_heights: bool


_NO_HEIGHTS = frozen(np.zeros((1, 1), dtype=np.float32))   # read-only as real heights are: one kernel type

#: Edits a grid remembers cell by cell (for structures that update instead of rebuilding).
EDIT_LOG = 64


class Grid:
    """A 2D navigation grid: passable mask, terrain costs, optional heights, and world placement.

    Args:
        passable: ``[H, W]`` array; non-zero / True = walkable.
        cost: optional ``[H, W]`` terrain cost (finite, ≥ 1 on passable cells). Default all 1.
            A cell whose cost is ``inf`` is treated as blocked.
        heights: optional ``[H, W]`` ground height (world z) per cell, finite.
        cell_size: world units per cell edge, > 0.
        origin: world ``(x, y)`` of the corner of cell ``(0, 0)``.
        name: a label (the map file name when loaded from one).

    Raises:
        NavError: wrong dimensions or mismatched shapes, NaN or < 1 costs, non-finite heights,
            a non-positive cell size.
    """

    __slots__ = ("passable", "cost", "heights", "cell_size", "origin", "name", "version",
                 "_uniform", "_padded", "_components", "_workspaces", "_edits", "_kept", "layers", "_masked")
    # caches, reset by every edit (``_invalidate``)
    _uniform: bool | None
    _padded: tuple[np.ndarray, np.ndarray, np.ndarray] | None
    _components: np.ndarray | None
    _workspaces: dict

    def __setattr__(self, name: str, value) -> None:
        # the map changes only through its edit methods: every cache, search and derived grid
        # keys on ``version`` (``g.passable = other`` or ``g.cell_size = 2`` went unnoticed)
        if name in _FIXED and hasattr(self, "version"):
            raise AttributeError(f"Grid.{name} cannot be replaced: change cells with set_passable / set_cost / "
                                 "set_layers (every cache and search follows them); another map is a new Grid")
        object.__setattr__(self, name, value)

    __copy__ = checks.snapshot_copy          # a grid of its own: a shallow copy shared the cells

    def __setstate__(self, state) -> None:
        """Unpickled or copied (the rebuild worker's copies): the fields as they were, past the guard."""
        extra, slots = state if isinstance(state, tuple) else (state, None)
        for name, value in {**(extra or {}), **(slots or {})}.items():
            if name in _FIXED and isinstance(value, np.ndarray) and (value.flags.writeable or not value.flags.owndata):
                value = frozen(value)        # copies and pickles come back writable: edits go through the methods
            object.__setattr__(self, name, value)

    def __init__(self, passable: np.ndarray, cost: np.ndarray | None = None,
                 heights: np.ndarray | None = None, *, cell_size: float = 1.0,
                 origin: Sequence[float] = (0.0, 0.0), name: str = "") -> None:
        passable = np.asarray(passable)
        if passable.ndim != 2:
            raise NavError(f"passable must be a 2D [H, W] array, got {passable.ndim}D "
                           f"with shape {passable.shape}")
        if passable.shape[0] == 0 or passable.shape[1] == 0:
            raise NavError(f"grid must have at least one cell, got shape {passable.shape}")
        if passable.dtype != np.bool_:
            if not np.issubdtype(passable.dtype, np.number) or not np.isin(passable, (0, 1)).all():
                try:
                    seen = np.unique(passable)[:6].tolist()
                except TypeError:                     # an object array of mixed things
                    seen = passable.ravel()[:6].tolist()
                raise NavError(f"passable must be bools or 0 / 1, got dtype {passable.dtype} with values {seen}")
            passable = passable != 0
        passable = np.ascontiguousarray(passable, dtype=np.bool_)
        if cost is None:
            cost_arr = np.ones(passable.shape, dtype=np.float32)
        else:
            try:
                cost_arr = checks.float_array(cost)
            except (TypeError, ValueError):
                raise NavError("cost must be an array of numbers (>= 1, inf = blocked)") from None
            if cost_arr.shape != passable.shape:
                raise NavError(f"cost shape {cost_arr.shape} != passable shape {passable.shape}")
            bad = np.isnan(cost_arr) & passable
            if bad.any():
                y, x = np.argwhere(bad)[0]
                raise NavError(f"cost is NaN at cell (x={x}, y={y}); costs must be numbers >= 1")
            low = (cost_arr < 1.0) & passable
            if low.any():
                y, x = np.argwhere(low)[0]
                raise NavError(f"cost {cost_arr[y, x]} at cell (x={x}, y={y}) is below 1; "
                               "terrain costs multiply step length and must be >= 1 "
                               "(use passable=False or inf to block a cell)")
            passable = passable & np.isfinite(cost_arr)
            huge = passable & (cost_arr > FLOAT32_MAX)
            if huge.any():
                y, x = np.argwhere(huge)[0]
                raise NavError(f"cost {cost_arr[y, x]:g} at cell (x={x}, y={y}) is beyond float32 "
                               f"(max {FLOAT32_MAX:.3g}); use inf or passable=False to block a cell")
            cost_arr = np.where(passable, cost_arr, 1.0).astype(np.float32)
        if heights is not None:
            heights = checked_heights(heights, passable.shape)
        if isinstance(cell_size, (bool, str)) or not isinstance(cell_size, (int, float, np.integer, np.floating)):
            raise NavError(f"cell_size must be a number, got {cell_size!r}")
        cell_size = float(cell_size)
        if not (CELL_SIZE_RANGE[0] <= cell_size <= CELL_SIZE_RANGE[1]):
            raise NavError(f"cell_size must be a number in [{CELL_SIZE_RANGE[0]:g}, {CELL_SIZE_RANGE[1]:g}] (world "
                           f"coordinates of every cell must stay exact and finite), got {cell_size}")
        if (not isinstance(origin, (tuple, list, np.ndarray)) or len(origin) != 2
                or not all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
                           and math.isfinite(float(v)) for v in origin)):
            raise NavError(f"origin must be two finite numbers (x, y), got {origin!r}")
        if max(abs(float(origin[0])), abs(float(origin[1]))) > ORIGIN_CELLS * cell_size:
            raise NavError(f"origin must lie within {ORIGIN_CELLS:g} cells ({ORIGIN_CELLS * cell_size:g}) of (0, 0) "
                           f"so that world coordinates of cells stay exact, got {origin!r}")
        self.passable: np.ndarray = frozen(passable)            # read-only: edits go through set_passable
        self.cost: np.ndarray = frozen(cost_arr)
        self.heights: np.ndarray | None = None if heights is None else frozen(heights)
        self.cell_size: float = cell_size
        self.origin: tuple[float, float] = (float(origin[0]), float(origin[1]))
        if name is not None and not isinstance(name, str):
            raise NavError(f"name must be a string, got {name!r}")
        self.name: str = name or ""
        #: ``uint32 [H, W]`` navigation layer bits per cell (``set_layers``), or None: all on layer 1.
        self.layers: np.ndarray | None = None
        # layer mask -> (version, the grid it sees, its derived grid); -1 -> (version, the bits open cells are on)
        self._masked: dict[int, tuple] = {}
        self.version: int = 0   # bumped by every edit; caches key on it
        # (version after the edit, cells or None for an edit structures cannot follow), newest last
        self._edits: list[tuple[int, np.ndarray | None]] = []
        self._kept: dict = {}     # structures that follow edits themselves (``kept``)
        self._invalidate()

    # ------------------------------------------------------------------ shape
    @property
    def width(self) -> int:
        """Number of columns (x extent)."""
        return int(self.passable.shape[1])

    @property
    def height(self) -> int:
        """Number of rows (y extent)."""
        return int(self.passable.shape[0])

    @property
    def shape(self) -> tuple[int, int]:
        """``(H, W)``, numpy order."""
        h, w = self.passable.shape
        return int(h), int(w)

    @property
    def is_uniform(self) -> bool:
        """True when every passable cell costs 1 (the Moving AI setting)."""
        if self._uniform is None:
            self._uniform = bool(np.all(self.cost[self.passable] == 1.0))
        return self._uniform

    @property
    def view(self) -> GridView:
        """This grid as the steering kernels take it (``GridView``)."""
        heights = self.heights if self.heights is not None else _NO_HEIGHTS
        return GridView(self.passable, float(self.cell_size), float(self.origin[0]), float(self.origin[1]),
                        heights, self.heights is not None)

    def __repr__(self) -> str:
        label = f" {self.name!r}" if self.name else ""
        return (f"Grid{label}({self.width}x{self.height}, passable={int(self.passable.sum())}, "
                f"cell_size={self.cell_size}, origin={self.origin})")

    # ------------------------------------------------------------ queries
    def in_bounds(self, x: int, y: int) -> bool:
        """True when cell ``(x, y)`` lies on the grid (``NavError`` when it is no pair of integers)."""
        if type(x) is not int or type(y) is not int:
            x, y = integer_cell((x, y))
        return 0 <= x < self.passable.shape[1] and 0 <= y < self.passable.shape[0]

    def is_passable(self, x: int, y: int) -> bool:
        """True when ``(x, y)`` is on the grid and walkable (off-grid cells count as blocked)."""
        if type(x) is not int or type(y) is not int:
            x, y = integer_cell((x, y))
        return self.in_bounds(x, y) and bool(self.passable[y, x])

    def check_cell(self, cell: Sequence[int] | np.ndarray, what: str = "cell") -> tuple[int, int]:
        """Return ``cell`` as an ``(x, y)`` int tuple, or raise ``NavError`` if malformed or off-grid."""
        x, y = integer_cell(cell, what)
        if not self.in_bounds(x, y):
            raise NavError(f"{what} (x={x}, y={y}) is outside the grid "
                           f"(0 <= x < {self.width}, 0 <= y < {self.height})")
        return x, y

    def line_of_sight(self, a: Sequence[int], b: Sequence[int]) -> bool:
        """True when the segment between the centres of cells ``a`` and ``b`` crosses only
        passable cells and never cuts a corner.

        Every cell the segment touches must be passable; where it passes exactly through a cell
        corner, both cells beside that corner must be passable, which is the no-corner-cutting
        rule of grid moves (so a one-step diagonal has line of sight exactly when it is a legal
        move).
        """
        ax, ay = self.check_cell(a, "a")
        bx, by = self.check_cell(b, "b")
        pad, wp = self.padded()
        return bool(line_max_cost(pad[0], pad[1], wp, ax, ay, bx, by) < np.inf)

    def segments_clear(self, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """Vectorised world-space line of sight: for each segment ``starts[i] -> ends[i]``
        (``(N, 2|3)`` world points; z ignored), True when every cell it touches is passable.
        Touching a blocked cell's corner counts as blocked (no corner cutting)."""
        a = np.ascontiguousarray(checks.points(starts, "starts", error=NavError)[:, :2])
        b = np.ascontiguousarray(checks.points(ends, "ends", error=NavError)[:, :2])
        if a.shape != b.shape:
            raise NavError(f"starts shape {a.shape} != ends shape {b.shape}")
        return world_segments_clear(self.passable, self.cell_size, self.origin[0], self.origin[1], a, b)

    # ------------------------------------------------------------- world
    def world_to_cell(self, x: float, y: float) -> tuple[int, int]:
        """The ``(x, y)`` cell containing world point ``(x, y)`` (may be off-grid; see ``in_bounds``).

        Raises ``NavError`` when ``x`` or ``y`` is not a finite number."""
        fx, fy = finite_point((x, y), "world point", 2)
        cs = self.cell_size
        # far off the map stays far off, in the range ``world_to_cells`` gives (1e300 was an int
        # of 300 digits that no other call took back)
        return (min(max(math.floor((fx - self.origin[0]) / cs), -2**31), 2**31 - 1),
                min(max(math.floor((fy - self.origin[1]) / cs), -2**31), 2**31 - 1))

    def cell_to_world(self, cx: int, cy: int) -> tuple[float, float, float]:
        """World ``(x, y, z)`` of the centre of cell ``(cx, cy)``; z is the cell height (0 if flat).
        The cell may be off the grid; ``NavError`` when it is no pair of integers."""
        if type(cx) is not int or type(cy) is not int:
            cx, cy = integer_cell((cx, cy))
        cs = self.cell_size
        z = float(self.heights[cy, cx]) if self.heights is not None and self.in_bounds(cx, cy) else 0.0
        return (self.origin[0] + (cx + 0.5) * cs, self.origin[1] + (cy + 0.5) * cs, z)

    def world_to_cells(self, points: np.ndarray) -> np.ndarray:
        """Vectorised ``world_to_cell``: ``(N, 2|3)`` world points -> ``(N, 2) int32`` cells."""
        pts = checks.points(points, "points", error=NavError)
        org = np.asarray(self.origin)
        # far off the map stays far off (a cast of 1e300 / cell_size to int32 wraps round)
        return np.clip(np.floor((pts[:, :2] - org) / self.cell_size), -2**31, 2**31 - 1).astype(np.int32)

    def cells_to_world(self, cells: np.ndarray) -> np.ndarray:
        """Vectorised ``cell_to_world``: ``(N, 2)`` cells -> ``(N, 3) float64`` cell centres."""
        c = np.asarray(cells)
        if c.ndim != 2 or c.shape[1] != 2:
            raise NavError(f"cells must have shape (N, 2), got {c.shape}")
        if c.dtype.kind not in "iu":
            c = integer_cells(c, "cells")
        out = np.empty((len(c), 3), dtype=np.float64)
        out[:, :2] = np.asarray(self.origin) + (c + 0.5) * self.cell_size
        if self.heights is None:
            out[:, 2] = 0.0
        else:
            xs = np.clip(c[:, 0], 0, self.width - 1)
            ys = np.clip(c[:, 1], 0, self.height - 1)
            out[:, 2] = self.heights[ys, xs]
        return out

    # ------------------------------------------------------------- edits
    def set_passable(self, cells: np.ndarray, passable: bool) -> None:
        """Open or block cells (``(N, 2)`` array of ``(x, y)``); bumps ``version``
        (unless no cell is given)."""
        c = checks.cells(cells, "cells", self.width, self.height, error=NavError)
        value = checks.flag(passable, "passable", error=NavError)
        if len(c) == 0:
            return                # nothing edited: the version stays (a D* Lite search told of no cells stays valid)
        changed = np.unique(c[self.passable[c[:, 1], c[:, 0]] != value], axis=0)
        write_cells(self.passable, (c[:, 1], c[:, 0]), value)
        padded, labels = self._padded, self._components
        self._invalidate(c)
        # the derived arrays follow the edit in place (grid_edits.py): a gate costs microseconds
        if padded is not None:
            refresh_moves(padded[0], padded[2], self.width + 2, changed, np.uint8(value))
            self._padded = padded
        if labels is not None:
            if len(changed) == 0:
                self._components = labels
            elif value:
                labels_after_opening(labels, self.passable, changed)
                self._components = labels
            elif labels_after_closing(labels, self.passable, changed):
                self._components = labels

    def set_cost(self, cells: np.ndarray, cost: float) -> None:
        """Set the terrain cost (≥ 1) of cells (``(N, 2)`` array of ``(x, y)``); bumps ``version``
        (unless no cell is given)."""
        cost = checks.number(cost, "cost (to block cells: set_passable(cells, False))", low=1.0, high=FLOAT32_MAX,
                             error=NavError)
        c = checks.cells(cells, "cells", self.width, self.height, error=NavError)
        if len(c) == 0:
            return
        write_cells(self.cost, (c[:, 1], c[:, 0]), cost)
        self._invalidate(None)

    def set_layers(self, cells: np.ndarray, layers: int) -> None:
        """Put cells (``(N, 2)`` x, y) on navigation ``layers`` (a 32-bit mask, Godot's region
        ``navigation_layers``; layer 1 is bit 0): agents whose ``navigation_layers`` share no bit
        with a cell's never path through it. Bumps ``version`` (agents re-plan)."""
        set_cell_layers(self, cells, layers)

    def masked(self, navigation_layers: int) -> Grid:
        """This grid as an agent of ``navigation_layers`` sees it: cells on none of its layers
        are blocked. ``self`` when the mask takes every open cell; else a derived grid, kept per
        mask and brought up to date with this grid's edits when asked for again."""
        return masked_grid(self, navigation_layers)

    def _invalidate(self, cells: np.ndarray | None = None) -> None:
        object.__setattr__(self, "version", self.version + 1)
        if hasattr(self, "_edits"):
            self._edits.append((self.version, cells))
            del self._edits[:-EDIT_LOG]
        self._uniform = None
        self._padded = None
        self._components = None
        self._workspaces = {}

    def passability_edits_since(self, version: int) -> np.ndarray | None:
        """The cells (``(N, 2)`` x, y) whose passability ``set_passable`` changed after
        ``version``, or None when an edit since then cannot be followed cell by cell (a cost
        change, or older than the last ``EDIT_LOG`` edits)."""
        version = checks.whole_number(version, "version", error=NavError)
        if version == self.version:
            return np.zeros((0, 2), dtype=np.int64)
        later = [(v, c) for v, c in self._edits if v > version]
        if not later or later[0][0] != version + 1 or any(c is None for _, c in later):
            return None
        return np.concatenate([c for _, c in later])

    def kept(self, key: str, factory):
        """A per-grid structure that follows edits itself (e.g. the JPS+ table), made on first
        use and kept across edits (unlike ``workspace``)."""
        value = self._kept.get(_key(key))
        if value is None:
            value = self._kept[key] = _made(factory, self)
        return value

    # ------------------------------------------------ kernel-facing views
    def padded(self) -> tuple[tuple[np.ndarray, np.ndarray], int]:
        """Flat arrays with a one-cell blocked border, for bounds-check-free kernels.

        Returns ``((passable uint8 [(H+2)·(W+2)], cost float64 [(H+2)·(W+2)]), W+2)``.
        Cell ``(x, y)`` is at flat index ``(y + 1)·(W + 2) + x + 1``.
        """
        if self._padded is None:
            h, w = self.passable.shape
            p = np.zeros((h + 2, w + 2), dtype=np.uint8)
            p[1:-1, 1:-1] = self.passable
            c = np.ones((h + 2, w + 2), dtype=np.float64)
            c[1:-1, 1:-1] = self.cost
            flat = p.ravel()
            self._padded = (flat, c.ravel(), legal_moves(flat, w + 2))
        return self._padded[:2], self.width + 2

    def move_masks(self) -> np.ndarray:
        """Per padded cell, a ``uint8`` bitmask of its legal moves (bit k = direction k of
        ``MOVE_OFFSETS``), so a search reads one byte per expansion instead of up to twelve."""
        self.padded()
        assert self._padded is not None
        return self._padded[2]

    def components(self) -> np.ndarray:
        """Connected-component label per cell, ``int32 [H, W]`` (-1 = blocked), cached.

        Under the no-corner-cutting rule a diagonal step needs both orthogonal neighbours, so
        8-connected reachability equals 4-connected reachability.
        """
        if self._components is None:
            (p, _), wp = self.padded()
            labels = _label_components(p, wp)
            h, w = self.passable.shape
            self._components = labels.reshape(h + 2, w + 2)[1:-1, 1:-1].copy()
        return self._components

    def connected(self, a: Sequence[int], b: Sequence[int]) -> bool:
        """True when passable cells ``a`` and ``b`` are in the same connected region (False when
        either is off the grid or blocked)."""
        a, b = integer_cell(a, "a"), integer_cell(b, "b")
        if not (self.in_bounds(*a) and self.in_bounds(*b)):
            return False
        lab = self.components()
        la, lb = lab[a[1], a[0]], lab[b[1], b[0]]
        return bool(la >= 0 and la == lb)

    def nearest_reachable(self, target: Sequence[int], from_cells: np.ndarray) -> tuple[int, int] | None:
        """The passable cell nearest to ``target`` (straight-line) that can be walked to from
        ``from_cells`` (``(N, 2)`` x, y; the region holding most of them counts). ``target``
        itself when it is reachable; None when none of ``from_cells`` is on a passable cell.
        What an RTS does with an order into water or a sealed fort."""
        cells = integer_cells(from_cells, "from_cells")
        tx, ty = integer_cell(target, "target")
        lab = self.components()
        inside = (cells[:, 0] >= 0) & (cells[:, 0] < self.width) & (cells[:, 1] >= 0) & (cells[:, 1] < self.height)
        regions = lab[cells[inside, 1], cells[inside, 0]]
        regions = regions[regions >= 0]
        if len(regions) == 0:
            return None
        region = int(np.bincount(regions).argmax())
        if self.in_bounds(tx, ty) and lab[ty, tx] == region:
            return tx, ty
        ys, xs = np.nonzero(lab == region)
        k = int(np.argmin((xs - tx) ** 2 + (ys - ty) ** 2))
        return int(xs[k]), int(ys[k])

    def workspace(self, key: str, factory):
        """A per-grid scratch object (search arrays reused between queries), made on first use."""
        ws = self._workspaces.get(_key(key))
        if ws is None:
            ws = _made(factory, self)
            self._workspaces[key] = ws
        return ws


# ---------------------------------------------------------------------------- kernels


@njit(cache=True)
def _label_components(passable: np.ndarray, wp: int) -> np.ndarray:
    """4-connected component labels over a padded flat passable array (-1 = blocked)."""
    n = passable.size
    labels = np.full(n, -1, dtype=np.int32)
    stack = np.empty(n, dtype=np.int32)
    offsets = (1, -1, wp, -wp)
    current = 0
    for seed in range(n):
        if passable[seed] == 0 or labels[seed] >= 0:
            continue
        labels[seed] = current
        top = 0
        stack[top] = seed
        top += 1
        while top > 0:
            top -= 1
            u = stack[top]
            for k in range(4):
                v = u + offsets[k]
                if passable[v] != 0 and labels[v] < 0:
                    labels[v] = current
                    stack[top] = v
                    top += 1
        current += 1
    return labels


@njit(cache=True)
def line_max_cost(passable: np.ndarray, cost: np.ndarray, wp: int,
                  x0: int, y0: int, x1: int, y1: int) -> float:
    """Largest terrain cost of the cells the centre-to-centre segment touches; ``inf`` if it
    touches a blocked cell or cuts a corner (supercover traversal, integer arithmetic)."""
    dx = x1 - x0
    dy = y1 - y0
    nx = abs(dx)
    ny = abs(dy)
    sx = 1 if dx > 0 else -1
    sy = 1 if dy > 0 else -1
    x = x0
    y = y0
    idx = (y + 1) * wp + x + 1
    if passable[idx] == 0:
        return np.inf
    worst = cost[idx]
    ix = 0
    iy = 0
    while ix < nx or iy < ny:
        # Which grid line does the segment cross next: compare (0.5+ix)/nx with (0.5+iy)/ny.
        d = (1 + 2 * ix) * ny - (1 + 2 * iy) * nx
        if d == 0:
            # Exactly through a corner: both side cells must be open (no corner cutting).
            a = (y + 1) * wp + x + sx + 1
            b = (y + sy + 1) * wp + x + 1
            if passable[a] == 0 or passable[b] == 0:
                return np.inf
            if cost[a] > worst:
                worst = cost[a]
            if cost[b] > worst:
                worst = cost[b]
            x += sx
            y += sy
            ix += 1
            iy += 1
        elif d < 0:
            x += sx
            ix += 1
        else:
            y += sy
            iy += 1
        idx = (y + 1) * wp + x + 1
        if passable[idx] == 0:
            return np.inf
        if cost[idx] > worst:
            worst = cost[idx]
    return worst
