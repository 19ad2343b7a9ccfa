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


def pytest_configure(config):
    """The suite's workers share the cores: each runs numba's parallel kernels on one thread (two
    workers of two threads each on two cores made every test ~60% slower). A test of the
    threaded kernels asks for its threads itself."""
    if hasattr(config, "workerinput"):
        import numba

        numba.set_num_threads(1)


def pytest_sessionstart(session):
    """On an empty numba cache, compile every kernel once, in two processes, before the suite's
    workers start (each worker would otherwise compile all of them itself)."""
    if hasattr(session.config, "workerinput"):
        return
    from rtsnav.systems.nav.crowd.warmup import kernels_compiled

    if not kernels_compiled():
        import time

        from rtsnav.systems.nav.crowd.precompile_worker import main

        t0 = time.perf_counter()
        print("\ncompiling rtsnav's kernels into numba's cache (two processes)...", flush=True)
        main(["all", "uniform", "cost+heights"])
        print(f"compiled in {time.perf_counter() - t0:.0f} s", flush=True)
