"""An artificial potential field (Khatib 1986): the baseline planner of the flow-field paper.

Each open cell gets ``U = attraction · |cell − goal| + repulsion · (1/d − 1/d0)²`` where ``d``
is its distance to the nearest wall (cells, Euclidean) and ``d0`` the walls' ``influence``
(no repulsion beyond it). A unit steps to its lowest legal neighbour (no corner cutting); a cell
with no lower neighbour that is not the goal is a **local minimum**: units that reach one stop
there — the failure the paper shows in concave corners. Cheap (one distance transform), never a
default: ``planner="potential"`` exists to be compared with the flow fields.

It has ``FlowField``'s reading interface (``integration``, ``direction``, ``best_move``,
``sample``), so group orders can follow it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..errors import NavError
from ..grid import Grid
from ..kernels.steps import MOVE_UX, MOVE_UY, move_offsets
from .field import sample_cells

__all__ = ["PotentialField"]



class PotentialField:
    """Goal attraction plus wall repulsion over a grid, with steepest-descent directions."""

    def __init__(self, grid: Grid, goal: tuple[int, int], potential: np.ndarray, best_move: np.ndarray,
                 direction: np.ndarray) -> None:
        self.grid = grid
        self.goal = goal
        self.integration = potential           # the potential (named as FlowField's values are)
        self.best_move = best_move
        self.direction = direction

    @classmethod
    def build(cls, grid: Grid, goal, *, attraction: float = 1.0, repulsion: float = 20.0,
              influence: float = 3.0) -> "PotentialField":
        """The field toward ``goal`` (an ``(x, y)`` cell); weights ≥ 0, ``influence`` > 0 cells."""
        gx, gy = grid.check_cell(goal, "goal")
        if not grid.passable[gy, gx]:
            raise NavError(f"goal {(gx, gy)} is a blocked cell")
        if not (attraction >= 0 and repulsion >= 0 and influence > 0):
            raise NavError(f"attraction and repulsion must be >= 0 and influence > 0, got "
                           f"{attraction}, {repulsion}, {influence}")
        from scipy.ndimage import distance_transform_edt

        h, w = grid.shape
        clearance = distance_transform_edt(np.pad(grid.passable, 1, constant_values=False))[1:-1, 1:-1]
        ys, xs = np.mgrid[0:h, 0:w]
        near = np.clip(clearance, 1e-6, None)
        push = np.where(clearance < influence, (1.0 / near - 1.0 / influence) ** 2, 0.0)
        potential = attraction * np.hypot(xs - gx, ys - gy) + repulsion * push
        potential = np.where(grid.passable, potential, np.inf)
        (_, _), wp = grid.padded()
        padded = np.full((h + 2, w + 2), np.inf)
        padded[1:-1, 1:-1] = potential
        best = np.full((h + 2) * (w + 2), -1, dtype=np.int8)
        direction = np.zeros(((h + 2) * (w + 2), 2), dtype=np.float32)
        _descend(grid.move_masks(), padded.ravel(), wp, best, direction)
        core = (slice(1, -1), slice(1, -1))
        return cls(grid, (gx, gy), potential, best.reshape(h + 2, w + 2)[core],
                   direction.reshape(h + 2, w + 2, 2)[core])

    def local_minima(self) -> np.ndarray:
        """``(N, 2)`` cells other than the goal with no lower neighbour: where units get stuck."""
        stuck = self.grid.passable & (self.best_move < 0)
        stuck[self.goal[1], self.goal[0]] = False
        return np.argwhere(stuck)[:, ::-1]

    def sample(self, points: np.ndarray) -> np.ndarray:
        """Directions for world points ``(N, 2|3)`` -> ``(N, 2) float32`` (zero off-grid and at
        minima)."""
        return sample_cells(self.grid, self.direction, points)


@njit(cache=True)
def _descend(moves, potential, wp, best, direction):
    """Per open padded cell, the legal move to its lowest neighbour when lower than itself."""
    offs = move_offsets(wp)
    mdx = MOVE_UX
    mdy = MOVE_UY
    for u in range(potential.size):
        m = moves[u]
        if m == 0:
            continue
        low = potential[u]
        pick = -1
        for k in range(8):
            if (m >> k) & 1 and potential[u + offs[k]] < low:
                low = potential[u + offs[k]]
                pick = k
        best[u] = pick
        if pick >= 0:
            direction[u, 0] = mdx[pick]
            direction[u, 1] = mdy[pick]
