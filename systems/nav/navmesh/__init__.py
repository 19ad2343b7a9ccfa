"""Navigation meshes: Recast-style bake stages (``build``); the exact query layer — boundary
triangulation (``triangulate``), view sweeps and the corner visibility graph with its A*
(``visibility``), landmarks (``landmarks``), path finishing (``trace``); the crossing-point search
with funnel string-pulling used with area costs (``search``, ``funnel``); and the ``NavMesh`` that
bakes and answers (``mesh``)."""

from .layered import LayeredNavMesh
from .mesh import MeshPath, NavMesh, NavMeshConfig, OffMeshLink

__all__ = ["NavMesh", "LayeredNavMesh", "NavMeshConfig", "MeshPath", "OffMeshLink"]
