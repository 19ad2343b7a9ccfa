"""Pictures of levels: ``level_image`` draws terrain (shaded by height) with optional overlays as
an RGB array; ``write_png`` saves one (stdlib zlib only). Used by ``python -m rtsnav.levels show``."""

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


def level_image(level, scale: int = 4, paths=(), flow=None, clusters: int = 0, points=None,
                navmesh=None, query_layer=None, mesh_paths=()) -> np.ndarray:
    """``[H·scale, W·scale, 3] uint8`` picture of ``level``.

    Args:
        paths: ``(N, 2)`` cell paths drawn in red.
        flow: a ``FlowField`` whose directions are drawn as short strokes every few cells.
        clusters: draw a hierarchy's cluster borders every ``clusters`` cells (0 = none).
        points: ``(N, 2)`` world points (units) drawn as dots.
        navmesh: a ``NavMesh`` whose polygons are outlined.
        query_layer: a ``NavMesh`` whose query triangulation (pale) and convex corners (red) are
            drawn — what its exact queries search over.
        mesh_paths: ``(N, 2)`` world-point paths (navmesh results) drawn in blue.
    """
    colors = level.colors.astype(np.float32).copy()
    g = level.ground
    shade = 0.75 + 0.25 * (g - g.min()) / max(float(np.ptp(g)), 1e-6)
    img = (np.clip(colors * shade[..., None], 0, 1) * 255).astype(np.uint8)
    img = img.repeat(scale, 0).repeat(scale, 1)
    if clusters:
        img[::clusters * scale, :] = (240, 220, 60)
        img[:, ::clusters * scale] = (240, 220, 60)
    if navmesh is not None:
        for x0, y0, x1, y1 in navmesh.rects:
            img[y0 * scale, x0 * scale:x1 * scale] = (255, 255, 255)
            img[min(y1 * scale, img.shape[0] - 1), x0 * scale:x1 * scale] = (255, 255, 255)
            img[y0 * scale:y1 * scale, x0 * scale] = (255, 255, 255)
            img[y0 * scale:y1 * scale, min(x1 * scale, img.shape[1] - 1)] = (255, 255, 255)
    if query_layer is not None:
        pts, tris = query_layer.tri_points, query_layer.tri_triangles
        edges = np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]])
        _draw_segments(img, pts[edges[:, 0]] * scale, pts[edges[:, 1]] * scale, (225, 215, 140))
        corner = query_layer._query_tables()["corner_ids"]
        c = (pts[corner] * scale).astype(int)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                img[np.clip(c[:, 1] + dy, 0, img.shape[0] - 1), np.clip(c[:, 0] + dx, 0, img.shape[1] - 1)] = (230, 40, 40)
    for path in mesh_paths:
        p = np.asarray(path, dtype=np.float64)[:, :2] / level.grid.cell_size * scale
        _draw_segments(img, p[:-1], p[1:], (40, 120, 255))
    if flow is not None:
        step = max(2, 8 // scale + 2)
        h, w = level.grid.shape
        for y in range(step // 2, h, step):
            for x in range(step // 2, w, step):
                d = flow.direction[y, x]
                if not d.any():
                    continue
                cx, cy = (x + 0.5) * scale, (y + 0.5) * scale
                for t in np.linspace(0, step * scale * 0.45, 6):
                    px, py = int(cx + d[0] * t), int(cy + d[1] * t)
                    if 0 <= py < img.shape[0] and 0 <= px < img.shape[1]:
                        img[py, px] = (255, 255, 255)
    for path in paths:
        p = np.asarray(path, dtype=np.float64)
        for a, b in zip(p[:-1], p[1:]):
            n = int(max(abs(b - a)) * scale) + 1
            for t in np.linspace(0, 1, n + 1):
                x, y = ((a + (b - a) * t) + 0.5) * scale
                img[int(y) - 1:int(y) + 1, int(x) - 1:int(x) + 1] = (220, 30, 30)
    if points is not None and len(points):
        pts = (np.asarray(points)[:, :2] / level.grid.cell_size * scale).astype(int)
        for x, y in pts:
            img[max(0, y - 1):y + 2, max(0, x - 1):x + 2] = (30, 60, 220)
    return img


def _draw_segments(img: np.ndarray, a: np.ndarray, b: np.ndarray, color) -> None:
    """One-pixel lines from each ``a[i]`` to ``b[i]`` (pixel coordinates), vectorised."""
    if len(a) == 0:
        return
    n = (np.abs(b - a).max(axis=1) + 1).astype(np.int64) + 1
    seg = np.repeat(np.arange(len(a)), n)
    t = (np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)) / np.repeat(n - 1, n)
    p = a[seg] + (b - a)[seg] * t[:, None]
    x = np.clip(p[:, 0].astype(np.int64), 0, img.shape[1] - 1)
    y = np.clip(p[:, 1].astype(np.int64), 0, img.shape[0] - 1)
    img[y, x] = color
