"""The shared validation layer (``rtsnav.checks``) and the entries that go through it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rtsnav import checks
from rtsnav.components import Flock, NavigationAgent, NavigationObstacle
from rtsnav.systems.nav import NavError

ODD = [math.nan, math.inf, -math.inf, "3", None, True, [1.0], b"1", object()]


@pytest.mark.parametrize("value", ODD)
def test_number_refuses_what_is_not_a_finite_number_and_names_it(value):
    with pytest.raises(NavError, match=r"^speed must be a finite number >= 0, got "):
        checks.number(value, "speed", low=0.0, error=NavError)


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6))
def test_number_keeps_exactly_the_values_in_range(x):
    inside = 0.0 < x <= 10.0
    if inside:
        assert checks.number(x, "x", low=0.0, high=10.0, low_open=True) == x
    else:
        with pytest.raises(ValueError, match=r"x must be a finite number in \(0, 10\]"):
            checks.number(x, "x", low=0.0, high=10.0, low_open=True)


@pytest.mark.parametrize("value", [1.0, 2.5, "2", True, np.bool_(True), None, -1, 2 ** 40])
def test_whole_number_wants_an_int_in_range(value):
    with pytest.raises(ValueError, match="count must be a whole number in"):
        checks.whole_number(value, "count", low=0, high=2 ** 32)


def test_point_and_points():
    assert checks.point([1, 2], "p") == (1.0, 2.0)
    for bad in ["ab", (1.0,), (1.0, math.nan), None, (1, 2, 3, 4)]:
        with pytest.raises(ValueError, match="p must be 2 or 3 finite numbers"):
            checks.point(bad, "p")
    assert checks.points((1.0, 2.0), "ps").shape == (1, 2)
    with pytest.raises(ValueError, match="row 1 is not finite"):
        checks.points([[0, 0], [0, math.inf]], "ps")
    with pytest.raises(ValueError, match=r"got shape \(2, 4\)"):
        checks.points(np.zeros((2, 4)), "ps")


def test_indices_refuse_negative_out_of_range_and_float_indexes():
    np.testing.assert_array_equal(checks.indices([0, 4], "edges", 5), [0, 4])
    for bad, said in [([0, -1], "got -1"), ([5], "got 5"), ([0.5], "dtype float64"), ("x", "dtype <U1")]:
        with pytest.raises(ValueError, match=said):
            checks.indices(bad, "edges", 5)


def test_choice_and_keys_suggest_the_closest():
    assert checks.choice("astar", "method", ("astar", "jps")) == "astar"
    with pytest.raises(ValueError, match="did you mean 'astar'"):
        checks.choice("astr", "method", ("astar", "jps"))
    with pytest.raises(KeyError, match="orders: unknown key 'traget' .did you mean 'target'"):
        checks.known_keys({"tick": 1, "traget": 2}, ("tick", "target"), "orders", error=KeyError)


def test_components_refuse_through_the_shared_checks():
    agent = NavigationAgent()
    for name, value in [("max_speed", 0.0), ("radius", "wide"), ("time_horizon_agents", 0.0),
                        ("max_neighbors", 2.5), ("avoidance_layers", -1), ("path_max_distance", math.nan)]:
        with pytest.raises(ValueError, match=f"NavigationAgent.{name}"):
            setattr(agent, name, value)
    agent.avoidance_priority = 0.0                      # the lowest priority is a priority
    with pytest.raises(ValueError, match="Flock.cohesion must be a finite number >= 0"):
        Flock(cohesion=math.nan)
    for kwargs, said in [({"radius": "big"}, "radius"), ({"velocity": (1.0, math.nan)}, "velocity"),
                         ({"vertices": [(0, 0), (1, 0)]}, "vertices must be empty or at least 3"), ({"vertices": "abc"}, "vertices"),
                         ({"avoidance_layers": 2 ** 33}, "avoidance_layers")]:
        with pytest.raises(ValueError, match=f"NavigationObstacle.{said}"):
            NavigationObstacle(**kwargs)


def test_a_valid_point_is_not_formatted_for_a_message_it_does_not_need():
    """The refusal's text is made only when refusing: a numpy point's repr cost ~0.1 ms a call,
    more than a short navmesh query itself."""

    class NoRepr(list):
        def __repr__(self):
            raise AssertionError("repr made for a valid point")

    assert checks.point(NoRepr([1.0, 2.0]), "p") == (1.0, 2.0)


def test_an_index_out_of_range_is_refused_in_the_callers_words():
    with pytest.raises(ValueError, match="^no agent with id 7$"):
        checks.indices([1, 7], "agent ids", 5, missing="no agent with id {}")
    with pytest.raises(ValueError, match="whole-number"):
        checks.indices([1.5], "agent ids", 5, missing="no agent with id {}")   # not an index at all
