"""Waypoint graphs: multi-level hierarchy (HPA*-style) and graph search kernels."""

__all__ = []
