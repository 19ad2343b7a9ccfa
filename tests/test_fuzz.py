"""Fuzz suite: mutated files and random API calls get a documented exception naming what and
where (``LevelError``, ``NavError``; ``SystemExit(2)`` from a CLI) or a correct result — never
another exception type, a hang, or a silently changed value.

Bounded for ``make test`` (a few hundred cases, seeded by hypothesis's database); set
``RTSNAV_FUZZ_EXAMPLES`` for a longer run (``tests/benchmarks/fuzz_long.sh``: 5,000 per property).
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rtsnav.game.script import load_orders
from rtsnav.levels import LevelError, load_level, load_movingai_map, load_movingai_scenarios
from rtsnav.levels.level_file import BUILTIN_DIR, parse_level
from rtsnav.levels.movingai import MAPS_DIR
from rtsnav.systems.nav import FlowField, Grid, NavError, NavMesh, PathStatus, WaypointGraph, find_path
from rtsnav.systems.nav.search.facade import METHODS

EXAMPLES = int(os.environ.get("RTSNAV_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

SMALL_MAP = (MAPS_DIR / "random-64-64-20.map").read_text()
SCEN = "\n".join((MAPS_DIR / "arena.map.scen").read_text().splitlines()[:12]) + "\n"
LEVEL = (BUILTIN_DIR / "river.toml").read_text()


@st.composite
def mutated(draw, text: str):
    """``text`` with a few random edits: replace, delete or insert characters or whole lines."""
    chars = list(text)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["replace", "delete", "insert", "line"]))
        i = draw(st.integers(0, max(0, len(chars) - 1)))
        piece = draw(st.sampled_from(["", "0", "-1", "nan", "inf", "1e400", "\t", "\n", "x", "#", "@", ".", "=",
                                      "\"", "[", "]", "true", "99999999999", "é", " "]))
        if kind == "replace" and chars:
            chars[i] = piece
        elif kind == "delete" and chars:
            del chars[i: i + draw(st.integers(1, 40))]
        elif kind == "insert":
            chars.insert(i, piece)
        else:
            lines = "".join(chars).split("\n")
            j = draw(st.integers(0, len(lines) - 1))
            lines[j] = draw(st.sampled_from(["", lines[j][::-1], lines[j] + lines[j], "version 7",
                                             "height 99999999999", "width -3", "[[gate]]", "area = [0, 0, 1e9, 2]"]))
            chars = list("\n".join(lines))
    return "".join(chars)


def _write(text: str, suffix: str) -> Path:
    fd, name = tempfile.mkstemp(suffix=suffix)
    with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)
    return Path(name)


@FUZZ
@given(mutated(SMALL_MAP))
def test_mutated_map_files(text):
    path = _write(text, ".map")
    try:
        grid = load_movingai_map(path)
    except LevelError as e:
        assert e.path == str(path)
    else:
        assert grid.passable.shape[0] > 0 and grid.passable.dtype == bool
    finally:
        path.unlink()


_SCEN_LINES = SCEN.splitlines()
NEGATIVE_OPTIMAL = "\n".join(_SCEN_LINES[:1] + ["\t".join(_SCEN_LINES[1].split("\t")[:8] + ["-1"])]) + "\n"


@FUZZ
@given(mutated(SCEN))
@example(NEGATIVE_OPTIMAL)
def test_mutated_scenario_files(text):
    path = _write(text, ".scen")
    try:
        scenarios = load_movingai_scenarios(path)
    except LevelError as e:
        assert e.path == str(path)
    else:
        for s in scenarios:
            assert 0 <= s.start[0] < s.width and 0 <= s.goal[1] < s.height and math.isfinite(s.optimal)
            assert s.optimal >= 0
    finally:
        path.unlink()


@FUZZ
@given(mutated(LEVEL))
@example(LEVEL.replace("height_scale =", "hieght_scale =", 1))
def test_mutated_level_files(text):
    from rtsnav.levels.level_file import KEYS

    try:
        level = parse_level(text, "fuzz.toml")
    except LevelError as e:
        assert e.path == "fuzz.toml"
    else:
        import tomllib

        assert set(tomllib.loads(text)) <= set(KEYS["level"]), "an unknown key was taken"
        grid = level.grid
        assert np.isfinite(level.ground).all() and (grid.cost >= 1).all()
        for cells in level.spawns.values():
            assert grid.passable[cells[:, 1], cells[:, 0]].all()       # nobody spawns in a wall
        assert len(level.gates) == len(set(level.gates))


ORDER_VALUES = st.one_of(st.integers(-5, 200), st.floats(allow_nan=True), st.text(max_size=4), st.booleans(),
                         st.lists(st.one_of(st.floats(-10, 200), st.integers(-10, 200)), max_size=5))


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(["order", "gate", "overlay", "unit"]),
                          st.dictionaries(st.sampled_from(["tick", "select", "target", "click", "box", "name", "number",
                                                           "traget"]),
                                          ORDER_VALUES, max_size=5)), max_size=4))
@example([("order", {"tick": 1, "select": 1, "traget": [10.5, 10.5]})])
def test_random_orders_files(tables):
    level = _river()
    lines = []
    for kind, table in tables:
        lines.append(f"[[{kind}]]")
        for key, value in table.items():
            lines.append(f"{key} = {_toml(value)}")
    path = _write("\n".join(lines) + "\n", ".toml")
    try:
        events = load_orders(path, level)
    except LevelError as e:
        assert e.path == str(path)
    else:
        assert not any("traget" in table for _, table in tables), "an unknown key was taken"
        for tick, kind, table in events:
            assert tick >= 0 and kind in ("order", "gate", "overlay")
            if kind == "gate":
                assert table["name"] in level.gates
    finally:
        path.unlink()


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value == math.inf else "-inf" if value == -math.inf else repr(value))
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)


_CACHE: dict = {}


def _river():
    if "river" not in _CACHE:
        _CACHE["river"] = load_level("river")
    return _CACHE["river"]


def _arena_structures(arena):
    if "mesh" not in _CACHE:
        _CACHE["mesh"] = NavMesh.from_grid(arena, agent_radius=0.4)
        _CACHE["graph"] = WaypointGraph.floodfill(arena, (3, 10), spacing=4)
    return _CACHE["mesh"], _CACHE["graph"]


ANY_NUMBER = st.one_of(st.integers(-10**12, 10**12), st.floats(allow_nan=True, allow_infinity=True),
                       st.integers(-3, 60))
ANY_VALUE = st.one_of(ANY_NUMBER, st.none(), st.text(max_size=3), st.booleans())
CELLS = st.one_of(st.tuples(st.integers(-3, 60), st.integers(-3, 60)), st.tuples(ANY_VALUE, ANY_VALUE),
                  st.tuples(ANY_NUMBER), ANY_VALUE, st.lists(st.integers(-3, 60), max_size=3))
FAR = st.floats(-1e308, 1e308, allow_nan=False)                      # finite, often past 64-bit cell numbers
POINTS = st.one_of(st.tuples(st.floats(-5, 60), st.floats(-5, 60), st.just(0.0)), st.tuples(ANY_VALUE, ANY_VALUE),
                   st.tuples(FAR, FAR, st.just(0.0)),
                   st.tuples(ANY_NUMBER, ANY_NUMBER, ANY_NUMBER), ANY_VALUE)


@FUZZ
@given(CELLS, CELLS, st.sampled_from(list(METHODS) + ["jps", "teleport", "", None, 3]),
       st.one_of(st.booleans(), ANY_VALUE))
@example((3, 10), (40, 30), "bidirectional", "no")
def test_random_find_path_calls(arena, start, goal, method, pocket_rule):
    try:
        r = find_path(arena, start, goal, method=method, pocket_rule=pocket_rule)
    except NavError:
        return
    assert isinstance(pocket_rule, bool)             # anything else (a truthy "no") is refused
    assert r.status in (PathStatus.FOUND, PathStatus.UNREACHABLE)
    if r.found:
        cells = r.cells
        assert tuple(cells[0]) == tuple(int(v) for v in start) and tuple(cells[-1]) == tuple(int(v) for v in goal)
        steps = np.abs(np.diff(cells, axis=0))
        assert (steps.max(axis=1) <= 1).all() and arena.passable[cells[:, 1], cells[:, 0]].all()


@FUZZ
@given(st.sampled_from(["find_path", "polygon_at", "raycast", "graph", "flow", "world_to_cell", "connected",
                        "line_of_sight", "check_cell", "nearest_point"]), POINTS, POINTS, CELLS, CELLS)
@example("check_cell", (1.0, 1.0, 0.0), (1.0, 1.0, 0.0), (99, 99), (0, 0))
def test_random_structure_calls(arena, call, p, q, a, b):
    mesh, graph = _arena_structures(arena)
    try:
        if call == "find_path":
            r = mesh.find_path(p, q)
            assert r.status.name in ("FOUND", "PARTIAL", "UNREACHABLE")
            if len(r.points):
                assert np.isfinite(r.points).all()
        elif call == "polygon_at":
            assert mesh.polygon_at(p) >= -1
        elif call == "nearest_point":
            near = mesh.nearest_point(p)
            assert near is None or (0 <= near[0] < mesh.polygon_count and np.isfinite(near[1]).all())
        elif call == "raycast":
            clear, hit = mesh.raycast(p, q)
            assert isinstance(clear, bool)
        elif call == "graph":
            r = graph.find_path(p, q)
            assert r.found in (True, False)
        elif call == "flow":
            field = FlowField.build(arena, [a, b])
            assert field.integration.shape == arena.passable.shape
        elif call == "world_to_cell":
            x, y = arena.world_to_cell(*p[:2]) if isinstance(p, tuple) and len(p) >= 2 else arena.world_to_cell(p, p)
            assert isinstance(x, int) and isinstance(y, int)
        elif call == "connected":
            assert arena.connected(a, b) in (True, False)
        elif call == "line_of_sight":
            assert arena.line_of_sight(a, b) in (True, False)
        else:
            x, y = arena.check_cell(a)
            assert arena.in_bounds(x, y)
    except NavError:
        pass


@FUZZ
@given(st.one_of(st.tuples(st.integers(0, 6), st.integers(0, 6)), st.just((0, 5)), st.just((3,))),
       st.sampled_from([None, "nan", "low", "huge", "inf", "shape", "str"]),
       st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.just(1.0)))
@example((3, 3), "low", 1.0)
def test_random_grids(shape, cost_kind, cell_size):
    passable = np.ones(shape, dtype=bool) if len(shape) == 2 else np.ones(shape, dtype=bool)
    cost = None
    if cost_kind and len(shape) == 2:
        cost = np.ones(shape) if cost_kind != "shape" else np.ones((shape[0] + 1, max(shape[1], 1)))
        if cost.size and cost_kind != "shape":
            cost.flat[0] = {"nan": math.nan, "low": 0.5, "huge": 1e39, "inf": math.inf, "str": 1.0}[cost_kind]
        if cost_kind == "str" and cost.size:
            cost = cost.astype(object)
            cost.flat[0] = "x"
    try:
        grid = Grid(passable, cost, cell_size=cell_size)
    except NavError:
        return
    except (TypeError, ValueError) as e:               # a non-numeric cost array is a NavError too
        pytest.fail(f"raw {type(e).__name__}: {e}")
    assert grid.cell_size > 0 and math.isfinite(grid.cell_size) and np.isfinite(grid.cost).all()
    # a cost that is NaN, below 1, beyond float32 or not a number is refused, never taken quietly
    assert cost is None or cost.size == 0 or cost_kind in (None, "inf"), f"accepted a {cost_kind} cost"


@FUZZ
@given(st.lists(st.sampled_from(["list", "validate", "show", "river", "rivr", "fortress", "--scale", "0", "3",
                                 "-2", "--overlay", "paths", "flow,nope", "navmesh", "--out", "--debug",
                                 "--bogus", "x.toml"]), max_size=6))
def test_random_levels_command_lines(argv):
    from rtsnav.levels.__main__ import main

    argv = [("/tmp/rtsnav-fuzz-out/x.png" if a == "--out" else a) for a in argv]
    if "--out" not in argv and "show" in argv:
        argv += ["--out", "/tmp/rtsnav-fuzz-out/x.png"]
    argv = [a for a in argv if a != "--debug"]         # tracebacks are what --debug is for
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            status = main(argv)
    except SystemExit as e:                             # argparse: usage error
        assert e.code in (0, 2)
        return
    assert status in (0, 2)
    if status == 2:
        assert err.getvalue().startswith("error: ")


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(["add", "move", "remove", "pause", "stop", "update"]),
                          st.one_of(ANY_NUMBER, st.none(), st.text(max_size=3)), POINTS,
                          st.sampled_from(["astar", "flowfield", "leader", "navmesh", "teleport", None])),
                max_size=8))
def test_random_crowd_calls(arena, calls):
    from rtsnav.systems.nav.crowd import Crowd

    crowd = Crowd(arena, cache_dir=None)
    crowd.add_agents([(3.5, 10.5), (5.5, 10.5)])
    for op, number, point, planner in calls:
        try:
            if op == "add":
                crowd.add_agents([point[:2]] if isinstance(point, tuple) else point, radius=number if
                                 isinstance(number, (int, float)) else 0.4)
            elif op == "move":
                crowd.move([0, 1] if crowd.alive[:2].all() else [], point, planner=planner)
            elif op == "remove":
                crowd.remove([number] if isinstance(number, int) else number)
            elif op == "pause":
                crowd.pause(np.flatnonzero(crowd.alive), bool(number))
            elif op == "stop":
                crowd.stop(np.flatnonzero(crowd.alive))
            else:
                crowd.update(number)
        except NavError:
            pass
        events = crowd.update(1 / 30)                      # the tick after any call still runs
        assert len(events.failed) == len(events.reasons)
        walking = crowd.alive & (crowd.states == 2)
        assert np.isfinite(crowd.positions[walking]).all()       # only a failed agent may keep a bad position


GODOT_MEMBERS = ("velocity", "avoidance_priority", "avoidance_layers", "avoidance_mask", "neighbor_distance",
                 "max_neighbors", "time_horizon_agents", "time_horizon_obstacles", "navigation_layers", "height",
                 "path_height_offset", "path_search_max_distance", "path_search_max_polygons",
                 "path_return_max_length", "path_return_max_radius", "path_postprocessing", "simplify_path",
                 "simplify_epsilon", "keep_y_velocity", "use_3d_avoidance", "target_position", "max_speed", "radius")


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(GODOT_MEMBERS + ("obstacle", "layers", "forced")),
                          st.one_of(ANY_NUMBER, ANY_VALUE, POINTS, st.none(), st.text(max_size=4),
                                    st.lists(POINTS, max_size=4))),
                max_size=8))
@example([("max_speed", -1.0)])
def test_random_godot_member_calls(calls):
    """Any value set on any Godot member, obstacle or layer: a clear error naming the member, or
    a value read back; the ticks after it run, and no walking agent ends anywhere but a finite point."""
    import esper

    from rtsnav.components import NavigationAgent, NavigationObstacle, Position, Velocity
    from rtsnav.systems import Navigation, install

    esper.switch_world("fuzz-godot")
    try:
        grid = Grid(np.ones((20, 30), dtype=bool))
        nav = Navigation(grid, cache_dir=False)
        install(nav, prepare=False)
        agent = NavigationAgent(target_position=(25.5, 10.5, 0.0), avoidance_enabled=True)
        esper.create_entity(Position(3.5, 10.5), Velocity(), agent)
        esper.create_entity(Position(6.5, 10.5), Velocity(), NavigationAgent(avoidance_enabled=True))
        for name, value in calls:
            try:
                if name == "obstacle":
                    esper.create_entity(Position(10.0, 10.0), NavigationObstacle(
                        radius=value if isinstance(value, (int, float)) else 1.0,
                        vertices=value if isinstance(value, list) else [], affect_navigation_mesh=True))
                elif name == "layers":
                    grid.set_layers(np.array([[5, 5], [6, 5]]), value)  # type: ignore[arg-type]
                elif name == "forced":
                    agent.set_velocity_forced(value)  # type: ignore[arg-type]
                else:
                    setattr(agent, name, value)
            except (ValueError, TypeError) as e:
                assert name.split("_")[0] in str(e).lower() or name in ("layers", "forced"), str(e)  # names it
                continue
            for _ in range(3):
                esper.process(1 / 30)
        for _ in range(5):
            esper.process(1 / 30)
        crowd = nav.crowd
        walking = crowd.alive & (crowd.states == 2)
        assert np.isfinite(crowd.positions[walking]).all()
    finally:
        esper.switch_world("default")
        esper.delete_world("fuzz-godot")


@FUZZ
@given(st.lists(st.one_of(ANY_NUMBER, st.just(0), st.just(1), st.just(2 ** 32 - 1)), min_size=1, max_size=4),
       st.sampled_from(["astar", "jps", "bidirectional", "dstar-lite"]))
def test_random_navigation_layers(arena, masks, method):
    """Layer masks on cells and on queries: an error naming the mask, or a path only over cells
    whose layers the query's mask takes."""
    grid = Grid(arena.passable.copy())
    cells = np.argwhere(arena.passable)[:200, ::-1]
    for k, bits in enumerate(masks):
        try:
            grid.set_layers(cells[k::4], bits)
        except NavError as e:
            assert "layers" in str(e)
    for query in masks:
        try:
            r = find_path(grid, (3, 10), (40, 30), method, navigation_layers=query)
        except NavError as e:
            assert "navigation_layers" in str(e) or "method" in str(e)
            continue
        if r.found and grid.layers is not None:
            allowed = (grid.layers[r.cells[:, 1], r.cells[:, 0]] & np.uint32(int(query) & 0xFFFFFFFF)) != 0
            assert allowed.all()


@FUZZ
@given(st.one_of(st.integers(-2, 6), ANY_NUMBER, st.none(), st.text(max_size=2)),
       st.one_of(st.integers(-2, 40), ANY_NUMBER), CELLS, CELLS)
def test_random_hierarchy_calls(arena, levels, cluster, a, b):
    """``Hierarchy.build`` with any level count and cluster size, then any query: a ``NavError``
    naming the argument, or a path of legal steps between the asked cells."""
    from rtsnav.systems.nav import Hierarchy

    small = Grid(arena.passable[:40, :40].copy())
    try:
        h = Hierarchy.build(small, levels=levels, cluster_size=cluster)
    except NavError:
        return
    try:
        r = h.find_path(a, b)
    except NavError:
        return
    if r.found:                                      # (smoothed: corners in sight of each other)
        cells = r.cells
        assert tuple(cells[0]) == tuple(int(v) for v in a) and tuple(cells[-1]) == tuple(int(v) for v in b)
        assert small.passable[cells[:, 1], cells[:, 0]].all()
        assert all(small.line_of_sight(p, q) for p, q in zip(cells[:-1], cells[1:]))


@FUZZ
@given(st.lists(st.tuples(ANY_NUMBER, ANY_NUMBER, ANY_NUMBER), min_size=0, max_size=6),
       st.lists(st.tuples(st.integers(-2, 8), st.integers(-2, 8), st.integers(-2, 8)), max_size=4),
       st.one_of(st.just(0.4), ANY_NUMBER))
@example([(0, 0, 0), (4, 0, 0), (0, 4, 0)], [(0, 1, 5)], 0.4)
def test_random_triangle_soups(vertices, triangles, radius):
    """``NavMesh.from_triangles`` on any soup: a ``NavError`` saying what is wrong, or a mesh whose
    queries answer with finite points."""
    try:
        mesh = NavMesh.from_triangles(np.array(vertices, dtype=object), triangles, agent_radius=radius)
    except NavError:
        return
    r = mesh.find_path((0.5, 0.5, 0.0), (1.5, 1.5, 0.0))
    assert r.status.name in ("FOUND", "PARTIAL", "UNREACHABLE")
    assert np.isfinite(np.asarray(r.points, dtype=float)).all() if len(r.points) else True


_DECK: list = []


def _deck_mesh():
    """A road under a deck (a layered navmesh), baked once for the fuzz cases."""
    if not _DECK:
        _DECK.append(NavMesh.from_triangles(*_soup(), agent_radius=0.4))
    return _DECK[0]


@FUZZ
@given(st.sampled_from(["find_path", "raycast", "height_at", "span_at", "nearest_point", "heights_of", "footprint",
                        "add_link", "follow_surface"]),
       POINTS, POINTS, st.one_of(st.none(), ANY_NUMBER))
@example("footprint", (1.0, 1.0, 0.0), (1.0, 1.0, 0.0), "x")
def test_random_layered_navmesh_calls(call, p, q, number):
    """Every public query of a ``LayeredNavMesh`` on any input: a ``NavError``, or an answer of
    the documented kind — paths of finite points that start and end at heights of the mesh,
    heights finite or nan off the mesh, ids in range."""
    mesh = _deck_mesh()
    try:
        if call == "find_path":
            r = mesh.find_path(p, q)
            assert r.status.name in ("FOUND", "PARTIAL", "UNREACHABLE")
            if len(r.points):
                assert np.isfinite(r.points).all() and r.cost >= 0
                assert np.allclose(r.points[-1, 2], mesh.heights_of(r.points[-1:])[0], atol=0.6) or r.partial
        elif call == "raycast":
            clear, hit = mesh.raycast(p, q)
            assert isinstance(clear, bool) and np.isfinite(hit).all()
        elif call == "height_at":
            z = mesh.height_at(p)
            assert math.isnan(z) or 0.0 - 1e-9 <= z <= 4.0 + 1e-9
        elif call == "span_at":
            assert -1 <= mesh.span_at(p) < mesh.span_count
        elif call == "nearest_point":
            near = mesh.nearest_point(p, search_cells=number if number is not None else 64)
            assert near is None or (0 <= near[0] < mesh.span_count and np.isfinite(near[1]).all())
        elif call == "heights_of":
            z = mesh.heights_of(np.array([p, q], dtype=object))
            assert z.ndim == 1 and len(z) in (1, 2) and np.all(np.isnan(z) | ((z >= -1e-9) & (z <= 4 + 1e-9)))
        elif call == "footprint":
            g = mesh.footprint(number)
            assert g.passable.any() and g.cell_size >= mesh.config.cell_size
        elif call == "add_link":
            made = NavMesh.from_triangles(*_soup(), agent_radius=0.4).add_link(p, q, cost=number)
            assert made.cost >= 0 and math.isfinite(made.cost)
        else:
            before = np.array([[1.0, 10.0, 0.0]])
            now = np.array(p, dtype=object)[None] if np.ndim(p) == 1 else np.array(p)
            mesh.follow_surface(now, before)
            assert np.isfinite(now.astype(float)).all()
    except NavError:
        return


def _soup():
    """The road-under-a-deck triangles (``_deck_mesh``; a fresh mesh from them for links, which
    change it)."""
    v = np.array([[0, 0, 0], [20, 0, 0], [20, 20, 0], [0, 20, 0], [5, -2, 4], [15, -2, 4], [15, 22, 4], [5, 22, 4]],
                 dtype=float)
    return v, np.array([[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]])


@FUZZ
@given(st.lists(st.sampled_from(["--units", "0", "-3", "50", "x", "--frames", "1", "--level", "rivr", "river",
                                 "--size", "10x10", "800x600", "axb", "--orders", "/nonexistent.toml",
                                 "--bogus"]), max_size=6))
@example(["--units", "0"])
def test_random_demo_command_lines(argv):
    """The demo's command line: usage errors exit 2 with a message; anything accepted parses into
    sane numbers (the run itself is the demo tests' job)."""
    from rtsnav.game.__main__ import parse_args

    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            args = parse_args(["--headless"] + argv)
    except SystemExit as e:
        assert e.code == 2 and err.getvalue()
        return
    assert args.units >= 1 and args.frames >= 1 and min(args.size) > 0
