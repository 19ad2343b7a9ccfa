"""Navmesh goal trees: many units to one goal on a mesh with area costs share one search."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.systems.nav import Grid
from rtsnav.systems.nav.crowd import Crowd, CrowdConfig
from rtsnav.systems.nav.navmesh import NavMesh
from rtsnav.systems.nav.navmesh.goal_tree import GoalTree


def _muddy_mesh(link: bool = False) -> NavMesh:
    rng = np.random.default_rng(7)
    p = np.ones((40, 60), dtype=bool)
    p[5:35, 20] = False
    p[10:40, 40] = False
    cost = np.where(rng.random((40, 60)) < 0.3, 2.5, 1.0).astype(np.float32)
    mesh = NavMesh.from_grid(Grid(p, cost), agent_radius=0.0)
    if link:
        mesh.add_link((19.5, 20.5, 0), (21.5, 20.5, 0), cost=1.0, kind="jump", bidirectional=False)
    return mesh


@pytest.mark.parametrize("link", [False, True])
def test_tree_routes_cost_what_the_forward_search_finds(link):
    mesh = _muddy_mesh(link)
    goal = (55.5, 5.5)
    tree = GoalTree(mesh, goal)
    steps = 0
    while not tree.step(500):                                   # built in slices
        steps += 1
    assert steps > 1
    rng = np.random.default_rng(1)
    ratios = []
    for _ in range(40):
        start = rng.uniform((0.5, 0.5), (59.5, 39.5))
        if mesh.polygon_at(start) < 0:
            continue
        a, b = mesh.find_path(start, goal), tree.route(start)
        assert a.status == b.status
        if a.found:
            ratios.append(b.cost / a.cost)
            assert np.allclose(b.points[0, :2], start) and np.allclose(b.points[-1, :2], goal)
            mids = (b.points[:-1, :2] + b.points[1:, :2]) / 2
            bad = [m for i, m in enumerate(mids) if i not in b.links and mesh.polygon_at(m) < 0]   # links jump
            assert not bad, (start, bad, b.points.round(3).tolist())
    assert len(ratios) > 20
    # near-optimal like the forward search (both funnel a route over portal crossing points):
    # never notably dearer, sometimes cheaper
    assert max(ratios) < 1.03 and float(np.mean(ratios)) < 1.005


def test_tree_takes_a_one_way_link_only_forwards():
    mesh = _muddy_mesh(link=True)
    tree = GoalTree(mesh, (30.5, 20.5))                          # east of the wall at x = 20
    while not tree.step(10**9):
        pass
    r = tree.route((5.5, 20.5))
    assert r.found and r.link_kinds == ("jump",) == mesh.find_path((5.5, 20.5), (30.5, 20.5)).link_kinds
    back = GoalTree(mesh, (5.5, 20.5))
    while not back.step(10**9):
        pass
    b = back.route((30.5, 20.5))
    assert "jump" not in b.link_kinds                             # never taken backwards


def test_crowd_orders_of_many_units_to_one_goal_share_one_tree():
    p = np.ones((40, 60), dtype=bool)
    p[5:35, 20] = False
    cost = np.where((np.arange(60) // 7) % 2 == 0, 1.0, 2.0)[None, :].repeat(40, axis=0).astype(np.float32)
    crowd = Crowd(Grid(p, cost), CrowdConfig(planning_units=2_000))
    crowd.level.navmesh()                      # baked at load (unprepared, it is baked off the tick)
    rng = np.random.default_rng(3)
    ids = crowd.add_agents(rng.uniform((2, 2), (15, 38), (60, 2)), radius=0.3, max_speed=4.0)
    for i in ids:
        crowd.move([i], (50.5, 20.5), planner="navmesh")
    reached: set[int] = set()
    for _ in range(3000):
        reached |= set(crowd.update(1 / 30).reached.tolist())
        if len(reached) == 60:
            break
    assert len(reached) == 60
    assert crowd.level.structure("goal_trees") is not None and len(crowd.level.structure("goal_trees")) == 1
