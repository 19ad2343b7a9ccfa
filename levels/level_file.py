"""The rtsnav level format: a human-editable TOML file.

```toml
name = "River crossing"
description = "Two bridges over a river."
cell_size = 1.0              # world units per cell, 1e-6 .. 1e6
height_scale = 0.5           # world units per elevation digit, >= 0

terrain = '''                 # one character per cell, rows top (y = 0) to bottom
....,,~~....
'''
elevation = '''              # optional, same size, digits 0-9 (times height_scale)
000011000000
'''

[legend]                     # one entry per terrain character (after the layers: TOML tables
"." = { walkable = true, cost = 1.0, color = "#6b8f47" }      # take every key below them)
"#" = { walkable = false, color = "#6e6e6e", height = 1.5 }   # height: extra world units
"~" = { walkable = false, color = "#3a6fb5", height = -0.3 }
"," = { walkable = true, cost = 3.0, color = "#5b4a30" }      # mud: 3x slower

[[spawn]]                    # where each team's units start (none: two teams on the halves
team = 1                     #  of the biggest open region, as on a Moving AI map); team 1 .. 2**31 - 1
area = [2, 2, 10, 12]        # x0, y0, x1, y1 cells (x1, y1 exclusive)

[[waypoint]]                 # hand-placed waypoints (optional)
cell = [5, 5]

[[gate]]                     # cells that open/close at runtime
name = "north bridge"
cells = [[6, 3], [7, 3]]
open = true
```

``load_level`` validates everything and raises ``LevelError`` with ``file:line:col`` and what was
expected. Rows are counted from the top of the layer (y = 0 is the first row).
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rtsnav import checks
from rtsnav.checks import known_keys
from rtsnav.names import unknown_name
from rtsnav.systems.nav.grid import CELL_SIZE_RANGE, FLOAT32_MAX, Grid

from .errors import LevelError, read_text_file

__all__ = ["Level", "Gate", "TerrainType", "load_level", "parse_level", "BUILTIN_DIR", "builtin_levels"]

#: The highest team number a spawn may name (teams are stored as 32-bit numbers).
MAX_TEAM = 2 ** 31 - 1
BUILTIN_DIR = Path(__file__).resolve().parent / "builtin"
_COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")
#: The keys each part of a level file may have (anything else is a mistake: "did you mean").
KEYS = {"level": ("name", "description", "cell_size", "height_scale", "legend", "terrain", "elevation", "spawn",
                  "waypoint", "gate"),
        "legend": ("walkable", "cost", "color", "height"),
        "spawn": ("team", "area", "cells", "cell"),
        "waypoint": ("area", "cells", "cell"),
        "gate": ("name", "area", "cells", "cell", "open")}


@dataclass(frozen=True, slots=True)
class TerrainType:
    """One legend entry: walkable, cost (≥ 1), colour (RGB 0..1) and a height offset."""

    char: str
    walkable: bool
    cost: float
    color: tuple[float, float, float]
    height: float


@dataclass(slots=True)
class Gate:
    """Cells that can be opened and closed while playing."""

    name: str
    cells: np.ndarray                 # (N, 2) int64 (x, y)
    open: bool = True


@dataclass(slots=True)
class Level:
    """A loaded level: its navigation ``grid`` plus what the game draws and spawns."""

    name: str
    description: str
    grid: Grid
    colors: np.ndarray                # float32 [H, W, 3], 0..1
    ground: np.ndarray                # float32 [H, W]: world z of each cell's surface
    spawns: dict[int, np.ndarray]     # team -> (N, 2) open cells
    waypoints: np.ndarray             # (K, 2) cells
    gates: dict[str, Gate] = field(default_factory=dict)
    legend: dict[str, TerrainType] = field(default_factory=dict)
    path: str = ""

    def set_gate(self, name: str, open_: bool) -> np.ndarray:
        """Open or close a gate (edits the grid); returns the cells changed. ``KeyError`` (with the
        closest name) for a gate the level does not have, ``ValueError`` for an ``open_`` that is
        not True or False."""
        if not isinstance(name, str) or name not in self.gates:
            raise KeyError(unknown_name("gate", name, tuple(self.gates)))
        gate = self.gates[name]
        gate.open = checks.flag(open_, "open_")
        self.grid.set_passable(gate.cells, gate.open)
        return gate.cells


def builtin_levels() -> list[str]:
    """Names of the levels shipped with rtsnav."""
    return sorted(p.stem for p in BUILTIN_DIR.glob("*.toml"))


def load_level(name_or_path: str | Path) -> Level:
    """Load a level by built-in name, ``.toml`` path, or Moving AI ``.map`` (a flat level).

    Raises:
        LevelError: with file:line:col for any mistake (bad TOML, ragged rows, unknown legend
            character, layers of different sizes, spawn in a wall, ...).
    """
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise LevelError(repr(name_or_path), 0, 0, "a level is a built-in name or a file path (str or Path), got "
                         f"{type(name_or_path).__name__}")
    p = Path(name_or_path)
    if p.suffix == ".map" or (not p.exists() and str(name_or_path).endswith(".map")):
        from .movingai import load_movingai_map

        grid = load_movingai_map(name_or_path)
        return _flat_level(grid)
    if not p.exists():
        builtin = BUILTIN_DIR / f"{name_or_path}.toml"
        if builtin.exists():
            p = builtin
        else:
            raise LevelError(p, 0, 0, f"no such level file or built-in level (built-ins: {', '.join(builtin_levels())})")
    text = read_text_file(p, "level file")                 # a BOM (some Windows editors write one) is fine
    return parse_level(text, str(p))


def _flat_level(grid: Grid) -> Level:
    if not grid.passable.any():
        raise LevelError(grid.name, 0, 0, f"the {grid.width}x{grid.height} map has no open cell: nothing can walk on it")
    colors = np.where(grid.passable[..., None], np.array([0.42, 0.56, 0.28]), np.array([0.35, 0.35, 0.35]))
    ground = np.where(grid.passable, 0.0, 1.5).astype(np.float32)
    return Level(grid.name, "Moving AI benchmark map", grid, colors.astype(np.float32), ground,
                 default_spawns(grid), np.zeros((0, 2), dtype=np.int64), {}, {}, grid.name)


def default_spawns(grid: Grid) -> dict[int, np.ndarray]:
    """Spawns of a level that names none (a Moving AI map, a level file without ``[[spawn]]``):
    two teams on the west and east halves of the biggest open region (one team when it is one
    cell), at most 4,000 cells each. The grid must have an open cell."""
    cells = np.argwhere(grid.passable)[:, ::-1]
    labels = grid.components()
    big = np.bincount(labels[labels >= 0]).argmax()
    main = cells[labels[cells[:, 1], cells[:, 0]] == big]
    order = np.lexsort((main[:, 1], main[:, 0]))
    half = len(order) // 2
    return {1: main[order[:half]][:4000], 2: main[order[half:]][-4000:]} if half else {1: main}


class _Source:
    """The level text and helpers that find the file line of a key, for messages."""

    def __init__(self, text: str, src: str) -> None:
        self.text = text
        self.src = src
        self.lines = text.splitlines()

    def line_of(self, key: str) -> int:
        """1-based line of the first line starting with ``key`` (0 when absent)."""
        for i, line in enumerate(self.lines, start=1):
            if line.lstrip().startswith(key):
                return i
        return 0

    def headers(self, table: str) -> list[int]:
        """Lines of every ``[[table]]`` header."""
        return [i for i, line in enumerate(self.lines, 1) if line.strip() == f"[[{table}]]"]

    def key_line(self, header_line: int, keys: tuple[str, ...]) -> int:
        """Line of the first of ``keys`` inside the table that starts at ``header_line``."""
        if not header_line:
            return 0
        for i in range(header_line, len(self.lines)):
            stripped = self.lines[i].lstrip()
            if stripped.startswith("["):
                break
            if any(stripped.startswith(k) for k in keys):
                return i + 1
        return header_line

    def error(self, line: int, message: str, col: int = 1) -> LevelError:
        return LevelError(self.src, line, col if line else 0, message)


def _is_number(value) -> bool:
    """A TOML integer or float (booleans are not numbers here, though Python says they are)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number(source: _Source, line: int, what: str, value, *, minimum: float | None = None,
            strict: bool = False, hint: str = "", maximum: float = math.inf) -> float:
    """``value`` as a finite float (≤ ``maximum``), else a ``LevelError`` naming ``what``."""
    bound = "" if minimum is None else (f" > {minimum:g}" if strict else f" >= {minimum:g}")
    bound += "" if maximum == math.inf else f"{' and' if bound else ''} <= {maximum:g}"
    if (not _is_number(value) or not math.isfinite(value) or value > maximum
            or (minimum is not None and (value < minimum or (strict and value == minimum)))):
        raise source.error(line, f"{what} must be a number{bound} (finite){hint}, got {value!r}")
    return float(value)


def _boolean(source: _Source, line: int, what: str, value) -> bool:
    if not isinstance(value, bool):
        raise source.error(line, f"{what} must be true or false, got {value!r}")
    return value


def _cell(c) -> tuple[int, int]:
    """A cell as plain ints (messages print ``(3, 4)``, not ``(np.int64(3), ...)``)."""
    return (int(c[0]), int(c[1]))


def _layer(source: _Source, data: dict, key: str) -> tuple[list[str], int]:
    """The rows of a multi-line layer and the file line of its first row."""
    value = data.get(key)
    if value is None:
        return [], 0
    line = source.line_of(key)
    if not isinstance(value, str):
        raise source.error(line, f"'{key}' must be a multi-line string of rows, got {type(value).__name__}")
    rows = value.split("\n")
    raw = source.lines[line - 1].rstrip() if line else ""
    # TOML drops a newline right after the opening quotes: then the rows start on the next line
    first = line + 1 if raw.endswith(("\"\"\"", "\'\'\'")) else line
    if rows and rows[0] == "":
        rows = rows[1:]
    while rows and rows[-1].strip() == "":
        rows.pop()
    return rows, first


def _parse_color(source: _Source, line: int, char: str, value) -> tuple[float, float, float]:
    if not isinstance(value, str) or not _COLOR.match(value):
        raise source.error(line, f"legend '{char}': color must look like \"#rrggbb\", got {value!r}")
    return tuple(int(value[i:i + 2], 16) / 255.0 for i in (1, 3, 5))  # type: ignore[return-value]


def check_keys(error, line: int, where: str, table: dict, known: tuple[str, ...]) -> None:
    """Raise ``error(line, message)`` for the first key of ``table`` not in ``known`` (a typo
    such as ``opne`` is a mistake, not something to ignore), with the closest known key."""
    known_keys(table, known, where, error=lambda message: error(line, message))


def _read_toml(text: str, src: str) -> dict:
    try:
        return tomllib.loads(text.removeprefix("\ufeff"))
    except RecursionError:
        raise LevelError(src, 0, 0, "not valid TOML here: tables or arrays nested too deeply") from None
    except tomllib.TOMLDecodeError as e:
        message = str(e).split(" (at")[0]
        m = re.search(r"line (\d+), column (\d+)", str(e))
        if m:
            line, col = int(m.group(1)), int(m.group(2))
        else:                                  # "at end of document": point at the last line
            lines = text.splitlines() or [""]
            line, col = len(lines), len(lines[-1]) + 1
            message += " (reached the end of the file)"
        raise LevelError(src, line, col, f"not valid TOML: {message}") from None


def _parse_legend(source: _Source, data: dict) -> dict[str, TerrainType]:
    legend: dict[str, TerrainType] = {}
    legend_line = source.line_of("[legend]")
    if not isinstance(data["legend"], dict) or not data["legend"]:
        raise source.error(legend_line, "legend must be a table of one-character keys")
    for char, entry in data["legend"].items():
        line = next((i for i, text in enumerate(source.lines, 1) if text.lstrip().startswith((f'"{char}"', f"'{char}'"))),
                    legend_line)
        if len(char) != 1:
            raise source.error(line, f"legend keys must be single characters, got {char!r}")
        if not isinstance(entry, dict) or "walkable" not in entry:
            raise source.error(line, f"legend '{char}' needs at least walkable = true/false")
        check_keys(source.error, line, f"legend '{char}'", entry, KEYS["legend"])
        walkable = _boolean(source, line, f"legend '{char}': walkable", entry["walkable"])
        cost = _number(source, line, f"legend '{char}': cost", entry.get("cost", 1.0), minimum=1.0,
                       maximum=FLOAT32_MAX, hint="; use walkable = false to block")
        height = _number(source, line, f"legend '{char}': height", entry.get("height", 0.0))
        legend[char] = TerrainType(char, walkable, cost, _parse_color(source, line, char, entry.get("color", "#808080")),
                                   height)
    return legend


def _parse_terrain(source: _Source, data: dict, legend: dict[str, TerrainType]) -> np.ndarray:
    rows, first = _layer(source, data, "terrain")
    if not rows:
        raise source.error(source.line_of("terrain"), "terrain layer is empty")
    width = len(rows[0])
    for i, row in enumerate(rows):
        if len(row) != width:
            raise source.error(first + i, f"ragged terrain row: {len(row)} characters, the first row has {width}",
                               min(len(row), width) + 1)
        for j, ch in enumerate(row):
            if ch not in legend:
                raise source.error(first + i, f"unknown terrain character {ch!r}; the legend has "
                                   f"{''.join(sorted(legend))!r}", j + 1)
    return np.array([list(r) for r in rows])


def _parse_elevation(source: _Source, data: dict, shape: tuple[int, int], height_scale: float) -> np.ndarray:
    h, width = shape
    rows, first = _layer(source, data, "elevation")
    if not rows:
        return np.zeros(shape, dtype=np.float32)
    if len(rows) != h:
        raise source.error(first, f"elevation has {len(rows)} rows, terrain has {h} (layers must match)")
    for i, row in enumerate(rows):
        if len(row) != width:
            raise source.error(first + i, f"elevation row has {len(row)} characters, terrain rows have {width}",
                               min(len(row), width) + 1)
        for j, ch in enumerate(row):
            if not ch.isdigit():
                raise source.error(first + i, f"elevation must be digits 0-9, got {ch!r}", j + 1)
    return np.array([[int(c) for c in r] for r in rows], dtype=np.float32) * np.float32(height_scale)


def _cells_of(source: _Source, entry: dict, what: str, line: int, shape: tuple[int, int]) -> np.ndarray:
    """The ``area`` / ``cells`` / ``cell`` of a spawn, waypoint or gate, checked against the map."""
    h, width = shape
    line = source.key_line(line, ("area", "cells", "cell"))
    if "area" in entry:
        a = entry["area"]
        if not (isinstance(a, list) and len(a) == 4 and all(isinstance(v, int) and not isinstance(v, bool) for v in a)):
            raise source.error(line, f"{what}: area must be [x0, y0, x1, y1] integers, got {a!r}")
        x0, y0, x1, y1 = a
        if not (0 <= x0 < x1 <= width and 0 <= y0 < y1 <= h):
            raise source.error(line, f"{what}: area {a} must satisfy 0 <= x0 < x1 <= {width} and "
                               f"0 <= y0 < y1 <= {h} (x1, y1 exclusive) on the {width}x{h} map")
        ys, xs = np.mgrid[y0:y1, x0:x1]
        return np.stack([xs.ravel(), ys.ravel()], axis=1)
    if "cells" in entry or "cell" in entry:
        raw = entry.get("cells", [entry.get("cell")])
        flat = raw if isinstance(raw, list) else [raw]
        ok = all(isinstance(c, list) and len(c) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in c)
                 for c in flat)
        if not ok or not flat:
            raise source.error(line, f"{what}: cells must be [[x, y], ...] integers, got {raw!r}")
        c = np.array(flat, dtype=object)
        bad = [tuple(v) for v in flat if not (0 <= v[0] < width and 0 <= v[1] < h)]
        if bad:
            raise source.error(line, f"{what}: cell {bad[0]} is outside the {width}x{h} map")
        return np.array(c.tolist(), dtype=np.int64).reshape(-1, 2)
    raise source.error(line, f"{what} needs 'area', 'cells' or 'cell'")


def _parse_spawns(source: _Source, data: dict, walk: np.ndarray) -> dict[int, np.ndarray]:
    spawns: dict[int, np.ndarray] = {}
    headers = source.headers("spawn")
    for k, entry in enumerate(_tables(source, data, "spawn")):
        line = headers[k] if k < len(headers) else 0
        check_keys(source.error, line, "spawn", entry, KEYS["spawn"])
        team = entry.get("team")
        if not isinstance(team, int) or isinstance(team, bool) or not 1 <= team <= MAX_TEAM:
            raise source.error(line, f"spawn: team must be an integer in 1 .. {MAX_TEAM}, got {team!r}")
        c = _cells_of(source, entry, f"spawn of team {team}", line, walk.shape)
        line = source.key_line(line, ("area", "cells", "cell"))
        walls = ~walk[c[:, 1], c[:, 0]]
        if "cells" in entry or "cell" in entry:
            if walls.any():
                raise source.error(line, f"spawn of team {team}: cell {_cell(c[walls][0])} is in a wall "
                                   "(not walkable)")
        else:
            c = c[~walls]
            if len(c) == 0:
                raise source.error(line, f"spawn of team {team}: the area has no walkable cell")
        spawns[team] = np.concatenate([spawns[team], c]) if team in spawns else c
    return spawns


def _parse_waypoints(source: _Source, data: dict, walk: np.ndarray) -> np.ndarray:
    headers = source.headers("waypoint")
    waypoints = []
    for k, entry in enumerate(_tables(source, data, "waypoint")):
        line = headers[k] if k < len(headers) else 0
        check_keys(source.error, line, "waypoint", entry, KEYS["waypoint"])
        c = _cells_of(source, entry, "waypoint", line, walk.shape)
        blocked = ~walk[c[:, 1], c[:, 0]]
        if blocked.any():
            raise source.error(source.key_line(line, ("cell", "cells", "area")),
                               f"waypoint {_cell(c[blocked][0])} is in a wall")
        waypoints.append(c)
    return np.concatenate(waypoints) if waypoints else np.zeros((0, 2), dtype=np.int64)


def _parse_gates(source: _Source, data: dict, walk: np.ndarray, spawns: dict[int, np.ndarray]) -> dict[str, Gate]:
    gates: dict[str, Gate] = {}
    headers = source.headers("gate")
    for k, entry in enumerate(_tables(source, data, "gate")):
        line = headers[k] if k < len(headers) else 0
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise source.error(line, f"gate needs a name (a non-empty string), got {name!r}")
        if name in gates:
            raise source.error(line, f"gate {name!r} is defined twice (gate names must be unique)")
        check_keys(source.error, line, f"gate {name!r}", entry, KEYS["gate"])
        c = _cells_of(source, entry, f"gate {name!r}", line, walk.shape)
        cells_line = source.key_line(line, ("cells", "cell", "area"))
        for other in gates.values():
            shared = (other.cells[:, None, :] == c[None, :, :]).all(axis=2).any(axis=1)
            if shared.any():
                raise source.error(cells_line, f"gate {name!r}: cell {_cell(other.cells[shared][0])} is already in "
                                   f"gate {other.name!r} (a cell belongs to one gate at most)")
        blocked = ~walk[c[:, 1], c[:, 0]]
        if blocked.any():
            raise source.error(cells_line, f"gate {name!r}: cell {_cell(c[blocked][0])} is not walkable terrain "
                               "(a gate closes walkable cells)")
        is_open = _boolean(source, source.key_line(line, ("open",)), f"gate {name!r}: open", entry.get("open", True))
        if not is_open:
            for team, cells in spawns.items():
                shared = (cells[:, None, :] == c[None, :, :]).all(axis=2).any(axis=1)
                if shared.any():
                    raise source.error(cells_line, f"gate {name!r} starts closed over spawn cell "
                                       f"{_cell(cells[shared][0])} of team {team}")
        gates[name] = Gate(name, c, is_open)
    return gates


def _tables(source: _Source, data: dict, key: str) -> list[dict]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise source.error(source.line_of(key), f"'{key}' must be written as [[{key}]] tables")
    return value


def parse_level(text: str, src: str = "<level>") -> Level:
    """Parse level TOML ``text`` (``src`` names it in errors)."""
    text = text.removeprefix("\ufeff")
    data = _read_toml(text, src)
    source = _Source(text, src)
    for key in ("name", "legend", "terrain"):
        if key not in data:
            raise source.error(1, f"missing required key '{key}'")
    check_keys(source.error, 1, "level", data, KEYS["level"])
    for key in ("name", "description"):
        if key in data and not isinstance(data[key], str):
            raise source.error(source.line_of(key), f"{key} must be a string, got {data[key]!r}")
    cell_size = _number(source, source.line_of("cell_size"), "cell_size", data.get("cell_size", 1.0),
                        minimum=CELL_SIZE_RANGE[0], maximum=CELL_SIZE_RANGE[1])
    height_scale = _number(source, source.line_of("height_scale"), "height_scale", data.get("height_scale", 0.5),
                           minimum=0.0)
    legend = _parse_legend(source, data)
    chars = _parse_terrain(source, data, legend)
    shape = chars.shape
    walk = np.zeros(shape, dtype=bool)
    cost = np.ones(shape)
    colors = np.zeros((*shape, 3), dtype=np.float32)
    offset = np.zeros(shape, dtype=np.float32)
    for ch, t in legend.items():
        m = chars == ch
        walk[m] = t.walkable
        cost[m] = t.cost
        colors[m] = t.color
        offset[m] = t.height
    elevation = _parse_elevation(source, data, shape, height_scale)
    ground = elevation + offset
    if not np.isfinite(ground).all():
        raise source.error(source.line_of("elevation") or source.line_of("[legend]"),
                           "heights overflow: elevation × height_scale + legend height must stay finite")
    grid = Grid(walk, cost, heights=elevation, cell_size=cell_size, name=str(data["name"]))
    if not walk.any():
        raise source.error(source.line_of("terrain"), f"the {shape[1]}x{shape[0]} terrain has no walkable cell: "
                           "nothing can walk on it")
    spawns = _parse_spawns(source, data, walk) or default_spawns(grid)   # none named: as a Moving AI map's
    waypoints = _parse_waypoints(source, data, walk)
    gates = _parse_gates(source, data, walk, spawns)
    for gate in gates.values():
        if not gate.open:
            grid.set_passable(gate.cells, False)
    return Level(str(data["name"]), str(data.get("description", "")), grid, colors, ground.astype(np.float32),
                 spawns, waypoints, gates, legend, src)
