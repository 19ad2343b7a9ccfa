"""Steering and movement kernels for crowds (numba over struct-of-arrays)."""

__all__ = []
