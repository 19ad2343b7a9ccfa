"""Eleventh hardening campaign: what a tick pays that a game does not expect — compiling,
baking, stalls in the first ticks of a crowd nobody prepared and in the ticks of big changes.
Each test failed on the code before its fix."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

_FIRST_TICKS = textwrap.dedent("""
    import json

    import numpy as np
    from numba.core import event
    from rtsnav.systems.nav import Crowd, CrowdConfig, Grid

    compiled = []

    class Compiles(event.Listener):
        def on_start(self, e):
            compiled.append(e.data["dispatcher"].py_func.__qualname__)

        def on_end(self, e):
            pass

    passable = np.ones((96, 96), dtype=bool)
    passable[10:86, 48] = False
    crowd = Crowd(Grid(passable), CrowdConfig(flow_mode="tiles"), cache_dir=None)
    for k, planner in enumerate(["flowfield", "leader", "astar", "potential"]):
        ids = crowd.add_agents([(5.5 + i, 20.5 + 15 * k) for i in range(8)], group=k + 1)
        crowd.move(ids, (90.5, 60.5 - 10 * k), planner=planner)
    event.register("numba:compile", Compiles())
    for _ in range(40):
        crowd.update(1 / 30)
    print("COMPILED", json.dumps(compiled))
""")


def _compiled_in_ticks() -> list[str]:
    out = subprocess.run([sys.executable, "-c", _FIRST_TICKS], capture_output=True, text=True, check=True).stdout
    (line,) = [text for text in out.splitlines() if text.startswith("COMPILED")]
    return json.loads(line.removeprefix("COMPILED "))


def test_an_unprepared_crowd_compiles_nothing_in_its_first_flow_field_ticks():
    """Sector fields are built over numba typed lists of the orders' maps; ``typed.List(...)``
    compiles the list's methods in every process (numba caches none of it): an unprepared
    crowd's first flow-field tick took 2.8 s on den520d (leader 3.2 s). The lists are now made
    by cached kernels, so once numba's disk cache holds rtsnav's kernels (the first run here
    fills it) a fresh process compiles nothing inside a tick."""
    _compiled_in_ticks()                       # fills numba's cache if this checkout has not yet
    assert _compiled_in_ticks() == []
