"""The minimap: the level top-down in a corner (row 0 at the top, as `levels show` draws it),
units as team-coloured dots, the camera's aim as a white square. Left-click looks there,
right-click orders the selection there (the app routes clicks through ``world_point``)."""

from __future__ import annotations

import numpy as np
from panda3d.core import CardMaker, LineSegs, NodePath, PNMImage, StringStream, Texture

from .scene import _mesh

__all__ = ["Minimap"]


class Minimap:
    """A minimap of ``level`` drawn in ``base.pixel2d`` at the window's bottom-right corner."""

    def __init__(self, base, level, team_colors: dict[int, tuple[float, float, float]], size: float = 0.28) -> None:
        self.base, self.level, self.team_colors = base, level, team_colors
        grid = level.grid
        win_w, win_h = base.win.getXSize(), base.win.getYSize()
        side = size * win_h
        scale = side / max(grid.width, grid.height)
        self.w, self.h = grid.width * scale, grid.height * scale
        self.x0, self.y0 = win_w - self.w - 10, win_h - self.h - 10        # pixels, y down
        self.root = base.pixel2d.attachNewNode("minimap")
        frame = CardMaker("minimap-frame")
        frame.setFrame(self.x0 - 3, self.x0 + self.w + 3, -(self.y0 + self.h + 3), -(self.y0 - 3))
        frame_np = self.root.attachNewNode(frame.generate())
        frame_np.setColor(0, 0, 0, 0.8)
        frame_np.setTransparency(True)
        card = CardMaker("minimap")
        card.setFrame(self.x0, self.x0 + self.w, -(self.y0 + self.h), -self.y0)
        self.card = self.root.attachNewNode(card.generate())
        self.card.setTexture(self._texture())
        self.dots = self.root.attachNewNode("minimap-dots")
        self.dots.setTextureOff(1)

    def _texture(self) -> Texture:
        rgb = (np.clip(self.level.colors, 0, 1) * 255).astype(np.uint8)
        # power-of-two sides (nearest resampling): the software renderer samples nothing else
        side = 1 << int(np.ceil(np.log2(max(rgb.shape[:2]))))
        side = min(side, 512)
        ys = np.minimum((np.arange(side) * rgb.shape[0] / side).astype(int), rgb.shape[0] - 1)
        xs = np.minimum((np.arange(side) * rgb.shape[1] / side).astype(int), rgb.shape[1] - 1)
        rgb = np.ascontiguousarray(rgb[ys][:, xs])
        h, w = rgb.shape[:2]
        img = PNMImage()
        img.read(StringStream(f"P6\n{w} {h}\n255\n".encode() + rgb.tobytes()), "x.ppm")   # row 0 = top
        tex = Texture("minimap")
        tex.load(img)
        tex.setMagfilter(Texture.FTNearest)
        tex.setMinfilter(Texture.FTNearest)
        return tex

    def contains(self, pixel: tuple[float, float]) -> bool:
        """True when window ``pixel`` (x right, y down) is on the minimap."""
        return self.x0 <= pixel[0] <= self.x0 + self.w and self.y0 <= pixel[1] <= self.y0 + self.h

    def pixel_at(self, u: float, v: float) -> tuple[float, float]:
        """The window pixel at ``(u, v)`` across the minimap (0..1; (0, 0) is the top left)."""
        return (self.x0 + u * self.w, self.y0 + v * self.h)

    def world_point(self, pixel: tuple[float, float]) -> tuple[float, float, float] | None:
        """The world point (on the ground) under a minimap ``pixel``; None off the minimap."""
        if not self.contains(pixel):
            return None
        g = self.level.grid
        u = (pixel[0] - self.x0) / self.w
        v = (pixel[1] - self.y0) / self.h
        x = g.origin[0] + u * g.width * g.cell_size
        y = g.origin[1] + v * g.height * g.cell_size            # row 0 (north) at the top
        cx, cy = g.world_to_cell(x, y)
        cx, cy = min(max(cx, 0), g.width - 1), min(max(cy, 0), g.height - 1)
        return (x, y, float(self.level.ground[cy, cx]))

    def pixel_of(self, world: np.ndarray) -> np.ndarray:
        """Minimap pixels ``(N, 2)`` of world points ``(N, 2+)``."""
        g = self.level.grid
        u = (world[:, 0] - g.origin[0]) / (g.width * g.cell_size)
        v = (world[:, 1] - g.origin[1]) / (g.height * g.cell_size)
        return np.stack([self.x0 + u * self.w, self.y0 + v * self.h], axis=1)

    def update(self, positions: np.ndarray, teams: np.ndarray, view: np.ndarray) -> None:
        """Redraw the dots (units) and the outline of what the camera sees (``view``: world
        points of the screen's corners on the ground, ``(4, 2)``)."""
        self.dots.getChildren().detach()
        px = self.pixel_of(positions)
        # every unit a 2×2-pixel square, all in one mesh built from arrays (no per-unit calls)
        n = len(px)
        corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=np.float64)
        xy = px[:, None, :] + corners[None]
        verts = np.stack([xy[..., 0], np.zeros_like(xy[..., 0]), -xy[..., 1]], axis=-1).reshape(-1, 3)
        rgb = np.array([self.team_colors.get(int(t), (0.9, 0.9, 0.9)) for t in np.unique(teams)])
        colors = np.c_[rgb[np.searchsorted(np.unique(teams), teams)], np.ones(n)]
        quads = (np.arange(n) * 4)[:, None]
        tris = np.concatenate([quads + [0, 1, 2], quads + [0, 2, 3]], axis=1).reshape(-1, 3)
        node, _ = _mesh("minimap-units", verts, np.repeat(colors, 4, axis=0), tris)
        self.dots.attachNewNode(node).setTwoSided(True)
        corners = np.clip(self.pixel_of(view), [self.x0, self.y0], [self.x0 + self.w, self.y0 + self.h])
        segs = LineSegs("view")
        segs.setColor(1, 1, 1, 1)
        segs.moveTo(corners[-1, 0], 0, -corners[-1, 1])
        for x, y in corners:
            segs.drawTo(x, 0, -y)
        self.dots.attachNewNode(segs.create())

    def destroy(self) -> None:
        """Remove the minimap's nodes."""
        NodePath(self.root).removeNode()
