"""The demo in a real X window (Xvfb), driven by real input events (xdotool): drag a box,
right-click, press keys; the outcome is checked in the game state (``--state-file``) and in a
screenshot the game saves on F12. Skipped where Xvfb or xdotool is absent (``make x11-tools``
installs both from Debian's packages)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not (shutil.which("Xvfb") and shutil.which("xdotool")),
                                reason="Xvfb and xdotool not installed (make x11-tools)")


def _wait_for(predicate, what: str, limit_s: float = 120.0):
    """Poll ``predicate`` until it returns something truthy (a readiness wait, not a timing)."""
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"gave up waiting for {what}")


def _whole_png(path):
    """``(RGB array,)`` of the picture at ``path`` once the file is complete, else None (the game
    may still be writing it: a file read half-written failed this test on a loaded machine)."""
    from PIL import Image

    try:
        with Image.open(path) as picture:
            return (np.asarray(picture.convert("RGB")),)
    except (OSError, SyntaxError, ValueError):
        return None


class Window:
    """Xvfb + the demo + xdotool on one display."""

    def __init__(self, tmp: Path) -> None:
        self.display = f":{150 + os.getpid() % 500}"
        self.xvfb = subprocess.Popen(["Xvfb", self.display, "-screen", "0", "1024x700x24", "-nolisten", "tcp"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.env = {**os.environ, "DISPLAY": self.display}
        # the X server must answer before the game starts (on a busy machine it takes a while,
        # and a game started too early fails to open its window)
        _wait_for(self._display_up, "the X server")
        self.state_path, self.shot = tmp / "state.json", tmp / "shot.png"
        self.log = open(tmp / "game.log", "w")
        self.game = subprocess.Popen([sys.executable, "-m", "rtsnav.game", "--level", "river", "--units", "200",
                                      "--size", "1000x640", "--state-file", str(self.state_path),
                                      "--screenshot", str(self.shot)],
                                     cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        self.window = _wait_for(self._window_id, "the game window")
        self.state()

    def _display_up(self) -> bool:
        if self.xvfb.poll() is not None:
            raise AssertionError(f"Xvfb exited with status {self.xvfb.returncode} on display {self.display}")
        return subprocess.run(["xdotool", "getdisplaygeometry"], env=self.env, capture_output=True).returncode == 0

    def _window_id(self) -> str:
        if self.game.poll() is not None:
            raise AssertionError(f"the game exited: {(self.state_path.parent / 'game.log').read_text()[-2000:]}")
        r = subprocess.run(["xdotool", "search", "--name", "rtsnav demo"], env=self.env, capture_output=True, text=True)
        return r.stdout.split()[0] if r.returncode == 0 and r.stdout.split() else ""

    def xdo(self, *args: str) -> None:
        subprocess.run(["xdotool", *args], env=self.env, check=True)

    def state(self, after_tick: int = -1) -> dict:
        """The game's state, once written at a tick after ``after_tick``."""
        def read():
            try:
                s = json.loads(self.state_path.read_text())
            except (OSError, ValueError):
                return None
            return s if s["tick"] > after_tick else None
        return _wait_for(read, "the state file")

    def settle(self) -> dict:
        """The state a few frames after the last input (the events were handled)."""
        return self.state(self.state(-1)["tick"] + 10)

    def close(self) -> None:
        for p in (self.game, self.xvfb):
            p.terminate()
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
        self.log.close()


@pytest.fixture
def window(tmp_path):
    w = Window(tmp_path)
    yield w
    w.close()


@pytest.mark.slow
def test_box_select_right_click_and_keys_in_a_real_window(window):
    s = window.state()
    x0, y0, x1, y1 = s["player_units_box"]
    win = window.window
    window.xdo("windowfocus", "--sync", win)                 # no window manager: give it the keyboard
    # the game reads the pointer once a frame: let frames pass between moves and buttons
    window.xdo("mousemove", "--window", win, str(int(x0) - 8), str(int(y0) - 8))
    window.settle()
    window.xdo("mousedown", "1")
    window.settle()
    window.xdo("mousemove", "--window", win, str(int(x1) + 8), str(int(y1) + 8))
    window.settle()
    window.xdo("mouseup", "1")
    s = window.settle()
    assert s["selected"] == 100 and s["selected_teams"] == [1]              # the whole army, only mine

    px, py = s["probe_pixel"]
    window.xdo("mousemove", "--window", win, str(int(px)), str(int(py)))
    window.settle()
    window.xdo("click", "3")
    s = window.settle()
    targets = np.array(s["selected_targets"])
    assert np.allclose(targets, s["probe_ground"], atol=1.5)               # where the ground was clicked
    assert s["selected_modes"] == ["MOVE"]

    gx, gy = s["gates"]["north bridge"]["pixel"]
    window.xdo("mousemove", "--window", win, str(int(gx)), str(int(gy)))
    window.settle()
    window.xdo("key", "g")
    window.xdo("key", "Tab")
    window.xdo("key", "ctrl+1")
    window.xdo("key", "h")
    s = window.settle()
    assert not s["gates"]["north bridge"]["open"] and s["gates"]["south bridge"]["open"]
    assert s["planner"] == "flowfield" and s["control_groups"] == {"1": 100}
    assert s["selected_modes"] == ["HOLD"]

    window.xdo("key", "F12")
    (img,) = _wait_for(lambda: _whole_png(window.shot), "the F12 screenshot, written to the end")
    img = img.astype(int)
    patch = img[max(int(gy) - 20, 0):int(gy) + 20, max(int(gx) - 20, 0):int(gx) + 20]
    red = (np.abs(patch - np.array([0.75, 0.18, 0.12]) * 255).max(axis=2) < 70).sum()
    assert red > 20, "the closed gate is not drawn closed in the window"


@pytest.mark.slow
def test_a_fight_in_a_real_window_kills_units_and_shows_health_bars(window):
    """Select the army, arm attack-move (A), right-click the enemy: the armies fight, units die
    (the state counts them) and the F12 screenshot shows the health bars' dark backs."""
    win = window.window
    window.xdo("windowfocus", "--sync", win)
    window.xdo("key", "ctrl+a")
    s = window.settle()
    ex, ey = s["enemy_units_centre"]
    window.xdo("key", "a")
    window.xdo("mousemove", "--window", win, str(int(ex)), str(int(ey)))
    window.settle()
    window.xdo("click", "3")
    s = window.settle()
    assert s["selected_modes"] == ["ATTACK_MOVE"]
    s = _wait_for(lambda: (lambda st: st if st["health_bars_shown"] >= 10 else None)(window.state()),
                  "units hurt in the fight", limit_s=300)
    window.xdo("key", "F12")
    (img,) = _wait_for(lambda: _whole_png(window.shot), "the F12 screenshot, written to the end")
    backs = (np.abs(img.astype(int) - 20).max(axis=2) <= 6).sum()          # the bars' dark grey backs
    assert backs > 40, f"{s['health_bars_shown']} bars shown but only {backs} bar pixels in the window"
    s = _wait_for(lambda: (lambda st: st if sum(st["deaths"].values()) > 0 else None)(window.state()),
                  "a death", limit_s=300)
    assert sum(s["alive"].values()) == 200 - sum(s["deaths"].values())
