"""The thread-count policy of the parallel kernels (``kernels/threads.py``): busy cores and a
call site that measured one thread faster run on one thread; free cores keep all of them."""

from __future__ import annotations

import os

import numba
import pytest

from rtsnav.systems.nav.kernels import threads
from rtsnav.systems.nav.kernels.threads import FIRST_TRY, LAST_TRY, Choice, free_cores, threads_for


def test_free_cores_reads_a_sane_number():
    value = free_cores()
    assert 0.0 <= value <= (os.cpu_count() or 1)


def _feed(choice: Choice, seconds: dict[bool, float], calls: int) -> list[bool]:
    ways = []
    for _ in range(calls):
        way = choice.parallel()
        choice.record(way, seconds[way], 1000)
        ways.append(way)
    return ways


def test_a_choice_takes_the_faster_way_and_tries_the_other_less_often_as_it_keeps_losing():
    choice = Choice()
    ways = _feed(choice, {True: 1.0, False: 2.0}, 400)
    assert ways[:4] == [True, True, False, False]          # each way measured (its first call not counted)
    assert ways[-100:].count(True) >= 97                   # the faster, with rare tries
    assert choice.gap > FIRST_TRY and choice.gap <= LAST_TRY
    flipped = _feed(choice, {True: 5.0, False: 2.0}, 2 * LAST_TRY + 20)   # all threads stall now
    assert flipped[-10:] == [False] * 10


def test_an_explicit_one_thread_is_kept_and_busy_cores_give_one(monkeypatch):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one core")
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        with threads_for(10**6, "test-explicit"):
            assert numba.get_num_threads() == 1
        numba.set_num_threads(2)
        monkeypatch.setattr(threads, "free_cores", lambda: 0.3)
        with threads_for(10**6, "test-busy"):
            assert numba.get_num_threads() == 1
        assert numba.get_num_threads() == 2                # restored after the block
        monkeypatch.setattr(threads, "free_cores", lambda: 2.0)
        with threads_for(10**6):                           # no call site: all threads on free cores
            assert numba.get_num_threads() == 2
        with threads_for(10):                              # small work: one
            assert numba.get_num_threads() == 1
    finally:
        numba.set_num_threads(before)
