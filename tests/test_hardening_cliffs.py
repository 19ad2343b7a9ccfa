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


def _cluttered(size: int, seed: int) -> Grid:
    rng = np.random.default_rng(seed)
    passable = rng.random((size, size)) > 0.2
    passable[::9, :] = True                          # open lanes keep it one region
    passable[:, ::9] = True
    return Grid(passable)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_grid_plan_that_lives_through_blocking_edits_is_as_cheap_as_a_fresh_one(seed):
    """A grid plan (search, then smoothing) went on through edits away from what it had
    reached, and started over at any other; with a building every few ticks on a big map the
    plans never landed. Now it also goes on through edits that only block cells, and checks what
    it ends with: the path costs what a fresh search costs on the final map, and every smoothed
    leg is open."""
    from rtsnav.systems.nav import find_path
    from rtsnav.systems.nav.crowd.planners import GridJob
    from rtsnav.systems.nav.search.sliced import WorkspacePool

    rng = np.random.default_rng(seed)
    grid = _cluttered(60, seed)
    pool = WorkspacePool(grid, 2)
    open_cells = np.argwhere(grid.passable)[:, ::-1]
    for _ in range(12):
        start, goal = (tuple(int(v) for v in open_cells[k]) for k in rng.integers(0, len(open_cells), 2))
        job = GridJob(grid, start, goal, "astar", None, "precise", pool)
        while not job.done:
            job.advance(int(rng.integers(20, 200)))
            if not job.done and rng.random() < 0.5:
                cell = open_cells[rng.integers(len(open_cells))]
                if tuple(cell) not in (start, goal):
                    grid.set_passable([cell], False)
        fresh = find_path(grid, start, goal)
        assert job.route.found == fresh.found
        if fresh.found:
            assert job.found.cost == pytest.approx(fresh.cost)
            cells = job.route.cells if job.route.cells is not None else grid.world_to_cells(job.route.points[:, :2])
            assert grid.segments_clear(grid.cells_to_world(cells[:-1]), grid.cells_to_world(cells[1:])).all()


def test_units_get_their_plans_while_buildings_go_up_every_few_ticks():
    """80 units ordered to one goal across a cluttered map while a 2×2 building went up every
    other tick: every edit ordered every unit on its way again, and their new jobs' set-up took
    the budget — after 300 ticks most still waited. Units whose plans follow the edits keep
    them, walkers whose way is still open keep their paths."""
    rng = np.random.default_rng(5)
    grid = _cluttered(160, 5)
    crowd = Crowd(grid, cache_dir=None)
    open_cells = np.argwhere(grid.passable)[:, ::-1]
    ids = crowd.add_agents(open_cells[rng.integers(0, len(open_cells), 80)] + 0.5)
    goal = (150.5, 150.5)
    crowd.move(ids, goal, "astar")
    for t in range(300):
        if t % 2 == 0:
            x, y = (int(v) for v in rng.integers(0, 140, 2))
            grid.set_passable([(x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)], False)
        crowd.update(1 / 30)
    assert (crowd.states[ids] != NavState.PLANNING).sum() >= 76
    for i in ids[crowd.states[ids] == NavState.FOLLOWING].tolist():
        # every way ahead, kept or new, is walkable now (from the waypoint it walks to: a unit
        # pushed aside may stand off its path)
        ahead = crowd.path(i)[crowd.agents.path_index_of(i):]
        assert grid.segments_clear(ahead[:-1, :2], ahead[1:, :2]).all()


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_wall_distances_and_passages_after_edits_equal_a_fresh_build(seed):
    """The distances to walls and the narrow passages were redone over the whole map in the
    first tick after any edit (a 3×3 building on a 1024² map: a 380 ms tick). After edits that
    only block cells they are brought up to date round the edit: exactly what a fresh build of
    the edited map gives, as are the crowd's tight-place masks made from them."""
    from rtsnav.systems.nav.crowd.passages import PassageMap

    rng = np.random.default_rng(seed)
    grid = Grid(rng.random((int(rng.integers(30, 80)), int(rng.integers(30, 80)))) > rng.uniform(0.05, 0.35))
    crowd = Crowd(grid, cache_dir=None)
    kept = PassageMap(grid)
    kept.clearance(), kept.passages(3.0), kept.passages(1.5), crowd.level.passages(3.0)
    crowd.add_agents([tuple(np.argwhere(grid.passable)[0][::-1] + 0.5)])
    crowd.update(1 / 30)                                       # the masks are made
    for _ in range(10):
        cell = np.argwhere(grid.passable)[rng.integers(grid.passable.sum())][::-1]
        block = np.array([[cell[0] + i, cell[1] + j] for i in range(int(rng.integers(1, 4)))
                          for j in range(int(rng.integers(1, 4)))])
        block = block[(block[:, 0] < grid.width) & (block[:, 1] < grid.height)]
        grid.set_passable(block, bool(rng.random() < 0.2))     # now and then an opening: built afresh
        crowd.update(1 / 30)
        fresh, fresh_crowd = PassageMap(grid), Crowd(Grid(grid.passable.copy()), cache_dir=None)
        np.testing.assert_array_equal(kept.clearance(), fresh.clearance())
        for narrow in (3.0, 1.5):
            for mine, theirs in zip(kept.passages(narrow), fresh.passages(narrow)):
                np.testing.assert_array_equal(mine, theirs)
        fresh_crowd.add_agents([(0.5, 0.5)])
        for mine, theirs in zip(crowd._motion._passage_cells(), fresh_crowd._motion._passage_cells()):  # noqa: SLF001
            np.testing.assert_array_equal(mine, theirs)


def test_a_navmesh_query_from_where_the_exact_search_saw_no_way_still_finds_one():
    """From some starts inside a polygon by a wall corner (den520d: (80.3, 103.7); a unit pushed
    there by a building) the exact visibility search saw no way to goals its polygon connects to,
    and ``find_path`` said "not reachable": a unit failed its order. Where the polygons connect,
    the crossing-point search now answers instead, within a few per cent of the exact length."""
    from rtsnav.levels import load_movingai_map
    from rtsnav.systems.nav import NavMesh

    mesh = NavMesh.from_grid(load_movingai_map("den520d.map"), 0.4)
    start, goal = np.array([80.3, 103.7, 0.0]), np.array([65.5, 234.5, 0.0])
    found = mesh.find_path(start, goal)
    assert found.found, found.reason
    near = mesh.find_path(np.array([80.5, 103.5, 0.0]), goal)           # a start the exact search sees from
    assert near.found and found.cost <= 1.05 * near.cost + 1.0
