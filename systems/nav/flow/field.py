"""``FlowField``: integration + direction fields toward one goal or a set of goal cells.

>>> import numpy as np
>>> from rtsnav.systems.nav import Grid, FlowField
>>> grid = Grid(np.ones((20, 30), dtype=bool))
>>> ff = FlowField.build(grid, goals=[(25, 10)])
>>> float(ff.integration[10, 5])
20.0
>>> ff.sample(np.array([[5.5, 10.5]])).round(3).tolist()      # world points -> unit directions
[[1.0, 0.0]]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rtsnav import checks

from ..errors import NavError
from ..grid import Grid
from ..kernels.parallel_dijkstra import NO_MOVES
from ..kernels.steps import MOVE_DX, MOVE_DY
from .direction import directions_at, flow_directions, kernel_directions, make_safe
from .eikonal import fast_marching, source_seeds
from .integration import integrate_field, on_two_threads
from .los import goal_visibility

__all__ = ["FlowField", "build_field"]


class FlowField:
    """A flow field over a whole grid.

    Attributes:
        grid: the ``Grid`` it was built on (``grid.version`` at build time in ``version``).
        goals: ``(K, 2) int32`` goal cells ``(x, y)``.
        integration: ``float32 [H, W]`` cost to the nearest goal (inf = unreachable), equal to
            Dijkstra's distances.
        best_move: ``int8 [H, W]`` index of the steepest-descent move (``MOVE_DX``/``MOVE_DY``),
            -1 at goals, walls and unreachable cells.
        direction: ``float32 [H, W, 2]`` unit ``(x, y)`` steering directions (zero where none).
        line_of_sight: ``bool [H, W]`` cells that steer straight at the goal (single goal only).
    """

    def __init__(self, grid: Grid, goals: np.ndarray, integration: np.ndarray, best_move: np.ndarray,
                 direction: np.ndarray, line_of_sight: np.ndarray) -> None:
        self.grid = grid
        self.version = grid.version
        self.goals = goals
        self.integration = integration
        self.best_move = best_move
        self.direction = direction
        self.line_of_sight = line_of_sight

    @classmethod
    def build(cls, grid: Grid, goals: Sequence[Sequence[int]], *, smooth: bool = True,
              los_radius: int = 64, integration: str = "dijkstra", rule: str = "descent") -> "FlowField":
        """Build the field toward ``goals`` (``(x, y)`` cells; an area goal is many cells).

        Args:
            integration: ``"dijkstra"`` (8-neighbour costs, exact for grid paths) or
                ``"eikonal"`` (fast marching: travel times close to straight-line distances,
                matching scikit-fmm's first-order solution; see ``flow.eikonal``).
            rule: the direction pass: ``"descent"`` (steepest descent, curved by ``smooth``)
                or ``"kernel"`` (the vector-field article's rule: neighbours weighted by 1 /
                their distance, steepest descent plus a push off the walls beside them).
            smooth: curved directions away from walls (else pure 8-direction moves).
            los_radius: cells within this Chebyshev distance of a single goal that see it steer
                straight at it; 0 turns the line-of-sight pass off.

        Raises:
            NavError: no goals, a goal off the grid, or only blocked goals.
        """
        if not isinstance(grid, Grid):
            raise NavError(f"FlowField.build takes a Grid, got {type(grid).__name__}")
        try:
            raw: list = list(goals)
        except TypeError:
            raise NavError(f"goals must be a list of (x, y) cells, got {goals!r}") from None
        if len(raw) == 0:
            raise NavError("FlowField.build needs at least one goal cell")
        if len(raw) == 2 and all(isinstance(v, (int, float, np.integer, np.floating)) for v in raw):
            raw = [raw]                                    # one (x, y) goal given bare
        g = np.array([grid.check_cell(cell, "goal") for cell in raw], dtype=np.int64).reshape(-1, 2)
        if not grid.passable[g[:, 1], g[:, 0]].any():
            raise NavError(f"every goal cell is blocked: {g[:4].tolist()}")
        integration = checks.choice(integration, "integration", ("dijkstra", "eikonal"), error=NavError)
        rule = checks.choice(rule, "rule", ("descent", "kernel"), error=NavError)
        smooth = checks.flag(smooth, "smooth", error=NavError)
        los_radius = checks.whole_number(los_radius, "los_radius (cells)", low=0, high=1 << 20, error=NavError)
        return build_field(grid, g, smooth=smooth, los_radius=los_radius, eikonal=integration == "eikonal",
                           kernel=rule == "kernel")

    def sample(self, points: np.ndarray) -> np.ndarray:
        """Directions for world points: ``(N, 2|3)`` -> ``(N, 2) float32`` unit vectors; zero for
        points off the grid, on blocked or unreachable cells, or on a goal."""
        return sample_cells(self.grid, self.direction, points)

    def descend(self, start: Sequence[int], max_steps: int | None = None) -> np.ndarray:
        """Cells visited following ``best_move`` from ``start`` to a goal (``(N, 2) int32``);
        stops early at a cell without a move (unreachable), and before a cell blocked since the
        field was built (a field is a snapshot of the grid at ``version``: build it again after
        an edit)."""
        x, y = self.grid.check_cell(start, "start")
        passable = self.grid.passable
        limit = self.grid.width * self.grid.height           # no descent is longer than the map
        if max_steps is not None:
            limit = min(limit, checks.whole_number(max_steps, "max_steps", low=0, error=NavError))
        out = [(x, y)]
        for _ in range(limit):
            k = int(self.best_move[y, x])
            if k < 0:
                break
            nx, ny = x + int(MOVE_DX[k]), y + int(MOVE_DY[k])
            if not (passable[ny, nx] and (nx == x or ny == y or (passable[y, nx] and passable[ny, x]))):
                break                                        # a wall put up since the build
            x, y = nx, ny
            out.append((x, y))
        return np.array(out, dtype=np.int32)


def sample_cells(grid: Grid, direction: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``direction[y, x]`` (an ``[H, W, 2]`` field) under world points ``(N, 2|3)``, as ``(N, 2)
    float32``; zero off the grid. Shared by every grid vector field."""
    cells = grid.world_to_cells(points)
    h, w = grid.shape
    inside = (cells[:, 0] >= 0) & (cells[:, 0] < w) & (cells[:, 1] >= 0) & (cells[:, 1] < h)
    out = np.zeros((len(cells), 2), dtype=np.float32)
    c = cells[inside]
    out[inside] = direction[c[:, 1], c[:, 0]]
    return out


#: A field that settles fewer than one cell in this many runs its direction pass on the cells it
#: reached only (a list of them costs a scan of the map; the full pass a write of every cell).
SPARSE_BELOW = 4

def build_field(grid: Grid, seeds: np.ndarray, values: np.ndarray | None = None, *,
                allowed: np.ndarray | None = None, limit: float = np.inf, smooth: bool = True,
                los_radius: int = 0, eikonal: bool = False, kernel: bool = False) -> FlowField:
    """The machinery behind ``FlowField.build``, open to restricted fields: ``seeds`` (``(K, 2)``
    cells, blocked ones ignored) start at ``values`` (default 0); only cells where ``allowed``
    (``bool [H, W]``) is True are entered; cells costlier than ``limit`` stay unreachable."""
    g = np.asarray(seeds, dtype=np.int64).reshape(-1, 2)
    h, w = grid.shape
    (passable, cost), wp = grid.padded()
    moves = grid.move_masks()
    ok = grid.passable[g[:, 1], g[:, 0]]
    flat_seeds = ((g[:, 1] + 1) * wp + g[:, 0] + 1)[ok]
    vals = np.zeros(len(g)) if values is None else np.asarray(values, dtype=np.float64).reshape(-1)
    vals = vals[ok]
    if allowed is None:
        allow = np.ones(1, dtype=np.uint8)
    else:
        pad = np.zeros((h + 2, w + 2), dtype=np.uint8)
        pad[1:-1, 1:-1] = allowed
        allow = pad.ravel()
    # float32 accumulation: measured within 1e-5 relative of the float64 field on a 1024²
    # map, and ~15% faster (half the memory traffic); integration is float32 anyway.
    dist = np.full((h + 2) * (w + 2), np.inf, dtype=np.float32)
    moves_known = False
    if eikonal:
        if allowed is not None:
            raise NavError("eikonal integration does not take an allowed-cells mask")
        seeds, seed_values = source_seeds(passable, cost, wp, flat_seeds)
        seed_values += np.repeat(vals, [1 + sum(bool(passable[s + d]) for d in (1, -1, wp, -wp)) for s in flat_seeds])
        # the goals' own time (their distance to the zero contour) is taken off: goals cost 0
        offset = float(seed_values.min()) - float(vals.min()) if len(vals) else 0.0
        fast_marching(passable, cost, wp, seeds, seed_values - offset, dist, float(limit))
    else:
        # a big whole-map field to goals at 0: the two-thread Dijkstra keeps each cell's descent
        # move as it goes, and the direction pass need not search for it (4096², 20% walls:
        # 3-4 ns a cell less in all)
        moves_known = on_two_threads(dist, allow, float(limit), flat_seeds) and not vals.any()
        best = np.full(dist.size, -1, dtype=np.int8) if moves_known else NO_MOVES
        settled = integrate_field(moves, cost, wp, grid.is_uniform, flat_seeds, vals, allow, dist, float(limit),
                                  best)
    if not eikonal and settled * SPARSE_BELOW < dist.size:
        # a corridor or a bounded field reaches a few cells: directions there only (on a 512²
        # map a corridor's full pass was 5 ms of an 8 ms stage of a leader's plan)
        best = np.full(dist.size, -1, dtype=np.int8)
        direction = np.zeros((dist.size, 2), dtype=np.float32)
        directions_at(moves, cost, wp, grid.is_uniform, dist, smooth, best, direction,
                      np.flatnonzero(dist < np.inf))
    else:
        if not moves_known:
            best = np.empty(dist.size, dtype=np.int8)
        direction = np.empty((dist.size, 2), dtype=np.float32)
        flow_directions(moves, cost, wp, grid.is_uniform, dist, smooth, best, direction, moves_known)
    if kernel:
        kernel_directions(moves, passable, wp, dist, best, direction)
    vis = np.zeros((h, w), dtype=bool)
    if los_radius > 0 and len(flat_seeds) == 1 and vals[0] == 0:
        gx, gy = (int(v) for v in g[ok][0])
        vis = goal_visibility(passable, cost, wp, h, w, gx, gy, int(los_radius))
        if allowed is not None:
            vis &= np.asarray(allowed, dtype=bool)
        ys, xs = np.nonzero(vis)
        d = np.stack([gx - xs, gy - ys], axis=1).astype(np.float64)
        norm = np.hypot(d[:, 0], d[:, 1])
        keep = norm > 0
        flat = (ys + 1) * wp + xs + 1
        direction[flat[keep]] = (d[keep] / norm[keep, None]).astype(np.float32)
        make_safe(moves, best, direction, flat.astype(np.int64))
    # unpadded views of the padded arrays (no copies)
    return FlowField(grid, g.astype(np.int32), dist.reshape(h + 2, w + 2)[1:-1, 1:-1],
                     best.reshape(h + 2, w + 2)[1:-1, 1:-1],
                     direction.reshape(h + 2, w + 2, 2)[1:-1, 1:-1], vis)
