"""The demo's kinds of unit: size, speed, toughness and firepower of their own.

Infantry is small and quick, tanks are wide (they use the crowd's clearance classes: a tank
does not squeeze through a gap an infantryman takes), slow and tough, scouts are fast and
fragile. A group of mixed kinds moving in formation walks at its slowest member's speed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["UnitType", "UNIT_TYPES", "unit_kinds", "spawn_cells_for_width", "spawn_ground"]


@dataclass(frozen=True)
class UnitType:
    """One kind of unit. ``toughness`` divides the damage it takes, ``power`` multiplies what it deals."""

    name: str
    radius: float        # world units
    speed: float         # world units per second
    toughness: float
    power: float


UNIT_TYPES = (UnitType("infantry", 0.35, 5.0, 1.0, 1.0),
              UnitType("tank", 0.7, 3.2, 3.0, 2.0),
              UnitType("scout", 0.3, 8.0, 0.6, 0.6))

#: Of every 20 units of a team: 14 infantry, 3 tanks, 3 scouts, interleaved so that any slice of
#: the spawn mixes them.
_PATTERN = np.array([0, 0, 1, 0, 0, 2, 0, 0, 1, 0, 0, 2, 0, 0, 1, 0, 2, 0, 0, 0])


def unit_kinds(count: int) -> np.ndarray:
    """Indexes into ``UNIT_TYPES`` for ``count`` units spawned in turn by team (unit ``i`` of
    the spawn is on team ``i % teams``: consecutive pairs share a kind so both teams get the mix)."""
    return _PATTERN[(np.arange(count) // 2) % len(_PATTERN)].astype(np.int8)


def spawn_ground(level, counts: dict[int, int]) -> dict[int, np.ndarray]:
    """Per team, cells for ``counts[team]`` units, about one a cell: its spawn cells, grown when
    the spawn is too small for the army by the open cells of its region nearest to it — of the
    cells nearer to its spawn than to any other team's (each side stays on its own ground). Ten
    thousand units dropped a dozen to a cell on the river's spawns made the first tick push them
    apart for seconds."""
    labels = level.grid.components()
    teams = list(level.spawns)
    spawn_cells = [np.asarray(level.spawns[t]) for t in teams]
    taken = np.zeros(level.grid.shape, dtype=bool)
    for cells in spawn_cells:
        taken[cells[:, 1], cells[:, 0]] = True
    ys, xs = np.nonzero((labels >= 0) & ~taken)
    centres = np.array([c.mean(axis=0) for c in spawn_cells])
    distance = np.hypot(xs[:, None] - centres[None, :, 0], ys[:, None] - centres[None, :, 1])
    owner = np.argmin(distance, axis=1) if len(xs) else np.zeros(0, dtype=np.int64)
    out = {}
    for k, (team, cells) in enumerate(zip(teams, spawn_cells)):
        need = counts.get(team, 0) - len(cells)
        regions = labels[cells[:, 1], cells[:, 0]]
        mine = np.flatnonzero((owner == k) & np.isin(labels[ys, xs], regions[regions >= 0]))
        if need <= 0 or len(mine) == 0:
            out[team] = cells
            continue
        nearest = mine[np.argsort(distance[mine, k], kind="stable")[:need]]
        out[team] = np.concatenate([cells, np.stack([xs[nearest], ys[nearest]], axis=1)])
    return out


def spawn_cells_for_width(level, radius: float, spawns: dict[int, np.ndarray] | None = None) -> dict[int, np.ndarray]:
    """Per team, the spawn cells (``spawns``, default the level's) where a body of ``radius`` (plus
    the spawn's 0.3-cell jitter) clears every wall and tree; all the team's cells where none does."""
    from rtsnav.systems.nav.flow.clearance import clearance_map

    clear = clearance_map(level.grid.passable)
    need = radius / level.grid.cell_size + 0.8          # clearance runs centre to centre: half a cell more
    out = {}
    for team, cells in (level.spawns if spawns is None else spawns).items():
        cells = np.asarray(cells)
        roomy = cells[clear[cells[:, 1], cells[:, 0]] >= need]
        out[team] = roomy if len(roomy) else cells
    return out
