"""Hardening, ninth campaign: what a game shares — one cache folder baked into from several threads,
(more below as found). Each test failed on the code before its fix."""

from __future__ import annotations

import threading
import warnings

import numpy as np

from rtsnav.systems.nav import Grid
from rtsnav.systems.nav.search.jps_plus import JumpTable


def test_threads_baking_one_cache_file_neither_tear_it_nor_call_the_folder_unwritable(tmp_path):
    """Two threads of one process wrote the same temporary file (its name carried only the pid):
    the loser's rename found nothing and warned that the folder could not be written."""
    rng = np.random.default_rng(3)
    passable = rng.random((48, 48)) > 0.25
    grid = Grid(passable)
    caught: list[str] = []

    def bake() -> None:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            JumpTable.cached(grid, tmp_path)
        caught.extend(str(w.message) for w in seen)

    for _ in range(6):
        for old in tmp_path.iterdir():
            old.unlink()
        threads = [threading.Thread(target=bake) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert caught == []
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []     # no scratch left
    with warnings.catch_warnings():
        warnings.simplefilter("error")                   # the file in place loads without a rebake
        JumpTable.cached(grid, tmp_path)
