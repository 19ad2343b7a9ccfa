"""Contact resolution: agents that end a tick overlapping are pushed apart.

ORCA keeps agents of different groups apart; mates are steered by flocking, whose separation is
a soft force that a group pressed from behind or from the front (two armies meeting) can
overcome. As in Detour's ``dtCrowd`` ("handle collisions"), a position pass after movement
moves each overlapping pair apart (Gauss-Seidel passes over a pair list collected once per
tick, until none is left, at most ``CONTACT_ITERATIONS``); a displacement that would enter a
blocked cell is dropped on that axis, so nobody is pushed into a wall.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..grid import GridView
from .movement import push_off_walls
from .proximity_grid import bounding_box, build_proximity_grid, cell_window

__all__ = ["resolve_contacts", "HELD_UP", "contact_pairs", "CONTACT_ITERATIONS", "RESOLVE_FACTOR", "CONTACT_MARGIN", "SLACK",
           "PAIR_SKIN", "PAIR_VISITS", "MIN_PASSES"]

#: Passes per tick at most (Detour uses 4; at a one-cell gap 24 were not always enough to keep a
#: pressed file clear of overlaps, 32 were; a dense army gains nothing after ~4).
CONTACT_ITERATIONS = 48
#: Pair visits per tick after the first ``MIN_PASSES`` passes: a crowd of a few hundred gets all
#: its passes, a dense army of thousands Detour's few (its residual squeeze gains nothing from
#: more) at a bounded cost.
PAIR_VISITS = 60_000
MIN_PASSES = 4
#: Pairs are pushed to this multiple of the sum of their radii (a little slack, so that what the
#: passes leave of a squeeze stays clear of an overlap).
CONTACT_MARGIN = 1.05
#: Penetrations under this fraction of the contact distance count as resolved (so passes stop
#: once a squeeze is undone instead of chasing rounding).
SLACK = 0.02
#: Of two walking mates in the open, the one further from the goal takes 0.5 + this of the push.
#: Even (0): a rank-weighted share (0.25: the rear unit took 75%) piled a big army's pressure onto
#: its back — a 1,000-unit leader group leaving the river's east bank stacked 9–22 pairs under
#: 0.9 × against the map's edge over six spawns, some under 0.5 ×; evenly 1–4 and none. At a gap's
#: mouth (``tight``) the rank still decides, firmly (below).
RANK_WEIGHT = 0.0
#: Near walls (``tight`` agents) the share leans harder on the rank: at a gap's mouth the unit in
#: front goes on (an arch of equals jams it); in the open the even share above spreads a press
#: (the firm one stacked a 2,000-unit army: 314 pairs under 0.9 × at the worst tick against 27).
TIGHT_RANK_WEIGHT = 0.45
TIGHT_RANK_SCALE = 0.1
#: A settled unit takes 0.5 + this of the push from a walking mate: it makes room and its slot
#: pulls it back.
SETTLED_WEIGHT = 0.45
#: Ranks from this value up mark walkers held up by the crowd: they make room for moving units
#: but still push standing ones aside.
HELD_UP = 1e29
#: How sharply the rank decides who gives way (in units of the pair's contact distance).
RANK_SCALE = 0.25
#: Pairs are collected once per tick out to the contact distance plus this multiple of the largest
#: radius, so that pushes during the passes bring nobody into contact unseen.
PAIR_SKIN = 0.5
#: Two agents in contact whose headings' cosine is below minus ``OPPOSED`` each step ``SLIDE``
#: × the penetration to their right in each of the first ``SLIDE_PASSES`` passes.
OPPOSED = 0.5
SLIDE = 0.5
#: Rounds of pair collection and passes per tick at most: another round while pairs closer than
#: ``DEEP`` × the sum of their radii are left (a squeeze whose pushes hit ``MAX_SHIFT``).
CONTACT_ROUNDS = 8
DEEP = 0.9
#: The contact hash has at most about this many buckets per agent (its box is coarsened beyond).
BUCKETS_PER_AGENT = 4
#: Crowds of more bodies than this get ``BIG_CROWD_ROUNDS`` (each round's pair collection costs
#: ~1 ms per 1,000 packed bodies).
ROUNDS_UP_TO = 3000
BIG_CROWD_ROUNDS = 2
#: After a press, pairs closer than this × the sum of their radii are pushed to it (passes at most).
FLOOR = 0.6
FLOOR_PASSES = 4
#: The most a round moves an agent, in its radii: half the pair skin, so no contact goes unseen (a
#: shove, not a jump through a crowd).
MAX_SHIFT = 0.25
#: Passes that slide; the rest only separate (so sliding never leaves an overlap behind).
SLIDE_PASSES = CONTACT_ITERATIONS // 2
#: Share of the penetration removed per pass, split between the pair (Detour: 0.7).
RESOLVE_FACTOR = 1.0


def resolve_contacts(position: np.ndarray, radius: np.ndarray, rank: np.ndarray, group: np.ndarray,
                     active: np.ndarray, view: GridView, mates: bool = True,
                     heading: np.ndarray | None = None, tight: np.ndarray | None = None,
                     layers: tuple[np.ndarray, np.ndarray] | None = None,
                     spans: tuple[np.ndarray, np.ndarray] | None = None) -> int:
    """Push apart ``active`` agents whose centres are closer than ``CONTACT_MARGIN`` × the sum of
    their radii; ``position`` (``(n, 3)`` or ``(n, 2)``) is updated in place. Two walking mates
    (same ``group``) share a push evenly in the open; near walls (``tight``) the one of higher
    ``rank`` (its distance to go; ``inf`` for units standing) moves more; a unit of negative ``rank`` is held (paused) and never pushed; a walker held up by the
    crowd (``rank`` ≥ ``HELD_UP``) makes room for moving units but not for standing ones; blocked cells of ``view`` (``Grid.view``) stop a push. ``mates=False``: only pairs of
    different groups (a few, where groups meet). ``tight`` (bool per agent): near walls, where the
    rank decides. ``heading`` (``(n, 2)``, unit or zero): where
    each agent wants to go; two agents in contact heading opposite ways also slide to their
    right, past each other (a file meeting a file in a passage turns into two lanes instead of
    a plug). ``layers``: ``(avoidance_layers, avoidance_mask)`` per agent: a pair neither of which
    avoids the other's layers is no contact (they pass through each other, as avoidance lets them).
    ``spans``: ``(feet z, body height)`` per agent: bodies whose height ranges miss are no contact
    (a unit on a bridge deck and one on the road under it). Returns the pairs in contact in the
    first pass."""
    if not active.any():
        return 0
    if heading is None:
        heading = np.zeros((len(radius), 2))
    if tight is None:
        tight = np.zeros(len(radius), dtype=np.bool_)
    widest = float(radius[active].max()) if active.any() else 0.0
    if widest <= 0.0:
        return 0                                   # points without a body never touch
    skin = float(PAIR_SKIN * widest)
    reach = float(2.0 * CONTACT_MARGIN * widest) + skin
    heading = np.ascontiguousarray(heading, dtype=np.float64)
    found = 0
    # each round's pair list holds while nobody moves more than the skin allows (``MAX_SHIFT``);
    # a dense squeeze that needs more gets another round from where the last one left it
    involved = active
    everyone = None
    # big crowds get fewer rounds (each collects every pair again), then the floor pass
    rounds = CONTACT_ROUNDS if int(active.sum()) <= ROUNDS_UP_TO else BIG_CROWD_ROUNDS
    for round_ in range(rounds):
        order, first, other = contact_pairs(position, radius, involved, reach, skin, None if mates else group)
        if layers is not None and len(first):
            a, b = order[first], order[other]
            meet = ((layers[1][a] & layers[0][b]) != 0) | ((layers[1][b] & layers[0][a]) != 0)
            first, other = first[meet], other[meet]
        if spans is not None and len(first):
            a, b = order[first], order[other]
            foot, tall = spans
            meet = (foot[b] <= foot[a] + tall[a]) & (foot[a] <= foot[b] + tall[b])
            first, other = first[meet], other[meet]
        if round_ == 0:
            everyone = (order, first, other)
        pairs, deep = _resolve_in_bucket_order(position, radius, rank, group, heading, tight, order, first, other,
                                               view)
        found = found if round_ else int(pairs)
        if not deep.any():
            break
    if everyone is not None and round_ > 0:
        # a press that took more than one round: no pair of the tick's list stays stacked (closer
        # than FLOOR × its contact distance), whatever the caps — an even push, walls respected
        _floor_pass(position, radius, *everyone, view)
    return found


def contact_pairs(position: np.ndarray, radius: np.ndarray, active: np.ndarray, cell: float,
                  skin: float, group: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs of ``active`` agents closer than ``CONTACT_MARGIN`` × the sum of their radii plus
    ``skin`` (``cell`` ≥ that distance), each once: found once per tick (Detour collects its
    neighbours once too); the skin keeps pairs that the passes' pushes bring into contact.
    With ``group``, only pairs of different groups. Returns ``(order, first, other)``: the active
    agents in spatial-hash order, and each pair as two positions in ``order`` (neighbours sit
    close together in it)."""
    pos2 = np.ascontiguousarray(position[:, :2], dtype=np.float64)
    count = int(active.sum())
    capacity = max(4 * count, 64)
    # buckets follow the agents, not the area they span: a ring of units across a huge map gets
    # buckets of ~4 agents' share of its box (a dense hash of the box cost ~6 ms at 5,000 agents)
    min_x, min_y, max_x, max_y = bounding_box(pos2, active)
    if min_x <= max_x:
        cell = max(cell, math.sqrt((max_x - min_x + cell) * (max_y - min_y + cell) / (BUCKETS_PER_AGENT * count)))
    cell = max(cell, 1e-6)                         # bodies of radius 0 on one spot: no zero-sized buckets
    cross = group is not None
    groups = np.ascontiguousarray(group if group is not None else np.zeros(len(pos2), dtype=np.int64))
    while True:
        order, first, other, m = _collect_pairs(pos2, radius, active, cell, skin, capacity, groups, cross)
        if m <= capacity:
            return order, first[:m], other[:m]
        capacity = m                                        # a very dense tick: once more, sized


@njit(cache=True)
def _collect_pairs(pos2, radius, active, cell, skin, capacity, group, cross):
    """``contact_pairs``' kernel: fills at most ``capacity`` pairs and returns how many there are
    (more than ``capacity``: call again with that much room)."""
    order, starts, ox, oy, cols, rows = build_proximity_grid(pos2, active, cell)
    sx = pos2[order, 0]                                     # bucket order: neighbours are contiguous
    sy = pos2[order, 1]
    sr = radius[order]
    sg = group[order]
    first = np.empty(capacity, dtype=np.int64)
    other = np.empty(capacity, dtype=np.int64)
    m = 0
    for k in range(order.shape[0]):
        xi = sx[k]
        yi = sy[k]
        ri = sr[k]
        r0, r1, c0, c1 = cell_window(xi, yi, ox, oy, cell, cols, rows)
        for row in range(r0, r1 + 1):
            # the window's buckets in one row are one run of the bucket order; each pair once
            for e in range(max(starts[row * cols + c0], k + 1), starts[row * cols + c1 + 1]):
                if cross and sg[e] == sg[k]:
                    continue
                near = CONTACT_MARGIN * (ri + sr[e]) + skin
                dx = xi - sx[e]
                dy = yi - sy[e]
                if dx * dx + dy * dy >= near * near:
                    continue
                if m < capacity:
                    first[m] = k
                    other[m] = e
                m += 1
    return order, first, other, m


@njit(cache=True)
def _resolve_in_bucket_order(position, radius, rank, group, heading, tight, order, first, other, view):
    """``_resolve`` on copies in bucket order (neighbours close in memory), written back."""
    m = order.shape[0]
    pos = np.empty((m, 2))
    for k in range(m):
        pos[k, 0] = position[order[k], 0]
        pos[k, 1] = position[order[k], 1]
    pairs, deep_local = _resolve(pos, radius[order], rank[order], group[order], heading[order], tight[order], first,
                                 other, view)
    deep = np.zeros(position.shape[0], dtype=np.bool_)
    for k in range(m):
        deep[order[k]] = deep_local[k]
    for k in range(m):
        position[order[k], 0] = pos[k, 0]
        position[order[k], 1] = pos[k, 1]
    return pairs, deep


@njit(cache=True)
def _resolve(position, radius, rank, group, heading, tight, first, other, view):
    """Gauss-Seidel passes over the pair list (each pair moved at once: converges in far fewer
    passes than summing displacements). After the first pass only pairs with an agent moved in
    the previous one are looked at: the rest cannot have come into contact."""
    passable, cell_size, origin_x, origin_y, _, _ = view
    settled_weight, rank_weight, rank_scale = SETTLED_WEIGHT, RANK_WEIGHT, RANK_SCALE
    margin, factor = CONTACT_MARGIN, RESOLVE_FACTOR
    n = position.shape[0]
    start = position.copy()
    moved = np.ones(n, dtype=np.bool_)
    now = np.zeros(n, dtype=np.bool_)
    limit = 0.49 * cell_size                                # never jump a cell in one push
    inv_cell = 1.0 / cell_size
    first_pairs = 0
    last_pairs = 0
    visits = 0
    for it in range(CONTACT_ITERATIONS):
        now[:] = False
        pairs = 0
        if it >= MIN_PASSES and visits > PAIR_VISITS:
            break
        for p in range(first.shape[0]):
            i = first[p]
            j = other[p]
            if not (moved[i] or moved[j]):
                continue
            visits += 1
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
            if tight[i] or tight[j]:                        # near walls: the front goes first, firmly
                give_i = _share(rank[i], rank[j], group[i] == group[j], settled_weight, TIGHT_RANK_WEIGHT,
                                TIGHT_RANK_SCALE * reach)
            else:
                give_i = _share(rank[i], rank[j], group[i] == group[j], settled_weight, rank_weight,
                                rank_scale * reach)
            total = factor * (reach - d)
            if d > 1e-9:
                ux = dx / d
                uy = dy / d
            else:                                           # exactly on top: split along x
                ux = 1.0
                uy = 0.0
            si, sj = _split(position, radius, i, j, ux, uy, give_i * total, (1.0 - give_i) * total, limit,
                            passable, inv_cell, origin_x, origin_y)
            if it < SLIDE_PASSES and group[i] != group[j]:      # (mates facing each other swirl: no slide)
                _slide_past(position, heading, i, j, min(SLIDE * total, limit), passable, inv_cell, origin_x, origin_y)
            _push(position, i, ux * si, uy * si, passable, inv_cell, origin_x, origin_y)
            _push(position, j, -ux * sj, -uy * sj, passable, inv_cell, origin_x, origin_y)
            _cap(position, start, i, MAX_SHIFT * radius[i], passable, inv_cell, origin_x, origin_y)
            _cap(position, start, j, MAX_SHIFT * radius[j], passable, inv_cell, origin_x, origin_y)
            now[i] = True
            now[j] = True
        if it == 0:
            first_pairs = pairs
        last_pairs = pairs
        if pairs == 0:
            break
        # walls are constraints of the same solve: an agent pushed against one is put back off
        # it now, so the next pass moves its neighbour instead of the wall pass undoing it later
        for k in range(n):
            if now[k]:
                push_off_walls(position, k, radius[k], passable, cell_size, origin_x, origin_y)
        moved[:] = now
    if last_pairs == 0:
        return first_pairs, np.zeros(n, dtype=np.bool_)
    return first_pairs, _near_deep_pairs(position, radius, first, other)


@njit(cache=True)
def _floor_pass(position, radius, order, first, other, view):
    """Every pair of the list closer than ``FLOOR`` × the sum of its radii pushed apart to it,
    evenly, each body then put back off the walls (the walls are constraints here too: a body
    pressed against one is not left for the wall pass to push back into its neighbour), up to
    ``FLOOR_PASSES`` times (agents in bucket order ``order``)."""
    passable, cell_size, origin_x, origin_y, _, _ = view
    inv_cell = 1.0 / cell_size
    for _ in range(FLOOR_PASSES):
        pushed = False
        for p in range(first.shape[0]):
            i = order[first[p]]
            j = order[other[p]]
            floor = FLOOR * (radius[i] + radius[j])
            dx = position[i, 0] - position[j, 0]
            dy = position[i, 1] - position[j, 1]
            d = math.sqrt(dx * dx + dy * dy)
            if d >= floor:
                continue
            ux, uy = (dx / d, dy / d) if d > 1e-9 else (1.0, 0.0)
            half = 0.5 * (floor - d)
            _push(position, i, ux * half, uy * half, passable, inv_cell, origin_x, origin_y)
            _push(position, j, -ux * half, -uy * half, passable, inv_cell, origin_x, origin_y)
            push_off_walls(position, i, radius[i], passable, cell_size, origin_x, origin_y)
            push_off_walls(position, j, radius[j], passable, cell_size, origin_x, origin_y)
            pushed = True
        if not pushed:
            break


@njit(cache=True)
def _near_deep_pairs(position, radius, first, other):
    """The agents of pairs still closer than ``DEEP`` × the sum of their radii, and those up to
    two contacts from them (another round is worth it there)."""
    n = position.shape[0]
    mark = np.zeros(n, dtype=np.bool_)
    for p in range(first.shape[0]):
        i = first[p]
        j = other[p]
        near = DEEP * (radius[i] + radius[j])
        if (position[i, 0] - position[j, 0]) ** 2 + (position[i, 1] - position[j, 1]) ** 2 < near * near:
            mark[i] = True
            mark[j] = True
    for _ in range(2):
        grown = mark.copy()
        for p in range(first.shape[0]):
            if mark[first[p]] or mark[other[p]]:
                grown[first[p]] = True
                grown[other[p]] = True
        mark = grown
    return mark


@njit(cache=True, inline="always")
def _split(position, radius, i, j, ux, uy, si, sj, limit, passable, inv_cell, origin_x, origin_y):
    """The two pushes of a pair (``i`` along ``(ux, uy)``, ``j`` against it), each capped at
    ``limit``; a body with a wall right behind it cannot give way, so the other takes its share
    (the back of a crowd pressed against a wall otherwise stays stacked on it)."""
    si = min(si, limit)
    sj = min(sj, limit)
    if si > 0.0 and not _open(passable, (position[i, 0] + ux * (si + radius[i]) - origin_x) * inv_cell,
                              (position[i, 1] + uy * (si + radius[i]) - origin_y) * inv_cell):
        return 0.0, min(sj + si, limit)
    if sj > 0.0 and not _open(passable, (position[j, 0] - ux * (sj + radius[j]) - origin_x) * inv_cell,
                              (position[j, 1] - uy * (sj + radius[j]) - origin_y) * inv_cell):
        return min(si + sj, limit), 0.0
    return si, sj


@njit(cache=True, inline="always")
def _slide_past(position, heading, i, j, slide, passable, inv_cell, origin_x, origin_y):
    """Two agents heading opposite ways each step ``slide`` to their own right (they pass)."""
    hix = heading[i, 0]
    hiy = heading[i, 1]
    hjx = heading[j, 0]
    hjy = heading[j, 1]
    if hix * hjx + hiy * hjy < -OPPOSED:
        _push(position, i, hiy * slide, -hix * slide, passable, inv_cell, origin_x, origin_y)
        _push(position, j, hjy * slide, -hjx * slide, passable, inv_cell, origin_x, origin_y)


@njit(cache=True, inline="always")
def _share(a, b, mates, settled_weight, rank_weight, scale):
    """Agent ``a``'s share of a push between ranks ``a`` and ``b``: a standing unit makes room
    for a walking one (mates or not); between walking mates the one further from its goal gives
    way by ``rank_weight`` (at a gap's mouth the nearer unit goes on instead of an arch forming;
    0: an even share)."""
    if a < 0.0 or b < 0.0:                              # a held unit is not pushed
        return 0.5 if (a < 0.0 and b < 0.0) else (0.0 if a < 0.0 else 1.0)
    if math.isinf(a) and math.isinf(b):
        return 0.5
    if math.isinf(a):                                   # standing units make room, whoever passes
        return 0.5 + settled_weight
    if math.isinf(b):
        return 0.5 - settled_weight
    if (a >= HELD_UP) != (b >= HELD_UP):                # a held-up walker makes room for a moving one
        return 0.5 + settled_weight if a >= HELD_UP else 0.5 - settled_weight
    if not mates or rank_weight == 0.0:
        return 0.5
    return 0.5 + rank_weight * _soft_sign((a - b) / scale)


@njit(cache=True, inline="always")
def _soft_sign(x):
    """tanh to within 2% (a Pade form; libm's tanh was a third of a pass)."""
    if x >= 3.0:
        return 1.0
    if x <= -3.0:
        return -1.0
    x2 = x * x
    return x * (27.0 + x2) / (27.0 + 9.0 * x2)


@njit(cache=True, inline="always")
def _cap(position, start, i, most, passable, inv_cell, origin_x, origin_y):
    """Keep agent ``i`` within ``most`` of where the tick's solve found it (pushes from many
    pairs over many passes must not add up to a jump through the bodies around it). The capped
    point lies on the straight line back to the start, which may cut a wall's corner: when it
    falls in a blocked cell the agent goes back to its start (its centre ended a tick inside a
    wall, 5 ticks of a random scene in 60)."""
    dx = position[i, 0] - start[i, 0]
    dy = position[i, 1] - start[i, 1]
    d2 = dx * dx + dy * dy
    if d2 > most * most:
        f = most / math.sqrt(d2)
        x = start[i, 0] + dx * f
        y = start[i, 1] + dy * f
        if not _open(passable, (x - origin_x) * inv_cell, (y - origin_y) * inv_cell):
            x = start[i, 0]
            y = start[i, 1]
        position[i, 0] = x
        position[i, 1] = y


@njit(cache=True, inline="always")
def _push(position, i, dx, dy, passable, inv_cell, origin_x, origin_y):
    """Move agent ``i`` by ``(dx, dy)``, dropping an axis whose step would enter a blocked cell."""
    x = position[i, 0]
    y = position[i, 1]
    nx = x + dx
    if _open(passable, (nx - origin_x) * inv_cell, (y - origin_y) * inv_cell):
        x = nx
    ny = y + dy
    if _open(passable, (x - origin_x) * inv_cell, (ny - origin_y) * inv_cell):
        y = ny
    position[i, 0] = x
    position[i, 1] = y


@njit(cache=True, inline="always")
def _open(passable, fx, fy):
    """True when the cell at fractional cell coordinates ``(fx, fy)`` is on the grid and open
    (a truncating ``int`` is the floor here: negatives are rejected first)."""
    if fx < 0.0 or fy < 0.0:
        return False
    cx = int(fx)
    cy = int(fy)
    return cy < passable.shape[0] and cx < passable.shape[1] and passable[cy, cx]
