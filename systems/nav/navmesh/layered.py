"""``LayeredNavMesh``: every walkable surface of a triangle soup — a road under a bridge, the
floors of a keep, the turns of a spiral ramp — and any-angle paths over and under each other.

The bake keeps Recast's spans (``layered_bake``): per cell, each walkable surface with
``agent_height`` of clearance; neighbouring spans link where the climb allows, so a ramp or a
stair joins two floors and a bridge deck passes over the road without touching it. Queries run
Lazy Theta* over the spans (``layered_query``): every leg is a straight line walked over the
links, so a path on the road never jumps onto the deck above it. A point picks its surface by
height: the nearest surface at or below it (within ``agent_height``), else the nearest one just
above it (within ``max_climb``); a 2D point takes the top surface.

Paths are any-angle shortest paths on the eroded surfaces through cell centres (Theta*): within
about 1% of the exact Euclidean shortest path on the scenes measured (bridge, spiral ramp,
stairs), not exact as ``NavMesh``'s single-surface queries are.

>>> import numpy as np
>>> from rtsnav.systems.nav import NavMesh
>>> road = [[0, 0, 0], [20, 0, 0], [20, 4, 0], [0, 4, 0]]
>>> deck = [[8, -6, 3], [12, -6, 3], [12, 10, 3], [8, 10, 3]]
>>> v = np.array(road + deck, dtype=float)
>>> t = np.array([[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]])
>>> mesh = NavMesh.from_triangles(v, t, cell_size=0.25, agent_radius=0.25)
>>> type(mesh).__name__, mesh.height_at((10, 2, 0)), mesh.height_at((10, 2, 3))
('LayeredNavMesh', 0.0, 3.0)
>>> mesh.find_path((1, 2, 0), (19, 2, 0)).found           # along the road, under the deck
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from rtsnav import checks

from ..errors import NavError
from ..grid import finite_point
from ..grid_points import share_inside_box
from ..result import PathStatus
from .layered_bake import build_spans, link_spans, sample_soup, span_clearance
from .layered_query import (
    densify,
    follow_heights,
    nearest_span,
    open_components,
    path_points,
    span_height,
    theta_star,
    tighten,
    trace,
)
from .mesh_types import MeshPath, NavMeshConfig, OffMeshLink
from .query import MeshQuery

if TYPE_CHECKING:
    from ..grid import Grid

__all__ = ["LayeredNavMesh"]

#: Cells a layered bake rasterises at most.
MAX_LAYERED_CELLS = 8192 * 8192
#: Surface and wall samples a bake takes at most per cell of its footprint (and at least this
#: many in all): a wall thousands of cells tall over a small floor is refused before it is
#: sampled (it would cost gigabytes and minutes), not sampled point by point.
MAX_SAMPLES_PER_CELL, MIN_SAMPLE_ALLOWANCE = 16, 1 << 22


def sample_estimate(v: np.ndarray, t: np.ndarray, cell_size: float) -> float:
    """An upper estimate of the samples ``sample_soup`` takes: per triangle, its cells and the
    grid of wall points spanned by its two shorter edges (as the kernel walks them)."""
    corners = v[t]
    edges = np.linalg.norm(corners - np.roll(corners, -1, axis=1), axis=2)
    short = np.sort(edges, axis=1)[:, :2]
    step = 0.5 * cell_size
    walls = (short[:, 0] / step + 2) * (short[:, 1] / step + 2)
    return float(walls.sum() + (edges.sum(axis=1) / cell_size + 2).sum())


class LayeredNavMesh:
    """Walkable spans of every surface of a triangle soup, linked where an agent can step, and
    any-angle queries over them (see the module docstring).

    Attributes:
        config: the bake's ``NavMeshConfig``; ``origin``: world xy of cell (0, 0)'s corner;
        shape: ``(H, W)`` cells; span_cell / span_z / span_grad / span_triangle: per span its
        cell (``y·W + x``), height at the cell centre, plane gradient ``(dz/dx, dz/dy)`` and the
        soup triangle it lies on; neighbours: ``(S, 4)`` linked span E, N, W, S (-1: none);
        component: connected surface set per span; cell_start: spans of cell ``c`` are
        ``cell_start[c]:cell_start[c + 1]``, lowest first.
    """

    def __init__(self, config: NavMeshConfig, origin: tuple[float, float], shape: tuple[int, int],
                 span_cell: np.ndarray, span_z: np.ndarray, span_grad: np.ndarray, span_triangle: np.ndarray,
                 neighbours: np.ndarray, clearance: np.ndarray) -> None:
        self.config = config
        self.origin = (float(origin[0]), float(origin[1]))
        self.shape = (int(shape[0]), int(shape[1]))
        self.span_cell, self.span_z, self.span_grad = span_cell, span_z, span_grad
        self.span_triangle, self.neighbours = span_triangle, neighbours
        self.cell_start = _csr_start(span_cell, self.shape[0] * self.shape[1])
        self.clearance = clearance
        self.open = clearance >= config.agent_radius
        self.component = open_components(neighbours, clearance, config.agent_radius)
        h, w = self.shape
        cs = config.cell_size
        self._centres = np.c_[self.origin[0] + (span_cell % w + 0.5) * cs, self.origin[1] + (span_cell // w + 0.5) * cs,
                              span_z]
        n = len(span_cell)
        self._g = np.zeros(n)
        self._parent = np.zeros(n, dtype=np.int64)
        self._via_link = np.zeros(n, dtype=np.bool_)
        self._keys = np.zeros(n)
        self._nodes = np.zeros(n, dtype=np.int64)
        self._heap_pos = np.zeros(n, dtype=np.int64)
        self._stamp = np.zeros(n, dtype=np.int64)
        self._stamp_tighten = np.zeros(n, dtype=np.int64)
        self._query = 0
        self.links: list[OffMeshLink] = []
        self._link_rows: list[tuple[int, int, float, int]] = []      # from span, to span, cost, link index
        self._link_tables = self._make_link_tables()

    # ------------------------------------------------------------------ bake
    @classmethod
    def from_triangles(cls, vertices: np.ndarray, triangles: np.ndarray, config: NavMeshConfig | None = None,
                       walkable: np.ndarray | None = None, **overrides) -> "LayeredNavMesh":
        """Bake every walkable surface of triangle soup (``vertices (V, 3)``, ``triangles (T, 3)``)
        with ``config`` (or ``NavMeshConfig`` fields as keywords; ``agent_climb`` is accepted for
        ``max_climb``). ``walkable``: ``(T,)`` bools — only these triangles may be stood on (the
        rest still block and roof); default every triangle flat enough (``max_slope``).
        ``NavError`` for bad triangles or settings."""
        mesh = cls._bake(vertices, triangles, config, walkable, False, **overrides)
        assert mesh is not None
        return mesh

    @classmethod
    def if_stacked(cls, vertices: np.ndarray, triangles: np.ndarray, config: NavMeshConfig) -> "LayeredNavMesh | None":
        """``from_triangles``, or None — found before the links and the erosion are made — when
        no column holds two walkable surfaces (``NavMesh.from_triangles`` then bakes its exact
        single-surface mesh)."""
        return cls._bake(vertices, triangles, config, None, True)

    @classmethod
    def _bake(cls, vertices, triangles, config, walkable, only_if_stacked: bool, **overrides):
        """The bake's stages (see ``layered_bake``); None when ``only_if_stacked`` and nothing stacks."""
        from .build import validate_triangles

        if "agent_climb" in overrides:
            overrides["max_climb"] = overrides.pop("agent_climb")
        cfg = config or NavMeshConfig(**overrides)
        v, t = validate_triangles(vertices, triangles)
        cs = cfg.cell_size
        if len(t) == 0:
            raise NavError("the triangle soup is empty: nothing to walk on")
        lo = v[t.ravel()][:, :2].min(axis=0)
        hi = v[t.ravel()][:, :2].max(axis=0)
        w = int(math.ceil((hi[0] - lo[0]) / cs)) + 1
        h = int(math.ceil((hi[1] - lo[1]) / cs)) + 1
        if w * h > MAX_LAYERED_CELLS:
            raise NavError(f"the triangles span {hi[0] - lo[0]:g} x {hi[1] - lo[1]:g} world units: {w} x {h} cells "
                           f"of cell_size {cs:g}, more than the {MAX_LAYERED_CELLS:,} a layered bake rasterises")
        estimate = sample_estimate(v, t, cs)
        if estimate > max(MAX_SAMPLES_PER_CELL * w * h, MIN_SAMPLE_ALLOWANCE):
            raise NavError(f"the triangles' walls and surfaces would take ~{estimate:.3g} samples at cell_size {cs:g} "
                           f"over a footprint of {w} x {h} cells (at most {MAX_SAMPLES_PER_CELL} per cell): a "
                           "triangle far taller or longer than the level (or a larger cell_size)")
        allowed = np.ones(len(t), dtype=np.bool_) if walkable is None else _walkable_mask(walkable, len(t))
        min_up = math.cos(math.radians(cfg.max_slope))
        none_i, none_f, none_k = np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int8)
        count = sample_soup(v, t, allowed, cs, lo[0], lo[1], w, h, min_up, False, none_i, none_f, none_k, none_i)
        cell, z, kind, tri = np.empty(count, np.int64), np.empty(count), np.empty(count, np.int8), np.empty(count, np.int64)
        sample_soup(v, t, allowed, cs, lo[0], lo[1], w, h, min_up, True, cell, z, kind, tri)
        order = np.lexsort((z, cell))
        cell, z, kind, tri = cell[order], z[order], kind[order], tri[order]
        sample_start = _csr_start(cell, w * h)
        merge = 1e-4 * max(1.0, cs)
        span_cell, span_z, span_tri = build_spans(sample_start, z, kind, tri, cfg.agent_height, cfg.max_climb, merge)
        grad = _plane_gradients(v, t, span_tri)
        cell_start = _csr_start(span_cell, w * h)
        stacked = int(np.count_nonzero(np.diff(cell_start) > 1))
        if only_if_stacked and not stacked:
            return None                                 # one surface: the caller bakes the exact mesh
        nbr = link_spans(cell_start, span_cell, span_z, grad, w, h, cs, cfg.max_climb)
        clearance = span_clearance(nbr, span_cell, w, cfg.agent_radius / cs + 2.0) * cs
        mesh = cls(cfg, (float(lo[0]), float(lo[1])), (h, w), span_cell, span_z, grad, span_tri, nbr, clearance)
        mesh.stacked_cells = stacked
        return mesh

    #: Pulling a path taut: cells a bend may move per round, and rounds at most.
    #: True: Lazy Theta* (legs checked for sight as the search goes). False: A* over the
    #: 8-neighbour steps, then pulled taut — about twice as fast, as short on most queries but up
    #: to ~5% longer where it passes an obstacle on the other side (measured on a pillar field).
    any_angle_search = True
    #: The search's heuristic × this (weighted A*: a path at most this factor over the search's
    #: own best, before pulling taut). 1.05 halves the median query time on a pillar field and
    #: lengthened no path there by more than 0.9% (60 random pairs); 1.0: the unweighted search.
    heuristic_weight = 1.05
    TIGHTEN_WINDOW = 2
    TIGHTEN_SWEEPS = 64
    #: Bends added along legs that pass near a wall before pulling taut: one every this many cells.
    DENSIFY_CELLS = 2

    stacked_cells: int = 0     #: cells with more than one walkable surface before erosion

    # -------------------------------------------------------------- geometry
    @property
    def span_count(self) -> int:
        """Walkable spans (the search graph's nodes)."""
        return len(self.span_cell)

    polygon_count = span_count

    @property
    def layer_count(self) -> int:
        """The most surfaces stacked in one cell."""
        return int(np.diff(self.cell_start).max(initial=0))

    def _surface(self) -> tuple:
        """The arrays and numbers every query kernel takes first."""
        return (self.neighbours, self.span_cell, self.span_z, self.span_grad, self.clearance, self.config.agent_radius,
                self.shape[1], self.config.cell_size, self.origin[0], self.origin[1])

    def _cell_of(self, x: float, y: float) -> int:
        cs = self.config.cell_size
        fx, fy = (x - self.origin[0]) / cs, (y - self.origin[1]) / cs
        h, w = self.shape
        if not (0 <= fx < w and 0 <= fy < h):            # also inf: a point far off overflows floor()
            return -1
        return math.floor(fy) * w + math.floor(fx)

    def span_at(self, point: Sequence[float] | np.ndarray) -> int:
        """The span under world ``point`` (-1: none): for ``(x, y, z)`` the nearest surface at or
        below z within ``agent_height``, else one above within ``max_climb``; for ``(x, y)`` the top
        surface. ``NavError`` for a point that is not 2 or 3 finite numbers."""
        p = finite_point(point, "point")
        c = self._cell_of(p[0], p[1])
        if c < 0:
            return -1
        lo, hi = int(self.cell_start[c]), int(self.cell_start[c + 1])
        if lo == hi:
            return -1
        if len(p) == 2:
            return hi - 1
        zs = np.array([self._height_on(s, p[0], p[1]) for s in range(lo, hi)])
        below = np.flatnonzero((zs <= p[2] + 1e-6) & (zs >= p[2] - self.config.agent_height))
        if len(below):
            return lo + int(below[-1])
        above = np.flatnonzero((zs > p[2]) & (zs <= p[2] + self.config.max_climb))
        return lo + int(above[0]) if len(above) else -1

    polygon_at = span_at

    def _height_on(self, s: int, x: float, y: float) -> float:
        return float(span_height(self.span_cell, self.span_z, self.span_grad, self.shape[1], self.config.cell_size,
                                 self.origin[0], self.origin[1], s, x, y))

    def height_at(self, point: Sequence[float] | np.ndarray) -> float:
        """Surface height (world z) under ``point`` on the surface it picks (see ``span_at``);
        nan off the mesh."""
        s = self.span_at(point)
        return math.nan if s < 0 else self._height_on(s, float(point[0]), float(point[1]))

    def heights_of(self, world: np.ndarray) -> np.ndarray:
        """Surface height under each ``(N, 2)`` or ``(N, 3)`` world point (0 off the mesh)."""
        pts = checks.points(world, "world points", error=NavError)
        out = np.zeros(len(pts))
        for i, p in enumerate(pts):
            z = self.height_at(p)
            out[i] = 0.0 if math.isnan(z) else z
        return out

    def nearest_point(self, point: Sequence[float] | np.ndarray, search_cells: int = 64) -> tuple[int, np.ndarray] | None:
        """Nearest span an agent can stand on (``agent_radius`` from the edge) and the nearest
        point of its cell to world ``point`` (a 2D point: any height), or None within
        ``search_cells`` rings of cells."""
        p = finite_point(point, "point")
        search_cells = checks.whole_number(search_cells, "search_cells", low=0, high=1 << 16, error=NavError)
        z, window = (p[2], self.config.agent_height) if len(p) == 3 else (0.0, math.inf)
        s, x, y, zz = nearest_span(self.cell_start, self.span_cell, self.span_z, self.span_grad, self.clearance,
                                   self.config.agent_radius, self.shape[1], self.shape[0], self.config.cell_size,
                                   self.origin[0], self.origin[1], p[0], p[1], z, window, int(search_cells))
        return None if s < 0 else (int(s), np.array([x, y, zz]))

    def _locate(self, point, what: str) -> tuple[int, np.ndarray] | None:
        p = finite_point(point, what)
        s = self.span_at(p)
        if s >= 0 and self.open[s]:
            return s, np.array([p[0], p[1], self._height_on(s, p[0], p[1])])
        return self.nearest_point(p if s < 0 else (p[0], p[1], self._height_on(s, p[0], p[1])))

    def raycast(self, start: Sequence[float] | np.ndarray, end: Sequence[float] | np.ndarray) -> tuple[bool, np.ndarray]:
        """Walk a straight line over the surface ``start`` is on: ``(clear, hit)`` — ``hit`` is
        ``end`` (at the surface height there) when clear, else the last point before the line
        leaves the surface (``start`` itself, not clear, when the start is off the mesh)."""
        a = finite_point(start, "start")
        b = finite_point(end, "end")
        s = self.span_at(a)
        if s < 0:
            return False, np.array([a[0], a[1], a[2] if len(a) == 3 else 0.0])
        cs = self.config.cell_size                         # a far end: trace to a cell past the map's edge
        low = (self.origin[0] - cs, self.origin[1] - cs)
        high = (self.origin[0] + (self.shape[1] + 1) * cs, self.origin[1] + (self.shape[0] + 1) * cs)
        share = share_inside_box(a, b, low, high)
        if share < 1.0:
            b = (a[0] + (b[0] - a[0]) * share, a[1] + (b[1] - a[1]) * share)
        end_span, _, frac, _ = _run(trace, *self._surface(), s, a[0], a[1], b[0], b[1], np.zeros((0, 3)))
        if end_span >= 0:
            return True, np.array([b[0], b[1], self._height_on(int(end_span), b[0], b[1])])
        f = max(0.0, frac - 1e-9)
        x, y = a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f
        on = self.span_at((x, y, self._height_on(s, x, y) if frac < 1e-9 else a[2] if len(a) == 3 else math.inf))
        return False, np.array([x, y, self._height_on(on if on >= 0 else s, x, y)])

    def follow_surface(self, position: np.ndarray, previous: np.ndarray) -> None:
        """Keep agents on their own surface, in place: ``position (n, 3)`` are where they moved
        this tick from ``previous (n, 3)``. Each z becomes the height of the surface under it
        nearest its previous z within ``max_climb`` (on the deck it stays on the deck, on the
        road under it on the road, on a ramp it follows the ramp); a move off that surface —
        over a deck's edge, into a wall of its own floor — slides along the edge or is undone. The crowd calls this after each move."""
        if (not isinstance(position, np.ndarray) or not isinstance(previous, np.ndarray) or position.ndim != 2
                or position.shape[1] != 3 or previous.shape != position.shape or position.dtype != np.float64
                or previous.dtype != np.float64):
            raise NavError("follow_surface takes position and previous as (n, 3) float64 arrays of one shape, got "
                           f"{getattr(position, 'shape', type(position).__name__)} and "
                           f"{getattr(previous, 'shape', type(previous).__name__)}")
        follow_heights(self.cell_start, self.span_cell, self.span_z, self.span_grad, self.shape[1], self.shape[0], self.config.cell_size,
                       self.origin[0], self.origin[1], position, previous, max(self.config.max_climb, 1e-3))

    @property
    def height_gate(self) -> float:
        """How near in height a walker must be to a path point to have passed it: half the
        climb (a unit on the road beside a ramp has not passed the ramp's points, nor the step
        up onto it)."""
        return max(0.5 * float(self.config.max_climb), 0.05)

    def footprint(self, cell_size: float | None = None) -> "Grid":
        """A ``Grid`` over the mesh, passable where some surface has room for an agent
        (``agent_radius`` of clearance) anywhere in the cell: the plane a crowd on this mesh
        walks and collides on (its paths and heights come from the mesh). ``cell_size``: a
        multiple of the mesh's, default about the agent's diameter (the crowd's settings in cells
        expect cells near a unit's size)."""
        cs = self.config.cell_size
        if cell_size is not None:
            cell_size = checks.number(cell_size, "cell_size", low=0.0, low_open=True, error=NavError)
        h, w = self.shape
        # a cell wider than the whole mesh says nothing more (and a huge one would allocate its square)
        k = min(max(1, round(min((cell_size if cell_size is not None else 2 * self.config.agent_radius) / cs, 1e9))),
                max(h, w))
        passable = np.zeros(h * w, dtype=bool)
        passable[self.span_cell[self.open]] = True
        hk, wk = -(-h // k), -(-w // k)
        padded = np.zeros((hk * k, wk * k), dtype=bool)
        padded[:h, :w] = passable.reshape(h, w)
        coarse = np.asarray(padded.reshape(hk, k, wk, k).any(axis=(1, 3)))
        from ..grid import Grid

        return Grid(coarse, cell_size=k * cs, origin=self.origin)

    # ------------------------------------------------------ the crowd's queries
    needs_crossing_search = False            # no area costs: no shared goal trees

    def start_query(self, start: Sequence[float] | np.ndarray, goal: Sequence[float] | np.ndarray) -> MeshQuery:
        """``find_path`` as the crowd's sliced query (answered by its first ``step``)."""
        return MeshQuery(self, start, goal)

    def begin_query(self, s: np.ndarray, g: np.ndarray, goal) -> MeshPath:
        """``MeshQuery``'s first step: the whole answer."""
        return self.find_path(s, g)

    def end_query(self, plan: Any) -> MeshPath:
        """Never reached: every query is answered by ``begin_query``."""
        raise NavError("a layered navmesh answers every query at once")

    # ----------------------------------------------------------------- links
    def add_link(self, a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, cost: float | None = None,
                 kind: str = "jump", bidirectional: bool = True) -> OffMeshLink:
        """An off-mesh connection (jump, ladder, lift) from ``a`` to ``b`` (3D points pick their
        surface); ``cost`` defaults to the straight 3D distance. Both ends must be on the mesh."""
        ends = []
        for name, p in (("a", a), ("b", b)):
            s = self.span_at(finite_point(p, f"link end {name}"))
            if s < 0:
                raise NavError(f"link end {name} {tuple(p)} is not on the navmesh")
            ends.append(s)
        if cost is not None:
            checks.number(cost, "link cost (None: the straight distance)", low=0.0, error=NavError)
        if not isinstance(kind, str) or not kind:
            raise NavError(f"link kind must be a non-empty string such as 'jump', got {kind!r}")
        bidirectional = checks.flag(bidirectional, "bidirectional", error=NavError)
        pa = np.array([a[0], a[1], self._height_on(ends[0], a[0], a[1])])
        pb = np.array([b[0], b[1], self._height_on(ends[1], b[0], b[1])])
        c = float(cost) if cost is not None else float(np.linalg.norm(pb - pa))
        link = OffMeshLink((float(pa[0]), float(pa[1]), float(pa[2])), (float(pb[0]), float(pb[1]), float(pb[2])), c,
                            kind, bool(bidirectional))
        self.links.append(link)
        self._link_rows.append((ends[0], ends[1], c, len(self.links) - 1))
        if bidirectional:
            self._link_rows.append((ends[1], ends[0], c, len(self.links) - 1))
        self._link_tables = self._make_link_tables()
        return link

    def _make_link_tables(self):
        rows = sorted(self._link_rows)
        src = np.array([r[0] for r in rows], dtype=np.int64)
        to = np.array([r[1] for r in rows], dtype=np.int64)
        cost = np.array([r[2] for r in rows], dtype=np.float64)
        which = np.array([r[3] for r in rows], dtype=np.int64)
        return _csr_start(src, self.span_count), to, cost, which

    # ----------------------------------------------------------------- queries
    def find_path(self, start: Sequence[float] | np.ndarray, goal: Sequence[float] | np.ndarray) -> MeshPath:
        """Any-angle shortest path over the surfaces from ``start`` to ``goal`` (3D points pick
        their surface by height, see ``span_at``; points off the mesh snap to the nearest
        point). An unreachable goal gives a PARTIAL result to the reachable point nearest it."""
        st = self._locate(start, "start")
        gl = self._locate(goal, "goal")
        if st is None:
            return MeshPath(PathStatus.UNREACHABLE, reason=f"start {tuple(start)} is not near the navmesh")
        if gl is None:
            return MeshPath(PathStatus.UNREACHABLE, reason=f"goal {tuple(goal)} is not near the navmesh")
        (ps, sp), (pg, gp) = st, gl
        if ps == pg:                                    # one cell: the straight segment
            return MeshPath(PathStatus.FOUND, float(np.linalg.norm(gp - sp)), np.vstack([sp, gp]), np.array([ps]))
        if not self.links:                              # in plain sight: the straight walk, no search
            buf = np.empty((int((abs(gp[0] - sp[0]) + abs(gp[1] - sp[1])) / self.config.cell_size) + 3, 3))
            end, length, _, k = _run(trace, *self._surface(), ps, sp[0], sp[1], gp[0], gp[1], buf)
            if end == pg:
                return MeshPath(PathStatus.FOUND, float(length), np.vstack([sp, buf[:k], gp]), np.array([ps, pg]))
        unreachable = not self.links and self.component[ps] != self.component[pg]
        if unreachable:                                 # search for the reachable span nearest the goal
            mine = np.flatnonzero(self.component == self.component[ps])
            pg = int(mine[np.argmin(np.linalg.norm(self._centres[mine] - gp, axis=1))])
            gp = self._centres[pg].copy()
        link_start, link_to, link_cost, _ = self._link_tables
        pos = self._centres
        saved = pos[[ps, pg]].copy()
        pos[pg] = gp
        pos[ps] = sp
        self._query += 1
        try:
            reached, end, cost, _ = _run(theta_star, *self._surface(), pos, link_start, link_to, link_cost, ps, pg,
                                         self._g, self._parent, self._via_link, self._keys, self._nodes, self._heap_pos,
                                         self._stamp, self._query, self.any_angle_search, self.heuristic_weight)
            chain_list = [int(end)]
            while chain_list[-1] != ps:
                chain_list.append(int(self._parent[chain_list[-1]]))
            chain = np.array(chain_list[::-1], dtype=np.int64)
            geometry = (*self._surface(), pos)
            chain, leg_is_link = _run(densify, *geometry, chain, self._via_link[chain[1:]], self.DENSIFY_CELLS,
                                         self.DENSIFY_CELLS * self.config.cell_size)
            for drop in (False, True):
                chain, leg_is_link = _run(tighten, *geometry, chain, leg_is_link, self.TIGHTEN_WINDOW, self.TIGHTEN_SWEEPS,
                                             drop, self._stamp_tighten, self._nodes)
            pts, leg = _run(path_points, *geometry, chain, leg_is_link)
            link_at = tuple(int(np.flatnonzero(leg == i)[-1]) for i in range(len(chain) - 1) if leg_is_link[i])
            kinds = tuple(self._link_kind(int(chain[i]), int(chain[i + 1]))
                          for i in range(len(chain) - 1) if leg_is_link[i])
            if reached:
                cost = _chain_cost(geometry, chain, leg_is_link, self._link_tables)
        finally:
            pos[[ps, pg]] = saved
        if reached and not unreachable:
            return MeshPath(PathStatus.FOUND, float(cost), pts, chain, link_at, kinds)
        closest = tuple(map(float, pts[-1]))
        return MeshPath(PathStatus.PARTIAL, float(cost), pts, chain, link_at, kinds,
                        reason=f"goal {tuple(map(float, goal))} is not reachable; path to the closest point",
                        closest=closest)

    def _link_kind(self, a: int, b: int) -> str:
        link_start, link_to, _, which = self._link_tables
        for k in range(int(link_start[a]), int(link_start[a + 1])):
            if link_to[k] == b:
                return self.links[int(which[k])].kind
        return "jump"


def _run(kernel: Callable[..., Any], *args: Any) -> Any:
    """Call a numba kernel with its arguments spread from the surface tuple."""
    return kernel(*args)


def _chain_cost(geometry, chain: np.ndarray, leg_is_link: np.ndarray, link_tables) -> float:
    """Cost of a path: its legs' surface lengths and its links' costs."""
    link_start, link_to, link_cost, _ = link_tables
    empty = np.zeros((0, 3))
    total = 0.0
    for i in range(len(chain) - 1):
        a, b = int(chain[i]), int(chain[i + 1])
        if leg_is_link[i]:
            ks = range(int(link_start[a]), int(link_start[a + 1]))
            total += min(float(link_cost[k]) for k in ks if link_to[k] == b)
        else:
            pos = geometry[-1]
            total += float(_run(trace, *geometry[:5], -np.inf, *geometry[6:-1], a, pos[a, 0], pos[a, 1],
                                 pos[b, 0], pos[b, 1], empty)[1])
    return total


def _walkable_mask(walkable, count: int) -> np.ndarray:
    """``walkable`` checked as ``(count,)`` bools (``NavError`` naming what came)."""
    arr = np.asarray(walkable)
    if arr.shape != (count,) or arr.dtype != np.bool_:
        raise NavError(f"walkable must be a ({count},) bool array, one per triangle; got {arr.dtype} {arr.shape}")
    return np.ascontiguousarray(arr)


def _csr_start(keys: np.ndarray, count: int) -> np.ndarray:
    """CSR starts of sorted ``keys`` in ``0..count-1``: rows of key ``k`` are ``start[k]:start[k + 1]``."""
    return np.concatenate([[0], np.cumsum(np.bincount(keys, minlength=count))]).astype(np.int64)


def _plane_gradients(vertices: np.ndarray, triangles: np.ndarray, which: np.ndarray) -> np.ndarray:
    """``(N, 2)`` ``(dz/dx, dz/dy)`` of the planes of triangles ``which`` (never vertical ones)."""
    a, b, c = vertices[triangles[:, 0]], vertices[triangles[:, 1]], vertices[triangles[:, 2]]
    n = np.cross(b - a, c - a)
    nz = np.where(n[:, 2] == 0.0, 1.0, n[:, 2])
    return np.c_[-n[:, 0] / nz, -n[:, 1] / nz][which]
