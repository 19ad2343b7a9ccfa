"""The crowd's public calls and the one vocabulary every layer shares (``rtsnav.names``)."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.components import NavigationAgent
from rtsnav.names import PLANNERS, SEARCH_METHODS, NavState, canonical_planner
from rtsnav.systems.nav import Grid, NavError, find_path
from rtsnav.systems.nav.crowd import Crowd, CrowdConfig
from rtsnav.systems.nav.crowd.state import PLANNERS as CROWD_PLANNERS
from tests.systems.nav.reference import reference_costs


def _walls() -> Grid:
    p = np.ones((20, 30), dtype=bool)
    p[3:17, 15] = False
    return Grid(p)


def test_find_path_takes_every_search_method_of_the_vocabulary_and_dstar_lite_is_exact():
    grid = _walls()
    want = reference_costs(grid, (2, 10))[10, 27]
    for method in SEARCH_METHODS:
        r = find_path(grid, (2, 10), (27, 10), method=method)
        if method != "bstar":                          # the crawler is neither complete nor optimal
            assert r.found and r.cost == pytest.approx(want), method
    assert find_path(grid, (2, 10), (27, 10), method="dstar").cost == pytest.approx(want)   # the old name
    blocked = find_path(grid, (2, 10), (15, 10), method="dstar-lite")
    assert not blocked.found and "blocked" in blocked.reason


def test_unknown_names_say_what_was_meant():
    with pytest.raises(NavError, match="did you mean 'astar'"):
        find_path(_walls(), (0, 0), (1, 1), method="astr")
    crowd = Crowd(_walls())
    ids = crowd.add_agents([(1.5, 1.5)])
    with pytest.raises(NavError, match="did you mean 'navmesh'"):
        crowd.move(ids, (5.5, 5.5), planner="navmash")
    with pytest.raises(ValueError, match="did you mean 'leader'"):
        NavigationAgent(method="leeder")


def test_one_planner_list_for_the_crowd_the_components_and_the_codes():
    assert CROWD_PLANNERS is PLANNERS
    assert canonical_planner("dstar") == "dstar-lite" and canonical_planner(3) is None
    assert NavigationAgent(method="dstar").method == "dstar-lite"


def test_set_speed_status_and_states_are_the_public_way_to_read_and_tune_agents():
    crowd = Crowd(_walls(), CrowdConfig(rebuild_worker=False))
    ids = crowd.add_agents([(2.5, 2.5), (2.5, 5.5), (2.5, 8.5)], max_speed=3.0, radius=0.3)
    crowd.set_speed(ids[:2], [1.0, 2.0])
    crowd.set_speed(ids[2], 5.0)
    np.testing.assert_array_equal(crowd.status(ids).max_speed, [1.0, 2.0, 5.0])
    with pytest.raises(NavError, match="max_speed"):
        crowd.set_speed(ids, -1.0)
    with pytest.raises(NavError, match="one per agent"):
        crowd.set_speed(ids, [1.0, 2.0])
    crowd.move(ids, (27.5, 10.5), planner="astar")
    status = crowd.status(ids)
    assert status.pending.all() and status.has_target.all() and (status.radius == 0.3).all()
    crowd.update(1 / 30)
    assert (crowd.states[ids] != NavState.IDLE).all() and not crowd.status(ids).pending.any()
    with pytest.raises(ValueError):
        crowd.states[0] = NavState.IDLE                # read-only
    for _ in range(1500):
        crowd.update(1 / 30)
    assert (crowd.states[ids] == NavState.FINISHED).all()
    assert crowd.status(ids).target[:, 0] == pytest.approx(27.5)


def test_movement_game_leaves_positions_to_the_caller():
    crowd = Crowd(_walls(), CrowdConfig(rebuild_worker=False))
    ids = crowd.add_agents([(2.5, 2.5)])
    crowd.move(ids, (10.5, 2.5))
    for _ in range(10):
        events = crowd.update(1 / 30, movement="game", velocities=True)
    assert crowd.positions[0, 0] == 2.5 and len(events.moving) == 1 and events.velocities[0, 0] > 0
    with pytest.raises(NavError, match="movement"):
        crowd.update(1 / 30, movement="physics")
