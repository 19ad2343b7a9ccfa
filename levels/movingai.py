"""Moving AI Lab benchmark maps (``.map``) and scenarios (``.map.scen``).

Formats (https://movingai.com/benchmarks/formats.html; Sturtevant, "Benchmarks for Grid-Based
Pathfinding", IEEE TCIAIG 4(2), 2012)::

    type octile          .map: header, then H rows of W characters
    height H             passable: . G S      blocked: @ O T W
    width W
    map

    version 1            .map.scen: tab-separated rows
    bucket  map  width  height  start_x  start_y  goal_x  goal_y  optimal_length

x is the column and y the row, as everywhere in rtsnav. A ``name`` that is not an existing path
is looked up in the maps shipped with rtsnav (``levels/maps/``).

>>> from rtsnav.levels import load_movingai_map, load_movingai_scenarios
>>> grid = load_movingai_map("arena.map")
>>> grid.width, grid.height
(49, 49)
>>> load_movingai_scenarios("arena.map.scen")[0].optimal
1.0
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rtsnav.systems.nav.grid import Grid

from .errors import LevelError, read_text_file

__all__ = ["Scenario", "load_movingai_map", "load_movingai_scenarios", "resolve_map_path",
           "MAPS_DIR", "PASSABLE_CHARS", "BLOCKED_CHARS"]

MAPS_DIR = Path(__file__).resolve().parent / "maps"
#: Scenario file versions this reader understands (Moving AI publishes 1; 1.0 appears in copies).
SCENARIO_VERSIONS = ("1", "1.0")
PASSABLE_CHARS = ".GS"
BLOCKED_CHARS = "@OTW"

_CHAR_CODE = np.full(256, 2, dtype=np.uint8)     # 2 = unknown character
for _c in PASSABLE_CHARS:
    _CHAR_CODE[ord(_c)] = 1
for _c in BLOCKED_CHARS:
    _CHAR_CODE[ord(_c)] = 0


@dataclass(frozen=True, slots=True)
class Scenario:
    """One benchmark query: cells are ``(x, y)``; ``optimal`` is the octile optimum (0 = none)."""

    bucket: int
    map: str
    width: int
    height: int
    start: tuple[int, int]
    goal: tuple[int, int]
    optimal: float


def resolve_map_path(name: str | Path) -> Path:
    """``name`` as given if it exists, else the file of that name among the shipped maps."""
    if not isinstance(name, (str, os.PathLike)):
        raise LevelError(repr(name), 0, 0, f"a map is a file path (str or Path), got {type(name).__name__}")
    p = Path(name)
    if p.exists():
        return p
    shipped = MAPS_DIR / p.name
    if shipped.exists():
        return shipped
    raise LevelError(p, 0, 0, f"no such file (also looked in {MAPS_DIR})")


def _read_lines(path: Path) -> list[str]:
    return read_text_file(path, "file", encoding="ascii").splitlines()


def _header_value(path: Path, lines: list[str], index: int, key: str) -> int:
    if index >= len(lines):
        raise LevelError(path, index + 1, 1, f"file ends early: expected '{key} <integer>'")
    parts = lines[index].split()
    if len(parts) != 2 or parts[0] != key:
        raise LevelError(path, index + 1, 1, f"expected '{key} <integer>', got {lines[index]!r}")
    try:
        value = int(parts[1])
    except ValueError:
        col = lines[index].index(parts[1]) + 1
        raise LevelError(path, index + 1, col, f"expected an integer {key}, got {parts[1]!r}") from None
    if value <= 0:
        col = lines[index].index(parts[1]) + 1
        raise LevelError(path, index + 1, col, f"{key} must be > 0, got {value}")
    return value


def load_movingai_map(path: str | Path, *, cell_size: float = 1.0,
                      origin: tuple[float, float] = (0.0, 0.0)) -> Grid:
    """Load a Moving AI ``.map`` into a ``Grid`` (unit costs, flat).

    Raises:
        LevelError: ``file:line:col`` for a missing or wrong header, a row of the wrong width,
            missing or extra rows, or an unknown terrain character.
    """
    p = resolve_map_path(path)
    lines = _read_lines(p)
    if not lines or lines[0].split() != ["type", "octile"]:
        got = repr(lines[0]) if lines else "an empty file"
        raise LevelError(p, 1, 1, f"expected header 'type octile', got {got}")
    height = _header_value(p, lines, 1, "height")
    width = _header_value(p, lines, 2, "width")
    if len(lines) < 4 or lines[3].strip() != "map":
        got = repr(lines[3]) if len(lines) > 3 else "end of file"
        raise LevelError(p, 4, 1, f"expected the line 'map', got {got}")
    rows = lines[4:]
    while rows and not rows[-1].strip() and len(rows) > height:
        rows.pop()                                  # tolerate trailing blank lines
    if len(rows) < height:
        raise LevelError(p, 5 + len(rows), 1, f"expected {height} map rows (header says height "
                         f"{height}), file ends after {len(rows)}")
    if len(rows) > height:
        raise LevelError(p, 5 + height, 1, f"extra row: header says height {height}")
    for i, row in enumerate(rows):
        if len(row) != width:
            col = min(len(row), width) + 1
            raise LevelError(p, 5 + i, col, f"row has {len(row)} characters, expected width {width}")
    codes = _CHAR_CODE[np.frombuffer("".join(rows).encode("ascii"), dtype=np.uint8)].reshape(height, width)
    if (codes == 2).any():
        y, x = np.argwhere(codes == 2)[0]
        raise LevelError(p, 5 + int(y), int(x) + 1, f"unknown terrain character {rows[y][x]!r}; "
                         f"expected one of '{PASSABLE_CHARS}' (passable) or '{BLOCKED_CHARS}' (blocked)")
    return Grid(codes == 1, cell_size=cell_size, origin=origin, name=p.name)


def load_movingai_scenarios(path: str | Path) -> list[Scenario]:
    """Load a Moving AI ``.map.scen`` file.

    Raises:
        LevelError: ``file:line:col`` for a missing ``version`` line, a row with fewer than 9
            tab-separated fields, a non-integer coordinate, a non-numeric or negative length.
    """
    p = resolve_map_path(path)
    lines = _read_lines(p)
    header = lines[0].split() if lines else []
    if len(header) != 2 or header[0] != "version" or header[1] not in SCENARIO_VERSIONS:
        got = repr(lines[0]) if lines else "an empty file"
        raise LevelError(p, 1, 1, f"expected header 'version 1' (versions {', '.join(SCENARIO_VERSIONS)} "
                         f"are read), got {got}")
    out: list[Scenario] = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) < 9:
            fields = line.split()        # some copies use spaces
        if len(fields) < 9:
            raise LevelError(p, number, len(line) + 1, f"expected 9 tab-separated fields "
                             "(bucket map width height start_x start_y goal_x goal_y optimal), "
                             f"got {len(fields)}")
        cols = _field_columns(line, fields)
        ints = []
        for k in (0, 2, 3, 4, 5, 6, 7):
            try:
                ints.append(int(fields[k]))
            except ValueError:
                raise LevelError(p, number, cols[k], f"expected an integer, got {fields[k]!r}") from None
        try:
            optimal = float(fields[8])
        except ValueError:
            raise LevelError(p, number, cols[8], f"expected a number (optimal length), "
                             f"got {fields[8]!r}") from None
        if not math.isfinite(optimal) or optimal < 0:
            raise LevelError(p, number, cols[8], f"optimal length must be finite and >= 0, got {optimal}")
        bucket, width, height, sx, sy, gx, gy = ints
        for k, (v, lim) in zip((4, 5, 6, 7), ((sx, width), (sy, height), (gx, width), (gy, height))):
            if not 0 <= v < lim:
                raise LevelError(p, number, cols[k], f"coordinate {v} outside the map (0..{lim - 1})")
        out.append(Scenario(bucket, fields[1], width, height, (sx, sy), (gx, gy), optimal))
    return out


def _field_columns(line: str, fields: list[str]) -> list[int]:
    cols, at = [], 0
    for f in fields:
        at = line.index(f, at)
        cols.append(at + 1)
        at += len(f)
    return cols
