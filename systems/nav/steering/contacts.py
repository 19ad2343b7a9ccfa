"""Contact resolution: agents that end a tick overlapping are pushed apart.

ORCA keeps agents of different groups apart; mates are steered by flocking, whose separation is
a soft force that a group pressed from behind or from the front (two armies meeting) can
overcome. As in Detour's ``dtCrowd`` ("handle collisions"), a position pass after movement
moves each overlapping pair apart (Gauss-Seidel passes over a pair list collected once per
tick, until none is left, at most ``CONTACT_ITERATIONS``); a displacement that would enter a blocked cell is dropped on that axis,
so nobody is pushed into a wall.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..grid import GridView
from .proximity_grid import build_proximity_grid, cell_window

__all__ = ["resolve_contacts", "contact_pairs", "CONTACT_ITERATIONS", "RESOLVE_FACTOR", "CONTACT_MARGIN", "SLACK",
           "PAIR_SKIN"]

#: Passes per tick at most (Detour uses 4; a unit file pressed through a one-cell gap needs ~16 to
#: stay clear of overlaps, a dense army gains nothing after ~4).
CONTACT_ITERATIONS = 24
#: Pairs are pushed to this multiple of the sum of their radii (a little slack, so that what the
#: passes leave of a squeeze stays clear of an overlap).
CONTACT_MARGIN = 1.05
#: Penetrations under this fraction of the contact distance count as resolved (so passes stop
#: once a squeeze is undone instead of chasing rounding).
SLACK = 0.02
#: Of two walking mates, the one further from the goal takes up to 0.5 + this of the push (a
#: queue's pressure mostly stays at its back; at a gap's mouth the nearer unit goes on instead of
#: an arch of equals forming). Kept mild: an even split settles a dense squeeze in fewer passes.
RANK_WEIGHT = 0.25
#: A settled unit takes 0.5 + this of the push from a walking mate: it makes room and its slot
#: pulls it back.
SETTLED_WEIGHT = 0.45
#: How sharply the rank decides who gives way (in units of the pair's contact distance).
RANK_SCALE = 0.25
#: Pairs are collected once per tick out to the contact distance plus this multiple of the largest
#: radius, so that pushes during the passes bring nobody into contact unseen.
PAIR_SKIN = 0.5
#: Share of the penetration removed per pass, split between the pair (Detour: 0.7).
RESOLVE_FACTOR = 1.0


def resolve_contacts(position: np.ndarray, radius: np.ndarray, rank: np.ndarray, group: np.ndarray,
                     active: np.ndarray, view: GridView) -> int:
    """Push apart ``active`` agents whose centres are closer than ``CONTACT_MARGIN`` × the sum of
    their radii; ``position`` (``(n, 3)`` or ``(n, 2)``) is updated in place. Of two mates (same
    ``group``), the one of higher ``rank`` (its distance to go; ``inf`` for units standing) moves
    more; blocked cells of ``view`` (``Grid.view``) stop a push. Returns the pairs in contact in
    the first pass."""
    if not active.any():
        return 0
    skin = float(PAIR_SKIN * radius[active].max())
    reach = float(2.0 * CONTACT_MARGIN * radius[active].max()) + skin
    first, contacts = contact_pairs(position, radius, active, reach, skin)
    return int(_resolve(position, radius, rank, group, first, contacts, view))


@njit(cache=True)
def contact_pairs(position, radius, active, cell, skin):
    """Pairs ``(i, j)``, ``i < j``, of ``active`` agents closer than ``CONTACT_MARGIN`` × the sum
    of their radii plus ``skin``, ordered by ``i``: found once per tick with one spatial hash
    (Detour collects its neighbours once too); the skin keeps pairs that the passes' pushes bring
    into contact. Returns ``(first, other)``: ``first[p] < other[p]``."""
    n = position.shape[0]
    pos2 = np.empty((n, 2))
    pos2[:, 0] = position[:, 0]
    pos2[:, 1] = position[:, 1]
    order, starts, ox, oy, cols, rows = build_proximity_grid(pos2, active, cell)
    first = np.empty(max(8 * n, 16), dtype=np.int64)
    other = np.empty_like(first)
    m = 0
    for i in range(n):
        if not active[i]:
            continue
        r0, r1, c0, c1 = cell_window(pos2[i, 0], pos2[i, 1], ox, oy, cell, cols, rows)
        for row in range(r0, r1 + 1):
            for col in range(c0, c1 + 1):
                k = row * cols + col
                for e in range(starts[k], starts[k + 1]):
                    j = order[e]
                    if j <= i:
                        continue
                    near = CONTACT_MARGIN * (radius[i] + radius[j]) + skin
                    dx = pos2[i, 0] - pos2[j, 0]
                    dy = pos2[i, 1] - pos2[j, 1]
                    if dx * dx + dy * dy >= near * near:
                        continue
                    if m == first.shape[0]:                       # grow (rare: a very dense tick)
                        first = np.concatenate((first, np.empty_like(first)))
                        other = np.concatenate((other, np.empty_like(other)))
                    first[m] = i
                    other[m] = j
                    m += 1
    return first[:m], other[:m]


@njit(cache=True)
def _resolve(position, radius, rank, group, first, other, view):
    """Gauss-Seidel passes over the pair list (each pair moved at once: converges in far fewer
    passes than summing displacements). After the first pass only pairs with an agent moved in
    the previous one are looked at: the rest cannot have come into contact."""
    passable, cell_size, origin_x, origin_y, _, _ = view
    settled_weight, rank_weight, rank_scale = SETTLED_WEIGHT, RANK_WEIGHT, RANK_SCALE
    margin, factor = CONTACT_MARGIN, RESOLVE_FACTOR
    n = position.shape[0]
    moved = np.ones(n, dtype=np.bool_)
    now = np.zeros(n, dtype=np.bool_)
    limit = 0.49 * cell_size                                # never jump a cell in one push
    first_pairs = 0
    for it in range(CONTACT_ITERATIONS):
        now[:] = False
        pairs = 0
        for p in range(first.shape[0]):
            i = first[p]
            j = other[p]
            if not (moved[i] or moved[j]):
                continue
            reach = margin * (radius[i] + radius[j])
            dx = position[i, 0] - position[j, 0]
            dy = position[i, 1] - position[j, 1]
            d2 = dx * dx + dy * dy
            if d2 >= reach * reach:
                continue
            d = math.sqrt(d2)
            if reach - d < SLACK * reach:                   # settled to within the slack
                continue
            pairs += 1
            give_i = _share(rank[i], rank[j], group[i] == group[j], settled_weight, rank_weight,
                            rank_scale * reach)
            total = factor * (reach - d)
            if d > 1e-9:
                ux = dx / d
                uy = dy / d
            else:                                           # exactly on top: split along x
                ux = 1.0
                uy = 0.0
            si = min(give_i * total, limit)
            sj = min((1.0 - give_i) * total, limit)
            _push(position, i, ux * si, uy * si, passable, cell_size, origin_x, origin_y)
            _push(position, j, -ux * sj, -uy * sj, passable, cell_size, origin_x, origin_y)
            now[i] = True
            now[j] = True
        if it == 0:
            first_pairs = pairs
        if pairs == 0:
            break
        moved[:] = now
    return first_pairs


@njit(cache=True, inline="always")
def _share(a, b, mates, settled_weight, rank_weight, scale):
    """Agent ``a``'s share of a push between ranks ``a`` and ``b``: between mates the one
    further from its goal gives way (a queue's pressure does not pass forward; at a gap's mouth
    the nearer unit goes on instead of an arch forming) and a settled unit makes room."""
    if not mates or (math.isinf(a) and math.isinf(b)):
        return 0.5
    if math.isinf(a):
        return 0.5 + settled_weight
    if math.isinf(b):
        return 0.5 - settled_weight
    return 0.5 + rank_weight * math.tanh((a - b) / scale)


@njit(cache=True, inline="always")
def _push(position, i, dx, dy, passable, cell_size, origin_x, origin_y):
    """Move agent ``i`` by ``(dx, dy)``, dropping an axis whose step would enter a blocked cell."""
    h, w = passable.shape
    x = position[i, 0]
    y = position[i, 1]
    cy = int(math.floor((y - origin_y) / cell_size))
    nx = x + dx
    ncx = int(math.floor((nx - origin_x) / cell_size))
    if 0 <= ncx < w and 0 <= cy < h and passable[cy, ncx]:
        x = nx
    cx = int(math.floor((x - origin_x) / cell_size))
    ny = y + dy
    ncy = int(math.floor((ny - origin_y) / cell_size))
    if 0 <= cx < w and 0 <= ncy < h and passable[ncy, cx]:
        y = ny
    position[i, 0] = x
    position[i, 1] = y


