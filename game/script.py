"""Orders files: the demo's scripted player (``rtsnav-demo --orders FILE``), read and checked.

A TOML file of tables, each firing at its ``tick`` (the demo runs 30 ticks per second):

* ``[[order]]`` — ``select`` = a team number or ``box`` = ``[x0, y0, x1, y1]`` window pixels, then
  ``target`` = ``[x, y]`` world units or ``click`` = ``[px, py]`` window pixels;
* ``[[gate]]`` — ``name`` of one of the level's gates (toggled);
* ``[[overlay]]`` — ``number`` 0 (none) … 4.

Every mistake is a ``LevelError`` naming the file, the table's line and what was expected.
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

from rtsnav.levels.errors import LevelError

__all__ = ["load_orders", "OVERLAY_NUMBERS"]

OVERLAY_NUMBERS = range(0, 5)
_KINDS = ("order", "gate", "overlay")


def _table_lines(text: str, kind: str) -> list[int]:
    return [i for i, line in enumerate(text.splitlines(), 1) if line.strip() == f"[[{kind}]]"]


def _numbers(value, count: int) -> bool:
    return (isinstance(value, list) and len(value) == count
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value))


def load_orders(path: str | Path, level) -> list[tuple[int, str, dict]]:
    """``(tick, kind, table)`` events of an orders file, sorted by tick, checked against ``level``
    (team numbers, gate names, map bounds)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise LevelError(p, 0, 0, f"cannot read orders file: {getattr(e, 'strerror', None) or e}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise LevelError(p, 0, 0, f"not valid TOML: {e}") from None
    unknown = sorted(set(data) - set(_KINDS))
    if unknown:
        raise LevelError(p, 1, 1, f"unknown table(s) {unknown}; an orders file has [[order]], [[gate]], [[overlay]]")
    grid = level.grid
    x_max, y_max = grid.origin[0] + grid.width * grid.cell_size, grid.origin[1] + grid.height * grid.cell_size
    events: list[tuple[int, str, dict]] = []
    for kind in _KINDS:
        tables = data.get(kind, [])
        if not isinstance(tables, list):
            raise LevelError(p, 0, 0, f"'{kind}' must be written as [[{kind}]] tables")
        lines = _table_lines(text, kind)
        for k, table in enumerate(tables):
            line = lines[k] if k < len(lines) else 0

            def bad(message: str, line: int = line, kind: str = kind, k: int = k) -> LevelError:
                return LevelError(p, line, 1 if line else 0, f"{kind} #{k + 1}: {message}")

            tick = table.get("tick")
            if not isinstance(tick, int) or isinstance(tick, bool) or tick < 0:
                raise bad(f"needs tick = a whole number >= 0, got {tick!r}")
            if kind == "order":
                if "select" in table:
                    team = table["select"]
                    if not isinstance(team, int) or isinstance(team, bool) or team not in level.spawns:
                        raise bad(f"select must be a team of this level ({sorted(level.spawns)}), got {team!r}")
                elif "box" in table:
                    if not _numbers(table["box"], 4):
                        raise bad(f"box must be [x0, y0, x1, y1] pixels, got {table['box']!r}")
                if "target" in table:
                    target = table["target"]
                    if not (isinstance(target, list) and len(target) in (2, 3) and _numbers(target[:2], 2)):
                        raise bad(f"target must be [x, y] finite world units, got {target!r}")
                    if not (grid.origin[0] <= target[0] < x_max and grid.origin[1] <= target[1] < y_max):
                        raise bad(f"target {target[:2]} is outside the map (x in [{grid.origin[0]:g}, {x_max:g}), "
                                  f"y in [{grid.origin[1]:g}, {y_max:g}))")
                elif "click" in table:
                    if not _numbers(table["click"], 2):
                        raise bad(f"click must be [px, py] pixels, got {table['click']!r}")
                else:
                    raise bad("needs target = [x, y] or click = [px, py]")
            elif kind == "gate":
                name = table.get("name")
                if name not in level.gates:
                    choices = ", ".join(map(repr, level.gates)) or "none on this level"
                    raise bad(f"unknown gate {name!r}; gates: {choices}")
            else:
                number = table.get("number")
                if number not in OVERLAY_NUMBERS or isinstance(number, bool):
                    raise bad(f"number must be 0..{OVERLAY_NUMBERS[-1]}, got {number!r}")
            events.append((tick, kind, table))
    return sorted(events, key=lambda e: e[0])
