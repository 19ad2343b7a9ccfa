"""Eleventh hardening campaign: what a tick pays that a game does not expect — compiling,
baking, stalls in the first ticks of a crowd nobody prepared and in the ticks of big changes.
Each test failed on the code before its fix."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from rtsnav.names import NavState
from rtsnav.systems.nav import Crowd, Grid, find_path
from rtsnav.systems.nav.search.grid_goal_tree import GridGoalTree
from rtsnav.systems.nav.search.paths import PathSmoother, smooth_path
from rtsnav.systems.nav.search.sliced import SlicedSearch

_FIRST_TICKS = textwrap.dedent("""
    import json

    import numpy as np
    from numba.core import event
    from rtsnav.systems.nav import Crowd, CrowdConfig, Grid

    compiled = []

    class Compiles(event.Listener):
        def on_start(self, e):
            compiled.append(e.data["dispatcher"].py_func.__qualname__)

        def on_end(self, e):
            pass

    passable = np.ones((96, 96), dtype=bool)
    passable[10:86, 48] = False
    crowd = Crowd(Grid(passable), CrowdConfig(flow_mode="tiles"), cache_dir=None)
    for k, planner in enumerate(["flowfield", "leader", "astar", "potential"]):
        ids = crowd.add_agents([(5.5 + i, 20.5 + 15 * k) for i in range(8)], group=k + 1)
        crowd.move(ids, (90.5, 60.5 - 10 * k), planner=planner)
    event.register("numba:compile", Compiles())
    for _ in range(40):
        crowd.update(1 / 30)
    print("COMPILED", json.dumps(compiled))
""")


def _compiled_in_ticks() -> list[str]:
    out = subprocess.run([sys.executable, "-c", _FIRST_TICKS], capture_output=True, text=True, check=True).stdout
    (line,) = [text for text in out.splitlines() if text.startswith("COMPILED")]
    return json.loads(line.removeprefix("COMPILED "))


def test_an_unprepared_crowd_compiles_nothing_in_its_first_flow_field_ticks():
    """Sector fields are built over numba typed lists of the orders' maps; ``typed.List(...)``
    compiles the list's methods in every process (numba caches none of it): an unprepared
    crowd's first flow-field tick took 2.8 s on den520d (leader 3.2 s). The lists are now made
    by cached kernels, so once numba's disk cache holds rtsnav's kernels (the first run here
    fills it) a fresh process compiles nothing inside a tick."""
    _compiled_in_ticks()                       # fills numba's cache if this checkout has not yet
    assert _compiled_in_ticks() == []


def test_a_grid_goal_tree_gives_every_start_a_path_of_a_stars_cost():
    """The shared search from a goal (A* toward up to 48 of the starts) settles any start — one
    of its anchors or not — with a legal path of the cost A* finds, on a map with terrain costs."""
    rng = np.random.default_rng(5)
    grid = Grid(rng.random((60, 70)) > 0.25, cost=rng.uniform(1.0, 5.0, (60, 70)))
    free = np.argwhere(grid.passable)[:, ::-1]
    goal = tuple(int(v) for v in free[rng.integers(len(free))])
    starts = free[rng.choice(len(free), 120, replace=False)]
    tree = GridGoalTree(grid, goal, starts[::2])                 # half of them guide the search
    for start in map(tuple, starts.tolist()):
        while not tree.settled(start):
            tree.step(500)
        mine, own = tree.path(start), find_path(grid, start, goal)
        assert mine.found == own.found
        if own.found:
            assert mine.cost == pytest.approx(own.cost, abs=1e-6)
            cells = mine.cells
            assert tuple(cells[0]) == start and tuple(cells[-1]) == goal
            assert grid.passable[cells[:, 1], cells[:, 0]].all() and np.abs(np.diff(cells, axis=0)).max() == 1


def test_paths_read_from_one_goal_tree_smooth_as_each_alone_with_the_trunk_smoothed_once():
    """The precise smoothing of a tree's paths keeps each anchor's next kept cell for the next
    path through it: every path's waypoints are exactly ``smooth_path``'s, for less work."""
    rng = np.random.default_rng(8)
    grid = Grid(rng.random((70, 80)) > 0.3, cost=rng.uniform(1.0, 3.0, (70, 80)))
    free = np.argwhere(grid.passable)[:, ::-1]
    starts = free[rng.choice(len(free), 150, replace=False)]
    tree = GridGoalTree(grid, tuple(int(v) for v in free[rng.integers(len(free))]), starts)
    alone = shared = 0
    for start in map(tuple, starts.tolist()):
        while not tree.settled(start):
            tree.step(1000)
        cells = tree.path(start).cells
        if len(cells) <= 2:
            continue
        mine, own = PathSmoother(grid, cells, "precise", tree.smoothing_table()), PathSmoother(grid, cells, "precise")
        while not mine.step(300):
            pass
        while not own.step(300):
            pass
        assert np.array_equal(mine.result(), smooth_path(grid, cells, "precise")) and np.array_equal(mine.result(), own.result())
        alone, shared = alone + own.examined, shared + mine.examined
    assert shared < 0.6 * alone


def test_units_of_one_order_sent_to_one_goal_share_one_search():
    """1,000 units ordered across AcrosstheCape by the default planner each searched alone under
    the budget: after 10 s 52 had a path. Units of one order sent to one cell now share one search
    from it (an order queued in batches too), and its trunk is smoothed once: here 200 units have
    their plans in 22 ticks instead of 123."""
    rng = np.random.default_rng(11)
    passable = rng.random((160, 160)) > 0.3
    passable[:, 70:72] = False
    passable[75:85, 70:72] = True
    grid = Grid(passable)
    crowd = Crowd(grid, cache_dir=None)
    free = np.argwhere(grid.passable & (np.arange(160)[None, :] < 60))[:, ::-1] + 0.5
    ids = crowd.add_agents(free[rng.choice(len(free), 200, replace=False)])
    crowd.move(ids, (150.5, 20.5))
    crowd.update(1 / 30)                                           # the order is taken
    ticks = 1
    assert (crowd.states[ids] == NavState.PLANNING).sum() > 100
    while (crowd.states[ids] == NavState.PLANNING).any() and ticks < 500:
        crowd.update(1 / 30)
        ticks += 1
    assert ticks <= 50


@pytest.mark.parametrize("method", ["astar", "dijkstra"])
def test_a_search_goes_on_through_edits_away_from_it_and_stays_exact(method):
    """A 3×3 building placed every 3 s on AcrosstheCape restarted every long search in flight:
    234 of 300 units sent across it were still planning after 30 s. An exact search now goes on
    when an edit touches nothing it has reached; its answer equals a fresh search on the map as
    it ends, whatever was blocked and opened meanwhile or after it finished (near it or not)."""
    rng = np.random.default_rng(21)
    restarts = 0
    for trial in range(40):
        grid = Grid(rng.random((40, 50)) > 0.2)
        free = np.argwhere(grid.passable)[:, ::-1]
        start, goal = (tuple(int(v) for v in free[k]) for k in rng.choice(len(free), 2, replace=False))
        search = SlicedSearch(grid, start, goal, method)
        while not search.done:
            search.step(int(rng.integers(1, 60)))
            cells = rng.integers(0, [50, 40], size=(int(rng.integers(1, 4)), 2))
            keep = ~((cells == start).all(axis=1) | (cells == goal).all(axis=1))
            grid.set_passable(cells[keep], bool(rng.random() < 0.4))
        for _ in range(int(rng.integers(0, 3))):               # and after it has finished
            cells = rng.integers(0, [50, 40], size=(2, 2))
            keep = ~((cells == start).all(axis=1) | (cells == goal).all(axis=1))
            grid.set_passable(cells[keep], bool(rng.random() < 0.4))
        mine = search.run()
        restarts += search.restarts
        fresh = find_path(grid, start, goal, method)
        assert mine.found == fresh.found
        if fresh.found:
            assert mine.cost == pytest.approx(fresh.cost, abs=1e-9)
            assert grid.passable[mine.cells[:, 1], mine.cells[:, 0]].all()
    assert restarts > 0                        # edits near the searches did make them start over


def test_a_long_search_finishes_while_buildings_go_up_away_from_it():
    """A building every few slices, far from where the search has been: it used to start over at
    each one and never finish."""
    passable = np.ones((200, 200), dtype=bool)
    passable[:180, 100] = False                                    # the way is round the bottom
    grid = Grid(passable)
    search = SlicedSearch(grid, (2, 100), (197, 100), "astar")
    slices = 0
    while not search.done and slices < 2000:
        search.step(100)
        slices += 1
        corner = slices % 20
        grid.set_passable(np.array([[190 + corner % 5, 2 + corner // 5]]), slices % 40 < 20)   # top right
    assert search.done and search.restarts == 0
    assert search.result().cost == pytest.approx(find_path(grid, (2, 100), (197, 100)).cost)


def test_shared_searches_keep_to_their_memory_bound(monkeypatch):
    """A shared search holds 32 bytes a cell while its units read it: on a 2048² map 134 MB. Two
    goals get two searches; with room for one only, the second goal's units search alone."""
    from rtsnav.names import Planner
    from rtsnav.systems.nav.crowd import planning

    crowd = Crowd(Grid(np.ones((60, 60), dtype=bool)), cache_dir=None)
    ids = crowd.add_agents([(1.5 + i % 20, 1.5 + i // 20) for i in range(40)])
    methods = np.full(40, int(Planner.ASTAR))
    starts = crowd.grid.world_to_cells(crowd.positions[ids, :2])
    goals = np.array([(50, 50)] * 20 + [(55, 10)] * 20)
    assert len({id(t) for t in crowd.planning.shared_trees(ids, methods, starts, goals).values()}) == 2
    monkeypatch.setattr(planning, "SHARED_BYTES_AT_MOST", 1)
    other = Crowd(Grid(np.ones((60, 60), dtype=bool)), cache_dir=None)
    other.add_agents(crowd.positions[ids, :2])
    trees = other.planning.shared_trees(ids, methods, starts, goals)
    assert len(trees) == 20 and len({id(t) for t in trees.values()}) == 1


def test_units_whose_layer_masks_differ_only_in_team_flags_share_one_search():
    """Masks differing in bits no cell is on see one map (issue 38's tenth campaign): two teams'
    flags in the high bits, sent to one cell, share one search, not one each."""
    from rtsnav.names import L_NAVIGATION_LAYERS, Planner

    grid = Grid(np.ones((60, 60), dtype=bool))
    grid.set_layers(np.array([[x, y] for x in range(30, 32) for y in range(60)]), 0b10)     # a road
    crowd = Crowd(grid, cache_dir=None)
    ids = crowd.add_agents([(1.5 + i % 20, 1.5 + i // 20) for i in range(40)])
    crowd.agents.agent_layers[ids[:20], L_NAVIGATION_LAYERS] = 1 | 1 << 8         # as the esper setter writes it
    crowd.agents.agent_layers[ids[20:], L_NAVIGATION_LAYERS] = 1 | 2 << 8
    starts = grid.world_to_cells(crowd.positions[ids, :2])
    trees = crowd.planning.shared_trees(ids, np.full(40, int(Planner.ASTAR)), starts, np.array([(50, 50)] * 40))
    assert len(trees) == 40 and len({id(t) for t in trees.values()}) == 1
