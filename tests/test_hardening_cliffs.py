"""Twelfth hardening campaign: cliffs a game meets with default or documented settings — what a
crowd nobody prepared bakes inside a tick, what a setting in its documented range asks of memory.
Each test failed on the code before its fix."""

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


def test_live_dstar_searches_keep_to_their_memory_bound(monkeypatch):
    """``dstar_agents`` takes any count up to 2³¹, and each live D* Lite search keeps 40 bytes a
    cell: 1,000 units on a 1024² map asked for 42 GB. Searches past the bound plan by A*."""
    from rtsnav.systems.nav import CrowdConfig
    from rtsnav.systems.nav.crowd import planning

    grid = _walled_grid()
    monkeypatch.setattr(planning, "DSTAR_BYTES_AT_MOST", 3 * 40 * grid.width * grid.height)
    crowd = Crowd(grid, CrowdConfig(dstar_agents=1_000), cache_dir=None)
    ids = crowd.add_agents([(2.5, 2.5 + 2 * k) for k in range(10)])
    for i in ids.tolist():
        crowd.move([i], (50.5, 30.5), "dstar-lite")
    for _ in range(60):
        crowd.update(1 / 30)
        assert len(crowd.planning.dstar_searches) <= 3
    assert len(crowd.planning.dstar_searches) == 3
    assert (crowd.states[ids] == NavState.FOLLOWING).all()          # the others planned by A*


def test_a_big_max_searches_keeps_the_search_pool_to_its_memory_bound():
    """``max_searches`` takes up to 4,096 and the pool made every workspace at once, ~28 bytes a
    cell each (plus 56 for a bidirectional one): 120 GB on a 1024² map before the first tick."""
    from rtsnav.systems.nav import CrowdConfig
    from rtsnav.systems.nav.search.sliced import WorkspacePool

    grid = Grid(np.ones((512, 512), dtype=bool))
    crowd = Crowd(grid, CrowdConfig(max_searches=4096), cache_dir=None)
    places = crowd.planning.pool.size
    assert 1 <= places and places * 84 * 514 * 514 <= WorkspacePool.BYTES_AT_MOST
    ids = crowd.add_agents([(1.5, 1.5), (3.5, 3.5)])
    crowd.move(ids, (500.5, 500.5), "astar")
    for _ in range(5):
        crowd.update(1 / 30)
    assert (crowd.states[ids] != NavState.PLANNING).all()
