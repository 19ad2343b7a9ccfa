"""Goal bounds on the navmesh's visibility graph: never a different cost, fewer corners searched,
off with off-mesh links, cached for one mesh only, refused beyond their size, used by the crowd
when baked; and the shared build kernel on nodes of more than 64 edges."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from rtsnav.levels import load_movingai_map
from rtsnav.systems.nav import Grid, NavError, NavMesh
from rtsnav.systems.nav.kernels.first_moves import csr_goal_boxes
from rtsnav.systems.nav.navmesh.mesh_bounds import MeshGoalBounds


@pytest.fixture(scope="module")
def crop():
    """A 256² piece of AcrosstheCape, its exact navmesh and the mesh's goal bounds."""
    grid = load_movingai_map("AcrosstheCape.map")
    grid = Grid(grid.passable[300:556, 200:456].copy())
    mesh = NavMesh.from_grid(grid, agent_radius=0.0)
    labels = grid.components()
    cells = np.argwhere(labels == np.bincount(labels[labels >= 0]).argmax())[:, ::-1]
    return grid, cells, mesh, MeshGoalBounds.build(mesh)


def _searched(mesh, a, b):
    stats = mesh.query_tables().scratch.stats
    before = stats[1]
    r = mesh.find_path((a[0], a[1], 0.0), (b[0], b[1], 0.0))
    return r, stats[1] - before


@pytest.mark.slow
def test_goal_bounds_never_change_a_cost_and_prune_the_search(crop):
    grid, cells, mesh, bounds = crop
    rng = np.random.default_rng(5)
    searched = {False: 0, True: 0}
    for _ in range(150):
        a, b = cells[rng.integers(len(cells), size=2)] + 0.5
        answers = {}
        for use in (False, True):
            mesh.goal_bounds = bounds if use else None
            answers[use], n = _searched(mesh, a, b)
            searched[use] += n
        assert answers[True].found == answers[False].found
        if answers[False].found:
            assert answers[True].cost == pytest.approx(answers[False].cost, abs=1e-9)
            np.testing.assert_allclose(answers[True].points, answers[False].points, atol=1e-9)
    mesh.goal_bounds = None
    assert searched[True] < 0.9 * searched[False], searched     # AcrosstheCape whole: half as many


def test_a_mesh_with_off_mesh_links_searches_without_its_bounds():
    """A link is a way the boxes do not know: the query ignores them (same answers as without)."""
    passable = np.ones((30, 30), dtype=bool)
    passable[:, 15] = False
    passable[2:6, 8] = False
    passable[20:25, 22] = False
    grid = Grid(passable)
    mesh = NavMesh.from_grid(grid, agent_radius=0.0)
    mesh.goal_bounds = MeshGoalBounds.build(mesh)
    mesh.add_link((10.5, 20.5, 0.0), (20.5, 20.5, 0.0), cost=2.0, kind="jump")
    with_bounds = mesh.find_path((3.5, 3.5, 0.0), (27.5, 27.5, 0.0))
    mesh.goal_bounds = None
    without = mesh.find_path((3.5, 3.5, 0.0), (27.5, 27.5, 0.0))
    assert with_bounds.found and with_bounds.link_kinds == ("jump",)
    assert with_bounds.cost == pytest.approx(without.cost, abs=1e-9)


def test_bounds_are_cached_for_one_mesh_and_refused_for_another(crop, tmp_path):
    grid, _, mesh, bounds = crop
    again = MeshGoalBounds.cached(mesh, tmp_path)                 # built and saved
    np.testing.assert_array_equal(again.boxes, bounds.boxes)
    assert MeshGoalBounds.baked(mesh, tmp_path) is not None
    other = NavMesh.from_grid(Grid(grid.passable[:128, :128].copy()), agent_radius=0.0)
    assert MeshGoalBounds.baked(other, tmp_path) is None
    with pytest.raises(NavError, match="another navmesh"):
        MeshGoalBounds.load(MeshGoalBounds.file_path(mesh, tmp_path), other)
    with pytest.raises(NavError, match="built for this mesh"):
        other.goal_bounds = bounds


def test_meshes_over_the_limit_are_refused_with_an_estimate(crop, monkeypatch):
    _, _, mesh, _ = crop
    monkeypatch.setattr(MeshGoalBounds, "MAX_NODES", 50)
    with pytest.raises(NavError, match=r"over the limit of 50 .* about .* landmark"):
        MeshGoalBounds.build(mesh)


def test_the_crowd_uses_bounds_baked_for_its_navmesh(tmp_path):
    from rtsnav.systems.nav.crowd import Crowd, CrowdConfig

    grid = load_movingai_map("arena.map")
    crowd = Crowd(grid, CrowdConfig(rebuild_worker=False), cache_dir=tmp_path)
    assert crowd.level.navmesh().goal_bounds is None                    # never built in a tick
    MeshGoalBounds.cached(crowd.level.navmesh(), tmp_path)               # what ``levels bake --goal-bounds`` does
    assert Crowd(grid, CrowdConfig(rebuild_worker=False), cache_dir=tmp_path).level.navmesh().goal_bounds is not None


def test_the_build_kernel_tells_apart_more_than_64_first_edges():
    """A hub of 100 edges (two passes of the 64-bit first-move sets): every edge's box is the
    box of the nodes whose shortest path may start with it, as a brute force finds them."""
    rng = np.random.default_rng(1)
    n = 400
    xy = rng.uniform(0, 100, (n, 2))
    rows, cols = [], []
    for u in range(n):                                            # each node to its 5 nearest
        near = np.argsort(np.hypot(*(xy - xy[u]).T))[1:6]
        rows += [u] * 5
        cols += near.tolist()
    rows += [0] * 100                                             # node 0: a hub of 100 edges
    cols += rng.choice(np.arange(1, n), 100, replace=False).tolist()
    pairs = np.unique(np.c_[rows + cols, cols + rows], axis=0)    # both ways, no duplicates
    cost = np.hypot(*(xy[pairs[:, 0]] - xy[pairs[:, 1]]).T)
    m = csr_matrix((cost, (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    m.sort_indices()
    start, target, weight = m.indptr.astype(np.int64), m.indices.astype(np.int64), m.data.astype(np.float64)
    boxes = np.empty((len(target), 4), dtype=np.float32)
    csr_goal_boxes(start, target, weight, xy[:, 0].copy(), xy[:, 1].copy(), np.array([0], dtype=np.int64), boxes)
    assert start[1] - start[0] > 64
    dist = dijkstra(m, indices=np.r_[0, target[start[0]:start[1]]])
    for j, e in enumerate(range(start[0], start[1])):
        through = weight[e] + dist[1 + j]                         # via this first edge
        mine = (np.abs(through - dist[0]) <= 1e-9 * np.maximum(1.0, dist[0])) & (np.arange(n) != 0)
        if mine.any():
            want = np.r_[xy[mine].min(axis=0), xy[mine].max(axis=0)].astype(np.float32)
            np.testing.assert_allclose(boxes[e], want, rtol=1e-6)
        else:
            assert boxes[e, 0] > boxes[e, 2]                      # empty
