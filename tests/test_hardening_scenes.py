"""Regression tests of a sixth issue-38 campaign: the random crowd scenes of ``test_fuzz_scenes``
at more seeds and varied (cell sizes, origins, wide units), random esper scenes, the CLIs'
outputs, and fields assigned past their edit methods. Each case here was an order failed by a
planner that raised, a unit standing without an event (or one event every few ticks), a
setting silently ignored, or a fault reported as success."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.names import NavState
from rtsnav.systems.nav import Crowd, Grid, NavError
from rtsnav.systems.nav.steering.lanes import keep_right


def test_a_dstar_unit_on_a_layer_grid_plans_after_an_edit():
    """A ``dstar-lite`` unit whose navigation layers leave out some cells plans on the grid of its
    mask; an edit reached that grid only when next asked for, after the crowd had passed the edit
    to the search, so the repaired search raised ("the grid changed since this D* Lite search last
    heard") and the order failed with a planner error (seeds 20, 24 and 31 of the scene fuzz)."""
    passable = np.ones((20, 30), dtype=bool)
    passable[3:17, 15] = False
    grid = Grid(passable)
    grid.set_layers(np.array([[5, 18], [6, 18]]), 2)            # cells only layer-2 agents take
    crowd = Crowd(grid, cache_dir=None)
    ids = crowd.add_agents(np.array([[2.5, 10.5]]), radius=0.3, max_speed=3.0)
    crowd.move(ids, (27.5, 10.5), "dstar-lite")
    failed, reasons = [], []
    for t in range(400):
        if t in (20, 60):
            cells = np.array([[15, 17 if t == 20 else 18]])   # block the way round, then re-cost
            grid.set_passable(cells, t == 60)
            crowd.cells_changed(cells)
        if t == 40:
            grid.set_cost(np.array([[20, 10]]), 3.0)
            crowd.cells_changed(np.array([[20, 10]]))
        events = crowd.update(1 / 30)
        failed += events.failed.tolist()
        reasons += events.reasons
        if crowd.states[ids[0]] == NavState.FINISHED:
            break
    assert failed == [], reasons
    assert crowd.states[ids[0]] == NavState.FINISHED


def test_a_unit_without_progress_keeps_its_course_through_lanes():
    """Lanes turn a unit in the left half of a passage with the other flow in it over to the
    right; a unit that made no progress for a while (``hurried``) keeps its course: where the
    passage turns a corner, the sidestep and its way stepped it to and fro over one line for good
    (seed 77 of the scene fuzz: 6 s without an event)."""
    passable = np.zeros((9, 20), dtype=bool)
    passable[3:6, :] = True                                  # a 3-cell corridor, west to east
    grid = Grid(passable)
    position = np.array([[4.0, 5.2], [14.0, 4.5]])           # the east-bound unit in its left (north) half
    walking = np.ones(2, dtype=bool)
    radius = np.full(2, 0.3)
    labels = np.where(passable, 0, -1).astype(np.int32)
    passages = (labels, np.array([3.0]))
    for hurried, turned in ((np.zeros(2, dtype=bool), True), (np.array([True, False]), False)):
        preferred = np.array([[2.0, 0.0], [-2.0, 0.0]])
        keep_right(position, preferred, walking, radius, passages, grid.view, hurried)
        assert (not np.allclose(preferred[0], (2.0, 0.0))) == turned, preferred[0]


def test_the_demo_refuses_a_screenshot_name_it_cannot_write(capsys):
    """``--screenshot shot.txt`` wrote an empty file and printed "screenshot: shot.txt"; a name
    without an image suffix is now a usage error (exit 2) before anything runs."""

    from rtsnav.game.__main__ import parse_args

    for name in ("shot.txt", ".png", "shot"):
        with pytest.raises(SystemExit) as stop:
            parse_args(["--headless", "--screenshot", name])
        assert stop.value.code == 2
        assert "expected an image file name such as shot.png" in capsys.readouterr().err
    assert parse_args(["--screenshot", "out/shot.PNG"]).screenshot.name == "shot.PNG"


def test_levels_show_writes_only_png_names(capsys, tmp_path):
    """``rtsnav-levels show --out map.jpg`` wrote PNG data under a JPEG name (and ``map.txt``
    too): the picture is a PNG, so its name must say so."""
    from rtsnav.levels.__main__ import main

    for name in ("map.jpg", "map.txt", ".png"):
        with pytest.raises(SystemExit) as stop:
            main(["show", "river", "--out", str(tmp_path / name)])
        assert stop.value.code == 2
        assert "such as shot.png" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("field", ["passable", "cost", "heights", "layers", "cell_size", "origin", "version"])
def test_a_grid_field_cannot_be_replaced(field):
    """``grid.passable = other`` (or ``cost``, ``cell_size``…) replaced the map behind every cache:
    the searches kept the old one, the version stamp never moved. Edits go through the edit
    methods; a field cannot be swapped."""
    grid = Grid(np.ones((6, 6), dtype=bool))
    grid.set_layers(np.array([[1, 1]]), 2)
    before = grid.version
    with pytest.raises(AttributeError, match=f"Grid.{field} cannot be replaced"):
        setattr(grid, field, getattr(grid, field))
    assert grid.version == before


def test_the_layer_bits_are_read_only():
    """``grid.layers[y, x] = bits`` bypassed ``set_layers`` (agents' layer grids never heard)."""
    grid = Grid(np.ones((6, 6), dtype=bool))
    grid.set_layers(np.array([[1, 1]]), 2)
    with pytest.raises(ValueError, match="read-only"):
        grid.layers[0, 0] = 2
    grid.set_layers(np.array([[0, 0]]), 4)
    assert grid.layers[0, 0] == 4 and grid.layers[1, 1] == 2


def test_a_crowds_config_and_grid_cannot_be_swapped():
    """``crowd.config = CrowdConfig(avoidance_horizon=3)`` was taken without a word and changed
    nothing (each part of the crowd holds the config it was made with); so was ``crowd.grid``."""
    from rtsnav.systems.nav import CrowdConfig

    crowd = Crowd(Grid(np.ones((6, 6), dtype=bool)), cache_dir=None)
    for field, other in (("config", CrowdConfig(avoidance_horizon=3.0)), ("grid", Grid(np.ones((4, 4), dtype=bool)))):
        kept = getattr(crowd, field)
        with pytest.raises(AttributeError, match=f"Crowd.{field} is fixed when it is made"):
            setattr(crowd, field, other)
        assert getattr(crowd, field) is kept


def test_a_wide_unit_where_it_does_not_fit_says_so_once():
    """A unit of radius 0.9 standing in a one-cell corridor (where it does not fit), ordered past a
    gap too narrow for it, planned from the nearest cell where it fits — a cell behind the wall —
    so it "drifted" off that path at once and re-planned it every 4 ticks, each time with another
    ``path_failed`` event ("walking to the closest reachable point"): 47 in 20 s. It plans from
    the cell it walks out to, says why once, and gets ``stuck`` events while it cannot move."""
    p = np.ones((21, 40), dtype=bool)
    p[8:13, :12] = False
    p[10, 1:12] = True                     # a one-cell corridor, x 1..11, opening into the room
    p[:, 25] = False
    p[10, 25] = True                       # a one-cell gap: too narrow for it
    crowd = Crowd(Grid(p), cache_dir=None)
    ids = crowd.add_agents(np.array([[3.5, 10.5]]), radius=0.9, max_speed=3.0)
    crowd.move(ids, (33.5, 10.5))
    failed, stuck, plans = [], 0, 0
    for _ in range(600):
        events = crowd.update(1 / 30)
        failed += events.reasons
        stuck += len(events.stuck)
        plans += len(events.path_changed)
    assert len(failed) == 1 and "walking to the closest reachable point" in failed[0]
    assert stuck >= 4                     # it cannot move: said every few seconds
    assert plans <= stuck + 1             # a plan for the order and one a recovery, no more


def test_a_wide_unit_walks_out_of_a_corridor_it_does_not_fit_by_the_corridor():
    """A unit of radius 0.9 in a two-cell corridor (no cell centre there clears it; its body
    passes): the nearest cell where it fits by straight line lay behind the corridor's wall, so
    its path began there and it re-planned as it "drifted". It plans from the nearest such cell by
    walking (``SizedGrids.way_out``), walks the corridor out and arrives on one plan."""
    p = np.ones((21, 40), dtype=bool)
    p[7:13, :12] = False
    p[9:11, 1:12] = True
    crowd = Crowd(Grid(p), cache_dir=None)
    ids = crowd.add_agents(np.array([[3.5, 10.0]]), radius=0.9, max_speed=3.0)
    crowd.move(ids, (30.5, 10.5))
    plans = stuck = 0
    for _ in range(600):
        events = crowd.update(1 / 30)
        plans += len(events.path_changed)
        stuck += len(events.stuck)
        if crowd.states[ids[0]] == NavState.FINISHED:
            break
    assert crowd.states[ids[0]] == NavState.FINISHED
    assert (plans, stuck) == (1, 0)


def test_a_unit_its_groups_field_does_not_reach_is_reported_stuck():
    """A group member standing where its group's field does not reach reads a cost to go of inf;
    ``inf <= inf - d`` held, so each jostle of half a cell counted as progress and it stood for
    good without an event (a varied scene: another radius, cell size 3). No cost to go, no
    progress: it is reported stuck after ``stuck_after``."""
    from rtsnav.systems.nav.crowd.progress import watch_progress
    from rtsnav.systems.nav.crowd.state import Mode

    crowd = Crowd(Grid(np.ones((10, 10), dtype=bool)), cache_dir=None)
    ids = crowd.add_agents(np.array([[5.0, 5.0]]), radius=0.3, max_speed=2.0)
    s, a = crowd.agents, int(ids[0])
    s.nav_state[a, 0] = NavState.FOLLOWING
    s.mode[a] = Mode.FLOW
    reported = []
    for t in range(200):                        # 6.7 s of jostling 0.6 cells to and fro
        s.position[a, 0] = 5.0 + 0.6 * (t // 10 % 2)
        s.togo[a] = np.inf
        waited, _, _, _ = watch_progress(s, 1 / 30, 1.0, 4.0)
        reported += [t for w in waited.tolist() if w == a]
    assert reported and reported[0] <= 121


def test_the_demo_refuses_a_folder_for_its_summary_before_the_run(capsys, tmp_path):
    """``--summary-json <a folder>`` ran every frame and then failed ("Is a directory"); it is
    refused before anything runs."""
    from rtsnav.game.__main__ import main

    assert main(["--headless", "--frames", "1", "--summary-json", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "is a folder (expected a file name to write)" in err and "preparing" not in err


def test_a_component_object_on_two_entities_is_refused_with_a_warning():
    """One ``NavigationAgent`` (or ``Position``) object on two entities used to be taken from the
    first by the second: the first walked on toward its target with nobody able to steer it."""
    import esper

    from rtsnav.components import Flock, NavigationAgent, Position, Velocity
    from rtsnav.systems import Navigation, install

    esper.switch_world("shared components")
    try:
        install(Navigation(Grid(np.ones((20, 20), dtype=bool))), prepare=False)
        agent, flock = NavigationAgent(target_position=(15.5, 2.5, 0.0)), Flock(group=1)
        first = esper.create_entity(Position(2.5, 2.5), Velocity(), agent, flock)
        esper.process(0.05)
        with pytest.warns(RuntimeWarning, match=f"entity {first + 1}'s NavigationAgent is the same object as "
                                                f"entity {first}'s"):
            second = esper.create_entity(Position(2.5, 8.5), Velocity(), agent, flock)
            for _ in range(5):
                esper.process(0.05)
        agent.target_position = (2.5, 15.5, 0.0)          # steers the first unit, the one it belongs to
        for _ in range(200):
            esper.process(0.05)
        assert esper.component_for_entity(first, Position).y > 14.0
        assert esper.component_for_entity(second, Position).y == 8.5      # ignored, not moved
        own = NavigationAgent(target_position=(15.5, 8.5, 0.0))
        esper.add_component(second, own)                  # its own agent (the shared Flock is fine)
        for _ in range(300):
            esper.process(0.05)
        assert own.is_navigation_finished() and esper.component_for_entity(second, Position).x > 14.0
    finally:
        esper.switch_world("default")
        esper.delete_world("shared components")


def test_a_sliced_navmesh_query_over_a_new_link_answers_for_the_mesh_with_it():
    """An area-cost query stepped across ``add_link`` mixed the two graphs: "not reachable" with
    the cost of the path through the link; one finished before the link kept its old answer."""
    from rtsnav.systems.nav import NavMesh

    passable = np.ones((20, 40), dtype=bool)
    passable[:, 20:22] = False                                   # two halves; the link joins them
    cost = np.ones((20, 40))
    cost[:, 5:15] = 3.0                                          # area costs: a search in slices
    mesh = NavMesh.from_grid(Grid(passable, cost), 0.3, subdivide=2)
    start, goal = (2.5, 2.5, 0.0), (37.5, 2.5, 0.0)
    running, finished = mesh.start_query(start, goal), mesh.start_query(start, goal)
    assert not running.step(5)
    while not finished.step(50):
        pass
    assert not finished.result().found
    mesh.add_link((18.5, 2.5, 0.0), (23.5, 2.5, 0.0), cost=1.0)
    while not running.step(50):
        pass
    truth = mesh.find_path(start, goal)
    assert truth.found
    for query in (running, finished):
        assert query.result().found and query.result().cost == pytest.approx(truth.cost)


def test_a_tiny_neighbour_distance_keeps_the_spatial_hash_small():
    """``avoidance_distance``, ``leader_sight`` or a flock radius of 0.001 are valid settings; the
    spatial hashes took them as their bucket side, so units spread over a 48-cell map asked for
    2.3e9 buckets (a MemoryError, or the process killed at 15 GB)."""
    from rtsnav.systems.nav import CrowdConfig
    from rtsnav.systems.nav.steering.proximity_grid import MOST_BUCKETS, build_proximity_grid, fitted_side

    points = np.random.default_rng(1).uniform(0.0, 100.0, (50, 2))
    active = np.ones(50, dtype=bool)
    side = fitted_side(points, active, 0.001)
    _, starts, _, _, cols, rows = build_proximity_grid(points, active, side)
    assert cols * rows <= MOST_BUCKETS and len(starts) == cols * rows + 1
    assert fitted_side(points, active, 4.0) == 4.0                      # ordinary distances stay as asked
    crowd = Crowd(Grid(np.ones((48, 48), dtype=bool)),
                  CrowdConfig(avoidance_distance=0.001, leader_sight=0.001, rebuild_worker=False))
    ids = crowd.add_agents(np.c_[np.linspace(1.5, 46.5, 12), np.linspace(46.5, 1.5, 12)], avoidance=True, group=1)
    crowd.move(ids, (24.5, 24.5), planner="leader")
    for _ in range(40):
        crowd.update(0.05)
    assert np.isfinite(crowd.agents.position[ids]).all()


def test_units_waiting_for_their_plans_are_reported_stuck():
    """With a planning budget far too small for the orders (``planning_units=1``: 100 A* plans
    served round robin one expansion a tick), every unit waited for its plan for good without
    an event. Each is now reported ``stuck`` every ``stuck_after`` it waits standing, with no
    recovery (its plan stays queued), and a big enough budget later lets them all arrive. (With
    ``quick_steps`` they walk short routes toward the target meanwhile: not stuck while that
    brings them nearer.)"""
    from rtsnav.systems.nav.crowd import CrowdConfig

    passable = np.ones((64, 64), dtype=bool)
    passable[5:60, 32] = False
    crowd = Crowd(Grid(passable), CrowdConfig(planning_units=1, rebuild_worker=False, quick_steps=False),
                  cache_dir=None)
    ids = crowd.add_agents([(3.5 + i % 10, 3.5 + i // 10) for i in range(30)])
    for i in ids.tolist():
        crowd.move([i], (60.5, 60.5), "astar")
    reported = np.zeros(len(ids), dtype=int)
    for _ in range(int(9.5 * 30)):                          # 9.5 s: two reports at 4 and 8 s
        reported[np.searchsorted(ids, crowd.update(1 / 30).stuck)] += 1
    assert (crowd.agents.nav_state[ids, 0] == NavState.PLANNING).all()
    assert (reported == 2).all(), reported
    assert all(("agent", i) in crowd.queue for i in ids.tolist())
    crowd.queue.budget = crowd.queue.quantum = 20_000
    for _ in range(30 * 30):
        crowd.update(1 / 30)
    assert (crowd.agents.nav_state[ids, 0] == NavState.FINISHED).all()


@pytest.mark.parametrize("immediate", [True, False])
def test_units_dying_and_born_in_one_frame_keep_the_registry_in_step(immediate):
    """A game that deletes a unit and creates others before the next ``esper.process`` (a death
    and a birth in one frame) killed the tick: the registry looked for the deleted entity by
    bisecting the old and new agent lists past the old list's end (IndexError)."""
    import esper

    from rtsnav.components import NavigationAgent, Position, Velocity
    from rtsnav.systems import Navigation, install

    esper.switch_world("born-and-dying")
    try:
        nav = Navigation(Grid(np.ones((20, 20), dtype=bool)), cache_dir=None)
        install(nav, prepare=False)
        ents = [esper.create_entity(Position(2.5 + i, 2.5, 0.0), Velocity(), NavigationAgent()) for i in range(8)]
        esper.process(1 / 30)
        esper.delete_entity(ents[6], immediate=immediate)
        born = [esper.create_entity(Position(2.5 + i, 5.5, 0.0), Velocity(), NavigationAgent()) for i in range(3)]
        esper.process(1 / 30)
        assert sorted(nav.id_of) == sorted(ents[:6] + ents[7:] + born)
        assert nav.crowd.agents.alive_count == 10
    finally:
        esper.switch_world("default")
        esper.delete_world("born-and-dying")


def test_a_handler_deleting_its_unit_gets_no_more_events_for_it():
    """Handlers run inside ``esper.process``: one that deletes the arrived unit (Godot's
    ``queue_free`` on ``target_reached``) was sent ``navigation_finished`` for an entity that no
    longer existed, and one that ran ``esper.process`` again made the outer dispatch ask for
    the path of an agent already gone (``NavError``: the tick died). Events are now bound to
    entities before the first handler and sent only while the entity exists and owns the agent."""
    import esper

    from rtsnav.components import NavigationAgent, Position, Velocity
    from rtsnav.systems import Navigation, events, install

    esper.switch_world("handlers-delete")
    heard: list[tuple[str, int]] = []

    def reached(entity: int) -> None:
        heard.append(("reached", entity))
        if entity % 2:
            esper.delete_entity(entity, immediate=entity % 4 == 1)

    def finished(entity: int) -> None:
        heard.append(("finished", entity))

    def changed(entity: int, path) -> None:
        heard.append(("changed", entity))
        for doomed in (late, other):              # both units, then a nested tick that drops their agents
            if esper.entity_exists(doomed):
                esper.delete_entity(doomed, immediate=True)
        esper.process(1 / 60)

    try:
        nav = Navigation(Grid(np.ones((20, 20), dtype=bool)), cache_dir=None)
        install(nav, prepare=False)
        ents = [esper.create_entity(Position(2.5, 2.5 + i, 0.0), Velocity(), NavigationAgent(max_speed=4.0))
                for i in range(8)]
        for e in ents:
            esper.component_for_entity(e, NavigationAgent).target_position = (6.5, 2.5 + e % 8, 0.0)
        esper.set_handler(events.TARGET_REACHED, reached)
        esper.set_handler(events.NAVIGATION_FINISHED, finished)
        for _ in range(120):
            esper.process(1 / 30)
        assert {e for kind, e in heard if kind == "reached"} == set(ents)
        assert {e for kind, e in heard if kind == "finished"} == {e for e in ents if e % 2 == 0}
        late = esper.create_entity(Position(2.5, 12.5, 0.0), Velocity(), NavigationAgent())
        other = esper.create_entity(Position(2.5, 14.5, 0.0), Velocity(), NavigationAgent())
        esper.set_handler(events.PATH_CHANGED, changed)
        for e in (late, other):
            esper.component_for_entity(e, NavigationAgent).target_position = (15.5, 15.5, 0.0)
        for _ in range(5):
            esper.process(1 / 30)                 # raised NavError ("no agent with id …") before
        assert not esper.entity_exists(late) and not esper.entity_exists(other)
        assert [e for kind, e in heard if kind == "changed"] == [late]
    finally:
        esper.remove_handler(events.PATH_CHANGED, changed)
        esper.remove_handler(events.TARGET_REACHED, reached)
        esper.remove_handler(events.NAVIGATION_FINISHED, finished)
        esper.switch_world("default")
        esper.delete_world("handlers-delete")


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_a_copy_of_a_registered_component_is_a_snapshot_of_its_own(how):
    """A registered unit's components are views of its row in the agent table: ``copy.copy``
    made a second view (setting the copy's speed changed the unit's, and the copy was refused
    on a new entity as "the same object"), ``deepcopy`` and ``pickle`` dragged the whole table
    along. A copy now holds the values as they are, like a new component, and a unit made from
    it walks on its own."""
    import copy
    import pickle

    import esper

    from rtsnav.components import NavigationAgent, Position, Velocity
    from rtsnav.systems import Navigation, install

    clone = {"copy": copy.copy, "deepcopy": copy.deepcopy, "pickle": lambda c: pickle.loads(pickle.dumps(c))}[how]
    esper.switch_world("copies")
    try:
        nav = Navigation(Grid(np.ones((40, 40), dtype=bool)), cache_dir=None)
        install(nav, prepare=False)
        agent, where = NavigationAgent(max_speed=5.0, target_position=(30.5, 30.5, 0.0)), Position(2.5, 2.5, 0.0)
        first = esper.create_entity(where, Velocity(), agent)
        for _ in range(10):
            esper.process(1 / 30)
        twin, spot = clone(agent), clone(where)
        assert agent.is_bound and not twin.is_bound and not spot.is_bound
        assert twin == agent and (spot.x, spot.y) == (where.x, where.y)
        twin.max_speed, spot.x = 2.0, 9.5
        assert agent.max_speed == 5.0 and where.x != 9.5
        assert len(pickle.dumps(agent)) < 4000                   # its values, not the table
        second = esper.create_entity(spot, Velocity(), twin)
        for _ in range(600):
            esper.process(1 / 30)
        assert nav.id_of[first] != nav.id_of[second]
        assert agent.is_target_reached() and twin.is_target_reached()
    finally:
        esper.switch_world("default")
        esper.delete_world("copies")


BAD_INPUT_CALLS = {
    "obstacle at NaN": lambda c, units, ob: c.inputs.move_obstacles(ob, [[np.nan, 1.0]]),
    "obstacle at text": lambda c, units, ob: c.inputs.move_obstacles(ob, "ab"),
    "two places for one obstacle": lambda c, units, ob: c.inputs.move_obstacles(ob, [[1.0, 2.0], [3.0, 4.0]]),
    "obstacle at infinite speed": lambda c, units, ob: c.inputs.move_obstacles(ob, [[1.0, 2.0]], [[np.inf, 0.0]]),
    "a unit moved as an obstacle": lambda c, units, ob: c.inputs.move_obstacles(units[:1], [[3.0, 3.0]]),
    "obstacle layers NaN": lambda c, units, ob: c.inputs.add_obstacles([[5.5, 5.5]], 0.5, layers=float("nan")),
    "obstacle layers -1": lambda c, units, ob: c.inputs.add_obstacles([[5.5, 5.5]], 0.5, layers=-1),
    "velocity as text": lambda c, units, ob: c.inputs.set_velocity(units, "ab"),
    "complex velocity": lambda c, units, ob: c.inputs.set_velocity(units, [1 + 1j, 0.0]),
    "complex positions": lambda c, units, ob: c.add_agents(np.array([[1.5 + 1j, 1.5]])),
    "complex targets": lambda c, units, ob: c.move(units, np.array([[1 + 1j, 2.0], [3.0, 4.0]])),
    "complex speeds": lambda c, units, ob: c.set_speed(units, np.array([1 + 1j, 2.0])),
    "complex world points": lambda c, units, ob: c.grid.world_to_cells(np.array([[1 + 1j, 2.0]])),
    "complex costs": lambda c, units, ob: Grid(np.ones((3, 3), dtype=bool), np.full((3, 3), 1 + 1j)),
    "complex heights": lambda c, units, ob: Grid(np.ones((3, 3), dtype=bool), None, np.zeros((3, 3), dtype=complex)),
}


@pytest.mark.parametrize("call", list(BAD_INPUT_CALLS))
def test_obstacle_and_velocity_inputs_refuse_bad_values_and_change_nothing(call):
    """``Crowd.inputs.move_obstacles`` took NaN places and infinite speeds, moved a unit as if it
    were an obstacle and answered text or a wrong shape with NumPy's own errors; velocities and
    obstacle layers likewise; complex numbers lost their imaginary part with only a NumPy
    warning in positions, targets, speeds, world points, costs and heights. Each is now a
    ``NavError`` naming the argument, and nothing moved."""
    import warnings

    crowd = Crowd(Grid(np.ones((10, 10), dtype=bool)), cache_dir=None)
    units = crowd.add_agents([[1.5, 1.5], [2.5, 2.5]])
    obstacle = crowd.inputs.add_obstacles([[5.5, 5.5]], radius=0.5)
    before = crowd.positions.copy(), crowd.agents.alive_count
    with warnings.catch_warnings():
        warnings.simplefilter("error")                         # NumPy's ComplexWarning is no answer
        with pytest.raises(NavError):
            BAD_INPUT_CALLS[call](crowd, units, obstacle)
    assert np.array_equal(crowd.positions, before[0]) and crowd.agents.alive_count == before[1]


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_a_crowd_in_a_forked_process_says_why_it_cannot_tick():
    """A process forked after rtsnav's parallel kernels ran was ended by numba at its first
    crowd tick ("fork() called from a process already using GNU OpenMP": SIGTERM, and a
    ``multiprocessing.Pool`` waited for good). The tick now refuses with a ``NavError`` saying
    to start workers with ``spawn`` / ``forkserver`` (or, with another threading layer, runs)."""
    import os

    def tick(crowd: Crowd) -> None:
        crowd.update(1 / 30)

    crowd = Crowd(Grid(np.ones((64, 64), dtype=bool)), cache_dir=None)
    crowd.add_agents(np.random.default_rng(0).uniform(1, 63, (6000, 2)), avoidance=True)
    tick(crowd)                                                 # the parallel kernels have run here
    pid = os.fork()
    if pid == 0:                                                # the child: report by exit status only
        try:
            tick(crowd)
            os._exit(0)
        except NavError as e:
            os._exit(3 if "spawn" in str(e) else 4)
        except BaseException:
            os._exit(5)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) in (0, 3), os.waitstatus_to_exitcode(status)
