"""The navmesh's exact query machinery: the boundary triangulation, exactness of the
visibility-graph query against an independent reference, landmark bounds, cliffs, the cache."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.levels import load_movingai_map
from rtsnav.systems.nav import Grid, NavMesh
from rtsnav.systems.nav.navmesh.visibility import goal_distances, sweep
from tests.systems.nav.anyangle import AnyAngle


def _crop():
    grid = load_movingai_map("AcrosstheCape.map")
    return Grid(grid.passable[300:556, 200:456].copy())


def _free_cells(grid, n, seed):
    labels = grid.components()
    cells = np.argwhere(labels == np.bincount(labels[labels >= 0]).argmax())[:, ::-1]
    rng = np.random.default_rng(seed)
    return cells[rng.integers(0, len(cells), (n, 2))] + 0.5


@pytest.mark.parametrize("name", ["den520d", "crop"])
def test_queries_are_exact(name):
    grid = _crop() if name == "crop" else load_movingai_map(name + ".map")
    mesh = NavMesh.from_grid(grid, agent_radius=0.0)
    reference = AnyAngle(grid.passable)
    for s, g in _free_cells(grid, 120, 7):
        r = mesh.find_path((s[0], s[1], 0.0), (g[0], g[1], 0.0))
        best = reference.shortest(s, g)
        assert r.found
        # the reference insets corners 1e-4 cells, the query nudges them 2e-3: nothing else differs
        assert best - 1e-3 <= r.cost <= best + 5e-3 * len(r.points), (s, g, r.cost, best)


def test_queries_from_mesh_vertices_look_every_way():
    grid = load_movingai_map("arena.map")
    mesh = NavMesh.from_grid(grid, agent_radius=0.0)
    reference = AnyAngle(grid.passable)
    t = mesh.query_tables()
    corners = t.corner_ids[t.wedge[t.corner_ids, 0] != 0]    # a wall corner: 3 cells free
    rng = np.random.default_rng(11)
    for v in rng.choice(corners, 20, replace=False):
        s = t.points[v]
        for g in _free_cells(grid, 5, int(v))[:, 0]:
            r = mesh.find_path((s[0], s[1], 0.0), (g[0], g[1], 0.0))
            best = reference.shortest(s - t.wedge[v] * 1e-4, g)          # a hair off the wall
            assert r.found and best - 1e-3 <= r.cost <= best + 5e-3 * len(r.points), (s, g, r.cost, best)


def test_triangles_tile_the_walkable_area_and_only_it():
    grid = load_movingai_map("den520d.map")
    mesh = NavMesh.from_grid(grid, agent_radius=0.0)
    p, tri = mesh.tri_points, mesh.tri_triangles
    a, b, c = p[tri[:, 0]], p[tri[:, 1]], p[tri[:, 2]]
    area = np.abs((b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])) / 2
    assert area.sum() == pytest.approx(mesh.walkable.sum())
    assert (area > 0).all()
    centre = (a + b + c) / 3
    assert mesh.walkable[np.floor(centre[:, 1]).astype(int), np.floor(centre[:, 0]).astype(int)].all()
    # every walkable cell centre is located in a triangle that really holds it
    ys, xs = np.nonzero(mesh.walkable)
    for x, y in zip(xs[::97] + 0.5, ys[::97] + 0.5):
        held = mesh.exact.triangles_holding(x, y)
        assert len(held) >= 1
        t = tri[held[0]]
        signs = [np.sign((p[t[(j + 1) % 3], 0] - p[t[j], 0]) * (y - p[t[j], 1])
                         - (p[t[(j + 1) % 3], 1] - p[t[j], 1]) * (x - p[t[j], 0])) for j in range(3)]
        assert not (min(signs) < 0 < max(signs))


def test_landmark_bounds_never_exceed_the_true_distance():
    grid = _crop()
    mesh = NavMesh.from_grid(grid, agent_radius=0.0, landmarks=6)
    reference = AnyAngle(grid.passable)
    t = mesh.query_tables()
    corners = t.corner_ids
    main = corners[np.isfinite(mesh.landmarks[corners, 0])]      # the part the landmarks cover
    rng = np.random.default_rng(3)
    bounds, truths = [], []
    for gx, gy in _free_cells(grid, 4, 5)[:, 0]:
        seen, _ = sweep(t, t.scratch, mesh.exact.triangles_holding(gx, gy), gx, gy)
        d_goal = goal_distances(mesh.landmarks, seen, corners)
        for v in rng.choice(main, 40, replace=False):
            bound = np.abs(mesh.landmarks[v] - d_goal).max()
            start = t.points[v] - t.wedge[v] * 1e-4             # a hair off the wall
            truth = reference.shortest(start, np.array([gx, gy]))
            assert bound <= truth + 1e-3, (v, bound, truth)
            bounds.append(bound)
            truths.append(truth)
    assert np.mean(bounds) >= 0.66 * np.mean(truths)              # and worth having


def test_exact_paths_never_step_off_a_cliff():
    passable = np.ones((40, 60), dtype=bool)
    heights = np.zeros((40, 60))
    heights[10:30, 20:40] = 3.0                         # a plateau, reachable up a ramp only
    heights[18:22, 40:50] = np.linspace(3.0, 0.0, 10)[None, :]
    mesh = NavMesh.from_grid(Grid(passable, heights=heights), agent_radius=0.0, max_climb=0.5)
    up = mesh.find_path((5.5, 20.5, 0.0), (30.5, 20.5, 0.0))
    assert up.found
    pts = up.points
    samples = np.concatenate([np.linspace(a, b, 200) for a, b in zip(pts[:-1, :2], pts[1:, :2])])
    z = heights[np.floor(samples[:, 1]).astype(int), np.floor(samples[:, 0]).astype(int)]
    assert np.abs(np.diff(z)).max() <= 0.5 + 1e-9                # only climbs it can take
    assert up.cost > 40                                           # round to the ramp, not straight up
    across = mesh.find_path((5.5, 35.5, 0.0), (55.5, 35.5, 0.0))  # below the plateau: straight
    assert across.found and len(across.points) == 2


def test_unreachable_islands_are_answered_without_a_search():
    passable = np.ones((20, 41), dtype=bool)
    passable[:, 20] = False
    mesh = NavMesh.from_grid(Grid(passable), agent_radius=0.0)
    r = mesh.find_path((2.5, 2.5, 0.0), (38.5, 2.5, 0.0))
    assert not r.found and r.partial
    assert r.closest[0] < 20


def test_bake_reports_progress_and_cache_keeps_the_query_graph(tmp_path):
    grid = _crop()
    seen = []
    mesh = NavMesh.cached(grid, tmp_path, agent_radius=0.0,
                          progress=lambda stage, done, total: seen.append((stage, done, total)))
    last = {stage: (done, total) for stage, done, total in seen}
    assert set(last) == {"regions", "triangulation", "visibility graph", "landmarks"}
    assert all(done == total > 0 for done, total in last.values())
    again = NavMesh.cached(grid, tmp_path, agent_radius=0.0)
    assert np.array_equal(again.vis_dst, mesh.vis_dst) and np.array_equal(again.landmarks, mesh.landmarks)
    a, b = (10.5, 10.5, 0.0), (240.5, 200.5, 0.0)
    assert again.find_path(a, b).cost == pytest.approx(mesh.find_path(a, b).cost)


def _samples(points, step):
    pts = points[:, :2]
    return np.concatenate([np.linspace(a, b, max(2, int(np.hypot(*(b - a)) / step) + 1))
                           for a, b in zip(pts[:-1], pts[1:])])


@pytest.mark.parametrize("seed", range(25))
def test_random_maps_exact_and_inside(seed):
    rng = np.random.default_rng(seed)
    passable = rng.random((24, 32)) > rng.uniform(0.1, 0.45)
    grid = Grid(passable)
    mesh = NavMesh.from_grid(grid, agent_radius=0.0)
    reference = AnyAngle(passable)
    for s, g in _free_cells(grid, 15, seed):
        r = mesh.find_path((s[0], s[1], 0.0), (g[0], g[1], 0.0))
        best = reference.shortest(s, g)
        assert r.found and best - 1e-3 <= r.cost <= best + 5e-3 * len(r.points), (s, g, r.cost, best)
        c = np.floor(_samples(r.points, 0.05)).astype(int)
        assert passable[c[:, 1], c[:, 0]].all()


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(25))
def test_random_terraces_never_climb_a_cliff(seed):
    rng = np.random.default_rng(seed)
    passable = rng.random((24, 32)) > 0.15
    heights = np.kron(rng.integers(0, 3, (6, 8)), np.ones((4, 4))) * rng.choice([0.5, 2.0])
    heights = heights + np.kron(rng.integers(0, 2, (3, 4)), np.ones((8, 8))) * 0.5
    mesh = NavMesh.from_grid(Grid(passable, heights=heights), agent_radius=0.0, max_climb=0.9)
    cells = np.argwhere(passable)[:, ::-1]
    component = mesh.query_tables().component[mesh.cell_triangle[cells[:, 1], cells[:, 0]]]
    for i in rng.integers(0, len(cells), 15):
        same = np.flatnonzero(component == component[i])           # goals the mesh can reach
        j = same[rng.integers(0, len(same))]
        r = mesh.find_path((*(cells[i] + 0.5), 0.0), (*(cells[j] + 0.5), 0.0))
        assert r.found
        c = np.floor(_samples(r.points, 0.0005)).astype(int)
        assert passable[c[:, 1], c[:, 0]].all()
        assert np.abs(np.diff(heights[c[:, 1], c[:, 0]])).max() <= 0.9 + 1e-9
        # no reference knows cliffs; the crossing-point search (used with links or area costs)
        # walks the rectangle portals, so the exact query must never be longer than it
        start, goal = r.points[0], r.points[-1]
        route = mesh.area.astar(mesh.polygon_at(start), mesh.polygon_at(goal), start[:2], goal[:2])
        _, approx, *_ = mesh.area.points(route, start, goal)
        assert r.cost <= approx + 5e-3 * len(r.points)


@pytest.mark.parametrize("seed", range(8))
def test_links_join_the_exact_query(seed):
    rng = np.random.default_rng(100 + seed)
    passable = rng.random((24, 32)) > 0.3
    grid = Grid(passable)
    mesh = NavMesh.from_grid(grid, agent_radius=0.0)
    reference = AnyAngle(passable)
    free = np.argwhere(passable)[:, ::-1] + 0.5
    a, b = free[rng.integers(0, len(free), 2)]
    cost = float(rng.uniform(0.5, 5.0))                          # often cheaper than walking: a teleport
    one_way = bool(seed % 2)
    mesh.add_link((a[0], a[1], 0.0), (b[0], b[1], 0.0), cost=cost, kind="teleport", bidirectional=not one_way)

    def d(p, q):
        return reference.shortest(p, q)
    for s, g in free[rng.integers(0, len(free), (12, 2))]:
        best = min(d(s, g), d(s, a) + cost + d(b, g))
        if not one_way:
            best = min(best, d(s, b) + cost + d(a, g))
        r = mesh.find_path((s[0], s[1], 0.0), (g[0], g[1], 0.0))
        if not np.isfinite(best):
            assert not r.found
            continue
        assert r.found and best - 1e-3 <= r.cost <= best + 5e-3 * len(r.points), (s, g, r.cost, best)
        for i in r.links:                                        # a link's ends, in its direction
            ends = (tuple(r.points[i, :2]), tuple(r.points[i + 1, :2]))
            assert ends == (tuple(a), tuple(b)) or (not one_way and ends == (tuple(b), tuple(a)))
            assert r.link_kinds == ("teleport",) * len(r.links)


def test_a_short_query_in_plain_sight_takes_the_cheap_exit():
    """On a Moving AI map, a start that sees its goal gets the straight walk with no search;
    the same queries through the full search give the same paths and costs."""
    grid = load_movingai_map("den520d.map")
    mesh = NavMesh.from_grid(grid, agent_radius=0.0)
    reference = AnyAngle(grid.passable)
    rng = np.random.default_rng(3)
    direct = 0
    for s, _ in _free_cells(grid, 80, 11):
        g = s + rng.uniform(-6, 6, 2)
        before = dict(mesh.query_counts)
        r = mesh.find_path((s[0], s[1], 0.0), (g[0], g[1], 0.0))
        took_exit = mesh.query_counts["direct"] > before["direct"]
        if not took_exit:
            continue
        direct += 1
        assert mesh.query_counts["searched"] == before["searched"]             # no global search
        assert r.found and len(r.points) == 2
        assert r.cost == pytest.approx(reference.shortest(s, g), abs=1e-3)
        mesh.use_plain_sight(False)                                            # the full search, for comparison
        full = mesh.find_path((s[0], s[1], 0.0), (g[0], g[1], 0.0))
        mesh.use_plain_sight(None)
        assert full.cost == pytest.approx(r.cost, abs=1e-6) and len(full.points) == 2
    assert direct >= 40
