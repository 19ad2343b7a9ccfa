"""The two processors that copy a game's own bound components in and out (see ``binding``)."""

from __future__ import annotations

from collections import deque
from itertools import repeat
from operator import attrgetter

import numpy as np

from .base import NavProcessor

__all__ = ["BoundReadProcessor", "BoundWriteProcessor"]


def _read_rows(objects: list, fields: tuple[str, ...]) -> np.ndarray:
    """The fields of every object, ``(len(objects), len(fields))``: one C-level pass per field
    (``map`` over an ``attrgetter`` into ``np.fromiter``), no Python loop per object."""
    out = np.empty((len(objects), len(fields)), dtype=np.float64)
    for k, name in enumerate(fields):
        out[:, k] = np.fromiter(map(attrgetter(name), objects), dtype=np.float64, count=len(objects))
    return out


def _write_rows(objects: list, fields: tuple[str, ...], values: np.ndarray) -> None:
    """Set the fields of every object from ``values``' columns: one C-level ``map(setattr, ...)``
    pass per field (drained by a zero-length deque), no Python loop per object."""
    for k, name in enumerate(fields):
        deque(map(setattr, objects, repeat(name), values[:, k].tolist()), maxlen=0)


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
