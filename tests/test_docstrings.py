"""Runnable ``>>>`` examples in the core modules' docstrings stay true."""

import doctest
import importlib

import pytest

MODULES = ["systems.nav.navmesh.mesh", "systems.nav.grid", "systems.nav.search.facade", "systems.nav.search.sliced", "systems.nav.paths",
           "systems.nav.waypoints.hierarchy", "systems.nav.waypoints.graph",
           "levels.movingai", "systems.nav.flow.field", "systems.nav.flow.sectors", "systems.nav.flow.corridor"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
