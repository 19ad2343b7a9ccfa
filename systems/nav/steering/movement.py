"""Moving points over a grid without ever entering a blocked cell: axis-separated sliding.

Each agent moves along x, then along y; a move that would put its centre in a blocked (or
off-grid) cell stops at that cell's face instead, so the agent slides along walls. Moves are cut
into sub-steps of under half a cell, so fast agents cannot tunnel through thin walls, and going
x-then-y means a diagonal move can never slip between two blocked cells that touch at a corner.
"""

from __future__ import annotations

import math

from numba import njit, prange

__all__ = ["WALL_GAP", "move_agents"]

#: How far off a wall face a blocked agent stops, as a fraction of the cell size.
WALL_GAP = 1e-6


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
