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

__all__ = ["build_terrain", "drawn_ground", "ground_under", "build_blocks", "UnitMesh", "RingMesh", "TEAM_COLORS"]

TEAM_COLORS = {1: (0.15, 0.45, 1.0), 2: (0.95, 0.25, 0.15)}


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


def mesh_node(name: str, vertices: np.ndarray, colors: np.ndarray, triangles: np.ndarray,
              dynamic: bool = False) -> tuple[GeomNode, GeomVertexData]:
    """A ``GeomNode`` of triangles with per-vertex RGBA colours, and its vertex data (with
    ``dynamic``, rewrite its positions each frame through ``write_column(vdata, 0, …)``)."""
    return _mesh(name, vertices, colors, triangles, Geom.UHDynamic if dynamic else Geom.UHStatic)


def write_column(vdata: GeomVertexData, index: int, values: np.ndarray) -> None:
    """Overwrite column array ``index`` of ``vdata`` (0: positions, 1: colours) from ``values``."""
    _write(vdata, index, values)


MAX_TERRAIN_QUADS = 60_000


def drawn_ground(level, max_quads: int = MAX_TERRAIN_QUADS) -> tuple[int, np.ndarray]:
    """``(step, heights)``: the terrain mesh merges ``step``² cells into one flat block (big maps)
    at the block's mean height; ``heights[y // step, x // step]`` is where the drawn ground is,
    so units stand on it rather than in it."""
    h, w = level.grid.shape
    step = 1
    while (h // step) * (w // step) > max_quads:
        step *= 2
    hh, ww = max(h // step, 1), max(w // step, 1)
    ground = level.ground[: hh * step, : ww * step].reshape(hh, step, ww, step).mean(axis=(1, 3))
    return step, ground


def ground_under(level, step: int, heights: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Height of the drawn ground under world ``points`` (``(N, 2+)``)."""
    cells = level.grid.world_to_cells(points)
    by = np.clip(cells[:, 1] // step, 0, heights.shape[0] - 1)
    bx = np.clip(cells[:, 0] // step, 0, heights.shape[1] - 1)
    return heights[by, bx]


def _hillshade(ground: np.ndarray, spacing: float) -> np.ndarray:
    """Brightness per block from its slope, lit from the north-west (the file's top left): 1 on
    flat ground, brighter on slopes facing the light, darker away from it, so hills read."""
    if min(ground.shape) < 2:
        return np.ones_like(ground)
    dz_dy, dz_dx = np.gradient(ground.astype(np.float64), spacing)
    normal = np.stack([-dz_dx, -dz_dy, np.ones_like(dz_dx)], -1)
    normal /= np.linalg.norm(normal, axis=-1, keepdims=True)
    sun = np.array([-1.0, -1.0, 1.2])                  # world y grows southwards: -y is north
    sun /= np.linalg.norm(sun)
    return np.clip(1.0 + 1.6 * (normal @ sun - sun[2]), 0.45, 1.3)


def build_terrain(level, max_quads: int = MAX_TERRAIN_QUADS) -> NodePath:
    """The ground as one mesh of flat-topped cells (merged into blocks on big maps) plus the
    sides of raised cells (walls, trees, cliffs), shaded by height and facing."""
    grid = level.grid
    step, ground = drawn_ground(level, max_quads)
    hh, ww = ground.shape
    cs = grid.cell_size * step
    ox, oy = grid.origin
    colors = level.colors[: hh * step, : ww * step].reshape(hh, step, ww, step, 3).mean(axis=(1, 3))
    lo, span = float(ground.min()), max(float(np.ptp(ground)), 1e-6)
    shade = (0.8 + 0.2 * (ground - lo) / span) * _hillshade(ground, cs)
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

    def __init__(self, count: int, radius: "float | np.ndarray" = 0.35, lift: float = 0.35) -> None:
        self.count = count
        self.radius = np.broadcast_to(np.asarray(radius, dtype=np.float64), (count,))     # per unit
        self.lift = lift
        tris = (np.arange(count) * 4)[:, None] + np.array([0, 1, 2, 0, 2, 3])
        verts = np.zeros((count * 4, 3), dtype=np.float32)
        colors = np.ones((count * 4, 4), dtype=np.float32)
        node, self.vdata = _mesh("units", verts, colors, tris.reshape(-1, 3), Geom.UHDynamic)
        self.node = NodePath(node)
        self.node.setTwoSided(True)

    def update(self, positions: np.ndarray, headings: np.ndarray, shown: np.ndarray | None = None) -> None:
        """Place unit ``i`` at ``positions[i]`` (world, ``(N, 3)``) pointing along
        ``headings[i]`` (``(N, 2)``); units not ``shown`` (the dead) shrink to nothing."""
        n = self.count
        r = self.radius if shown is None else np.where(shown[:n], self.radius, 0.0)
        lift = self.lift * self.radius / 0.35                      # a wide unit stands on the ground too
        hx = headings[:n, 0]
        hy = headings[:n, 1]
        norm = np.hypot(hx, hy)
        hx = np.where(norm > 1e-6, hx / np.maximum(norm, 1e-6), 1.0)
        hy = np.where(norm > 1e-6, hy / np.maximum(norm, 1e-6), 0.0)
        px, py = positions[:n, 0], positions[:n, 1]
        pz = positions[:n, 2] + lift
        # nose, left, tail, right
        corners = np.stack([
            np.stack([px + 1.3 * r * hx, py + 1.3 * r * hy, pz], -1),
            np.stack([px - r * hy, py + r * hx, pz], -1),
            np.stack([px - r * hx, py - r * hy, pz], -1),
            np.stack([px + r * hy, py - r * hx, pz], -1),
        ], axis=1)
        _write(self.vdata, 0, corners.reshape(-1, 3))

    def set_colors(self, rgb: np.ndarray) -> None:
        """Per-unit colours, ``(N, 3)`` in 0..1."""
        c = np.concatenate([rgb[: self.count], np.ones((self.count, 1))], axis=1)
        _write(self.vdata, 1, np.repeat(c, 4, axis=0))


def build_blocks(level, cells: np.ndarray, height: float, rgb: tuple[float, float, float],
                 name: str = "blocks") -> NodePath:
    """A raised box on each of ``cells`` (``(N, 2)`` x, y) standing ``height`` above the ground:
    gates, drawn closed or open."""
    grid = level.grid
    cells = np.asarray(cells, dtype=np.int64).reshape(-1, 2)
    cs = grid.cell_size
    x0 = grid.origin[0] + cells[:, 0] * cs
    y0 = grid.origin[1] + cells[:, 1] * cs
    z0 = level.ground[cells[:, 1], cells[:, 0]].astype(np.float64)
    z1 = z0 + height
    inset = 0.08 * cs
    xa, xb, ya, yb = x0 + inset, x0 + cs - inset, y0 + inset, y0 + cs - inset
    corners = [np.stack([xa, ya], -1), np.stack([xb, ya], -1), np.stack([xb, yb], -1), np.stack([xa, yb], -1)]
    quads, shades = [], []
    top = np.stack([np.c_[c, z1] for c in corners], axis=1)
    quads.append(top)
    shades.append(1.0)
    for k in range(4):                                  # four sides
        a, b = corners[k], corners[(k + 1) % 4]
        quads.append(np.stack([np.c_[a, z0], np.c_[b, z0], np.c_[b, z1], np.c_[a, z1]], axis=1))
        shades.append(0.6 + 0.1 * k)
    v = np.concatenate([q.reshape(-1, 3) for q in quads])
    c = np.concatenate([np.tile(np.r_[np.array(rgb) * s, 1.0], (len(q) * 4, 1)) for q, s in zip(quads, shades)])
    n = len(v) // 4
    base = (np.arange(n) * 4)[:, None]
    tris = np.concatenate([base + [0, 1, 2], base + [0, 2, 3]], axis=1).reshape(-1, 3)
    node, _ = _mesh(name, v, c, tris)
    out = NodePath(node)
    out.setTwoSided(True)
    out.setLightOff()
    return out


class RingMesh:
    """A flat ring under each unit, one dynamic mesh: the selection marker, in team colour.
    ``update`` places rings at the given positions; units not shown get a ring of size 0."""

    SEGMENTS = 12

    def __init__(self, count: int, radius: float = 0.55, width: float = 0.12, lift: float = 0.12) -> None:
        self.count, self.radius, self.width, self.lift = count, radius, width, lift
        k = self.SEGMENTS
        a = np.linspace(0, 2 * np.pi, k, endpoint=False)
        self._cos, self._sin = np.cos(a), np.sin(a)
        # per unit 2k vertices (inner, outer per angle), 2k triangles
        i = np.arange(k)
        j = (i + 1) % k
        one = np.stack([np.stack([2 * i, 2 * i + 1, 2 * j + 1], -1), np.stack([2 * i, 2 * j + 1, 2 * j], -1)],
                       axis=1).reshape(-1, 3)
        tris = (np.arange(count) * 2 * k)[:, None, None] + one[None]
        verts = np.zeros((count * 2 * k, 3), dtype=np.float32)
        colors = np.ones((count * 2 * k, 4), dtype=np.float32)
        node, self.vdata = _mesh("rings", verts, colors, tris.reshape(-1, 3), Geom.UHDynamic)
        self.node = NodePath(node)
        self.node.setTwoSided(True)
        self.node.setLightOff()

    def update(self, positions: np.ndarray, shown: np.ndarray) -> None:
        """Rings at ``positions`` (``(N, 3)``) where ``shown``; none elsewhere."""
        n = self.count
        scale = np.where(shown[:n], 1.0, 0.0)
        r_in = (self.radius - self.width) * scale
        r_out = self.radius * scale
        px, py, pz = positions[:n, 0], positions[:n, 1], positions[:n, 2] + self.lift
        radii = np.stack([r_in, r_out], axis=1)                                 # (n, 2)
        x = px[:, None, None] + radii[:, None, :] * self._cos[None, :, None]    # (n, k, 2)
        y = py[:, None, None] + radii[:, None, :] * self._sin[None, :, None]
        z = np.broadcast_to(pz[:, None, None], x.shape)
        _write(self.vdata, 0, np.stack([x, y, z], axis=-1).reshape(-1, 3))

    def set_colors(self, rgb: np.ndarray) -> None:
        """Per-unit ring colours, ``(N, 3)`` in 0..1."""
        c = np.concatenate([rgb[: self.count], np.ones((self.count, 1))], axis=1)
        _write(self.vdata, 1, np.repeat(c, 2 * self.SEGMENTS, axis=0))
