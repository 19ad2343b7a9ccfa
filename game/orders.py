"""Where a click lands: the ground point under a window pixel."""

from __future__ import annotations

import numpy as np

__all__ = ["ground_point"]

def ground_point(base, pixel: tuple[float, float], level, space=None) -> tuple[float, float, float] | None:
    """The world point under window ``pixel``: the camera ray marched over the terrain (world
    coordinates are those of ``space``, the scene's root; default ``render``)."""
    from panda3d.core import Point2, Point3

    width, height = base.win.getXSize(), base.win.getYSize()
    ndc = Point2(2 * pixel[0] / width - 1, 1 - 2 * pixel[1] / height)
    near, far = Point3(), Point3()
    base.camLens.extrude(ndc, near, far)
    root = space if space is not None else base.render
    a = np.array(root.getRelativePoint(base.cam, near))
    b = np.array(root.getRelativePoint(base.cam, far))
    grid = level.grid
    ts = np.linspace(0.0, 1.0, 4000)
    pts = a + (b - a) * ts[:, None]
    cells = grid.world_to_cells(pts)
    ok = (cells[:, 0] >= 0) & (cells[:, 0] < grid.width) & (cells[:, 1] >= 0) & (cells[:, 1] < grid.height)
    ground = np.full(len(pts), -np.inf)
    ground[ok] = level.ground[cells[ok, 1], cells[ok, 0]]
    hit = np.flatnonzero(ok & (pts[:, 2] <= ground))
    if len(hit) == 0:
        return None
    p = pts[hit[0]]
    return (float(p[0]), float(p[1]), float(ground[hit[0]]))
