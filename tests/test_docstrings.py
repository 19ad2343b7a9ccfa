"""Runnable ``>>>`` examples in the core modules' docstrings stay true."""

import doctest
import importlib

import pytest

MODULES = ["rtsnav.systems.nav.navmesh.mesh", "rtsnav.systems.nav.grid", "rtsnav.systems.nav.search.facade", "rtsnav.systems.nav.search.sliced", "rtsnav.systems.nav.search.paths",
           "rtsnav.systems.nav.waypoints.hierarchy", "rtsnav.systems.nav.waypoints.graph",
           "rtsnav.levels.movingai", "rtsnav.systems.nav.flow.field", "rtsnav.systems.nav.flow.sectors", "rtsnav.systems.nav.flow.corridor",
           "rtsnav.systems.nav.kernels.grid_dijkstra"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
