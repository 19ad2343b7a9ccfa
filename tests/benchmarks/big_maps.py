"""1024² maps made from the benchmark maps nobody tuned for, for the big-map benchmarks.

* ``scaled(name)``: the map scaled to 1024² (nearest neighbour): the original's connectivity,
  blocky walls.
* ``joined(name)``: the map at its own resolution, mirrored into copies that fill 1024², with a
  3-cell doorway cut through each seam every 96 cells: native detail, one big region.
* ``long_pairs`` / ``short_pairs``: seeded queries in the largest region (the grid's own,
  no-corner-cutting components): the 20% longest of 300 random pairs, and pairs within 8 cells.
"""

from __future__ import annotations

import numpy as np

from rtsnav.levels import load_movingai_map
from rtsnav.systems.nav import Grid

#: Maps of ``../shared/data/maps`` not used to tune the planners (AcrosstheCape was).
HELD_OUT = ("brc202d.map", "den520d.map", "lak303d.map", "w_woundedcoast.map", "Berlin_1_256.map", "ht_chantry.map")


def scaled(name: str, size: int = 1024) -> Grid:
    """Map ``name`` scaled to ``size``² by nearest neighbour."""
    p = load_movingai_map(name).passable
    iy = np.arange(size) * p.shape[0] // size
    ix = np.arange(size) * p.shape[1] // size
    return Grid(p[np.ix_(iy, ix)].copy(), name=f"{name.removesuffix('.map')} scaled to {size}²")


def joined(name: str, size: int = 1024) -> Grid:
    """Map ``name`` at its own resolution, mirrored into copies filling ``size``², the copies
    joined by doorways through the seams (each cut as deep as the walls there are thick)."""
    p = load_movingai_map(name).passable
    h0, w0 = p.shape
    while p.shape[0] < size or p.shape[1] < size:
        p = np.block([[p, p[:, ::-1]], [p[::-1, :], p[::-1, ::-1]]])
    p = p[:size, :size].copy()
    for across_x, step in ((True, w0), (False, h0)):
        for seam in range(step, size, step):
            for at in range(48, size - 3, 96):
                for depth in range(1, 60):
                    lo, hi = seam - depth, seam + depth - 1
                    if lo < 0 or hi >= size:
                        break
                    rows, cols = (slice(at, at + 3), slice(lo, hi + 1)) if across_x else (slice(lo, hi + 1), slice(at, at + 3))
                    ends = (p[at:at + 3, lo], p[at:at + 3, hi]) if across_x else (p[lo, at:at + 3], p[hi, at:at + 3])
                    if ends[0].all() and ends[1].all():
                        p[rows, cols] = True
                        break
    return Grid(p, name=f"{name.removesuffix('.map')} joined copies at {size}²")


def _region(grid: Grid) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    labels = grid.components()
    big = np.bincount(labels[labels >= 0]).argmax()
    ys, xs = np.nonzero(labels == big)
    return labels, xs, ys


def long_pairs(grid: Grid, count: int = 60, seed: int = 1) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The ``count`` pairs farthest apart (in x + y) of ``5 × count`` seeded random pairs in the
    largest region."""
    _, xs, ys = _region(grid)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(xs), (5 * count, 2))
    spread = np.abs(xs[picks[:, 0]] - xs[picks[:, 1]]) + np.abs(ys[picks[:, 0]] - ys[picks[:, 1]])
    return [((int(xs[a]), int(ys[a])), (int(xs[b]), int(ys[b]))) for a, b in picks[np.argsort(-spread)[:count]]]


def short_pairs(grid: Grid, count: int = 300, seed: int = 5) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """``count`` seeded pairs within 8 cells of each other (each axis) in the largest region."""
    labels, xs, ys = _region(grid)
    big = labels[ys[0], xs[0]]
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        i = rng.integers(len(xs))
        x, y = xs[i] + rng.integers(-8, 9), ys[i] + rng.integers(-8, 9)
        if 0 <= x < grid.width and 0 <= y < grid.height and labels[y, x] == big and (x, y) != (xs[i], ys[i]):
            out.append(((int(xs[i]), int(ys[i])), (int(x), int(y))))
    return out
