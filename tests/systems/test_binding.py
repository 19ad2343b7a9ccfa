"""A game that keeps its own ``@dataclass`` Position / Velocity binds them instead of ours."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import esper
import numpy as np
import pytest

from rtsnav.components import NavigationAgent, NavState
from rtsnav.systems import Navigation, events, install


@dataclass
class GamePosition:
    x: float
    y: float


@dataclass
class GameVelocity:
    vx: float = 0.0
    vy: float = 0.0


@dataclass
class Transform:
    px: float
    py: float
    pz: float = 0.0


class GameMovementProcessor(esper.Processor):
    """The game's own movement: moves its bodies by the safe velocity rtsnav reports."""

    def __init__(self) -> None:
        self.reported: dict[int, np.ndarray] = {}

    def on_velocity(self, entities, velocities) -> None:
        self.reported = dict(zip(entities.tolist(), velocities))

    def process(self, dt):
        for entity, (pos, vel) in esper.get_components(GamePosition, GameVelocity):
            pos.x += vel.vx * dt
            pos.y += vel.vy * dt


@pytest.fixture
def world():
    esper.switch_world("binding")
    yield
    esper.switch_world("default")
    esper.delete_world("binding")


def _in_wall(grid, x, y) -> bool:
    cx, cy = grid.world_to_cell(x, y)
    return not grid.passable[cy, cx]


def _open_cells(grid, count, seed):
    labels = grid.components()
    big = np.bincount(labels[labels >= 0]).argmax()
    ys, xs = np.nonzero(labels == big)
    pick = np.random.default_rng(seed).choice(len(xs), count, replace=False)
    return [(int(xs[i]) + 0.5, int(ys[i]) + 0.5) for i in pick]


def test_a_game_binds_its_own_dataclass_components_and_100_units_arrive(world, arena):
    install(Navigation(arena), position=GamePosition, velocity=GameVelocity, velocity_fields=("vx", "vy"),
            prepare=False)
    starts, goals = _open_cells(arena, 100, 1), _open_cells(arena, 100, 2)
    units = [(esper.create_entity(GamePosition(*s), GameVelocity(),
                                  NavigationAgent(target_position=(*g, 0.0), max_speed=8.0)), g)
             for s, g in zip(starts, goals)]
    for _ in range(1500):
        esper.process(1 / 30)
        for e, _ in units:
            p = esper.component_for_entity(e, GamePosition)
            assert not _in_wall(arena, p.x, p.y)
        if all(esper.component_for_entity(e, NavigationAgent).is_navigation_finished() for e, _ in units):
            break
    for e, goal in units:
        agent = esper.component_for_entity(e, NavigationAgent)
        pos = esper.component_for_entity(e, GamePosition)
        assert agent.is_target_reached(), (e, agent.state, agent.failure_reason)
        # the game's own component holds the new position
        assert math.hypot(pos.x - goal[0], pos.y - goal[1]) <= agent.target_desired_distance + 1e-9
        assert agent.distance_to_target() == pytest.approx(math.hypot(pos.x - goal[0], pos.y - goal[1]))


def test_other_attribute_names_and_teleports_are_read_every_tick(world, arena):
    nav = Navigation(arena)
    install(nav, position=Transform, position_fields=("px", "py", "pz"), prepare=False)
    t = Transform(3.5, 10.5)
    e = esper.create_entity(t, NavigationAgent(target_position=(12.5, 10.5, 0.0), max_speed=6.0))
    esper.process(1 / 30)
    esper.process(1 / 30)
    assert t.px > 3.5                       # moved, written back
    t.px, t.py = 20.5, 20.5                 # the game teleports its unit
    esper.process(1 / 30)
    agent = esper.component_for_entity(e, NavigationAgent)
    row = nav.agents.row_of[e]
    assert abs(nav.agents.position[row, 0] - 20.5) < 1.0
    assert agent.state in (NavState.FOLLOWING, NavState.PLANNING)


def test_godot_flow_rtsnav_computes_the_safe_velocity_and_the_game_moves(world, arena):
    install(Navigation(arena), position=GamePosition, velocity=GameVelocity, velocity_fields=("vx", "vy"),
            movement="game", prepare=False)
    mover = GameMovementProcessor()
    esper.add_processor(mover, priority=-100)          # after rtsnav
    esper.set_handler(events.VELOCITY_COMPUTED, mover.on_velocity)
    pos, vel = GamePosition(3.5, 10.5), GameVelocity()
    e = esper.create_entity(pos, vel, NavigationAgent(target_position=(40.5, 30.5, 0.0), max_speed=5.0))
    moved = False
    for _ in range(900):
        before = (pos.x, pos.y)
        mover.reported = {}
        esper.process(1 / 30)
        assert not _in_wall(arena, pos.x, pos.y)
        if e in mover.reported:
            reported = mover.reported[e]
            assert (vel.vx, vel.vy) == pytest.approx((reported[0], reported[1]))
            assert math.hypot(reported[0], reported[1]) <= 5.0 + 1e-9
            moved = moved or (pos.x, pos.y) != before
        if esper.component_for_entity(e, NavigationAgent).is_target_reached():
            break
    assert moved and esper.component_for_entity(e, NavigationAgent).is_target_reached()


def test_an_agent_without_a_readable_position_gets_a_warning_not_silence(world, arena):
    install(Navigation(arena), position=GamePosition, velocity=None, prepare=False)
    from rtsnav.components import Position

    esper.create_entity(Position(3.5, 10.5), NavigationAgent(target_position=(12.5, 10.5, 0.0)))
    with pytest.warns(RuntimeWarning, match="no GamePosition"):
        esper.process(1 / 30)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        esper.process(1 / 30)                    # once per entity, not every tick


def test_default_install_warns_about_a_navigation_agent_without_position(world, arena):
    install(Navigation(arena), prepare=False)
    esper.create_entity(GamePosition(1, 2), NavigationAgent(target_position=(12.5, 10.5, 0.0)))
    with pytest.warns(RuntimeWarning, match="no Position"):
        esper.process(1 / 30)


def test_bad_bindings_are_refused_at_install(world, arena):
    with pytest.raises(TypeError, match="position_fields"):
        install(Navigation(arena), position=GamePosition, position_fields=("x",), prepare=False)
    with pytest.raises(ValueError, match="movement"):
        install(Navigation(arena), movement="physics", prepare=False)
