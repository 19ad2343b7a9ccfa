"""Orders files: the demo's scripted player (``rtsnav-demo --orders FILE``), read and checked.

A TOML file of tables, each firing at its ``tick`` (the demo runs 30 ticks per second):

* ``[[order]]`` — who: ``select`` = a team number or ``"all"`` (the player's units), ``box`` =
  ``[x0, y0, x1, y1]`` window pixels, or ``group`` = a control group 1..9 (none of these: the
  current selection); where: ``target`` = ``[x, y]`` world units, ``click`` = ``[px, py]``
  window pixels or ``minimap`` = ``[u, v]`` (0..1 across the minimap, row 0 at the top); how:
  ``mode`` = ``"move"`` (default), ``"attack"`` (attack-move) or ``"patrol"``, ``queue = true``
  (shift: after the current orders), ``formation = true`` (keep the layout, one speed);
* ``[[command]]`` — ``do`` = ``"stop"``, ``"hold"``, ``"select_all"``, ``"set_group"`` /
  ``"recall_group"`` (with ``group`` = 1..9), ``"planner"`` (with ``planner`` = a name, or none
  to cycle), ``"formation"``, ``"jump"`` (camera to the selection), ``"follow"`` (camera
  follows it), ``"look"`` (with ``minimap`` = ``[u, v]``: the camera looks there), ``"pan"``
  (with ``by`` = ``[dx, dy]`` world units) or ``"zoom"`` (with ``by`` = a factor, < 1 closer);
  the camera stays on the map whatever they ask;
* ``[[gate]]`` — ``name`` of one of the level's gates (toggled);
* ``[[overlay]]`` — ``number`` 0 (none), 1 paths, 2 corridor / flow field, 3 hierarchy,
  4 navmesh, 5 density.

Every mistake is a ``LevelError`` naming the file, the table's line and what was expected.
"""

from __future__ import annotations

import math
import os
import tomllib
from pathlib import Path

from rtsnav.levels.errors import LevelError, read_text_file
from rtsnav.levels.level_file import check_keys

__all__ = ["load_orders", "OVERLAY_NUMBERS"]

OVERLAY_NUMBERS = range(0, 6)
_KINDS = ("order", "command", "gate", "overlay")
ORDER_MODES = ("move", "attack", "patrol")
COMMANDS = ("stop", "hold", "select_all", "set_group", "recall_group", "planner", "formation", "jump", "follow",
            "look", "pan", "zoom")


def _table_lines(text: str, kind: str) -> list[int]:
    return [i for i, line in enumerate(text.splitlines(), 1) if line.strip() == f"[[{kind}]]"]


def _numbers(value, count: int) -> bool:
    return (isinstance(value, list) and len(value) == count
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value))


def _check_group(table: dict, bad) -> None:
    group = table.get("group")
    if not isinstance(group, int) or isinstance(group, bool) or not 1 <= group <= 9:
        raise bad(f"group must be a control group 1..9, got {group!r}")


def _check_minimap(table: dict, bad) -> None:
    uv = table.get("minimap") or []
    if not _numbers(uv, 2) or not all(0.0 <= v <= 1.0 for v in uv):
        raise bad(f"minimap must be [u, v] with both in 0..1 (0, 0 = top left), got {uv!r}")


def load_orders(path: str | Path, level) -> list[tuple[int, str, dict]]:
    """``(tick, kind, table)`` events of an orders file, sorted by tick, checked against ``level``
    (team numbers, gate names, map bounds)."""
    if not isinstance(path, (str, os.PathLike)):
        raise LevelError(repr(path), 0, 0, f"an orders file is a path (str or Path), got {type(path).__name__}")
    p = Path(path)
    text = read_text_file(p, "orders file")
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise LevelError(p, 0, 0, "not valid TOML here: tables or arrays nested too deeply") from None
    except tomllib.TOMLDecodeError as e:
        raise LevelError(p, 0, 0, f"not valid TOML: {e}") from None
    unknown = sorted(set(data) - set(_KINDS))
    if unknown:
        raise LevelError(p, 1, 1, f"unknown table(s) {unknown}; an orders file has [[order]], [[command]], [[gate]], [[overlay]]")
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

            if not isinstance(table, dict):
                raise bad(f"must be a table, got {table!r}")
            check_keys(lambda _line, message, bad=bad: bad(message), line, "", table, _KEYS[kind])
            tick = table.get("tick")
            if not isinstance(tick, int) or isinstance(tick, bool) or tick < 0:
                raise bad(f"needs tick = a whole number >= 0, got {tick!r}")
            _CHECKS[kind](table, level, bad)
            events.append((tick, kind, table))
    return sorted(events, key=lambda e: e[0])


def _check_order(table: dict, level, bad) -> None:
    grid = level.grid
    x_max, y_max = grid.origin[0] + grid.width * grid.cell_size, grid.origin[1] + grid.height * grid.cell_size
    for one_of in (("select", "box", "group"), ("target", "click", "minimap")):
        given = [key for key in one_of if key in table]
        if len(given) > 1:
            raise bad(f"give one of {', '.join(one_of)}, got {' and '.join(given)}")
    if "select" in table:
        team = table["select"]
        if team != "all" and (not isinstance(team, int) or isinstance(team, bool) or team not in level.spawns):
            raise bad(f"select must be a team of this level ({sorted(level.spawns)}) or \"all\", got {team!r}")
    elif "box" in table:
        if not _numbers(table["box"], 4):
            raise bad(f"box must be [x0, y0, x1, y1] pixels, got {table['box']!r}")
    elif "group" in table:
        _check_group(table, bad)
    if table.get("mode", "move") not in ORDER_MODES:
        raise bad(f"mode must be one of {', '.join(map(repr, ORDER_MODES))}, got {table['mode']!r}")
    for flag in ("queue", "formation"):
        if flag in table and not isinstance(table[flag], bool):
            raise bad(f"{flag} must be true or false, got {table[flag]!r}")
    if "target" in table:
        target = table["target"]
        if not (isinstance(target, list) and len(target) in (2, 3) and _numbers(target, len(target))):
            raise bad(f"target must be [x, y] (or [x, y, z]) finite world units, got {target!r}")
        if not (grid.origin[0] <= target[0] < x_max and grid.origin[1] <= target[1] < y_max):
            raise bad(f"target {target[:2]} is outside the map (x in [{grid.origin[0]:g}, {x_max:g}), "
                      f"y in [{grid.origin[1]:g}, {y_max:g}))")
    elif "click" in table:
        if not _numbers(table["click"], 2):
            raise bad(f"click must be [px, py] pixels, got {table['click']!r}")
    elif "minimap" in table:
        _check_minimap(table, bad)
    else:
        raise bad("needs target = [x, y], click = [px, py] or minimap = [u, v]")


def _check_command(table: dict, level, bad) -> None:
    do = table.get("do")
    if do not in COMMANDS:
        raise bad(f"do must be one of {', '.join(map(repr, COMMANDS))}, got {do!r}")
    if do in ("set_group", "recall_group"):
        _check_group(table, bad)
    if do == "look":
        _check_minimap(table, bad)
    if do == "pan":
        by = table.get("by")
        if not (isinstance(by, list) and len(by) == 2 and all(_finite_number(v) for v in by)):
            raise bad(f"pan needs by = [dx, dy] (world units), got {by!r}")
    if do == "zoom":
        by = table.get("by")
        if not (_finite_number(by) and float(by) > 0):  # type: ignore[arg-type]
            raise bad(f"zoom needs by = a factor > 0 (< 1 closer), got {by!r}")
    if do == "planner" and "planner" in table:
        from .army import GROUP_PLANNER_CYCLE

        if table["planner"] not in GROUP_PLANNER_CYCLE:
            raise bad(f"planner must be one of {', '.join(GROUP_PLANNER_CYCLE)}, got {table['planner']!r}")


def _finite_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_gate(table: dict, level, bad) -> None:
    name = table.get("name")
    if name not in level.gates:
        choices = ", ".join(map(repr, level.gates)) or "none on this level"
        raise bad(f"unknown gate {name!r}; gates: {choices}")


def _check_overlay(table: dict, level, bad) -> None:
    number = table.get("number")
    if number not in OVERLAY_NUMBERS or isinstance(number, bool):
        raise bad(f"number must be 0..{OVERLAY_NUMBERS[-1]}, got {number!r}")


#: The keys each table kind may have (anything else is a typo: "did you mean").
_KEYS = {"order": ("tick", "select", "box", "group", "mode", "queue", "formation", "target", "click", "minimap"),
         "command": ("tick", "do", "group", "minimap", "planner", "by"),
         "gate": ("tick", "name"),
         "overlay": ("tick", "number")}

#: The check of each table kind (raises ``bad(message)`` naming the table).
_CHECKS = {"order": _check_order, "command": _check_command, "gate": _check_gate, "overlay": _check_overlay}
