"""Screen projection of many units at once, and box / click selection."""

from __future__ import annotations

import numpy as np

__all__ = ["project_to_screen", "units_in_box", "nearest_unit"]


def project_to_screen(base, points: np.ndarray, space=None) -> tuple[np.ndarray, np.ndarray]:
    """Points ``(N, 3)`` of ``space`` (a NodePath; default ``render``) -> window pixels ``(N, 2)``
    (x right, y down) and a mask of the points in front of the camera, using the camera's own
    matrices (one numpy product)."""
    cam = base.cam
    lens = cam.node().getLens()
    world_to_cam = (space if space is not None else base.render).getMat(cam)   # row vectors: p_cam = p @ M
    view = np.array([[world_to_cam.getCell(r, c) for c in range(4)] for r in range(4)])
    proj_m = lens.getProjectionMat()
    proj = np.array([[proj_m.getCell(r, c) for c in range(4)] for r in range(4)])
    p = np.c_[np.asarray(points, dtype=np.float64)[:, :3], np.ones(len(points))]
    clip = p @ view @ proj
    w = clip[:, 3]
    front = w > 1e-9
    ndc = clip[:, :2] / np.where(front, w, 1.0)[:, None]
    width, height = base.win.getXSize(), base.win.getYSize()
    screen = np.c_[(ndc[:, 0] + 1) * 0.5 * width, (1 - ndc[:, 1]) * 0.5 * height]
    return screen, front


def units_in_box(base, points: np.ndarray, box: tuple[float, float, float, float], space=None) -> np.ndarray:
    """Indices of the points whose screen position lies in ``box`` = (x0, y0, x1, y1) pixels."""
    screen, front = project_to_screen(base, points, space)
    x0, x1 = sorted((box[0], box[2]))
    y0, y1 = sorted((box[1], box[3]))
    inside = front & (screen[:, 0] >= x0) & (screen[:, 0] <= x1) & (screen[:, 1] >= y0) & (screen[:, 1] <= y1)
    return np.flatnonzero(inside)


def nearest_unit(base, points: np.ndarray, pixel: tuple[float, float], reach: float = 12.0,
                 space=None) -> int | None:
    """Index of the unit drawn closest to ``pixel`` within ``reach`` pixels, or None."""
    if len(points) == 0:
        return None
    screen, front = project_to_screen(base, points, space)
    d = np.hypot(screen[:, 0] - pixel[0], screen[:, 1] - pixel[1])
    d[~front] = np.inf
    i = int(np.argmin(d))
    return i if d[i] <= reach else None
