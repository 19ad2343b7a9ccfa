"""Where agents stand against the map: units a closed gate walled in step out to the nearest
open cell (``free_walled_in``), and which units a set of cells holds (``occupants``)."""

from __future__ import annotations

import numpy as np

from rtsnav import checks

from ..errors import NavError
from ..grid import Grid
from ..grid_edits import nearest_open_cells
from .state import CrowdState

__all__ = ["free_walled_in", "occupants"]


def free_walled_in(agents: CrowdState, grid: Grid, ids: np.ndarray) -> np.ndarray:
    """Agents among ``ids`` whose centre is in a blocked cell (a gate closed on them) step to
    the nearest point of the nearest open cell (``nearest_open_cells``); returns those moved."""
    s = agents
    ids = np.asarray(ids, dtype=np.int64)
    if len(ids) == 0:
        return ids
    cs, origin = grid.cell_size, np.asarray(grid.origin)
    c = np.floor((s.position[ids, :2] - origin) / cs).astype(np.int64)
    c[:, 0] = np.clip(c[:, 0], 0, grid.width - 1)
    c[:, 1] = np.clip(c[:, 1], 0, grid.height - 1)
    walled = ~grid.passable[c[:, 1], c[:, 0]]
    ids, c = ids[walled], c[walled]
    if len(ids) == 0 or not grid.passable.any():
        return ids[:0]
    inset = 0.25 * cs                     # spread a packed gate's units over the cell, not one point
    lo = origin + nearest_open_cells(grid.passable, c) * cs + inset
    s.position[ids, :2] = np.clip(s.position[ids, :2], lo, lo + cs - 2 * inset)
    s.velocity[ids] = 0.0
    return ids


def occupants(agents: CrowdState, grid: Grid, cells: np.ndarray) -> np.ndarray:
    """Ids of live agents whose body (centre ± radius) overlaps any of ``cells`` (``(N, 2)``):
    a game may refuse to close a gate while this is not empty."""
    s = agents
    n = s.size
    cells = checks.cells(cells, "cells", grid.width, grid.height, error=NavError)
    live = np.flatnonzero(s.alive[:n] & ~s.obstacle[:n])
    if len(cells) == 0 or len(live) == 0:
        return live[:0]
    cs, origin = grid.cell_size, np.asarray(grid.origin)
    lo = origin + cells * cs                                    # (N, 2) cell corners
    p = s.position[live, :2]
    r = s.agent_params[live, 1]
    # distance from each agent centre to each cell's square
    d = np.maximum(np.maximum(lo[None, :, :] - p[:, None, :], p[:, None, :] - (lo[None, :, :] + cs)), 0.0)
    inside = np.hypot(d[..., 0], d[..., 1]) < r[:, None]
    return live[inside.any(axis=1)]
