"""Exceptions raised by the navigation core for bad input (never for "no path")."""

from __future__ import annotations

__all__ = ["NavError"]


class NavError(ValueError):
    """Bad input to the navigation core: wrong array shape or dtype, NaN or negative costs,
    out-of-bounds coordinates, unknown method names.

    An unreachable goal is *not* an error: queries return a result with ``found = False``.
    """
