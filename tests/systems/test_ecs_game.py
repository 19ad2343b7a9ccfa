"""A game that has never heard of rtsnav installs it, and its units move.

The game has its own components (Health, Team) and processors (regeneration, a spawner); rtsnav
is added with ``install`` and must get every agent with a reachable target there within a tick
bound, fail every unreachable one with ``path_failed``, and never put an agent centre in a wall.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import esper
import numpy as np
import pytest

from rtsnav.components import NavigationAgent, NavState, Position, Velocity
from rtsnav.levels import load_movingai_map
from rtsnav.systems import Navigation, install
from rtsnav.systems.nav import CrowdConfig, find_path
from tests.systems.conftest import assert_no_agent_in_wall

DT = 1 / 30


@dataclass(slots=True)
class Health:
    hp: float = 100.0


@dataclass(slots=True)
class Team:
    name: str = "red"


class RegenerationProcessor(esper.Processor):
    """The game's own processor: it must keep running beside rtsnav's."""

    def process(self, dt):
        for _, health in esper.get_component(Health):
            health.hp = min(100.0, health.hp + 1.0)


class SpawnerProcessor(esper.Processor):
    """Spawns a non-agent entity now and then (esper's query cache is cleared each time)."""

    def __init__(self):
        self.ticks = 0

    def process(self, dt):
        self.ticks += 1
        if self.ticks % 25 == 0:
            esper.create_entity(Health(50.0), Team("neutral"))


def _run_game(map_name, agents=60, seed=1, speed=6.0):
    grid = load_movingai_map(map_name)
    nav = Navigation(grid, CrowdConfig(planning_units=50_000))
    esper.add_processor(RegenerationProcessor(), priority=100)
    esper.add_processor(SpawnerProcessor(), priority=-5)
    install(nav)
    reached, failed = set(), {}

    def on_reached(entity):
        reached.add(entity)

    def on_failed(entity, reason):
        failed[entity] = reason

    esper.set_handler("target_reached", on_reached)
    esper.set_handler("path_failed", on_failed)
    rng = np.random.default_rng(seed)
    cells = np.argwhere(grid.passable)[:, ::-1]
    expected = {}
    labels = grid.components()
    for k in range(agents):
        s, t = (tuple(int(v) for v in cells[i]) for i in rng.integers(0, len(cells), 2))
        if k % 5 == 0 and labels.max() > 0:
            # a target in another region: unreachable, must come back as path_failed
            others = cells[labels[cells[:, 1], cells[:, 0]] != labels[s[1], s[0]]]
            t = tuple(int(v) for v in others[rng.integers(0, len(others))])
        r = find_path(grid, s, t)
        e = esper.create_entity(Position(*grid.cell_to_world(*s)), Velocity(), Health(10.0), Team("blue"),
                                NavigationAgent(target_position=grid.cell_to_world(*t), max_speed=speed))
        expected[e] = r.cost if r.found else None
    reachable = [e for e, c in expected.items() if c is not None]
    longest = max(expected[e] for e in reachable)
    # walking time at max_speed along the grid path (smoothing only shortens it), plus slack
    bound = int(math.ceil(1.25 * longest * grid.cell_size / speed / DT)) + 90
    for _ in range(bound):
        esper.process(DT)
        assert_no_agent_in_wall(nav)
        if len(reached) + len(failed) == agents:
            break
    return nav, expected, reached, failed


@pytest.mark.parametrize("map_name", ["arena.map", "rmtst01.map"])
def test_game_agents_reach_targets_or_fail_cleanly(map_name):
    nav, expected, reached, failed = _run_game(map_name)
    reachable = {e for e, c in expected.items() if c is not None}
    unreachable = set(expected) - reachable
    assert reached == reachable, f"{len(reachable - reached)} reachable agents did not arrive"
    assert set(failed) == unreachable
    for e in unreachable:                       # Godot's rule: on to the closest point, said unreachable
        assert "not reachable" in failed[e]
        agent = esper.component_for_entity(e, NavigationAgent)
        assert agent.state in (NavState.FOLLOWING, NavState.FINISHED)
        assert not agent.is_target_reachable() and not agent.is_target_reached()
    for e in reachable:
        pos = esper.component_for_entity(e, Position)
        agent = esper.component_for_entity(e, NavigationAgent)
        tx, ty, _ = agent.target_position
        assert math.hypot(pos.x - tx, pos.y - ty) <= agent.target_desired_distance + 1e-9
        assert agent.is_target_reached()


@pytest.mark.slow
def test_rmtst01_run_includes_unreachable_targets():
    _, expected, _, failed = _run_game("rmtst01.map", agents=60, seed=1)
    assert sum(c is None for c in expected.values()) >= 12 and len(failed) >= 12


def test_game_processors_still_run_beside_rtsnav():
    _run_game("arena.map", agents=5)
    healths = [h.hp for _, h in esper.get_component(Health)]
    assert healths and all(h > 10.0 for h in healths)
    assert any(t.name == "neutral" for _, t in esper.get_component(Team))
