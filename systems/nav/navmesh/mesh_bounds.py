"""Goal Bounding on the navmesh's visibility graph (``csr_bounds``): for every taut segment
``u → v`` between convex corners, the box (lattice units) of the corners whose shortest path
from ``u`` starts with it. The exact query skips a segment whose box misses the box of the
corners the goal sees.

Why this stays exact although the query only turns taut round a corner: a shortest path is
taut at every bend, so from a corner reached on a shortest path, a shortest path on to the last
corner before the goal is a chain of taut segments, each kept (its box holds that corner; ties
count in every first segment). Meshes with off-mesh links do not use the bounds (a route may leave
the corner graph by a link, which the boxes do not know), nor do meshes with area costs (their
query searches portal crossings, not corners).
"""

from __future__ import annotations

import numpy as np

from ..csr_bounds import CsrGoalBounds, CsrGraph

__all__ = ["MeshGoalBounds", "NO_MESH_BOUNDS"]

#: Boxes passed to the visibility-graph search when no bounds are used.
NO_MESH_BOUNDS = np.zeros((0, 4), dtype=np.float32)


class MeshGoalBounds(CsrGoalBounds):
    """Goal bounds of a ``NavMesh``'s visibility graph. Build with ``build`` or ``cached``;
    ``mesh.goal_bounds = b`` makes ``mesh.find_path`` use them."""

    KIND = "navmesh"
    NODE = "corner"
    INSTEAD = "its landmark (ALT) bounds serve it"
    #: Measured build cost per (corner, corner) pair on this machine's two cores (AcrosstheCape:
    #: 5,007 corners, 106,257 segments, 10.5 s).
    NS_PER_PAIR = 420.0
    #: Largest corner count ``build`` accepts (about three minutes).
    MAX_NODES = 20_000

    @classmethod
    def _csr(cls, mesh) -> CsrGraph:
        xy = mesh.query_tables().vinfo[:, :2]
        src = np.repeat(np.arange(len(mesh.vis_start) - 1), np.diff(mesh.vis_start))
        dst = mesh.vis_dst
        cost = np.hypot(xy[dst, 0] - xy[src, 0], xy[dst, 1] - xy[src, 1])   # as the query sums them
        return CsrGraph(mesh.vis_start, dst, cost, np.ascontiguousarray(xy[:, 0]), np.ascontiguousarray(xy[:, 1]),
                        mesh.query_tables().corner_ids.astype(np.int64))

    @classmethod
    def _identity(cls, mesh):
        return None, (mesh.tri_points, mesh.vis_start, mesh.vis_dst)
