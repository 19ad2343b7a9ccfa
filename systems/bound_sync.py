"""The two processors that copy a game's own bound components in and out (see ``binding``)."""

from __future__ import annotations

from operator import attrgetter

import numpy as np

from .base import NavProcessor

__all__ = ["BoundReadProcessor", "BoundWriteProcessor"]


def _read_rows(objects: list, fields: tuple[str, ...]) -> np.ndarray:
    get = attrgetter(*fields)
    return np.array([get(o) for o in objects], dtype=np.float64).reshape(len(objects), len(fields))


def _write_rows(objects: list, fields: tuple[str, ...], values: np.ndarray) -> None:
    rows = values[:, : len(fields)].tolist()
    if len(fields) == 3:
        fx, fy, fz = fields
        for o, (x, y, z) in zip(objects, rows):
            setattr(o, fx, x)
            setattr(o, fy, y)
            setattr(o, fz, z)
    else:
        fx, fy = fields
        for o, (x, y) in zip(objects, rows):
            setattr(o, fx, x)
            setattr(o, fy, y)


class BoundReadProcessor(NavProcessor):
    """Copies the game's bound positions into the agent table (once per tick)."""

    def update(self, dt: float) -> None:
        table = self.navigation.agents
        rows, positions, _ = table.external_view()
        if len(rows):
            fields = self.navigation.binding.position_fields
            values = _read_rows(positions, fields)
            table.position[rows, : len(fields)] = values


class BoundWriteProcessor(NavProcessor):
    """Writes positions (when rtsnav moves the bodies) and velocities back to the game's components."""

    def update(self, dt: float) -> None:
        nav = self.navigation
        table, binding = nav.agents, nav.binding
        rows, positions, velocities = table.external_view()
        if not len(rows):
            return
        if nav.movement == "rtsnav":
            _write_rows(positions, binding.position_fields, table.position[rows])
        if velocities:
            with_velocity = table.external_with_velocity
            _write_rows(velocities, binding.velocity_fields, table.velocity[rows[with_velocity]])
