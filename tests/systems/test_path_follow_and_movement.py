"""Following a path (waypoints, arrival, events) and moving without ever entering a wall."""

from __future__ import annotations

import math

import esper
import numpy as np
import pytest

from rtsnav.components import NavigationAgent, Position, Velocity
from rtsnav.systems import Navigation, install
from rtsnav.systems.nav import Grid
from rtsnav.systems.nav.steering.movement import move_agents
from tests.conftest import ascii_grid
from tests.systems.conftest import assert_no_agent_in_wall


def test_agent_arrives_without_overshoot_and_events_come_in_order(event_log):
    grid = ascii_grid("""
..........
..........
#######...
..........
""")
    nav = Navigation(grid)
    install(nav)
    target = (0.5, 3.5, 0.0)
    e = esper.create_entity(Position(0.5, 0.5), Velocity(),
                            NavigationAgent(target_position=target, max_speed=7.0, target_desired_distance=0.05))
    positions = []
    for _ in range(400):
        esper.process(1 / 60)
        positions.append(esper.component_for_entity(e, Position).as_tuple())
        assert_no_agent_in_wall(nav)
    agent = esper.component_for_entity(e, NavigationAgent)
    assert agent.is_target_reached()
    kinds = [k for k, *_ in event_log.log if k != "velocity_computed"]
    assert kinds[0] == "path_changed" and kinds[-2:] == ["target_reached", "navigation_finished"]
    assert kinds.count("target_reached") == 1
    assert event_log.of("waypoint_reached", e)
    # after arrival it stands still exactly: no oscillation around the target
    final = positions[-1]
    assert math.hypot(final[0] - target[0], final[1] - target[1]) <= 0.05
    assert len(set(positions[-50:])) == 1
    assert esper.component_for_entity(e, Velocity).as_tuple() == (0.0, 0.0, 0.0)


def test_velocity_computed_is_one_batched_event_per_tick(event_log, arena):
    install(Navigation(arena))
    for y in range(5, 10):
        esper.create_entity(Position(*arena.cell_to_world(3, y)), Velocity(),
                            NavigationAgent(target_position=arena.cell_to_world(40, 30)))
    esper.process(1 / 60)
    esper.process(1 / 60)
    batches = event_log.of("velocity_computed")
    assert len(batches) == 2 and batches[-1][1] == 5


def test_velocity_is_clamped_to_max_speed_and_agents_slide_along_walls():
    passable = np.ones((5, 5), dtype=bool)
    passable[:, 3] = False                        # a wall at x in [3, 4)
    pos = np.array([[2.5, 1.5, 0.0], [2.5, 1.5, 0.0]])
    vel = np.array([[100.0, 30.0, 0.0], [1.0, 0.0, 0.0]])
    move_agents(pos, vel, np.array([50.0, 10.0]), 0.1, Grid(passable).view)
    assert pos[0, 0] < 3.0 and pos[0, 1] > 1.5        # stopped at the wall face, slid along y
    assert math.hypot(*vel[0, :2]) <= 50.0 + 1e-9
    assert pos[1, 0] == pytest.approx(2.6)


def test_fast_agents_do_not_tunnel_through_thin_walls():
    passable = np.ones((3, 40), dtype=bool)
    passable[:, 20] = False
    pos = np.array([[1.5, 1.5, 0.0]])
    vel = np.array([[1000.0, 0.0, 0.0]])
    move_agents(pos, vel, np.array([1000.0]), 0.1, Grid(passable).view)
    assert pos[0, 0] < 20.0


def test_diagonal_moves_never_slip_between_corner_touching_walls():
    grid = ascii_grid("""
.#
#.
""")
    rng = np.random.default_rng(0)
    pos = np.tile([[0.5, 0.5, 0.0]], (200, 1)) + np.c_[rng.uniform(-0.4, 0.4, (200, 2)), np.zeros(200)]
    vel = np.tile([[3.0, 3.0, 0.0]], (200, 1))
    for _ in range(50):
        move_agents(pos, vel, np.full(200, 5.0), 0.05, grid.view)
        vel[:] = (3.0, 3.0, 0.0)
    assert (pos[:, :2] < 1.0).all()                  # all stuck in the first cell, none through


def test_random_velocities_never_put_an_agent_in_a_wall(arena):
    rng = np.random.default_rng(2)
    cells = np.argwhere(arena.passable)[:, ::-1]
    start = cells[rng.integers(0, len(cells), 500)]
    pos = np.c_[arena.cells_to_world(start)[:, :2], np.zeros(500)]
    for _ in range(300):
        vel = np.c_[rng.normal(0, 6, (500, 2)), np.zeros(500)]
        move_agents(pos, vel, np.full(500, 8.0), 1 / 30, arena.view)
        c = arena.world_to_cells(pos)
        assert arena.passable[c[:, 1], c[:, 0]].all()


def test_heights_set_z_while_moving():
    heights = np.tile(np.arange(6, dtype=np.float32), (3, 1))
    grid = Grid(np.ones((3, 6), dtype=bool), heights=heights)
    nav = Navigation(grid)
    install(nav)
    e = esper.create_entity(Position(0.5, 1.5), Velocity(), NavigationAgent(target_position=(5.5, 1.5, 0),
                                                                         target_desired_distance=0.1))
    for _ in range(200):
        esper.process(1 / 30)
    pos = esper.component_for_entity(e, Position)
    assert esper.component_for_entity(e, NavigationAgent).is_target_reached()
    assert pos.z == 5.0
