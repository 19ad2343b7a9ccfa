"""Shared fixtures: benchmark maps (loaded once per session) and small helpers."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest

# Bakes made by the tests go to a scratch cache, never the developer's ~/.cache/rtsnav.
os.environ.setdefault("RTSNAV_CACHE_DIR", tempfile.mkdtemp(prefix="rtsnav-test-cache-"))

from rtsnav.levels import load_movingai_map, load_movingai_scenarios


@pytest.fixture(scope="session")
def arena():
    return load_movingai_map("arena.map")


@pytest.fixture(scope="session")
def cape():
    return load_movingai_map("AcrosstheCape.map")


def ascii_grid(text: str):
    """A Grid from a hand-drawn map: '#' blocked, '.' open, digits 1-9 = terrain cost."""
    from rtsnav.systems.nav import Grid

    rows = [r for r in text.strip("\n").splitlines()]
    passable = np.array([[c != "#" for c in r] for r in rows], dtype=bool)
    cost = np.array([[float(c) if c.isdigit() else 1.0 for c in r] for r in rows])
    return Grid(passable, cost)


def stratified_sample(scenarios, count: int):
    """A fixed sample spread evenly over the buckets (scenarios sorted by bucket)."""
    ordered = sorted(scenarios, key=lambda s: s.bucket)
    picks = np.linspace(0, len(ordered) - 1, count).round().astype(int)
    return [ordered[i] for i in picks]


@pytest.fixture(scope="session")
def scenario_sets():
    return {
        "arena": load_movingai_scenarios("arena.map.scen"),
        "rmtst01": load_movingai_scenarios("rmtst01.map.scen"),
        "AcrosstheCape": stratified_sample(load_movingai_scenarios("AcrosstheCape.map.scen"), 600),
    }


def pytest_collection_finish(session):
    """Start the installed-wheel test's long run (a fresh copy compiling its kernels) in the
    background when that test is selected: it uses the core the suite leaves idle."""
    if any(item.name == "test_installed_wheel_runs_beside_a_game_with_its_own_packages" for item in session.items):
        from tests.test_wheel import start_installed_run

        start_installed_run()
