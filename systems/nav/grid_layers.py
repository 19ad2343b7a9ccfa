"""Navigation layers on a grid (Godot's region ``navigation_layers``): which cells an agent of a
given layer mask may walk, as a derived grid that follows the base grid's edits."""

from __future__ import annotations

from typing import Any

import numpy as np

from rtsnav import checks

from .errors import NavError
from .grid_edits import frozen, write_cells

Grid = Any  # a ``grid.Grid`` (not imported: grid imports this module)

__all__ = ["set_cell_layers", "masked_grid", "effective_mask"]


def set_cell_layers(grid: Grid, cells: np.ndarray, layers: int) -> None:
    """``Grid.set_layers``' work: checks, writes the layer bits, records the edit."""
    if isinstance(layers, bool) or not isinstance(layers, (int, np.integer)) or not 0 <= layers < 2 ** 32:
        raise NavError(f"layers must be an int bit mask 0 .. 2**32 - 1, got {layers!r}")
    c = checks.cells(cells, "cells", grid.width, grid.height, error=NavError)
    if len(c) == 0:
        return                                       # nothing edited: the version stays
    if grid.layers is None:
        object.__setattr__(grid, "layers", frozen(np.ones(grid.shape, dtype=np.uint32)))   # past Grid's guard
    write_cells(grid.layers, (c[:, 1], c[:, 0]), np.uint32(layers))
    grid._invalidate(c)


def masked_grid(grid: Grid, navigation_layers: int) -> Grid:
    """``Grid.masked``' work: ``grid`` itself when the mask takes every open cell, else the
    derived grid of that mask (made once, brought up to date with the edits since)."""
    if (isinstance(navigation_layers, (bool, np.bool_)) or not isinstance(navigation_layers, (int, np.integer))
            or not 0 <= navigation_layers <= 0xFFFFFFFF):
        raise NavError(f"navigation_layers must be an int bit mask 0 .. 2**32 - 1, got {navigation_layers!r}")
    mask = effective_mask(grid, int(navigation_layers))
    if grid.layers is None and mask & 1:
        return grid
    # the answer is kept per grid version: planners and path following ask for every agent's
    # mask each tick, and the check below reads every cell
    answered_at, answer, derived = grid._masked.get(mask, (-1, None, None))
    if answered_at == grid.version:
        return answer
    allowed = np.zeros(grid.shape, dtype=bool) if grid.layers is None else (grid.layers & np.uint32(mask)) != 0
    if allowed[grid.passable].all():
        grid._masked[mask] = (grid.version, grid, derived)
        return grid
    if derived is None:
        derived = type(grid)(grid.passable & allowed, np.where(grid.passable, grid.cost, 1.0), grid.heights,
                             cell_size=grid.cell_size, origin=grid.origin, name=f"{grid.name}[layers {mask:#x}]")
    else:
        wanted = grid.passable & allowed
        for value in (True, False):          # only the cells that changed: the derived grid's edit log follows
            changed = np.argwhere(wanted != derived.passable)
            changed = changed[wanted[changed[:, 0], changed[:, 1]] == value]
            if len(changed):
                derived.set_passable(changed[:, ::-1], value)
        if not np.array_equal(derived.cost, grid.cost):
            write_cells(derived.cost, slice(None), grid.cost)
            derived._invalidate(None)
    grid._masked[mask] = (grid.version, derived, derived)
    return derived


def effective_mask(grid: Grid, navigation_layers: int) -> int:
    """``navigation_layers`` less the bits no open cell of ``grid`` is on: masks that see the same
    cells share one derived grid (and one navmesh, hierarchy, …). A game using high bits as team
    flags gave each of 100 masks its own copy of the map and its own bakes."""
    if grid.layers is None:
        return int(navigation_layers) & 1
    used_at, used = grid._masked.get(-1, (-1, 0))
    if used_at != grid.version:
        used = int(np.bitwise_or.reduce(grid.layers[grid.passable], initial=np.uint32(0)))
        grid._masked[-1] = (grid.version, used)
    return int(navigation_layers) & used
