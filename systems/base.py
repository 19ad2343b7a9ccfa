"""Base class of rtsnav's processors: holds the ``Navigation`` and times each run."""

from __future__ import annotations

import time

import esper

from rtsnav import checks
from rtsnav.systems.nav import NavError

from .navigation import Navigation


class NavProcessor(esper.Processor):
    """An ``esper.Processor`` bound to one ``Navigation``; ``last_ms`` is its latest run time.

    Subclasses implement ``update(dt)``; ``process(dt)`` times it (``time.perf_counter``, so the
    numbers are finer than ``esper.timed_process``'s whole milliseconds).
    """

    def __init__(self, navigation: Navigation) -> None:
        self.navigation = navigation
        self.last_ms = 0.0
        self.total_ms = 0.0
        self.runs = 0

    def process(self, dt: float = 1 / 60, *args, **kwargs) -> None:
        t0 = time.perf_counter()
        self.update(checks.number(dt, "esper.process(dt): dt (seconds)", low=0.0, error=NavError))
        self.last_ms = (time.perf_counter() - t0) * 1e3
        self.total_ms += self.last_ms
        self.runs += 1

    def update(self, dt: float) -> None:  # pragma: no cover - abstract
        raise NotImplementedError
