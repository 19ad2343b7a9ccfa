"""Debug drawing as plain arrays: what every overlay shows, for any renderer.

Each builder returns a ``DebugDraw`` — world-space segments and points with RGBA colours, text
labels and legend entries — and knows nothing of how it is drawn. The 3D demo turns one into a
single line mesh; ``rtsnav-levels show`` rasterises the same arrays into a PNG. Builders:

* ``paths``: polylines (agents' paths), with a dot at each end;
* ``vector_field``: arrows (shaft and head) of any field with ``sample`` (flow, corridor,
  potential, sector tiles) on a lattice of cells, optionally only where a mask holds;
* ``hierarchy``: cluster borders, entrances (the abstract graph's nodes) and an abstract route;
* ``navmesh``: polygon outlines, and the polygons of a query's corridor filled in outline colour;
* ``density``: cells holding more than one agent, coloured by how many (congestion);
* ``markers``: rings at points (spawns, goals).

Heights: pass ``grid.heights`` (or a level's ground) and everything is lifted onto it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .grid import Grid

__all__ = ["DebugDraw", "paths", "vector_field", "hierarchy", "navmesh", "density", "markers", "COLORS"]

#: The overlay palette (RGBA, 0..1), shared by the demo and the pictures.
COLORS: dict[str, tuple[float, float, float, float]] = {
    "path": (1.0, 0.85, 0.1, 1.0),
    "flow": (1.0, 1.0, 1.0, 1.0),
    "corridor": (0.35, 0.95, 1.0, 1.0),
    "cluster": (1.0, 0.6, 0.15, 1.0),
    "entrance": (1.0, 0.95, 0.3, 1.0),
    "route": (1.0, 0.25, 0.9, 1.0),
    "navmesh": (0.55, 0.85, 1.0, 1.0),
    "mesh_corridor": (0.2, 1.0, 0.4, 1.0),
    "density_low": (1.0, 0.9, 0.2, 1.0),
    "density_high": (1.0, 0.1, 0.1, 1.0),
    "spawn": (0.3, 0.6, 1.0, 1.0),
    "goal": (1.0, 0.3, 0.3, 1.0),
}


@dataclass
class DebugDraw:
    """Segments ``(N, 2, 3)`` and points ``(M, 3)`` in world units with RGBA colours (0..1),
    labels ``[(x, y, z), text]`` and legend entries ``[(text, rgba)]``. ``+`` joins two."""

    segments: np.ndarray = field(default_factory=lambda: np.zeros((0, 2, 3)))
    segment_colors: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    points: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    point_colors: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    labels: list[tuple[tuple[float, float, float], str]] = field(default_factory=list)
    legend: list[tuple[str, tuple[float, float, float, float]]] = field(default_factory=list)

    def __add__(self, other: DebugDraw) -> DebugDraw:
        legend = self.legend + [e for e in other.legend if e not in self.legend]
        return DebugDraw(np.concatenate([self.segments, other.segments]),
                         np.concatenate([self.segment_colors, other.segment_colors]),
                         np.concatenate([self.points, other.points]),
                         np.concatenate([self.point_colors, other.point_colors]),
                         self.labels + other.labels, legend)

    @property
    def empty(self) -> bool:
        """Nothing to draw."""
        return len(self.segments) == 0 and len(self.points) == 0


def _rgba(color: str | Sequence[float], n: int) -> np.ndarray:
    c = COLORS[color] if isinstance(color, str) else tuple(color)
    if len(c) == 3:
        c = (*c, 1.0)
    return np.tile(np.asarray(c, dtype=np.float64), (n, 1))


def _height(grid: Grid, heights: np.ndarray | None, xy: np.ndarray) -> np.ndarray:
    """Ground height under world points (0 without heights)."""
    if heights is None or len(xy) == 0:
        return np.zeros(len(xy))
    cells = grid.world_to_cells(xy)
    x = np.clip(cells[:, 0], 0, grid.width - 1)
    y = np.clip(cells[:, 1], 0, grid.height - 1)
    return np.asarray(heights, dtype=np.float64)[y, x]


def _lift(grid: Grid, heights: np.ndarray | None, xy: np.ndarray, lift: float) -> np.ndarray:
    return np.c_[xy[:, :2], _height(grid, heights, xy) + lift]


def paths(grid: Grid, polylines: Sequence[np.ndarray], color: str | Sequence[float] = "path", *,
          heights: np.ndarray | None = None, lift: float = 0.4, label: str = "paths") -> DebugDraw:
    """Each world polyline (``(K, 2)`` or ``(K, 3)``) as segments on the ground, a dot at its end."""
    segs, ends = [], []
    for line in polylines:
        p = np.asarray(line, dtype=np.float64)
        if p.ndim != 2 or len(p) < 2:
            continue
        w = _lift(grid, heights, p, lift)
        segs.append(np.stack([w[:-1], w[1:]], axis=1))
        ends.append(w[-1])
    s = np.concatenate(segs) if segs else np.zeros((0, 2, 3))
    e = np.array(ends).reshape(-1, 3)
    return DebugDraw(s, _rgba(color, len(s)), e, _rgba(color, len(e)),
                     legend=[(label, tuple(_rgba(color, 1)[0]))] if len(s) else [])


def vector_field(grid: Grid, sampler, *, step: int = 4, mask: np.ndarray | None = None,
                 color: str | Sequence[float] = "flow", heights: np.ndarray | None = None, lift: float = 0.5,
                 label: str = "flow field") -> DebugDraw:
    """Arrows (a shaft and a two-stroke head) of ``sampler.sample(points)`` — any field with
    that method — every ``step`` cells, where ``mask[y, x]`` holds (default: passable cells)."""
    step = max(1, int(step))
    ys, xs = np.mgrid[step // 2:grid.height:step, step // 2:grid.width:step]
    cells = np.stack([xs.ravel(), ys.ravel()], axis=1)
    keep = grid.passable[cells[:, 1], cells[:, 0]]
    if mask is not None:
        keep &= np.asarray(mask, dtype=bool)[cells[:, 1], cells[:, 0]]
    cells = cells[keep]
    if len(cells) == 0:
        return DebugDraw()
    centre = grid.cells_to_world(cells)[:, :2]
    d = np.asarray(sampler.sample(centre), dtype=np.float64)[:, :2]
    norm = np.hypot(d[:, 0], d[:, 1])
    ok = norm > 1e-9
    centre, d = centre[ok], d[ok] / norm[ok, None]
    length = 0.8 * step * grid.cell_size
    tail = centre - d * length / 2
    tip = centre + d * length / 2
    side = np.stack([-d[:, 1], d[:, 0]], axis=1)
    head = 0.3 * length
    left = tip - d * head + side * head * 0.55
    right = tip - d * head - side * head * 0.55
    z = _height(grid, heights, centre) + lift
    up = lambda p: np.c_[p, z]  # noqa: E731
    segs = np.concatenate([np.stack([up(tail), up(tip)], 1), np.stack([up(tip), up(left)], 1),
                           np.stack([up(tip), up(right)], 1)])
    return DebugDraw(segs, _rgba(color, len(segs)), legend=[(label, tuple(_rgba(color, 1)[0]))])


def hierarchy(grid: Grid, h, *, route: np.ndarray | None = None, heights: np.ndarray | None = None,
              lift: float = 0.6) -> DebugDraw:
    """The hierarchy's level-1 cluster borders (only where walkable ground meets across them),
    its entrances (abstract nodes; higher levels larger) and, given ``route`` (``(K, 2)`` cells:
    start, abstract waypoints, goal), the abstract route."""
    size = h.sizes[0]
    cs = grid.cell_size
    ox, oy = grid.origin
    segs = []
    for x in range(size, grid.width, size):                       # vertical borders, cell by cell
        ys = np.arange(grid.height)
        open_ = grid.passable[ys, x - 1] | grid.passable[ys, x]
        a = np.c_[np.full(open_.sum(), ox + x * cs), oy + ys[open_] * cs]
        segs.append(np.stack([a, a + [0, cs]], axis=1))
    for y in range(size, grid.height, size):
        xs = np.arange(grid.width)
        open_ = grid.passable[y - 1, xs] | grid.passable[y, xs]
        a = np.c_[ox + xs[open_] * cs, np.full(open_.sum(), oy + y * cs)]
        segs.append(np.stack([a, a + [cs, 0]], axis=1))
    border = np.concatenate(segs) if segs else np.zeros((0, 2, 2))
    b3 = np.stack([_lift(grid, heights, border[:, 0], lift), _lift(grid, heights, border[:, 1], lift)], axis=1)
    out = DebugDraw(b3, _rgba("cluster", len(b3)), legend=[("clusters", COLORS["cluster"])])
    nodes = np.stack([h.node_x, h.node_y], axis=1)
    if len(nodes):
        world = _lift(grid, heights, grid.cells_to_world(nodes)[:, :2], lift + 0.1)
        out = out + DebugDraw(points=world, point_colors=_rgba("entrance", len(world)),
                              legend=[("entrances", COLORS["entrance"])])
    if route is not None and len(route) >= 2:
        w = grid.cells_to_world(np.asarray(route))[:, :2]
        out = out + paths(grid, [w], "route", heights=heights, lift=lift + 0.2, label="abstract route")
    return out


def navmesh(mesh, *, corridor: np.ndarray | None = None, lift: float = 0.3) -> DebugDraw:
    """Polygon outlines of ``mesh``; the polygons of ``corridor`` (ids, e.g.
    ``mesh.polygons_along(path)``) crossed in the corridor colour."""
    n = mesh.polygon_count
    if n == 0:
        return DebugDraw()
    corners = np.stack([mesh.polygon_vertices(p) for p in range(n)])          # (n, 4, 3)
    corners[..., 2] += lift
    edges = np.stack([corners, np.roll(corners, -1, axis=1)], axis=2).reshape(-1, 2, 3)
    out = DebugDraw(edges, _rgba("navmesh", len(edges)), legend=[("navmesh polygons", COLORS["navmesh"])])
    if corridor is not None and len(corridor):
        c = corners[np.unique(np.asarray(corridor, dtype=np.int64))]
        c[..., 2] += 0.05
        cross = np.concatenate([np.stack([c[:, 0], c[:, 2]], 1), np.stack([c[:, 1], c[:, 3]], 1),
                                np.stack([c, np.roll(c, -1, axis=1)], axis=2).reshape(-1, 2, 3)])
        out = out + DebugDraw(cross, _rgba("mesh_corridor", len(cross)),
                              legend=[("query corridor", COLORS["mesh_corridor"])])
    return out


def density(grid: Grid, positions: np.ndarray, *, heights: np.ndarray | None = None, lift: float = 0.2,
            crowded: int = 4) -> DebugDraw:
    """A point on each cell holding two or more agents, yellow to red at ``crowded`` or more."""
    if len(positions) == 0:
        return DebugDraw()
    cells = grid.world_to_cells(np.asarray(positions)[:, :2])
    inside = (cells[:, 0] >= 0) & (cells[:, 0] < grid.width) & (cells[:, 1] >= 0) & (cells[:, 1] < grid.height)
    flat = cells[inside, 1] * grid.width + cells[inside, 0]
    count = np.bincount(flat, minlength=grid.width * grid.height)
    busy = np.flatnonzero(count >= 2)
    if len(busy) == 0:
        return DebugDraw()
    xy = grid.cells_to_world(np.stack([busy % grid.width, busy // grid.width], axis=1))[:, :2]
    t = np.clip((count[busy] - 2) / max(crowded - 2, 1), 0, 1)[:, None]
    rgba = (1 - t) * np.array(COLORS["density_low"]) + t * np.array(COLORS["density_high"])
    return DebugDraw(points=_lift(grid, heights, xy, lift), point_colors=rgba,
                     legend=[("2 agents / cell", COLORS["density_low"]),
                             (f"{crowded}+ agents / cell", COLORS["density_high"])])


def markers(grid: Grid, points: np.ndarray, color: str | Sequence[float], label: str, *, radius: float = 1.5,
            heights: np.ndarray | None = None, lift: float = 0.4) -> DebugDraw:
    """A ring (16 segments) around each world point, labelled ``label`` in the legend."""
    p = np.atleast_2d(np.asarray(points, dtype=np.float64))
    if p.size == 0:
        return DebugDraw()
    a = np.linspace(0, 2 * np.pi, 17)
    ring = np.stack([np.cos(a), np.sin(a)], axis=1) * radius
    z = _height(grid, heights, p) + lift
    pts = p[:, None, :2] + ring[None]                                          # (n, 17, 2)
    world = np.concatenate([pts, np.broadcast_to(z[:, None, None], pts.shape[:2] + (1,))], axis=2)
    segs = np.stack([world[:, :-1], world[:, 1:]], axis=2).reshape(-1, 2, 3)
    return DebugDraw(segs, _rgba(color, len(segs)), legend=[(label, tuple(_rgba(color, 1)[0]))])
