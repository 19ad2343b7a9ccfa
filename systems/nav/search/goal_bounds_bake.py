"""Goal bounds of any size: the per-cell Dijkstra searches in chunks on Dask or local processes.

The bake is one Dijkstra search per passable cell, each independent of the others: quadratic in
the map (a 1024² map of 137,000 open cells is ~14 min on two cores, one of 754,000 open cells
~7 h), the one job in rtsnav that outgrows a machine. ``bake_boxes`` splits the source cells into
chunks and runs them

- on ``client``, a ``dask.distributed.Client`` (a real cluster: ``Client("tcp://host:8786")``),
- else on a Dask ``LocalCluster`` of this machine's cores when Dask is installed
  (``pip install rtsnav[bake]``),
- else in local processes (``concurrent.futures``), one per core.

Finished chunks are written to ``parts_dir`` as they arrive (``part-000012.npy``, each written
whole then renamed into place), so a killed bake continues with the chunks it lacks. Each row is
its source's own search, so the boxes equal the in-process build bit for bit whatever the
split. Memory: 64 bytes per padded cell for the result (8 boxes of 4 ``int16``), plus per worker
about 40 bytes per padded cell of search scratch.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import numba
import numpy as np
from numba import njit, prange

from ..errors import NavError
from ..kernels.first_moves import first_moves_begin, relax_first_moves, widen_boxes
from ..kernels.heap import CLOSED, NOT_IN_HEAP, heap_pop, heap_push
from ..kernels.steps import SQRT2

__all__ = ["bake_boxes", "bake_chunk", "build_rows", "row_blocks", "empty_rows", "ChunkStore"]

#: Stage name the progress callback receives.
STAGE = "Dijkstra per cell"


@njit(cache=True, parallel=True)
def build_rows(moves, wp, sources, rows, blocks):
    """Fill ``rows[k, move] = (min x, min y, max x, max y)`` (padded coordinates; empty boxes
    have min > max) for node ``sources[k]`` (padded flat ids): each row is one source's own
    Dijkstra search, so any split of the sources into chunks (or ``blocks``, the pieces the
    threads take: ``row_blocks``) gives the same rows."""
    n = moves.shape[0]
    count = sources.shape[0]
    for b in prange(blocks):
        # one set of search arrays per block, reused by its sources: allocating them per source
        # (n entries each) made a 1024² map's bake spend half its time in the kernel's page faults
        g, first, stamp, pos, keys, nodes, size = first_moves_begin(n, 0)
        offs = np.array((1, -1, wp, -wp, wp + 1, wp - 1, -wp + 1, -wp - 1))
        lo_x = np.empty(8, dtype=np.int64)
        lo_y = np.empty(8, dtype=np.int64)
        hi_x = np.empty(8, dtype=np.int64)
        hi_y = np.empty(8, dtype=np.int64)
        for k in range(b * count // blocks, (b + 1) * count // blocks):
            src = sources[k]
            stamp[:] = False                # the only array read before written: g, first, pos
            stamp[src] = True               # of a node are set when it is first reached
            g[src] = 0.0
            pos[src] = NOT_IN_HEAP
            size = heap_push(keys, nodes, pos, 0, 0.0, src)
            lo_x[:] = 1 << 14
            lo_y[:] = 1 << 14
            hi_x[:] = -1
            hi_y[:] = -1
            while size > 0:
                u, size = heap_pop(keys, nodes, pos, size)
                pos[u] = CLOSED
                fu = first[u]
                if u != src:
                    widen_boxes(fu, 8, u % wp, u // wp, lo_x, lo_y, hi_x, hi_y)
                mu = moves[u]
                gu = g[u]
                for m in range(8):
                    if (mu >> m) & 1 == 0:
                        continue
                    label = np.uint64(1) << np.uint64(m) if u == src else fu
                    size = relax_first_moves(u + offs[m], gu + (SQRT2 if m >= 4 else 1.0),   # uniform grids only
                                             label, 1e-9, g, first, stamp, pos, keys, nodes, size)
            for m in range(8):
                rows[k, m, 0] = lo_x[m]
                rows[k, m, 1] = lo_y[m]
                rows[k, m, 2] = hi_x[m]
                rows[k, m, 3] = hi_y[m]


def row_blocks(count: int) -> int:
    """How many pieces ``build_rows`` splits ``count`` sources into: a few per thread."""
    return max(1, min(count, 4 * numba.get_num_threads()))


def empty_rows(count: int) -> np.ndarray:
    """``count`` rows of 8 empty boxes (min > max)."""
    rows = np.empty((count, 8, 4), dtype=np.int16)
    rows[:, :, 0:2] = 1 << 14
    rows[:, :, 2:4] = -1
    return rows


def bake_chunk(moves: np.ndarray, wp: int, sources: np.ndarray) -> np.ndarray:
    """The boxes of ``sources`` (padded flat ids), one row each, on one thread: a worker is one
    of as many as there are cores, and more threads per worker would fight over them."""
    import numba

    numba.set_num_threads(1)
    rows = empty_rows(len(sources))
    build_rows(moves, wp, np.ascontiguousarray(sources, dtype=np.int64), rows, row_blocks(len(sources)))
    return rows


class ChunkStore:
    """The finished chunks of one bake in a folder, with ``job.json`` naming the bake they belong
    to (a folder left by another map or chunk size is emptied first)."""

    def __init__(self, folder: str | Path, job: dict) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        stamp = self.folder / "job.json"
        try:
            same = json.loads(stamp.read_text()) == job
        except (OSError, ValueError):
            same = False
        if not same:
            for part in self.folder.glob("part-*.npy"):
                part.unlink()
            stamp.write_text(json.dumps(job))

    def _path(self, index: int) -> Path:
        return self.folder / f"part-{index:06d}.npy"

    def load(self, index: int, count: int) -> np.ndarray | None:
        """Chunk ``index`` when it is on disk whole (``count`` rows of int16 boxes), else None."""
        path = self._path(index)
        if not path.is_file():
            return None
        try:
            rows = np.load(path, allow_pickle=False)
        except (OSError, ValueError):
            return None
        return rows if rows.shape == (count, 8, 4) and rows.dtype == np.int16 else None

    def save(self, index: int, rows: np.ndarray) -> None:
        """Write chunk ``index`` whole, then rename it into place (a kill leaves no half file)."""
        tmp = self.folder / f".part-{index:06d}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            np.save(f, rows, allow_pickle=False)
        os.replace(tmp, self._path(index))

    def remove(self) -> None:
        """Delete the folder (the finished bake is saved elsewhere)."""
        shutil.rmtree(self.folder, ignore_errors=True)


def job_key(moves: np.ndarray, wp: int, sources: np.ndarray, chunk: int) -> dict:
    """What identifies a bake: the map's moves, its width, the sources and the chunk size."""
    h = hashlib.sha256(np.ascontiguousarray(moves).tobytes())
    h.update(np.ascontiguousarray(sources, dtype=np.int64).tobytes())
    return {"format": 1, "moves": h.hexdigest(), "wp": int(wp), "sources": int(len(sources)), "chunk": int(chunk)}


def bake_boxes(moves: np.ndarray, wp: int, sources: np.ndarray, *, chunk: int = 2048, client=None,
               processes: int | None = None, parts_dir: str | Path | None = None,
               progress: Callable[[str, int, int], None] | None = None) -> np.ndarray:
    """``(len(sources), 8, 4)`` boxes of ``sources``, baked in chunks of ``chunk`` sources (see the
    module docstring for where they run); chunks already in ``parts_dir`` are not baked again.
    ``processes``: how many local processes when Dask is not used (default: the cores)."""
    if chunk < 1:
        raise NavError(f"chunk must be a whole number >= 1, got {chunk!r}")
    sources = np.ascontiguousarray(sources, dtype=np.int64)
    spans = [(lo, min(lo + chunk, len(sources))) for lo in range(0, len(sources), chunk)]
    out = empty_rows(len(sources))
    store = ChunkStore(parts_dir, job_key(moves, wp, sources, chunk)) if parts_dir is not None else None
    todo = []
    for index, (lo, hi) in enumerate(spans):
        rows = store.load(index, hi - lo) if store is not None else None
        if rows is None:
            todo.append(index)
        else:
            out[lo:hi] = rows
    done = len(sources) - sum(spans[i][1] - spans[i][0] for i in todo)
    if progress is not None:
        progress(STAGE, done, len(sources))
    if todo:
        chunks = {i: sources[spans[i][0]:spans[i][1]] for i in todo}
        for index, rows in _run(moves, wp, chunks, client, processes):
            lo, hi = spans[index]
            out[lo:hi] = rows
            if store is not None:
                store.save(index, rows)
            done += hi - lo
            if progress is not None:
                progress(STAGE, done, len(sources))
    return out


def _run(moves, wp, chunks: dict[int, np.ndarray], client, processes) -> Iterator[tuple[int, np.ndarray]]:
    """``(chunk index, rows)`` as the chunks finish, on the chosen runner."""
    if client is not None:
        yield from _on_dask(client, moves, wp, chunks)
        return
    cores = os.cpu_count() or 1
    if processes is None:
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            pass
        else:
            import logging

            logging.getLogger("distributed").setLevel(logging.ERROR)
            with LocalCluster(n_workers=cores, threads_per_worker=1, processes=True, dashboard_address=None,
                              silence_logs=logging.ERROR) as cluster, Client(cluster) as local:
                yield from _on_dask(local, moves, wp, chunks)
            return
    yield from _in_processes(moves, wp, chunks, processes or cores)


def _on_dask(client, moves, wp, chunks) -> Iterator[tuple[int, np.ndarray]]:
    from dask.distributed import as_completed

    shared = client.scatter(moves, broadcast=True)       # one copy per worker, not one per chunk
    futures = {client.submit(bake_chunk, shared, wp, sources, pure=False): index for index, sources in chunks.items()}
    for future in as_completed(futures):
        yield futures[future], future.result()


def _in_processes(moves, wp, chunks, processes: int) -> Iterator[tuple[int, np.ndarray]]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    # spawn, not fork: a forked child of a process running numba's thread pool can hang
    pool = ProcessPoolExecutor(max_workers=processes, mp_context=multiprocessing.get_context("spawn"))
    try:
        futures = {pool.submit(bake_chunk, moves, wp, sources): index for index, sources in chunks.items()}
        for future in as_completed(futures):
            yield futures[future], future.result()
    finally:                # stopped early (an error, a kill of the caller): drop the queued chunks
        pool.shutdown(wait=True, cancel_futures=True)
