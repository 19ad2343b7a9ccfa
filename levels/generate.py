"""Writes rtsnav's built-in levels (``levels/builtin/*.toml``): ``python -m rtsnav.levels.generate``.

The TOML files are the product (edit them by hand freely); this script records how they were
first drawn, and is deterministic (fixed seeds).
"""

from __future__ import annotations

import numpy as np

from .level_file import BUILTIN_DIR

LEGEND = {
    ".": 'walkable = true, cost = 1.0, color = "#6b8f47"',
    ",": 'walkable = true, cost = 4.0, color = "#5b4a30"',
    "=": 'walkable = true, cost = 1.0, color = "#a08a5a"',
    "f": 'walkable = true, cost = 2.5, color = "#3f6b35"',
    "#": 'walkable = false, color = "#767676", height = 1.6',
    "T": 'walkable = false, color = "#2e4d2a", height = 1.2',
    "~": 'walkable = false, color = "#3a6fb5", height = -0.25',
    "^": 'walkable = false, color = "#8c8070", height = 1.0',
}


def _write(name, title, description, chars, spawns, gates=(), elevation=None, height_scale=0.5, waypoints=()):
    used = sorted(set("".join("".join(r) for r in chars)))
    lines = [f'name = "{title}"', f'description = "{description}"', "cell_size = 1.0",
             f"height_scale = {height_scale}"]
    lines += ["", "terrain = '''"] + ["".join(r) for r in chars] + ["'''"]
    if elevation is not None:
        lines += ["", "elevation = '''"] + ["".join(str(int(v)) for v in r) for r in elevation] + ["'''"]
    lines += ["", "[legend]"]  # tables last: every key below a table header belongs to it
    lines += [f'"{c}" = {{ {LEGEND[c]} }}' for c in used]
    for team, area in spawns:
        lines += ["", "[[spawn]]", f"team = {team}", f"area = {list(area)}"]
    for cell in waypoints:
        lines += ["", "[[waypoint]]", f"cell = {list(cell)}"]
    for gname, cells, is_open in gates:
        lines += ["", "[[gate]]", f'name = "{gname}"', f"cells = {[list(c) for c in cells]}",
                  f"open = {'true' if is_open else 'false'}"]
    (BUILTIN_DIR / f"{name}.toml").write_text("\n".join(lines) + "\n")


def river() -> None:
    rng = np.random.default_rng(1)
    h, w = 64, 96
    m = np.full((h, w), ".")
    m[:, 45:51] = "~"
    bridges = [(14, 17), (46, 49)]
    for y0, y1 in bridges:
        m[y0:y1, 45:51] = "="
    trees = rng.random((h, w)) < 0.04
    m[trees & (m == ".")] = "T"
    m[:, :2] = m[:, -2:] = "T"
    m[:1, :] = m[-1:, :] = "T"
    gates = [("north bridge", [(x, y) for y in range(14, 17) for x in (47, 48)], True),
             ("south bridge", [(x, y) for y in range(46, 49) for x in (47, 48)], True)]
    _write("river", "River crossing", "A river with two bridges; close one (G) and the crossing reroutes.",
           m, [(1, (4, 20, 20, 44)), (2, (76, 20, 92, 44))], gates)


def fortress() -> None:
    h, w = 80, 96
    m = np.full((h, w), ".")
    m[:1, :] = m[-1:, :] = m[:, :1] = m[:, -1:] = "#"
    # a C-shaped fortress opening east; its courtyard is a concave trap for greedy steering
    m[15:65, 30] = "#"
    m[15, 30:70] = "#"
    m[64, 30:70] = "#"
    m[15:34, 69] = "#"
    m[46:65, 69] = "#"
    m[25:55, 45] = "#"                        # an inner wall inside the courtyard
    gate = [(69, y) for y in range(34, 46)]
    _write("fortress", "Fortress", "Concave walls: units west of the fort must go round to the east gate.",
           m, [(1, (4, 25, 20, 55)), (2, (50, 20, 66, 40))], [("east gate", gate, True)])


def _blur(a: np.ndarray, passes: int) -> np.ndarray:
    for _ in range(passes):
        a = (a + np.roll(a, 1, 0) + np.roll(a, -1, 0) + np.roll(a, 1, 1) + np.roll(a, -1, 1)) / 5.0
    return a


def forest_level() -> None:
    rng = np.random.default_rng(3)
    h, w = 64, 96
    m = np.full((h, w), ".")
    wood = _blur(rng.random((h, w)), 6)
    m[wood > np.quantile(wood, 0.62)] = "f"
    mud = _blur(rng.random((h, w)), 8)
    m[mud > np.quantile(mud, 0.85)] = ","
    m[(rng.random((h, w)) < 0.08) & (m == "f")] = "T"
    # a winding road east-west and one north-south
    ys = (h / 2 + 10 * np.sin(np.arange(w) / 12.0)).astype(int)
    for x, y in enumerate(ys):
        m[y - 1:y + 1, x] = "="
    m[:, 60:62] = "="
    m[:1, :] = m[-1:, :] = m[:, :1] = m[:, -1:] = "T"
    _write("forest", "Forest plain", "Mud (4x), woods (2.5x) and roads (1x): paths follow the roads.",
           m, [(1, (3, 3, 18, 18)), (2, (78, 46, 93, 61))])


def highlands() -> None:
    rng = np.random.default_rng(7)
    n = 512
    e = _blur(rng.random((n, n)), 40)
    e = (e - e.min()) / (e.max() - e.min())
    ridge = _blur(rng.random((n, n)), 25)
    elevation = np.clip((e * 10).astype(int), 0, 9)
    m = np.full((n, n), ".")
    m[elevation <= 1] = "~"                                   # lakes in the lowlands
    slope = np.abs(np.diff(e * 10, axis=0, append=e[-1:] * 10)) + np.abs(np.diff(e * 10, axis=1, append=e[:, -1:] * 10))
    cliffs = (ridge > np.quantile(ridge, 0.9)) & (elevation >= 5)
    m[cliffs] = "^"
    m[(slope > np.quantile(slope, 0.985)) & (m == ".")] = "^"
    trees = (_blur(rng.random((n, n)), 3) > 0.53) & (m == ".")
    m[trees] = "f"
    m[:1, :] = m[-1:, :] = m[:, :1] = m[:, -1:] = "^"
    # keep the spawn corners open
    m[8:40, 8:40] = np.where(m[8:40, 8:40] == "~", "~", ".")
    m[472:504, 472:504] = np.where(m[472:504, 472:504] == "~", "~", ".")
    _write("highlands", "Highlands", "512x512 hills, lakes and cliffs: the long-range hierarchy's showcase.",
           m, [(1, (8, 8, 40, 40)), (2, (472, 472, 504, 504))], elevation=elevation, height_scale=0.6)


def main() -> None:
    BUILTIN_DIR.mkdir(parents=True, exist_ok=True)
    river()
    fortress()
    forest_level()
    highlands()


if __name__ == "__main__":
    main()
