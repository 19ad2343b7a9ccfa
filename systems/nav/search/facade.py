"""``find_path``: one call for every grid search method.

>>> import numpy as np
>>> from rtsnav.systems.nav import find_path
>>> walls = np.array([[0, 0, 0, 0],
...                   [1, 1, 1, 0],
...                   [0, 0, 0, 0]], dtype=bool)
>>> r = find_path(~walls, (0, 0), (0, 2))
>>> r.found, r.cost, len(r.cells)     # no corner cutting: (2, 0) -> (3, 1) is not allowed
(True, 8.0, 9)
>>> find_path(~walls, (0, 0), (1, 1)).reason
'goal (1, 1) is a blocked cell'
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rtsnav.names import SEARCH_METHODS, canonical_planner, unknown_name

from ..errors import NavError
from ..grid import Grid
from ..heuristics import Heuristic
from ..result import PathResult
from .goal_bounds import GoalBounds
from .sliced import SlicedSearch

__all__ = ["find_path", "METHODS", "as_grid"]

#: Every ``find_path`` method (``rtsnav.names.SEARCH_METHODS``).
METHODS = SEARCH_METHODS


def as_grid(grid: Grid | np.ndarray) -> Grid:
    """Accept a ``Grid`` or a plain ``[H, W]`` passable array."""
    if isinstance(grid, Grid):
        return grid
    if isinstance(grid, np.ndarray):
        return Grid(grid)
    raise NavError(f"expected a Grid or a 2D numpy array, got {type(grid).__name__}")


def find_path(grid: Grid | np.ndarray, start: Sequence[int], goal: Sequence[int],
              method: str = "astar", *, heuristic: Heuristic = "octile",
              weight: float = 1.5, goal_bounds: GoalBounds | None = None, backtrack: int = 0,
              navigation_layers: int | None = None, pocket_rule: bool = True) -> PathResult:
    """Find a path between two cells of an 8-connected grid (no corner cutting).

    ================  =============  ===================  ===================  ==================
    method            preprocessing  memory per query     optimality           map edits
    ================  =============  ===================  ===================  ==================
    ``dijkstra``      none           28 B per cell        optimal              any, at once
    ``astar``         none           28 B per cell        optimal (admissible  any, at once
                                                          heuristic)
    ``weighted``      none           28 B per cell        ≤ weight × optimal   any, at once
    ``bidirectional`` none           56 B per cell        optimal; A* unless   any, at once
                                                          an end is walled in
                                                          (``pocket_rule``)
    ``jps``           none           28 B per cell        optimal; uniform     any, at once
                                                          costs only (else A*,
                                                          noted in ``reason``)
    ``jps+``          jump table,    + 32 B per cell      as ``jps``           updated per edit
                      ~45 ms at 768²  (kept with the grid)                     (only what changes)
    ``dstar-lite``    none           40 B per cell        optimal              repaired, not
                                                                               searched again
                                                                               (``DStarLite``)
    ``bstar``         none           its own path         no (a crawler:       any, at once
                                                          straight, then along
                                                          walls; never a
                                                          default)
    + goal_bounds     one Dijkstra   + 64 B per cell      optimal (never       invalid after an
    (astar, dijkstra, per cell;                           changes a cost)      edit (then unused,
    jps+)             ≤ 65,536 cells                                           said in ``reason``)
    ================  =============  ===================  ===================  ==================

    Args:
        grid: a ``Grid`` (or a ``[H, W]`` bool array of passable cells).
        start, goal: ``(x, y)`` cells.
        method: a method of the table.
        heuristic: ``"octile"`` (default), ``"euclidean"``, ``"manhattan"`` (not admissible),
            ``"zero"``, or ``f(xs, ys, gx, gy) -> array`` evaluated on all cells once
            (JPS always uses octile).
        weight: the weight for ``"weighted"``, ≥ 1.
        goal_bounds: a ``GoalBounds`` of this grid, to prune moves that cannot start a shortest
            path to the goal (``"astar"``, ``"dijkstra"``, ``"jps+"``).
        backtrack: for ``"bstar"``: cells of its own path the crawler may give up when it goes
            round in circles (0: it fails in concave traps).
        navigation_layers: only cells on one of these layers (``Grid.set_layers``) are walked;
            None: all (Godot's agent ``navigation_layers``).
        pocket_rule: ``"bidirectional"`` answers by A* (saying so in ``reason``) unless an end
            of a long query is walled in (``ends_walled_in``); False: always both ends.

    Returns:
        A ``PathResult``: ``found``, ``cost`` (cells × terrain cost), ``cells`` (``(N, 2) int32``,
        start..goal), ``expanded``, ``status`` and ``reason``. An unreachable goal or a blocked
        start/goal gives ``found = False`` with a reason; it is not an exception.

    Raises:
        NavError: unknown method or heuristic, malformed or out-of-bounds cells, bad weight.
    """
    name = canonical_planner(method)
    if navigation_layers is not None:
        layered = as_grid(grid).masked(navigation_layers)
        if goal_bounds is not None and layered is not grid:
            goal_bounds = None                        # baked for all cells: not for this mask's
        grid = layered
    if name == "dstar-lite":
        from .dstar_lite import DStarLite

        g = as_grid(grid)
        ends = (("start", g.check_cell(start, "start")), ("goal", g.check_cell(goal, "goal")))
        for which, (x, y) in ends:
            if not g.passable[y, x]:
                return PathResult.unreachable(f"{which} {(x, y)} is a blocked cell")
        return DStarLite(g, ends[0][1], ends[1][1]).plan()
    if name not in SEARCH_METHODS:
        raise NavError(unknown_name("method", method, SEARCH_METHODS))
    return SlicedSearch(as_grid(grid), start, goal, name, heuristic=heuristic, weight=weight,
                        goal_bounds=goal_bounds, backtrack=backtrack, pocket_rule=pocket_rule).run()
