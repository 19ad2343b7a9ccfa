"""How many threads numba's parallel kernels use for a piece of work.

A parallel region waits for its slowest thread; on a small crowd the work is a fraction of a
millisecond and waking the pool costs more, and on a shared machine a worker held off its core
stalled the region for 3–4 ms every few ticks (500 flocking units on the highlands level). Small
work runs on the calling thread alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numba

__all__ = ["threads_for", "PARALLEL_ITEMS"]

#: Items (agents, cells) below which a parallel kernel runs on one thread.
PARALLEL_ITEMS = 5_000


@contextmanager
def threads_for(items: int) -> Iterator[None]:
    """Within the block, numba's parallel kernels use one thread when ``items`` is small."""
    if items >= PARALLEL_ITEMS:
        yield
        return
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(before)
