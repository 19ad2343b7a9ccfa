"""Godot ``NavigationAgent3D`` members added for games that plug rtsnav in (issue 37): velocity
input, avoidance priority / layers / mask, per-agent avoidance values, the closest reachable
point, re-set targets, path length and result, and the limits on returned paths."""

from __future__ import annotations

import math

import esper
import numpy as np
import pytest

from rtsnav.components import NavigationAgent, NavState, Position, Velocity
from rtsnav.systems import Navigation, install
from rtsnav.systems.nav import Grid
from rtsnav.systems.nav.crowd import Crowd, CrowdConfig

DT = 1 / 30


def _open(w=80, h=40):
    return Grid(np.ones((h, w), dtype=bool))


def test_an_agent_without_target_walks_at_its_velocity_and_deflects_head_on(world):
    install(Navigation(_open()), prepare=False)
    a = NavigationAgent(max_speed=4.0, radius=0.5, avoidance_enabled=True)
    b = NavigationAgent(max_speed=4.0, radius=0.5, avoidance_enabled=True)
    ea = esper.create_entity(Position(5.5, 20.0), Velocity(), a)
    eb = esper.create_entity(Position(60.5, 20.0), Velocity(), b)
    computed = []
    def on_velocities(entities, velocities):
        computed.append(len(entities))

    esper.set_handler("velocity_computed", on_velocities)   # (esper keeps handlers by weak reference)
    pa, pb = esper.component_for_entity(ea, Position), esper.component_for_entity(eb, Position)
    closest, xs = math.inf, []
    for tick in range(300):
        a.velocity = (3.0, 0.0, 0.0)                    # the game sets it every tick, as in Godot
        b.velocity = (-3.0, 0.0, 0.0)
        esper.process(DT)
        closest = min(closest, math.hypot(pa.x - pb.x, pa.y - pb.y))
        xs.append(pa.x)
    assert abs((xs[80] - xs[20]) / (60 * DT) - 3.0) < 0.15       # 3 units / s in open space (±5%)
    assert closest >= 0.9 * 1.0                                  # never closer than 0.9 × the radii sum
    assert pa.x > pb.x                                           # they passed each other
    assert computed and computed[-1] == 2 and a.state is NavState.IDLE


def test_velocity_is_capped_and_none_stops_the_input():
    crowd = Crowd(_open())
    ids = crowd.add_agents([(5.5, 5.5)], max_speed=2.0)
    crowd.inputs.set_velocity(ids, (10.0, 0.0))
    for _ in range(30):
        crowd.update(DT)
    assert crowd.positions[0, 0] == pytest.approx(5.5 + 2.0, abs=0.05)
    crowd.inputs.set_velocity(ids, None)
    crowd.update(DT)
    before = crowd.positions[0, 0]
    crowd.update(DT)
    assert crowd.positions[0, 0] == before
    with pytest.raises(Exception, match="velocity"):
        crowd.inputs.set_velocity(ids, (math.nan, 0.0))


def _crossing(mask_a: int, mask_b: int):
    """Two streams of 8 crossing at right angles, on avoidance layers 1 and 2."""
    crowd = Crowd(_open(60, 60))
    east = crowd.add_agents([(5.5, 28.0 + 1.2 * k) for k in range(4)] + [(3.0, 28.6 + 1.2 * k) for k in range(4)],
                            radius=0.5, max_speed=3.0, avoidance=True)
    north = crowd.add_agents([(28.0 + 1.2 * k, 5.5) for k in range(4)] + [(28.6 + 1.2 * k, 3.0) for k in range(4)],
                             radius=0.5, max_speed=3.0, avoidance=True)
    s = crowd.agents
    s.agent_layers[east, 0], s.agent_layers[east, 1] = 1, mask_a
    s.agent_layers[north, 0], s.agent_layers[north, 1] = 2, mask_b
    crowd.inputs.set_velocity(east, (3.0, 0.0))
    crowd.inputs.set_velocity(north, (0.0, 3.0))
    closest = math.inf
    for _ in range(450):
        crowd.update(DT)
        p = crowd.positions
        d = np.hypot(*(p[east, None, :2] - p[None, north, :2]).transpose(2, 0, 1))
        closest = min(closest, float(d.min()))
    return closest


def test_masks_that_exclude_each_other_ignore_each_other_and_overlapping_ones_keep_apart():
    assert _crossing(2, 1) >= 0.9                     # each avoids the other's layer: spaced
    assert _crossing(1, 2) < 0.5                      # neither avoids the other: they walk through


def test_a_high_priority_unit_walks_through_idle_low_priority_units():
    crowd = Crowd(_open(60, 30))
    idle = crowd.add_agents([(x + 0.5, y + 0.5) for x in range(20, 30, 2) for y in range(10, 20, 2)],
                            radius=0.4, max_speed=3.0, avoidance=True)
    walker = crowd.add_agents([(5.5, 15.0)], radius=0.4, max_speed=3.0, avoidance=True)
    crowd.agents.avoidance_params[idle, 0] = 0.0
    crowd.agents.avoidance_params[walker, 0] = 1.0
    crowd.move(walker, (50.5, 15.0), "astar")
    for _ in range(10):
        crowd.update(DT)
    x0 = crowd.positions[walker[0], 0]
    for _ in range(240):
        crowd.update(DT)
    speed = (crowd.positions[walker[0], 0] - x0) / (240 * DT)
    assert speed >= 0.9 * 3.0 or crowd.states[walker[0]] == NavState.FINISHED


_PLANNERS = ["astar", "jps", "navmesh", "waypoints", "hierarchy", "flowfield"]
_WHERE = ["wall", "water", "island", "off the map"]


@pytest.mark.parametrize("planner, where", [
    # the fast suite: every planner once and every kind of place once; all 24 in the slow one
    pytest.param(p, w, marks=() if j == i % len(_WHERE) else pytest.mark.slow)
    for i, p in enumerate(_PLANNERS) for j, w in enumerate(_WHERE)])
def test_unreachable_targets_walk_to_the_closest_reachable_point(planner, where):
    passable = np.ones((30, 40), dtype=bool)
    passable[:, 20:23] = False                         # a river
    passable[12:18, 30:33] = False                     # a block on the far side
    passable[5:8, 8:11] = False                        # a wall block on our side
    grid = Grid(passable)
    crowd = Crowd(grid, CrowdConfig(navmesh_radius=0.0), cache_dir=None)
    ids = crowd.add_agents([(3.5, 15.5), (3.5, 17.5)], max_speed=5.0)
    target, closest = {"wall": ((9.5, 6.5), None), "water": ((21.5, 15.5), (19.5, 15.5)),
                       "island": ((35.5, 25.5), (19.5, 25.5)), "off the map": ((10.5, -30.0), (10.5, 0.5))}[where]
    crowd.move(ids, target, planner)
    finished = []
    for _ in range(600):
        ev = crowd.update(DT)
        finished += ev.reached.tolist()
    assert sorted(set(finished)) == sorted(ids.tolist())
    p = crowd.positions[ids, :2]
    if closest is None:                                 # a wall block: the nearest open cell beside it
        cells = np.argwhere(passable)[:, ::-1] + 0.5
        closest = cells[np.argmin(np.hypot(*(cells - np.array(target)).T))]
    assert np.hypot(*(p - np.array(closest)).T).max() <= 1.5 * 1.0 + 0.8   # within 1.5 cells (+ the crowding)
    assert all(crowd.agents.failure_reason_of(i) for i in ids)


def test_fail_mode_keeps_the_old_behaviour():
    passable = np.ones((20, 30), dtype=bool)
    passable[:, 15] = False
    crowd = Crowd(Grid(passable), CrowdConfig(unreachable="fail"))
    ids = crowd.add_agents([(2.5, 10.5)])
    crowd.move(ids, (25.5, 10.5), "astar")
    failed = []
    for _ in range(5):
        failed += crowd.update(DT).failed.tolist()
    assert failed == [0] and crowd.states[0] == NavState.FAILED


def test_setting_the_same_target_again_plans_again_without_stopping(world):
    install(Navigation(_open()), prepare=False)
    agent = NavigationAgent(target_position=(70.5, 20.5, 0.0), max_speed=4.0)
    e = esper.create_entity(Position(3.5, 20.5), Velocity(), agent)
    paths = []
    def on_path(entity, path):
        paths.append(len(path))

    esper.set_handler("path_changed", on_path)             # (esper keeps handlers by weak reference)
    for _ in range(10):
        esper.process(DT)
    first = len(paths)
    pos = esper.component_for_entity(e, Position)
    x = pos.x
    for _ in range(10):
        agent.target_position = (70.5, 20.5, 0.0)        # every tick, as Godot scripts often do
        esper.process(DT)
    assert len(paths) > first                            # re-queried
    assert pos.x > x + 1.0 and agent.state is NavState.FOLLOWING   # and it never stopped


def test_distance_next_position_length_and_result(world):
    install(Navigation(_open()), prepare=False)
    agent = NavigationAgent(target_position=(20.5, 10.5, 0.0), max_speed=5.0)
    esper.create_entity(Position(2.5, 10.5), Velocity(), agent)
    assert agent.distance_to_target() == pytest.approx(18.0)          # before the first tick
    assert agent.get_next_path_position() == (2.5, 10.5, 0.0)
    for _ in range(3):
        esper.process(DT)
    assert agent.get_path_length() == pytest.approx(18.0, abs=0.01)
    result = agent.get_current_navigation_result()
    assert result.reachable and result.path_length == pytest.approx(18.0, abs=0.01) and len(result.path_types) == len(result.path)
    assert agent.get_navigation_map() is not None and agent.get_rid() >= 0
    for _ in range(200):
        esper.process(DT)
    assert agent.is_target_reached()
    here = agent.get_next_path_position()                  # after arrival: its own position
    assert here is not None and math.hypot(here[0] - 20.5, here[1] - 10.5) <= 1.0


def test_returned_path_limits_cut_the_path(world):
    install(Navigation(_open()), prepare=False)
    agent = NavigationAgent(target_position=(60.5, 10.5, 0.0), path_return_max_length=10.0)
    other = NavigationAgent(target_position=(60.5, 10.5, 0.0), path_return_max_radius=7.0)
    esper.create_entity(Position(2.5, 10.5), Velocity(), agent)
    esper.create_entity(Position(2.5, 12.5), Velocity(), other)
    for _ in range(3):
        esper.process(DT)
    assert agent.get_path_length() == pytest.approx(10.0, abs=0.01)
    end = other.path[-1]
    assert math.hypot(end[0] - 2.5, end[1] - 12.5) == pytest.approx(7.0, abs=0.05)
    assert not agent.is_target_reachable()


def test_members_validate_their_input():
    agent = NavigationAgent()
    for name, bad in [("avoidance_priority", 1.5), ("avoidance_layers", -1), ("navigation_layers", 2 ** 33),
                      ("max_neighbors", 0), ("neighbor_distance", 0.0), ("time_horizon_agents", math.nan),
                      ("path_return_max_length", -1.0), ("path_postprocessing", "funnel"), ("velocity", (1.0,))]:
        with pytest.raises(ValueError, match=name.split("_")[0]):
            setattr(agent, name, bad)
    with pytest.raises(ValueError, match="layer_number"):
        agent.set_navigation_layer_value(33, True)
    with pytest.raises(TypeError, match="did you mean 'avoidance_mask'"):
        NavigationAgent(avoidance_mast=3)
    agent.set_avoidance_mask_value(3, True)
    assert agent.avoidance_mask == 0b101 and agent.get_avoidance_mask_value(3)


LAYERED_PLANNERS = ["astar", "jps", "jps+", "bidirectional", "dstar-lite", "navmesh", "waypoints", "hierarchy",
                    "flowfield", "leader", "potential"]


@pytest.mark.parametrize("planner", [p if p in ("astar", "navmesh", "leader", "flowfield")
                                     else pytest.param(p, marks=pytest.mark.slow) for p in LAYERED_PLANNERS])
def test_a_region_on_another_navigation_layer_is_entered_only_by_agents_on_it(planner):
    grid = _open(40, 30)
    road = np.argwhere(np.ones((20, 10), dtype=bool))[:, ::-1] + (15, 5)      # x 15..24, y 5..24
    grid.set_layers(road, 0b10)                                               # vehicles only (layer 2)
    crowd = Crowd(grid, CrowdConfig(navmesh_radius=0.0, rebuild_worker=False), cache_dir=None)
    infantry = crowd.add_agents([(3.5, 15.5)], max_speed=6.0)
    vehicle = crowd.add_agents([(3.5, 13.5)], max_speed=6.0)
    crowd.agents.agent_layers[vehicle, 2] = 0b11
    crowd.move(infantry, (36.5, 15.5), planner)
    crowd.move(vehicle, (36.5, 13.5), planner)
    inside = {0: 0, 1: 0}
    arrived: set[int] = set()
    for _ in range(900):
        arrived |= set(crowd.update(DT).reached.tolist())
        if planner in ("navmesh", "waypoints", "hierarchy") and crowd.level.for_layers(1).rebuilds.stale:
            crowd.finish_rebuilds()                  # (the mask's structure, baked off the tick)
        for k, i in ((0, int(infantry[0])), (1, int(vehicle[0]))):
            x, y = crowd.positions[i, :2]
            inside[k] += int(15.2 < x < 24.8 and 5.2 < y < 24.8)
    assert arrived == {int(infantry[0]), int(vehicle[0])}
    assert inside[0] == 0                                 # infantry walked round the road
    assert inside[1] > 0                                  # the vehicle drove over it


def test_find_path_filters_by_navigation_layers():
    from rtsnav.systems.nav import find_path

    grid = _open(20, 10)
    grid.set_layers(np.array([[10, y] for y in range(10)]), 0b10)              # a wall of layer-2 cells
    assert not find_path(grid, (2, 5), (17, 5), navigation_layers=0b01).found
    assert find_path(grid, (2, 5), (17, 5), navigation_layers=0b11).found
    assert find_path(grid, (2, 5), (17, 5)).found                             # no filter: every cell
    with pytest.raises(Exception, match="layers"):
        grid.set_layers(np.array([[0, 0]]), -1)


def test_a_moving_obstacle_is_kept_at_its_radius_plus_the_agents(world):
    from rtsnav.components import NavigationObstacle

    install(Navigation(_open(60, 40)), prepare=False)
    walkers = [NavigationAgent(target_position=(55.5, 18.0 + 1.5 * k, 0.0), max_speed=3.0, radius=0.4,
                               avoidance_enabled=True) for k in range(4)]
    bodies = [Position(4.5, 18.0 + 1.5 * k) for k in range(4)]
    for body, agent in zip(bodies, walkers):
        esper.create_entity(body, Velocity(), agent)
    rock = NavigationObstacle(radius=1.5, velocity=(0.0, 2.0, 0.0))
    where = Position(30.0, 5.0)
    esper.create_entity(where, rock)
    closest = math.inf
    for _ in range(600):
        where.y += 2.0 * DT                                 # the game moves it
        esper.process(DT)
        for body in bodies:
            closest = min(closest, math.hypot(body.x - where.x, body.y - where.y) / (1.5 + 0.4))
    assert closest >= 0.9
    assert all(agent.is_target_reached() for agent in walkers)


def test_a_carving_obstacle_closes_its_cells_moves_units_out_and_reopens_when_gone(world):
    from rtsnav.components import NavigationObstacle

    nav = Navigation(_open(40, 20))
    install(nav, prepare=False)
    moved = []

    def on_displaced(entity, position):
        moved.append(entity)

    esper.set_handler("displaced", on_displaced)            # (esper keeps handlers by weak reference)
    inside = esper.create_entity(Position(20.5, 10.5), Velocity(), NavigationAgent())
    esper.process(DT)
    assert nav.occupants(np.array([[20, 10]])) == [inside]
    wall = esper.create_entity(Position(20.0, 10.0), NavigationObstacle(
        vertices=[(-1.0, -10.0), (1.0, -10.0), (1.0, 7.0), (-1.0, 7.0)], affect_navigation_mesh=True,
        avoidance_enabled=False))
    walker = NavigationAgent(target_position=(36.5, 5.5, 0.0), max_speed=5.0)
    body = Position(3.5, 5.5)
    esper.create_entity(body, Velocity(), walker)
    esper.process(DT)
    assert not nav.grid.passable[5, 19] and not nav.grid.passable[16, 20] and nav.grid.passable[17, 20]
    assert moved == [inside] and not nav.grid.passable[10, 20]
    pos = esper.component_for_entity(inside, Position)
    assert nav.grid.passable[int(pos.y), int(pos.x)]
    highest = 0.0
    for _ in range(400):
        esper.process(DT)
        if 18.5 < body.x < 21.5:
            highest = max(highest, body.y)
    assert walker.is_target_reached() and highest > 16.5          # round the end of the outline
    esper.delete_entity(wall, immediate=True)
    esper.process(DT)
    assert nav.grid.passable[5, 19] and nav.grid.passable[10, 20]


def test_an_obstacle_changed_at_runtime_is_avoided_and_carved_as_it_now_is(world):
    """Godot applies a new radius or outline at once: so do the processors (they had kept the
    discs and cells made on the first tick), and a bad value set later is refused on the spot."""
    from rtsnav.components import NavigationObstacle

    nav = Navigation(_open(60, 30))
    install(nav, prepare=False)
    walker = NavigationAgent(target_position=(55.5, 15.0, 0.0), max_speed=3.0, radius=0.4, avoidance_enabled=True)
    body = Position(4.5, 15.0)
    esper.create_entity(body, Velocity(), walker)
    rock = NavigationObstacle(radius=0.5)
    esper.create_entity(Position(30.0, 15.3), rock)
    esper.process(DT)
    made = rock.revision
    rock.radius = 0.5                                          # the same value: nothing to remake
    assert rock.revision == made
    rock.radius = 3.0                                          # grown after its discs were made
    with pytest.raises(ValueError, match="NavigationObstacle.radius"):
        rock.radius = math.nan
    closest = math.inf
    for _ in range(900):
        esper.process(DT)
        closest = min(closest, math.hypot(body.x - 30.0, body.y - 15.3))
    assert walker.is_target_reached() and closest >= 0.9 * (3.0 + 0.4)
    wall = NavigationObstacle(vertices=[(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)],
                              affect_navigation_mesh=True, avoidance_enabled=False)
    esper.create_entity(Position(10.0, 10.0), wall)
    esper.process(DT)
    assert not nav.grid.passable[10, 10] and nav.grid.passable[10, 13]
    wall.vertices = [(-1.0, -1.0), (4.0, -1.0), (4.0, 1.0), (-1.0, 1.0)]   # stretched where it stands
    esper.process(DT)
    assert not nav.grid.passable[10, 13] and not nav.grid.passable[10, 10]
    with pytest.raises(ValueError, match="affect_navigation_mesh"):
        wall.affect_navigation_mesh = "no"                      # truthy: would have meant the opposite


def test_prepare_bakes_the_structures_of_a_navigation_layer_mask():
    grid = _open(40, 30)
    grid.set_layers(np.argwhere(np.ones((20, 10), dtype=bool))[:, ::-1] + (15, 5), 0b10)
    crowd = Crowd(grid, CrowdConfig(navmesh_radius=0.0, rebuild_worker=False), cache_dir=None)
    crowd.prepare(["navmesh", "hierarchy"], navigation_layers=[0b01], freeze_gc=False)
    layered = crowd.level.for_layers(0b01)
    assert layered is not crowd.level and layered.grid.passable.sum() == 40 * 30 - 200
    assert layered.structure("navmesh") is not None and layered.structure("hierarchy") is not None
    assert not layered.rebuilds.stale
