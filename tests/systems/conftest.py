"""ECS test fixtures: every test runs in its own fresh esper world (esper's state is global)."""

from __future__ import annotations

import itertools

import esper
import numpy as np
import pytest

_names = itertools.count()


@pytest.fixture(autouse=True)
def fresh_world():
    """Switch to a new, empty esper world for the test and delete it afterwards."""
    previous = esper.current_world
    name = f"rtsnav-test-{next(_names)}"
    esper.switch_world(name)
    yield name
    esper.switch_world(previous)
    esper.delete_world(name)


class EventLog:
    """Records rtsnav events (bound methods, because esper keeps weak references)."""

    def __init__(self) -> None:
        from rtsnav.systems import events

        self.log: list[tuple] = []
        for name in events.ALL:
            handler = getattr(self, "_" + name)
            esper.set_handler(name, handler)

    def _path_changed(self, entity, path):
        self.log.append(("path_changed", entity, path))

    def _waypoint_reached(self, entity, index, position):
        self.log.append(("waypoint_reached", entity, index))

    def _target_reached(self, entity):
        self.log.append(("target_reached", entity))

    def _navigation_finished(self, entity):
        self.log.append(("navigation_finished", entity))

    def _velocity_computed(self, entities, velocities):
        self.log.append(("velocity_computed", len(entities)))

    def _path_failed(self, entity, reason):
        self.log.append(("path_failed", entity, reason))

    def _link_reached(self, entity, kind, start, end):
        self.log.append(("link_reached", entity, kind))

    def _displaced(self, entity, position):
        self.log.append(("displaced", entity, position))

    def _stuck(self, entity):
        self.log.append(("stuck", entity))

    def of(self, kind: str, entity: int | None = None) -> list[tuple]:
        return [e for e in self.log if e[0] == kind and (entity is None or e[1] == entity)]


@pytest.fixture
def event_log():
    return EventLog()


def assert_no_agent_in_wall(navigation) -> None:
    table, grid = navigation.agents, navigation.grid
    positions = table.position[: table.count][table.alive[: table.count]]
    cells = grid.world_to_cells(positions)
    inside = (cells[:, 0] >= 0) & (cells[:, 0] < grid.width) & (cells[:, 1] >= 0) & (cells[:, 1] < grid.height)
    assert inside.all(), "an agent left the map"
    ok = grid.passable[cells[:, 1], cells[:, 0]]
    assert ok.all(), f"agent centre inside a blocked cell: {cells[~ok][:3].tolist()}"
    assert np.isfinite(positions).all()


@pytest.fixture
def world():
    """A fresh esper world for the test, the default one afterwards."""
    esper.switch_world("test-world")
    yield
    esper.switch_world("default")
    esper.delete_world("test-world")
