"""Navigation meshes: Recast-style bake stages (``build``), funnel string-pulling (``funnel``), and
the ``NavMesh`` with its queries (``mesh``)."""

from .mesh import MeshPath, NavMesh, NavMeshConfig, OffMeshLink

__all__ = ["NavMesh", "NavMeshConfig", "MeshPath", "OffMeshLink"]
