"""Triangles from any Panda3D model (egg, bam, glTF via panda3d-gltf): what a navmesh bakes from."""

from __future__ import annotations

import numpy as np
from panda3d.core import GeomVertexReader, NodePath

__all__ = ["triangles_from_model"]


def triangles_from_model(model: NodePath) -> tuple[np.ndarray, np.ndarray]:
    """World-space ``vertices (V, 3) float64`` and ``triangles (T, 3) int64`` of every Geom
    under ``model`` (node transforms applied; strips and fans decomposed into triangles)."""
    verts: list[np.ndarray] = []
    tris: list[np.ndarray] = []
    offset = 0
    for geom_np in model.findAllMatches("**/+GeomNode"):
        node = geom_np.node()
        mat = geom_np.getMat(model)
        for i in range(node.getNumGeoms()):
            geom = node.getGeom(i).decompose()          # strips/fans -> plain triangles
            vdata = geom.getVertexData()
            reader = GeomVertexReader(vdata, "vertex")
            read = []
            while not reader.isAtEnd():
                p = mat.xformPoint(reader.getData3())
                read.append((p.x, p.y, p.z))
            pts = np.array(read, dtype=np.float64).reshape(-1, 3)
            for p in range(geom.getNumPrimitives()):
                prim = geom.getPrimitive(p)
                if prim.getNumVerticesPerPrimitive() != 3:
                    continue                            # points / lines: nothing to stand on
                idx = np.array([prim.getVertex(k) for k in range(prim.getNumVertices())], dtype=np.int64)
                tris.append(idx.reshape(-1, 3) + offset)
            verts.append(pts)
            offset += len(pts)
    if not verts:
        return np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64)
    return np.concatenate(verts), (np.concatenate(tris) if tris else np.zeros((0, 3), dtype=np.int64))
