"""Reciprocal avoidance (ORCA) in the crowd never pushes anyone into a wall (the standard scenes
are in ``test_crowd_scenes.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.systems.nav import Grid
from rtsnav.systems.nav.crowd import Crowd, NavState


@pytest.mark.slow
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
    assert (crowd.states[list(reached)] == NavState.FINISHED).all()
