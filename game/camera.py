"""The demo's camera: an orbit over the map (target, heading, distance), framing units, panning
with keys or the window edge, the minimap's view outline, jump to and follow the selection."""

from __future__ import annotations

import math

import numpy as np

from .parts import AppParts
from .selection import project_to_screen

__all__ = ["CameraMixin"]


class CameraMixin(AppParts):
    """Camera control of ``RtsApp``. The camera lives in render space: world ``(x, y)`` is drawn
    at ``(x, -y)`` (row 0 of the level at the top of the screen)."""

    def _place_camera(self) -> None:
        # the camera lives in render space: the world point (x, y) is drawn at (x, -y)
        h = math.radians(self.cam_heading)
        d = self.cam_distance
        tx, ty, tz = self.cam_target[0], -self.cam_target[1], self.cam_target[2]
        self.base.camera.setPos(tx - math.sin(h) * d * 0.6, ty - math.cos(h) * d * 0.6, tz + d * 0.8)
        self.base.camera.lookAt(tx, ty, tz)
        self.base.camLens.setNearFar(1.0, d * 4)

    def frame_units(self, entities: list[int], margin: float = 0.08) -> None:
        """Point the camera at ``entities`` and zoom until every one is on screen."""
        if not entities:
            return
        pos = self.navigation.positions(entities)
        lo, hi = pos.min(axis=0), pos.max(axis=0)
        self.cam_target = np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, float(np.median(pos[:, 2]))])
        self.cam_distance = float(max(np.hypot(hi[0] - lo[0], hi[1] - lo[1]), 20.0))
        w, h = self.base.win.getXSize(), self.base.win.getYSize()
        for _ in range(30):
            self._place_camera()
            screen, front = project_to_screen(self.base, pos, self.scene)
            inside = front & (screen[:, 0] >= margin * w) & (screen[:, 0] <= (1 - margin) * w) & \
                (screen[:, 1] >= margin * h) & (screen[:, 1] <= (1 - margin) * h)
            if inside.all():
                break
            self.cam_distance *= 1.15

    def view_on_ground(self) -> np.ndarray:
        """World ``(4, 2)``: where the screen's corners meet the ground plane through the camera's
        target (rays above the horizon are cut at four camera distances)."""
        from panda3d.core import Point2, Point3

        out = np.zeros((4, 2))
        lens = self.base.camLens
        for k, (u, v) in enumerate(((-1, 1), (1, 1), (1, -1), (-1, -1))):
            near, far = Point3(), Point3()
            lens.extrude(Point2(u, v), near, far)
            a = np.array(self.scene.getRelativePoint(self.base.cam, near))
            b = np.array(self.scene.getRelativePoint(self.base.cam, far))
            z = self.cam_target[2]
            t = (z - a[2]) / (b[2] - a[2]) if abs(b[2] - a[2]) > 1e-9 else 1.0
            out[k] = (a + (b - a) * float(np.clip(t, 0.0, 1.0)))[:2]
        return out

    def minimap_point(self, pixel: tuple[float, float]) -> tuple[float, float, float] | None:
        """The world point under a minimap ``pixel`` (None when the pixel is not on it)."""
        return self.minimap.world_point(pixel)

    def look_at_minimap(self, pixel: tuple[float, float]) -> bool:
        """Left-click on the minimap: the camera looks at that point of the map."""
        p = self.minimap.world_point(pixel)
        if p is None:
            return False
        self.cam_target = np.array(p, dtype=np.float64)
        self._place_camera()
        return True

    def jump_to_selection(self) -> None:
        """C: centre the camera on the selection (zoomed to fit it)."""
        units = [self.entities[i] for i in self.selected_units().tolist()]
        if units:
            self.frame_units(units)

    def toggle_follow(self) -> bool:
        """V: the camera follows the selection's centre."""
        self.following = not self.following
        return self.following

    def _zoom(self, factor: float) -> None:
        self.cam_distance = float(np.clip(self.cam_distance * factor, 10, 2000))
        self._place_camera()

    def _move_camera(self, dt: float) -> None:
        """Pan (keys, or the mouse at the window's edge) and rotate the camera."""
        pan = set(self.intent.get("pan", set()))
        if not self.headless:                      # edge pan: the mouse at the window border
            pixel = self._mouse_pixel()
            if pixel is not None:
                w, h = self.base.win.getXSize(), self.base.win.getYSize()
                edge = 0.02
                if pixel[0] < edge * w:
                    pan.add((-1, 0))
                elif pixel[0] > (1 - edge) * w:
                    pan.add((1, 0))
                if pixel[1] < edge * h:
                    pan.add((0, 1))
                elif pixel[1] > (1 - edge) * h:
                    pan.add((0, -1))
        if pan:
            h = math.radians(self.cam_heading)
            mx = sum(v[0] for v in pan)
            my = sum(v[1] for v in pan)
            speed = self.cam_distance * 0.8 * dt
            self.cam_target[0] += (mx * math.cos(h) + my * math.sin(h)) * speed
            self.cam_target[1] -= (-mx * math.sin(h) + my * math.cos(h)) * speed    # screen up is north: -y
            self._place_camera()
        rot = self.intent.get("rotate", set())
        if rot:
            self.cam_heading += sum(rot) * 90 * dt
            self._place_camera()
