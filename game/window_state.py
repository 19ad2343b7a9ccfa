"""What the demo shows beyond the crowd: health bars, shots, and the window's state for tests.

``HealthBars`` is one dynamic mesh of two quads per unit (a dark back and a fill coloured from
green to red by health) standing over the hurt units; ``Shots`` one dynamic mesh of a tracer per
unit, flying from each fighting unit to its target; ``window_summary`` is what a test driving
the real window reads; ``pnm_to_array`` turns a Panda3D image into pixels.
"""

from __future__ import annotations

import errno

import numpy as np
from panda3d.core import Geom, NodePath, PNMImage

from .army import UnitMode
from .orders import ground_point
from .scene import _mesh, _write
from .selection import project_to_screen
from .unit_types import UNIT_TYPES

__all__ = ["HealthBars", "Shots", "window_summary", "pnm_to_array"]


class HealthBars:
    """A bar over each hurt unit (health < 1), hidden over the healthy and the dead."""

    def __init__(self, count: int, width: float = 1.0, height: float = 0.24, lift: float = 1.25,
                 parent: NodePath | None = None) -> None:
        self.count, self.width, self.height, self.lift = count, width, height, lift
        quad = np.array([[0, 1, 2], [0, 2, 3]])
        tris = (np.arange(2 * count) * 4)[:, None, None] + quad[None]
        verts = np.zeros((count * 8, 3), dtype=np.float32)
        colors = np.ones((count * 8, 4), dtype=np.float32)
        node, self.vdata = _mesh("health bars", verts, colors, tris.reshape(-1, 3), Geom.UHDynamic)
        self.node = NodePath(node)
        self.node.setTwoSided(True)
        self.node.setLightOff()
        self.node.setBin("fixed", 10)                 # drawn last, over units and trees, like an RTS's UI:
        self.node.setDepthTest(False)                 # each unit's fill after its back
        self.node.setDepthWrite(False)
        self.shown = np.zeros(count, dtype=bool)      # which bars are drawn
        if parent is not None:
            self.node.reparentTo(parent)

    def update(self, positions: np.ndarray, health: np.ndarray, alive: np.ndarray) -> None:
        """Bars over units ``alive`` with ``health`` below 1, at ``positions`` (``(N, 3)``)."""
        n = self.count
        shown = alive[:n] & (health[:n] < 0.999)
        if not shown.any() and not self.shown.any():
            return                                     # nothing hurt now or before: nothing to write
        self.shown = shown
        h = np.clip(health[:n], 0.0, 1.0)
        half = np.where(shown, self.width / 2, 0.0)
        x0 = positions[:n, 0] - half
        fill_x1 = x0 + 2 * half * h
        z0 = positions[:n, 2] + self.lift
        z1 = z0 + np.where(shown, self.height, 0.0)
        y = positions[:n, 1]

        def quads(xa, xb, za, zb, dy):
            yy = y + dy
            return np.stack([np.stack([xa, yy, za], -1), np.stack([xb, yy, za], -1),
                             np.stack([xb, yy, zb], -1), np.stack([xa, yy, zb], -1)], axis=1)

        back = quads(x0, x0 + 2 * half, z0, z1, 0.0)
        fill = quads(x0, fill_x1, z0, z1, 0.0)
        _write(self.vdata, 0, np.stack([back, fill], axis=1).reshape(-1, 3))
        rgba = np.ones((n, 2, 4), dtype=np.float32)
        rgba[:, 0, :3] = 0.08
        rgba[:, 1, 0] = np.clip(2.0 * (1.0 - h), 0, 1)
        rgba[:, 1, 1] = np.clip(2.0 * h, 0, 1)
        rgba[:, 1, 2] = 0.1
        _write(self.vdata, 1, np.repeat(rgba.reshape(-1, 4), 4, axis=0))


class Shots:
    """Tracers: a bright streak flying from each fighting unit to its target (``SHOTS_PER_S`` a
    second, each unit at its own phase), coloured by team; one quad per unit in one mesh."""

    SHOTS_PER_S = 2.0
    COLOURS = {1: (1.0, 0.85, 0.3, 1.0), 2: (0.5, 0.9, 1.0, 1.0)}

    def __init__(self, teams: np.ndarray, width: float = 0.3, lift: float = 0.9,
                 parent: NodePath | None = None) -> None:
        count = len(teams)
        self.count, self.width, self.lift = count, width, lift
        quad = np.array([[0, 1, 2], [0, 2, 3]])
        tris = (np.arange(count) * 4)[:, None, None] + quad[None]
        colours = np.array([self.COLOURS.get(int(t), (1.0, 1.0, 1.0, 1.0)) for t in teams], dtype=np.float32)
        node, self.vdata = _mesh("shots", np.zeros((count * 4, 3), np.float32), np.repeat(colours, 4, axis=0),
                                 tris.reshape(-1, 3), Geom.UHDynamic)
        self.node = NodePath(node)
        self.node.setTwoSided(True)
        self.node.setLightOff()
        self.node.setBin("fixed", 9)                   # over the units (the streaks are short), under the bars
        self.node.setDepthTest(False)
        self.node.setDepthWrite(False)
        self.shown = np.zeros(count, dtype=bool)       # which units are firing
        if parent is not None:
            self.node.reparentTo(parent)

    def update(self, positions: np.ndarray, fighting: np.ndarray, enemy: np.ndarray, alive: np.ndarray,
               seconds: float) -> None:
        """Tracers from the living ``fighting`` units to their living ``enemy`` at game time ``seconds``."""
        n = self.count
        target = np.clip(enemy[:n], 0, n - 1)
        shown = fighting[:n] & alive[:n] & (enemy[:n] >= 0) & alive[target]
        if not shown.any() and not self.shown.any():
            return
        self.shown = shown
        p, q = positions[:n], positions[target]
        phase = (seconds * self.SHOTS_PER_S + np.arange(n) * 0.618) % 1.0
        a = p + (q - p) * phase[:, None]
        b = p + (q - p) * np.minimum(1.0, phase + 0.45)[:, None]
        a[:, 2] += self.lift
        b[:, 2] += self.lift
        d = (b - a)[:, :2]
        length = np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-9)
        side = np.zeros_like(a)
        side[:, 0], side[:, 1] = -d[:, 1] / length, d[:, 0] / length
        side *= np.where(shown, self.width / 2, 0.0)[:, None]
        b = np.where(shown[:, None], b, a)                 # hidden: a quad of no size
        _write(self.vdata, 0, np.stack([a + side, b + side, b - side, a - side], axis=1).reshape(-1, 3))


def window_summary(app) -> dict:
    """What a test driving the real window checks: selection, orders, gates, camera, and
    the window pixels of things worth clicking (the player's units, the gates, the centre's
    ground point)."""

    chosen = app.selected_units()
    crowd = app.navigation.crowd
    pos = app.positions()
    own = np.flatnonzero((app.army.team == app.player_team) & app.army.alive)
    own_px, front = project_to_screen(app.base, pos[own], app.scene)
    own_px = own_px[front]
    enemy = np.flatnonzero((app.army.team != app.player_team) & app.army.alive)
    enemy_px, front = project_to_screen(app.base, pos[enemy], app.scene)
    enemy_px = enemy_px[front]
    w, h = app.base.win.getXSize(), app.base.win.getYSize()
    probe = ground_point(app.base, (0.75 * w, h / 2), app.level, app.scene)
    gates = {}
    for name, gate in app.level.gates.items():
        px = project_to_screen(app.base, app.level.grid.cells_to_world(gate.cells), app.scene)[0].mean(axis=0)
        gates[name] = {"open": bool(gate.open), "pixel": [float(px[0]), float(px[1])]}
    return {
        "tick": app.tick, "window": [w, h],
        "selected": len(chosen),
        "selected_teams": sorted({int(t) for t in app.army.team[chosen].tolist()}),
        "selected_targets": crowd.status(app.army.ids[chosen]).target[:, :2].tolist() if len(chosen) else [],
        "selected_modes": sorted({UnitMode(int(m)).name for m in app.army.mode[chosen].tolist()}),
        "selected_kinds": sorted({UNIT_TYPES[int(k)].name for k in app.army.kind[chosen].tolist()}),
        "control_groups": {str(k): len(v) for k, v in app.army.control_groups.items()},
        "planner": app.army.planner, "formation": app.formation, "paused": app.paused,
        "player_units_box": [float(v) for v in (*own_px.min(axis=0), *own_px.max(axis=0))] if len(own_px) else [],
        # the ground under the pixel (0.75 w, 0.5 h): somewhere to right-click
        "probe_pixel": [0.75 * w, h / 2],
        "probe_ground": None if probe is None else [float(probe[0]), float(probe[1])],
        "gates": gates,
        "enemy_units_centre": enemy_px.mean(axis=0).tolist() if len(enemy_px) else [],
        "health_bars_shown": int(app.bars.shown.sum()),
        "alive": {str(t): int(((app.army.team == t) & app.army.alive).sum()) for t in app.army.deaths},
        "deaths": {str(t): n for t, n in app.army.deaths.items()},
    }


def save_frame(base, path) -> np.ndarray:
    """Render ``base``'s window, save the frame to ``path`` and return it as ``[H, W, 3] uint8``;
    ``OSError`` when the file could not be written (Panda3D only returns False)."""
    from panda3d.core import Filename

    base.graphicsEngine.renderFrame()
    img = PNMImage()
    base.win.getScreenshot(img)
    if not img.write(Filename.fromOsSpecific(str(path))):
        raise OSError(errno.EIO, "could not write the image (a folder that cannot be written, or a name "
                                 "without an image suffix such as .png)", str(path))
    return pnm_to_array(img)


def pnm_to_array(img: PNMImage) -> np.ndarray:
    """A ``PNMImage`` as ``[H, W, 3] uint8``."""
    from panda3d.core import StringStream

    w, h = img.getXSize(), img.getYSize()
    ss = StringStream()
    img.write(ss, "ppm")
    data = ss.getData()
    # binary PPM: "P6\n<w> <h>\n<max>\n" then the pixels
    header_end = 0
    fields = 0
    while fields < 4:
        while data[header_end:header_end + 1].isspace():
            header_end += 1
        while not data[header_end:header_end + 1].isspace():
            header_end += 1
        fields += 1
    return np.frombuffer(data[header_end + 1:], dtype=np.uint8)[: w * h * 3].reshape(h, w, 3)
