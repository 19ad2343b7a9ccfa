"""Path smoothing: drop intermediate cells while line of sight holds (Rabin, "A* Aesthetic
Optimizations", Game Programming Gems; Botea et al. 2004 use the same pass after HPA*).

* ``fast``: one O(n) sweep — keep a cell only when the next one is not visible from the last
  kept cell.
* ``precise``: from each kept cell jump to the *farthest* visible cell (O(n²) visibility tests);
  removes more points.

With terrain costs a shortcut is taken only when every cell the segment touches costs no more
than the cheapest cell of the stretch it replaces, so the smoothed path is never costlier, as
well as never longer. Segments obey the no-corner-cutting rule (see ``Grid.line_of_sight``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..grid import line_max_cost

__all__ = ["NOT_SHARED", "smooth_fast", "smooth_precise", "smooth_precise_begin", "smooth_precise_slice", "smooth_fast_via",
           "polyline_cost", "segments_open"]


#: ``smooth_precise_slice``'s ``shared`` for a path that is not read from a goal tree.
NOT_SHARED = np.zeros(1, dtype=np.int32)


@njit(cache=True)
def _visible(passable, cost, wp, cells, a, b, min_cost):
    return line_max_cost(passable, cost, wp, cells[a, 0], cells[a, 1], cells[b, 0], cells[b, 1]) <= min_cost


@njit(cache=True)
def _cell_cost(cost, wp, cells, i):
    return cost[(cells[i, 1] + 1) * wp + cells[i, 0] + 1]


@njit(cache=True)
def smooth_fast(passable, cost, wp, cells):
    """One-sweep smoothing; returns the kept cells (``(M, 2) int32``)."""
    n = cells.shape[0]
    if n <= 2:
        return cells.copy()
    keep = np.zeros(n, dtype=np.bool_)
    keep[0] = True
    keep[n - 1] = True
    anchor = 0
    min_cost = _cell_cost(cost, wp, cells, 0)
    for i in range(1, n - 1):
        c_next = _cell_cost(cost, wp, cells, i + 1)
        c_i = _cell_cost(cost, wp, cells, i)
        stretch_min = min(min_cost, c_i, c_next)
        if not _visible(passable, cost, wp, cells, anchor, i + 1, stretch_min):
            keep[i] = True
            anchor = i
            min_cost = c_i
        else:
            min_cost = min(min_cost, c_i)
    return cells[keep].copy()


@njit(cache=True)
def smooth_precise(passable, cost, wp, cells):
    """Farthest-visible smoothing; returns the kept cells (``(M, 2) int32``)."""
    n = cells.shape[0]
    if n <= 2:
        return cells.copy()
    keep, prefix_min, state = smooth_precise_begin(n)
    smooth_precise_slice(passable, cost, wp, cells, keep, prefix_min, state, np.iinfo(np.int64).max,
                         np.zeros(1, dtype=np.int32))          # not shared (a global would be read-only)
    return cells[keep].copy()


@njit(cache=True)
def smooth_precise_begin(n):
    """Scratch of a sliced precise smoothing of ``n`` cells: ``(keep, prefix_min, state)``."""
    keep = np.zeros(n, dtype=np.bool_)
    keep[0] = True
    return keep, np.empty(n, dtype=np.float64), np.zeros(3, dtype=np.int64)


@njit(cache=True)
def smooth_precise_slice(passable, cost, wp, cells, keep, prefix_min, state, budget, shared):
    """Continue a precise smoothing until about ``budget`` cells were examined, pausing between
    two sight tests; ``state``: the anchor, the cells examined so far, the next far cell to test
    from the anchor (0: the anchor's scan has not started). True when done: ``cells[keep]`` is
    then exactly ``smooth_precise``'s answer.

    ``shared`` (int32 per padded flat cell, or a 1-element array: not used): for paths read from
    one goal tree, where every suffix of a path is the path of its first cell. The farthest
    visible cell from an anchor depends only on the cells after it, so each anchor's step along
    the path to its next kept cell is kept there (0: not known yet) and read by the next path
    through that cell: the tree's trunk is smoothed once, not once per unit."""
    n = cells.shape[0]
    anchor = state[0]
    j = state[2]
    examined = 0
    use_shared = shared.shape[0] > 1
    while anchor < n - 1:
        here = (cells[anchor, 1] + 1) * wp + cells[anchor, 0] + 1
        if j == 0:
            if use_shared and shared[here] > 0 and anchor + shared[here] <= n - 1:
                anchor += shared[here]
                keep[anchor] = True
                examined += 1
                continue
            m = np.inf                                      # a new anchor: the stretch's cheapest cells
            for k in range(anchor, n):
                c = _cell_cost(cost, wp, cells, k)
                if c < m:
                    m = c
                prefix_min[k] = m
            examined += n - anchor
            j = n - 1
        nxt = anchor + 1
        while j > anchor + 1:
            if examined >= budget:
                state[0] = anchor
                state[1] += examined
                state[2] = j
                return False
            examined += max(abs(cells[j, 0] - cells[anchor, 0]), abs(cells[j, 1] - cells[anchor, 1]))
            if _visible(passable, cost, wp, cells, anchor, j, prefix_min[j]):
                nxt = j
                break
            j -= 1
        keep[nxt] = True
        if use_shared:
            shared[here] = nxt - anchor
        anchor = nxt
        j = 0
    state[0] = anchor
    state[1] += examined
    state[2] = 0
    return True


@njit(cache=True)
def smooth_fast_via(passable, cost, wp, cells, way_idx):
    """The fast pass for uniform-cost grids, testing sight first against the path's waypoints
    (``way_idx``: indices into ``cells``, first 0 and last n-1) and walking single cells only
    where a waypoint cannot be seen. Returns the kept cells (a subsequence of ``cells``)."""
    n = cells.shape[0]
    keep = np.zeros(n, dtype=np.bool_)
    keep[0] = True
    keep[n - 1] = True
    anchor = 0
    seen = 0
    j = 1
    m = way_idx.size
    while j < m:
        t = way_idx[j]
        if t <= anchor:
            j += 1
            continue
        if _visible(passable, cost, wp, cells, anchor, t, 1.0):
            seen = t
            j += 1
            continue
        # the next waypoint hides behind a bend: from the last waypoint seen, walk cells on to
        # the farthest one in sight (what the cell-by-cell pass would keep)
        i = max(seen, anchor + 1)
        while i + 1 < t and _visible(passable, cost, wp, cells, anchor, i + 1, 1.0):
            i += 1
        keep[i] = True
        anchor = i
        seen = i
    return cells[keep].copy()


@njit(cache=True)
def polyline_cost(passable: np.ndarray, cost: np.ndarray, wp: int, cells: np.ndarray) -> float:
    """Cost of a smoothed path through ``cells`` (``(N, 2)`` x, y): Σ over its segments of the
    terrain cost walked — each cell's cost × the length of the segment inside it (``inf`` through
    a blocked cell). For one grid step that is ``path_cost``'s length × the mean of the two cells,
    so a path and its smoothing are priced alike (the smoothing passes keep only segments whose
    cells cost no more than the cheapest cell they replace: never a dearer path). The maximum
    cost a segment touched, priced before, charged a step from a cost-1 to a cost-7 cell at 7:
    a smoothed hierarchy path on mixed terrain read twice its grid path's cost."""
    total = 0.0
    for i in range(cells.shape[0] - 1):
        total += _segment_cost(passable, cost, wp, cells[i, 0], cells[i, 1], cells[i + 1, 0], cells[i + 1, 1])
    return total


@njit(cache=True)
def _segment_cost(passable, cost, wp, x0, y0, x1, y1):
    """Terrain cost of the centre-to-centre segment: Σ cell cost × length inside the cell
    (through a corner it goes from one cell to the diagonal one, as ``line_max_cost`` walks)."""
    dx, dy = x1 - x0, y1 - y0
    nx, ny = abs(dx), abs(dy)
    sx = 1 if dx > 0 else -1
    sy = 1 if dy > 0 else -1
    x, y = x0, y0
    ix, iy = 0, 0
    done, total = 0.0, 0.0                       # the share of the segment walked, its cost so far
    while ix < nx or iy < ny:
        idx = (y + 1) * wp + x + 1
        if passable[idx] == 0:
            return np.inf
        d = (1 + 2 * ix) * ny - (1 + 2 * iy) * nx   # which grid line comes next (as line_max_cost)
        t = (0.5 + ix) / nx if d <= 0 else (0.5 + iy) / ny
        total += (t - done) * cost[idx]
        done = t
        if d <= 0:
            x += sx
            ix += 1
        if d >= 0:
            y += sy
            iy += 1
    idx = (y + 1) * wp + x + 1
    if passable[idx] == 0:
        return np.inf
    total += (1.0 - done) * cost[idx]
    return total * math.hypot(dx, dy)


@njit(cache=True)
def segments_open(passable, cost, wp, kept):
    """Whether every straight step between consecutive ``kept`` cells (a smoothed path) touches
    no blocked cell and cuts no corner on the map as it is. After edits that only blocked cells
    a smoothing that passes is exactly a fresh smoothing's answer (sight lines it found blocked
    are blocked still; the ones it kept are unchanged), one that fails is smoothed again."""
    for i in range(kept.shape[0] - 1):
        if math.isinf(line_max_cost(passable, cost, wp, kept[i, 0], kept[i, 1], kept[i + 1, 0], kept[i + 1, 1])):
            return False
    return True
