"""Clearance: agents of several sizes on one grid.

``clearance_map`` gives, per open cell, the distance from its centre to the nearest wall — the
nearest point of a blocked cell or of the map's edge, exactly (to the cell's square, not to its
centre), up to ``REACH`` cells. An agent of radius ``r`` (cells) fits standing at a cell centre
when the clearance there is at least ``r``; so ``SizedGrids`` derives, for each radius class, a
grid whose open cells are those — and every grid planner, unchanged, plans for that size on it:
a straight segment between two of its cells that its line-of-sight test accepts passes only
through cells that clear the radius. Agents up to half a cell plan on the level's own grid (any
open cell clears 0.5). The classes are derived, never baked: a threshold of the one clearance
map (a few milliseconds on a 1024² map), and map edits update the map and the class grids in a
window around the edit.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from ..grid import Grid
from ..grid_edits import nearest_open_cells
from .field import build_field

if TYPE_CHECKING:
    from .sectors import SectorGraph

__all__ = ["REACH", "WIDE", "clearance_map", "SizedGrids"]

#: Clearance is exact up to ``REACH - 0.5`` cells (2.5: radii up to 2 cells, the issue's range,
#: and a margin); farther walls are not looked for, so larger values read as ``REACH - 0.5``.
REACH = 3
#: Agents of a radius above this many cells are wide: they plan on a grid of cells that clear
#: them (any open cell clears half a cell), and keep their whole radius off walls.
WIDE = 0.5
#: Radius classes are rounded up to this fraction of a cell.
CLASS_STEP = 0.25
#: A unit standing where it does not fit looks this far (cells of cost) for the way out.
WAY_OUT = 24.0


@njit(cache=True)
def _clearance(padded, x0, y0, x1, y1, reach, out):
    """Clearance of cells ``[x0, x1) × [y0, y1)`` (``padded``: passable with a ``reach``-cell
    blocked border; ``out`` indexed without the border)."""
    cap = reach - 0.5
    for y in range(y0, y1):
        for x in range(x0, x1):
            if not padded[y + reach, x + reach]:
                out[y, x] = 0.0
                continue
            best = cap * cap
            for dy in range(-reach, reach + 1):
                gy = max(abs(dy) - 0.5, 0.0)
                for dx in range(-reach, reach + 1):
                    if not padded[y + reach + dy, x + reach + dx]:
                        gx = max(abs(dx) - 0.5, 0.0)
                        d = gx * gx + gy * gy
                        if d < best:
                            best = d
            out[y, x] = math.sqrt(best)


def clearance_map(passable: np.ndarray, reach: int = REACH) -> np.ndarray:
    """``float64 [H, W]``: distance (cells) from each open cell's centre to the nearest wall,
    exact up to ``reach - 0.5``; 0 on blocked cells."""
    padded = np.pad(np.asarray(passable, dtype=np.bool_), reach, constant_values=False)
    out = np.zeros(passable.shape, dtype=np.float64)
    _clearance(padded, 0, 0, passable.shape[1], passable.shape[0], reach, out)
    return out


class SizedGrids:
    """The grids agents of each radius class plan on, derived from ``grid`` and its clearance;
    ``grid_for(radius)`` (world units) gives the level's own grid for radii up to half a cell."""

    def __init__(self, grid: Grid) -> None:
        self.grid = grid
        self.clearance = clearance_map(grid.passable)
        self._classes: dict[float, Grid] = {}
        self._tiles: dict[float, SectorGraph] = {}
        self.version = grid.version

    @staticmethod
    def radius_class(radius_cells: float) -> float:
        """The class (cells) an agent of ``radius_cells`` plans in: rounded up to a quarter."""
        return math.ceil(radius_cells / CLASS_STEP - 1e-9) * CLASS_STEP

    def grid_for(self, radius: float) -> Grid:
        """The grid an agent of ``radius`` (world units) plans on."""
        r = radius / self.grid.cell_size
        if r <= 0.5:
            return self.grid
        key = self.radius_class(r)
        sized = self._classes.get(key)
        if sized is None:
            g = self.grid
            sized = Grid(g.passable & (self.clearance >= key - 1e-9), g.cost, g.heights, cell_size=g.cell_size,
                         origin=g.origin, name=f"{g.name} (radius {key:g})")
            self._classes[key] = sized
        return sized

    def warm(self, radius: float, sector_size: int | None = None) -> None:
        """Make the class grid of ``radius`` and its search tables now (outside a tick), and its
        sector tiles when ``sector_size`` is given (maps large enough for tiles)."""
        sized = self.grid_for(radius)
        sized.components()
        sized.move_masks()
        if sector_size is not None:
            self.tiles_for(radius, sector_size)

    def tiles_for(self, radius: float, sector_size: int):
        """The sector tiles of ``radius``'s class grid (made on first use: ``warm`` makes them
        when such agents are added); they follow edits with the class grid."""
        from .sectors import SectorGraph

        key = self.radius_class(radius / self.grid.cell_size)
        tiles = self._tiles.get(key)
        if tiles is None:
            tiles = self._tiles[key] = SectorGraph(self.grid_for(radius), sector_size)
        return tiles

    @staticmethod
    def nearest_fit(sized: Grid, cell: tuple[int, int]) -> tuple[int, int] | None:
        """``cell`` when it is open on ``sized``, else the nearest open cell there
        (``nearest_open_cells``); None when none is open."""
        x, y = cell
        if sized.passable[y, x]:
            return x, y
        if not sized.passable.any():
            return None
        nx, ny = nearest_open_cells(sized.passable, np.array([[x, y]]))[0]
        return int(nx), int(ny)

    def way_out(self, sized: Grid, cell: tuple[int, int]) -> np.ndarray | None:
        """The level's cells (``(N, 2)``) a unit of ``sized``'s class standing at ``cell``, where
        it does not fit, walks to reach the nearest cell where it does — nearest by walking on the
        level's grid (within ``WAY_OUT`` of cost), not by straight line (a fit cell behind a wall
        gave it a path it could not start); None when there is none that near."""
        field = build_field(self.grid, np.array([cell]), limit=WAY_OUT, smooth=False)
        fits = np.isfinite(field.integration) & sized.passable
        if not fits.any():
            return None
        ys, xs = np.nonzero(fits)
        k = int(np.argmin(field.integration[ys, xs]))
        return field.descend((int(xs[k]), int(ys[k])))[::-1].astype(np.int64)

    def cells_changed(self, cells: np.ndarray) -> None:
        """Follow an edit of ``cells`` on the level's grid: the clearance around them, and each
        class grid's cells whose fit changed (``Grid.set_passable``, so their own caches follow)."""
        c = np.atleast_2d(np.asarray(cells, dtype=np.int64))
        g = self.grid
        if len(c):
            x0, y0 = np.maximum(c.min(axis=0) - REACH, 0)
            x1, y1 = np.minimum(c.max(axis=0) + REACH + 1, (g.width, g.height))
            # the window and a REACH-cell ring around it (outside the map: walls), not the map
            ring = np.zeros((y1 - y0 + 2 * REACH, x1 - x0 + 2 * REACH), dtype=np.bool_)
            ax0, ay0 = max(x0 - REACH, 0), max(y0 - REACH, 0)
            ax1, ay1 = min(x1 + REACH, g.width), min(y1 + REACH, g.height)
            ring[ay0 - y0 + REACH: ay1 - y0 + REACH, ax0 - x0 + REACH: ax1 - x0 + REACH] = g.passable[ay0:ay1, ax0:ax1]
            window = np.zeros((y1 - y0, x1 - x0))
            _clearance(ring, 0, 0, x1 - x0, y1 - y0, REACH, window)
            self.clearance[y0:y1, x0:x1] = window
            for key, sized in self._classes.items():
                fits = g.passable[y0:y1, x0:x1] & (self.clearance[y0:y1, x0:x1] >= key - 1e-9)
                changed = []
                for value in (True, False):
                    ys, xs = np.nonzero((fits == value) & (sized.passable[y0:y1, x0:x1] != value))
                    if len(xs):
                        changed.append(np.c_[xs + x0, ys + y0])
                        sized.set_passable(changed[-1], value)
                tiles = self._tiles.get(key)
                if tiles is not None and changed:
                    tiles.update(np.concatenate(changed))
        self.version = g.version
