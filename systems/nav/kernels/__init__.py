"""Kernels shared by the planners, written once: the binary heap, parent chains, CSR Dijkstra and
the grid (bucket-queue) Dijkstra. Nothing here imports another part of ``systems/nav`` but
``grid`` helpers, so every planner folder may use them without an import cycle."""

__all__: list[str] = []
