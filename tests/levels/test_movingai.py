"""Moving AI map and scenario import: real files load; every kind of malformed file gives a
LevelError naming file:line:col and what was expected."""

import pytest

from rtsnav.levels import LevelError, load_movingai_map, load_movingai_scenarios

GOOD_MAP = "type octile\nheight 3\nwidth 4\nmap\n..@.\n.GST\nOW..\n"


def test_shipped_benchmark_maps_load():
    g = load_movingai_map("AcrosstheCape.map")
    assert (g.width, g.height) == (768, 768) and g.name == "AcrosstheCape.map"
    scens = load_movingai_scenarios("AcrosstheCape.map.scen")
    assert len(scens) == 2940
    s = scens[0]
    assert s.map.endswith("AcrosstheCape.map") and s.width == 768 and len(s.start) == 2


def test_characters_map_to_passable_and_blocked(tmp_path):
    p = tmp_path / "t.map"
    p.write_text(GOOD_MAP)
    g = load_movingai_map(p)
    assert g.passable.tolist() == [[True, True, False, True],
                                   [True, True, True, False],
                                   [False, False, True, True]]


def _map_error(tmp_path, text):
    p = tmp_path / "bad.map"
    p.write_text(text)
    with pytest.raises(LevelError) as info:
        load_movingai_map(p)
    return info.value, str(p)


def test_missing_type_header(tmp_path):
    e, p = _map_error(tmp_path, "height 3\nwidth 4\nmap\n....\n")
    assert (e.line, e.col) == (1, 1) and str(e).startswith(f"{p}:1:1:") and "type octile" in str(e)


def test_empty_map_file(tmp_path):
    e, _ = _map_error(tmp_path, "")
    assert e.line == 1 and "empty file" in str(e)


def test_non_integer_height(tmp_path):
    e, _ = _map_error(tmp_path, "type octile\nheight three\nwidth 4\nmap\n")
    assert (e.line, e.col) == (2, 8) and "integer height" in str(e)


def test_missing_width_line(tmp_path):
    e, _ = _map_error(tmp_path, "type octile\nheight 3\nmap\n....\n")
    assert e.line == 3 and "width" in str(e)


def test_missing_map_keyword(tmp_path):
    e, _ = _map_error(tmp_path, "type octile\nheight 1\nwidth 4\n....\n")
    assert e.line == 4 and "'map'" in str(e)


def test_row_width_mismatch(tmp_path):
    e, p = _map_error(tmp_path, "type octile\nheight 3\nwidth 4\nmap\n....\n...\n....\n")
    assert (e.line, e.col) == (6, 4) and "3 characters, expected width 4" in str(e)
    assert str(e).startswith(f"{p}:6:4:")


def test_unknown_terrain_character(tmp_path):
    e, _ = _map_error(tmp_path, "type octile\nheight 2\nwidth 4\nmap\n....\n..X.\n")
    assert (e.line, e.col) == (6, 3) and "unknown terrain character 'X'" in str(e)


def test_too_few_rows(tmp_path):
    e, _ = _map_error(tmp_path, "type octile\nheight 3\nwidth 2\nmap\n..\n")
    assert e.line == 6 and "expected 3 map rows" in str(e)


def test_too_many_rows(tmp_path):
    e, _ = _map_error(tmp_path, "type octile\nheight 1\nwidth 2\nmap\n..\n..\n")
    assert e.line == 6 and "extra row" in str(e)


def test_non_ascii_file(tmp_path):
    p = tmp_path / "bad.map"
    p.write_bytes("type octile\nheight 1\nwidth 1\nmap\n\u00e9\n".encode("utf-8"))
    with pytest.raises(LevelError, match=r"bad.map:5: file is not ASCII"):
        load_movingai_map(p)


def test_missing_file_names_the_path(tmp_path):
    with pytest.raises(LevelError, match="no such file"):
        load_movingai_map(tmp_path / "nowhere.map")


GOOD_ROW = "0\tt.map\t4\t3\t0\t0\t3\t2\t3.82842712"


def _scen_error(tmp_path, text):
    p = tmp_path / "bad.map.scen"
    p.write_text(text)
    with pytest.raises(LevelError) as info:
        load_movingai_scenarios(p)
    return info.value


def test_scenarios_parse(tmp_path):
    p = tmp_path / "t.map.scen"
    p.write_text(f"version 1\n{GOOD_ROW}\n\n")
    (s,) = load_movingai_scenarios(p)
    assert s.start == (0, 0) and s.goal == (3, 2) and s.optimal == pytest.approx(3.82842712)


def test_scen_missing_version_header(tmp_path):
    e = _scen_error(tmp_path, GOOD_ROW + "\n")
    assert (e.line, e.col) == (1, 1) and "version 1" in str(e)


def test_scen_short_row(tmp_path):
    e = _scen_error(tmp_path, "version 1\n0\tt.map\t4\t3\t0\t0\n")
    assert e.line == 2 and e.col == len("0\tt.map\t4\t3\t0\t0") + 1 and "got 6" in str(e)


def test_scen_non_integer_coordinate(tmp_path):
    e = _scen_error(tmp_path, "version 1\n0\tt.map\t4\t3\tx\t0\t3\t2\t3.8\n")
    assert (e.line, e.col) == (2, 13) and "expected an integer, got 'x'" in str(e)


def test_scen_non_numeric_length(tmp_path):
    e = _scen_error(tmp_path, "version 1\n0\tt.map\t4\t3\t0\t0\t3\t2\tfar\n")
    assert e.line == 2 and e.col == 21 and "optimal length" in str(e)


def test_scen_negative_length(tmp_path):
    e = _scen_error(tmp_path, "version 1\n0\tt.map\t4\t3\t0\t0\t3\t2\t-1\n")
    assert "must be finite and >= 0" in str(e)


def test_scen_coordinate_outside_map(tmp_path):
    e = _scen_error(tmp_path, "version 1\n0\tt.map\t4\t3\t0\t0\t4\t2\t3\n")
    assert (e.line, e.col) == (2, 17) and "outside the map" in str(e)


def test_level_error_loses_nothing():
    e = LevelError("a/b.map", 3, 7, "bad thing")
    assert (e.path, e.line, e.col, e.message) == ("a/b.map", 3, 7, "bad thing")
    assert str(e) == "a/b.map:3:7: bad thing" and isinstance(e, ValueError)
