"""How many threads numba's parallel kernels use for a piece of work.

A parallel region waits for its slowest thread. On a small crowd the work is a fraction of a
millisecond and waking the pool costs more; on a shared machine — a game's render thread, other
programs — a worker held off its core stalls every region it is in: measured with every core
busy, a 1024² flow field took 16× and a 4096² one 46× their one-thread time. So:

* small work (under ``PARALLEL_ITEMS`` items) runs on the calling thread alone;
* big work runs on the cores that are actually free: ``free_cores`` reads the machine's CPU time
  (``/proc/stat``, less this process's own) at most every ``SAMPLE_S``; with less than
  ``MIN_FREE`` cores free the kernel runs on one thread;
* and each call site (``key``, per size: each doubling of the work apart) keeps the time per item
  it measured with all threads and with one (``Choice``), and takes the faster: a stall the CPU counters cannot see (a busy thread of
  the game's own process) turns it to one thread within a few calls. The losing way is tried
  again now and then, less often each time it loses again.

An explicit ``numba.set_num_threads(1)`` by the caller is kept: the choice only ever lowers it.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

import numba
import numpy as np

__all__ = ["threads_for", "PARALLEL_ITEMS", "free_cores", "Choice", "MIN_FREE", "forked_after_openmp", "FORKED_MESSAGE"]

#: Items (agents, cells) below which a parallel kernel runs on one thread.
PARALLEL_ITEMS = 5_000
#: With fewer cores than this free (other processes' load), big work runs on one thread.
MIN_FREE = 1.5
#: Seconds between two reads of the CPU counters.
SAMPLE_S = 0.1
#: Calls between tries of the losing way, at first and at most (it doubles each time it loses).
FIRST_TRY, LAST_TRY = 8, 512
#: Calls each way's figure is the median of.
WINDOW = 5

_CORES = os.cpu_count() or 1
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class _Counters:
    """The last CPU counters read and the free cores they gave."""

    def __init__(self) -> None:
        self.at = -1.0
        self.total = self.idle = self.own = 0.0
        self.free = float(_CORES)


_seen = _Counters()

#: Set in a process forked after numba's GNU OpenMP threading layer started: a parallel kernel
#: run here would make numba end the process (GNU OpenMP is not fork-safe), so it is refused.
_forked_after_openmp = False
FORKED_MESSAGE = ("rtsnav's parallel kernels cannot run in a process forked after they ran (numba's OpenMP "
                  "threading layer is not fork-safe: the process would be terminated); start workers with "
                  "multiprocessing.get_context('spawn') or 'forkserver', or set NUMBA_THREADING_LAYER=workqueue")


def _after_fork_in_child() -> None:
    global _forked_after_openmp
    try:
        from numba.np.ufunc import parallel

        if parallel._is_initialized and numba.threading_layer() == "omp":   # noqa: SLF001 (no public flag)
            from numba.np.ufunc import omppool  # type: ignore[attr-defined]  # (a compiled module)

            _forked_after_openmp = omppool.openmp_vendor == "GNU"
    except (ImportError, AttributeError, ValueError):        # another numba, or no layer yet: nothing to guard
        pass


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def forked_after_openmp() -> bool:
    """Whether this process was forked after numba's GNU OpenMP layer started: a parallel kernel
    here would make numba terminate it (callers refuse with ``FORKED_MESSAGE`` instead)."""
    return _forked_after_openmp


def _read() -> tuple[float, float, float] | None:
    """``(total, idle, own)`` CPU seconds: the machine's (all cores), its idle part, this process's."""
    try:
        with open("/proc/stat", "rb") as f:
            fields = f.readline().split()[1:]
        with open("/proc/self/stat", "rb") as f:
            own = f.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None
    ticks = [float(v) for v in fields[:8]]
    return sum(ticks) / _TICK, (ticks[3] + ticks[4]) / _TICK, (float(own[11]) + float(own[12])) / _TICK


def free_cores() -> float:
    """Cores not used by other processes, over the last ``SAMPLE_S`` or more (all of them where
    the counters cannot be read, and until a second read)."""
    now = time.monotonic()
    if now - _seen.at < SAMPLE_S:
        return _seen.free
    read = _read()
    if read is None:
        _seen.at = now
        return _seen.free
    total, idle, own = read
    span = total - _seen.total
    if _seen.at >= 0 and span > 0:
        others = max(0.0, (span - (idle - _seen.idle)) - (own - _seen.own))
        _seen.free = max(0.0, _CORES - _CORES * others / span)
    _seen.at, _seen.total, _seen.idle, _seen.own = now, total, idle, own
    return _seen.free


class Choice:
    """One call site's measured seconds per item with all threads and with one (the median of
    the last ``WINDOW`` calls each way; a way's first call, which may load its kernel, is not
    counted), and the way it takes: the faster, the other tried again after ``gap`` calls,
    the gap doubling while it keeps losing."""

    __slots__ = ("times", "first", "calls", "gap", "trying")

    def __init__(self) -> None:
        self.times: dict[bool, deque[float]] = {True: deque(maxlen=WINDOW), False: deque(maxlen=WINDOW)}
        self.first = {True: True, False: True}
        self.calls = 0
        self.gap = FIRST_TRY
        self.trying = False

    def _cost(self, parallel: bool) -> float:
        return float(np.median(self.times[parallel])) if self.times[parallel] else 0.0

    def parallel(self) -> bool:
        """Whether this call runs on all threads."""
        for way in (True, False):                          # each way measured first
            if not self.times[way]:
                self.trying = False
                return way
        best = self._cost(True) <= self._cost(False)
        self.calls += 1
        self.trying = self.calls >= self.gap
        return (not best) if self.trying else best

    def record(self, parallel: bool, seconds: float, items: int) -> None:
        """A call's time per item; a try that lost again makes the next wait longer."""
        if self.first[parallel]:
            self.first[parallel] = False
            return
        self.times[parallel].append(seconds / max(items, 1))
        if self.trying:
            self.calls = 0
            lost = self._cost(parallel) > self._cost(not parallel)
            self.gap = min(LAST_TRY, 2 * self.gap) if lost else FIRST_TRY
            self.trying = False


_choices: dict[str, Choice] = {}


@contextmanager
def threads_for(items: int, key: str | None = None) -> Iterator[None]:
    """Within the block, numba's parallel kernels use one thread for small work, for big work
    when the machine's cores are busy, and when ``key``'s call site measured one thread faster."""
    if _forked_after_openmp:            # the crowd's tick says so first (NavError); other callers get this
        raise RuntimeError(FORKED_MESSAGE)
    before = numba.get_num_threads()
    parallel = items >= PARALLEL_ITEMS and before > 1 and free_cores() >= MIN_FREE
    # one choice per call site and size (a doubling of the work is another case: a 4096² field
    # gains from threads where a 1024² one does not)
    choice = _choices.setdefault(f"{key}:{items.bit_length()}", Choice()) if parallel and key is not None else None
    if choice is not None:
        parallel = choice.parallel()
    if parallel and choice is None:
        yield
        return
    if not parallel:
        numba.set_num_threads(1)
    t0 = time.perf_counter()
    try:
        yield
    finally:
        if choice is not None:
            choice.record(parallel, time.perf_counter() - t0, items)
        if not parallel:
            numba.set_num_threads(before)
