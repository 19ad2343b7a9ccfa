"""Triangles from any Panda3D model (egg, bam, glTF via panda3d-gltf): what a navmesh bakes from."""

from __future__ import annotations

import numpy as np
from panda3d.core import GeomVertexReader, NodePath

__all__ = ["triangles_from_model", "tagged_triangles", "navmesh_from_model"]


def triangles_from_model(model: NodePath) -> tuple[np.ndarray, np.ndarray]:
    """World-space ``vertices (V, 3) float64`` and ``triangles (T, 3) int64`` of every Geom
    under ``model`` (node transforms applied; strips and fans decomposed into triangles)."""
    vertices, triangles, _ = tagged_triangles(model, None)
    return vertices, triangles


def tagged_triangles(model: NodePath, walkable_tag: str | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``triangles_from_model`` plus ``(T,)`` bools: the triangles of Geoms whose node (or an
    ancestor under ``model``) carries the Panda3D tag ``walkable_tag`` — every triangle when the
    tag is None."""
    verts: list[np.ndarray] = []
    tris: list[np.ndarray] = []
    marks: list[np.ndarray] = []
    offset = 0
    for geom_np in model.findAllMatches("**/+GeomNode"):
        node = geom_np.node()
        mat = geom_np.getMat(model)
        tagged = walkable_tag is None or geom_np.hasNetTag(walkable_tag)
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
                marks.append(np.full(len(idx) // 3, tagged))
            verts.append(pts)
            offset += len(pts)
    if not verts or not tris:
        return np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64), np.zeros(0, dtype=bool)
    return np.concatenate(verts), np.concatenate(tris), np.concatenate(marks)


def navmesh_from_model(model: NodePath, walkable_tag: str | None = None, **settings):
    """Bake a navmesh from a Panda3D model or scene graph: its triangles (``tagged_triangles``),
    every walkable surface kept (``NavMesh.from_triangles``: a ``LayeredNavMesh`` when surfaces
    stack, or whenever ``walkable_tag`` is given). With ``walkable_tag`` only geometry under a
    node tagged with it may be stood on (``node.setTag("walkable", "1")``); other geometry —
    walls, props, roofs — blocks and gives headroom. Without it, the slope rule alone decides
    (``max_slope``). ``settings``: ``NavMeshConfig`` fields (``agent_radius``, ``agent_height``,
    ``max_climb`` / ``agent_climb``, ``cell_size``, …)."""
    from rtsnav.systems.nav import NavError, NavMesh

    if not isinstance(model, NodePath) or model.isEmpty():
        raise NavError(f"model must be a Panda3D NodePath that is not empty, got {model!r}")
    if walkable_tag is not None and not isinstance(walkable_tag, str):
        raise NavError(f"walkable_tag must be a tag name (str) or None, got {walkable_tag!r}")
    vertices, triangles, walkable = tagged_triangles(model, walkable_tag)
    return NavMesh.from_triangles(vertices, triangles, walkable=walkable if walkable_tag is not None else None,
                                  **settings)
