"""Level files: every built-in level validates; each kind of mistake gives the right LevelError
with file:line:col; the CLI lists, validates, bakes and draws."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.levels import LevelError
from rtsnav.levels.__main__ import main as levels_cli
from rtsnav.levels.level_file import BUILTIN_DIR, builtin_levels, load_level, parse_level


@pytest.mark.parametrize("name", ["river", "fortress", "forest", "highlands"])
def test_builtin_level_validates(name):
    assert name in builtin_levels()
    level = load_level(name)
    g = level.grid
    assert len(level.spawns) == 2
    for cells in level.spawns.values():
        assert g.passable[cells[:, 1], cells[:, 0]].all()
    a, b = (tuple(int(v) for v in level.spawns[t][0]) for t in sorted(level.spawns))
    assert g.connected(a, b)                                  # the teams can meet
    assert level.colors.shape == g.shape + (3,) and level.ground.shape == g.shape


def test_highlands_is_512_with_elevation_and_terrain_costs_appear_in_forest():
    high = load_level("highlands")
    assert high.grid.shape == (512, 512) and np.ptp(high.grid.heights) > 3
    forest = load_level("forest")
    costs = np.unique(forest.grid.cost[forest.grid.passable])
    assert all(np.isclose(costs, c).any() for c in (1.0, 1.6, 2.5, 4.0))      # road, grass, woods, mud


def test_forest_paths_follow_the_roads():
    from rtsnav.systems.nav import find_path

    grid = load_level("forest").grid
    road = (grid.cost == 1.0) & grid.passable
    ys, xs = np.nonzero(road)
    west, east = np.argmin(xs), np.argmax(xs)
    for a, b in (((xs[west], ys[west]), (xs[east], ys[east])), ((60, 1), (xs[east], ys[east]))):
        r = find_path(grid, a, b)
        assert r.found and road[r.cells[:, 1], r.cells[:, 0]].mean() > 0.95     # grass costs more than road


def test_gates_open_and_close_the_grid():
    river = load_level("river")
    cells = river.gates["north bridge"].cells
    assert river.grid.passable[cells[:, 1], cells[:, 0]].all()
    river.set_gate("north bridge", False)
    assert not river.grid.passable[cells[:, 1], cells[:, 0]].any()


GOOD = '''name = "t"
cell_size = 1.0

terrain = """
....
.#..
"""
elevation = """
0000
0120
"""

[legend]
"." = { walkable = true, cost = 1.0, color = "#00ff00" }
"#" = { walkable = false, color = "#808080", height = 1.0 }

[[spawn]]
team = 1
cells = [[0, 0]]

[[gate]]
name = "g"
cells = [[3, 0]]
'''


def _err(text):
    with pytest.raises(LevelError) as info:
        parse_level(text, "lvl.toml")
    return info.value


def test_good_level_parses():
    level = parse_level(GOOD, "lvl.toml")
    assert level.grid.shape == (2, 4) and not level.grid.passable[1, 1]
    assert level.grid.heights[1, 2] == pytest.approx(1.0) and level.ground[1, 1] == pytest.approx(1.5)


def test_bad_toml_gives_line_and_column():
    e = _err(GOOD.replace('cell_size = 1.0', 'cell_size = = 1.0'))
    assert (e.line, e.path) == (2, "lvl.toml") and e.col > 0 and "TOML" in str(e)


def test_ragged_row():
    e = _err(GOOD.replace(".#..\n", ".#.\n", 1))
    assert (e.line, e.col) == (6, 4) and "ragged" in str(e)


def test_unknown_legend_character():
    e = _err(GOOD.replace(".#..\n", ".#X.\n", 1))
    assert (e.line, e.col) == (6, 3) and "unknown terrain character 'X'" in str(e)


def test_spawn_in_a_wall():
    e = _err(GOOD.replace("cells = [[0, 0]]", "cells = [[1, 1]]"))
    assert e.line == 19 and "in a wall" in str(e)


def test_layers_of_different_sizes():
    e = _err(GOOD.replace("0000\n0120\n", "0000\n", 1))
    assert "elevation has 1 rows, terrain has 2" in str(e)


def test_missing_key_bad_colour_bad_cost_gate_on_wall():
    assert "missing required key 'terrain'" in str(_err(GOOD.replace("terrain =", "terrane =")))
    assert "color must look like" in str(_err(GOOD.replace('"#00ff00"', '"green"')))
    assert "cost must be a number >= 1" in str(_err(GOOD.replace("cost = 1.0", "cost = 0.5")))
    assert "not walkable" in str(_err(GOOD.replace("cells = [[3, 0]]", "cells = [[1, 1]]")))
    assert "outside the 4x2 map" in str(_err(GOOD.replace("cells = [[0, 0]]", "cells = [[9, 0]]")))


@pytest.mark.parametrize("name", ["river", "fortress", "forest"])
def test_broken_copy_of_each_builtin_level_reports_the_error(name, tmp_path):
    text = (BUILTIN_DIR / f"{name}.toml").read_text()
    lines = text.splitlines()
    row = next(i for i, text_line in enumerate(lines) if text_line.startswith("terrain")) + 3     # a terrain row
    lines[row] = lines[row][:-1]                                                   # make it ragged
    bad = tmp_path / f"{name}.toml"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(LevelError) as info:
        load_level(bad)
    assert info.value.line == row + 1 and "ragged" in str(info.value)


def test_movingai_map_loads_as_a_flat_level():
    level = load_level("arena.map")
    assert level.grid.shape == (49, 49) and set(level.spawns) == {1, 2}


def test_cli_list_validate_show(tmp_path, capsys):
    assert levels_cli(["list"]) == 0
    assert "river" in capsys.readouterr().out
    assert levels_cli(["validate", "fortress"]) == 0
    assert "ok" in capsys.readouterr().out
    out = tmp_path / "m.png"
    assert levels_cli(["show", "river", "--out", str(out), "--overlay", "paths,flow,hierarchy,navmesh"]) == 0
    assert out.read_bytes()[:4] == b"\x89PNG"
    layer = tmp_path / "v.png"                      # the navmesh's query layer draws something
    assert levels_cli(["show", "river", "--out", str(layer), "--overlay", "paths,flow,hierarchy,navmesh,visibility"]) == 0
    assert layer.read_bytes() != out.read_bytes()
    bad = tmp_path / "bad.toml"
    bad.write_text(GOOD.replace(".#..\n", ".#X.\n", 1))
    assert levels_cli(["validate", str(bad)]) == 2
    assert "bad.toml:6:3" in capsys.readouterr().err


@pytest.mark.parametrize("typo, fix, where", [
    ('cell_size = 1.0', 'cellsize = 1.0', "'cell_size'"),
    ('team = 1', 'taem = 1', "'team'"),
    ('name = "g"\ncells = [[3, 0]]', 'name = "g"\ncells = [[3, 0]]\nopne = false', "'open'"),
    ('cost = 1.0, color', 'cots = 1.0, color', "'cost'"),
])
def test_a_misspelt_key_is_an_error_naming_the_closest_key(typo, fix, where):
    e = _err(GOOD.replace(typo, fix, 1))
    assert "unknown key" in str(e) and f"did you mean {where}" in str(e) and e.line > 0


def test_a_byte_order_mark_is_accepted_and_a_deep_nesting_is_a_level_error(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    assert load_level(path).grid.shape == (2, 4)
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n" + GOOD)
    with pytest.raises(LevelError, match="nested too deeply"):
        load_level(deep)


def test_a_name_that_is_not_a_string_and_two_gates_on_one_cell_are_refused():
    assert "name must be a string" in str(_err(GOOD.replace('name = "t"', 'name = 42', 1)))
    twice = GOOD + '\n[[gate]]\nname = "h"\ncells = [[3, 0]]\n'
    assert "already in gate 'g'" in str(_err(twice))
