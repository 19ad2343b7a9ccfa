"""Components: defaults, validation, and row binding that loses nothing."""

from __future__ import annotations

import math

import esper
import numpy as np
import pytest

from rtsnav.components import PLANNERS, Flock, NavigationAgent, NavState, Position, Velocity


def test_defaults_and_required_fields():
    assert Velocity().as_tuple() == (0.0, 0.0, 0.0)
    assert Position(1, 2).as_tuple() == (1.0, 2.0, 0.0)
    with pytest.raises(TypeError):
        Position()                                    # coordinates have no default
    a = NavigationAgent()
    assert a.target_position is None and a.max_speed == 4.0 and a.method == "astar"
    assert a.state is NavState.IDLE and a.path.shape == (0, 3) and a.get_next_path_position() is None
    f = Flock()
    assert f.group == 0 and f.radius > 0


@pytest.mark.parametrize("field, value", [
    ("max_speed", 0.0), ("max_speed", -1.0), ("max_speed", math.nan), ("radius", -0.1),
    ("path_desired_distance", 0.0), ("target_desired_distance", math.inf),
])
def test_bad_agent_settings_raise(field, value):
    with pytest.raises(ValueError, match=field):
        NavigationAgent(**{field: value})


def test_unknown_method_raises_and_lists_planners():
    with pytest.raises(ValueError, match="astar"):
        NavigationAgent(method="teleport")
    assert "navmesh" in PLANNERS and "hierarchy" in PLANNERS


def test_bad_flock_settings_raise():
    with pytest.raises(ValueError):
        Flock(radius=0)
    with pytest.raises(ValueError):
        Flock(separation=-1)


def test_target_accepts_2d_and_3d_points():
    assert NavigationAgent(target_position=(1, 2)).target_position == (1.0, 2.0, 0.0)
    assert NavigationAgent(target_position=(1, 2, 3)).target_position == (1.0, 2.0, 3.0)


def test_equality_and_repr_like_a_dataclass():
    assert Position(1, 2, 3) == Position(1, 2, 3) and Position(1, 2, 3) != Position(1, 2, 4)
    assert repr(Velocity(1, 0)) == "Velocity(x=1.0, y=0.0, z=0.0)"
    assert "max_speed=4.0" in repr(NavigationAgent())


def test_binding_moves_values_into_crowd_rows_and_back():
    from rtsnav.systems.nav.crowd import CrowdState

    state = CrowdState(capacity=2)
    comps = []
    for i in range(40):                               # forces the arrays to grow several times
        p, v, a = Position(i, 2 * i), Velocity(1, 0), NavigationAgent(max_speed=1 + i)
        (row,) = state.allocate(1)
        for c in (p, v, a):
            c.bind(state, int(row))
        comps.append((p, v, a, int(row)))
    assert state.alive_count == 40 and state.capacity >= 40
    p, v, a, row = comps[25]
    assert p.is_bound and p.as_tuple() == (25.0, 50.0, 0.0) and a.max_speed == 26.0
    p.x = 7.5                                         # writes go to the crowd row
    assert state.position[row, 0] == 7.5
    for c in comps[25][:3]:
        c.unbind()
    state.release([row])                              # ids stay stable: nobody is renumbered
    assert not p.is_bound and p.as_tuple() == (7.5, 50.0, 0.0) and a.max_speed == 26.0
    for i, (p2, _, a2, row2) in enumerate(comps):
        if i != 25:
            assert p2.as_tuple()[1] == 2.0 * i and a2.max_speed == 1 + i and p2.row == row2


def test_components_mirror_the_crowd_columns_and_codes():
    from rtsnav import names
    from rtsnav.components import Flock
    from rtsnav.components import navigation as cnav
    from rtsnav.systems.nav.crowd import state as core

    declared = {**Position.COLUMNS, **Velocity.COLUMNS, **NavigationAgent.COLUMNS, **Flock.COLUMNS}
    assert set(declared) == set(core.COLUMNS)
    for name, column in declared.items():
        dtype, width, _ = core.COLUMNS[name]
        assert column.dtype == np.dtype(dtype) and column.width == width, name
    # one vocabulary, defined once (rtsnav.names), is what both layers use
    assert PLANNERS is core.PLANNERS and NavState is core.NavState and cnav.columns is names
    for name in ("P_MAX_SPEED", "P_RADIUS", "P_PATH_DIST", "P_TARGET_DIST", "P_PATH_MAX",
                 "F_HAS_TARGET", "F_AVOIDANCE", "F_TARGET_DIRTY", "F_PAUSED"):
        assert getattr(core, name) == getattr(names, name), name


@pytest.mark.slow
def test_replacing_a_position_component_teleports_the_agent(arena):
    from rtsnav.systems import Navigation, install

    nav = Navigation(arena)
    install(nav)
    e = esper.create_entity(Position(3.5, 10.5), Velocity(), NavigationAgent())
    esper.process(1 / 60)
    old = esper.component_for_entity(e, Position)
    esper.add_component(e, Position(20.5, 20.5))
    esper.process(1 / 60)
    row = nav.agents.row_of[e]
    assert tuple(nav.agents.position[row]) == (20.5, 20.5, 0.0)
    assert not old.is_bound and old.as_tuple() == (3.5, 10.5, 0.0)


@pytest.mark.slow
def test_a_replaced_component_equal_in_value_is_bound_all_the_same(arena):
    """The registry compares identities, not values: components compare equal by value."""
    from rtsnav.systems import Navigation, install

    nav = Navigation(arena)
    install(nav)
    others = [esper.create_entity(Position(4.5 + i, 12.5), Velocity(), NavigationAgent()) for i in range(3)]
    e = esper.create_entity(Position(3.5, 10.5), Velocity(), NavigationAgent(), Flock(group=2))
    esper.process(1 / 60)
    old = esper.component_for_entity(e, Position)
    twin = Position(*old.as_tuple())
    assert twin == old
    esper.add_component(e, twin)
    esper.remove_component(e, Flock)
    esper.process(1 / 60)
    assert twin.is_bound and not old.is_bound
    assert nav.agents.flock_group[nav.agents.row_of[e], 0] == -1
    assert all(esper.component_for_entity(o, Position).is_bound for o in others)


def test_removing_the_agent_component_unregisters_the_entity(arena):
    from rtsnav.systems import Navigation, install

    nav = Navigation(arena)
    install(nav)
    e = esper.create_entity(Position(3.5, 10.5), Velocity(), NavigationAgent(max_speed=3))
    esper.process(1 / 60)
    agent = esper.remove_component(e, NavigationAgent)
    esper.process(1 / 60)
    assert nav.agents.alive_count == 0 and agent.max_speed == 3.0 and not agent.is_bound
