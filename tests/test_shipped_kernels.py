"""Kernels compiled into the wheel: numba finds them first, and an installed wheel compiles nothing."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

from rtsnav.systems.nav import shipped_kernels
from rtsnav.systems.nav.search import astar

ROOT = Path(__file__).resolve().parents[1]


def test_the_shipped_locator_is_numbas_first_choice():
    from numba.core import caching

    assert caching.CacheImpl._locator_classes[0] is shipped_kernels.ShippedKernelLocator  # noqa: SLF001


def test_a_kernel_is_read_from_the_shipped_folder_only_when_it_was_shipped(tmp_path, monkeypatch):
    func = astar.astar_run.py_func
    py_file = func.__code__.co_filename
    monkeypatch.setattr(shipped_kernels, "KERNELS_DIR", tmp_path)
    assert shipped_kernels.ShippedKernelLocator.from_function(func, py_file) is None
    folder = tmp_path / Path(os.path.abspath(py_file)).parent.relative_to(shipped_kernels.PACKAGE_ROOT)
    folder.mkdir(parents=True)
    (folder / shipped_kernels.index_name(func, py_file)).write_bytes(b"")
    locator = shipped_kernels.ShippedKernelLocator.from_function(func, py_file)
    assert locator is not None and Path(locator.get_cache_path()) == folder
    # the same name numba gives the index (a mismatch would silently never find a shipped kernel)
    from numba.core.caching import CompileResultCacheImpl

    assert CompileResultCacheImpl(func).filename_base + ".nbi" == shipped_kernels.index_name(func, py_file)


def test_functions_outside_the_package_keep_numbas_own_locators(tmp_path):
    def outside():
        return 1

    assert shipped_kernels.ShippedKernelLocator.from_function(outside, str(tmp_path / "game.py")) is None


@pytest.mark.slow
def test_an_installed_wheel_from_make_wheel_compiles_no_kernel():
    """``make wheel``'s wheel in a new venv with an empty numba cache: a first path, ``install``
    with every planner and the demo's first frame load every kernel (nothing written to the cache)."""
    sys.path.insert(0, str(ROOT))
    from tests.benchmarks.cold_start import from_wheel
    from tools.build_wheel import build

    wheel = build(Path(tempfile.mkdtemp(prefix="rtsnav-dist-")))
    row = from_wheel(wheel)
    assert row["found"]
    assert "site-packages" in row["rtsnav"]
    assert row["first path: kernels compiled"] == 0
    assert row["install: kernels compiled"] == 0
    assert row["demo: kernels compiled"] == 0
