"""The demo's input: key and mouse bindings (every RTS control), box-drag selection with its
rubber band, right-click orders, the gate under the mouse, pause and screenshots."""

from __future__ import annotations

from panda3d.core import LineSegs

from .army import UnitMode
from .hud import OVERLAYS
from .orders import ground_point
from .parts import AppParts

__all__ = ["InputMixin"]


class InputMixin(AppParts):
    """Input handling of ``RtsApp``: what each key and click calls (the same calls orders files make)."""

    def _bind_input(self) -> None:
        b = self.base
        for key, move in (("arrow_up", (0, 1)), ("arrow_down", (0, -1)), ("arrow_left", (-1, 0)),
                          ("arrow_right", (1, 0))):
            b.accept(key, self._intent, ["pan", move, True])
            b.accept(key + "-up", self._intent, ["pan", move, False])
        b.accept("q", self._intent, ["rotate", -1, True])
        b.accept("q-up", self._intent, ["rotate", -1, False])
        b.accept("e", self._intent, ["rotate", 1, True])
        b.accept("e-up", self._intent, ["rotate", 1, False])
        b.accept("wheel_up", self._zoom, [0.85])
        b.accept("wheel_down", self._zoom, [1.18])
        b.accept("mouse1", self._mouse_down, [False])
        b.accept("shift-mouse1", self._mouse_down, [True])
        b.accept("mouse1-up", self._mouse_up)
        b.accept("mouse3", self._right_click)
        b.accept("shift-mouse3", self._right_click, [True])
        b.accept("g", self._toggle_gate_under_mouse)
        b.accept("space", self._toggle_pause)
        b.accept("f1", self._toggle_help)
        b.accept("f3", self._toggle_timings)
        b.accept("a", self.arm, [UnitMode.ATTACK_MOVE])
        b.accept("p", self.arm, [UnitMode.PATROL])
        b.accept("s", self.stop)
        b.accept("h", self.hold)
        b.accept("f", self.toggle_formation)
        b.accept("tab", self.cycle_planner)
        b.accept("c", self.jump_to_selection)
        b.accept("v", self.toggle_follow)
        b.accept("control-a", self.select_all)
        b.accept("f12", self._save_screenshot)
        for k in range(1, 10):
            b.accept(f"control-{k}", self.set_control_group, [k])
            b.accept(str(k), self.recall_control_group, [k])
        for k in OVERLAYS:
            b.accept(f"f{k + 4}", self.set_overlay, [k])

    def _intent(self, kind, value, on) -> None:
        held = self.intent.setdefault(kind, set())
        (held.add if on else held.discard)(value)

    def _mouse_pixel(self) -> tuple[float, float] | None:
        mw = self.base.mouseWatcherNode
        if mw is None or not mw.hasMouse():
            return None
        m = mw.getMouse()
        return ((m.x + 1) * 0.5 * self.base.win.getXSize(), (1 - m.y) * 0.5 * self.base.win.getYSize())

    def _mouse_down(self, add: bool) -> None:
        pixel = self._mouse_pixel()
        if pixel is not None and self.minimap.contains(pixel):
            self.look_at_minimap(pixel)
            self.drag_start = None
            return
        self.drag_start = pixel
        self.drag_add = add

    def _mouse_up(self) -> None:
        end = self._mouse_pixel()
        if self.drag_start is None or end is None:
            return
        a, b = self.drag_start, end
        if abs(a[0] - b[0]) + abs(a[1] - b[1]) < 6:
            self.select_at(b, self.drag_add)
        else:
            self.select_box((a[0], a[1], b[0], b[1]), self.drag_add)
        self.drag_start = None
        self.box_np.getChildren().detach()

    def _right_click(self, queue: bool = False) -> None:
        p = self._mouse_pixel()
        if p is not None:
            self.order_move_at_pixel(p, self.armed or UnitMode.MOVE, queue)
        self.armed = None

    def _save_screenshot(self) -> None:
        """F12: save the frame to ``screenshot_path`` (``--screenshot``; default rtsnav-shot.png)."""
        self.screenshot(self.screenshot_path)
        self.say(f"screenshot saved: {self.screenshot_path}", 2.0)

    def _toggle_pause(self) -> None:
        self.paused = not self.paused

    def _draw_drag_box(self) -> None:
        self.box_np.getChildren().detach()
        end = self._mouse_pixel()
        if self.drag_start is None or end is None:
            return
        w, h = self.base.win.getXSize(), self.base.win.getYSize()
        to2d = lambda p: ((p[0] / w) * 2 - 1, (1 - p[1] / h) * 2 - 1)  # noqa: E731
        (x0, y0), (x1, y1) = to2d(self.drag_start), to2d(end)
        segs = LineSegs("box")
        segs.setColor(1, 1, 0.3, 1)
        segs.moveTo(x0, 0, y0)
        for x, y in ((x1, y0), (x1, y1), (x0, y1), (x0, y0)):
            segs.drawTo(x, 0, y)
        self.box_np.attachNewNode(segs.create())

    def _toggle_gate_under_mouse(self) -> None:
        pixel = self._mouse_pixel()
        p = ground_point(self.base, pixel, self.level, self.scene) if pixel is not None else None
        self.toggle_gate(near=None if p is None else (p[0], p[1]))
