"""install/uninstall, processor order, several esper worlds, and determinism."""

from __future__ import annotations

import esper
import numpy as np
import pytest

from rtsnav.components import NavigationAgent, Position, Velocity
from rtsnav.levels import load_movingai_map
from rtsnav.systems import PROCESSOR_ORDER, Navigation, install, installed_processors, uninstall


def test_install_adds_every_processor_in_the_declared_order(arena):
    nav = Navigation(arena)
    handles = install(nav, priority_base=1000)
    assert [type(h) for h in handles] == [cls for cls, _ in PROCESSOR_ORDER]
    assert [p.priority for p in handles] == [1000 + off for _, off in PROCESSOR_ORDER]
    ours = [p for p in getattr(esper, "_processors") if p in handles]  # noqa: B009 - esper's run order
    assert ours == list(handles)                      # esper will run them in this order
    assert all(h.navigation is nav for h in handles)


def test_uninstall_removes_them_and_returns_the_navigation(arena):
    nav = Navigation(arena)
    install(nav)
    assert uninstall() is nav
    assert installed_processors() == () and uninstall() is None


@pytest.mark.slow
def test_installing_twice_replaces_the_first_installation(arena):
    install(Navigation(arena))
    nav2 = Navigation(arena)
    install(nav2)
    procs = installed_processors()
    assert len(procs) == len(PROCESSOR_ORDER) and all(p.navigation is nav2 for p in procs)


def test_install_rejects_something_else(arena):
    with pytest.raises(TypeError, match="Navigation"):
        install(arena)


def _spawn_some(grid, n, seed):
    rng = np.random.default_rng(seed)
    cells = np.argwhere(grid.passable)[:, ::-1]
    out = []
    for _ in range(n):
        s, t = (cells[i] for i in rng.integers(0, len(cells), 2))
        out.append(esper.create_entity(Position(*grid.cell_to_world(*s)), Velocity(),
                                       NavigationAgent(target_position=grid.cell_to_world(*t),
                                                       max_speed=float(rng.uniform(2, 8)))))
    return out


@pytest.mark.slow
def test_two_worlds_run_side_by_side_without_sharing_state(fresh_world, arena):
    other = load_movingai_map("room-64-64-8.map")
    nav_a = Navigation(arena)
    install(nav_a)
    ents_a = _spawn_some(arena, 20, 1)
    got = {"a": 0, "b": 0}

    class Counter:
        def __init__(self, key):
            self.key = key

        def on_changed(self, entity, path):
            got[self.key] += 1

    ca, cb = Counter("a"), Counter("b")
    esper.set_handler("path_changed", ca.on_changed)
    esper.switch_world("rtsnav-second")
    try:
        nav_b = Navigation(other)
        install(nav_b)
        esper.set_handler("path_changed", cb.on_changed)
        _spawn_some(other, 7, 2)
        for _ in range(5):
            esper.switch_world(fresh_world)
            esper.process(1 / 60)
            esper.switch_world("rtsnav-second")
            esper.process(1 / 60)
        assert nav_a.agents.count == 20 and nav_b.agents.count == 7
        assert got == {"a": 20, "b": 7}
        assert set(nav_a.agents.row_of) == set(ents_a)
    finally:
        esper.switch_world(fresh_world)
        esper.delete_world("rtsnav-second")


def _run_seeded(world, seed, ticks):
    esper.switch_world(world)
    grid = load_movingai_map("arena.map")
    nav = Navigation(grid)
    install(nav)
    ents = _spawn_some(grid, 40, seed)
    spawned = np.array([esper.component_for_entity(e, Position).as_tuple() for e in ents])
    rng = np.random.default_rng(seed + 1)
    cells = np.argwhere(grid.passable)[:, ::-1]
    for tick in range(ticks):
        if tick % 200 == 199:                     # fresh orders now and then
            for e in ents[::3]:
                agent = esper.component_for_entity(e, NavigationAgent)
                agent.target_position = grid.cell_to_world(*cells[rng.integers(0, len(cells))])
        esper.process(1 / 60)
    final = np.array([esper.component_for_entity(e, Position).as_tuple() for e in ents])
    return spawned, final


@pytest.mark.slow
def test_same_seed_gives_bit_identical_positions_after_1000_ticks(fresh_world):
    try:
        spawned, a = _run_seeded("rtsnav-det-a", 5, 1000)
        _, b = _run_seeded("rtsnav-det-b", 5, 1000)
    finally:
        esper.switch_world(fresh_world)
        for w in ("rtsnav-det-a", "rtsnav-det-b"):
            if w in esper.list_worlds():
                esper.delete_world(w)
    assert a.tobytes() == b.tobytes()
    moved = np.hypot(*(a - spawned)[:, :2].T) > 1.0
    assert moved.sum() >= 30                       # the runs really did something
