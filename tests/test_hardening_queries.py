"""Regression tests of a fourth issue-38 campaign (the older surfaces again: grid queries, path
tools, the structures' builders and updates, the loaders' files, navmesh rays and links). Each
case here was a raw Python error, a wrong answer, a silently accepted mistake or a hang."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

from rtsnav.game.script import load_orders
from rtsnav.levels import LevelError, load_level
from rtsnav.systems.nav import (
    DStarLite,
    FlowField,
    GoalBounds,
    Grid,
    Hierarchy,
    JumpTable,
    NavError,
    NavMesh,
    SectorGraph,
    WaypointGraph,
    find_path,
    path_cost,
    path_length,
    smooth_path,
    validate_path,
)


def _walled(n: int = 16) -> Grid:
    passable = np.ones((n, n), dtype=bool)
    passable[4:12, 8] = False
    return Grid(passable)


@pytest.mark.parametrize("x, y", [("a", 0), (None, 0), (1.5, 1), (True, 1), (math.nan, 0), (np.float32(3.5), 1)])
def test_cell_queries_refuse_what_is_no_cell(x, y):
    """``in_bounds`` / ``is_passable`` / ``cell_to_world`` compared text with ints (TypeError),
    indexed with 1.5 (IndexError) or True (a numpy mask: ValueError), and ``in_bounds(1.5, 1)``
    said True."""
    grid = _walled()
    for query in (grid.in_bounds, grid.is_passable, grid.cell_to_world):
        with pytest.raises(NavError, match="pair of integers"):
            query(x, y)
    assert grid.in_bounds(np.int64(3), 2) and grid.is_passable(3.0, 2) and grid.cell_to_world(3, 2)[:2] == (3.5, 2.5)


def test_an_origin_too_far_for_exact_cells_is_refused():
    """``Grid(origin=(1e308, 0))`` was taken: every cell's centre was 1e308, one point."""
    for origin in ((1e308, 0.0), (0.0, -3e9)):
        with pytest.raises(NavError, match="origin must lie within"):
            Grid(np.ones((4, 4), dtype=bool), origin=origin)
    assert Grid(np.ones((4, 4), dtype=bool), origin=(-2e9, 1e9)).cell_to_world(1, 1)[:2] == (-2e9 + 1.5, 1e9 + 1.5)


@pytest.mark.parametrize("mask", [-1, 2 ** 40, 1.5, "1", True])
def test_layer_masks_out_of_32_bits_are_refused_everywhere(mask):
    """``find_path(navigation_layers=-1)`` and ``Grid.masked(-1 / 2**40 / "1")`` masked the value
    to 32 bits (or parsed the text) where the agents' and ``set_layers``' masks are refused."""
    grid = _walled()
    with pytest.raises(NavError, match="navigation_layers"):
        find_path(grid, (0, 0), (15, 15), navigation_layers=mask)
    with pytest.raises(NavError, match="navigation_layers"):
        grid.masked(mask)


def test_path_tools_measure_only_paths_they_can():
    """``path_cost`` priced a jump of five cells as one diagonal (1.41), a step through a wall
    as 1.0, read 0.5 as cell 0 and a cell off the grid was a raw IndexError; ``path_length`` of
    NaN was NaN; ``smooth_path`` took a path through a wall; ``validate_path`` truncated 0.5."""
    grid = Grid(np.array([[1, 0], [1, 1]], dtype=bool))
    assert path_cost(grid, [[0, 0], [0, 1], [1, 1]]) == pytest.approx(2.0)
    assert path_cost(grid, [[0, 0], [1, 0]]) == math.inf
    for cells, match in (([[0, 0], [5, 5]], "outside"), ([[0.5, 0], [0, 1]], "integer"), ([[0, 0], [1, 1], [0, 0]], None)):
        if match is None:                         # legal cells, legal steps: a number
            assert math.isfinite(path_cost(grid, cells))
            continue
        with pytest.raises(NavError, match=match):
            path_cost(grid, cells)
    open_grid = _walled()
    with pytest.raises(NavError, match="not to a neighbour"):
        path_cost(open_grid, [[0, 0], [5, 5]])
    with pytest.raises(NavError, match="finite"):
        path_length([[0, 0], [math.nan, 1]])
    assert path_length([]) == 0.0 and path_length([[0, 0], [3, 4]]) == 5.0
    with pytest.raises(NavError, match="blocked"):
        smooth_path(grid, [[0, 0], [1, 0]])
    with pytest.raises(NavError, match="whole numbers|integer"):
        validate_path(grid, [[0.5, 0.0], [0.0, 1.0]])
    with pytest.raises(NavError, match=r"step 0 \(0, 0\) -> \(5, 5\)"):    # plain ints, no np.int64(...)
        validate_path(open_grid, [[0, 0], [5, 5]])


@pytest.mark.parametrize("build", [
    lambda g: Hierarchy.build(g), lambda g: GoalBounds.build(g), lambda g: JumpTable.build(g),
    lambda g: DStarLite(g, (0, 0), (1, 1)), lambda g: SectorGraph(g), lambda g: NavMesh.from_grid(g, 0.4),
    lambda g: FlowField.build(g, [(1, 1)]), lambda g: GoalBounds.estimate(g)])
@pytest.mark.parametrize("grid", [None, np.ones((8, 8), dtype=bool), "map"])
def test_structures_take_a_grid_or_say_so(build, grid):
    """A bare array or None handed to a builder was an AttributeError deep inside it."""
    with pytest.raises(NavError, match="Grid"):
        build(grid)


def test_structure_updates_refuse_cells_off_the_grid():
    """``DStarLite.cells_changed`` ignored a cell off the grid and NaN (warning of a cast),
    ``SectorGraph.update`` / ``sector_of`` / ``ring`` / ``local_field`` were IndexErrors or
    answered for cells off the map, ``Hierarchy.update(NaN)`` named cell -9223372036854775808."""
    grid = _walled()
    dstar, sectors, hierarchy = DStarLite(grid, (0, 0), (15, 15)), SectorGraph(grid, sector_size=8), Hierarchy.build(grid)
    sectors.build_some(10 ** 6)
    for bad in ([[100, 0]], [[math.nan, 0]], [[-1, 2]]):
        for update in (dstar.cells_changed, sectors.update, sectors.sector_of, hierarchy.update):
            with pytest.raises(NavError, match="cells"):
                update(np.array(bad))
    for sid in (99, -1, 1.5):
        with pytest.raises(NavError, match="sector id"):
            sectors.ring(sid)
        with pytest.raises(NavError, match="sector id"):
            sectors.local_field(sid, [], [])
    with pytest.raises(NavError, match="count"):
        sectors.build_some(-5)
    for size in (math.nan, 1, 10 ** 9):
        with pytest.raises(NavError, match="sector_size"):
            SectorGraph(grid, sector_size=size)
    for chunk, processes in ((0, None), (math.nan, None), (2048, 0), (2048, -1)):
        with pytest.raises(NavError, match="chunk|processes"):
            GoalBounds.build(Grid(np.ones((6, 6), dtype=bool)), chunk=chunk, processes=processes)


def test_waypoint_graph_lookups_check_points_and_indexes():
    """``nearest`` of a point far outside the waypoints' box answered -1 (no waypoint) and NaN was
    a raw ValueError; ``shortest_path(0, 1.5)`` a numba TypingError and ``(0, 99)`` an empty path;
    ``visible_from(limit=-1)`` answered; ``from_waypoints(max_edge=nan / -1)`` was taken."""
    grid = _walled()
    cells = np.array([[0, 0], [15, 0], [15, 15], [0, 15]])
    graph = WaypointGraph(grid, cells, np.array([[0, 1], [1, 2], [2, 3], [3, 0]]))
    rng = np.random.default_rng(3)
    points = np.concatenate([rng.uniform(-5, 21, (50, 2)), rng.uniform(-1e6, 1e6, (50, 2)), [[1e300, 0.5], [-1e300, 16]]])
    centres = grid.cells_to_world(cells)[:, :2]
    for p in points:
        best = np.hypot(*(centres - p).T)
        assert best[graph.nearest(p)] == pytest.approx(best.min(), rel=1e-12), p
    with pytest.raises(NavError, match="finite"):
        graph.nearest((math.nan, 0))
    for b in (1.5, 99, -1, "x"):
        with pytest.raises(NavError, match="waypoint index"):
            graph.shortest_path(0, b)
    with pytest.raises(NavError, match="limit"):
        graph.visible_from((0.5, 0.5), limit=-1)
    for max_edge in (math.nan, -1, "x"):
        with pytest.raises(NavError, match="max_edge"):
            WaypointGraph.from_waypoints(grid, cells, max_edge=max_edge)


def test_segments_and_rays_to_far_points_are_not_clear():
    """``segments_clear`` to (1e300, y) said clear (a cell index overflowed in the kernel) and a
    navmesh ``raycast`` there said clear too; at 1e12 the ray's hit point was its start (the
    bisection had no resolution left on the map)."""
    grid = _walled(20)
    start = np.array([[3.5, 3.5]])
    for far in (25.0, 1e12, 1e300, -1e300):
        assert not grid.segments_clear(start, np.array([[far, 3.5]]))[0]
    mesh = NavMesh.from_grid(grid, agent_radius=0.4)
    near_hit = mesh.raycast((3.5, 3.5), (25.0, 3.5))
    for far in (1e12, 1e300):
        clear, hit = mesh.raycast((3.5, 3.5), (far, 3.5))
        assert not clear and hit == pytest.approx(near_hit[1], abs=1e-6)


def test_navmesh_points_in_and_links_of_two_coordinates():
    """``heights_of`` of one flat pair was an IndexError, of NaN a zero with a cast warning, of
    four columns an answer; ``add_link`` of 2D points (the docs' own form) an IndexError."""
    mesh = NavMesh.from_grid(_walled(20), agent_radius=0.4)
    assert mesh.heights_of(np.array([3.5, 3.5])).shape == (1,)
    for bad in (np.array([[math.nan, 1.0]]), np.zeros((2, 4))):
        with pytest.raises(NavError, match="finite numbers"):
            mesh.heights_of(bad)
    link = mesh.add_link((3.5, 3.5), (15.5, 15.5), kind="ladder")
    assert link.a == (3.5, 3.5, 0.0) and link.b == (15.5, 15.5, 0.0)


LEVEL = '''name = "tiny"
terrain = """
#######
#.....#
#..~..#
#######
"""
[legend]
"." = { walkable = true, cost = 1.0 }
"#" = { walkable = false }
"~" = { walkable = false }
'''


def test_level_files_without_spawns_play_and_without_floor_are_refused(tmp_path):
    """A level with no ``[[spawn]]`` loaded and then the demo died (concatenate of nothing); a
    cost of 1e300 or a cell size of 1e-300 were NavErrors without file and line; a team of 10**20
    loaded (an int64 overflow later); a level of walls only loaded."""
    path = tmp_path / "tiny.toml"
    path.write_text(LEVEL)
    level = load_level(path)
    assert sorted(level.spawns) == [1, 2] and all(len(c) for c in level.spawns.values())
    walls_only = LEVEL.replace("#.....#", "#######").replace("#..~..#", "#######")
    big_team = LEVEL + "[[spawn]]\nteam = 100000000000000000000\ncell = [1, 1]\n"
    for text, match in ((LEVEL.replace("cost = 1.0", "cost = 1e300"), "cost must be"),
                        (LEVEL.replace('name = "tiny"', 'name = "tiny"\ncell_size = 1e-300'), "cell_size must be"),
                        (big_team, "team must be an integer in"), (walls_only, "no walkable cell")):
        path.write_text(text)
        with pytest.raises(LevelError, match=match) as refused:
            load_level(path)
        assert str(path) in str(refused.value)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs fifos")
def test_loaders_refuse_what_is_not_a_regular_file(tmp_path):
    """A fifo as a level or orders file blocked ``load_level`` / ``levels validate`` forever;
    ``load_level(None)`` and ``load_orders(None, …)`` were raw TypeErrors."""
    fifo = tmp_path / "level.toml"
    os.mkfifo(fifo)
    level = load_level("river")
    with pytest.raises(LevelError, match="not a regular file"):
        load_level(fifo)
    with pytest.raises(LevelError, match="not a regular file"):
        load_orders(fifo, level)
    with pytest.raises(LevelError, match="file path"):
        load_level(None)
    with pytest.raises(LevelError, match="path"):
        load_orders(None, level)


def test_orders_naming_two_selections_or_two_targets_are_refused(tmp_path):
    """An order with both ``select`` and ``box`` (or ``target`` and ``click``) loaded and one of
    them was silently dropped; ``target = [x, y, "a"]`` loaded."""
    level = load_level("river")
    path = tmp_path / "orders.toml"
    for body, match in (("select = 1\nbox = [0, 0, 9, 9]\ntarget = [50, 30]", "one of select"),
                        ("select = 1\ntarget = [50, 30]\nclick = [5, 5]", "one of target"),
                        ('select = 1\ntarget = [50, 30, "a"]', "target must be")):
        path.write_text(f"[[order]]\ntick = 1\n{body}\n")
        with pytest.raises(LevelError, match=match):
            load_orders(path, level)
    path.write_text("[[order]]\ntick = 1\nselect = 1\ntarget = [50, 30, 0]\n")
    assert len(load_orders(path, level)) == 1


def test_crowd_and_plugin_settings_of_the_wrong_kind_are_refused():
    """``Crowd(grid, {"stuck_after": 1})`` was an AttributeError, ``cache_dir=5`` a TypeError (also
    through ``Navigation``), ``move(group=nan)`` a raw ValueError, ``update(waypoints="no")``
    reported waypoints, ``set_navigation_layer_value(1, "yes")`` turned the layer on."""
    from rtsnav.components import NavigationAgent
    from rtsnav.systems import Navigation
    from rtsnav.systems.nav import Crowd

    grid = _walled()
    with pytest.raises(NavError, match="CrowdConfig"):
        Crowd(grid, {"stuck_after": 1})
    for make in (lambda: Crowd(grid, cache_dir=5), lambda: Navigation(grid, cache_dir=5)):
        with pytest.raises(NavError, match="cache_dir"):
            make()
    crowd = Crowd(grid)
    ids = crowd.add_agents(np.array([[1.5, 1.5], [2.5, 1.5]]))
    with pytest.raises(NavError, match="group"):
        crowd.move(ids, (14.5, 14.5), group=math.nan)
    for switch in ("waypoints", "velocities"):
        with pytest.raises(NavError, match=switch):
            crowd.update(1 / 30, **{switch: "no"})
    agent = NavigationAgent()
    with pytest.raises(ValueError, match="True or False"):
        agent.set_navigation_layer_value(2, "yes")
    assert agent.navigation_layers == 1


def test_a_spawn_of_thousands_on_a_few_cells_does_not_freeze_a_tick(monkeypatch):
    """Ten thousand demo units dropped a dozen to a cell: the first tick ran 100 rounds of spawn
    separation (~150,000 pairs each, 14 s). The rounds now stop at ``SPAWN_PAIR_BUDGET`` pairs
    met and the next ticks go on, until no two bodies are stacked (idle units too: only the
    spawn separation moves them)."""
    from rtsnav.systems.nav import Crowd
    from rtsnav.systems.nav.crowd import motion

    met: list[int] = []
    real = motion.resolve_contacts

    def counted(*args, **kwargs):
        found = real(*args, **kwargs)
        met.append(found)
        return found

    monkeypatch.setattr(motion, "resolve_contacts", counted)
    from scipy.spatial import cKDTree

    crowd = Crowd(Grid(np.ones((100, 100), dtype=bool)))
    rng = np.random.default_rng(0)
    cells = rng.integers(0, 4, (4000, 2)) * 8 + 40.5              # 4,000 units on 16 cells
    ids = crowd.add_agents(cells + rng.uniform(-0.3, 0.3, cells.shape), radius=0.4)
    crowd.update(1 / 30)
    assert sum(met[:-1]) <= motion.SPAWN_PAIR_BUDGET < sum(met), met     # one round may pass it, no more
    for _ in range(150):
        crowd.update(1 / 30)
    stacked = cKDTree(crowd.positions[ids, :2]).query_pairs(0.4)   # half a contact distance
    assert not stacked, len(stacked)                            # they spread out over the ticks after


def test_the_demo_spreads_a_big_army_over_its_own_side():
    """The demo put 5,000 units a side on the river's 384-cell spawns (13 a cell). It now grows a
    spawn by the open cells nearest to it that are nearer to it than to the other side's."""
    from rtsnav.game.unit_types import spawn_ground

    level = load_level("river")
    ground = spawn_ground(level, {1: 5000, 2: 5000})
    for team, cells in ground.items():
        assert len(np.unique(cells, axis=0)) == len(cells) >= 2500      # its whole side: 2,583 open cells
        assert level.grid.passable[cells[:, 1], cells[:, 0]].all()
        west = cells[:, 0] < level.grid.width / 2
        assert west.all() if team == 1 else not west.any()
    assert not set(map(tuple, ground[1].tolist())) & set(map(tuple, ground[2].tolist()))
    small = spawn_ground(level, {1: 100, 2: 100})
    assert all(np.array_equal(small[t], level.spawns[t]) for t in (1, 2))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_smoothed_hierarchy_path_on_mixed_terrain_costs_no_more_than_its_grid_path(seed):
    """On terrain of costs 1, 3 and 7 the hierarchy's smoothed path read 2.1× the cost of the
    same path unsmoothed (466.7 against 243.0): a smoothed segment was priced at the dearest cell
    it touched, so every kept single step from a cost-1 to a cost-7 cell cost 7, not 4. Segments
    are now priced by the cost walked inside each cell, which for a grid path is ``path_cost``."""
    rng = np.random.default_rng(seed)
    passable = rng.random((64, 64)) > 0.25
    passable[0, 0] = passable[63, 63] = True
    grid = Grid(passable, rng.choice([1.0, 1.0, 3.0, 7.0], (64, 64)))
    exact = find_path(grid, (0, 0), (63, 63), method="dijkstra")
    hierarchy = Hierarchy.build(grid, cluster_size=16)
    smooth, rough = hierarchy.find_path((0, 0), (63, 63)), hierarchy.find_path((0, 0), (63, 63), smooth=False)
    assert exact.found and smooth.found and rough.found
    assert rough.cost == pytest.approx(path_cost(grid, rough.cells))
    assert smooth.cost <= rough.cost + 1e-9 and smooth.cost < 1.2 * exact.cost, (smooth.cost, rough.cost, exact.cost)


@pytest.mark.parametrize("stuck_after", [0.5, 1.0, 4.0])
def test_a_short_stuck_time_spaces_its_stuck_events(stuck_after):
    """With ``stuck_after=0.5`` a unit held in a one-cell corridor by paused units got a stuck
    event every tick and its order failed 0.2 s after the first (a reported unit's clock restarted
    at the 0.5-s "just progressed" mark: already due). Events now come ``stuck_after`` less
    min(0.5, a quarter of it) apart, and the order fails after ``max_recoveries`` of them."""
    from rtsnav.systems.nav import Crowd, CrowdConfig

    passable = np.zeros((9, 30), dtype=bool)
    passable[4, :] = True
    crowd = Crowd(Grid(passable), CrowdConfig(stuck_after=stuck_after))
    walker = crowd.add_agents(np.array([[2.5, 4.5]]), avoidance=True)
    crowd.pause(crowd.add_agents(np.array([[12.5, 4.5], [13.3, 4.5]]), avoidance=True))
    crowd.move(walker, (25.5, 4.5))
    times, failed = [], None
    for tick in range(30 * 40):
        events = crowd.update(1 / 30)
        if len(events.stuck):
            times.append(tick / 30)
        if len(events.failed):
            failed = tick / 30
            break
    gaps = np.diff(times)
    assert failed is not None and len(times) == crowd.config.max_recoveries + 1, times
    assert gaps.min() >= stuck_after - min(0.5, stuck_after / 4) - 0.05, gaps


def test_levels_show_refuses_a_picture_too_big_to_hold(tmp_path, capsys):
    """``levels show AcrosstheCape.map --scale 64`` allocated a 49,152² picture (6.75 GiB: a
    MemoryError traceback, or minutes of swapping)."""
    from rtsnav.levels.__main__ import main

    out = tmp_path / "map.png"
    assert main(["show", "AcrosstheCape.map", "--scale", "64", "--out", str(out)]) == 2
    assert "at most 16,384" in capsys.readouterr().err and not out.exists()
    assert main(["show", "AcrosstheCape.map", "--scale", "2", "--out", str(out)]) == 0 and out.exists()


@pytest.mark.parametrize("far", [1e6, -1e20, 1e308])
def test_a_unit_put_far_off_the_map_fails_alone_and_the_tick_goes_on(far):
    """A flock member moved to x = 1e20 killed every tick after (the flocking and density grids
    spanned it: "negative dimensions"), at 1e6 a tick allocated gigabytes. Such a unit now fails
    once with a reason and is no body while it stays there; its position is kept, and ordered
    again from the map it walks."""
    from rtsnav.systems.nav import Crowd

    crowd = Crowd(Grid(np.ones((20, 20), dtype=bool)))
    ids = crowd.add_agents(np.array([[2.5, 2.5], [3.5, 2.5], [4.5, 2.5]]), group=1, avoidance=True)
    crowd.move(ids, (15.5, 15.5), planner="flowfield")
    crowd.update(1 / 30)
    crowd.positions[0, 0] = far
    events = crowd.update(1 / 30)
    assert events.failed.tolist() == [0] and "off the map" in events.reasons[0]
    for _ in range(400):
        events = crowd.update(1 / 30)
    assert crowd.positions[0, 0] == far and np.isfinite(crowd.positions[1:]).all()
    assert crowd.states.tolist()[1:] == [3, 3]                              # the others arrived
    crowd.positions[0, :2] = (2.5, 2.5)
    crowd.move([0], (15.5, 15.5))
    for _ in range(400):
        crowd.update(1 / 30)
    assert crowd.states[0] == 3
