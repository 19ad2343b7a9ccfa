"""The demo's kinds of unit: size, speed, toughness and firepower of their own.

Infantry is small and quick, tanks are wide (they use the crowd's clearance classes: a tank
does not squeeze through a gap an infantryman takes), slow and tough, scouts are fast and
fragile. A group of mixed kinds moving in formation walks at its slowest member's speed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["UnitType", "UNIT_TYPES", "unit_kinds", "spawn_cells_for_width"]


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


def spawn_cells_for_width(level, radius: float) -> dict[int, np.ndarray]:
    """Per team, the spawn cells where a body of ``radius`` (plus the spawn's 0.3-cell jitter)
    clears every wall and tree; all the team's spawn cells where none does."""
    from rtsnav.systems.nav.flow.clearance import clearance_map

    clear = clearance_map(level.grid.passable)
    need = radius / level.grid.cell_size + 0.8          # clearance runs centre to centre: half a cell more
    out = {}
    for team, cells in level.spawns.items():
        cells = np.asarray(cells)
        roomy = cells[clear[cells[:, 1], cells[:, 0]] >= need]
        out[team] = roomy if len(roomy) else cells
    return out
