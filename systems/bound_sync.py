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
    """Copies the game's bound positions into the crowd (once per tick: a game may teleport)."""

    def update(self, dt: float) -> None:
        ids, positions, _, _ = self.navigation.external_view()
        if len(ids):
            fields = self.navigation.binding.position_fields
            self.navigation.crowd.agents.position[ids, : len(fields)] = _read_rows(positions, fields)


class BoundWriteProcessor(NavProcessor):
    """Writes positions (when rtsnav moves the bodies) and velocities back to the game's components."""

    def update(self, dt: float) -> None:
        nav = self.navigation
        ids, positions, velocities, has_velocity = nav.external_view()
        if not len(ids):
            return
        state = nav.crowd.agents
        if nav.movement == "rtsnav":
            _write_rows(positions, nav.binding.position_fields, state.position[ids])
        if velocities:
            _write_rows(velocities, nav.binding.velocity_fields, state.velocity[ids[has_velocity]])
