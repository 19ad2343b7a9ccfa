"""The rtsnav level format: a human-editable TOML file.

```toml
name = "River crossing"
description = "Two bridges over a river."
cell_size = 1.0              # world units per cell, > 0
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

[[spawn]]                    # where each team's units start
team = 1
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

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rtsnav.systems.nav.grid import Grid

from .errors import LevelError

__all__ = ["Level", "Gate", "TerrainType", "load_level", "parse_level", "BUILTIN_DIR", "builtin_levels"]

BUILTIN_DIR = Path(__file__).resolve().parent / "builtin"
_COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")


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
        """Open or close a gate (edits the grid); returns the cells changed."""
        gate = self.gates[name]
        gate.open = bool(open_)
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
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise LevelError(p, 0, 0, f"cannot read level file: {e}") from None
    return parse_level(text, str(p))


def _flat_level(grid: Grid) -> Level:
    colors = np.where(grid.passable[..., None], np.array([0.42, 0.56, 0.28]), np.array([0.35, 0.35, 0.35]))
    ground = np.where(grid.passable, 0.0, 1.5).astype(np.float32)
    cells = np.argwhere(grid.passable)[:, ::-1]
    labels = grid.components()
    big = np.bincount(labels[labels >= 0]).argmax()
    main = cells[labels[cells[:, 1], cells[:, 0]] == big]
    order = np.lexsort((main[:, 1], main[:, 0]))
    half = len(order) // 2
    spawns = {1: main[order[:half]][:4000], 2: main[order[half:]][-4000:]}
    return Level(grid.name, "Moving AI benchmark map", grid, colors.astype(np.float32), ground,
                 spawns, np.zeros((0, 2), dtype=np.int64), {}, {}, grid.name)


def _line_of(text: str, key: str) -> int:
    """1-based line of the first line starting with ``key`` (for messages)."""
    for i, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith(key):
            return i
    return 0


def _layer(text: str, src: str, data: dict, key: str) -> tuple[list[str], int]:
    """The rows of a multi-line layer and the file line of its first row."""
    value = data.get(key)
    if value is None:
        return [], 0
    line = _line_of(text, key)
    if not isinstance(value, str):
        raise LevelError(src, line, 1, f"'{key}' must be a multi-line string of rows, got {type(value).__name__}")
    rows = value.split("\n")
    raw = text.splitlines()[line - 1].rstrip() if line else ""
    # TOML drops a newline right after the opening quotes: then the rows start on the next line
    first = line + 1 if raw.endswith(("\"\"\"", "\'\'\'")) else line
    if rows and rows[0] == "":
        rows = rows[1:]
    while rows and rows[-1].strip() == "":
        rows.pop()
    return rows, first


def _parse_color(src, line, char, value) -> tuple[float, float, float]:
    if not isinstance(value, str) or not _COLOR.match(value):
        raise LevelError(src, line, 1, f"legend '{char}': color must look like \"#rrggbb\", got {value!r}")
    return tuple(int(value[i:i + 2], 16) / 255.0 for i in (1, 3, 5))  # type: ignore[return-value]


def parse_level(text: str, src: str = "<level>") -> Level:
    """Parse level TOML ``text`` (``src`` names it in errors)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"line (\d+), column (\d+)", str(e))
        line, col = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
        raise LevelError(src, line, col, f"not valid TOML: {str(e).split(' (at')[0]}") from None
    for key in ("name", "legend", "terrain"):
        if key not in data:
            raise LevelError(src, 1, 1, f"missing required key '{key}'")
    cell_size = data.get("cell_size", 1.0)
    if not isinstance(cell_size, (int, float)) or not cell_size > 0:
        raise LevelError(src, _line_of(text, "cell_size"), 1, f"cell_size must be a number > 0, got {cell_size!r}")
    height_scale = data.get("height_scale", 0.5)
    if not isinstance(height_scale, (int, float)) or height_scale < 0:
        raise LevelError(src, _line_of(text, "height_scale"), 1, f"height_scale must be a number >= 0, got {height_scale!r}")

    legend: dict[str, TerrainType] = {}
    legend_line = _line_of(text, "[legend]")
    if not isinstance(data["legend"], dict) or not data["legend"]:
        raise LevelError(src, legend_line, 1, "legend must be a table of one-character keys")
    for char, entry in data["legend"].items():
        line = next((i for i, l in enumerate(text.splitlines(), 1) if l.lstrip().startswith(f'"{char}"')
                     or l.lstrip().startswith(f"'{char}'")), legend_line)
        if len(char) != 1:
            raise LevelError(src, line, 1, f"legend keys must be single characters, got {char!r}")
        if not isinstance(entry, dict) or "walkable" not in entry:
            raise LevelError(src, line, 1, f"legend '{char}' needs at least walkable = true/false")
        cost = entry.get("cost", 1.0)
        if not isinstance(cost, (int, float)) or not cost >= 1:
            raise LevelError(src, line, 1, f"legend '{char}': cost must be a number >= 1, got {cost!r}")
        height = entry.get("height", 0.0)
        if not isinstance(height, (int, float)):
            raise LevelError(src, line, 1, f"legend '{char}': height must be a number, got {height!r}")
        legend[char] = TerrainType(char, bool(entry["walkable"]), float(cost),
                                   _parse_color(src, line, char, entry.get("color", "#808080")), float(height))

    rows, first = _layer(text, src, data, "terrain")
    if not rows:
        raise LevelError(src, _line_of(text, "terrain"), 1, "terrain layer is empty")
    width = len(rows[0])
    for i, row in enumerate(rows):
        if len(row) != width:
            raise LevelError(src, first + i, min(len(row), width) + 1,
                             f"ragged terrain row: {len(row)} characters, the first row has {width}")
        for j, ch in enumerate(row):
            if ch not in legend:
                raise LevelError(src, first + i, j + 1, f"unknown terrain character {ch!r}; the legend has "
                                 f"{''.join(sorted(legend))!r}")
    h = len(rows)
    chars = np.array([list(r) for r in rows])
    walk = np.zeros((h, width), dtype=bool)
    cost = np.ones((h, width))
    colors = np.zeros((h, width, 3), dtype=np.float32)
    offset = np.zeros((h, width), dtype=np.float32)
    for ch, t in legend.items():
        m = chars == ch
        walk[m] = t.walkable
        cost[m] = t.cost
        colors[m] = t.color
        offset[m] = t.height

    elevation = np.zeros((h, width), dtype=np.float32)
    erows, efirst = _layer(text, src, data, "elevation")
    if erows:
        if len(erows) != h:
            raise LevelError(src, efirst, 1, f"elevation has {len(erows)} rows, terrain has {h} (layers must match)")
        for i, row in enumerate(erows):
            if len(row) != width:
                raise LevelError(src, efirst + i, min(len(row), width) + 1,
                                 f"elevation row has {len(row)} characters, terrain rows have {width}")
            for j, ch in enumerate(row):
                if not ch.isdigit():
                    raise LevelError(src, efirst + i, j + 1, f"elevation must be digits 0-9, got {ch!r}")
        elevation = np.array([[int(c) for c in r] for r in erows], dtype=np.float32) * float(height_scale)

    grid = Grid(walk, cost, heights=elevation, cell_size=float(cell_size), name=str(data["name"]))
    ground = elevation + offset

    lines_all = text.splitlines()

    def key_line(header_line: int, keys: tuple[str, ...]) -> int:
        """Line of the first of ``keys`` below a table header (else the header's line)."""
        for i in range(header_line, len(lines_all)):
            stripped = lines_all[i].lstrip()
            if i > header_line - 1 and stripped.startswith("["):
                if i != header_line - 1:
                    break
            if any(stripped.startswith(k) for k in keys):
                return i + 1
        return header_line

    def cells_of(entry, what, header):
        line = key_line(header, ("area", "cells", "cell")) if header else 0
        if "area" in entry:
            a = entry["area"]
            if not (isinstance(a, list) and len(a) == 4 and all(isinstance(v, int) for v in a)):
                raise LevelError(src, line, 1, f"{what}: area must be [x0, y0, x1, y1] integers, got {a!r}")
            x0, y0, x1, y1 = a
            ys, xs = np.mgrid[y0:y1, x0:x1]
            c = np.stack([xs.ravel(), ys.ravel()], axis=1)
        elif "cells" in entry or "cell" in entry:
            raw = entry.get("cells", [entry.get("cell")])
            try:
                c = np.array(raw, dtype=np.int64).reshape(-1, 2)
            except (TypeError, ValueError):
                raise LevelError(src, line, 1, f"{what}: cells must be [[x, y], ...], got {raw!r}") from None
        else:
            raise LevelError(src, line, 1, f"{what} needs 'area', 'cells' or 'cell'")
        bad = ~((c[:, 0] >= 0) & (c[:, 0] < width) & (c[:, 1] >= 0) & (c[:, 1] < h))
        if bad.any():
            raise LevelError(src, line, 1, f"{what}: cell {tuple(c[bad][0])} is outside the {width}x{h} map")
        return c

    spawns: dict[int, np.ndarray] = {}
    spawn_lines = [i for i, l in enumerate(text.splitlines(), 1) if l.strip() == "[[spawn]]"]
    for k, entry in enumerate(data.get("spawn", [])):
        line = spawn_lines[k] if k < len(spawn_lines) else 0
        team = entry.get("team")
        if not isinstance(team, int) or team < 1:
            raise LevelError(src, line, 1, f"spawn: team must be an integer >= 1, got {team!r}")
        c = cells_of(entry, f"spawn of team {team}", line)
        line = key_line(line, ("area", "cells", "cell")) if line else 0
        walls = ~walk[c[:, 1], c[:, 0]]
        if "cells" in entry or "cell" in entry:
            if walls.any():
                raise LevelError(src, line, 1, f"spawn of team {team}: cell {tuple(c[walls][0])} is in a wall")
        else:
            c = c[~walls]
            if len(c) == 0:
                raise LevelError(src, line, 1, f"spawn of team {team}: the area has no walkable cell")
        spawns[team] = np.concatenate([spawns[team], c]) if team in spawns else c
    wp_lines = [i for i, l in enumerate(text.splitlines(), 1) if l.strip() == "[[waypoint]]"]
    waypoints = []
    for k, entry in enumerate(data.get("waypoint", [])):
        line = wp_lines[k] if k < len(wp_lines) else 0
        c = cells_of(entry, "waypoint", line)
        line = key_line(line, ("cell", "cells", "area")) if line else 0
        if not walk[c[:, 1], c[:, 0]].all():
            raise LevelError(src, line, 1, f"waypoint {tuple(c[0])} is in a wall")
        waypoints.append(c)
    gates: dict[str, Gate] = {}
    gate_lines = [i for i, l in enumerate(text.splitlines(), 1) if l.strip() == "[[gate]]"]
    for k, entry in enumerate(data.get("gate", [])):
        line = gate_lines[k] if k < len(gate_lines) else 0
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise LevelError(src, line, 1, "gate needs a name")
        c = cells_of(entry, f"gate {name!r}", line)
        line = key_line(line, ("cells", "cell", "area")) if line else 0
        if not walk[c[:, 1], c[:, 0]].all():
            raise LevelError(src, line, 1, f"gate {name!r}: cell {tuple(c[~walk[c[:, 1], c[:, 0]]][0])} "
                             "is not walkable terrain (a gate closes walkable cells)")
        gates[name] = Gate(name, c, bool(entry.get("open", True)))
        if not gates[name].open:
            grid.set_passable(c, False)
    return Level(str(data["name"]), str(data.get("description", "")), grid, colors, ground.astype(np.float32),
                 spawns, np.concatenate(waypoints) if waypoints else np.zeros((0, 2), dtype=np.int64),
                 gates, legend, src)
