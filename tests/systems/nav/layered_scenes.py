"""Stacked-surface scenes as triangle soup, and references computed without rtsnav: an overpass
(a bridge with railed ramps over a road), a three-turn spiral ramp between a ground landing and a
top floor, a staircase, and a two-storey building with a ramp."""

from __future__ import annotations

import math

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra


class Soup:
    """Vertices and triangles being collected."""

    def __init__(self) -> None:
        self.v: list[tuple[float, float, float]] = []
        self.t: list[tuple[int, int, int]] = []

    def quad(self, *pts) -> None:
        n = len(self.v)
        self.v.extend(tuple(map(float, p)) for p in pts)
        self.t.extend([(n, n + 1, n + 2), (n, n + 2, n + 3)])

    def box(self, x0, y0, z0, x1, y1, z1) -> None:
        p = [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0), (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]
        for f in ((0, 1, 2, 3), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)):
            self.quad(*(p[i] for i in f))

    def slab(self, x0, y0, x1, y1, z_south, z_north, thickness=0.3) -> None:
        """A plate from y0 (height z_south) to y1 (z_north), with its underside and sides."""
        top = [(x0, y0, z_south), (x1, y0, z_south), (x1, y1, z_north), (x0, y1, z_north)]
        bottom = [(x, y, z - thickness) for x, y, z in top]
        self.quad(*top)
        self.quad(*bottom[::-1])
        for a, b in ((0, 1), (1, 2), (2, 3), (3, 0)):
            self.quad(top[a], top[b], bottom[b], bottom[a])

    @classmethod
    def from_quads(cls, quads) -> tuple[np.ndarray, np.ndarray]:
        s = cls()
        for q in quads:
            s.quad(*q)
        return s.arrays()

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return np.array(self.v, dtype=np.float64), np.array(self.t, dtype=np.int64)


# ----------------------------------------------------------------- overpass
DECK_Z = 4.0
ROAD = (0.0, 80.0, 0.0, 8.0)          # x0, x1, y0, y1: the road along x, under the bridge
BRIDGE_X = (36.0, 44.0)
DECK_Y = (-6.0, 14.0)                 # the deck over the road
RAMP_LEN = 20.0
RAIL = 0.2


def overpass() -> tuple[np.ndarray, np.ndarray]:
    """Ground at z 0 (80 × 68), a bridge deck at z 4 crossing over the road strip, two railed
    ramps down to the ground at y = −26 and y = 34."""
    s = Soup()
    s.quad((0, -34, 0), (80, -34, 0), (80, 42, 0), (0, 42, 0))
    x0, x1 = BRIDGE_X
    s.slab(x0, DECK_Y[0], x1, DECK_Y[1], DECK_Z, DECK_Z, thickness=0.4)
    s.slab(x0, DECK_Y[0] - RAMP_LEN, x1, DECK_Y[0], 0.0, DECK_Z)
    s.slab(x0, DECK_Y[1], x1, DECK_Y[1] + RAMP_LEN, DECK_Z, 0.0)
    for rx in (x0, x1 - RAIL):                           # railings: walls 1.2 high along each ramp
        for ya, yb, za, zb in ((DECK_Y[0] - RAMP_LEN, DECK_Y[0], 0.0, DECK_Z), (DECK_Y[1], DECK_Y[1] + RAMP_LEN, DECK_Z, 0.0)):
            s.slab(rx, ya, rx + RAIL, yb, za + 1.2, zb + 1.2, thickness=1.2)
    return s.arrays()


def overpass_ramp_reference(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Shortest length from ground point ``a`` (south of the south ramp, seeing its foot) up the
    south ramp to deck point ``b``: a straight line once the ramp is unfolded flat (its length
    stretched by the slope), valid when that line stays between the railings."""
    ramp = math.hypot(RAMP_LEN, DECK_Z)
    foot = DECK_Y[0] - RAMP_LEN
    unfolded_dy = (foot - a[1]) + ramp + (b[1] - DECK_Y[0])
    return math.hypot(b[0] - a[0], unfolded_dy)


# ------------------------------------------------------------------- spiral
SPIRAL_IN, SPIRAL_OUT, TURNS, RISE = 3.0, 8.0, 3, 3.0
LANDING = math.pi / 2                  # flat quarter turns at the bottom and at the top floor


def spiral_z(theta: np.ndarray | float):
    return np.clip(theta, 0.0, TURNS * 2 * math.pi) * RISE / (2 * math.pi)


def spiral(segments_per_turn: int = 96) -> tuple[np.ndarray, np.ndarray]:
    """A three-turn spiral ramp (inner radius 3, outer 8, 3 per turn: ground 0, top floor 9)
    with a flat landing a quarter turn long at each end, centred on (10, 10)."""
    s = Soup()
    lo, hi = -LANDING, TURNS * 2 * math.pi + LANDING
    n = int(round((hi - lo) / (2 * math.pi) * segments_per_turn))
    th = np.linspace(lo, hi, n + 1)
    for a, b in zip(th[:-1], th[1:]):
        za, zb = float(spiral_z(a)), float(spiral_z(b))
        pa_in = (10 + SPIRAL_IN * math.cos(a), 10 + SPIRAL_IN * math.sin(a), za)
        pa_out = (10 + SPIRAL_OUT * math.cos(a), 10 + SPIRAL_OUT * math.sin(a), za)
        pb_in = (10 + SPIRAL_IN * math.cos(b), 10 + SPIRAL_IN * math.sin(b), zb)
        pb_out = (10 + SPIRAL_OUT * math.cos(b), 10 + SPIRAL_OUT * math.sin(b), zb)
        s.quad(pa_in, pa_out, pb_out, pb_in)
    return s.arrays()


def spiral_point(theta: float, radius: float) -> tuple[float, float, float]:
    return (10 + radius * math.cos(theta), 10 + radius * math.sin(theta), float(spiral_z(theta)))


def spiral_reference(t0: float, r0: float, t1: float, r1: float, clearance: float, rings: int = 41,
                     per_turn: int = 720, reach: int = 5) -> float:
    """Shortest length on the spiral's surface between ``(θ, r)`` points, the band narrowed by
    ``clearance`` at both edges: Dijkstra over a fine (r, θ) lattice whose edges join points up
    to ``reach`` steps apart with their 3D distance (directions every few degrees; the length
    errs by well under 0.5%)."""
    lo, hi = -LANDING, TURNS * 2 * math.pi + LANDING
    nt = int(round((hi - lo) / (2 * math.pi) * per_turn)) + 1
    th = np.linspace(lo, hi, nt)
    rr = np.linspace(SPIRAL_IN + clearance, SPIRAL_OUT - clearance, rings)
    T, R = np.meshgrid(th, rr, indexing="ij")
    P = np.stack([R * np.cos(T), R * np.sin(T), spiral_z(T)], axis=-1)
    idx = np.arange(nt * rings).reshape(nt, rings)
    rows, cols, w = [], [], []
    for dt in range(0, reach + 1):
        for dr in range(-reach, reach + 1):
            if dt == 0 and dr <= 0 or math.gcd(dt, abs(dr)) != 1:
                continue
            a = idx[: nt - dt, max(0, -dr): rings - max(0, dr)]
            b = idx[dt:, max(0, dr): rings + min(0, dr)]
            pa, pb = P.reshape(-1, 3)[a.ravel()], P.reshape(-1, 3)[b.ravel()]
            rows.append(a.ravel())
            cols.append(b.ravel())
            w.append(np.linalg.norm(pa - pb, axis=1))
    g = coo_matrix((np.concatenate(w), (np.concatenate(rows), np.concatenate(cols))), shape=(nt * rings,) * 2).tocsr()

    def node(t: float, r: float) -> int:
        return int(idx[int(round((t - lo) / (hi - lo) * (nt - 1))), int(round((r - rr[0]) / (rr[-1] - rr[0]) * (rings - 1)))])

    d = dijkstra(g, directed=False, indices=node(t0, r0))
    return float(d[node(t1, r1)])


# ------------------------------------------------------------------- stairs
def stairs(steps: int = 12, rise: float = 0.25, tread: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """A lower floor (z 0, x < 10), a flight of ``steps`` steps going +x with walls both sides,
    an upper floor at ``steps · rise`` beyond — and the lower floor continuing under the upper
    one (a ground storey below it)."""
    s = Soup()
    top = steps * rise
    end = 10 + steps * tread
    s.quad((0, 0, 0), (end + 12, 0, 0), (end + 12, 6, 0), (0, 6, 0))          # ground, all along
    for k in range(steps):
        x = 10 + k * tread
        s.box(x, 2, 0, x + tread, 4, (k + 1) * rise)
    s.slab(end, 2, end + 10, 4, top, top, thickness=0.2)                        # upper floor on stilts
    for y in (1.8, 4.0):
        s.box(10, y, 0, end, y + 0.2, top + 1.0)                                 # stair walls
    return s.arrays()
