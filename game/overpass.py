"""``python -m rtsnav.game.overpass`` (or ``python -m rtsnav.game --level overpass``): stacked
walkable surfaces played. The overpass scene (``levels/scenes.py``: a road under a bridge, a
two-storey building with an outside ramp) is built as Panda3D geometry, its walkable nodes
tagged; the navmesh is baked from that scene graph (``navmesh_from_model``: every surface kept,
a ``LayeredNavMesh``); a crowd walks it — one column down the road under the bridge, one over
the bridge across the road, a file up the ramp to the upper floor and one through the door into
the ground floor under it. Units on the deck and units on the road pass through each other in
plan and never meet.

    python -m rtsnav.game.overpass [--headless] [--seconds 16] [--screenshot out.png] [--units 20]

Headless runs render offscreen and print a summary (arrivals per route, the ticks in which a
road unit and a deck unit were closer than a body in plan, the heights each route kept).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from panda3d.core import NodePath

from rtsnav.levels.cli import add_debug_flag, image_file, positive_seconds, run_command, whole_number_in
from rtsnav.levels.scenes import SCENES, Scene, scene
from rtsnav.systems.nav.crowd import Crowd

from .model_geometry import navmesh_from_model
from .scene import mesh_node, write_column
from .window_state import save_frame

__all__ = ["OverpassDemo", "main"]

DT = 1 / 30
SUN = np.array([0.35, -0.45, 0.82])
ROUTE_COLORS = {"road": (0.15, 0.45, 1.0), "bridge": (0.95, 0.25, 0.15), "upstairs": (0.98, 0.8, 0.15),
                "downstairs": (0.7, 0.35, 0.9)}
AGENT_RADIUS = 0.4


def _shaded(part_vertices: np.ndarray, triangles: np.ndarray, rgb) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flat-shaded copy of a part: one vertex per triangle corner, coloured by its face's light."""
    corners = part_vertices[triangles].reshape(-1, 3)
    a, b, c = part_vertices[triangles[:, 0]], part_vertices[triangles[:, 1]], part_vertices[triangles[:, 2]]
    n = np.cross(b - a, c - a)
    n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-12)
    light = 0.55 + 0.45 * np.abs(n @ (SUN / np.linalg.norm(SUN)))
    colors = np.repeat(np.c_[np.asarray(rgb)[None, :] * light[:, None], np.ones(len(n))], 3, axis=0)
    return corners, colors, np.arange(len(corners)).reshape(-1, 3)


def _block(along: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """Offsets of ``count`` units in a block four abreast, from the start forward along
    ``along`` (rows 1.2 apart, a little jitter), z 0."""
    forward = along[:2] / max(float(np.hypot(along[0], along[1])), 1e-9)
    side = np.array([-forward[1], forward[0]])
    k = np.arange(count)
    xy = np.outer(k // 4, forward) * 1.2 + np.outer(k % 4 - 1.5, side) * 1.2 + rng.uniform(-0.1, 0.1, (count, 2))
    return np.c_[xy, np.zeros(count)]


class UnitColumns:
    """Every unit as a small upright block (seen under a deck as well as on it)."""

    def __init__(self, colors: np.ndarray, radius: float = AGENT_RADIUS, height: float = 1.4) -> None:
        n = len(colors)
        self.count, self.radius, self.height = n, radius, height
        box = np.array([(x, y, z) for z in (0, 1) for y in (-1, 1) for x in (-1, 1)], dtype=np.float64)
        faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (1, 5, 7, 3), (3, 7, 6, 2), (2, 6, 4, 0)]
        quads = np.array([[f[0], f[1], f[2], f[0], f[2], f[3]] for f in faces]).reshape(-1, 3)
        self._box = box * (radius, radius, height)
        tris = (np.arange(n) * 8)[:, None, None] + quads[None]
        rgba = np.repeat(np.c_[colors, np.ones(n)], 8, axis=0)
        rgba[:, :3] *= np.tile(np.r_[np.full(4, 0.55), np.ones(4)], n)[:, None]      # darker feet
        node, self._vdata = mesh_node("units", np.zeros((n * 8, 3)), rgba, tris.reshape(-1, 3), dynamic=True)
        self.node = NodePath(node)
        self.node.setTwoSided(True)

    def update(self, positions: np.ndarray) -> None:
        """Stand unit ``i`` on ``positions[i]``."""
        write_column(self._vdata, 0, (positions[:, None, :] + self._box[None]).reshape(-1, 3))


class OverpassDemo:
    """The overpass scene in Panda3D with a crowd on its layered navmesh (module docstring)."""

    def __init__(self, *, headless: bool = False, size: tuple[int, int] = (1024, 640), units: int = 20,
                 seed: int = 1, name: str = "overpass") -> None:
        from direct.showbase.ShowBase import ShowBase

        from .app import configure_panda

        configure_panda(headless, size)
        self.base = ShowBase(windowType="offscreen" if headless else None)
        self.base.setBackgroundColor(0.52, 0.66, 0.82, 1)
        self.scene: Scene = scene(name)
        self.root = self.base.render.attachNewNode(f"scene {name}")
        for part in self.scene.parts:
            corners, shade, tris = _shaded(part.vertices, part.triangles, part.color)
            node = self.root.attachNewNode(mesh_node(part.name, corners, shade, tris)[0])
            if part.walkable:
                node.setTag("walkable", "1")
        self.root.setLightOff()
        self.mesh = navmesh_from_model(self.root, walkable_tag="walkable", agent_radius=AGENT_RADIUS)
        self.crowd = Crowd(self.mesh.footprint(), navmesh=self.mesh)
        self.routes: dict[str, np.ndarray] = {}
        rng = np.random.default_rng(seed)
        colors: list[tuple[float, float, float]] = []
        for route, (start, goal) in self.scene.routes.items():
            count = units if route in ("road", "bridge") else max(1, units // 4)
            offsets = _block(np.asarray(goal) - np.asarray(start), count, rng)
            ids = self.crowd.add_agents(np.asarray(start) + offsets, radius=AGENT_RADIUS, max_speed=3.0, avoidance=True)
            self.crowd.move(ids, np.asarray(goal) + offsets - offsets.mean(axis=0), planner="navmesh")
            self.routes[route] = ids
            colors += [ROUTE_COLORS[route]] * count
        self.units = UnitColumns(np.array(colors))
        self.units.node.reparentTo(self.base.render)
        self.units.node.setLightOff()
        self.base.camera.setPos(66, -22, 34)
        self.base.camera.lookAt(36, 32, 0)
        self.base.camLens.setFov(55)
        self.tick = 0
        self.arrived: dict[int, int] = {}
        self.crossings = 0
        self.road_top = 0.0
        self.deck_low = np.inf
        self.upstairs_z: list[float] = []
        self._sync()

    def step(self, ticks: int = 1) -> None:
        """Advance the crowd ``ticks`` fixed steps, keeping the tallies the summary reports."""
        road, bridge = self.routes["road"], self.routes["bridge"]
        for _ in range(ticks):
            for i in self.crowd.update(DT).reached.tolist():
                self.arrived.setdefault(int(i), self.tick)
            p = self.crowd.positions
            self.road_top = max(self.road_top, float(np.abs(p[road, 2]).max()))
            over = (p[bridge, 1] > 26.5) & (p[bridge, 1] < 33.5)
            if over.any():
                self.deck_low = min(self.deck_low, float(p[bridge][over, 2].min()))
            gap = np.hypot(p[road, None, 0] - p[None, bridge, 0], p[road, None, 1] - p[None, bridge, 1])
            self.crossings += int((gap < 2 * AGENT_RADIUS).any())
            self.tick += 1
        self._sync()

    def _sync(self) -> None:
        self.units.update(self.crowd.positions)

    def summary(self) -> dict:
        """What happened: per route the units that arrived and when the last did, the crossings
        in plan, and the heights the road, the deck and the upper floor kept."""
        p = self.crowd.positions
        out: dict = {"scene": self.scene.name, "seconds": round(self.tick * DT, 2),
                     "navmesh": {"spans": self.mesh.span_count, "surfaces_in_a_cell": self.mesh.layer_count,
                                 "cell_size": round(self.mesh.config.cell_size, 3)}}
        for route, ids in self.routes.items():
            done = [self.arrived[int(i)] for i in ids if int(i) in self.arrived]
            out[route] = {"units": len(ids), "arrived": len(done),
                          "last_arrival_s": round(max(done) * DT, 2) if len(done) == len(ids) else None,
                          "z_now": [round(float(v), 2) for v in (p[ids, 2].min(), p[ids, 2].max())]}
        out["road_and_deck_overlapping_in_plan_ticks"] = self.crossings
        out["road_units_highest_z"] = round(self.road_top, 2)
        out["deck_units_lowest_z_over_the_road"] = None if not np.isfinite(self.deck_low) else round(self.deck_low, 2)
        return out

    def screenshot(self, path: str | Path) -> np.ndarray:
        """Render and save the current frame; returns it as ``[H, W, 3] uint8``."""
        return save_frame(self.base, path)

    def run(self) -> None:
        """Play in a window until it is closed."""
        def frame(task):
            self.step()
            return task.cont

        self.base.taskMgr.add(frame, "rtsnav-overpass")
        self.base.run()

    def destroy(self) -> None:
        """Close the window."""
        self.base.destroy()


#: Most units per route the scene's lanes take (a block four abreast behind each start).
MAX_UNITS = 400


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (exits 2 with a message on a usage error)."""
    ap = argparse.ArgumentParser(prog="rtsnav-overpass", description=__doc__.splitlines()[0])
    add_debug_flag(ap)
    ap.add_argument("--headless", action="store_true", help="render offscreen, print a summary")
    ap.add_argument("--seconds", type=positive_seconds, default=16.0, help="headless: simulated seconds (default 16)")
    ap.add_argument("--screenshot", type=image_file, default=None, help="headless: save the last frame here")
    ap.add_argument("--units", type=whole_number_in(1, MAX_UNITS), default=20,
                    help=f"units on the road and on the bridge each (at most {MAX_UNITS})")
    ap.add_argument("--scene", default="overpass", choices=sorted(SCENES), help="the built-in scene")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the overpass demo (see the module docstring); bad input prints ``error: ...``, exit 2."""
    return run_command(_run, parse_args(argv))


def _run(args: argparse.Namespace) -> int:
    print(f"rtsnav demo: building the {args.scene!r} scene and baking its navmesh (a few seconds)", file=sys.stderr,
          flush=True)
    demo = OverpassDemo(headless=args.headless, units=args.units, name=args.scene)
    if not args.headless:
        demo.run()
        return 0
    demo.step(int(round(args.seconds / DT)))
    if args.screenshot is not None:
        args.screenshot.parent.mkdir(parents=True, exist_ok=True)
        demo.screenshot(args.screenshot)
        print(f"screenshot: {args.screenshot}")
    print(json.dumps(demo.summary(), indent=2))
    demo.destroy()
    return 0

if __name__ == "__main__":
    sys.exit(main())
