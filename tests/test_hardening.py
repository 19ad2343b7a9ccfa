"""Regression tests for every probe of the hardening issue: crashes, wrong answers, levels that
validated but were broken, cache faults and CLI manners."""

from __future__ import annotations

import io
import math
import os
import subprocess
import sys
from pathlib import Path

import esper
import numpy as np
import pytest

from rtsnav.components import NavigationAgent, NavState, Position, Velocity
from rtsnav.levels import LevelError, load_level, load_movingai_scenarios
from rtsnav.levels.level_file import BUILTIN_DIR, parse_level
from rtsnav.systems import Navigation, install
from rtsnav.systems.nav import FlowField, Grid, NavError, NavMesh, WaypointGraph, find_path
from rtsnav.systems.nav.bake_cache import read_baked, write_baked
from rtsnav.systems.nav.waypoints.hierarchy import Hierarchy

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------------ crashes
@pytest.fixture(scope="module")
def cape_mesh(cape, tmp_path_factory):
    return NavMesh.cached(cape, tmp_path_factory.mktemp("mesh"), agent_radius=0.4)


def test_partial_navmesh_query_that_used_to_crash_answers(cape_mesh):
    # the goal is off the mesh and snaps onto it by a polygon's corner: the exact search saw no
    # way from there and the answer was PARTIAL, to another point; the snapped goal is reachable
    # (the eroded grid connects the two, every leg below is clear) and is the path's end now
    r = cape_mesh.find_path((158.5, 634.5, 0), (613.5, 621.5, 0))
    assert r.status.name == "FOUND" and len(r.points) > 1
    assert math.dist(r.points[-1][:2], (613.5, 621.5)) < 1.0
    assert all(cape_mesh.raycast(a, b)[0] for a, b in zip(r.points[:-1], r.points[1:]))


def test_many_random_navmesh_queries_never_raise(cape_mesh):
    rng = np.random.default_rng(3)
    statuses = set()
    for _ in range(300):
        a, b = rng.uniform(0, 768, 2), rng.uniform(0, 768, 2)
        r = cape_mesh.find_path((*a, 0.0), (*b, 0.0))
        statuses.add(r.status.name)
        if r.status.name in ("FOUND", "PARTIAL"):
            assert len(r.points) >= 1 and np.isfinite(r.points).all()
    assert "FOUND" in statuses


def test_a_planner_error_fails_the_agent_and_later_ticks_run(cape_mesh, cape):
    esper.switch_world("hardening")
    try:
        nav = Navigation(cape, navmesh=cape_mesh)
        install(nav, prepare=False)

        def broken(*_):
            raise RuntimeError("boom")

        cape_mesh.start_query = broken                       # a planner that raises
        agent = NavigationAgent(target_position=(613.5, 621.5, 0.0), method="navmesh")
        esper.create_entity(Position(158.5, 634.5), Velocity(), agent)
        try:
            for _ in range(5):
                esper.process(1 / 30)                       # never raises
        finally:
            del cape_mesh.start_query                       # the class's own again
        assert agent.state is NavState.FAILED and "boom" in agent.failure_reason
        agent.target_position = (160.5, 630.5, 0.0)
        for _ in range(5):
            esper.process(1 / 30)
        assert agent.state in (NavState.FOLLOWING, NavState.FINISHED)
    finally:
        esper.switch_world("default")
        esper.delete_world("hardening")


def test_nan_agent_position_fails_that_agent_only(arena):
    esper.switch_world("hardening")
    try:
        install(Navigation(arena), prepare=False)
        bad = NavigationAgent(target_position=(12.5, 10.5, 0.0))
        good = NavigationAgent(target_position=(12.5, 10.5, 0.0))
        esper.create_entity(Position(math.nan, 10.5), Velocity(), bad)
        esper.create_entity(Position(3.5, 10.5), Velocity(), good)
        for _ in range(120):
            esper.process(1 / 30)
        assert bad.state is NavState.FAILED and "not finite" in bad.failure_reason
        assert good.is_target_reached()
    finally:
        esper.switch_world("default")
        esper.delete_world("hardening")


@pytest.mark.parametrize("point", [(math.nan, 1.0, 0.0), None, "ab", (1.0,), (1.0, math.inf)])
def test_bad_points_give_nav_errors_everywhere(point, arena):
    mesh = NavMesh.from_grid(arena, agent_radius=0.0)
    graph = WaypointGraph.floodfill(arena, (3, 10), spacing=4)
    good = (3.5, 10.5, 0.0)
    calls = [lambda: mesh.find_path(point, good), lambda: mesh.find_path(good, point),
             lambda: mesh.polygon_at(point), lambda: mesh.raycast(point, good), lambda: mesh.raycast(good, point),
             lambda: graph.find_path(point, good), lambda: graph.find_path(good, point)]
    if isinstance(point, tuple) and len(point) >= 2:
        calls.append(lambda: arena.world_to_cell(*point[:2]))
    for call in calls:
        with pytest.raises(NavError):
            call()


@pytest.mark.parametrize("cell", [("3", 1), (True, 1), (np.bool_(False), 2), (1, b"2"), (2.5, 1)])
def test_a_cell_is_two_whole_numbers_not_text_or_truth_values(cell):
    with pytest.raises(NavError, match="pair of integers"):
        find_path(Grid(np.ones((5, 5), dtype=bool)), cell, (3, 3))


@pytest.mark.parametrize("goals", [[(3.7, 10)], [(None, 1)], "ab", [(1, 2, 3)], [(-1, 0)]])
def test_flow_field_goals_are_checked_never_truncated(goals, arena):
    with pytest.raises(NavError):
        FlowField.build(arena, goals)


# -------------------------------------------------------------------------------- wrong answers
def test_connected_is_false_off_the_grid(arena):
    assert arena.connected((3, 10), (3, 10))
    assert not arena.connected((3, 10), (-1, -1))
    assert not arena.connected((3, 10), (10_000, 3))


def test_terrain_cost_beyond_float32_is_refused():
    cost = np.ones((4, 4))
    cost[1, 1] = 1e39
    with pytest.raises(NavError, match="beyond float32"):
        Grid(np.ones((4, 4), dtype=bool), cost)


def test_a_navmesh_cache_of_another_level_is_rejected(tmp_path):
    river, fortress = load_level("river").grid, load_level("fortress").grid
    NavMesh.cached(river, tmp_path, agent_radius=0.4)
    (river_file,) = tmp_path.glob("navmesh-*.npz")
    fortress_mesh = NavMesh.cached(fortress, tmp_path / "other", agent_radius=0.4)
    (fortress_file,) = (tmp_path / "other").glob("navmesh-*.npz")
    river_file.rename(fortress_file)                        # river's cache under fortress's name
    again = NavMesh.cached(fortress, tmp_path / "other", agent_radius=0.4)
    assert again.polygon_count == fortress_mesh.polygon_count


def test_checksum_covers_metadata(tmp_path):
    path = tmp_path / "x.npz"
    write_baked(path, 1, np.array([1.0, 2.0]), {"a": np.arange(3)}, grid="abc")
    with np.load(path) as f:
        parts = {k: f[k] for k in f.files}
    parts["meta"] = np.array([1.0, 99.0])                    # an origin changed, data untouched
    np.savez(path, **parts)
    with pytest.raises(NavError, match="checksum"):
        read_baked(path, 1, "test")


def test_a_forged_goal_bounds_file_with_in_range_boxes_is_rebaked_not_trusted(tmp_path):
    """A forger who can write the cache folder but not read the user's key: boxes shrunk to
    the start cell (in range, so every shape and index check passes) with the sha256 checksum an
    unkeyed format would take. Trusted, JPS+ with these bounds finds no path."""
    import hashlib

    from rtsnav.systems.nav import GoalBounds as GB
    from rtsnav.systems.nav import find_path

    passable = np.ones((12, 12), dtype=bool)
    passable[2:10, 6] = False
    grid = Grid(passable)
    GB.cached(grid, tmp_path)
    (path,) = tmp_path.glob("*.npz")
    meta, arrays, digest = read_baked(path, GB.FORMAT_VERSION, "goal bounds")
    boxes = next(k for k, v in arrays.items() if v.ndim >= 2)
    arrays[boxes] = np.zeros_like(arrays[boxes])
    payload = io.BytesIO()
    np.savez(payload, **arrays)
    data = payload.getvalue()
    h = hashlib.sha256()
    h.update(str(GB.FORMAT_VERSION).encode())
    h.update(np.ascontiguousarray(meta, dtype=np.float64).tobytes())
    h.update(digest.encode())
    h.update(data)
    np.savez(path, version=np.array(GB.FORMAT_VERSION), meta=meta, grid=np.array(digest),
             data=np.frombuffer(data, dtype=np.uint8), checksum=np.array(h.hexdigest()))
    with pytest.warns(RuntimeWarning, match="rebaking .*checksum mismatch"):
        bounds = GB.cached(grid, tmp_path)
    result = find_path(grid, (1, 5), (11, 5), method="jps+", goal_bounds=bounds)
    assert result.found and result.cost == pytest.approx(find_path(grid, (1, 5), (11, 5)).cost)


def test_a_cache_with_a_valid_checksum_but_a_missing_array_is_rebuilt(tmp_path, arena):
    mesh = NavMesh.cached(arena, tmp_path, agent_radius=0.4)
    (path,) = tmp_path.glob("navmesh-*.npz")
    meta, arrays, digest = read_baked(path, NavMesh.FORMAT_VERSION, "navmesh")
    del arrays["landmarks"]
    write_baked(path, NavMesh.FORMAT_VERSION, meta, arrays, grid=digest)
    with pytest.raises(NavError, match="lacks landmarks"):
        NavMesh.load(path)
    again = NavMesh.cached(arena, tmp_path, agent_radius=0.4)
    assert again.polygon_count == mesh.polygon_count


def test_hierarchy_cache_in_an_unwritable_folder_bakes_in_memory(tmp_path, arena):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.warns(RuntimeWarning, match="baking in memory"):
        h = Hierarchy.cached(arena, blocker / "sub")
    assert h.find_path((3, 10), (40, 30)).found


# ------------------------------------------------------------------ levels that validated but broke
GOOD = BUILTIN_DIR.joinpath("river.toml").read_text()


def _level_error(text: str) -> LevelError:
    with pytest.raises(LevelError) as info:
        parse_level(text, "lvl.toml")
    return info.value


@pytest.mark.parametrize("old,new,expected", [
    ('"." = { walkable = true', '"." = { walkable = "no"', "walkable must be true or false"),
    ('"=" = { walkable = true, cost = 1.0', '"=" = { walkable = true, cost = inf', "cost must be a number >= 1 and <= 3.40282e+38 (finite)"),
    ('"=" = { walkable = true, cost = 1.0', '"=" = { walkable = true, cost = true', "cost must be a number >= 1"),
    ("open = true", 'open = "false"', "open must be true or false"),
    ("team = 1", "team = true", "team must be an integer"),
    ("area = [4, 20, 20, 44]", "area = [0, 0, 100000, 100000]", "area [0, 0, 100000, 100000] must satisfy"),
    ("area = [4, 20, 20, 44]", "area = [0, 0, 99999999999999999, 3]", "must satisfy"),
    ("height_scale = 0.5", "height_scale = nan", "height_scale must be a number >= 0 (finite)"),
    ("cell_size = 1.0", "cell_size = inf", "cell_size must be a number >= 1e-06 and <= 1e+06 (finite)"),
])
def test_bad_level_values_are_refused(old, new, expected):
    assert old in GOOD
    e = _level_error(GOOD.replace(old, new, 1))
    assert expected in str(e) and e.line > 0


def test_legend_height_must_be_finite():
    assert 'height = 1.2' in GOOD
    for bad in ("nan", "inf"):
        assert "height must be a number" in str(_level_error(GOOD.replace("height = 1.2", f"height = {bad}", 1)))


def test_two_gates_with_one_name_are_refused():
    e = _level_error(GOOD.replace('name = "south bridge"', 'name = "north bridge"'))
    assert "defined twice" in str(e) and e.line > 0


def test_a_closed_gate_over_spawn_cells_is_refused():
    text = GOOD + "\n[[gate]]\nname = \"trap\"\ncells = [[5, 20]]\nopen = false\n"
    assert "starts closed over spawn cell (5, 20) of team 1" in str(_level_error(text))


def test_unterminated_string_names_line_and_column():
    e = _level_error(GOOD + '\n[[gate]]\nname = "oops\n')
    assert e.line > 0 and e.col > 0 and "not valid TOML" in str(e)


def test_messages_print_plain_integers():
    e = _level_error(GOOD.replace("cells = [[47, 14]", "cells = [[0, 0]", 1))
    assert "np.int64" not in str(e) and "(0, 0)" in str(e)


@pytest.mark.parametrize("header", ["version 7", "versionfoo", "version", "version 1 2"])
def test_scenario_files_of_unknown_versions_are_refused(header, tmp_path):
    path = tmp_path / "x.map.scen"
    path.write_text(f"{header}\n0\tarena.map\t49\t49\t1\t11\t1\t12\t1\n")
    with pytest.raises(LevelError, match="version"):
        load_movingai_scenarios(path)


# --------------------------------------------------------------------------------- CLI manners
def _cli(*args) -> subprocess.CompletedProcess:
    """``python -m args...`` in a child process: the real entry point, exit status and streams."""
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def _cli_here(*args) -> subprocess.CompletedProcess:
    """The same through the module's ``main(argv)`` in this process (the entry points are
    ``raise SystemExit(main())``, run by ``_cli`` in the first cases of each table): a second of
    interpreter start-up saved per case."""
    import contextlib
    import importlib
    import io

    module = importlib.import_module(f"{args[0]}.__main__")
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    try:
        os.chdir(ROOT)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = module.main(list(args[1:]))
            except SystemExit as stop:                  # argparse's own refusals
                status = stop.code if isinstance(stop.code, int) else 1
    finally:
        os.chdir(cwd)
    return subprocess.CompletedProcess(args, status, out.getvalue(), err.getvalue())


@pytest.mark.parametrize("args,expected", [
    (("rtsnav.levels", "show", "rivr"), "built-ins: forest, fortress, highlands, river"),
    (("rtsnav.levels", "show", "river", "--scale", "0"), "--scale must be 1..64"),
    (("rtsnav.levels", "show", "river", "--scale", "-2"), "--scale must be 1..64"),
    (("rtsnav.levels", "show", "river", "--overlay", "paths,nope"), "choose from paths, flow, hierarchy"),
    (("rtsnav.levels", "show", "overpass", "--overlay", "paths"), "drop --overlay"),
    (("rtsnav.levels", "show", "river", "--out", "/proc/forbidden/x.png"), "error:"),
    (("rtsnav.levels", "validate", "missing.toml"), "no such level file"),
    (("rtsnav.game", "--headless", "--level", "rivr"), "built-ins: forest, fortress, highlands, river"),
    (("rtsnav.game", "--headless", "--units", "0"), "expected a whole number >= 1"),
    (("rtsnav.game", "--headless", "--size", "800"), "expected WIDTHxHEIGHT"),
    (("rtsnav.game", "--headless", "--orders", "missing.toml"), "cannot read orders file"),
])
def test_cli_errors_are_one_line_and_status_2(args, expected):
    first_of_its_cli = args[1:] in (("show", "rivr"), ("--headless", "--level", "rivr"))
    res = (_cli if first_of_its_cli else _cli_here)(*args)
    assert res.returncode == 2, res.stderr
    assert expected in res.stderr and "Traceback" not in res.stderr


@pytest.mark.parametrize("text,expected", [
    ('[[order]]\nselect = 1\ntarget = [3.5, 4.5]\n', "needs tick"),
    ('[[gate]]\ntick = 1\nname = "west bridge"\n', "gates: 'north bridge', 'south bridge'"),
    ('[[order]\ntick = 1\n', "not valid TOML"),
    ('[[order]]\ntick = 1\nselect = 1\ntarget = [nan, 4.5]\n', "finite world units"),
    ('[[order]]\ntick = 1\nselect = 9\ntarget = [3.5, 4.5]\n', "select must be a team"),
    ('[[overlay]]\ntick = 1\nnumber = 7\n', "number must be 0..5"),
])
def test_bad_orders_files_are_refused_before_the_window_opens(text, expected, tmp_path):
    orders = tmp_path / "orders.toml"
    orders.write_text(text)
    run = _cli if expected == "needs tick" else _cli_here
    res = run("rtsnav.game", "--headless", "--frames", "2", "--units", "4", "--orders", str(orders))
    assert res.returncode == 2 and expected in res.stderr and "Traceback" not in res.stderr


def test_debug_flag_shows_the_traceback():
    res = _cli("rtsnav.levels", "--debug", "show", "rivr")
    assert res.returncode != 0 and "Traceback" in res.stderr


def test_bake_into_an_unwritable_folder_is_an_error_not_a_success(tmp_path):
    """``levels bake`` exists to save its bakes: a folder it cannot write is refused at once (a
    library load still falls back to memory with one warning: ``test_godot_parity``)."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = _cli_here("rtsnav.levels", "bake", "river", "--cache", str(blocker / "sub"))
    assert res.returncode == 2 and "cannot write the cache folder" in res.stderr and "Traceback" not in res.stderr
    assert "ready" not in res.stdout


@pytest.mark.parametrize("table, message", [
    ('[[order]]\ntick = 1\nselect = 1\ntraget = [10.5, 10.5]\n', "did you mean 'target'"),
    ('[[overlay]]\ntick = 1\nnumbr = 2\n', "did you mean 'number'"),
    ('\ufeff[[overlay]]\ntick = 1\nnumber = 2\n', None),
])
def test_orders_files_refuse_misspelt_keys_and_accept_a_byte_order_mark(tmp_path, table, message):
    from rtsnav.game.script import load_orders

    path = tmp_path / "orders.toml"
    path.write_text(table, encoding="utf-8")
    level = load_level("river")
    if message is None:
        assert load_orders(path, level)[0][1] == "overlay"
    else:
        with pytest.raises(LevelError, match=message):
            load_orders(path, level)


def test_numbers_at_the_edges_are_refused_with_nav_errors(arena):
    from rtsnav.systems.nav.crowd import Crowd
    from rtsnav.systems.nav.search.splice import splice_path
    from rtsnav.systems.nav.waypoints.hierarchy import Hierarchy

    open_grid = np.ones((8, 8), dtype=bool)
    for size in (1e-320, 1e308, math.nan, -1.0):
        with pytest.raises(NavError, match="cell_size"):
            Grid(open_grid, cell_size=size)
    with pytest.raises(NavError, match="finite"):
        arena.world_to_cells(np.array([[math.nan, 1.0]]))
    path = np.array([[1, 1], [2, 2], [3, 3]])
    for at in (-1, 3, 2.5):
        with pytest.raises(NavError, match="at must be"):
            splice_path(arena, path, at)
    crowd = Crowd(Grid(open_grid))
    with pytest.raises(NavError, match="group"):
        crowd.add_agents([(1.5, 1.5)], group=math.nan)
    with pytest.raises(NavError, match="cohesion"):
        crowd.add_agents([(1.5, 1.5)], group=1, cohesion=math.nan)
    with pytest.raises(NavError, match="levels must be"):
        Hierarchy.build(Grid(open_grid), levels=10**6)


def test_waypoint_graphs_and_links_refuse_what_would_give_wrong_paths():
    walled = np.ones((8, 8), dtype=bool)
    walled[:, 4] = False
    grid = Grid(walled)
    with pytest.raises(NavError, match="blocked cell"):
        WaypointGraph(grid, [[4, 1], [1, 1]], [[0, 1]])
    with pytest.raises(NavError, match="crosses a wall"):
        WaypointGraph(grid, [[1, 1], [6, 1]], [[0, 1]])
    with pytest.raises(NavError, match="not a pair of indexes"):
        WaypointGraph(grid, [[1, 1], [2, 1]], [[0, -1]])
    with pytest.raises(NavError, match="not a pair of indexes"):
        WaypointGraph(grid, [[1, 1], [2, 1]], [[0, 5]])
    mesh = NavMesh.from_grid(Grid(np.ones((8, 8), dtype=bool)))
    for cost in (-2.0, math.nan, math.inf):
        with pytest.raises(NavError, match="link cost"):
            mesh.add_link((1.5, 1.5, 0.0), (6.5, 6.5, 0.0), cost=cost)


def test_baking_into_a_folder_that_cannot_be_written_is_an_error_not_a_success(capsys):
    from rtsnav.levels.__main__ import main as levels_cli

    assert levels_cli(["bake", "arena.map", "--cache", "/proc/no-such-folder"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot write the cache folder") and "Traceback" not in err


@pytest.mark.parametrize("method", ["astar", "jps", "jps+", "bidirectional"])
def test_a_sliced_search_finished_before_an_edit_answers_for_the_edited_map(method):
    from rtsnav.systems.nav import find_path
    from rtsnav.systems.nav.search.sliced import SlicedSearch

    grid = Grid(np.ones((12, 12), dtype=bool))
    search = SlicedSearch(grid, (1, 6), (10, 6), method)
    first = search.run()
    assert first.found and any(tuple(c) == (5, 6) for c in first.cells)
    wall = np.array([[5, y] for y in range(0, 11)])
    grid.set_passable(wall, False)
    assert not search.done and search.result().status.name == "IN_PROGRESS"
    again = search.run()
    fresh = find_path(grid, (1, 6), (10, 6), method)
    assert again.found and again.cost == pytest.approx(fresh.cost)
    assert not any(tuple(c) in {tuple(w) for w in wall} for c in again.cells)


def test_degenerate_maps_load_or_are_refused_clearly(tmp_path, capsys):
    from rtsnav.levels.__main__ import main as levels_cli

    empty, one, row = tmp_path / "empty.map", tmp_path / "one.map", tmp_path / "row.map"
    empty.write_text("type octile\nheight 3\nwidth 4\nmap\n@@@@\n@@@@\n@@@@\n")
    one.write_text("type octile\nheight 1\nwidth 1\nmap\n.\n")
    row.write_text("type octile\nheight 1\nwidth 6\nmap\n......\n")
    with pytest.raises(LevelError, match="no open cell"):
        load_level(empty)
    assert levels_cli(["show", str(empty), "--out", str(tmp_path / "e.png")]) == 2
    assert "no open cell" in capsys.readouterr().err
    for path in (one, row):
        assert levels_cli(["show", str(path), "--out", str(tmp_path / "x.png"), "--overlay", "paths,flow,navmesh"]) == 0
    corridor = NavMesh.from_grid(Grid(np.ones((1, 50), dtype=bool)), agent_radius=0.4)   # eroded to nothing
    result = corridor.find_path((1.5, 0.5, 0.0), (40.5, 0.5, 0.0))
    assert not result.found and "empty" in result.reason
    clear, hit = corridor.raycast((1.5, 0.5), (40.5, 0.5))
    assert not clear and np.isfinite(hit).all()


@pytest.mark.parametrize("bake", [
    lambda g: NavMesh.from_grid(g, agent_radius=math.inf),
    lambda g: NavMesh.from_grid(g, subdivide=math.nan),
    lambda g: NavMesh.from_grid(g, subdivide=2.5),
    lambda g: NavMesh.from_triangles(np.array([[0, 0, 0], [1e12, 0, 0], [0, 1e12, 0]], float), np.array([[0, 1, 2]])),
])
def test_navmesh_bakes_refuse_numbers_at_the_edges_with_nav_errors(bake):
    with pytest.raises(NavError):
        bake(Grid(np.ones((8, 8), dtype=bool)))


def test_a_cache_path_that_is_a_fifo_is_rebuilt_not_waited_on(tmp_path):
    import os

    from rtsnav.systems.nav.bake_cache import read_baked

    fifo = tmp_path / "navmesh-x.npz"
    os.mkfifo(fifo)
    with pytest.raises(NavError, match="not a regular file"):
        read_baked(fifo, 1, "navmesh")


def test_a_grids_arrays_are_read_only_and_edits_go_through_its_methods():
    """Issue 38: writing into ``grid.passable`` (or ``cost`` / ``heights``) used to slip past every
    cache (A*, JPS, JPS+ and bidirectional walked through the new wall); now it raises, and the
    edit methods are seen by every search."""
    from rtsnav.systems.nav import Grid, find_path

    mine = np.ones((10, 10), dtype=bool)
    grid = Grid(mine, cost=np.ones((10, 10)), heights=np.zeros((10, 10)))
    for array in (grid.passable, grid.cost, grid.heights):
        with pytest.raises(ValueError, match="read-only"):
            array[3, 3] = 0
    mine[0, 0] = False                                     # the caller's own array stays theirs
    assert grid.passable[0, 0]
    for method in ("astar", "jps", "jps+", "bidirectional"):
        assert find_path(grid, (0, 3), (9, 3), method).found
    grid.set_passable(np.array([[5, y] for y in range(10)]), False)
    for method in ("astar", "jps", "jps+", "bidirectional"):
        assert not find_path(grid, (0, 3), (9, 3), method).found, method


def test_a_forged_cache_with_out_of_range_indexes_is_rebaked_with_one_warning(tmp_path):
    """Issue 38: the checksum is unkeyed, so anyone who can write the cache folder can forge a file
    that passes it; its indexes are checked before a kernel reads them (the kernels do not check
    bounds), and the file is baked again, with a warning saying why."""
    from rtsnav.systems.nav import Grid, NavMesh, find_path
    from rtsnav.systems.nav.bake_cache import read_baked, write_baked
    from rtsnav.systems.nav.search.jps_plus import JumpTable, jump_table

    passable = np.ones((30, 40), dtype=bool)
    passable[5:25, 20] = False
    grid = Grid(passable)
    NavMesh.cached(grid, tmp_path, agent_radius=0.4)
    path = next(tmp_path.glob("navmesh-*"))
    meta, arrays, digest = read_baked(path, NavMesh.FORMAT_VERSION, "navmesh")
    arrays["tri_triangles"] = arrays["tri_triangles"].copy()
    arrays["tri_triangles"][0, 0] = 10**6                     # points far outside the mesh
    write_baked(path, NavMesh.FORMAT_VERSION, meta, arrays, grid=digest)
    with pytest.warns(RuntimeWarning, match="tri_triangles"):
        mesh = NavMesh.cached(grid, tmp_path, agent_radius=0.4)
    assert mesh.find_path((3.5, 15.5, 0.0), (35.5, 15.5, 0.0)).found

    jump_table(grid, tmp_path).current()
    table_path = next(tmp_path.glob("jps*"))
    _, tables, table_digest = read_baked(table_path, JumpTable.FORMAT_VERSION, "JPS+ table")
    forged = tables["table"].copy()
    forged[0, :] = 10**7                                      # jumps far off the grid
    write_baked(table_path, JumpTable.FORMAT_VERSION, np.zeros(0), {"table": forged}, grid=table_digest)
    fresh = Grid(passable)
    with pytest.warns(RuntimeWarning, match="JPS"):
        jump_table(fresh, tmp_path).current()
    assert find_path(fresh, (3, 15), (35, 15), "jps+").found


def test_probes_of_the_newer_surfaces_get_documented_errors():
    """Issue 38, a fresh probe campaign (layered meshes, triangle bakes, the crowd's structures,
    Panda3D model bakes): each of these was a raw Python error or silently taken."""
    from rtsnav.systems.nav import Crowd, Grid, NavError, NavMesh

    v = np.array([[0, 0, 0], [20, 0, 0], [20, 20, 0], [0, 20, 0], [5, -2, 4], [15, -2, 4], [15, 22, 4], [5, 22, 4]], float)
    t = np.array([[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]])
    with pytest.raises(NavError, match="did you mean 'cell_size'"):
        NavMesh.from_triangles(v, t, cellsize=1)
    with pytest.raises(NavError, match="agent_climb or max_climb"):
        NavMesh.from_triangles(v, t, agent_climb=1, max_climb=2)
    deck = NavMesh.from_triangles(v, t, agent_radius=0.4)
    for bad in (0, -1, float("nan"), "a"):
        with pytest.raises(NavError, match="cell_size"):
            deck.footprint(bad)
    assert deck.footprint(1e300).cell_size <= 30                  # capped at the mesh's size, no 23 GiB grid
    for bad in (-5, float("nan"), 10**9):
        with pytest.raises(NavError, match="search_cells"):
            deck.nearest_point((1, 1, 0), search_cells=bad)
        with pytest.raises(NavError, match="search_cells"):
            NavMesh.from_grid(Grid(np.ones((8, 8), bool))).nearest_point((1, 1, 0), search_cells=bad)
    assert deck.span_at((2.4e307, 1.0, 0.0)) == -1 and deck.heights_of(np.array([[2.4e307, 0.0, 0.0]]))[0] == 0
    flat = NavMesh.from_grid(Grid(np.ones((20, 20), bool)))
    assert flat.nearest_point((1e300, 0.0, 0.0)) is None             # a cell number past 64 bits
    assert not flat.find_path((1.0, 1.0, 0.0), (-1e300, 5.0, 0.0)).found
    with pytest.raises(NavError, match="follow_surface"):
        deck.follow_surface(np.zeros((3, 3)), np.zeros((2, 3)))
    grid = Grid(np.ones((10, 10), bool))
    for kw in ({"navmesh": grid}, {"navmesh": "x"}, {"waypoint_graph": 3}, {"hierarchy": grid}):
        with pytest.raises(NavError, match="must be a"):
            Crowd(grid, **kw)


def test_model_bakes_and_the_overpass_command_line_refuse_bad_input():
    """A Panda3D model bake takes a non-empty NodePath and a tag name; the overpass demo's
    ``--seconds`` is a positive number (nan/inf were a traceback, -1 ran nothing and exited 0)."""
    pytest.importorskip("panda3d")
    from panda3d.core import NodePath

    from rtsnav.game.model_geometry import navmesh_from_model
    from rtsnav.systems.nav import NavError

    for model, tag in (("scene.egg", None), (NodePath(), None), (NodePath("root"), 5)):
        with pytest.raises(NavError, match="model|walkable_tag"):
            navmesh_from_model(model, walkable_tag=tag)
    from rtsnav.game.overpass import main

    for seconds in ("nan", "inf", "-1", "0"):
        with pytest.raises(SystemExit) as stop:                 # argparse: usage, error, status 2
            main(["--headless", "--seconds", seconds])
        assert stop.value.code == 2
    p = subprocess.run([sys.executable, "-m", "rtsnav.game.overpass", "--headless", "--seconds", "nan"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "error: argument --seconds" in p.stderr and "Traceback" not in p.stderr


def test_point_agents_far_targets_and_odd_numbers_do_not_kill_a_tick():
    """Issue 38 probes: agents of radius 0 stacked on one spot divided by zero in the contact
    hash (a tick died); a group id past 64 bits, a text cell size ('1' was taken) and a text
    origin were raw Python errors; a target at 1e308 overflowed to the region's first cell."""
    from rtsnav.systems.nav import Crowd, Grid, NavError

    grid = Grid(np.ones((40, 40), bool))
    crowd = Crowd(grid)
    ids = crowd.add_agents(np.array([[5.5, 5.5], [5.5, 5.5], [8.5, 5.5]]), radius=0)
    crowd.move(ids, target=(30.5, 30.5))
    for _ in range(30):
        crowd.update(1 / 30)
    assert np.isfinite(crowd.positions).all() and crowd.positions[:, 0].min() > 5.5
    with pytest.raises(NavError, match="group"):
        Crowd(grid).add_agents(np.array([[5.5, 5.5]]), group=2**63)
    for kw in ({"cell_size": "1"}, {"origin": "ab"}, {"origin": 5}, {"origin": (True, 0)}):
        with pytest.raises(NavError, match="cell_size|origin"):
            Grid(np.ones((4, 4), bool), **kw)
    assert grid.world_to_cells(np.array([[1e308, -1e308]])).tolist() == [[2**31 - 1, -2**31]]
    far = Crowd(grid)
    ids = far.add_agents(np.array([[5.5, 5.5]]))
    far.move(ids, target=(1e308, 1e308))
    for _ in range(200):
        far.update(1 / 30)
    assert far.positions[0, 0] > 15 and far.positions[0, 1] > 15        # towards the far corner, not cell (0, 0)
