"""Goal Bounding on waypoint graphs (``csr_bounds``): for every edge ``u → v`` of the graph's
CSR, the box (world) of the waypoints whose shortest path from ``u`` starts with that edge; the
graph search skips an edge whose box misses the box of the waypoints the goal sees.

This is how large maps get goal bounds: the grid version needs one Dijkstra per cell
(``search/goal_bounds.py``, refused above 65,536 open cells), a waypoint graph one per waypoint
— a 1024² map floodfilled every 4 cells has ~40,000.
"""

from __future__ import annotations

import numpy as np

from ..csr_bounds import CsrGoalBounds, CsrGraph

__all__ = ["GraphGoalBounds", "NO_GRAPH_BOUNDS"]

#: Boxes passed to the graph search when no bounds are used.
NO_GRAPH_BOUNDS = np.zeros((1, 4), dtype=np.float32)


class GraphGoalBounds(CsrGoalBounds):
    """Goal bounds of a ``WaypointGraph``. Build with ``build`` or ``cached``;
    ``graph.goal_bounds = b`` makes ``graph.find_path`` use them."""

    KIND = "waypoint graph"
    NODE = "waypoint"
    INSTEAD = "floodfill with a larger spacing or use the hierarchy"

    @classmethod
    def _csr(cls, graph) -> CsrGraph:
        arrays = graph.graph_arrays()                  # positions as the search reads them
        return CsrGraph(graph.adj_start, graph.adj_target, graph.adj_cost, arrays.node_x, arrays.node_y,
                        np.arange(len(graph.cells), dtype=np.int64))

    @classmethod
    def _identity(cls, graph):
        return graph.grid, (graph.cells, graph.adj_start, graph.adj_target, graph.adj_cost)
