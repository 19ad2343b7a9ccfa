"""The navmesh's surface: the baked arrays every query reads (declared here), and the geometry
questions asked of them — which polygon is under a point, the nearest point on the mesh, heights,
raycasts. The base of ``NavMesh``; its route parts (``exact``, ``area_cost``) read these arrays."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numba import njit

from rtsnav import checks

from ..errors import NavError
from ..grid import finite_point
from ..grid_points import share_inside_box
from ..grid_sight import world_segments_clear
from .mesh_types import CORNER_MARGIN, NavMeshConfig, OffMeshLink

__all__ = ["MeshSurface", "nearest_polygon"]


@njit(cache=True)
def nearest_polygon(poly_of_cell, rects, x, y, px, py, cs, ox, oy, margin, search_cells):
    """``(polygon, qx, qy)``: the polygon nearest to world point ``(px, py)`` (in cell ``(x,
    y)``) and its nearest point (kept ``margin`` inside the polygon's rectangle), searched ring
    by ring of cells out to ``search_cells``; ``(-1, nan, nan)`` when none is that near. On a
    tie the lower polygon id wins. (As numpy per ring, a point an eroded wall away cost ~50 µs.)"""
    h, w = poly_of_cell.shape
    best_d, best_p, best_x, best_y = math.inf, -1, math.nan, math.nan
    for r in range(search_cells + 1):
        for cy in range(y - r, y + r + 1):
            if cy < 0 or cy >= h:
                continue
            edge = cy == y - r or cy == y + r
            cx = x - r
            while cx <= x + r:
                if 0 <= cx < w:
                    p = poly_of_cell[cy, cx]
                    if p >= 0:
                        qx = min(max(px, ox + rects[p, 0] * cs + margin), ox + rects[p, 2] * cs - margin)
                        qy = min(max(py, oy + rects[p, 1] * cs + margin), oy + rects[p, 3] * cs - margin)
                        d = math.hypot(qx - px, qy - py)
                        if d < best_d or (d == best_d and p < best_p):
                            best_d, best_p, best_x, best_y = d, p, qx, qy
                cx += 1 if edge or r == 0 else 2 * r     # inner rows: only the ring's two ends
        if best_p >= 0 and best_d <= (r - 1) * cs:
            break
    return best_p, best_x, best_y


class MeshSurface:
    """Baked navmesh arrays and geometry queries (``NavMesh.__init__`` makes the arrays)."""

    config: NavMeshConfig
    origin: tuple[float, float]
    walkable: np.ndarray                 # (H, W) bool: cells walkable after erosion
    height: np.ndarray                   # (H, W) ground height
    poly_of_cell: np.ndarray             # (H, W) polygon id per cell (-1: none)
    rects: np.ndarray                    # (P, 4) polygon rectangles x0, y0, x1, y1 (cells)
    area_cost: np.ndarray                # (P,) cost per polygon
    _src: np.ndarray                     # portals, sorted by source polygon: source, destination,
    _dst: np.ndarray                     # segment, and the CSR start of each polygon's portals
    _seg: np.ndarray
    _start: np.ndarray
    tri_points: np.ndarray               # the query triangulation (exact routes)
    tri_triangles: np.ndarray
    tri_neighbours: np.ndarray
    tri_touching: np.ndarray
    cell_triangle: np.ndarray
    vis_start: np.ndarray                # the visibility graph (CSR) and its landmarks
    vis_dst: np.ndarray
    landmarks: np.ndarray
    links: list[OffMeshLink]
    goal_tables: tuple | None = None     # goal trees' tables (crossing states into each polygon, twins)

    @property
    def portals(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Directed portals between polygons: ``(from polygon, to polygon, segment x0 y0 x1 y1)``."""
        return self._src, self._dst, self._seg

    @property
    def portal_start(self) -> np.ndarray:
        """CSR start of each polygon's portals in ``portals`` (sorted by their first polygon)."""
        return self._start

    @property
    def polygon_count(self) -> int:
        """Number of polygons (the search graph's nodes)."""
        return len(self.rects)

    def polygon_vertices(self, p: int) -> np.ndarray:
        """World ``(4, 3)`` corners of polygon ``p`` (counter-clockwise), at its mean height."""
        x0, y0, x1, y1 = self.rects[self._polygon_id(p)]
        cs = self.config.cell_size
        ox, oy = self.origin
        z = float(self.height[y0:y1, x0:x1].mean())
        return np.array([[ox + x0 * cs, oy + y0 * cs, z], [ox + x1 * cs, oy + y0 * cs, z],
                         [ox + x1 * cs, oy + y1 * cs, z], [ox + x0 * cs, oy + y1 * cs, z]])

    def _cell(self, point) -> tuple[int, int]:
        cs = self.config.cell_size
        return (int(math.floor((point[0] - self.origin[0]) / cs)), int(math.floor((point[1] - self.origin[1]) / cs)))

    def polygon_at(self, point: Sequence[float] | np.ndarray) -> int:
        """Polygon under world ``point`` (-1 when off the mesh); ``NavError`` for a point that is
        not 2 or 3 finite numbers."""
        return self._polygon_under(finite_point(point, "point"))

    def nearest_point(self, point: Sequence[float] | np.ndarray, search_cells: int = 64) -> tuple[int, np.ndarray] | None:
        """Nearest polygon and the nearest point on it to world ``point`` (rings of cells of the
        point-location grid, not a scan of all polygons), or None within ``search_cells``."""
        point = finite_point(point, "point")
        x, y = self._cell(point)
        search_cells = checks.whole_number(search_cells, "search_cells", low=0, high=1 << 16, error=NavError)
        h, w = self.poly_of_cell.shape
        if not (-search_cells <= x < w + search_cells and -search_cells <= y < h + search_cells):
            return None                        # no cell that near (and such a cell number overflows 64 bits)
        cs = self.config.cell_size
        p, qx, qy = nearest_polygon(self.poly_of_cell, self.rects, x, y, float(point[0]), float(point[1]), float(cs),
                                    float(self.origin[0]), float(self.origin[1]), CORNER_MARGIN * cs, int(search_cells))
        if p < 0:
            return None
        return p, np.array([qx, qy, self.height_at((qx, qy))])

    def _polygon_id(self, p: int) -> int:
        """``p`` when it names one of the mesh's polygons, else ``NavError`` (a negative id is
        refused, never counted from the end)."""
        return checks.whole_number(p, "polygon id", low=0, high=len(self.rects) - 1, error=NavError)

    def _polygon_under(self, point) -> int:
        """``polygon_at`` for a point already checked (the queries' own points)."""
        x, y = self._cell(point)
        h, w = self.poly_of_cell.shape
        return int(self.poly_of_cell[y, x]) if 0 <= x < w and 0 <= y < h else -1

    def closest_on_polygon(self, p: int, point: Sequence[float] | np.ndarray) -> np.ndarray:
        """The point of polygon ``p`` nearest to ``point`` (xy), with the mesh height there."""
        x0, y0, x1, y1 = self.rects[self._polygon_id(p)]
        point = finite_point(point, "point")
        cs = self.config.cell_size
        ox, oy = self.origin
        m = CORNER_MARGIN * cs
        qx = min(max(point[0], ox + x0 * cs + m), ox + x1 * cs - m)
        qy = min(max(point[1], oy + y0 * cs + m), oy + y1 * cs - m)
        return np.array([qx, qy, self.height_at((qx, qy))])

    def height_at(self, point: Sequence[float] | np.ndarray) -> float:
        """Surface height (world z) of the mesh at ``point`` (nan off the mesh)."""
        x, y = self._cell(finite_point(point, "point"))
        h, w = self.height.shape
        if not (0 <= x < w and 0 <= y < h) or not self.walkable[y, x]:
            return math.nan
        return float(self.height[y, x])

    def raycast(self, start: Sequence[float] | np.ndarray, end: Sequence[float] | np.ndarray) -> tuple[bool, np.ndarray]:
        """Walk a straight line on the mesh: ``(clear, hit)`` — ``hit`` is ``end`` when clear,
        else the last point on the mesh before leaving it (``start`` itself, not clear, when the
        start is off the mesh). ``hit``'s z is the mesh height there, 0 off the mesh."""
        a = np.array(finite_point(start, "start"), dtype=np.float64)[:2]
        b = np.array(finite_point(end, "end"), dtype=np.float64)[:2]
        cs = self.config.cell_size
        if world_segments_clear(self.walkable, cs, self.origin[0], self.origin[1], a[None], b[None])[0]:
            return True, np.array([b[0], b[1], self.heights_of(b[None])[0]])
        lo, hi = 0.0, self._inside_share(a, b)              # bisect the leaving point, on the part in the map
        for _ in range(30):
            mid = (lo + hi) / 2
            p = a + (b - a) * mid
            if world_segments_clear(self.walkable, cs, self.origin[0], self.origin[1], a[None], p[None])[0]:
                lo = mid
            else:
                hi = mid
        p = a + (b - a) * lo
        return False, np.array([p[0], p[1], self.heights_of(p[None])[0]])

    def _inside_share(self, a: np.ndarray, b: np.ndarray) -> float:
        """``share_inside_box`` of ``a -> b`` and this mesh's map."""
        low = np.array(self.origin, dtype=np.float64)
        return share_inside_box(a, b, low, low + np.array(self.walkable.shape[::-1]) * self.config.cell_size)

    def heights_of(self, world: np.ndarray) -> np.ndarray:
        """Mesh height under each xy point (``(N, 2|3)`` world points; 0 off the mesh)."""
        world = np.zeros((0, 2)) if np.size(world) == 0 else checks.points(world, "world", error=NavError)
        cs = self.config.cell_size
        c = np.clip(np.floor((world[:, :2] - np.array(self.origin)) / cs), -1, 2 ** 31).astype(np.int64)
        h, w = self.height.shape
        inside = (c[:, 0] >= 0) & (c[:, 0] < w) & (c[:, 1] >= 0) & (c[:, 1] < h)
        out = np.zeros(len(world))
        cx, cy = c[inside, 0], c[inside, 1]
        out[inside] = np.where(self.walkable[cy, cx], self.height[cy, cx], 0.0)
        return out
