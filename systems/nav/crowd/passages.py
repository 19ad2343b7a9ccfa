"""How far each open cell is from a wall, and the level's narrow passages — kept up to date
through map edits without redoing the whole map when the edit only blocked cells.

Both came from whole-map distance transforms, redone in the first tick after any edit: a 3×3
building on a 1024² map cost that tick 200–380 ms. Blocking cells only lowers distances, so the
new distances are the old ones or the distances to the new walls, whichever is less — a
distance transform of a window round the edit, exact: cells farther from the edit than the
largest old distance cannot get nearer a new wall than they were to an old one. A passage is
read from the distances to long walls (blocked regions of ``PASSAGE_WALL_CELLS`` cells or more):
blocking cells only grows that set, by cells near the edit (a region that became long was under
``PASSAGE_WALL_CELLS`` cells before, and touches the edit). Widths and the passage mask change
within a window round the lowered distances; the passages are then numbered again over the map
(one labelling pass, as the full build does, so the numbers are the same). Edits that open
cells, change costs or could not be recorded are built afresh.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.ndimage import distance_transform_edt, label, maximum_filter  # at load: first import ~0.1 s

from ..grid import Grid
from ..search.workspace import only_blocked

__all__ = ["PassageMap", "PASSAGE_WALL_CELLS"]

#: Blocked regions of at least this many cells make passages (smaller ones are pillars and rocks
#: that units walk round, not through).
PASSAGE_WALL_CELLS = 16
#: A window larger than this share of the map is no saving: the map is built afresh.
_WINDOW_SHARE = 0.25
_EIGHT = np.ones((3, 3), dtype=bool)


class PassageMap:
    """``clearance()`` (cells from each open cell to the nearest wall or the map's edge) and
    ``passages(narrow)`` of one grid, each cached per grid version and brought up to date after
    blocking edits by windows round the edit (see the module docs)."""

    def __init__(self, grid: Grid) -> None:
        self.grid = grid
        self._clearance: tuple[int, np.ndarray] | None = None
        # per narrow: (version, long walls, distance to them, widths of places, passage labels, widths)
        self._passages: dict[float, tuple] = {}

    def clearance(self) -> np.ndarray:
        """Cells from each open cell to the nearest wall or map edge (0 on blocked cells)."""
        cached, grid = self._clearance, self.grid
        if cached is not None and cached[0] == grid.version:
            return cached[1]
        lowered = None
        if cached is not None:
            cells = self._blocked_since(cached[0])
            if cells is not None:
                lowered = _lowered(cached[1], cells)
        if lowered is None:
            padded = np.pad(grid.passable, 1, constant_values=False)
            lowered = distance_transform_edt(padded)[1:-1, 1:-1]
        self._clearance = (grid.version, lowered)
        return lowered

    def passages(self, narrow: float) -> tuple[np.ndarray, np.ndarray]:
        """The narrow passages — open cells within ``narrow`` cells of a long wall in places
        under ``2 · narrow + 1`` cells wide (a place's width: twice the clearance of its middle,
        the widest clearance across it) — as ``(labels, widths)``: each cell's passage number
        (int32, -1 outside any) and each passage's narrowest width in cells."""
        grid, cached = self.grid, self._passages.get(narrow)
        if cached is not None and cached[0] == grid.version:
            return cached[4], cached[5]
        made = None
        if cached is not None:
            cells = self._blocked_since(cached[0])
            if cells is not None:
                made = self._after_blocks(cached, cells, narrow)
        if made is None:
            made = self._built(narrow)
        self._passages[narrow] = made
        return made[4], made[5]

    # ------------------------------------------------------------------ private
    def _blocked_since(self, version: int) -> np.ndarray | None:
        """The cells edited since ``version`` when every one is blocked now, else None."""
        cells = self.grid.passability_edits_since(version)
        if cells is None or len(cells) == 0 or not only_blocked(self.grid.passable, cells):
            return None
        return cells

    def _long_walls(self) -> np.ndarray:
        blocked = ~self.grid.passable
        parts, count = label(blocked, structure=_EIGHT)
        size = np.bincount(parts.ravel(), minlength=count + 1)
        return blocked & (size[parts] >= PASSAGE_WALL_CELLS)

    def _built(self, narrow: float) -> tuple:
        long_walls = self._long_walls()
        near = distance_transform_edt(np.pad(~long_walls, 1, constant_values=False))[1:-1, 1:-1]
        reach = int(math.ceil(narrow))
        width = 2.0 * maximum_filter(near, size=2 * reach + 1, mode="constant") - 1.0
        return self._numbered(long_walls, near, width, narrow)

    def _after_blocks(self, cached: tuple, cells: np.ndarray, narrow: float) -> tuple | None:
        _, old_long, old_near, old_width, _, _ = cached
        long_walls = self._long_walls()
        grown = np.argwhere(long_walls & ~old_long)[:, ::-1]
        if len(grown) == 0:
            near, width = old_near, old_width
        else:
            near = _lowered(old_near, grown)
            if near is None:
                return None
            changed = np.argwhere(near != old_near)[:, ::-1]
            width = old_width.copy()
            if len(changed):
                reach = int(math.ceil(narrow))
                (x0, y0), (x1, y1) = changed.min(axis=0) - reach, changed.max(axis=0) + reach + 1
                h, w = near.shape
                x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
                # the widest clearance within reach of each cell of the window, from ``reach`` round it
                ox0, oy0, ox1, oy1 = max(x0 - reach, 0), max(y0 - reach, 0), min(x1 + reach, w), min(y1 + reach, h)
                around = maximum_filter(near[oy0:oy1, ox0:ox1], size=2 * reach + 1, mode="constant")
                width[y0:y1, x0:x1] = 2.0 * around[y0 - oy0: y1 - oy0, x0 - ox0: x1 - ox0] - 1.0
        return self._numbered(long_walls, near, width, narrow)

    def _numbered(self, long_walls: np.ndarray, near: np.ndarray, width: np.ndarray, narrow: float) -> tuple:
        mask = (width < 2.0 * narrow + 1.0) & (near <= narrow) & self.grid.passable
        labels, count = label(mask, structure=_EIGHT)
        labels = labels.astype(np.int32) - 1
        widths = np.full(count, np.inf)
        if count:
            np.minimum.at(widths, labels[mask], width[mask])
        return (self.grid.version, long_walls, near, width, labels, np.maximum(widths, 1.0))


def _lowered(old: np.ndarray, cells: np.ndarray) -> np.ndarray | None:
    """``old`` distances to walls with ``cells`` (``(N, 2)`` x, y) walls too: the old distance
    or the distance to the nearest of ``cells``, whichever is less, over a window round them as
    wide as the largest old distance (no cell beyond it can be nearer one of them than it was to
    its old wall). None when that window would be a large share of the map."""
    h, w = old.shape
    reach = int(math.ceil(float(old.max()))) + 1
    (x0, y0), (x1, y1) = cells.min(axis=0) - reach, cells.max(axis=0) + reach + 1
    x0, y0, x1, y1 = max(int(x0), 0), max(int(y0), 0), min(int(x1), w), min(int(y1), h)
    if (x1 - x0) * (y1 - y0) > _WINDOW_SHARE * w * h:
        return None
    seeds = np.ones((y1 - y0, x1 - x0), dtype=bool)
    seeds[cells[:, 1] - y0, cells[:, 0] - x0] = False
    out = old.copy()
    out[y0:y1, x0:x1] = np.minimum(old[y0:y1, x0:x1], distance_transform_edt(seeds))
    return out
