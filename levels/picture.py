"""Pictures of levels: ``level_image`` draws terrain (shaded by height) with the overlays of a
``DebugDraw`` (the core's debug-draw layer, shared with the 3D demo) and a legend, as an RGB
array; ``write_png`` saves one (stdlib zlib only). Used by ``python -m rtsnav.levels show``."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

__all__ = ["level_image", "write_png"]


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
