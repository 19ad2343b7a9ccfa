"""Grid distance heuristics, by name, plus user callables evaluated once per query as an array.

``octile`` is exact on an empty 8-connected grid with unit costs and admissible whenever terrain
costs are ≥ 1; ``euclidean`` is admissible but weaker; ``manhattan`` over-estimates diagonal moves
(fast, not optimal); ``zero`` turns A* into Dijkstra.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .errors import NavError

__all__ = ["HEURISTICS", "Heuristic", "heuristic_mode", "heuristic_array"]

ZERO, OCTILE, EUCLIDEAN, MANHATTAN, TABLE = 0, 1, 2, 3, 4
#: Internal: distance to the nearest anchor of a goal region minus its slack (``search/region.py``).
ANCHORS = 5
HEURISTICS = {"zero": ZERO, "octile": OCTILE, "euclidean": EUCLIDEAN, "manhattan": MANHATTAN}

#: A heuristic: a name from ``HEURISTICS`` or ``f(xs, ys, goal_x, goal_y) -> estimates`` taking
#: and returning numpy arrays (called once per query on every cell, never per node).
Heuristic = str | Callable[[np.ndarray, np.ndarray, int, int], np.ndarray]

_EMPTY = np.zeros(1, dtype=np.float64)


def heuristic_mode(heuristic: Heuristic) -> int:
    """Kernel mode code for a heuristic name (``TABLE`` for callables)."""
    if callable(heuristic):
        return TABLE
    try:
        return HEURISTICS[heuristic]
    except (KeyError, TypeError):
        raise NavError(f"unknown heuristic {heuristic!r}; expected one of "
                       f"{sorted(HEURISTICS)} or a callable f(xs, ys, gx, gy)") from None


def heuristic_array(heuristic: Heuristic, width: int, height: int, goal: tuple[int, int]) -> np.ndarray:
    """Evaluate a heuristic over every cell into a padded flat ``float64`` array for the kernels.

    Named heuristics are computed inside the kernels; this returns a 1-element dummy for them.
    """
    if not callable(heuristic):
        return _EMPTY
    ys, xs = np.mgrid[0:height, 0:width]
    values = np.asarray(heuristic(xs, ys, goal[0], goal[1]), dtype=np.float64)
    if values.shape != (height, width):
        raise NavError(f"heuristic callable returned shape {values.shape}, expected "
                       f"{(height, width)} (one estimate per cell, [y, x])")
    if np.isnan(values).any() or (values < 0).any():
        raise NavError("heuristic callable returned NaN or negative estimates")
    out = np.zeros((height + 2, width + 2), dtype=np.float64)
    out[1:-1, 1:-1] = values
    return out.ravel()
