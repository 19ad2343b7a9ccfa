"""Scene geometry built from level data with numpy: the terrain, walls, and all units as one
dynamic mesh (a single draw call whatever the unit count)."""

from __future__ import annotations

import numpy as np
from panda3d.core import (
    Geom,
    GeomEnums,
    GeomNode,
    GeomTriangles,
    GeomVertexArrayFormat,
    GeomVertexData,
    GeomVertexFormat,
    NodePath,
)

__all__ = ["build_terrain", "UnitMesh", "TEAM_COLORS", "SELECTED_COLOR"]

TEAM_COLORS = {1: (0.15, 0.45, 1.0), 2: (0.95, 0.25, 0.15)}
SELECTED_COLOR = (1.0, 0.95, 0.2)


def _format(with_color: bool, color_array: bool = True) -> GeomVertexFormat:
    fmt = GeomVertexFormat()
    a = GeomVertexArrayFormat()
    a.addColumn("vertex", 3, Geom.NTFloat32, Geom.CPoint)
    if with_color and not color_array:
        a.addColumn("color", 4, Geom.NTFloat32, Geom.CColor)
    fmt.addArray(a)
    if with_color and color_array:
        c = GeomVertexArrayFormat()
        c.addColumn("color", 4, Geom.NTFloat32, Geom.CColor)
        fmt.addArray(c)
    return GeomVertexFormat.registerFormat(fmt)


def _write(vdata: GeomVertexData, index: int, values: np.ndarray) -> None:
    np.frombuffer(memoryview(vdata.modifyArray(index)).cast("B"), dtype=np.float32)[:] = \
        np.ascontiguousarray(values, np.float32).ravel()


def _mesh(name: str, vertices: np.ndarray, colors: np.ndarray, triangles: np.ndarray,
          usage=Geom.UHStatic) -> tuple[GeomNode, GeomVertexData]:
    vdata = GeomVertexData(name, _format(True), usage)
    vdata.uncleanSetNumRows(len(vertices))
    _write(vdata, 0, vertices)
    _write(vdata, 1, colors)
    prim = GeomTriangles(usage)
    prim.setIndexType(GeomEnums.NT_uint32)
    handle = prim.modifyVertices()
    handle.uncleanSetNumRows(triangles.size)
    np.frombuffer(memoryview(handle).cast("B"), dtype=np.uint32)[:] = np.ascontiguousarray(triangles, np.uint32).ravel()
    geom = Geom(vdata)
    geom.addPrimitive(prim)
    node = GeomNode(name)
    node.addGeom(geom)
    return node, vdata


def build_terrain(level, max_quads: int = 60_000) -> NodePath:
    """The ground as one mesh of flat-topped cells (merged into blocks on big maps) plus the
    sides of raised cells (walls, trees, cliffs), shaded by height and facing."""
    grid = level.grid
    h, w = grid.shape
    step = 1
    while (h // step) * (w // step) > max_quads:
        step *= 2
    hh, ww = h // step, w // step
    cs = grid.cell_size * step
    ox, oy = grid.origin
    ground = level.ground[: hh * step, : ww * step].reshape(hh, step, ww, step).max(axis=(1, 3))
    colors = level.colors[: hh * step, : ww * step].reshape(hh, step, ww, step, 3).mean(axis=(1, 3))
    lo, span = float(ground.min()), max(float(np.ptp(ground)), 1e-6)
    shade = 0.7 + 0.3 * (ground - lo) / span
    ys, xs = np.mgrid[0:hh, 0:ww]
    x0 = ox + xs * cs
    y0 = oy + ys * cs
    z = ground
    tops = np.stack([np.stack([x0, y0, z], -1), np.stack([x0 + cs, y0, z], -1),
                     np.stack([x0 + cs, y0 + cs, z], -1), np.stack([x0, y0 + cs, z], -1)], axis=2).reshape(-1, 4, 3)
    top_colors = np.concatenate([colors * shade[..., None], np.ones((hh, ww, 1))], -1).reshape(-1, 1, 4).repeat(4, 1)
    verts = [tops.reshape(-1, 3)]
    cols = [top_colors.reshape(-1, 4)]
    # side faces where a cell stands above its east / north neighbour (and the reverse)
    for axis, dx, dy in ((1, 1, 0), (0, 0, 1)):
        a = z[:, :-1] if axis == 1 else z[:-1, :]
        b = z[:, 1:] if axis == 1 else z[1:, :]
        m = np.abs(a - b) > 1e-3
        yy, xx = np.nonzero(m)
        za, zb = a[m], b[m]
        hi, lo_ = np.maximum(za, zb), np.minimum(za, zb)
        ex = ox + (xx + dx) * cs
        ey = oy + (yy + dy) * cs
        if axis == 1:
            quad = np.stack([np.stack([ex, ey, lo_], -1), np.stack([ex, ey + cs, lo_], -1),
                             np.stack([ex, ey + cs, hi], -1), np.stack([ex, ey, hi], -1)], 1)
            src = np.where((za > zb)[:, None], colors[yy, xx], colors[yy, xx + 1])
        else:
            quad = np.stack([np.stack([ex, ey, lo_], -1), np.stack([ex + cs, ey, lo_], -1),
                             np.stack([ex + cs, ey, hi], -1), np.stack([ex, ey, hi], -1)], 1)
            src = np.where((za > zb)[:, None], colors[yy, xx], colors[yy + 1, xx])
        side = np.concatenate([src * (0.55 if axis == 1 else 0.7), np.ones((len(src), 1))], -1)
        verts.append(quad.reshape(-1, 3))
        cols.append(side[:, None, :].repeat(4, 1).reshape(-1, 4))
    v = np.concatenate(verts)
    c = np.concatenate(cols)
    quads = len(v) // 4
    base = (np.arange(quads) * 4)[:, None]
    tris = np.concatenate([base + [0, 1, 2], base + [0, 2, 3]], axis=1).reshape(-1, 3)
    node, _ = _mesh("terrain", v, c, tris)
    np_ = NodePath(node)
    np_.setTwoSided(True)
    return np_


class UnitMesh:
    """Every unit as a small diamond with a nose in one dynamic mesh; ``update`` rewrites the
    vertex positions from an ``(N, 3)`` array and ``set_colors`` the per-unit colours."""

    def __init__(self, count: int, radius: float = 0.45, lift: float = 0.35) -> None:
        self.count = count
        self.radius = radius
        self.lift = lift
        tris = (np.arange(count) * 4)[:, None] + np.array([0, 1, 2, 0, 2, 3])
        verts = np.zeros((count * 4, 3), dtype=np.float32)
        colors = np.ones((count * 4, 4), dtype=np.float32)
        node, self.vdata = _mesh("units", verts, colors, tris.reshape(-1, 3), Geom.UHDynamic)
        self.node = NodePath(node)
        self.node.setTwoSided(True)

    def update(self, positions: np.ndarray, headings: np.ndarray) -> None:
        """Place unit ``i`` at ``positions[i]`` (world, ``(N, 3)``) pointing along
        ``headings[i]`` (``(N, 2)``)."""
        n = self.count
        r = self.radius
        hx = headings[:n, 0]
        hy = headings[:n, 1]
        norm = np.hypot(hx, hy)
        hx = np.where(norm > 1e-6, hx / np.maximum(norm, 1e-6), 1.0)
        hy = np.where(norm > 1e-6, hy / np.maximum(norm, 1e-6), 0.0)
        px, py = positions[:n, 0], positions[:n, 1]
        pz = positions[:n, 2] + self.lift
        # nose, left, tail, right
        corners = np.stack([
            np.stack([px + 1.6 * r * hx, py + 1.6 * r * hy, pz], -1),
            np.stack([px - r * hy, py + r * hx, pz], -1),
            np.stack([px - r * hx, py - r * hy, pz], -1),
            np.stack([px + r * hy, py - r * hx, pz], -1),
        ], axis=1)
        _write(self.vdata, 0, corners.reshape(-1, 3))

    def set_colors(self, rgb: np.ndarray) -> None:
        """Per-unit colours, ``(N, 3)`` in 0..1."""
        c = np.concatenate([rgb[: self.count], np.ones((self.count, 1))], axis=1)
        _write(self.vdata, 1, np.repeat(c, 4, axis=0))
