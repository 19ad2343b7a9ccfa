"""Twelfth hardening campaign: what a crowd nobody prepared bakes, and where. Each test failed
on the code before its fix."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.names import NavState
from rtsnav.systems.nav import Crowd, Grid


def _walled_grid() -> Grid:
    passable = np.ones((40, 56), dtype=bool)
    passable[4:36, 20] = False
    passable[20, 30:50] = False
    return Grid(passable)


@pytest.mark.parametrize("planner", ["navmesh", "waypoints", "hierarchy"])
def test_an_unprepared_crowd_bakes_its_structures_off_the_tick_and_caches_them(planner, tmp_path):
    """The first order of a navmesh, waypoint or hierarchy unit baked the structure inside that
    tick (AcrosstheCape: 2.3, 6.4 and 1.2 s). It is now baked by the rebuild worker while those
    units plan on the grid, saved to ``cache_dir``, and a later crowd loads it in its first tick."""
    kind = planner
    crowd = Crowd(_walled_grid(), cache_dir=tmp_path)
    ids = crowd.add_agents([(2.5, 2.5), (3.5, 30.5)])
    crowd.move(ids, (50.5, 30.5), planner)
    crowd.update(1 / 30)
    assert crowd.level.structure(kind) is None and kind in crowd.level.rebuilds.in_flight   # not baked in the tick
    assert (crowd.states[ids] != NavState.PLANNING).all()          # planned on the grid meanwhile
    assert crowd.path(ids[0]) is not None and len(crowd.path(ids[0])) >= 2
    assert crowd.finish_rebuilds(timeout=120) == [kind]
    assert crowd.level.structure(kind) is not None and not crowd.level.rebuilds.stale
    assert any(tmp_path.glob(f"{kind}-*.npz")), "the worker's bake was not saved to the cache folder"
    # a later order plans on the structure that landed
    crowd.move(ids[:1], (50.5, 2.5), planner)
    for _ in range(3):
        crowd.update(1 / 30)
    assert crowd.states[ids[0]] != NavState.PLANNING

    again = Crowd(_walled_grid(), cache_dir=tmp_path)            # the next run: loaded, in its first tick
    more = again.add_agents([(2.5, 2.5)])
    again.move(more, (50.5, 30.5), planner)
    again.update(1 / 30)
    assert again.level.structure(kind) is not None and not again.level.rebuilds.in_flight


def test_without_a_worker_the_first_bake_is_made_in_the_tick_that_needs_it():
    """``rebuild_worker=False`` keeps every bake in the game's process: made where first needed
    (as before), never left stale with nobody to bake it."""
    from rtsnav.systems.nav import CrowdConfig

    crowd = Crowd(_walled_grid(), CrowdConfig(rebuild_worker=False), cache_dir=None)
    ids = crowd.add_agents([(2.5, 2.5)])
    crowd.move(ids, (50.5, 30.5), "navmesh")
    crowd.update(1 / 30)
    assert crowd.level.structure("navmesh") is not None and not crowd.level.rebuilds.stale
