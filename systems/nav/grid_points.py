"""Cells and points as callers hand them to the grid's queries: checked, or a ``NavError``."""

from __future__ import annotations

import math

import numpy as np

from rtsnav import checks

from .errors import NavError

__all__ = ["integer_cell", "finite_point"]


def integer_cell(cell, what: str = "cell") -> tuple[int, int]:
    """``cell`` as an ``(x, y)`` int pair (integral floats allowed), else ``NavError``. A float
    such as 3.7 is refused, never truncated."""
    if type(cell) is tuple and len(cell) == 2 and type(cell[0]) is int and type(cell[1]) is int:
        return cell                                   # the common case, checked in a few hundred ns
    try:
        if len(cell) != 2 or any(isinstance(v, (bool, np.bool_, str, bytes)) for v in cell):
            raise TypeError                           # True is no cell index, "3" no number
        fx, fy = float(cell[0]), float(cell[1])
    except (TypeError, ValueError):
        raise NavError(f"{what} must be an (x, y) pair of integers, got {cell!r}") from None
    if not (math.isfinite(fx) and math.isfinite(fy)) or fx != int(fx) or fy != int(fy):
        raise NavError(f"{what} must be an (x, y) pair of integers, got {cell!r}")
    return int(fx), int(fy)


def finite_point(point, what: str = "point", dims: int | tuple[int, ...] = (2, 3)) -> tuple[float, ...]:
    """``point`` as a tuple of finite floats with ``dims`` coordinates, else ``NavError`` saying
    what came (NaN, None, a string, the wrong length): ``rtsnav.checks.point`` with NavError."""
    return checks.point(point, what, dims=dims, error=NavError)
