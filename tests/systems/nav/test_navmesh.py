"""NavMesh: bakes from grids and triangles, paths inside walkable space and close to the
any-angle optimum, erosion, partial paths, off-mesh links, raycasts, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rtsnav.levels import load_movingai_map
from rtsnav.systems.nav import Grid, NavError, NavMesh
from rtsnav.systems.nav.navmesh import NavMeshConfig
from rtsnav.systems.nav.navmesh.mesh_types import CORNER_MARGIN
from rtsnav.systems.nav.result import PathStatus
from tests.systems.nav.anyangle import AnyAngle


def _samples(points, step=0.1):
    pts = np.asarray(points)[:, :2]
    return np.concatenate([np.linspace(a, b, max(2, int(np.hypot(*(b - a)) / step) + 1))
                           for a, b in zip(pts[:-1], pts[1:])])


def _inside(mesh, points):
    s = _samples(points)
    c = np.floor((s - mesh.origin) / mesh.config.cell_size).astype(int)
    return bool(mesh.walkable[c[:, 1], c[:, 0]].all())


def _map(name):
    grid = load_movingai_map(name + ".map")
    if name == "AcrosstheCape":                               # a 256² crop, as the issue asks
        grid = Grid(grid.passable[300:556, 200:456].copy())
    return grid


@pytest.mark.parametrize("name", ["arena", "den520d", "ht_chantry", "room-64-64-8", "AcrosstheCape"])
def test_paths_stay_walkable_and_near_the_any_angle_optimum(name):
    grid = _map(name)
    mesh = NavMesh.from_grid(grid, agent_radius=0.0)
    reference = AnyAngle(grid.passable)
    labels = grid.components()
    cells = np.argwhere(labels == np.bincount(labels[labels >= 0]).argmax())[:, ::-1]
    rng = np.random.default_rng(1)
    ratios = []
    for _ in range(300):
        s, t = (cells[i] + 0.5 for i in rng.integers(0, len(cells), 2))
        r = mesh.find_path((s[0], s[1], 0.0), (t[0], t[1], 0.0))
        assert r.found and _inside(mesh, r.points)
        best = reference.shortest(s, t)
        if best > 0:
            ratios.append(r.cost / best)
    ratios = np.array(ratios)
    assert ratios.min() >= 1 - 1e-3                          # never beats the true optimum
    assert ratios.mean() <= 1.02 and ratios.max() <= 1.10, (ratios.mean(), ratios.max())


def test_reference_is_exact_on_a_known_case():
    p = np.ones((10, 10), dtype=bool)
    p[2:8, 5] = False
    ref = AnyAngle(p)
    expected = math.hypot(3.5, 2.5) + 1.0 + math.hypot(2.5, 2.5)      # round the wall's top end
    assert ref.shortest((1.5, 5.5), (8.5, 5.5)) == pytest.approx(expected, abs=1e-3)


def test_acrossthecape_has_far_fewer_polygons_than_cells():
    grid = load_movingai_map("AcrosstheCape.map")
    mesh = NavMesh.from_grid(grid, agent_radius=0.5)
    assert mesh.walkable.sum() >= 20 * mesh.polygon_count


def test_erosion_keeps_paths_an_agent_radius_off_the_walls():
    p = np.ones((30, 40), dtype=bool)
    p[5:25, 20] = False
    grid = Grid(p)
    mesh = NavMesh.from_grid(grid, agent_radius=1.5)
    r = mesh.find_path((3.5, 15.5, 0), (36.5, 15.5, 0))
    assert r.found and _inside(mesh, r.points)
    s = _samples(r.points)
    blocked = np.argwhere(~p)[:, ::-1] + 0.5
    nearest = np.min(np.hypot(s[:, None, 0] - blocked[None, :, 0], s[:, None, 1] - blocked[None, :, 1]), axis=1)
    assert nearest.min() >= 1.5 + 0.5 - 1e-6                   # ≥ r from the wall face


def test_unreachable_goal_gives_a_partial_path_to_the_closest_point():
    p = np.ones((20, 30), dtype=bool)
    p[:, 15] = False
    mesh = NavMesh.from_grid(Grid(p), agent_radius=0.0)
    r = mesh.find_path((3.5, 10.5, 0), (25.5, 10.5, 0))
    assert not r.found and r.partial and r.status is PathStatus.PARTIAL
    assert r.closest[0] == pytest.approx(15.0, abs=0.01) and r.closest[1] == pytest.approx(10.5)
    assert _inside(mesh, r.points)


def test_off_mesh_link_is_used_and_reported():
    p = np.ones((20, 30), dtype=bool)
    p[:, 15] = False
    mesh = NavMesh.from_grid(Grid(p), agent_radius=0.0)
    mesh.add_link((14.5, 10.5, 0), (16.5, 10.5, 0), cost=3.0, kind="jump")
    r = mesh.find_path((3.5, 10.5, 0), (25.5, 10.5, 0))
    assert r.found and len(r.links) == 1
    i = r.links[0]
    assert tuple(r.points[i, :2]) == (14.5, 10.5) and tuple(r.points[i + 1, :2]) == (16.5, 10.5)
    assert r.cost == pytest.approx(11.0 + 3.0 + 9.0)
    with pytest.raises(NavError, match="not on the navmesh"):
        mesh.add_link((15.5, 3.5, 0), (3.5, 3.5, 0))


def test_raycast_stops_at_the_mesh_edge():
    p = np.ones((10, 20), dtype=bool)
    p[:, 10] = False
    mesh = NavMesh.from_grid(Grid(p), agent_radius=0.0)
    clear, hit = mesh.raycast((2.5, 5.5), (8.5, 5.5))
    assert clear and hit[0] == pytest.approx(8.5)
    clear, hit = mesh.raycast((2.5, 5.5), (18.5, 5.5))
    assert not clear and hit[0] == pytest.approx(10.0, abs=1e-3)


def _ramp_world():
    """A floor at z=0 (x 0..10), a 15° ramp up to a deck at z≈2.7 (x 10..20), and a 40° wall-
    like slope beside it (y 12..20) that must not be walkable."""
    v, t = [], []

    def quad(a, b, c, d):
        i = len(v)
        v.extend([a, b, c, d])
        t.extend([(i, i + 1, i + 2), (i, i + 2, i + 3)])

    rise = 10 * math.tan(math.radians(15))
    quad((0, 0, 0), (10, 0, 0), (10, 20, 0), (0, 20, 0))                     # floor
    quad((10, 0, 0), (20, 0, rise), (20, 10, rise), (10, 10, 0))              # ramp 15°
    steep = 10 * math.tan(math.radians(40))
    quad((10, 12, 0), (20, 12, steep), (20, 20, steep), (10, 20, 0))          # slope 40°
    quad((20, 0, rise), (30, 0, rise), (30, 10, rise), (20, 10, rise))        # deck
    return np.array(v, dtype=float), np.array(t)


def test_triangle_bake_walks_up_the_ramp_and_not_the_steep_slope():
    v, t = _ramp_world()
    mesh = NavMesh.from_triangles(v, t, cell_size=0.5, agent_radius=0.0, max_climb=0.3)
    assert mesh.height_at((15.0, 5.0)) == pytest.approx(5 * math.tan(math.radians(15)), abs=0.1)
    assert math.isnan(mesh.height_at((15.0, 16.0)))                            # the 40° slope
    r = mesh.find_path((2.0, 5.0, 0), (28.0, 5.0, 0))
    assert r.found
    s = _samples(r.points, 0.25)
    on_ramp = (s[:, 0] > 11) & (s[:, 0] < 19)
    heights = np.array([mesh.height_at(p) for p in s[on_ramp]])
    expect = (s[on_ramp, 0] - 10) * math.tan(math.radians(15))
    assert np.abs(heights - expect).max() < 0.25                               # follows the ramp


@pytest.mark.parametrize("vertices, triangles, message", [
    ([[0, 0, 0], [1, 0, 0], [np.nan, 1, 0]], [[0, 1, 2]], "not finite"),
    ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 3]], "out of range"),
    ([[0, 0, 0], [1, 0, 0], [2, 0, 0]], [[0, 1, 2]], "degenerate"),
    ([[0, 0], [1, 0], [0, 1]], [[0, 1, 2]], "shape"),
])
def test_malformed_mesh_input_raises(vertices, triangles, message):
    with pytest.raises(NavError, match=message):
        NavMesh.from_triangles(np.array(vertices, dtype=float), np.array(triangles))


def test_bad_config_raises():
    with pytest.raises(NavError, match="max_slope"):
        NavMeshConfig(max_slope=120)


@pytest.mark.slow
def test_cache_round_trip_and_corruption_is_detected(tmp_path):
    grid = load_movingai_map("AcrosstheCape.map")
    mesh = NavMesh.cached(grid, tmp_path, agent_radius=0.5)
    again = NavMesh.cached(grid, tmp_path, agent_radius=0.5)      # loaded (timed in the benchmark)
    assert np.array_equal(mesh.rects, again.rects)
    a, b = (100.5, 100.5, 0), (600.5, 650.5, 0)
    assert np.allclose(mesh.find_path(a, b).points, again.find_path(a, b).points)
    (path,) = list(tmp_path.glob("*.npz"))
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(NavError):
        NavMesh.load(path)
    rebuilt = NavMesh.cached(grid, tmp_path, agent_radius=0.5)  # corrupt: baked again
    assert rebuilt.polygon_count == mesh.polygon_count


def test_off_mesh_link_with_area_costs():
    p = np.ones((20, 30), dtype=bool)
    p[:, 15] = False
    cost = np.ones((20, 30), dtype=np.float32)
    cost[:, 16:] = 2.0                                          # mud beyond the wall
    mesh = NavMesh.from_grid(Grid(p, cost), agent_radius=0.0)
    mesh.add_link((14.5, 10.5, 0), (16.5, 10.5, 0), cost=3.0, kind="jump", bidirectional=False)
    r = mesh.find_path((3.5, 10.5, 0), (25.5, 10.5, 0))
    assert r.found and r.link_kinds == ("jump",)
    assert r.cost == pytest.approx(11.0 + 3.0 + 9.0 * 2.0, rel=0.01)
    back = mesh.find_path((25.5, 10.5, 0), (3.5, 10.5, 0))          # one way: no way back
    assert not back.found and back.partial


@pytest.mark.slow
def test_subdivided_raster_keeps_narrow_bridges_open_and_still_clears_the_walls():
    from rtsnav.levels import load_level

    grid = load_level("river").grid
    whole = NavMesh.from_grid(grid, agent_radius=0.4)
    fine = NavMesh.from_grid(grid, agent_radius=0.4, subdivide=2)
    a, b = (11.5, 31.5, 0.0), (84.5, 20.5, 0.0)
    assert not whole.find_path(a, b).found                      # whole-cell erosion closes both bridges
    r = fine.find_path(a, b)
    assert r.found
    # the south bridge's west end is a diagonal squeeze past a rock: closed at 1/2 cell, open at
    # 1/6 (the crowd's choice on small maps)
    c, d = (40.2, 47.3, 0.0), (80.5, 50.5, 0.0)
    assert fine.find_path(c, d).cost > 80                       # round by the north bridge
    sixth = NavMesh.from_grid(grid, agent_radius=0.4, subdivide=6).find_path(c, d)
    assert sixth.found and sixth.cost < 45
    blocked = np.argwhere(~grid.passable)[:, ::-1] + 0.5          # blocked cell centres (x, y)
    from scipy.spatial import cKDTree

    for path in (r, sixth):
        # every point of the path clears the walls by the radius (sampled along the path)
        pts = np.concatenate([np.linspace(p, q, 40) for p, q in zip(path.points[:-1, :2], path.points[1:, :2])])
        _, near = cKDTree(blocked).query(pts, k=9)
        gap = np.maximum(np.abs(pts[:, None, :] - blocked[near]) - 0.5, 0.0)     # point to square cell
        clearance = np.hypot(gap[..., 0], gap[..., 1]).min(axis=1)
        assert clearance.min() >= 0.4 - 1e-6
    with pytest.raises(NavError, match="subdivide"):
        NavMesh.from_grid(grid, agent_radius=0.4, subdivide=0)


@pytest.mark.slow
def test_the_crowds_navmesh_planner_crosses_the_river():
    from rtsnav.levels import load_level
    from rtsnav.systems.nav import Crowd

    crowd = Crowd(load_level("river").grid)
    assert crowd.level.navmesh_subdivide == 6                          # small map, radius under half a cell
    ids = crowd.add_agents([(11.5, 31.5)], radius=0.35, max_speed=5.0)
    crowd.move(ids, (84.5, 20.5), planner="navmesh")
    reached = []
    for _ in range(900):
        reached += crowd.update(1 / 30).reached.tolist()
        if reached:
            break
    assert reached == [int(ids[0])]


def _cells_along(points: np.ndarray) -> list[tuple[int, int]]:
    """Every cell a polyline (cell units) passes through, in order: fine sampling, no rtsnav."""
    cells: list[tuple[int, int]] = []
    for a, b in zip(points[:-1], points[1:]):
        for t in np.linspace(0.0, 1.0, int(np.abs(b - a).sum() * 64) + 2):
            c = (int(math.floor(a[0] + t * (b[0] - a[0]))), int(math.floor(a[1] + t * (b[1] - a[1]))))
            if not cells or cells[-1] != c:
                cells.append(c)
    return cells


def test_a_path_reports_the_polygons_it_crosses_and_the_nearest_point_is_the_nearest():
    """The corridor (found on first read of ``polygons``, skipping cells inside the polygon it is
    in) is the polygons of every cell the path crosses, in order; ``nearest_point`` (ring by ring
    in a kernel) is the closest point of the closest polygon, checked against all polygons."""
    grid = load_movingai_map("arena.map")
    mesh = NavMesh.from_grid(grid, agent_radius=0.5)
    cs = mesh.config.cell_size
    rng = np.random.default_rng(3)
    open_cells = np.argwhere(mesh.walkable)
    for _ in range(40):
        (ay, ax), (by, bx) = open_cells[rng.integers(len(open_cells), size=2)]
        r = mesh.find_path((ax + 0.5, ay + 0.5, 0.0), (bx + 0.5, by + 0.5, 0.0))
        if not r.found:
            continue
        cells = _cells_along((r.points[:, :2] - np.array(mesh.origin)) / cs)
        expected = [int(mesh.poly_of_cell[y, x]) for x, y in cells if mesh.poly_of_cell[y, x] >= 0]
        expected = [p for i, p in enumerate(expected) if i == 0 or p != expected[i - 1]]
        assert r.polygons.tolist() == expected and r.polygons is r.polygons       # found once, kept
    m = CORNER_MARGIN * cs
    for point in rng.uniform(-3, 52, (200, 2)):
        near = mesh.nearest_point((point[0], point[1], 0.0))
        r0 = mesh.rects * cs
        qx = np.clip(point[0], mesh.origin[0] + r0[:, 0] + m, mesh.origin[0] + r0[:, 2] - m)
        qy = np.clip(point[1], mesh.origin[1] + r0[:, 1] + m, mesh.origin[1] + r0[:, 3] - m)
        best = np.hypot(qx - point[0], qy - point[1]).min()
        assert near is not None and math.hypot(near[1][0] - point[0], near[1][1] - point[1]) == pytest.approx(best)
