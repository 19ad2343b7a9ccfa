"""Moving points over a grid without ever entering a blocked cell: axis-separated sliding.

Each agent moves along x, then along y; a move that would put its centre in a blocked (or
off-grid) cell stops at that cell's face instead, so the agent slides along walls. Moves are cut
into sub-steps of under half a cell, so fast agents cannot tunnel through thin walls, and going
x-then-y means a diagonal move can never slip between two blocked cells that touch at a corner.
"""

from __future__ import annotations

import math

from numba import njit, prange

__all__ = ["WALL_GAP", "WALL_PASSES", "move_agents", "keep_off_walls"]

#: How far off a wall face a blocked agent stops, as a fraction of the cell size.
WALL_GAP = 1e-6
#: Passes of ``keep_off_walls`` per tick (an inside corner needs two: one per wall).
WALL_PASSES = 2


@njit(cache=True, inline="always")
def _blocked(passable, cx, cy):
    h, w = passable.shape
    return cx < 0 or cy < 0 or cx >= w or cy >= h or not passable[cy, cx]


# agents are independent: both threads (a scattered crowd's reads of the grid are cache misses)
@njit(cache=True, parallel=True)
def move_agents(position, velocity, max_speed, dt, view):
    """Advance ``position`` (``(n, 3)``) by ``velocity`` (``(n, 3)``, clamped to ``max_speed``)
    for ``dt`` seconds over the grid ``view`` (``Grid.view``), sliding along walls; both arrays
    are updated in place and ``velocity`` becomes the velocity actually achieved (xy; z follows
    the grid's heights when it has them)."""
    passable, cell_size, origin_x, origin_y, heights, has_heights = view
    n = position.shape[0]
    gap = WALL_GAP * cell_size
    for i in prange(n):
        vx = velocity[i, 0]
        vy = velocity[i, 1]
        speed = math.sqrt(vx * vx + vy * vy)
        if not (speed > 0.0):            # zero or NaN: stand still
            velocity[i, 0] = 0.0
            velocity[i, 1] = 0.0
            continue
        if speed > max_speed[i]:
            vx *= max_speed[i] / speed
            vy *= max_speed[i] / speed
        x0 = position[i, 0]
        y0 = position[i, 1]
        x = x0
        y = y0
        dx = vx * dt
        dy = vy * dt
        steps = max(1, int(math.ceil(max(abs(dx), abs(dy)) / (0.49 * cell_size))))
        sx = dx / steps
        sy = dy / steps
        for _ in range(steps):
            cx = int(math.floor((x - origin_x) / cell_size))
            cy = int(math.floor((y - origin_y) / cell_size))
            inside_wall = _blocked(passable, cx, cy)     # spawned in a wall: let it walk out
            if sx != 0.0:
                nx = x + sx
                ncx = int(math.floor((nx - origin_x) / cell_size))
                if ncx != cx and not inside_wall and _blocked(passable, ncx, cy):
                    if sx > 0:
                        nx = origin_x + (cx + 1) * cell_size - gap
                    else:
                        nx = origin_x + cx * cell_size + gap
                    sx = 0.0
                x = nx
                cx = int(math.floor((x - origin_x) / cell_size))
            if sy != 0.0:
                ny = y + sy
                ncy = int(math.floor((ny - origin_y) / cell_size))
                if ncy != cy and not inside_wall and _blocked(passable, cx, ncy):
                    if sy > 0:
                        ny = origin_y + (cy + 1) * cell_size - gap
                    else:
                        ny = origin_y + cy * cell_size + gap
                    sy = 0.0
                y = ny
        position[i, 0] = x
        position[i, 1] = y
        velocity[i, 0] = (x - x0) / dt
        velocity[i, 1] = (y - y0) / dt
        if has_heights:
            cx = min(max(int(math.floor((x - origin_x) / cell_size)), 0), passable.shape[1] - 1)
            cy = min(max(int(math.floor((y - origin_y) / cell_size)), 0), passable.shape[0] - 1)
            position[i, 2] = heights[cy, cx]


@njit(cache=True, parallel=True)
def keep_off_walls(position, radius, active, view):
    """Push each ``active`` agent's disc out of the blocked cells it overlaps, so that its centre
    stays a full ``radius`` from every wall (the walk above only keeps the centre out of them).
    Updates ``position`` in place (and its height on a grid with heights)."""
    passable, cell_size, origin_x, origin_y, heights, has_heights = view
    h, w = passable.shape
    for i in prange(position.shape[0]):
        if not active[i]:
            continue
        push_off_walls(position, i, radius[i], passable, cell_size, origin_x, origin_y)
        if has_heights:
            cx = min(max(int(math.floor((position[i, 0] - origin_x) / cell_size)), 0), w - 1)
            cy = min(max(int(math.floor((position[i, 1] - origin_y) / cell_size)), 0), h - 1)
            position[i, 2] = heights[cy, cx]


@njit(cache=True)
def push_off_walls(position, i, r, passable, cell_size, origin_x, origin_y):
    """Agent ``i``'s disc of radius ``r`` out of the blocked cells it overlaps: each push along
    the normal from the cell's nearest point, never into another blocked cell (an axis whose
    step would enter one is dropped), at most ``WALL_PASSES`` rounds (an inside corner needs
    two). A centre inside a blocked cell is left to ``move_agents``. True when it moved."""
    x = position[i, 0]
    y = position[i, 1]
    if not (r > 0.0) or not (math.isfinite(x) and math.isfinite(y)):
        return False
    inv = 1.0 / cell_size
    moved = False
    for _ in range(WALL_PASSES):
        pushed = False
        cx0 = int(math.floor((x - r - origin_x) * inv))
        cx1 = int(math.floor((x + r - origin_x) * inv))
        cy0 = int(math.floor((y - r - origin_y) * inv))
        cy1 = int(math.floor((y + r - origin_y) * inv))
        for cy in range(cy0, cy1 + 1):
            for cx in range(cx0, cx1 + 1):
                if not _blocked(passable, cx, cy):
                    continue
                bx0 = origin_x + cx * cell_size
                by0 = origin_y + cy * cell_size
                dx = x - min(max(x, bx0), bx0 + cell_size)
                dy = y - min(max(y, by0), by0 + cell_size)
                d2 = dx * dx + dy * dy
                if d2 >= r * r or d2 < 1e-18:
                    continue
                d = math.sqrt(d2)
                step = min(r - d, 0.49 * cell_size)         # a push never jumps a wall
                nx = x + dx / d * step
                ny = y + dy / d * step
                if not _blocked(passable, int(math.floor((nx - origin_x) * inv)), int(math.floor((y - origin_y) * inv))):
                    x = nx
                if not _blocked(passable, int(math.floor((x - origin_x) * inv)), int(math.floor((ny - origin_y) * inv))):
                    y = ny
                pushed = True
        if not pushed:
            break
        moved = True
    position[i, 0] = x
    position[i, 1] = y
    return moved
