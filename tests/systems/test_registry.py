"""The agent registry after world changes: new and deleted entities at once, everything else
(replaced components, a NavigationAgent added to an old entity) within its sweep."""

from __future__ import annotations

import math

import esper
import numpy as np
import pytest

from rtsnav.components import Flock, NavigationAgent, Position, Velocity
from rtsnav.systems import Navigation, install
from rtsnav.systems.nav import CrowdConfig, Grid
from rtsnav.systems.registry import AgentRegistryProcessor


class Tag:
    """A component of the game's own (a selection marker)."""


@pytest.fixture
def world(monkeypatch):
    monkeypatch.setattr(AgentRegistryProcessor, "SWEEP_PER_TICK", 7)      # sweeps over many ticks
    nav = Navigation(Grid(np.ones((40, 40), dtype=bool)), CrowdConfig(rebuild_worker=False))
    install(nav, prepare=False)
    return nav


def _agent(x=5.5, y=5.5):
    return (Position(x, y), Velocity(), NavigationAgent())


def _agents_in_world() -> set[int]:
    return {e for e, _ in esper.get_components(NavigationAgent, Position)}


def _bound_right(nav) -> bool:
    """Every agent's row is bound to the very components its entity has now."""
    for entity, agent_id in nav.id_of.items():
        pos, vel, agent, flock = nav.components[agent_id]
        if (pos is not esper.component_for_entity(entity, Position) or agent is not esper.component_for_entity(
                entity, NavigationAgent) or vel is not esper.try_component(entity, Velocity)
                or flock is not esper.try_component(entity, Flock)):
            return False
    return True


def test_spawns_and_deletes_are_registered_in_the_same_tick(world):
    nav = world
    ents = [esper.create_entity(*_agent()) for _ in range(60)]
    esper.process(1 / 30)
    assert set(nav.id_of) == set(ents)
    new = [esper.create_entity(*_agent()) for _ in range(3)]
    esper.process(1 / 30)
    assert set(nav.id_of) == set(ents) | set(new)
    for e in ents[10:13]:                       # delayed deletes: esper drops them in process()
        esper.delete_entity(e)
    esper.process(1 / 30)
    assert set(nav.id_of) == _agents_in_world()
    esper.delete_entity(ents[20], immediate=True)
    esper.create_entity(*_agent())               # a spawn and a delete in one tick
    esper.process(1 / 30)
    assert set(nav.id_of) == _agents_in_world()
    assert int(nav.crowd.alive.sum()) == len(nav.id_of)


def test_other_changes_are_found_by_the_sweep_within_its_ticks(world):
    nav = world
    ents = [esper.create_entity(*_agent()) for _ in range(50)]
    plain = [esper.create_entity(Position(3.5, 3.5)) for _ in range(5)]
    esper.process(1 / 30)
    esper.add_component(ents[4], Position(9.5, 9.5))          # replaced on an agent
    esper.add_component(ents[7], Flock(group=2))              # joined a flock
    esper.add_component(plain[1], NavigationAgent())          # an old entity becomes an agent
    esper.add_component(ents[9], Tag())
    ticks = math.ceil(len(_agents_in_world()) / AgentRegistryProcessor.SWEEP_PER_TICK) + 2
    for _ in range(ticks):
        esper.process(1 / 30)
    assert set(nav.id_of) == _agents_in_world() and _bound_right(nav)
    assert nav.crowd.positions[nav.id_of[ents[4]], :2].tolist() == [9.5, 9.5]


def test_random_changes_keep_the_registry_right(world):
    """Random spawns, deletes, component swaps and tags: spawned and deleted entities are right
    after every tick, everything after a sweep's worth of quiet ticks."""
    nav = world
    rng = np.random.default_rng(4)
    ents = [esper.create_entity(*_agent()) for _ in range(40)]
    for tick in range(200):
        alive = list(_agents_in_world())
        op = rng.integers(6)
        if op == 0:
            ents.append(esper.create_entity(*_agent(*rng.uniform(1, 39, 2))))
        elif op == 1 and alive:
            esper.delete_entity(int(rng.choice(alive)), immediate=bool(rng.integers(2)))
        elif op == 2 and alive:
            esper.add_component(int(rng.choice(alive)), Position(*rng.uniform(1, 39, 2)))
        elif op == 3 and alive:
            esper.add_component(int(rng.choice(alive)), Tag())
        elif op == 4 and alive:
            e = int(rng.choice(alive))
            esper.delete_entity(e, immediate=True)
            esper.create_entity(*_agent())
        esper.process(1 / 30)
        assert set(nav.id_of) == _agents_in_world(), f"tick {tick}"
    for _ in range(20):
        esper.process(1 / 30)
    assert set(nav.id_of) == _agents_in_world() and _bound_right(nav)
    assert int(nav.crowd.alive.sum()) == len(nav.id_of)
