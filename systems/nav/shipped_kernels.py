"""Kernels compiled ahead of time and shipped in the wheel (``make wheel``).

Numba compiles each kernel on first use (1–2½ minutes for all of them on 2 cores). A wheel built by
``make wheel`` carries them compiled: ``rtsnav/_kernels/`` holds numba's cache files of every
kernel, made by a practice run of each level kind at build time. This module tells numba to read
a kernel from there when that folder has it (before ``NUMBA_CACHE_DIR`` or ``__pycache__``);
numba checks each entry itself: the source file's content hash, numba's version, Python's version
and the CPU. On another CPU or numba version the shipped entry does not match and the kernel is
compiled on first use as without a wheel (``prepare`` says so and shows progress).

``RTSNAV_SHIP_KERNELS=1`` (set by the wheel build) sends every kernel there, compiled or not.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from numba.core import caching

#: The installed package (links not resolved: an editable install keeps its own path).
PACKAGE_ROOT = Path(os.path.abspath(__file__)).parents[2]
#: The folder of shipped kernels inside the installed package.
KERNELS_DIR = PACKAGE_ROOT / "_kernels"
BUILDING = os.environ.get("RTSNAV_SHIP_KERNELS") == "1"


def index_name(py_func, py_file: str) -> str:
    """The name numba gives the index file of ``py_func`` (see ``numba.core.caching.CacheImpl``)."""
    modname = os.path.splitext(os.path.basename(py_file))[0]
    qualname = getattr(py_func, "__qualname__", py_func.__name__).replace("<", "").replace(">", "")
    abiflags = getattr(sys, "abiflags", "")
    line = py_func.__code__.co_firstlineno
    return f"{modname}.{qualname}-{line}.py{sys.version_info[0]}{sys.version_info[1]}{abiflags}.nbi"


class ShippedKernelLocator(caching.InTreeCacheLocator):
    """Numba cache locator for rtsnav's own kernels found in ``KERNELS_DIR``."""

    def __init__(self, py_func, py_file: str, folder: Path):
        super().__init__(py_func, py_file)
        self._cache_path = str(folder)

    @classmethod
    def from_function(cls, py_func, py_file):
        """This locator when ``py_file`` is in the package and its kernel was shipped, else None."""
        try:
            relative = Path(os.path.abspath(py_file)).parent.relative_to(PACKAGE_ROOT)
        except ValueError:
            return None
        folder = KERNELS_DIR / relative
        if not BUILDING and not (folder / index_name(py_func, py_file)).exists():
            return None
        self = cls(py_func, py_file, folder)
        if BUILDING:
            try:
                self.ensure_cache_path()
            except OSError:
                return None
        return self


def register() -> None:
    """Put ``ShippedKernelLocator`` first among numba's locators (once; before kernels are defined)."""
    classes: list = caching.CacheImpl._locator_classes  # noqa: SLF001 (numba has no public setter)
    if ShippedKernelLocator not in classes:
        classes.insert(0, ShippedKernelLocator)


def shipped() -> bool:
    """Whether this installation carries compiled kernels (a wheel from ``make wheel``)."""
    return KERNELS_DIR.is_dir()


register()
