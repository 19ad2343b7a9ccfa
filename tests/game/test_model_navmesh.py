"""A navmesh baked from a real Panda3D model (written to .bam and loaded back): the ramp is
walkable, the 40° slope is not, and heights along a path follow the ramp."""

from __future__ import annotations

import math

import numpy as np
import pytest
from panda3d.core import (
    Filename,
    Geom,
    GeomNode,
    GeomTriangles,
    GeomVertexData,
    GeomVertexFormat,
    GeomVertexWriter,
    NodePath,
)

from rtsnav.game.model_geometry import triangles_from_model
from rtsnav.systems.nav import NavMesh


def _model(path):
    vdata = GeomVertexData("level", GeomVertexFormat.getV3(), Geom.UHStatic)
    writer = GeomVertexWriter(vdata, "vertex")
    tris = GeomTriangles(Geom.UHStatic)
    rise = 10 * math.tan(math.radians(15))
    steep = 10 * math.tan(math.radians(40))
    quads = [((0, 0, 0), (10, 0, 0), (10, 20, 0), (0, 20, 0)),            # floor
             ((10, 0, 0), (20, 0, rise), (20, 10, rise), (10, 10, 0)),     # 15° ramp
             ((10, 12, 0), (20, 12, steep), (20, 20, steep), (10, 20, 0)), # 40° slope
             ((20, 0, rise), (30, 0, rise), (30, 10, rise), (20, 10, rise))]
    n = 0
    for quad in quads:
        for p in quad:
            writer.addData3(*p)
        tris.addVertices(n, n + 1, n + 2)
        tris.addVertices(n, n + 2, n + 3)
        n += 4
    geom = Geom(vdata)
    geom.addPrimitive(tris)
    node = GeomNode("level")
    node.addGeom(geom)
    root = NodePath("root")
    child = root.attachNewNode(node)
    child.setPos(5, 0, 0)                                    # a transform the helper must apply
    root.writeBamFile(Filename.fromOsSpecific(str(path)))


def test_navmesh_from_a_panda3d_model(tmp_path):
    from panda3d.core import Loader

    path = tmp_path / "ramp.bam"
    _model(path)
    model = NodePath(Loader.getGlobalPtr().loadSync(Filename.fromOsSpecific(str(path))))
    vertices, triangles = triangles_from_model(model)
    assert vertices.shape == (16, 3) and triangles.shape == (8, 3)
    assert vertices[:, 0].min() == pytest.approx(5.0)                  # transform applied
    mesh = NavMesh.from_triangles(vertices, triangles, cell_size=0.5, agent_radius=0.0, max_climb=0.3)
    ox = mesh.origin[0]
    assert math.isnan(mesh.height_at((ox + 15, 16.0)))                  # 40° slope: not walkable
    assert mesh.height_at((ox + 15, 5.0)) == pytest.approx(5 * math.tan(math.radians(15)), abs=0.1)
    r = mesh.find_path((ox + 2, 5.0, 0), (ox + 28, 5.0, 0))
    assert r.found and r.points[-1, 2] == pytest.approx(10 * math.tan(math.radians(15)), abs=0.1)
    samples = np.concatenate([np.linspace(a, b, 50) for a, b in zip(r.points[:-1, :2], r.points[1:, :2])])
    on_ramp = samples[(samples[:, 0] > ox + 11) & (samples[:, 0] < ox + 19)]
    assert len(on_ramp) > 10
    heights = np.array([mesh.height_at(p) for p in on_ramp])
    assert np.abs(heights - (on_ramp[:, 0] - ox - 10) * math.tan(math.radians(15))).max() < 0.25
