"""The demo's input: key and mouse bindings (every RTS control) and box-drag selection with its
rubber band. Each binding calls one of the app's public commands (``Commands``): the same calls
orders files make."""

from __future__ import annotations

from typing import Protocol

from panda3d.core import ButtonThrower, LineSegs

from .army import UnitMode
from .hud import OVERLAYS

#: Two left-clicks on the same spot within this many seconds select that kind of unit on screen.
DOUBLE_CLICK_S = 0.35

__all__ = ["Input", "Commands"]


class Commands(Protocol):
    """What the input calls on the app (``RtsApp`` provides it)."""

    def arm(self, mode: UnitMode) -> None: ...
    def stop(self) -> None: ...
    def hold(self) -> None: ...
    def toggle_formation(self) -> bool: ...
    def cycle_planner(self) -> str: ...
    def jump_to_selection(self) -> None: ...
    def toggle_follow(self) -> bool: ...
    def select_all(self) -> list[int]: ...
    def set_control_group(self, number: int) -> None: ...
    def recall_control_group(self, number: int) -> list[int]: ...
    def set_overlay(self, number: int) -> None: ...
    def look_at_minimap(self, pixel: tuple[float, float]) -> bool: ...
    def on_minimap(self, pixel: tuple[float, float]) -> bool: ...
    def select_at(self, pixel: tuple[float, float], add: bool = False) -> list[int]: ...
    def select_kind_at(self, pixel: tuple[float, float]) -> list[int]: ...
    def select_box(self, box: tuple[float, float, float, float], add: bool = False) -> list[int]: ...
    def right_click(self, pixel: tuple[float, float], queue: bool = False) -> int: ...
    def toggle_gate_at_pixel(self, pixel: tuple[float, float] | None) -> str | None: ...
    def toggle_pause(self) -> bool: ...
    def toggle_help(self) -> None: ...
    def toggle_timings(self) -> None: ...
    def zoom(self, factor: float, pixel: tuple[float, float] | None = None) -> None: ...
    def save_screenshot(self) -> None: ...


class Input:
    """Binds keys and the mouse of ``base`` to ``app``'s commands; keeps what is held (panning,
    rotating) and the box being dragged."""

    def __init__(self, base, app: Commands) -> None:
        self._base, self._app = base, app
        #: held keys by kind: ``"pan"`` -> {(dx, dy)}, ``"rotate"`` -> {±1}
        self.intent: dict[str, set] = {}
        self.drag_start: tuple[float, float] | None = None
        self._last_click: tuple[float, tuple[float, float]] = (-1e9, (0.0, 0.0))   # (time, pixel)
        self.drag_add = False
        self._drag_frame = -1                            # the frame the press was handled in
        self.box = base.render2d.attachNewNode("selection-box")
        self._bind()
        self._time_presses()

    def _time_presses(self) -> None:
        """Where the button went down, not where the cursor is when a slow frame reads the press:
        the window logs the pointer's trail with times, and a second button thrower passes each
        press's time ("timed-mouse1"), so the box starts at the trail's point at that time."""
        base = self._base
        if base.mouseWatcherNode is None or not hasattr(base.win, "enablePointerEvents"):
            return                                       # offscreen: no pointer
        base.win.enablePointerEvents(0)
        base.mouseWatcherNode.setTrailLogDuration(2.0)
        thrower = ButtonThrower("timed buttons")
        thrower.setPrefix("timed-")
        thrower.setTimeFlag(True)
        base.mouseWatcher.attachNewNode(thrower)
        base.accept("timed-mouse1", self._timed_press)

    def _timed_press(self, when: float) -> None:
        pixel = pixel_at(self._base.mouseWatcherNode.getTrailLog(), when)
        if pixel is not None and self.drag_start is not None and self._drag_frame == self._frame():
            self.drag_start = pixel                      # the press handled this frame: where it was

    def _frame(self) -> int:
        return int(self._base.clock.getFrameCount())

    def _bind(self) -> None:
        b, app = self._base, self._app
        for key, move in (("arrow_up", (0, 1)), ("arrow_down", (0, -1)), ("arrow_left", (-1, 0)),
                          ("arrow_right", (1, 0))):
            b.accept(key, self._hold, ["pan", move, True])
            b.accept(key + "-up", self._hold, ["pan", move, False])
        b.accept("q", self._hold, ["rotate", -1, True])
        b.accept("q-up", self._hold, ["rotate", -1, False])
        b.accept("e", self._hold, ["rotate", 1, True])
        b.accept("e-up", self._hold, ["rotate", 1, False])
        b.accept("wheel_up", lambda: app.zoom(0.85, self.mouse_pixel()))       # toward the cursor
        b.accept("wheel_down", lambda: app.zoom(1.18, self.mouse_pixel()))
        b.accept("mouse1", self._mouse_down, [False])
        b.accept("shift-mouse1", self._mouse_down, [True])
        b.accept("mouse1-up", self._mouse_up)
        b.accept("mouse3", self._right_click)
        b.accept("shift-mouse3", self._right_click, [True])
        b.accept("g", lambda: app.toggle_gate_at_pixel(self.mouse_pixel()))
        b.accept("space", app.toggle_pause)
        b.accept("f1", app.toggle_help)
        b.accept("f3", app.toggle_timings)
        b.accept("a", app.arm, [UnitMode.ATTACK_MOVE])
        b.accept("p", app.arm, [UnitMode.PATROL])
        b.accept("s", app.stop)
        b.accept("h", app.hold)
        b.accept("f", app.toggle_formation)
        b.accept("tab", app.cycle_planner)
        b.accept("c", app.jump_to_selection)
        b.accept("v", app.toggle_follow)
        b.accept("control-a", app.select_all)
        b.accept("f12", app.save_screenshot)
        for k in range(1, 10):
            b.accept(f"control-{k}", app.set_control_group, [k])
            b.accept(str(k), app.recall_control_group, [k])
        for k in OVERLAYS:
            b.accept(f"f{k + 4}", app.set_overlay, [k])

    def _hold(self, kind, value, on) -> None:
        held = self.intent.setdefault(kind, set())
        (held.add if on else held.discard)(value)

    def held(self, kind: str) -> set:
        """What is held of ``kind`` (``"pan"``, ``"rotate"``)."""
        return self.intent.get(kind, set())

    def mouse_pixel(self) -> tuple[float, float] | None:
        """The mouse's window pixel (None when it is outside the window)."""
        mw = self._base.mouseWatcherNode
        if mw is None or not mw.hasMouse():
            return None
        m = mw.getMouse()
        return ((m.x + 1) * 0.5 * self._base.win.getXSize(), (1 - m.y) * 0.5 * self._base.win.getYSize())

    def _mouse_down(self, add: bool) -> None:
        pixel = self.mouse_pixel()
        if pixel is not None and self._app.on_minimap(pixel):
            self._app.look_at_minimap(pixel)
            self.drag_start = None
            return
        self.drag_start = pixel
        self.drag_add = add
        self._drag_frame = self._frame()

    def _mouse_up(self) -> None:
        end = self.mouse_pixel()
        if self.drag_start is None or end is None:
            return
        a, b = self.drag_start, end
        if abs(a[0] - b[0]) + abs(a[1] - b[1]) < 6:
            now = self._base.clock.getRealTime()
            last_at, last_pixel = self._last_click
            if now - last_at < DOUBLE_CLICK_S and abs(last_pixel[0] - b[0]) + abs(last_pixel[1] - b[1]) < 8:
                self._app.select_kind_at(b)                  # double-click: that kind on screen
            else:
                self._app.select_at(b, self.drag_add)
            self._last_click = (now, b)
        else:
            self._app.select_box((a[0], a[1], b[0], b[1]), self.drag_add)
        self.drag_start = None
        self.box.getChildren().detach()

    def _right_click(self, queue: bool = False) -> None:
        pixel = self.mouse_pixel()
        if pixel is not None:
            self._app.right_click(pixel, queue)

    def draw_drag_box(self) -> None:
        """The rubber band from the press to the mouse (nothing while no drag is going on)."""
        self.box.getChildren().detach()
        end = self.mouse_pixel()
        if self.drag_start is None or end is None:
            return
        w, h = self._base.win.getXSize(), self._base.win.getYSize()
        to2d = lambda p: ((p[0] / w) * 2 - 1, (1 - p[1] / h) * 2 - 1)  # noqa: E731
        (x0, y0), (x1, y1) = to2d(self.drag_start), to2d(end)
        segs = LineSegs("box")
        segs.setColor(1, 1, 0.3, 1)
        segs.moveTo(x0, 0, y0)
        for x, y in ((x1, y0), (x1, y1), (x0, y1), (x0, y0)):
            segs.drawTo(x, 0, y)
        self.box.attachNewNode(segs.create())


def pixel_at(trail, when: float) -> tuple[float, float] | None:
    """The window pixel of the last point of a pointer ``trail`` (a Panda3D ``PointerEventList``)
    logged before time ``when``; None when the trail has none. Panda3D stamps the events of one
    batch (what piled up during a slow frame) with one time, so a move in the press's own batch
    cannot be told before from after: the point before the batch is taken (a press is made with
    the cursor still; the drag that follows moved it)."""
    found = None
    for i in range(trail.getNumEvents()):
        if trail.getTime(i) >= when:
            break
        if trail.getInWindow(i):
            found = (float(trail.getXpos(i)), float(trail.getYpos(i)))
    return found
