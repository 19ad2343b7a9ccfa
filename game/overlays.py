"""Overlays in the 3D view: ``DebugDraw`` arrays from the core (``rtsnav.systems.nav.debug_draw``)
turned into one line mesh and one point mesh — the same data ``rtsnav-levels show`` draws."""

from __future__ import annotations

import numpy as np
from panda3d.core import (
    Geom,
    GeomEnums,
    GeomLines,
    GeomNode,
    GeomPoints,
    GeomVertexArrayFormat,
    GeomVertexData,
    GeomVertexFormat,
    NodePath,
)

from rtsnav.systems.nav.debug_draw import DebugDraw

__all__ = ["debug_node"]


def _format() -> GeomVertexFormat:
    a = GeomVertexArrayFormat()
    a.addColumn("vertex", 3, Geom.NTFloat32, Geom.CPoint)
    a.addColumn("color", 4, Geom.NTFloat32, Geom.CColor)
    return GeomVertexFormat.registerFormat(GeomVertexFormat(a))


def _geom(vertices: np.ndarray, colors: np.ndarray, primitive) -> Geom:
    vdata = GeomVertexData("debug", _format(), Geom.UHStatic)
    vdata.uncleanSetNumRows(len(vertices))
    interleaved = np.concatenate([vertices.astype(np.float32), colors.astype(np.float32)], axis=1)
    np.frombuffer(memoryview(vdata.modifyArray(0)).cast("B"), dtype=np.float32)[:] = interleaved.ravel()
    prim = primitive(Geom.UHStatic)
    prim.setIndexType(GeomEnums.NT_uint32)
    handle = prim.modifyVertices()
    handle.uncleanSetNumRows(len(vertices))
    np.frombuffer(memoryview(handle).cast("B"), dtype=np.uint32)[:] = np.arange(len(vertices), dtype=np.uint32)
    geom = Geom(vdata)
    geom.addPrimitive(prim)
    return geom


def debug_node(draw: DebugDraw, thickness: float = 2.0, point_size: float = 5.0) -> NodePath:
    """One node drawing ``draw``'s segments (as lines) and points (as square dots), unlit."""
    node = GeomNode("debug-draw")
    root = NodePath(node)
    if len(draw.segments):
        node.addGeom(_geom(draw.segments.reshape(-1, 3), np.repeat(draw.segment_colors, 2, axis=0), GeomLines))
    if len(draw.points):
        dots = GeomNode("debug-points")
        dots.addGeom(_geom(draw.points, draw.point_colors, GeomPoints))
        dots_np = root.attachNewNode(dots)
        dots_np.setRenderModeThickness(point_size)
    root.setRenderModeThickness(thickness)
    root.setLightOff()
    root.setDepthOffset(2)
    return root
