"""Regression tests of the issue-38 probes on the calls the first campaigns did not reach: grid
edits, the crowd's other calls, component fields set after construction, and two command lines.
Each case here was a raw Python error, a silently changed value, a dead tick or a cliff."""

from __future__ import annotations

import math
import subprocess
import sys

import esper
import numpy as np
import pytest

from rtsnav.components import NavigationAgent, NavigationObstacle, Position, Velocity
from rtsnav.systems import Navigation, install
from rtsnav.systems.nav import Crowd, Grid, NavError, find_path


@pytest.mark.parametrize("cells", [None, "x", math.nan, 2 ** 70, [[0.5, 1]], [[True, False]], [[0, 99]],
                                   np.zeros((2, 2, 2), int), {"a": 1}, [[-1, 0]], np.array([[2 ** 63, 0]], np.uint64)])
def test_grid_edits_refuse_cells_that_are_not_grid_cells(cells):
    """``set_passable`` / ``set_cost`` / ``set_layers`` took 0.5 as cell 0 and True as 1, and
    None, text, NaN or a huge number were raw TypeError / ValueError / OverflowError."""
    grid = Grid(np.ones((5, 6), dtype=bool))
    for edit, value in (("set_passable", False), ("set_cost", 2.0), ("set_layers", 1)):
        with pytest.raises(NavError, match="cells"):
            getattr(grid, edit)(cells, value)
    assert grid.passable.all() and (grid.cost == 1).all() and grid.layers is None


def test_grid_edits_refuse_values_that_would_mean_something_else():
    """``set_passable(cells, "no")`` opened the cells (truthy text), ``set_cost`` took inf (a
    passable cell no search could cross) and 1e39 (inf in float32), and text was a raw TypeError."""
    grid = Grid(np.ones((5, 6), dtype=bool))
    for value in ("no", 0, None, np.array([True])):
        with pytest.raises(NavError, match="passable"):
            grid.set_passable([[1, 1]], value)
    for value in (math.inf, 1e39, math.nan, 0.5, "x", None, True):
        with pytest.raises(NavError, match="cost"):
            grid.set_cost([[1, 1]], value)
    grid.set_passable(np.array([[1.0, 1.0]]), False)             # integral floats are cells
    grid.set_cost([(2, 2)], 3)
    assert not grid.passable[1, 1] and grid.cost[2, 2] == 3
    assert find_path(grid, (0, 0), (5, 4)).found


def test_crowd_calls_refuse_what_they_cannot_use():
    """The crowd's other calls: ``cells_changed`` / ``occupants`` raised raw numpy errors,
    ``pause(ids, "no")`` paused, a 2-D id array was taken, ``path([0])`` was a raw TypeError,
    ``prepare(3)`` / ``prepare(navigation_layers=-1)`` raw errors, a timeout of "x" was ignored."""
    crowd = Crowd(Grid(np.ones((10, 12), dtype=bool)), cache_dir=None)
    ids = crowd.add_agents([(1.5, 1.5), (3.5, 3.5)])
    calls = [lambda: crowd.cells_changed(None), lambda: crowd.cells_changed([[0.5, 1]]),
             lambda: crowd.occupants("x"), lambda: crowd.occupants([[99, 0]]),
             lambda: crowd.pause(ids, "no"), lambda: crowd.set_speed([[0]], 3.0), lambda: crowd.status([[0, 1]]),
             lambda: crowd.path([0]), lambda: crowd.path(0.5), lambda: crowd.prepare(3, freeze_gc=False),
             lambda: crowd.prepare("astar", freeze_gc=False),
             lambda: crowd.prepare(["astar"], navigation_layers=-1, freeze_gc=False),
             lambda: crowd.prepare(["astar"], navigation_layers=[2 ** 40], freeze_gc=False),
             lambda: crowd.finish_rebuilds("x"), lambda: crowd.finish_rebuilds(-1),
             lambda: crowd.add_agents([(5.5, 5.5)], avoidance="no")]
    for call in calls:
        with pytest.raises(NavError):
            call()
    assert crowd.alive.sum() == 2 and not crowd.status(ids).paused.any()
    assert crowd.occupants([(1, 1)]).tolist() == [0] and crowd.path(0).shape[1] == 3


@pytest.fixture
def world():
    esper.switch_world("hardening-calls")
    yield
    esper.switch_world("default")
    esper.delete_world("hardening-calls")


def test_component_fields_set_after_construction_are_checked(world):
    """``NavigationObstacle`` checked its fields only in the constructor: ``obstacle.velocity =
    "ab"`` then killed the next tick; ``radius = nan``, ``avoidance_layers = -1`` and
    ``affect_navigation_mesh = "no"`` were taken. Bool fields of ``NavigationAgent`` took ``""`` as
    False, coordinates took ``True`` and ``"3"``, and a malformed target became a silent NaN."""
    install(Navigation(Grid(np.ones((20, 30), dtype=bool)), cache_dir=False), prepare=False)
    rock = NavigationObstacle(radius=1.0)
    esper.create_entity(Position(10.0, 10.0), rock)
    agent = NavigationAgent(target_position=(25.5, 10.5, 0.0), avoidance_enabled=True)
    body = Position(3.5, 10.5)
    esper.create_entity(body, Velocity(), agent)
    esper.process(1 / 30)
    for name, value in (("velocity", "ab"), ("radius", math.nan), ("height", -1.0), ("avoidance_layers", -1),
                        ("affect_navigation_mesh", "no"), ("vertices", [(0, 0)]), ("use_3d_avoidance", None)):
        with pytest.raises(ValueError, match=f"NavigationObstacle.{name}"):
            setattr(rock, name, value)
    for name, value in (("use_3d_avoidance", ""), ("paused", 1), ("avoidance_enabled", "yes")):
        with pytest.raises(ValueError, match=f"NavigationAgent.{name}"):
            setattr(agent, name, value)
    for value in (True, "3"):
        with pytest.raises(ValueError, match="Position.x"):
            body.x = value
    for value in (0, "ab", (1, 2, 3, 4), (True, 2)):
        with pytest.raises(ValueError, match="target_position"):
            agent.target_position = value
    for _ in range(300):
        esper.process(1 / 30)
    assert agent.is_target_reached() and rock.radius == 1.0


def test_a_huge_obstacle_outline_is_refused_by_avoidance_not_turned_into_billions_of_discs(world):
    """An outline 1e9 units across asked for ~7e9 avoidance discs: the process ran out of memory.
    Now avoidance refuses it with one warning; it still carves its cells."""
    nav = Navigation(Grid(np.ones((20, 30), dtype=bool)), cache_dir=False)
    install(nav, prepare=False)
    esper.create_entity(Position(3.5, 10.5), Velocity(), NavigationAgent(target_position=(25.5, 10.5, 0.0)))
    wall = NavigationObstacle(vertices=[(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0)], affect_navigation_mesh=True)
    esper.create_entity(Position(15.0, 15.0), wall)
    esper.process(1 / 30)
    wall.vertices = [(0.0, 0.0), (1e9, 0.0), (0.0, 1e9)]
    with pytest.warns(RuntimeWarning, match="avoidance discs"):
        esper.process(1 / 30)
    assert not nav.grid.passable[16, 16]                         # carved: the outline covers it


@pytest.mark.parametrize("argv", [["--agents", "-5"], ["--agents", "100000000"], ["--ticks", "-1"],
                                  ["--sample", "0"], ["--seed", "-1"], ["--range", "-3"]])
def test_the_systems_demo_refuses_bad_numbers_with_a_usage_error(argv, capsys):
    """``python -m rtsnav.systems.demo``: negative counts were numpy tracebacks, ``--sample 0`` a
    ZeroDivisionError, ``--agents 1e8`` ran for minutes."""
    from rtsnav.systems.demo import parse_args

    with pytest.raises(SystemExit) as e:
        parse_args(["--agents-only", *argv])
    assert e.value.code == 2 and "error: argument" in capsys.readouterr().err


@pytest.mark.slow   # two demo processes (~6 s)
def test_the_demos_report_a_map_without_open_cells_and_too_many_units():
    """A map with no open cell was a numpy ValueError traceback; ``--units 10000000`` on the
    overpass demo ran out of memory."""
    from rtsnav.systems.demo import main

    p = subprocess.run([sys.executable, "-c", "import sys; from rtsnav.systems.demo import main; "
                        "sys.exit(main(['--agents-only', '--map', 'walls.map', '--agents', '3', '--ticks', '2']))"],
                       capture_output=True, text=True, timeout=300, cwd=_walls_map_dir())
    assert p.returncode == 2 and p.stderr.startswith("error:") and "no open cell" in p.stderr
    assert "Traceback" not in p.stderr and main is not None
    p = subprocess.run([sys.executable, "-m", "rtsnav.game.overpass", "--headless", "--units", "10000000"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "--units" in p.stderr and "Traceback" not in p.stderr


def _walls_map_dir() -> str:
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp(prefix="rtsnav-walls-"))
    (folder / "walls.map").write_text("type octile\nheight 2\nwidth 3\nmap\n@@@\n@@@\n")
    return str(folder)


def test_a_triangle_far_taller_than_its_floor_is_refused_before_it_is_sampled():
    """A steep triangle 1e5 units tall over a 4-unit floor took 13 s to bake, 1e7 units asked for
    34 GiB (its wall was sampled point by point): now a ``NavError`` says why, at once."""
    from rtsnav.systems.nav import NavMesh

    with pytest.raises(NavError, match="samples"):
        NavMesh.from_triangles(np.array([(0, 0, 0), (4, 0, 0), (0, 4, 1e7)], float), [(0, 1, 2)], agent_radius=0.4)
    assert NavMesh.from_triangles(np.array([(0, 0, 0), (4, 0, 0), (0, 4, 1.0)], float), [(0, 1, 2)],
                                  agent_radius=0.4).polygon_count >= 1
