"""The demo's camera: an orbit over the map (target, heading, distance), framing units, panning
with keys or the window edge, rotating, zooming, and the part of the ground it sees."""

from __future__ import annotations

import math

import numpy as np

from .selection import project_to_screen

__all__ = ["Camera"]

#: The window border (a fraction of its size) where the mouse pans the view.
EDGE = 0.02
#: How far past the map's edge the camera's target may go (a fraction of the map's size).
BOUNDS_MARGIN = 0.1
#: Closest and farthest zoom: world units, and a multiple of the map's larger side.
MIN_DISTANCE, MAX_DISTANCE_MAPS = 10.0, 3.0


class Camera:
    """An orbit camera over ``scene`` (the world's root node). It lives in render space: world
    ``(x, y)`` is drawn at ``(x, -y)`` (row 0 of the level at the top of the screen).

    Attributes:
        target: world ``(3,)`` point it looks at; ``heading`` degrees; ``distance`` world units.
        following: the app keeps ``target`` on the selection's centre.
        bounds: world ``(x0, y0, x1, y1)`` of the map: the target stays within it (plus
            ``BOUNDS_MARGIN``) and the zoom within ``MIN_DISTANCE`` .. ``MAX_DISTANCE_MAPS`` × its
            larger side, whatever pans, zooms, follows or frames it.
    """

    def __init__(self, base, scene, target: np.ndarray, distance: float,
                 bounds: tuple[float, float, float, float] | None = None) -> None:
        self._base, self._scene = base, scene
        self.bounds = bounds
        self.target = np.asarray(target, dtype=np.float64)
        self.heading = 0.0
        self.distance = float(distance)
        self.following = False
        base.disableMouse()
        self.place()

    def place(self) -> None:
        """Put the Panda3D camera where ``target``, ``heading`` and ``distance`` say (kept on
        the map first: every move of the camera ends here)."""
        if self.bounds is not None:
            x0, y0, x1, y1 = self.bounds
            mx, my = BOUNDS_MARGIN * (x1 - x0), BOUNDS_MARGIN * (y1 - y0)
            if not np.isfinite(self.target).all():
                self.target = np.array([(x0 + x1) / 2, (y0 + y1) / 2, 0.0])
            self.target[0] = min(max(self.target[0], x0 - mx), x1 + mx)
            self.target[1] = min(max(self.target[1], y0 - my), y1 + my)
            far = MAX_DISTANCE_MAPS * max(x1 - x0, y1 - y0, MIN_DISTANCE)
            self.distance = float(min(max(self.distance, MIN_DISTANCE), far)) if math.isfinite(self.distance) else far
        h = math.radians(self.heading)
        d = self.distance
        tx, ty, tz = self.target[0], -self.target[1], self.target[2]
        self._base.camera.setPos(tx - math.sin(h) * d * 0.6, ty - math.cos(h) * d * 0.6, tz + d * 0.8)
        self._base.camera.lookAt(tx, ty, tz)
        self._base.camLens.setNearFar(1.0, d * 4)

    def look_at(self, point) -> None:
        """Look at world ``point`` (``(3,)``)."""
        self.target = np.array(point, dtype=np.float64)
        self.place()

    def frame(self, positions: np.ndarray, margin: float = 0.08) -> None:
        """Look at world ``positions`` (``(N, 3)``) and zoom until every one is on screen."""
        if len(positions) == 0:
            return
        lo, hi = positions.min(axis=0), positions.max(axis=0)
        self.target = np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, float(np.median(positions[:, 2]))])
        self.distance = float(max(np.hypot(hi[0] - lo[0], hi[1] - lo[1]), 20.0))
        w, h = self._base.win.getXSize(), self._base.win.getYSize()
        for _ in range(30):
            self.place()
            screen, front = project_to_screen(self._base, positions, self._scene)
            inside = front & (screen[:, 0] >= margin * w) & (screen[:, 0] <= (1 - margin) * w) & \
                (screen[:, 1] >= margin * h) & (screen[:, 1] <= (1 - margin) * h)
            if inside.all():
                break
            self.distance *= 1.15

    def zoom(self, factor: float, toward=None) -> None:
        """Move in (``factor`` < 1) or out, within the zoom limits; ``toward`` (a world point,
        the one under the cursor): the target moves toward it as the view closes in, so the
        point under the cursor stays under it (RTS wheel zoom)."""
        before = self.distance
        limit = MAX_DISTANCE_MAPS * max(self.bounds[2] - self.bounds[0], self.bounds[3] - self.bounds[1],
                                        MIN_DISTANCE) if self.bounds is not None else 2000.0
        self.distance = float(np.clip(self.distance * factor, MIN_DISTANCE, limit))
        if toward is not None and np.isfinite(toward).all():
            share = 1.0 - self.distance / before
            self.target[:2] += share * (np.asarray(toward, dtype=np.float64)[:2] - self.target[:2])
        self.place()

    def pan(self, dx: float, dy: float) -> None:
        """Move the target by world ``(dx, dy)`` (kept on the map)."""
        self.target[0] += dx
        self.target[1] += dy
        self.place()

    def move(self, dt: float, pan: set, rotate: set, mouse: tuple[float, float] | None) -> None:
        """Pan by the held directions ``pan`` (``(dx, dy)`` screen steps) and the mouse at the
        window's edge (``mouse`` pixel, None without one), rotate by ``rotate`` (±1 each)."""
        pan = set(pan)
        if mouse is not None:
            w, h = self._base.win.getXSize(), self._base.win.getYSize()
            if mouse[0] < EDGE * w:
                pan.add((-1, 0))
            elif mouse[0] > (1 - EDGE) * w:
                pan.add((1, 0))
            if mouse[1] < EDGE * h:
                pan.add((0, 1))
            elif mouse[1] > (1 - EDGE) * h:
                pan.add((0, -1))
        if pan:
            h = math.radians(self.heading)
            mx = sum(v[0] for v in pan)
            my = sum(v[1] for v in pan)
            speed = self.distance * 0.8 * dt
            self.target[0] += (mx * math.cos(h) + my * math.sin(h)) * speed
            self.target[1] -= (-mx * math.sin(h) + my * math.cos(h)) * speed    # screen up is north: -y
            self.place()
        if rotate:
            self.heading += sum(rotate) * 90 * dt
            self.place()

    def view_on_ground(self) -> np.ndarray:
        """World ``(4, 2)``: where the screen's corners meet the ground plane through the
        target (rays above the horizon are cut at four camera distances)."""
        from panda3d.core import Point2, Point3

        out = np.zeros((4, 2))
        lens = self._base.camLens
        for k, (u, v) in enumerate(((-1, 1), (1, 1), (1, -1), (-1, -1))):
            near, far = Point3(), Point3()
            lens.extrude(Point2(u, v), near, far)
            a = np.array(self._scene.getRelativePoint(self._base.cam, near))
            b = np.array(self._scene.getRelativePoint(self._base.cam, far))
            z = self.target[2]
            t = (z - a[2]) / (b[2] - a[2]) if abs(b[2] - a[2]) > 1e-9 else 1.0
            out[k] = (a + (b - a) * float(np.clip(t, 0.0, 1.0)))[:2]
        return out
