"""Tenth hardening campaign: what a game's variety and long life do to the crowd — many layer
masks (team flags in the high bits), avoiding crowds in dead stops on cluttered maps.
(Probed and found sound: units born and dying for hours, far-away world origins, frame
hitches, many unit sizes.) Each test failed on the code before its fix."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.names import NavState
from rtsnav.systems.nav import Crowd, Grid


def test_layer_masks_that_see_the_same_cells_share_one_derived_map():
    """A game using a mask's high bits as team flags gave each of 20 masks its own copy of the map
    (and, per planner, its own navmesh / hierarchy bakes); masks differing only in bits no cell
    is on now share one."""
    grid = Grid(np.ones((30, 30), dtype=bool))
    grid.set_layers(np.array([[x, y] for x in range(10, 13) for y in range(30)]), 0b10)   # a road
    derived = {id(grid.masked(1 | team << 8)) for team in range(20)}
    assert len(derived) == 1
    (seen,) = [grid.masked(1 | 5 << 8)]
    assert not seen.passable[4, 11] and seen.passable[4, 2]            # the road is still barred
    assert grid.masked(0b11 | 7 << 9) is grid                          # both layers: the map itself
    crowd = Crowd(grid, cache_dir=None)
    levels = {id(crowd.level.for_layers(1 | team << 8)) for team in range(20)}
    assert len(levels) == 1


@pytest.mark.slow
def test_units_in_a_dead_stop_give_way_and_all_arrive():
    """150 avoiding units sent across ``random-64-64-20`` (a 20% clutter of rocks), then on to a
    second target: pairs side by side before a one-cell gap, each held by walls and the other
    with the crowd pressing behind, stood for good and 8 orders failed ("no progress for 4 s
    after 6 recoveries"). A knot in a dead stop now gives way to its front unit (the others back
    off from it for ``GIVE_WAY_SECONDS``): every unit arrives."""
    from rtsnav.levels import load_movingai_map

    grid = load_movingai_map("random-64-64-20.map")
    rng = np.random.default_rng(2)
    free = np.argwhere(grid.passable)[:, ::-1] + 0.5
    crowd = Crowd(grid, cache_dir=None)
    units = crowd.add_agents(free[rng.integers(0, len(free), 150)], avoidance=True)
    crowd.move(units, free[rng.integers(0, len(free))])
    for _ in range(600):
        crowd.update(1 / 30)
    crowd.move(units, free[rng.integers(0, len(free))])
    reasons: list[str] = []
    for _ in range(1800):
        reasons += crowd.update(1 / 30).reasons
        if (crowd.states[units] == NavState.FINISHED).all():
            break
    assert reasons == []
    assert (crowd.states[units] == NavState.FINISHED).all()
