"""The grid's move masks and component labels, and how they follow a passability edit in place
instead of being rebuilt.

Rebuilding them after a gate edit on a 1024² map cost ~25 ms in the next tick (the padded move
masks 9–12 ms, the component labels 13–14 ms). Here:

* move masks: only the changed cells and their eight neighbours are recomputed;
* component labels, closing cells: the cells become -1; the region they were in stays one region
  when their open neighbours still reach each other inside a window around the edit (a bounded
  search; connected inside the window means connected) — else the labels are rebuilt;
* component labels, opening cells: each group of opened cells takes the label of the regions it
  touches, merging them when it touches several (a new label when it touches none).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy.ndimage import distance_transform_edt

__all__ = ["legal_moves", "refresh_moves", "labels_after_closing", "labels_after_opening", "nearest_open_cells",
           "frozen", "write_cells"]


def frozen(array: np.ndarray) -> np.ndarray:
    """A private, read-only, C-ordered copy of ``array``: a grid's ``passable``, ``cost`` and
    ``heights`` change only through its edit methods (a write into them raises), so every cache
    and search sees every edit."""
    out = np.array(array, order="C")
    out.flags.writeable = False
    return out


def write_cells(array: np.ndarray, index, value) -> None:
    """``array[index] = value`` into a grid's read-only array (its edit methods only)."""
    array.flags.writeable = True
    try:
        array[index] = value
    finally:
        array.flags.writeable = False

#: Cells around a closing edit searched for its open neighbours to still meet.
WINDOW_MARGIN = 32


@njit(cache=True)
def _moves_at(passable, wp, u):
    """The move bits of padded flat cell ``u``: E W S N, then the diagonals SE SW NE NW, each
    diagonal only when both orthogonal cells beside it are open (no corner cutting)."""
    if passable[u] == 0:
        return 0
    e = passable[u + 1] != 0
    w = passable[u - 1] != 0
    s = passable[u + wp] != 0
    no = passable[u - wp] != 0
    m = 0
    if e:
        m |= 1
    if w:
        m |= 2
    if s:
        m |= 4
    if no:
        m |= 8
    if e and s and passable[u + wp + 1] != 0:
        m |= 16
    if w and s and passable[u + wp - 1] != 0:
        m |= 32
    if e and no and passable[u - wp + 1] != 0:
        m |= 64
    if w and no and passable[u - wp - 1] != 0:
        m |= 128
    return m


@njit(cache=True)
def legal_moves(passable: np.ndarray, wp: int) -> np.ndarray:
    """Bitmask of legal 8-connected moves (no corner cutting) for each padded flat cell."""
    n = passable.size
    out = np.zeros(n, dtype=np.uint8)
    for u in range(wp, n - wp):
        out[u] = _moves_at(passable, wp, u)
    return out


@njit(cache=True)
def refresh_moves(flat, masks, wp, cells, value):
    """Set ``cells`` (``(N, 2)`` x, y) to ``value`` in the padded flat passable array and redo
    the move masks of those cells and their neighbours."""
    n = flat.size
    for i in range(cells.shape[0]):
        flat[(cells[i, 1] + 1) * wp + cells[i, 0] + 1] = value
    for i in range(cells.shape[0]):
        c = (cells[i, 1] + 1) * wp + cells[i, 0] + 1
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                u = c + dy * wp + dx
                if wp <= u < n - wp:
                    masks[u] = _moves_at(flat, wp, u)


@njit(cache=True)
def _meet_in_window(passable, x0, y0, x1, y1, starts):
    """True when every cell of ``starts`` reaches the first through open cells (4-connected)
    without leaving the window ``[x0, x1) × [y0, y1)``."""
    w, h = x1 - x0, y1 - y0
    seen = np.zeros((h, w), dtype=np.bool_)
    stack = np.empty((w * h, 2), dtype=np.int64)
    seen[starts[0, 1] - y0, starts[0, 0] - x0] = True
    stack[0, 0], stack[0, 1] = starts[0, 0], starts[0, 1]
    top = 1
    while top > 0:
        top -= 1
        x, y = stack[top, 0], stack[top, 1]
        for k in range(4):
            nx = x + (1 if k == 0 else -1 if k == 1 else 0)
            ny = y + (1 if k == 2 else -1 if k == 3 else 0)
            if x0 <= nx < x1 and y0 <= ny < y1 and passable[ny, nx] and not seen[ny - y0, nx - x0]:
                seen[ny - y0, nx - x0] = True
                stack[top, 0], stack[top, 1] = nx, ny
                top += 1
    for i in range(starts.shape[0]):
        if not seen[starts[i, 1] - y0, starts[i, 0] - x0]:
            return False
    return True


def nearest_open_cells(passable: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """For each of ``cells`` (``(N, 2)`` x, y, on the map) the nearest open cell — itself when
    open. Searches a window around them that doubles until the nearest open cell found is
    nearer than the window's edge (so it is the nearest of all): a gate costs microseconds.
    ``passable`` must hold an open cell."""
    c = np.asarray(cells, dtype=np.int64).reshape(-1, 2)
    h, w = passable.shape
    margin = 4
    while True:
        x0, y0 = np.maximum(c.min(axis=0) - margin, 0)
        x1, y1 = np.minimum(c.max(axis=0) + margin + 1, (w, h))
        window = passable[y0:y1, x0:x1]
        whole = x0 == 0 and y0 == 0 and x1 == w and y1 == h
        if window.any() or whole:
            _, (iy, ix) = distance_transform_edt(~window, return_indices=True)
            near = np.c_[ix[c[:, 1] - y0, c[:, 0] - x0] + x0, iy[c[:, 1] - y0, c[:, 0] - x0] + y0]
            if whole or np.hypot(*(near - c).T).max() <= margin:
                return near
        margin *= 2


def _open_neighbours(passable: np.ndarray, cells: np.ndarray) -> np.ndarray:
    h, w = passable.shape
    around = (cells[:, None, :] + np.array([[1, 0], [-1, 0], [0, 1], [0, -1]])[None]).reshape(-1, 2)
    inside = (around[:, 0] >= 0) & (around[:, 0] < w) & (around[:, 1] >= 0) & (around[:, 1] < h)
    around = around[inside]
    return np.unique(around[passable[around[:, 1], around[:, 0]]], axis=0)


def labels_after_closing(labels: np.ndarray, passable: np.ndarray, cells: np.ndarray) -> bool:
    """Update ``labels`` in place for ``cells`` now blocked; False when a region may have
    split (the caller rebuilds the labels)."""
    labels[cells[:, 1], cells[:, 0]] = -1
    rim = _open_neighbours(passable, cells)
    if len(rim) <= 1:
        return True
    h, w = passable.shape
    x0, y0 = np.maximum(cells.min(axis=0) - WINDOW_MARGIN, 0)
    x1, y1 = np.minimum(cells.max(axis=0) + WINDOW_MARGIN + 1, (w, h))
    for region in np.unique(labels[rim[:, 1], rim[:, 0]]):
        starts = np.ascontiguousarray(rim[labels[rim[:, 1], rim[:, 0]] == region])
        if len(starts) > 1 and not _meet_in_window(passable, int(x0), int(y0), int(x1), int(y1), starts):
            return False
    return True


def labels_after_opening(labels: np.ndarray, passable: np.ndarray, cells: np.ndarray) -> None:
    """Update ``labels`` in place for ``cells`` now open: each 4-connected group of them joins
    (and merges) the regions it touches, or becomes a region of its own."""
    cells = np.unique(cells, axis=0)
    key = {(int(x), int(y)): i for i, (x, y) in enumerate(cells)}
    group = -np.ones(len(cells), dtype=np.int64)
    for i in range(len(cells)):                   # the opened cells are few (a gate)
        if group[i] >= 0:
            continue
        group[i], todo = i, [i]
        while todo:
            j = todo.pop()
            x, y = cells[j]
            for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                k = key.get((int(nx), int(ny)))
                if k is not None and group[k] < 0:
                    group[k] = i
                    todo.append(k)
    labels[cells[:, 1], cells[:, 0]] = -1
    for g in np.unique(group):
        members = cells[group == g]
        rim = _open_neighbours(passable, members)
        touched = np.unique(labels[rim[:, 1], rim[:, 0]]) if len(rim) else np.zeros(0, dtype=labels.dtype)
        touched = touched[touched >= 0]
        if len(touched) == 0:
            label = labels.max() + 1
        else:
            label = touched[0]
            if len(touched) > 1:
                labels[np.isin(labels, touched[1:])] = label
        labels[members[:, 1], members[:, 0]] = label
