"""Reciprocal avoidance (ORCA) in the crowd: RVO2's circle scene, and avoidance never pushes
anyone into a wall. An overlap is two centres closer than 0.9 × the sum of their radii."""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from rtsnav.systems.nav import Grid
from rtsnav.systems.nav.crowd import Crowd, NavState


def _overlaps(crowd: Crowd, radius: float) -> int:
    return len(cKDTree(crowd.positions[:, :2]).query_pairs(0.9 * 2 * radius))


def test_circle_swap_of_250_completes_without_an_overlap():
    n, ring, speed, radius = 250, 40.0, 2.0, 0.5
    size = int(2 * ring + 20)
    crowd = Crowd(Grid(np.ones((size, size), dtype=bool)))
    centre = size / 2
    angle = np.arange(n) * 2 * np.pi / n
    ids = crowd.add_agents(np.c_[centre + ring * np.cos(angle), centre + ring * np.sin(angle)], radius=radius,
                           max_speed=speed, avoidance=True, target_desired_distance=0.5)
    for i in ids:
        crowd.move([i], (centre - ring * np.cos(angle[i]), centre - ring * np.sin(angle[i])))
    dt = 1 / 30
    straight_ticks = 2 * ring / speed / dt
    reached, worst = set(), 0
    for tick in range(int(3 * straight_ticks + 30 / dt)):
        reached |= set(crowd.update(dt).reached.tolist())
        worst = max(worst, _overlaps(crowd, radius))
        if len(reached) == n:
            break
    assert len(reached) == n and worst == 0


def test_avoidance_between_groups_never_pushes_into_walls():
    passable = np.zeros((14, 120), dtype=bool)
    passable[2:12, :] = True                                  # a 10-cell corridor
    crowd = Crowd(Grid(passable))
    a = np.array([(3 + (k % 10) * 1.9, 2.8 + (k // 10) * 0.93) for k in range(100)])
    b = np.array([(117 - (k % 10) * 1.9, 2.8 + (k // 10) * 0.93) for k in range(100)])
    team_a = crowd.add_agents(a, radius=0.4, max_speed=3.0, avoidance=True, group=1)
    team_b = crowd.add_agents(b, radius=0.4, max_speed=3.0, avoidance=True, group=2)
    crowd.move(team_a, (110.5, 7.0), planner="flowfield")
    crowd.move(team_b, (10.5, 7.0), planner="flowfield")
    reached = set()
    for _ in range(3 * 3000):
        reached |= set(crowd.update(1 / 30).reached.tolist())
        cells = crowd.grid.world_to_cells(crowd.positions)
        assert crowd.grid.passable[cells[:, 1], cells[:, 0]].all()
        if len(reached) == 200:
            break
    assert len(reached) >= 198
    assert (crowd.state.nav_state[list(reached), 0] == NavState.FINISHED).all()
