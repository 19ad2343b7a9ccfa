"""Built-in 3D scenes with stacked walkable surfaces, as named parts of triangle soup: the demo
draws each part (``game/overpass.py``) and bakes the navmesh from the parts it tags walkable;
``levels show overpass`` pictures the same bake.

``overpass``: a road along x under a bridge (a deck 4 high with railed ramps down to the plazas
south and north of the road), and a two-storey building (a ground floor behind a door, an upper
floor reached by an outside ramp along its east wall).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ScenePart", "Scene", "SCENES", "scene", "overpass"]


@dataclass(frozen=True)
class ScenePart:
    """One piece of a scene: its triangles, whether units may stand on it, its colour."""

    name: str
    vertices: np.ndarray           # (V, 3) world
    triangles: np.ndarray          # (T, 3) indices into vertices
    walkable: bool
    color: tuple[float, float, float]


@dataclass(frozen=True)
class Scene:
    """A named scene: its parts and where the demo's teams start and go."""

    name: str
    parts: tuple[ScenePart, ...]
    routes: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]]

    def soup(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """All parts as one soup: ``(vertices, triangles, walkable per triangle)``."""
        verts, tris, marks, offset = [], [], [], 0
        for p in self.parts:
            verts.append(p.vertices)
            tris.append(p.triangles + offset)
            marks.append(np.full(len(p.triangles), p.walkable))
            offset += len(p.vertices)
        return np.concatenate(verts), np.concatenate(tris), np.concatenate(marks)


class _Builder:
    def __init__(self) -> None:
        self.parts: list[ScenePart] = []

    def add(self, name: str, quads, walkable: bool, color) -> None:
        v: list[tuple[float, float, float]] = []
        t: list[tuple[int, int, int]] = []
        for q in quads:
            n = len(v)
            v.extend(q)
            t.extend([(n, n + 1, n + 2), (n, n + 2, n + 3)])
        self.parts.append(ScenePart(name, np.array(v, dtype=np.float64), np.array(t, dtype=np.int64), walkable,
                                    color))

    @staticmethod
    def box(x0, y0, z0, x1, y1, z1) -> list:
        p = [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0), (x0, y0, z1), (x1, y0, z1), (x1, y1, z1),
             (x0, y1, z1)]
        return [[p[i] for i in f] for f in ((3, 2, 1, 0), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6),
                                            (3, 0, 4, 7))]

    @staticmethod
    def slab(x0, y0, x1, y1, z_south, z_north, thickness) -> tuple[list, list]:
        """(top face, underside and sides) of a plate rising from y0 to y1."""
        top = [(x0, y0, z_south), (x1, y0, z_south), (x1, y1, z_north), (x0, y1, z_north)]
        low = [(x, y, z - thickness) for x, y, z in top]
        sides = [[top[a], top[b], low[b], low[a]] for a, b in ((1, 0), (2, 1), (3, 2), (0, 3))]
        return [top], [low[::-1], *sides]


DECK_Z = 4.0
FLOOR_Z = 3.0


def overpass() -> Scene:
    """The overpass scene (see the module docstring); 80 × 60 world units."""
    b = _Builder()
    grass, road, stone, wood, wall = (0.36, 0.55, 0.3), (0.3, 0.3, 0.33), (0.62, 0.6, 0.56), (0.55, 0.42, 0.3), \
        (0.75, 0.72, 0.66)
    b.add("ground south", [[(0, 0, 0), (80, 0, 0), (80, 26, 0), (0, 26, 0)]], True, grass)
    b.add("road", [[(0, 26, 0), (80, 26, 0), (80, 34, 0), (0, 34, 0)]], True, road)
    b.add("ground north", [[(0, 34, 0), (80, 34, 0), (80, 60, 0), (0, 60, 0)]], True, grass)
    # the bridge: a deck over the road, a ramp down to each side, railings along the ramps
    top, under = b.slab(36, 18, 44, 42, DECK_Z, DECK_Z, 0.4)
    south_top, south_under = b.slab(36, 4, 44, 18, 0.0, DECK_Z, 0.3)
    north_top, north_under = b.slab(36, 42, 44, 56, DECK_Z, 0.0, 0.3)
    b.add("bridge deck", top + south_top + north_top, True, stone)
    b.add("bridge underside", under + south_under + north_under, False, stone)
    rails = []
    for x in (36.0, 43.8):
        for ya, yb, za, zb in ((4, 18, 0.0, DECK_Z), (42, 56, DECK_Z, 0.0)):
            rt, ru = b.slab(x, ya, x + 0.2, yb, za + 1.0, zb + 1.0, 1.0)
            rails += rt + ru
    b.add("railings", rails, False, wood)
    # the building: walls round a ground floor (a door in the south wall), an upper floor on top,
    # an outside ramp up its east wall to a landing beside the upper floor
    walls = []
    sides: tuple[tuple[float, float, float, float], ...] = ((4, 40, 9, 40.3), (13, 40, 18, 40.3), (4, 53.7, 18, 54),
                                                             (4, 40, 4.3, 54), (17.7, 40, 18, 54))
    for x0, y0, x1, y1 in sides:
        walls += b.box(x0, y0, 0, x1, y1, FLOOR_Z - 0.3)
    b.add("building walls", walls, False, wall)
    b.add("ground floor", [[(4.3, 40.3, 0.02), (17.7, 40.3, 0.02), (17.7, 53.7, 0.02), (4.3, 53.7, 0.02)]], True, wood)
    floor_top, floor_under = b.slab(4, 40, 18, 54, FLOOR_Z, FLOOR_Z, 0.3)
    b.add("upper floor", floor_top, True, wood)
    b.add("upper floor underside", floor_under, False, wood)
    ramp_top, ramp_under = b.slab(18, 40, 21, 52, 0.0, FLOOR_Z, 0.2)
    land_top, land_under = b.slab(18, 52, 21, 54, FLOOR_Z, FLOOR_Z, 0.3)
    b.add("building ramp", ramp_top + land_top, True, stone)
    b.add("building ramp underside", ramp_under + land_under, False, stone)
    routes = {"road": ((10.0, 30.0, 0.0), (77.0, 30.0, 0.0)),           # along the road, under the bridge
              "bridge": ((40.0, 1.5, 0.0), (40.0, 58.5, 0.0)),          # over the road, ramp to ramp
              "upstairs": ((26.0, 36.0, 0.0), (8.0, 47.0, FLOOR_Z)),     # up the outside ramp
              "downstairs": ((26.0, 37.5, 0.0), (11.0, 47.0, 0.0))}      # through the door, under it
    return Scene("overpass", tuple(b.parts), routes)


SCENES = {"overpass": overpass}


def scene(name: str) -> Scene:
    """The built-in scene ``name`` (``KeyError`` naming the choices otherwise)."""
    if name not in SCENES:
        raise KeyError(f"unknown scene {name!r}; built-in scenes: {', '.join(SCENES)}")
    return SCENES[name]()
