"""Fuzz suite, part two: grid edits (checked against a fresh grid's Dijkstra), waypoint graphs and
navmesh bakes from any input, the crowd's other public calls, every settable field of every esper
component, the other command lines, and forged caches — each "a documented error, or a correct
answer". ``test_the_fuzz_suite_reaches_every_public_name`` checks that parts one
(``test_fuzz.py``) and two together reach DESIGN's facade, the crowd's public calls, the
components' fields, the loaders and the command lines, so a new public name needs a fuzz case.

``tests/benchmarks/fuzz_mutations.py`` breaks the code one way per property (a check removed, a
bound moved) and shows that each property test then fails.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import math
import shutil
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rtsnav.systems.nav import Grid, NavError, NavMesh, WaypointGraph, find_path
from tests import test_fuzz
from tests.test_fuzz import ANY_NUMBER, ANY_VALUE, CELLS, FUZZ, POINTS

SMALL = np.ones((12, 16), dtype=bool)
SMALL[2:10, 7] = False                                  # a wall with gaps at both ends
SMALL[5, 2:5] = False


@st.composite
def cell_arrays(draw, width: int = 16, height: int = 12):
    """Cells as callers hand them: lists, numpy arrays of odd dtypes, orders, shapes and flags,
    in and off the grid, whole and fractional."""
    rows = draw(st.lists(st.tuples(st.integers(-2, width + 1), st.integers(-2, height + 1)), max_size=5))
    kind = draw(st.sampled_from(["list", "int32", "uint64", "float", "fraction", "bool", "object", "fortran",
                                 "strided", "readonly", "3d", "flat", "empty", "value"]))
    arr = np.array(rows, dtype=np.int64).reshape(-1, 2)
    if kind == "list":
        return [tuple(r) for r in rows]
    if kind == "value":
        return draw(st.one_of(ANY_VALUE, CELLS))
    if kind == "empty":
        return np.zeros((0, 2), dtype=draw(st.sampled_from([np.int64, np.float64, np.bool_])))
    if kind == "flat":
        return arr.ravel()
    if kind == "3d":
        return arr[None]
    if kind == "fraction":
        return arr + 0.5
    if kind == "strided":
        return np.repeat(arr, 2, axis=0)[::2]
    if kind == "fortran":
        return np.asfortranarray(arr)
    if kind == "readonly":
        arr.flags.writeable = False
        return arr
    if kind == "object":
        return arr.astype(object)
    if kind == "uint64":
        return np.abs(arr).astype(np.uint64)
    return arr.astype({"int32": np.int32, "float": np.float64, "bool": np.bool_}[kind])


EDIT_VALUES = st.one_of(st.booleans(), st.floats(0, 9), ANY_VALUE, st.integers(0, 2 ** 33))


def _cells_of(value) -> np.ndarray | None:
    """The cells a correct ``set_*`` call writes (None: a call that must be refused)."""
    if isinstance(value, (str, bytes)):
        return None
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if arr.size == 0 and arr.ndim <= 2:
        return np.zeros((0, 2), dtype=np.int64)
    if arr.ndim == 1 and arr.shape[0] == 2:
        arr = arr[None]
    if arr.ndim != 2 or arr.shape[1] != 2 or arr.dtype.kind not in "iuf":
        return None
    if arr.dtype.kind == "f" and not (np.isfinite(arr).all() and (arr == np.floor(arr)).all()):
        return None
    if ((arr < 0) | (arr >= (16, 12))).any():
        return None
    return arr.astype(np.int64)


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(["set_passable", "set_cost", "set_layers", "write"]), cell_arrays(),
                          EDIT_VALUES), max_size=6),
       st.sampled_from(["astar", "jps", "jps+", "bidirectional", "dstar-lite", "dijkstra"]))
@example([("set_passable", np.array([[0.5, 1.0]]), False)], "astar")
def test_random_grid_edits(edits, method):
    """Any edit call: refused with a ``NavError`` and nothing changed, or exactly the asked cells
    changed; a direct write into the arrays raises. Afterwards every search — and a sliced search
    that had finished before the edits — answers as a Dijkstra on a fresh grid of the same cells."""
    from rtsnav.systems.nav.search.sliced import SlicedSearch

    grid = Grid(SMALL.copy())
    sliced = SlicedSearch(grid, (0, 0), (15, 11), method if method != "dstar-lite" else "astar")
    sliced.run()
    assert sliced.done
    for op, cells, value in edits:
        before = (grid.passable.copy(), grid.cost.copy(), None if grid.layers is None else grid.layers.copy())
        if op == "write":
            with pytest.raises(ValueError):                    # read-only views: edits go through set_*
                (grid.passable if isinstance(value, bool) else grid.cost)[0, 0] = 0
            continue
        try:
            getattr(grid, op)(cells, value)
        except NavError:
            assert np.array_equal(grid.passable, before[0]) and np.array_equal(grid.cost, before[1])
            assert (grid.layers is None) == (before[2] is None)
            continue
        wrote = _cells_of(cells)
        assert wrote is not None, f"{op} took cells {cells!r}"
        changed = np.argwhere((grid.passable != before[0]) | (grid.cost != before[1]))[:, ::-1]
        assert set(map(tuple, changed.tolist())) <= set(map(tuple, wrote.tolist())), "a cell not asked for changed"
        if op == "set_passable":
            assert isinstance(value, (bool, np.bool_)) and (grid.passable[wrote[:, 1], wrote[:, 0]] == value).all()
        elif op == "set_cost":
            assert 1.0 <= float(value) < 3.5e38 and not isinstance(value, bool)
            assert np.allclose(grid.cost[wrote[:, 1], wrote[:, 0]], float(value), rtol=1e-6)
        else:
            assert isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2 ** 32
    fresh = Grid(grid.passable.copy(), np.where(grid.passable, grid.cost, 1.0))
    truth = find_path(fresh, (0, 0), (15, 11), "dijkstra") if fresh.passable[0, 0] and fresh.passable[11, 15] \
        else None
    for answer in (find_path(grid, (0, 0), (15, 11), method) if truth is not None else None, sliced.run()):
        if truth is None or answer is None:
            continue
        assert answer.found == truth.found
        if truth.found:
            assert abs(answer.cost - truth.cost) <= 1e-3 * max(1.0, truth.cost), (answer.cost, truth.cost)
            assert grid.passable[answer.cells[:, 1], answer.cells[:, 0]].all()


@FUZZ
@given(st.one_of(st.lists(st.tuples(st.integers(-2, 17), st.integers(-2, 13)), max_size=6), cell_arrays()),
       st.one_of(st.lists(st.tuples(st.integers(-2, 7), st.integers(-2, 7)), max_size=8), cell_arrays(7, 7)),
       POINTS, POINTS)
@example([(6, 3), (8, 3)], [(0, 1)], (1.5, 1.5, 0.0), (9.5, 3.5, 0.0))       # an edge through the wall
def test_random_waypoint_graphs(nodes, edges, p, q):
    """``WaypointGraph(grid, cells, edges)`` from any arrays: a ``NavError`` (a node in a wall or
    off the grid, an edge index out of range or across a wall), or a graph whose paths run along
    clear segments between its nodes with a cost equal to their length."""
    grid = Grid(SMALL.copy())
    try:
        graph = WaypointGraph(grid, nodes, edges)
    except NavError:
        return
    cells = np.asarray(nodes).reshape(-1, 2).astype(np.int64)
    assert grid.passable[cells[:, 1], cells[:, 0]].all()
    for a, b in np.asarray(edges, dtype=np.int64).reshape(-1, 2):
        assert grid.line_of_sight(tuple(cells[a]), tuple(cells[b])), "an edge across a wall was taken"
    try:
        r = graph.find_path(p, q)
    except NavError:
        return
    if r.found:                                       # start, waypoints, goal: in sight of each other
        assert math.isfinite(r.cost) and r.cost >= math.dist(p[:2], q[:2]) - 1e-6
        assert grid.passable[r.cells[:, 1], r.cells[:, 0]].all()
        assert all(grid.line_of_sight(a, b) for a, b in zip(r.cells[1:-2], r.cells[2:-1]))


@FUZZ
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 7)), max_size=12),
       st.one_of(st.just(0.4), st.just(0.0), ANY_NUMBER, ANY_VALUE),
       st.one_of(st.just(1), ANY_NUMBER), st.one_of(st.just(16), ANY_NUMBER), st.one_of(st.just(8), ANY_NUMBER))
@example([], -0.5, 1, 16, 8)
def test_random_navmesh_from_grid(walls, radius, subdivide, max_side, landmarks):
    """``NavMesh.from_grid`` with any settings on any small grid: a ``NavError`` naming the
    setting, or a mesh whose paths are finite, start and end on the mesh, and cost at least the
    straight line."""
    passable = np.ones((8, 10), dtype=bool)
    for x, y in walls:
        passable[y, x] = False
    try:
        mesh = NavMesh.from_grid(Grid(passable), agent_radius=radius, subdivide=subdivide, max_side=max_side,
                                 landmarks=landmarks)
    except NavError:
        return
    assert 0.0 <= radius < math.inf and not isinstance(radius, bool)
    r = mesh.find_path((0.5, 0.5, 0.0), (9.5, 7.5, 0.0))
    assert r.status.name in ("FOUND", "PARTIAL", "UNREACHABLE")
    if len(r.points):
        pts = np.asarray(r.points)
        assert np.isfinite(pts).all()
        assert r.cost >= np.linalg.norm(pts[-1, :2] - pts[0, :2]) - 1e-6
        assert all(mesh.polygon_at(tuple(pt)) >= 0 for pt in (pts[0], pts[-1]))


KEYWORDS = [("find_path", "heuristic"), ("find_path", "weight"), ("find_path", "backtrack"),
            ("find_path", "navigation_layers"), ("FlowField.build", "smooth"), ("FlowField.build", "los_radius"),
            ("FlowField.build", "integration"), ("FlowField.build", "rule"), ("Hierarchy.build", "ratio"),
            ("Hierarchy.build", "progress"), ("Hierarchy.find_path", "smooth"), ("WaypointGraph.floodfill", "spacing"),
            ("WaypointGraph.floodfill", "jitter"), ("WaypointGraph.floodfill", "rng_seed"),
            ("NavMesh.from_grid", "max_climb"), ("NavMesh.add_link", "cost"), ("NavMesh.add_link", "kind"),
            ("NavMesh.add_link", "bidirectional"), ("Grid", "name"), ("Grid", "heights"), ("Grid", "origin")]


@FUZZ
@given(st.sampled_from(KEYWORDS), st.one_of(ANY_VALUE, st.lists(ANY_NUMBER, max_size=3), st.just(np.ones((12, 16))),
                                            st.sampled_from(["manhattan", "octile", "eikonal", "kernel"])),
       st.sampled_from(["astar", "weighted", "bstar", "jps"]))
def test_random_keyword_arguments(call, value, method):
    """Every keyword of the facade's calls on any value: a ``NavError`` naming it, or an answer
    that holds — a grid path of legal steps whose cost is exact (within the weight for weighted
    A*), a field, a graph, a mesh, a link as asked."""
    from rtsnav.systems.nav import FlowField, Hierarchy

    grid = Grid(SMALL.copy())
    owner, name = call
    try:
        if owner == "find_path":
            r = find_path(grid, (0, 0), (15, 11), method, **{name: value})
            truth = find_path(grid, (0, 0), (15, 11), "dijkstra")
            assert r.found == truth.found or (name == "navigation_layers" and not r.found)
            if r.found:
                assert grid.passable[r.cells[:, 1], r.cells[:, 0]].all()
                bound = float(value) if name == "weight" and method == "weighted" else 1.5 if method == "weighted" else 1
                bound *= math.sqrt(2) if isinstance(value, str) and value == "manhattan" else 1        # documented: not admissible
                assert r.cost <= truth.cost * bound + 1e-6 or method == "bstar"
                assert r.cost >= truth.cost - 1e-6
            if name == "weight":
                assert 1 <= float(value) and not isinstance(value, (bool, str))
        elif owner == "FlowField.build":
            field = FlowField.build(grid, [(15, 11)], **{name: value})
            assert np.isfinite(field.integration[SMALL]).all()
        elif owner == "Hierarchy.build":
            h = Hierarchy.build(grid, **{name: value})
            assert h.find_path((0, 0), (15, 11)).found
        elif owner == "Hierarchy.find_path":
            assert Hierarchy.build(grid).find_path((0, 0), (15, 11), **{name: value}).found
            assert isinstance(value, (bool, np.bool_))
        elif owner == "WaypointGraph.floodfill":
            graph = WaypointGraph.floodfill(grid, (0, 0), **{name: value})
            assert len(graph.cells) >= 1 and grid.passable[graph.cells[:, 1], graph.cells[:, 0]].all()
        elif owner == "NavMesh.from_grid":
            mesh = NavMesh.from_grid(grid, 0.0, **{name: value})      # (0.4 would close the 2-cell gaps)
            assert mesh.find_path((0.5, 0.5, 0.0), (15.5, 11.5, 0.0)).found
        elif owner == "NavMesh.add_link":
            link = NavMesh.from_grid(grid, 0.0).add_link((1.5, 1.5, 0.0), (14.5, 10.5, 0.0), **{name: value})
            assert math.isfinite(link.cost) and link.cost >= 0 and isinstance(link.bidirectional, bool)
            if name == "bidirectional":
                assert isinstance(value, (bool, np.bool_))
        else:
            made = Grid(SMALL.copy(), **{name: value})
            assert isinstance(made.name, str) and made.heights is None or np.isfinite(made.heights).all()
    except NavError as e:
        assert str(e)


CROWD_CALLS = ("set_speed", "cells_changed", "occupants", "path", "status", "finish_rebuilds", "prepare", "pause",
               "remove", "add_agents")


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(CROWD_CALLS), st.one_of(ANY_VALUE, cell_arrays(), st.lists(ANY_VALUE, max_size=3)),
                          st.one_of(ANY_NUMBER, ANY_VALUE, st.lists(st.integers(-1, 4), max_size=3))),
                max_size=6))
@example([("pause", "no", 0)])
def test_random_crowd_calls_of_every_kind(calls):
    """The crowd's other public calls on any arguments: a ``NavError`` and the crowd as it was,
    or the documented answer (ids of live agents, arrays one row per id, paths of finite points);
    the tick after every call runs."""
    from rtsnav.systems.nav import Crowd

    crowd = Crowd(Grid(SMALL.copy()), cache_dir=None)
    ids = crowd.add_agents([(1.5, 1.5), (3.5, 8.5), (12.5, 6.5)])
    crowd.move(ids, (14.5, 10.5))
    for op, a, b in calls:
        alive = crowd.alive.copy()
        try:
            if op == "set_speed":
                crowd.set_speed(a, b)
            elif op == "cells_changed":
                crowd.cells_changed(a)
            elif op == "occupants":
                got = crowd.occupants(a)
                assert set(np.asarray(got).tolist()) <= set(np.flatnonzero(crowd.alive).tolist())
            elif op == "path":
                pts = crowd.path(a)
                assert pts.ndim == 2 and pts.shape[1] == 3 and np.isfinite(pts).all()
            elif op == "status":
                status = crowd.status(a)
                assert len(status.target) == len(np.atleast_1d(np.asarray(a)))
            elif op == "finish_rebuilds":
                assert isinstance(crowd.finish_rebuilds(b), list)
                assert b is None or (0 <= float(b) < math.inf and not isinstance(b, (bool, str)))
            elif op == "prepare":
                crowd.prepare(["astar"] if isinstance(a, bool) else a, navigation_layers=b if b is not None else (),
                              freeze_gc=False)
            elif op == "pause":
                crowd.pause(np.flatnonzero(crowd.alive)[:1], a)
                assert isinstance(a, (bool, np.bool_))
            elif op == "remove":
                crowd.remove(a)
            else:
                crowd.add_agents(a if not isinstance(a, bool) else [(5.5, 5.5)], avoidance=b)
                assert isinstance(b, (bool, np.bool_))
        except NavError:
            assert np.array_equal(crowd.alive, alive)           # a refused call loses nothing
        events = crowd.update(1 / 30)
        assert len(events.failed) == len(events.reasons)
        walking = crowd.alive & (crowd.states == 2)
        assert np.isfinite(crowd.positions[walking]).all()


def settable_fields() -> list[str]:
    """``Class.field`` of every field a game sets on rtsnav's esper components."""
    import dataclasses

    import rtsnav.components as components

    out = []
    for name in components.__all__:
        cls = getattr(components, name)
        if not inspect.isclass(cls) or name in ("NavigationPathResult", "NavState"):   # an answer and an enum
            continue
        props = [n for n, v in inspect.getmembers(cls) if isinstance(v, property) and v.fset is not None
                 and not n.startswith("_")]
        fields = [f.name for f in dataclasses.fields(cls) if f.init] if dataclasses.is_dataclass(cls) else []
        out += [f"{name}.{n}" for n in sorted(set(props) | set(fields))]
    return out


FIELDS = settable_fields()
FIELD_VALUES = st.one_of(ANY_VALUE, st.lists(st.integers(-2, 5), max_size=3), POINTS,
                         st.lists(st.tuples(st.floats(-3, 3), st.floats(-3, 3)), max_size=4), st.just((1.0, 2.0, 3.0)))


def _make(cls_name: str):
    import rtsnav.components as components

    cls = getattr(components, cls_name)
    return cls(0.0, 0.0) if cls_name == "Position" else cls()


@FUZZ
@given(st.sampled_from(FIELDS), FIELD_VALUES)
@example("Position.x", True)
@example("NavigationAgent.paused", "no")
@example("NavigationObstacle.radius", math.nan)
def test_random_component_fields(field, value):
    """Every settable field of every component on any value: refused on the spot with an error
    naming the field, or stored in a form that reads back the same when set again (nothing taken
    by truthiness or truncation: a bool is no number, text no flag); a world ticks after it."""
    import esper

    from rtsnav.components import Position, Velocity
    from rtsnav.systems import Navigation, install

    cls_name, name = field.split(".")
    component = _make(cls_name)
    try:
        setattr(component, name, value)
    except (ValueError, TypeError) as e:
        assert name in str(e) or cls_name in str(e), str(e)
        return
    got = getattr(component, name)
    if isinstance(value, float) and math.isnan(value):       # only coordinates take NaN (the crowd then fails
        assert cls_name in ("Position", "Velocity"), f"{field} took NaN"   # that agent with a reason)
    setattr(component, name, got)                             # the stored form is taken back as it is
    again = getattr(component, name)
    assert again == got or (isinstance(got, float) and math.isnan(got) and math.isnan(again))
    if isinstance(value, bool) and not isinstance(got, (bool, np.bool_)):
        pytest.fail(f"{field} took {value!r} as the number {got!r}")
    if isinstance(value, str) and got != value and name not in ("method", "pathfinding_algorithm"):
        pytest.fail(f"{field} took the text {value!r} as {got!r}")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and isinstance(got, (int, float)) \
            and not isinstance(got, bool):
        assert got == value or (math.isnan(got) and math.isnan(value)), f"{field}: set {value!r}, reads {got!r}"
    if cls_name in ("NavigationAgent", "NavigationObstacle", "Flock"):
        esper.switch_world("fuzz-fields")
        try:
            install(Navigation(Grid(SMALL.copy()), cache_dir=False), prepare=False)
            esper.create_entity(Position(1.5, 1.5), Velocity(), component)
            if cls_name == "Flock":
                from rtsnav.components import NavigationAgent

                esper.add_component(esper.create_entity(Position(2.5, 1.5), Velocity(), component),
                                    NavigationAgent(target_position=(14.5, 10.5, 0.0)))
            for _ in range(3):
                esper.process(1 / 30)
        finally:
            esper.switch_world("default")
            esper.delete_world("fuzz-fields")


@FUZZ
@given(st.sampled_from(["systems.demo", "overpass", "levels bake"]),
       st.lists(st.sampled_from(["--agents", "--ticks", "--sample", "--seed", "--range", "--units", "--seconds",
                                 "--scene", "overpass", "stack", "0", "-1", "5", "1e9", "nan", "x", "99999999999",
                                 "--map", "arena.map", "--levels", "--cluster-size", "--cache", "CACHE", "FILE",
                                 "UNWRITABLE", "--bogus", "river"]), max_size=6))
@example("systems.demo", ["--agents", "0"])
def test_random_other_command_lines(cli, argv):
    """The other command lines (``python -m rtsnav.systems.demo``, the overpass demo,
    ``rtsnav-levels bake``): usage errors exit 2 with a message; what parses holds sane numbers;
    a bake into any folder answers 0 (written, or kept in memory with a warning) or ``error:`` + 2."""
    scratch = Path(tempfile.mkdtemp(prefix="rtsnav-fuzz-cli-"))
    (scratch / "file").write_text("not a folder")
    swap = {"CACHE": str(scratch / "cache"), "FILE": str(scratch / "file"), "UNWRITABLE": "/proc/rtsnav-nope"}
    argv = [swap.get(a, a) for a in argv]
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            if cli == "systems.demo":
                from rtsnav.systems.demo import MAX_AGENTS, parse_args

                args = parse_args(argv)
                assert 1 <= args.agents <= MAX_AGENTS and args.ticks >= 1 and args.sample >= 1 and args.seed >= 0
                assert args.range >= 0
            elif cli == "overpass":
                from rtsnav.game.overpass import MAX_UNITS
                from rtsnav.game.overpass import parse_args as overpass_args

                args = overpass_args(argv)
                assert 1 <= args.units <= MAX_UNITS and 0 < args.seconds <= 86_400
            else:
                from rtsnav.levels.__main__ import main

                maps = [a for a in argv if a in ("arena.map", "river")] or ["river"]
                rest = [a for a in argv if a not in maps]
                status = main(["bake", maps[0], *rest] if "--cache" in rest else ["bake", maps[0], "--cache",
                                                                                  str(scratch / "c"), *rest])
                assert status in (0, 2)
                if status == 2:
                    assert err.getvalue().startswith("error: ") or "\nerror: " in err.getvalue()
    except SystemExit as e:
        assert e.code == 2 and "error" in err.getvalue()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


_BAKED: dict = {}


def _baked_cache() -> Path:
    """A folder with every cache ``rtsnav-levels bake --goal-bounds`` writes for a small map."""
    if "dir" not in _BAKED:
        from rtsnav.levels.__main__ import main

        folder = Path(tempfile.mkdtemp(prefix="rtsnav-fuzz-cache-"))
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            assert main(["bake", "arena.map", "--cache", str(folder), "--goal-bounds"]) == 0
        from rtsnav.levels import load_movingai_map

        WaypointGraph.cached_floodfill(load_movingai_map("arena.map"), folder, (3, 10), 4)
        _BAKED["dir"] = folder
    return _BAKED["dir"]


@settings(parent=FUZZ, max_examples=max(1, FUZZ.max_examples // 3))    # a bake a case: a third as many
@given(st.sampled_from(["navmesh-", "jps_plus_", "goal_bounds_", "hierarchy-", "navmesh_goal_bounds_", "waypoints-"]),
       st.integers(0, 40), st.sampled_from(["huge", "negative", "nan", "dtype", "shape", "missing", "empty", "swap"]),
       st.integers(0, 10 ** 6))
@example("navmesh-", 13, "huge", 0)                        # tri_triangles: a vertex index far off
def test_forged_caches(prefix, key_number, how, where):
    """A cache file rewritten with a valid checksum (as someone holding the cache key could) and
    one array changed — a value off its range, NaN, another dtype or shape, an array missing:
    loading never crashes; a file the checks refuse is rebaked with a warning, and every
    structure then answers a query as the fresh bake does, or at least legally."""
    from rtsnav.levels import load_movingai_map
    from rtsnav.levels.__main__ import main
    from rtsnav.systems.nav import Hierarchy
    from rtsnav.systems.nav.bake_cache import read_baked, write_baked

    folder = Path(tempfile.mkdtemp(prefix="rtsnav-fuzz-forged-"))
    try:
        for f in _baked_cache().iterdir():
            shutil.copy(f, folder / f.name)
        target = next(f for f in sorted(folder.iterdir()) if f.name.startswith(prefix))
        with np.load(target) as raw:
            version = int(raw["version"])
        meta, arrays, digest = read_baked(target, version, "fuzzed")
        key = sorted(arrays)[key_number % len(arrays)]
        arr = arrays[key].copy()
        if how == "missing":
            del arrays[key]
        elif how == "empty":
            arrays[key] = arr[:0]
        elif how == "shape":
            arrays[key] = arr.reshape(-1)[: max(0, arr.size - 1)]
        elif how == "dtype":
            arrays[key] = arr.astype(np.float64 if arr.dtype.kind in "iub" else np.int64) if arr.dtype.kind != "U" \
                else arr
        elif how == "swap" and arr.size > 1:
            flat = arr.reshape(-1)
            flat[[0, -1]] = flat[[-1, 0]]
            arrays[key] = flat.reshape(arr.shape)
        elif arr.size and arr.dtype.kind in "iuf":
            i = where % arr.size
            value = {"huge": 10 ** 9, "negative": -7, "nan": np.nan if arr.dtype.kind == "f" else -1}[how]
            flat = arr.reshape(-1)
            flat[i] = np.asarray(value).astype(arr.dtype) if arr.dtype.kind != "u" or value >= 0 else arr.dtype.type(0)
            arrays[key] = flat.reshape(arr.shape)
        write_baked(target, version, meta, arrays, grid=digest)
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            assert main(["bake", "arena.map", "--cache", str(folder), "--goal-bounds"]) == 0
            grid = load_movingai_map("arena.map")
            mesh = NavMesh.cached(grid, folder, agent_radius=0.5)
            hierarchy = Hierarchy.cached(grid, folder, levels=3, cluster_size=32)
            graph = WaypointGraph.cached_floodfill(grid, folder, (3, 10), 4)
        start, goal = (3, 10), (45, 35)
        truth = find_path(grid, start, goal, "dijkstra")
        for method in ("jps+", "astar"):
            r = find_path(grid, start, goal, method)
            assert r.found and abs(r.cost - truth.cost) < 1e-3      # JPS+ and goal bounds: exact or rebaked
        w = graph.find_path(grid.cell_to_world(*start), grid.cell_to_world(*goal))
        assert w.found and grid.passable[w.cells[:, 1], w.cells[:, 0]].all() and w.cost >= truth.cost * 0.9
        h = hierarchy.find_path(start, goal)
        assert h.found and grid.passable[h.cells[:, 1], h.cells[:, 0]].all()
        m = mesh.find_path((*grid.cell_to_world(*start)[:2], 0.0), (*grid.cell_to_world(*goal)[:2], 0.0))
        assert m.found and np.isfinite(m.points).all() and m.cost >= truth.cost * 0.9
    finally:
        shutil.rmtree(folder, ignore_errors=True)


#: Public name -> the fuzz test that calls it with random input.
REACHED = {
    # DESIGN's facade
    "load_movingai_map": "test_mutated_map_files", "load_movingai_scenarios": "test_mutated_scenario_files",
    "load_level": "test_mutated_level_files", "Grid": "test_random_grids", "find_path": "test_random_find_path_calls",
    "FlowField.build": "test_random_structure_calls", "NavMesh.from_grid": "test_random_navmesh_from_grid",
    "NavMesh.from_triangles": "test_random_triangle_soups", "NavMesh.find_path": "test_random_structure_calls",
    "Hierarchy.build": "test_random_hierarchy_calls", "Hierarchy.find_path": "test_random_hierarchy_calls",
    "WaypointGraph": "test_random_waypoint_graphs", "WaypointGraph.floodfill": "test_random_structure_calls",
    "WaypointGraph.find_path": "test_random_waypoint_graphs", "keywords": "test_random_keyword_arguments", "Navigation": "test_random_godot_member_calls",
    "install": "test_random_godot_member_calls", "Grid.set_passable": "test_random_grid_edits",
    "Grid.set_cost": "test_random_grid_edits", "Grid.set_layers": "test_random_grid_edits",
    "SlicedSearch": "test_random_grid_edits", "LayeredNavMesh": "test_random_layered_navmesh_calls",
    # loaders
    "load_orders": "test_random_orders_files", "read_baked": "test_forged_caches",
    # command lines
    "rtsnav-levels": "test_random_levels_command_lines", "rtsnav-levels bake": "test_random_other_command_lines",
    "rtsnav-demo": "test_random_demo_command_lines", "rtsnav.systems.demo": "test_random_other_command_lines",
    "rtsnav.game.overpass": "test_random_other_command_lines",
    # components
    "components": "test_random_component_fields",
}
REACHED.update({f"Crowd.inputs.{n}": "test_random_steering_input_calls"
                for n in ("set_velocity", "add_obstacles", "move_obstacles")})
REACHED.update({f"Crowd.{n}": "test_random_crowd_calls" for n in ("move", "stop", "update")})
REACHED.update({f"Crowd.{n}": "test_random_crowd_calls_of_every_kind" for n in CROWD_CALLS})


INPUT_CALLS = ("set_velocity", "add_obstacles", "move_obstacles")
#: Values as a game might pass for points and velocities: good ones, NaN, inf, text, wrong
#: shapes, complex numbers, and one per agent or one for all.
INPUT_VALUES = st.one_of(st.none(), ANY_VALUE, st.lists(st.one_of(st.floats(-5, 20), ANY_NUMBER), min_size=1, max_size=4),
                         st.lists(st.tuples(st.floats(-5, 20), st.floats(-5, 20)), min_size=1, max_size=3),
                         st.just([[1 + 1j, 2.0]]), st.just(np.full((2, 2, 2), 1.0)), st.just(np.zeros((0, 2))))


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(INPUT_CALLS), INPUT_VALUES, st.one_of(INPUT_VALUES, st.integers(-2, 2**33))),
                max_size=6),
       st.sampled_from(["units", "obstacles", "both", "none"]))
@example([("move_obstacles", [[float("nan"), 1.0]], None)], "obstacles")
@example([("move_obstacles", [[3.0, 3.0]], None)], "units")
def test_random_steering_input_calls(calls, whose):
    """``Crowd.inputs`` (the game's velocity inputs and avoidance obstacles) on any arguments:
    a ``NavError`` and nothing changed, or the documented effect (a unit walks at a finite
    velocity input; an obstacle stands where it was put, finite); the tick after always runs."""
    import warnings

    from rtsnav.systems.nav import Crowd

    crowd = Crowd(Grid(SMALL.copy()), cache_dir=None)
    units = crowd.add_agents([(1.5, 1.5), (3.5, 8.5)], avoidance=True)
    obstacles = crowd.inputs.add_obstacles([(12.5, 6.5)], radius=0.5)
    ids = {"units": units, "obstacles": obstacles, "both": np.r_[units, obstacles], "none": units[:0]}[whose]
    for op, a, b in calls:
        before = crowd.positions.copy(), crowd.agents.alive_count
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")           # a NumPy warning is no answer
                if op == "set_velocity":
                    crowd.inputs.set_velocity(ids, a)
                elif op == "add_obstacles":
                    crowd.inputs.add_obstacles(a, 0.5, layers=b if isinstance(b, int) else 1)
                else:
                    crowd.inputs.move_obstacles(ids, a, b)
                    assert not crowd.agents.obstacle[ids].size or crowd.agents.obstacle[ids].all()
                    assert np.isfinite(crowd.positions[ids]).all()
        except NavError:
            assert crowd.agents.alive_count == before[1] and np.array_equal(crowd.positions, before[0], equal_nan=True)
        events = crowd.update(1 / 30)
        assert len(events.failed) == len(events.reasons)
        assert np.isfinite(crowd.positions[crowd.alive & ~crowd.agents.obstacle[: crowd.agents.size]]).all()


def test_the_fuzz_suite_reaches_every_public_name():
    """Every public call of the crowd, every command line, every settable component field and
    DESIGN's facade has a fuzz test that calls it (and that test names it)."""
    import tomllib

    from rtsnav.systems.nav import Crowd

    tests = {n: f for n, f in {**vars(test_fuzz), **globals()}.items() if n.startswith("test_random")
             or n.startswith("test_mutated") or n == "test_forged_caches"}
    crowd_calls = {f"Crowd.{n}" for n, v in inspect.getmembers(Crowd) if not n.startswith("_") and callable(v)
                   and not isinstance(inspect.getattr_static(Crowd, n), property)}
    scripts = tomllib.loads(Path(__file__).parents[1].joinpath("pyproject.toml").read_text())["project"]["scripts"]
    from rtsnav.systems.nav.crowd.steering_inputs import SteeringInputs

    crowd_calls |= {f"Crowd.inputs.{n}" for n, v in inspect.getmembers(SteeringInputs)
                    if not n.startswith("_") and callable(v)}
    wanted = crowd_calls | set(scripts) | {"rtsnav.systems.demo", "rtsnav.game.overpass", "rtsnav-levels bake"}
    missing = sorted(wanted - set(REACHED))
    assert not missing, f"no fuzz test reaches {missing}"
    for name, test in REACHED.items():
        assert test in tests, f"{name}: no fuzz test {test}"
        source = inspect.getsource(tests[test])
        leaf = {"components": "FIELDS", "keywords": "KEYWORDS", "rtsnav-levels": "levels", "rtsnav-demo": "parse_args",
                "rtsnav.systems.demo": "systems.demo", "rtsnav.game.overpass": "overpass",
                "rtsnav-levels bake": "bake", "Navigation": "Navigation(", "read_baked": "read_baked"}.get(
                    name, name.split(".")[-1].replace("-", "_"))
        assert leaf in source or leaf in inspect.getsource(test_fuzz), f"{test} does not call {name}"
    assert {f.split(".")[0] for f in FIELDS} >= {"Position", "Velocity", "Flock", "NavigationAgent",
                                                 "NavigationObstacle", "Team"}
