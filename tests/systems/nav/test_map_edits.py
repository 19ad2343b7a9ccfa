"""Map edits reach every planner: gates closed on units standing in them, structures rebuilt off
the tick (in-process and in the worker process) equal to fresh bakes, edits the crowd was not told
about, and the game's choice to keep a gate open while units stand in it."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.levels import load_level
from rtsnav.systems.nav import Grid
from rtsnav.systems.nav.crowd import Crowd, CrowdConfig
from rtsnav.systems.nav.crowd.placement import free_walled_in
from rtsnav.systems.nav.navmesh import NavMesh
from rtsnav.systems.nav.waypoints.graph import WaypointGraph
from rtsnav.systems.nav.waypoints.hierarchy import Hierarchy

DT = 1 / 20
SINGLES = ("astar", "navmesh", "waypoints", "hierarchy")
GROUPS = ("flowfield", "leader")

# (level, gate, target across it): closing the gate leaves one other way round
GATES = [("river", "north bridge", (80.5, 10.5)), ("river", "south bridge", (80.5, 50.5)),
         ("fortress", "east gate", (56.5, 40.5))]


def _reach_all(crowd: Crowd, ids: np.ndarray, max_ticks: int) -> set[int]:
    """Tick until every agent of ``ids`` reported ``reached`` (or ``max_ticks``); who did."""
    reached: set[int] = set()
    for _ in range(max_ticks):
        reached |= set(crowd.update(DT).reached.tolist())
        if reached >= set(ids.tolist()):
            break
    return reached


def _centres_blocked(crowd: Crowd) -> int:
    g = crowd.grid
    c = g.world_to_cells(crowd.positions[crowd.alive])
    return int((~g.passable[c[:, 1], c[:, 0]]).sum())


@pytest.mark.parametrize("rebuilt_at_once", [pytest.param(True, marks=pytest.mark.slow, id="rebuilt"),   # long scene
                                             pytest.param(False, id="on-the-grid-meanwhile")])
@pytest.mark.parametrize("level_name, gate, target", GATES, ids=[f"{n}-{g}" for n, g, _ in GATES])
def test_closing_a_gate_on_units_standing_in_it_frees_them_and_every_planner_reroutes(level_name, gate, target,
                                                                                      rebuilt_at_once):
    level = load_level(level_name)
    grid = level.grid
    crowd = Crowd(grid, CrowdConfig(rebuild_worker=False))
    cells = level.gates[gate].cells
    on_gate = grid.cells_to_world(cells)[:, :2]
    ids = []
    for k, planner in enumerate(SINGLES + GROUPS):
        spots = on_gate[[(2 * k + j) % len(on_gate) for j in range(2)]] + 0.2 * np.array([[-1, 0], [1, 0]])
        group = 10 + k if planner in GROUPS else -1
        new = crowd.add_agents(spots, group=group)
        crowd.move(new, target, planner=planner)
        ids.append(new)
    crowd.prepare(SINGLES + GROUPS)
    for _ in range(2):
        crowd.update(DT)
    changed = level.set_gate(gate, False)
    crowd.cells_changed(changed)
    assert _centres_blocked(crowd) == 0, "a unit was left standing inside the closed gate"
    if rebuilt_at_once:
        assert sorted(crowd.finish_rebuilds()) == ["hierarchy", "navmesh", "waypoints"]
        assert not crowd.level.rebuilds.stale
    else:
        assert crowd.level.rebuilds.stale == {"hierarchy", "navmesh", "waypoints"}
    everyone = np.concatenate(ids)
    reached: set[int] = set()
    failed: list[str] = []
    gone: set[int] = set()
    for _ in range(3000):
        ev = crowd.update(DT)
        reached |= set(ev.reached.tolist())
        failed += ev.reasons
        gone |= set(ev.failed.tolist())
        assert _centres_blocked(crowd) == 0
        if len(reached | gone) == len(everyone):
            break
    assert not failed, failed
    assert reached >= set(everyone.tolist()), f"{len(reached & set(everyone.tolist()))}/{len(everyone)} arrived"


@pytest.mark.slow
def test_rebuilt_structures_equal_fresh_bakes_and_answer_as_fresh_queries():
    """The worker process's rebuilds after an edit are the structures a fresh bake makes; a
    navmesh query on the swapped mesh costs what a query on a fresh mesh costs."""
    level = load_level("fortress")
    grid = level.grid
    crowd = Crowd(grid)                                           # the worker process (default)
    for make in (crowd.level.navmesh, crowd.level.waypoints, crowd.level.hierarchy):
        make()
    old = crowd.level.navmesh()
    crowd.cells_changed(level.set_gate("east gate", False))
    assert crowd.level.rebuilds.stale == {"hierarchy", "navmesh", "waypoints"}
    assert crowd.level.navmesh() is old                                 # not baked in the caller's frame
    assert sorted(crowd.finish_rebuilds()) == ["hierarchy", "navmesh", "waypoints"], crowd.level.rebuilds.errors
    mesh = crowd.level.navmesh()
    fresh = NavMesh.from_grid(grid, 0.4, subdivide=crowd.level.navmesh_subdivide)
    for name in ("poly_of_cell", "rects", "tri_points", "vis_start", "vis_dst", "landmarks"):
        assert np.array_equal(getattr(mesh, name), getattr(fresh, name)), name
    a, b = (80.5, 40.5, 0.0), (56.5, 40.5, 0.0)                 # outside the gate, inside the fort
    assert old.find_path(a, b).found                              # the old mesh still had the gate
    got, want = mesh.find_path(a, b), fresh.find_path(a, b)       # the only way in is closed
    assert (got.status, got.closest) == (want.status, want.closest) and not got.found
    assert got.cost == pytest.approx(want.cost)
    graph = crowd.level.waypoints()
    assert graph.grid is grid and crowd.level.hierarchy().grid is grid
    seed = tuple(int(v) for v in graph.cells[0])
    assert np.array_equal(graph.cells, WaypointGraph.floodfill(grid, seed, spacing=4).cells)
    fresh_h = Hierarchy.build(grid)
    got, want = crowd.level.hierarchy().find_path((80, 40), (80, 70)), fresh_h.find_path((80, 40), (80, 70))
    assert got.found and got.cost == pytest.approx(want.cost)
    assert not crowd.level.hierarchy().find_path((80, 40), (56, 40)).found


def test_prepare_leaves_the_rebuild_worker_loaded_before_the_first_tick():
    """Its start (imports on the other core) would otherwise slow the game's first ticks."""
    from rtsnav.systems.nav.crowd.rebuild import RebuildWorker

    crowd = Crowd(load_level("river").grid)
    crowd.prepare(["navmesh"])
    assert RebuildWorker.shared().ready and not crowd.level.rebuilds.errors


def test_prepare_makes_what_a_first_order_made_in_its_tick():
    """The bidirectional workspaces (a first order's tick made them and paid their page faults:
    170 ms on a 768² map) are made by ``prepare``."""
    crowd = Crowd(load_level("river").grid, CrowdConfig(rebuild_worker=False))
    pool = crowd.planning.pool
    assert pool.wide_ready == 0
    crowd.prepare(["bidirectional"], freeze_gc=False)
    assert pool.wide_ready == pool.size


def test_an_edit_the_crowd_was_not_told_about_is_followed_all_the_same():
    """``Grid.set_passable`` without ``cells_changed``: the grid's version stamp moved, so the
    next tick treats the recorded edit as announced (units freed, structures rebuilt)."""
    level = load_level("fortress")
    grid = level.grid
    crowd = Crowd(grid, CrowdConfig(rebuild_worker=False))
    cells = level.gates["east gate"].cells
    ids = crowd.add_agents(grid.cells_to_world(cells[:4])[:, :2])
    crowd.level.navmesh()
    crowd.move(ids, (56.5, 40.5), planner="navmesh")
    crowd.update(DT)
    grid.set_passable(cells, False)                               # no cells_changed
    crowd.update(DT)
    assert _centres_blocked(crowd) == 0
    assert crowd.level.rebuilds.stale == {"navmesh"}
    assert _reach_all(crowd, ids, 2000) == set(ids.tolist())


def test_a_game_can_keep_a_gate_open_while_units_stand_in_it():
    grid = Grid(np.ones((20, 20), dtype=bool))
    crowd = Crowd(grid)
    gate = np.array([[10, y] for y in range(5, 9)])
    inside, beside, away = crowd.add_agents([(10.5, 6.5), (9.7, 7.5), (3.5, 3.5)], radius=0.4)
    assert sorted(crowd.occupants(gate).tolist()) == [inside, beside]   # a body overlapping counts
    crowd.remove([inside, beside])
    assert len(crowd.occupants(gate)) == 0


def test_units_walled_in_far_from_any_open_cell_are_still_freed():
    """The window search widens until it finds an open cell."""
    passable = np.zeros((40, 40), dtype=bool)
    passable[0, 0] = True
    grid = Grid(passable)
    crowd = Crowd(grid)
    crowd.add_agents([(30.5, 30.5), (0.5, 0.5)])
    moved = free_walled_in(crowd.agents, crowd.grid, np.arange(2))
    assert moved.tolist() == [0]
    assert grid.world_to_cell(*crowd.positions[0, :2]) == (0, 0)


@pytest.mark.slow
def test_after_edits_on_followed_paths_every_planner_answers_as_a_fresh_query():
    """Blocks dropped on walked paths, each announced and its rebuilds waited for: grid methods,
    JPS+ table, hierarchy, navmesh, waypoint graph and sector tiles give the same costs as
    structures built fresh from the edited grid (the benchmark runs it on the 512² highlands)."""
    from tests.benchmarks.dynamic import replan_rows

    row = replan_rows(load_level("river").grid, 3, min_length=40)
    assert set(row["largest_cost_gap_per_planner"]) >= {"astar", "jps+", "hierarchy", "navmesh", "waypoints", "tiles"}
    assert all(gap < 1e-6 for gap in row["largest_cost_gap_per_planner"].values()), row


@pytest.mark.parametrize("method", ["astar", "jps", "jps+", "dijkstra", "bidirectional"])
def test_a_search_in_flight_when_the_map_changes_starts_over_and_never_answers_stale(method):
    from rtsnav.systems.nav import find_path
    from rtsnav.systems.nav.search.sliced import SlicedSearch

    passable = np.ones((60, 60), dtype=bool)
    passable[1:, 20] = False                                       # the way round is by the top
    grid = Grid(passable)
    search = SlicedSearch(grid, (2, 30), (57, 30), method)
    search.step(1)
    assert not search.done
    wall = np.array([[40, y] for y in range(0, 58)])               # and now by the bottom too
    grid.set_passable(wall, False)
    while not search.done:
        search.step(200)
    result = search.result()
    # an exact search the wall missed goes on (it had expanded one cell); the jump searches start over
    assert search.restarts == (0 if search.method in ("astar", "dijkstra") else 1)   # bidirectional: A* here
    assert grid.passable[result.cells[:, 1], result.cells[:, 0]].all()
    assert result.cost == pytest.approx(find_path(grid, (2, 30), (57, 30), method).cost)


def test_dstar_agents_repair_their_paths_after_edits_and_only_a_few_hold_the_state():
    from rtsnav.systems.nav import find_path
    from rtsnav.systems.nav.search.sliced import SlicedSearch

    level = load_level("river")
    grid = level.grid
    crowd = Crowd(grid, CrowdConfig(dstar_agents=2, rebuild_worker=False))
    ids = crowd.add_agents([(10.5, 12.5), (10.5, 14.5), (10.5, 16.5)])
    crowd.move(ids, (80.5, 10.5), planner="dstar")
    for _ in range(40):
        crowd.update(DT)
    assert len(crowd.planning.dstar_searches) == 2                                  # the third planned by A*
    searches = dict(crowd.planning.dstar_searches)
    # a 3×3 block on the first agent's way, 12 cells ahead of it
    here = crowd.positions[ids[0], :2]
    walk = np.concatenate([np.linspace(p, q, 20) for p, q in zip(crowd.path(ids[0])[:-1, :2], crowd.path(ids[0])[1:, :2])])
    ahead = walk[np.argmax(np.hypot(*(walk - here).T) >= 12)]
    cx, cy = grid.world_to_cell(*ahead)
    block = np.array([[cx + dx, cy + dy] for dx in (-1, 0, 1) for dy in (-1, 0, 1)])
    block = block[grid.passable[block[:, 1], block[:, 0]]]
    grid.set_passable(block, False)
    crowd.cells_changed(block)
    reached: set[int] = set()
    for tick in range(3000):
        ev = crowd.update(DT)
        assert not ev.reasons, ev.reasons
        reached |= set(ev.reached.tolist())
        if tick == 0:                                              # the re-plans: repairs, not searches
            for i, search in searches.items():
                assert crowd.planning.dstar_searches.get(i) is search
                repair = search.expanded                           # what the crowd's re-plan expanded
                cell = (search.start % search.wp - 1, search.start // search.wp - 1)
                fresh = SlicedSearch(grid, cell, (80, 10), "astar")
                fresh.run()
                assert search.plan().cost == pytest.approx(find_path(grid, cell, (80, 10)).cost)
                assert 0 < repair < 0.5 * fresh.expanded, (repair, fresh.expanded)    # the 1024² benchmark: 0.02%
        assert _centres_blocked(crowd) == 0
        if len(reached) == 3:
            break
    assert reached == set(ids.tolist())


def test_on_a_large_map_the_jps_plus_table_is_rebuilt_in_budgeted_bands_after_an_edit():
    """Over 256² cells the table's one-piece incremental update would stall a tick: the crowd
    rebuilds it band by band instead; the agents still arrive and the table ends exact."""
    from rtsnav.systems.nav.search.jps_plus import build_table

    passable = np.ones((300, 300), dtype=bool)
    passable[50:250, 150] = False
    grid = Grid(passable)
    crowd = Crowd(grid)
    crowd.prepare(["jps+"])
    ids = crowd.add_agents([(20.5, 150.5), (20.5, 160.5)])
    crowd.move(ids, (280.5, 150.5), planner="jps+")
    for _ in range(5):
        crowd.update(DT)
    wall = np.array([[150, y] for y in range(0, 50)])
    grid.set_passable(wall, False)
    crowd.cells_changed(wall)
    # (the wall cuts neither unit's way, which they keep: ordered again, they plan on the new map)
    crowd.move(ids, (280.5, 150.5), planner="jps+")
    crowd.update(DT)
    table = grid.kept("jps+", None)
    assert not table.ready                                         # being rebuilt, not updated in one go
    assert _reach_all(crowd, ids, 3000) == set(ids.tolist())
    (free, _), wp = grid.padded()
    assert np.array_equal(table.current(), build_table(free, wp, grid.height + 2))


@pytest.mark.slow
def test_an_unprepared_crowd_builds_its_sector_tiles_under_the_budget_not_in_one_tick():
    """A flow order on a large map with no ``prepare``: the tiles are built a slice per tick
    (the order's job), the group then walks and arrives."""
    passable = np.ones((320, 320), dtype=bool)
    passable[40:280, 160] = False
    grid = Grid(passable)
    crowd = Crowd(grid, CrowdConfig(flow_mode="tiles"))
    ids = crowd.add_agents([(20.5 + i, 150.5) for i in range(6)], group=1)
    crowd.move(ids, (300.5, 150.5), planner="flowfield")
    crowd.update(DT)                                               # the group's order is made
    crowd.update(DT)                                               # its job begins the tiles
    assert crowd.level.structure("tiles") is not None and not crowd.level.structure("tiles").ready          # begun, not finished in one tick
    ticks_to_build = 1
    while not crowd.level.structure("tiles").ready:
        crowd.update(DT)
        ticks_to_build += 1
    assert ticks_to_build > 2
    assert _reach_all(crowd, ids, 4000) == set(ids.tolist())
