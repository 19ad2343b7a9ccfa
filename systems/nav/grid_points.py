"""Cells and points as callers hand them to the grid's queries: checked, or a ``NavError``."""

from __future__ import annotations

import math

import numpy as np

from rtsnav import checks

from .errors import NavError

__all__ = ["integer_cell", "integer_cells", "finite_point", "checked_heights", "share_inside_box"]


#: Cells beyond this are refused, never wrapped (int64 arithmetic on them would overflow).
_CELL_LIMIT = 2**62


def integer_cell(cell, what: str = "cell") -> tuple[int, int]:
    """``cell`` as an ``(x, y)`` int pair (integral floats allowed) within ±2**62, else
    ``NavError``. A float such as 3.7 is refused, never truncated."""
    if type(cell) is tuple and len(cell) == 2 and type(cell[0]) is int and type(cell[1]) is int \
            and -_CELL_LIMIT < cell[0] < _CELL_LIMIT and -_CELL_LIMIT < cell[1] < _CELL_LIMIT:
        return cell                                   # the common case, checked in a few hundred ns
    try:
        if len(cell) != 2 or any(isinstance(v, (bool, np.bool_, str, bytes)) for v in cell):
            raise TypeError                           # True is no cell index, "3" no number
        fx, fy = float(cell[0]), float(cell[1])
    except (TypeError, ValueError):
        raise NavError(f"{what} must be an (x, y) pair of integers, got {cell!r}") from None
    if not (math.isfinite(fx) and math.isfinite(fy)) or fx != int(fx) or fy != int(fy) \
            or not (abs(fx) < _CELL_LIMIT and abs(fy) < _CELL_LIMIT):
        raise NavError(f"{what} must be an (x, y) pair of integers within ±2**62, got {cell!r}")
    return int(fx), int(fy)


def integer_cells(cells, what: str = "cells") -> np.ndarray:
    """``cells`` as an ``(N, 2)`` int64 array of ``(x, y)`` cells, on the grid or off it (one
    pair alone is one row; integral floats allowed), else ``NavError``: 3.7, NaN, True or text
    are refused, never truncated, and a cell beyond ±2**62 is refused, never wrapped."""
    return checks.cells(cells, what, 0, 0, error=NavError, on_grid=False)


def finite_point(point, what: str = "point", dims: int | tuple[int, ...] = (2, 3)) -> tuple[float, ...]:
    """``point`` as a tuple of finite floats with ``dims`` coordinates, else ``NavError`` saying
    what came (NaN, None, a string, the wrong length): ``rtsnav.checks.point`` with NavError."""
    return checks.point(point, what, dims=dims, error=NavError)


def checked_heights(heights, shape: tuple[int, int]) -> np.ndarray:
    """``heights`` as a C-ordered float32 ``[H, W]`` array of finite values, else ``NavError``."""
    try:
        arr = checks.float_array(heights)
    except (TypeError, ValueError, OverflowError):
        raise NavError(f"heights must be an array of numbers, got {heights!r}") from None
    if arr.shape != shape:
        raise NavError(f"heights shape {arr.shape} != passable shape {shape}")
    bad = ~np.isfinite(arr) | (np.abs(arr) > float(np.finfo(np.float32).max))       # beyond float32: inf once stored
    if bad.any():
        y, x = np.argwhere(bad)[0]
        raise NavError(f"height at cell (x={x}, y={y}) is not finite (or beyond float32): {arr[y, x]}")
    return np.ascontiguousarray(arr, dtype=np.float32)


def share_inside_box(a, b, low, high) -> float:
    """How much of the segment ``a -> b`` (0..1 of it, from ``a``; xy only) runs before it
    leaves the box ``low .. high``: a ray cast at a far end is traced on that part only, where
    its fractions keep their resolution."""
    share = 1.0
    for k in (0, 1):
        d = float(b[k]) - float(a[k])
        if d != 0.0:
            share = min(share, ((float(high[k]) if d > 0 else float(low[k])) - float(a[k])) / d)
    return max(0.0, share)
