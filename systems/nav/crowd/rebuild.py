"""Structures that follow map edits off the tick: the navmesh, the waypoint graph and the
hierarchy are rebuilt from the edited grid in a worker process while the game goes on.

Recast and Detour rebuild tiles on a worker thread; with Python's GIL a thread would take its
time from the tick, so the worker here is a process (``python -m ...rebuild_worker``, one per game
process, started on the first rebuild or by ``prepare``; numba limited to one thread there so the
game keeps its core). A request carries the grid's arrays and the structure's parameters; the
reply is the pickled structure, swapped in at the start of the first tick after it arrives
(its arrays travel in shared memory and are mapped, not copied: see ``pack_structure``).
Meanwhile the crowd plans those agents on the grid (A*, exact on the edited map), and a later
edit supersedes a rebuild in flight. Measured rebuild times (one worker core): the river level
30 ms, the 512² highlands 0.5–0.7 s, a 1024² map 0.3–4 s.

The same bakes run in-process (``bake_structure``) where no worker is wanted
(``CrowdConfig.rebuild_worker = False``: rebuilt by ``Crowd.finish_rebuilds``, e.g. on a
loading screen).
"""

from __future__ import annotations

import atexit
import mmap
import os
import pickle
import queue
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np

from rtsnav import checks

from ..errors import NavError
from ..grid import Grid

__all__ = ["RebuildWorker", "first_query", "StructureRebuilds", "bake_structure", "grid_snapshot", "structure_request",
           "waypoint_seed"]

KINDS = ("hierarchy", "navmesh", "waypoints")     # rebuilt in this order: quickest first

#: Per calling thread (numba's thread count is the thread's own): how many crowds wait on the
#: worker, and the count to give back when the last is done. One count per crowd let two
#: crowds rebuilding at once leave numba on one thread for good (the second saved the first's 1).
_HOLDS: dict[int, list[int]] = {}
_HOLDS_LOCK = threading.Lock()


def _hold_one_core() -> None:
    """While the worker bakes on one core, this thread's parallel kernels keep to the other."""
    with _HOLDS_LOCK:
        hold = _HOLDS.setdefault(threading.get_ident(), [0, numba.get_num_threads()])
        if hold[0] == 0:
            hold[1] = numba.get_num_threads()
            numba.set_num_threads(1)
        hold[0] += 1


def _release_core(thread: int) -> None:
    with _HOLDS_LOCK:
        hold = _HOLDS.get(thread)
        if hold is None or hold[0] == 0:
            return
        hold[0] -= 1
        if hold[0] == 0 and thread == threading.get_ident():
            numba.set_num_threads(hold[1])


def waypoint_seed(grid: Grid) -> tuple[int, int]:
    """The flood seed of the crowd's waypoint graph: the open cell of the largest region
    nearest that region's centre."""
    labels = grid.components()
    big = np.bincount(labels[labels >= 0]).argmax()
    cells = np.argwhere(labels == big)[:, ::-1]
    return tuple(int(v) for v in cells[np.argmin(np.hypot(*(cells - cells.mean(axis=0)).T))])  # type: ignore[return-value]


def first_query(planner, grid: Grid, three_d: bool) -> None:
    """One query between two far cells of the largest region: lazy per-structure tables are
    built now rather than in the first order's tick."""
    labels = grid.components()
    if not (labels >= 0).any():
        return
    big = np.bincount(labels[labels >= 0]).argmax()
    ys, xs = np.nonzero(labels == big)
    a, b = (int(xs[0]), int(ys[0])), (int(xs[-1]), int(ys[-1]))
    if three_d:
        planner.find_path(grid.cell_to_world(*a), grid.cell_to_world(*b))
    else:
        planner.find_path(a, b)


def structure_request(kind: str, grid: Grid, params: dict, snapshot: dict | None = None) -> dict:
    """What a rebuild needs: the grid's arrays (copies: the game may edit on; ``snapshot``
    shares one copy between the requests of one edit) and parameters."""
    arrays = snapshot if snapshot is not None else grid_snapshot(grid)
    return {"kind": kind, **arrays, "params": dict(params)}


def grid_snapshot(grid: Grid) -> dict:
    """Copies of the grid's arrays (no cost layer for a uniform grid: ~8 MB less at 1024²)."""
    return {"passable": grid.passable.copy(), "cost": None if grid.is_uniform else grid.cost.copy(),
            "heights": None if grid.heights is None else grid.heights.copy(), "cell_size": grid.cell_size,
            "origin": tuple(grid.origin)}


def bake_structure(request: dict):
    """Build the structure a ``structure_request`` describes (in the worker, or in-process), with
    one first query made, so the lazy tables queries build are made here too (as ``prepare``
    does), not in the game's first query after the swap."""
    grid = Grid(request["passable"], request["cost"], request["heights"], cell_size=request["cell_size"],
                origin=request["origin"])
    kind, params, cache = request["kind"], request["params"], request.get("cache_dir")
    built: Any
    if kind == "navmesh":
        from ..navmesh import NavMesh
        from ..navmesh.mesh_bounds import MeshGoalBounds

        built = NavMesh.cached(grid, cache, **params) if cache else NavMesh.from_grid(grid, **params)
        if cache:     # goal bounds ``levels bake --goal-bounds`` made for this mesh, as ``LevelCache.navmesh``
            built.goal_bounds = MeshGoalBounds.baked(built, cache)
    elif kind == "waypoints":
        from ..waypoints.graph import WaypointGraph
        from ..waypoints.graph_bounds import GraphGoalBounds

        seed = waypoint_seed(grid)
        built = (WaypointGraph.cached_floodfill(grid, cache, seed, **params) if cache
                 else WaypointGraph.floodfill(grid, seed, **params))
        if cache:
            built.goal_bounds = GraphGoalBounds.baked(built, cache)
    elif kind == "hierarchy":
        from ..waypoints.hierarchy import Hierarchy

        built = Hierarchy.cached(grid, cache, **params) if cache else Hierarchy.build(grid, **params)
    else:
        raise ValueError(f"unknown structure {kind!r}; expected one of {KINDS}")
    first_query(built, grid, three_d=kind != "hierarchy")
    return built.compact() if kind == "hierarchy" else built


#: The longest wait ``finish`` passes on, seconds (1e300 overflowed the platform's time_t).
_LONGEST_WAIT = 86_400.0
#: The ticket of the worker's first message: imports done, ready for requests.
READY = -1


def _write(stream, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<Q", len(data)))
    stream.write(data)
    stream.flush()


def pack_structure(obj) -> tuple[bytes, str, list[tuple[int, int]]]:
    """Pickle ``obj`` with its arrays out of band (protocol 5) in one file in shared memory
    (``/dev/shm`` where there is one): the game maps them instead of copying ~30 MB through a
    pipe and unpickling it inside a tick."""
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
    folder = "/dev/shm" if os.path.isdir("/dev/shm") else None
    fd, path = tempfile.mkstemp(prefix="rtsnav-rebuild-", dir=folder)
    spans = []
    with os.fdopen(fd, "wb") as f:
        for b in buffers:
            raw = b.raw()
            spans.append((f.tell(), raw.nbytes))
            f.write(raw)
    return data, path, spans


def unpack_structure(data: bytes, path: str, spans: list[tuple[int, int]]):
    """The structure ``pack_structure`` wrote: its arrays are copy-on-write views of the file's
    pages (mapped, not read), and the file is gone from the folder at once."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            mapped = mmap.mmap(f.fileno(), size, access=mmap.ACCESS_COPY) if size else None
    finally:
        os.unlink(path)
    view = memoryview(mapped) if mapped is not None else memoryview(b"")
    return pickle.loads(data, buffers=[view[o: o + n] for o, n in spans])


def _read(stream):
    head = stream.read(8)
    if len(head) < 8:
        return None
    (size,) = struct.unpack("<Q", head)
    return pickle.loads(stream.read(size))


class RebuildWorker:
    """The worker process and its replies. ``submit`` returns a ticket; ``result(ticket)`` is
    None until the reply has arrived, then ``(ok, structure or error text)``."""

    _shared: RebuildWorker | None = None

    @classmethod
    def shared(cls) -> RebuildWorker:
        """The game process's one worker (started on first use; restarted if it died)."""
        if cls._shared is None or not cls._shared.alive:
            cls._shared = cls()
        return cls._shared

    def __init__(self) -> None:
        root = Path(sys.modules[__name__.split(".")[0]].__file__ or ".").resolve().parent.parent
        env = dict(os.environ, NUMBA_NUM_THREADS="1",
                   PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
        entry = __name__.rsplit(".", 1)[0] + ".rebuild_worker"
        self._process = subprocess.Popen([sys.executable, "-m", entry], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, env=env)
        self._outbox: queue.SimpleQueue = queue.SimpleQueue()
        self._replies: dict[int, tuple[bool, Any]] = {}   # ticket -> (ok, pickled structure or error text)
        self._closing = False                                # set at exit (``_discard_replies``)
        self._arrived = threading.Condition()
        self._next = 0
        #: True once the worker has loaded (``wait_ready``)
        self.ready = False
        self._reader = threading.Thread(target=self._read_replies, name="rtsnav-rebuild-replies", daemon=True)
        self._reader.start()
        # requests are written by a thread: the worker reads the next one only when it is done
        # with the last, and a full pipe must block that thread, not the game's tick
        self._writer = threading.Thread(target=self._write_requests, name="rtsnav-rebuild-requests", daemon=True)
        self._writer.start()
        atexit.register(self._discard_replies)

    @property
    def alive(self) -> bool:
        """True while the worker process runs."""
        return self._process.poll() is None

    def submit(self, request: dict) -> int:
        """Send one rebuild; returns its ticket."""
        self._next += 1
        self._outbox.put((self._next, request))
        return self._next

    def _write_requests(self) -> None:
        while True:
            message = self._outbox.get()
            try:
                _write(self._process.stdin, message)
            except (OSError, ValueError):
                return

    def result(self, ticket: int, wait: float | None = 0.0):
        """``(ok, structure or error text)`` once arrived (waiting up to ``wait`` seconds; None =
        until it arrives or the worker dies), else None."""
        with self._arrived:
            if wait != 0.0:
                self._arrived.wait_for(lambda: ticket in self._replies or not self.alive, wait)
            reply = self._replies.pop(ticket, None)
        if reply is None and not self.alive:
            return False, "the rebuild worker stopped"
        if reply is None:
            return None
        ok, payload = reply
        return ok, (unpack_structure(*payload) if ok else payload)   # mapped in the tick that takes it

    def wait_ready(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the worker to finish loading; True when it has.
        ``prepare`` waits, so that its start (~0.6 s of imports on the other core) does not slow
        the game's first ticks: a 500-unit order's goal-tree ticks ran 6 ms instead of 2 then."""
        with self._arrived:
            self._arrived.wait_for(lambda: self.ready or not self.alive, timeout)
        return self.ready

    def _discard_replies(self) -> None:
        """Remove the files of replies nobody took (at exit). Under the lock: the reader thread
        still runs at exit, and a reply it added mid-loop ended the loop with "dictionary changed
        size during iteration"; one arriving later is removed by the reader itself."""
        with self._arrived:
            self._closing = True
            left = list(self._replies.values())
            self._replies.clear()
        for ok, payload in left:
            if ok:
                _unlink_quietly(payload[1])

    def _read_replies(self) -> None:
        while True:
            try:
                reply = _read(self._process.stdout)
            except Exception:  # noqa: BLE001 - a broken stream ends the worker's replies
                reply = None
            with self._arrived:
                if reply is not None:
                    ticket, ok, payload = reply
                    if ticket == READY:
                        self.ready = True
                    elif self._closing:                   # at exit: nobody will take it
                        if ok:
                            _unlink_quietly(payload[1])
                    else:
                        self._replies[ticket] = (ok, payload)
                self._arrived.notify_all()
            if reply is None:
                return


class StructureRebuilds:
    """Which of a crowd's own navmesh, waypoint graph and hierarchy are stale after a map edit,
    their rebuilds in flight, and the swap when one arrives. Structures passed to the ``Crowd``
    by the caller are the caller's to rebuild (the crowd cannot know how they were made); a given
    hierarchy is updated in place (``Hierarchy.update``)."""

    def __init__(self, level, use_worker: bool) -> None:
        self._level = level                   # the LevelCache whose structures these are
        self.use_worker = use_worker
        self.made: set[str] = set()           # kinds the crowd built or loaded itself
        self.stale: set[str] = set()          # kinds whose structure predates the grid
        self.in_flight: dict[str, tuple[int, int]] = {}     # kind -> (ticket, grid version asked for)
        self.errors: list[str] = []           # rebuilds that failed (the kind stays on the grid)
        self.swapped = 0                      # structures swapped in so far
        self._holding: int | None = None      # the thread holding a core for this crowd's rebuilds
        self._resubmit: set[str] = set()      # a copy's kinds whose rebuilds the original holds

    def __getstate__(self) -> dict:
        """A copy (``pickle``, ``deepcopy``: a saved game, a rollback) asks for its own rebuilds: the
        worker answers a ticket once, so a copy holding the original's tickets left one of the two
        with stale structures for good."""
        state = dict(self.__dict__)
        state.update(in_flight={}, _holding=None, _resubmit=set(self.in_flight) | self._resubmit)
        return state

    def __del__(self) -> None:
        # a crowd dropped with rebuilds in flight must not leave numba on one thread
        holding = getattr(self, "_holding", None)
        if holding is not None:
            try:
                _release_core(holding)
            except Exception:  # noqa: BLE001 - interpreter shutdown
                pass

    def _structure(self, kind: str):
        return self._level.structure(kind)

    def _params(self, kind: str) -> dict:
        old = self._structure(kind)
        if old is None:                              # a first bake (``bake_new``): the crowd's settings
            if kind == "navmesh":
                return {"agent_radius": self._level.config.navmesh_radius, "subdivide": self._level.navmesh_subdivide}
            return {} if kind == "hierarchy" else {"spacing": 4}
        if kind == "navmesh":
            cfg = old.config
            k = max(1, round(self._level.grid.cell_size / cfg.cell_size))
            return {"agent_radius": cfg.agent_radius, "max_climb": cfg.max_climb, "max_side": cfg.max_side // k,
                    "landmarks": cfg.landmarks, "subdivide": k}
        if kind == "hierarchy":
            return {"levels": old.levels, "cluster_size": old.sizes[0], "ratio": old.ratio}
        return {"spacing": 4}

    def edited(self) -> None:
        """The grid changed: every structure the crowd made is stale until its rebuild arrives."""
        snapshot = None
        for kind in KINDS:
            if kind in self.made and self._structure(kind) is not None:
                self.stale.add(kind)
                if self.use_worker and kind not in self.in_flight:
                    snapshot = snapshot or grid_snapshot(self._level.grid)
                    self._submit(kind, snapshot)

    def bake_new(self, kind: str, cache_dir: str | os.PathLike | None = None) -> None:
        """A structure the level does not have yet, needed inside a tick (no ``prepare`` baked
        it): baked by the worker off the tick (or by ``finish``) and saved to ``cache_dir``
        when given; until it lands the kind counts as stale (its agents plan by A* on the grid)."""
        if kind in self.stale:
            return
        self.made.add(kind)
        self.stale.add(kind)
        if self.use_worker and kind not in self.in_flight:
            self._submit(kind, cache_dir=cache_dir)

    def start_worker(self, kinds=None, ready_within: float = 0.0) -> None:
        """Start the worker now (``prepare`` does, at load) rather than at the first edit: when
        the crowd has made a structure it rebuilds (or will: ``kinds``). With ``ready_within``,
        wait that many seconds at most for it to load."""
        if not self.use_worker or not (self.made or set(kinds or ()) & set(KINDS)):
            return
        try:
            worker = RebuildWorker.shared()
        except OSError as exc:
            self.use_worker = False
            self.errors.append(f"rebuild worker unavailable ({exc}); rebuilding on finish_rebuilds()")
            return
        if ready_within > 0:
            worker.wait_ready(ready_within)

    def _submit(self, kind: str, snapshot: dict | None = None, cache_dir: str | os.PathLike | None = None) -> None:
        try:
            worker = RebuildWorker.shared()
            request = structure_request(kind, self._level.grid, self._params(kind), snapshot)
            request["cache_dir"] = None if cache_dir is None else os.fspath(cache_dir)
            ticket = worker.submit(request)
        except OSError as exc:                  # no worker here: rebuilt by finish_rebuilds
            self.use_worker = False
            self.errors.append(f"rebuild worker unavailable ({exc}); rebuilding on finish_rebuilds()")
            return
        if self._holding is None:
            # the worker takes one core: parallel kernels here keep to the other meanwhile, else
            # their threads wait on the busy core (flocking 50 units went 0.1 -> 8 ms a tick)
            _hold_one_core()
            self._holding = threading.get_ident()
        self.in_flight[kind] = (ticket, self._level.grid.version)

    def take(self, wait: float | None = 0.0) -> list[str]:
        """Swap in the rebuilds that arrived (waiting up to ``wait`` s each); returns their kinds."""
        for kind in sorted(self._resubmit):
            if self.use_worker and kind not in self.in_flight:
                self._submit(kind)
        self._resubmit.clear()
        done = []
        for kind, (ticket, version) in list(self.in_flight.items()):
            reply = RebuildWorker.shared().result(ticket, wait)
            if reply is None:
                continue
            del self.in_flight[kind]
            ok, built = reply
            if not ok:
                self.errors.append(f"{kind} rebuild failed: {built}")
            elif version != self._level.grid.version:
                self._submit(kind)                  # edited again meanwhile: that one is stale too
            else:
                self.install(kind, built)
                done.append(kind)
        if not self.in_flight and self._holding is not None:
            _release_core(self._holding)
            self._holding = None
        return done

    def install(self, kind: str, built) -> None:
        """Put a rebuilt structure in place of the stale one."""
        grid, old = self._level.grid, self._structure(kind)
        if hasattr(built, "grid"):
            built.grid = grid
        if kind == "hierarchy":
            built.version = grid.version
        if kind == "navmesh" and old is not None:
            for link in old.links:              # the game's off-mesh links carry over where both ends stand
                if built.polygon_at(link.a) >= 0 and built.polygon_at(link.b) >= 0:
                    built.add_link(link.a, link.b, link.cost, link.kind, link.bidirectional)
        self._level.replace(kind, built)
        self.stale.discard(kind)
        self.swapped += 1

    def finish(self, timeout: float | None = None) -> list[str]:
        """Wait for every rebuild (or, without a worker, rebuild now); returns the kinds swapped.
        ``timeout``: seconds ≥ 0 to wait, or None (as long as it takes)."""
        if timeout is not None:
            timeout = checks.number(timeout, "timeout (seconds, or None)", low=0.0, error=NavError)
            # the thread waits take a deadline of the platform's time_t: a day is as good as forever
            timeout = min(timeout, _LONGEST_WAIT)
        done: list[str] = []
        if not self.use_worker:
            for kind in sorted(self.stale):
                self.install(kind, bake_structure(structure_request(kind, self._level.grid, self._params(kind))))
                done.append(kind)
            return done
        # a reply for a grid edited since is asked for again: wait on until the deadline, not one round
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.in_flight or self._resubmit:
            done += self.take(wait=None if deadline is None else max(0.0, deadline - time.monotonic()))
            if deadline is not None and time.monotonic() >= deadline:
                break
        return done


def serve() -> None:
    """The worker's loop: read requests from stdin, answer each with the pickled structure
    (its arrays in a shared-memory file the game maps when it takes the reply)."""
    stdin = sys.stdin.buffer
    # replies go out on a private copy of fd 1; fd 1 itself now points at stderr, so anything a
    # library prints (numba's debug output, a warning) cannot corrupt them
    stdout = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    files: list[str] = []                  # reply files; the game removes each one it takes
    from ..navmesh import NavMesh  # noqa: F401 - loaded now, not in the first rebuild
    from ..waypoints.graph import WaypointGraph  # noqa: F401
    from ..waypoints.hierarchy import Hierarchy  # noqa: F401

    try:
        _write(stdout, (READY, True, None))
    except OSError:                                       # the game ended while we loaded: so do we
        return
    try:
        while True:
            message = _read(stdin)
            if message is None:
                return
            ticket, request = message
            try:
                packed = pack_structure(bake_structure(request))
                files.append(packed[1])
                reply: tuple[int, bool, object] = (ticket, True, packed)
            except Exception as exc:  # noqa: BLE001 - the game is told what failed; the worker lives on
                reply = (ticket, False, f"{type(exc).__name__}: {exc}")
            try:
                _write(stdout, reply)
            except OSError:                               # the game has gone: so do we
                return
    finally:
        for path in files:                                # replies the game never took
            try:
                os.unlink(path)
            except OSError:
                pass


def _unlink_quietly(path) -> None:
    """Remove a reply's file; one already gone is fine."""
    try:
        os.unlink(path)
    except OSError:
        pass
