"""Small exact-geometry helpers for the navmesh kernels (numba)."""

from __future__ import annotations

from numba import njit

__all__ = ["cross", "positive_span"]


@njit(cache=True)
def cross(ax, ay, bx, by):
    """z of the 2D cross product a × b (> 0: b is counter-clockwise of a)."""
    return ax * by - ay * bx


@njit(cache=True)
def positive_span(c0, c1, tol):
    """The ``t`` range of [0, 1] where ``c0 + t·(c1 - c0) > tol`` (lo > hi when empty)."""
    p0 = c0 > tol
    p1 = c1 > tol
    if p0 and p1:
        return 0.0, 1.0
    if not p0 and not p1:
        return 1.0, 0.0
    t = c0 / (c0 - c1)
    if t < 1e-12:
        t = 0.0
    elif t > 1 - 1e-12:
        t = 1.0
    if p0:
        return 0.0, t
    return t, 1.0
