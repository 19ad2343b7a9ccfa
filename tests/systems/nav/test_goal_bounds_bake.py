"""Goal bounds baked in chunks elsewhere (local processes, Dask), resumably, equal bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.levels import load_movingai_map
from rtsnav.systems.nav import NavError, find_path
from rtsnav.systems.nav.search import goal_bounds_bake
from rtsnav.systems.nav.search.goal_bounds import GoalBounds


@pytest.fixture(scope="module")
def grid():
    return load_movingai_map("random-64-64-20.map")


@pytest.fixture(scope="module")
def serial(grid):
    return GoalBounds.build(grid)


class Stop(Exception):
    pass


@pytest.mark.slow
def test_a_bake_in_local_processes_equals_the_serial_one_and_a_killed_bake_continues(grid, serial, tmp_path):
    parts = tmp_path / "parts"
    seen = []

    def kill_after_two_chunks(stage, done, total):
        seen.append(done)
        if len(seen) == 3:                                   # the start, then two chunks
            raise Stop

    with pytest.raises(Stop):
        GoalBounds.build(grid, kill_after_two_chunks, chunk=400, processes=2, parts_dir=parts)
    kept = sorted(parts.glob("part-*.npy"))
    assert len(kept) >= 2 and not list(parts.glob(".part-*"))       # whole chunks only
    resumed = []
    bounds = GoalBounds.build(grid, lambda s, d, t: resumed.append(d), chunk=400, processes=2, parts_dir=parts)
    assert resumed[0] == 400 * len(kept)                     # the kept chunks were not baked again
    assert resumed[-1] == int(grid.passable.sum())
    np.testing.assert_array_equal(bounds.boxes, serial.boxes)


def test_chunks_of_another_bake_or_of_the_wrong_shape_are_not_used(tmp_path):
    rows = goal_bounds_bake.empty_rows(5)
    store = goal_bounds_bake.ChunkStore(tmp_path, {"moves": "a", "chunk": 5})
    store.save(0, rows)
    store.save(1, rows[:3])
    again = goal_bounds_bake.ChunkStore(tmp_path, {"moves": "a", "chunk": 5})
    np.testing.assert_array_equal(again.load(0, 5), rows)
    assert again.load(1, 5) is None                                   # a wrong-sized chunk is baked again
    np.save(tmp_path / "part-000002.npy", rows.astype(np.int32))
    assert again.load(2, 5) is None                                   # and one of another dtype
    (tmp_path / "part-000003.npy").write_bytes(b"not numpy")
    assert again.load(3, 5) is None
    other = goal_bounds_bake.ChunkStore(tmp_path, {"moves": "b", "chunk": 5})   # another map's folder
    assert other.load(0, 5) is None and not list(tmp_path.glob("part-*"))


@pytest.mark.slow
def test_large_maps_are_cached_and_their_parts_removed(grid, serial, tmp_path, monkeypatch):
    import rtsnav.systems.nav.search.goal_bounds as module

    monkeypatch.setattr(module, "MAX_CELLS", 1000)                     # this map counts as large
    bounds = GoalBounds.cached(grid, tmp_path, processes=2)
    np.testing.assert_array_equal(bounds.boxes, serial.boxes)
    assert list(tmp_path.glob("goal_bounds_*.npz")) and not list(tmp_path.glob("*.parts"))
    s, g = (1, 1), (60, 62)
    assert find_path(grid, s, g, "jps+", goal_bounds=bounds).cost == pytest.approx(find_path(grid, s, g, "astar").cost)
    with pytest.raises(NavError, match="chunk must be"):
        goal_bounds_bake.bake_boxes(grid.move_masks(), grid.width + 2, np.array([0]), chunk=0)


@pytest.mark.slow
def test_a_bake_on_a_dask_cluster_equals_the_serial_one(grid, serial, monkeypatch):
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        bounds = GoalBounds.build(grid, chunk=700, client=client)
    np.testing.assert_array_equal(bounds.boxes, serial.boxes)
    import rtsnav.systems.nav.search.goal_bounds as module

    monkeypatch.setattr(module, "MAX_CELLS", 1000)          # large: the default is a LocalCluster
    started = []
    monkeypatch.setattr(distributed.LocalCluster, "__init__",
                        lambda self, *a, __init=distributed.LocalCluster.__init__, **k: (started.append(k),
                                                                                         __init(self, *a, **k))[1])
    default = GoalBounds.build(grid, chunk=700)
    assert started and started[0]["threads_per_worker"] == 1
    np.testing.assert_array_equal(default.boxes, serial.boxes)


def _levels_cli(*args) -> tuple[int, str, str]:
    import contextlib
    import io

    from rtsnav.levels.__main__ import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else 1
    return status, out.getvalue(), err.getvalue()


@pytest.mark.slow                     # a long scene: make test-slow
def test_levels_bake_takes_several_maps_and_refuses_a_scheduler_without_goal_bounds(tmp_path):
    status, out, _ = _levels_cli("bake", "random-64-64-20.map", "room-64-64-8.map", "--cache", str(tmp_path),
                                 "--goal-bounds")
    assert status == 0
    assert "== random-64-64-20.map" in out and "== room-64-64-8.map" in out
    assert out.count("goal bounds ready") == 2 and len(list(tmp_path.glob("goal_bounds_*.npz"))) == 2
    status, _, err = _levels_cli("bake", "river", "--scheduler", "tcp://127.0.0.1:9")
    assert status == 2 and "add --goal-bounds" in err


@pytest.mark.slow
def test_an_unreachable_scheduler_is_an_error(tmp_path):
    pytest.importorskip("dask.distributed")
    status, _, err = _levels_cli("bake", "random-64-64-20.map", "--cache", str(tmp_path), "--goal-bounds",
                                 "--scheduler", "tcp://127.0.0.1:9")
    assert status == 2 and "cannot reach the Dask scheduler" in err and "Traceback" not in err
