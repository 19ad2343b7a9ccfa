"""Pictures of levels: ``level_image`` draws terrain (shaded by height) with the overlays of a
``DebugDraw`` (the core's debug-draw layer, shared with the 3D demo) and a legend, as an RGB
array; ``write_png`` saves one (stdlib zlib only). Used by ``python -m rtsnav.levels show``."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

__all__ = ["level_image", "layered_image", "write_png"]


def write_png(path: str | Path, rgb: np.ndarray) -> None:
    """Write an ``[H, W, 3] uint8`` image as PNG."""
    img = np.ascontiguousarray(rgb, dtype=np.uint8)
    h, w, _ = img.shape
    raw = b"".join(b"\x00" + img[y].tobytes() for y in range(h))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    Path(path).write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                           + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def level_image(level, scale: int = 4, draw=None, query_layer=None) -> np.ndarray:
    """``[H·scale + legend, W·scale, 3] uint8`` picture of ``level``: terrain shaded by height,
    the overlays of ``draw`` (a ``DebugDraw`` from ``rtsnav.systems.nav.debug_draw`` — the same
    arrays the 3D demo draws) and, below the map, a legend of what each colour means. Row 0 of
    the level is at the top (north).

    ``query_layer``: a ``NavMesh`` whose query triangulation (pale) and convex corners (red) are
    drawn — what its exact queries search over.
    """
    colors = level.colors.astype(np.float32).copy()
    g = level.ground
    shade = 0.75 + 0.25 * (g - g.min()) / max(float(np.ptp(g)), 1e-6)
    img = (np.clip(colors * shade[..., None], 0, 1) * 255).astype(np.uint8)
    img = img.repeat(scale, 0).repeat(scale, 1)
    grid = level.grid
    to_px = lambda w: (np.asarray(w)[..., :2] - np.array(grid.origin)) / grid.cell_size * scale  # noqa: E731
    legend = []
    if query_layer is not None:
        pts, tris = query_layer.tri_points, query_layer.tri_triangles
        edges = np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]])
        _draw_segments(img, pts[edges[:, 0]] * scale, pts[edges[:, 1]] * scale, (225, 215, 140))
        corner = query_layer.convex_corners()
        _draw_dots(img, pts[corner] * scale, np.tile([230, 40, 40], (len(corner), 1)), 1)
        legend += [("query triangulation", (0.88, 0.84, 0.55, 1.0)), ("convex corners", (0.9, 0.16, 0.16, 1.0))]
    if draw is not None and not draw.empty:
        rgb = (np.clip(draw.segment_colors[:, :3], 0, 1) * 255).astype(np.uint8)
        thick = 2 if scale >= 6 else 1
        for dx in range(thick):
            for dy in range(thick):
                _draw_segments(img, to_px(draw.segments[:, 0]) + (dx, dy), to_px(draw.segments[:, 1]) + (dx, dy), rgb)
        _draw_dots(img, to_px(draw.points), (np.clip(draw.point_colors[:, :3], 0, 1) * 255).astype(np.uint8),
                   max(1, scale // 3))
        legend += draw.legend
    return _with_legend(img, legend)


def layered_image(mesh, scale: int = 4, paths=()) -> np.ndarray:
    """``[H·scale + legend, W·scale, 3] uint8`` top-down picture of a ``LayeredNavMesh``: each
    cell in the colour of its top surface (green low to sand high), cells where one surface
    lies over another striped with the colour of the one beneath, cells too near an edge for an
    agent (eroded) dimmed, and ``paths`` — ``(points (N, 3), rgb 0..1, label)`` — drawn over it,
    with a legend. Row 0 (the lowest y) is at the top, as in ``level_image``."""
    h, w = mesh.shape
    start = mesh.cell_start
    count = np.diff(start)
    z = mesh.span_z
    lo, hi = (float(z.min()), float(z.max())) if len(z) else (0.0, 1.0)
    t = ((z - lo) / max(hi - lo, 1e-6))[:, None]
    rgb = (1 - t) * np.array([0.42, 0.62, 0.38]) + t * np.array([0.93, 0.78, 0.46])
    rgb = np.where(mesh.open[:, None], rgb, rgb * 0.55)
    top = np.full((h * w, 3), 0.16)
    under = top.copy()
    has = count > 0
    top[has] = rgb[start[1:][has] - 1]
    stacked = count > 1
    under[stacked] = rgb[start[:-1][stacked]]
    top_img = top.reshape(h, w, 3).repeat(scale, 0).repeat(scale, 1)
    under_img = under.reshape(h, w, 3).repeat(scale, 0).repeat(scale, 1)
    stack_img = stacked.reshape(h, w).repeat(scale, 0).repeat(scale, 1)
    yy, xx = np.mgrid[0:h * scale, 0:w * scale]
    stripe = stack_img & ((xx + yy) % 8 < 3)
    img = (np.clip(np.where(stripe[..., None], under_img, top_img), 0, 1) * 255).astype(np.uint8)
    cs = mesh.config.cell_size
    legend = [("ground (low)", (0.42, 0.62, 0.38, 1.0)), (f"high ({hi:.1f})", (0.93, 0.78, 0.46, 1.0)),
              ("stripes: a surface beneath", (0.6, 0.6, 0.6, 1.0)), ("dimmed: too near an edge", (0.3, 0.3, 0.3, 1.0))]
    for points, color, label in paths:
        px = (np.asarray(points)[:, :2] - np.array(mesh.origin)) / cs * scale
        c = (np.clip(np.asarray(color), 0, 1) * 255).astype(np.uint8)
        for dx in range(2):
            for dy in range(2):
                _draw_segments(img, px[:-1] + (dx, dy), px[1:] + (dx, dy), c)
        _draw_dots(img, px[[0, -1]], np.tile(c, (2, 1)), max(1, scale))
        legend.append((label, (*color, 1.0)))
    return _with_legend(img, legend)


def _draw_dots(img: np.ndarray, px: np.ndarray, rgb: np.ndarray, half: int) -> None:
    if len(px) == 0:
        return
    c = px.astype(np.int64)
    for dx in range(-half, half + 1):
        for dy in range(-half, half + 1):
            img[np.clip(c[:, 1] + dy, 0, img.shape[0] - 1), np.clip(c[:, 0] + dx, 0, img.shape[1] - 1)] = rgb


def _with_legend(img: np.ndarray, entries) -> np.ndarray:
    """``img`` with a dark band below it: a colour swatch and a name per legend entry."""
    if not entries:
        return img
    from .tiny_font import GLYPH_H, text_mask

    scale = 2
    line_h = GLYPH_H * scale + 8
    per_row = max(1, img.shape[1] // 260)
    rows = -(-len(entries) // per_row)
    band = np.full((rows * line_h + 8, img.shape[1], 3), 24, dtype=np.uint8)
    col_w = img.shape[1] // per_row
    for k, (name, rgba) in enumerate(entries):
        y0 = 6 + (k // per_row) * line_h
        x0 = 6 + (k % per_row) * col_w
        band[y0:y0 + GLYPH_H * scale, x0:x0 + 14] = (np.clip(np.asarray(rgba[:3]), 0, 1) * 255).astype(np.uint8)
        mask = text_mask(str(name)[: max(1, (col_w - 30) // (4 * scale))], scale)
        h, w = mask.shape
        w = min(w, band.shape[1] - (x0 + 20))
        band[y0:y0 + h, x0 + 20:x0 + 20 + w][mask[:, :w]] = (235, 235, 235)
    return np.concatenate([img, band], axis=0)


def _draw_segments(img: np.ndarray, a: np.ndarray, b: np.ndarray, color) -> None:
    """One-pixel lines from each ``a[i]`` to ``b[i]`` (pixel coordinates), vectorised; ``color``
    one RGB for all or one per segment."""
    if len(a) == 0:
        return
    n = (np.abs(b - a).max(axis=1) + 1).astype(np.int64) + 1
    seg = np.repeat(np.arange(len(a)), n)
    t = (np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)) / np.repeat(n - 1, n)
    p = a[seg] + (b - a)[seg] * t[:, None]
    x = np.clip(p[:, 0].astype(np.int64), 0, img.shape[1] - 1)
    y = np.clip(p[:, 1].astype(np.int64), 0, img.shape[0] - 1)
    color = np.asarray(color)
    img[y, x] = color[seg] if color.ndim == 2 else color
