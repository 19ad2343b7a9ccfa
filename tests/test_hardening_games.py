"""Hardening, ninth campaign: what games do with what they share — one cache folder baked into
from several threads, copies of grids and crowds (saved games, rollbacks), two crowds rebuilding
at once, units moved between esper worlds, units chasing a moving target. Each test failed on
the code before its fix."""

from __future__ import annotations

import copy
import pickle
import threading
import warnings

import esper
import numba
import numpy as np
import pytest

from rtsnav.components import NavigationAgent, Position, Velocity
from rtsnav.levels import load_movingai_map
from rtsnav.names import L_NAVIGATION_LAYERS, NavState
from rtsnav.systems import Navigation, install
from rtsnav.systems.nav import Crowd, Grid, NavError, find_path
from rtsnav.systems.nav.crowd.planners import UNITS
from rtsnav.systems.nav.search.jps_plus import JumpTable


def test_threads_baking_one_cache_file_neither_tear_it_nor_call_the_folder_unwritable(tmp_path):
    """Two threads of one process wrote the same temporary file (its name carried only the pid):
    the loser's rename found nothing and warned that the folder could not be written."""
    rng = np.random.default_rng(3)
    passable = rng.random((48, 48)) > 0.25
    grid = Grid(passable)
    caught: list[str] = []

    def bake() -> None:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            JumpTable.cached(grid, tmp_path)
        caught.extend(str(w.message) for w in seen)

    for _ in range(6):
        for old in tmp_path.iterdir():
            old.unlink()
        threads = [threading.Thread(target=bake) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert caught == []
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []     # no scratch left
    with warnings.catch_warnings():
        warnings.simplefilter("error")                   # the file in place loads without a rebake
        JumpTable.cached(grid, tmp_path)


def _walled_grid(size: int = 40) -> Grid:
    passable = np.ones((size, size), dtype=bool)
    passable[5:35, 20] = False
    return Grid(passable)


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_a_copied_grid_is_a_map_of_its_own(how):
    """``copy.copy(grid)`` shared the cell arrays: walling off the copy closed the original's cells
    too, behind its caches, and the original's JPS+ still walked through the new wall."""
    grid = _walled_grid()
    assert find_path(grid, (2, 2), (37, 37), "jps+").found
    other = _copy(grid, how)
    other.set_passable(np.array([[30, y] for y in range(40)]), False)
    assert grid.passable[:, 30].all() and not other.passable[:, 30].any()
    with pytest.raises(ValueError):
        other.passable[0, 0] = False                 # read-only like the original's (copies came back writable)
    assert find_path(grid, (2, 2), (37, 37), "jps+").found
    assert not find_path(other, (2, 2), (37, 37), "jps+").found


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_a_copied_crowd_ticks_on_its_own_and_exactly_as_the_original_would(how):
    """``copy.copy(crowd)`` was a second view: ticking it moved the original's units. Copies are
    snapshots (a saved game, a rollback) that go on exactly as the original does."""
    crowd = Crowd(_walled_grid(), cache_dir=None)
    ids = crowd.add_agents(np.array([[2.5, 2.5], [3.5, 30.5], [4.5, 12.5]]))
    crowd.move(ids, (37.5, 20.5))
    for _ in range(20):
        crowd.update(1 / 30)
    before = crowd.positions.copy()
    other = _copy(crowd, how)
    for _ in range(40):
        other.update(1 / 30)
    assert np.array_equal(crowd.positions, before)
    for _ in range(40):
        crowd.update(1 / 30)
    assert np.array_equal(crowd.positions, other.positions) and not np.array_equal(crowd.positions, before)


def _copy(obj, how: str):
    return {"copy": copy.copy, "deepcopy": copy.deepcopy, "pickle": lambda o: pickle.loads(pickle.dumps(o))}[how](obj)


def _edited_navmesh_crowd() -> Crowd:
    crowd = Crowd(_walled_grid(), cache_dir=None)
    crowd.level.navmesh()                                       # baked at load
    crowd.move(crowd.add_agents(np.array([[2.5, 2.5]])), (37.5, 20.5), "navmesh")
    crowd.update(1 / 30)
    crowd.grid.set_passable(np.array([[10, 10], [11, 10]]), False)
    crowd.cells_changed(np.array([[10, 10], [11, 10]]))         # its rebuild goes to the worker
    return crowd


@pytest.mark.parametrize("copy_first", [True, False])
def test_a_crowd_copied_with_a_rebuild_in_flight_and_its_original_both_get_the_rebuild(copy_first):
    """A copy held the original's tickets with the rebuild worker, which answers a ticket once:
    whichever of the two asked second kept its stale navmesh for good."""
    crowd = _edited_navmesh_crowd()
    other = pickle.loads(pickle.dumps(crowd))
    for first in ((other, crowd) if copy_first else (crowd, other)):
        first.finish_rebuilds(timeout=60)
        assert first.level.rebuilds.stale == set()
        assert first.level.structure("navmesh").polygon_at((10.5, 10.5)) < 0     # the edit is in it


def test_two_crowds_rebuilding_at_once_give_numba_its_threads_back():
    """Each crowd saved numba's thread count when its rebuild started: the second saved the first's
    one thread, and restored it last — every parallel kernel kept to one core for good."""
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba has one thread here: nothing to give back")
    before = numba.get_num_threads()
    numba.set_num_threads(2)                             # the suite's workers run on one
    try:
        first, second = _edited_navmesh_crowd(), _edited_navmesh_crowd()
        assert numba.get_num_threads() == 1              # the worker bakes on the other core meanwhile
        first.finish_rebuilds(timeout=60)
        second.finish_rebuilds(timeout=60)
        assert numba.get_num_threads() == 2
    finally:
        numba.set_num_threads(before)


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("same_world", [False, True])
def test_a_unit_moved_to_another_entity_keeps_its_components_live(same_world):
    """A game moving a unit to another level (another esper world, one ``Navigation`` each) takes
    its components off one entity and puts them on a new one. The first world's registry, seeing
    the departure a frame later, gave the components "their values back" — detaching them from
    the second world's row: the unit walked on there while its ``Position`` stood still. Within
    one world the move was refused for a frame with a warning that the new entity shared its
    components with the old one (which no longer had them)."""
    names = ("moved from", "moved to")
    try:
        navs = []
        for name, size in zip(names, (20, 30)):
            esper.switch_world(name)
            navs.append(Navigation(Grid(np.ones((size, size), dtype=bool))))
            install(navs[-1], prepare=False)
        esper.switch_world(names[0])
        position, agent = Position(2.5, 2.5, 0.0), NavigationAgent(target_position=(15.5, 15.5, 0.0))
        entity = esper.create_entity(position, Velocity(), agent)
        for _ in range(10):
            esper.process(1 / 30)
        for kind in (NavigationAgent, Position, Velocity):
            esper.remove_component(entity, kind)
        there = names[0] if same_world else names[1]
        esper.switch_world(there)
        agent.target_position = (12.5, 18.5, 0.0)
        esper.create_entity(position, Velocity(), agent)
        for _ in range(200):
            for name in (there, names[1] if same_world else names[0]):
                esper.switch_world(name)
                esper.process(1 / 30)
        nav = navs[0] if same_world else navs[1]
        (row,) = nav.id_of.values()
        assert np.allclose((position.x, position.y), nav.crowd.positions[row, :2])
        assert np.hypot(position.x - 12.5, position.y - 18.5) < 1.5               # it got there, and says so
    finally:
        esper.switch_world("default")
        for name in names:
            esper.delete_world(name)


def _chase(planner: str, ticks: int):
    """300 units re-targeted every frame at a prey walking a loop on arena (a chase, an attack
    order on a moving unit: Godot's tutorials set ``target_position`` every physics frame)."""
    grid = load_movingai_map("arena.map")
    rng = np.random.default_rng(0)
    free = np.argwhere(grid.passable)[:, ::-1] + 0.5
    crowd = Crowd(grid, cache_dir=None)
    chasers = crowd.add_agents(free[rng.integers(0, len(free), 300)])
    loop = free[rng.integers(0, len(free), 8)]
    (prey,) = crowd.add_agents(loop[:1], max_speed=2.0)
    leg = 1
    crowd.move([prey], loop[leg])
    start = crowd.positions[chasers, :2].copy()
    stuck, most_plans = 0, 0
    service = crowd.queue.service
    for _ in range(ticks):
        crowd.move(chasers, crowd.positions[prey, :2], planner)
        finished: list = []
        crowd.queue.service = lambda: finished.extend(service()) or finished         # type: ignore[method-assign]
        events = crowd.update(1 / 30)
        stuck += len(events.stuck)
        most_plans = max(most_plans, len(finished))
        if prey in events.reached.tolist():
            leg = (leg + 1) % len(loop)
            crowd.move([prey], loop[leg])
    gap = np.hypot(*(crowd.positions[chasers, :2] - crowd.positions[prey, :2]).T)
    moved = np.hypot(*(crowd.positions[chasers, :2] - start).T)
    return gap, moved, stuck, most_plans, crowd


@pytest.mark.parametrize("planner", ["astar", "navmesh"])
def test_units_chasing_a_moving_target_all_chase_it(planner):
    """Orders were taken in id order, ``ORDERS_PER_TICK`` (150) a tick, and a re-ordered unit's plan
    went to the back of the queue: re-targeted every frame, the same 150 of 300 chasers were
    planned every tick and the other 150 stood for good (0 moved in 30 s). Now the longest
    waiters go first and keep their place in line, a unit re-targeted near where it heads keeps
    the plan it walks or waits for, and a unit walking a quick route nearer its target is not
    stuck."""
    gap, moved, stuck, _, _ = _chase(planner, 450)
    assert ((moved > 1.0) | (gap < 2.0)).all()                  # each chased (or stood by the prey)
    assert (gap < 8.0).all(), np.sort(gap)[-5:]
    assert stuck == 0


def test_many_short_plans_keep_to_the_planning_budget():
    """Each plan costs ~150 µs besides its expansions (set-up, smoothing, hand-over): 300 chasers'
    short re-plans on arena (~30 expansions each) fitted ~600 in a budget of 20,000 units and
    ran 45 ms ticks. A plan's fixed cost (``UNITS["job"]``, part at its first step, the rest as
    it finishes) now counts against the budget."""
    _, _, _, most_plans, crowd = _chase("astar", 60)
    assert most_plans <= crowd.queue.budget // (UNITS["job"] - UNITS["job_start"]) + 1      # (charged as they finish)


def test_a_unit_grown_on_its_way_plans_again_for_its_new_size():
    """A game growing a unit (an upgrade: radius 0.3 -> 1.4 cells) on its way kept the plan made
    for its old size, through a one-cell gap it no longer fits: it stood before the gap for ~30 s
    until its recoveries ran out ("no progress"). It now plans again for its size at once and
    says why it cannot pass, walking to the closest point it can reach."""
    passable = np.ones((30, 40), dtype=bool)
    passable[:, 20] = False
    passable[14, 20] = True                                  # a one-cell gap
    crowd = Crowd(Grid(passable), cache_dir=None)
    (unit,) = crowd.add_agents([(3.5, 14.5)], radius=0.3)
    crowd.move([unit], (35.5, 14.5))
    reasons = []
    for tick in range(120):
        if tick == 30:
            crowd.agents.radius[unit] = 1.4
        events = crowd.update(1 / 30)
        reasons += events.reasons
    assert len(reasons) == 1 and "too narrow" in reasons[0] and "radius 1.4" in reasons[0]
    assert crowd.positions[unit, 0] < 19.0


def test_a_unit_barred_from_a_layer_on_its_way_plans_again_around_it():
    """Godot's ``navigation_layers`` setter re-paths the agent; rtsnav's unit kept its plan and
    walked on through the gap its new layers bar it from."""
    passable = np.ones((30, 40), dtype=bool)
    passable[:, 20] = False
    passable[14, 20] = passable[2, 20] = True                 # two gaps: the near one on layer 2 only
    grid = Grid(passable)
    grid.set_layers(np.array([[20, 14]]), 2)
    crowd = Crowd(grid, cache_dir=None)
    (unit,) = crowd.add_agents([(3.5, 14.5)])
    crowd.agents.agent_layers[unit, L_NAVIGATION_LAYERS] = 3
    crowd.move([unit], (35.5, 14.5))
    crossings = []
    for tick in range(400):
        if tick == 30:
            crowd.agents.agent_layers[unit, L_NAVIGATION_LAYERS] = 1
        crowd.update(1 / 30)
        if 19.5 < crowd.positions[unit, 0] < 20.5:
            crossings.append(crowd.positions[unit, 1])
    assert crossings and max(crossings) < 4.0                 # through the layer-1 gap at y = 2
    assert crowd.states[unit] == NavState.FINISHED


def test_units_chasing_a_target_over_water_walk_the_shore_quietly():
    """300 units re-targeted every frame at a point circling over a lake (a flyer): every frame each
    took a new order, found the nearest shore point again and said so (``path_failed``, 150 a
    tick: 45,000 in 10 s), and its plan restarted; a unit walking to the shore that was re-planned
    on the way planned for the lake itself and failed ("a blocked cell"). Now a target that moved
    a little keeps the walk to the shore point it has."""
    passable = np.ones((64, 64), dtype=bool)
    passable[20:44, 20:44] = False
    crowd = Crowd(Grid(passable), cache_dir=None)
    free = np.argwhere(passable)[:, ::-1] + 0.5
    units = crowd.add_agents(free[np.random.default_rng(0).integers(0, len(free), 300)])
    told, stuck = 0, 0
    for tick in range(300):
        crowd.move(units, (32 + 8 * np.cos(tick / 30), 32 + 8 * np.sin(tick / 30)))
        events = crowd.update(1 / 30)
        told += len(events.failed)
        stuck += len(events.stuck)
    assert not (crowd.states[units] == NavState.FAILED).any()
    assert told < 30 * 300 and stuck == 0, (told, stuck)
    assert np.median(np.hypot(*(crowd.positions[units, :2] - 32.0).T)) < 17.0      # at the shore (12-17)


@pytest.mark.parametrize("call", ["targets", "speeds", "velocities", "obstacles"])
def test_values_given_one_per_agent_name_each_agent_once(call):
    """``move([0, 0], [[5, 5], [9, 9]])`` (a formation with two slots for one unit), per-id speeds,
    velocity inputs or obstacle places with an id twice: NumPy kept the last value, silently."""
    crowd = Crowd(Grid(np.ones((20, 20), dtype=bool)), cache_dir=None)
    units = crowd.add_agents([(2.5, 2.5), (3.5, 2.5)])
    obstacles = crowd.inputs.add_obstacles([(9.5, 9.5), (12.5, 9.5)], radius=0.5)
    before = crowd.agents.target.copy(), crowd.agents.max_speed.copy(), crowd.positions.copy()
    act = {"targets": lambda: crowd.move([units[0], units[0]], np.array([[5.5, 5.5], [9.5, 9.5]])),
           "speeds": lambda: crowd.set_speed([units[1], units[1]], [2.0, 5.0]),
           "velocities": lambda: crowd.inputs.set_velocity([units[0], units[0]], np.array([[1.0, 0.0], [0.0, 1.0]])),
           "obstacles": lambda: crowd.inputs.move_obstacles([obstacles[0], obstacles[0]], [(5.5, 5.5), (6.5, 6.5)])}
    with pytest.raises(NavError, match="named 2 times"):
        act[call]()
    assert np.array_equal(crowd.agents.target, before[0], equal_nan=True)
    assert np.array_equal(crowd.agents.max_speed, before[1]) and np.array_equal(crowd.positions, before[2])
    crowd.move([units[0], units[0], units[1]], (15.5, 15.5))            # one value for all: fine


def test_units_given_the_target_they_stand_at_arrive_again_at_once():
    """A game setting every unit's target each frame (Godot's pattern) re-planned the ones already
    standing there: at any moment most of them were "not finished", and they planned all the
    time. Ordered to where it stands, a unit has arrived again that tick (Godot re-emits
    ``target_reached`` and ``navigation_finished``), with no plan."""
    crowd = Crowd(Grid(np.ones((40, 40), dtype=bool)), cache_dir=None)
    rng = np.random.default_rng(4)
    units = crowd.add_agents(rng.uniform(2, 38, (100, 2)))
    targets = rng.uniform(2, 38, (100, 2))
    crowd.move(units, targets)
    for _ in range(600):
        crowd.update(1 / 30)
    assert (crowd.states[units] == NavState.FINISHED).all()
    here = crowd.positions[units, :2].copy()
    for _ in range(30):
        crowd.move(units, here)
        events = crowd.update(1 / 30)
        assert (crowd.states[units] == NavState.FINISHED).all()
        assert np.array_equal(np.sort(events.reached), np.sort(units)) and len(crowd.queue) == 0
