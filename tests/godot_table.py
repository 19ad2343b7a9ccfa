"""Tries every member of Godot 4.5's ``NavigationAgent3D`` on a real rtsnav agent and writes the
member-by-member table of ``docs/godot.md``.

    python tests/godot_table.py            # writes docs/godot.md
    python tests/godot_table.py --check    # exit 1 when docs/godot.md is not what it would write

Each row names the Godot member, what rtsnav has, and a verdict: ``same`` (same name and
meaning), ``differs`` (with the difference) or ``missing`` (with the reason). A probe runs for
every member rtsnav has: it must not raise and must answer what the row says, else the script
stops with the member's name (so the table cannot claim what the code does not do).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from pathlib import Path

import esper
import numpy as np

from rtsnav.components import NavigationAgent, NavigationObstacle, Position, Velocity
from rtsnav.systems import Navigation, events, install
from rtsnav.systems.nav import Grid

DOC = Path(__file__).resolve().parents[1] / "docs" / "godot.md"
DT = 1 / 30

Probe = Callable[[NavigationAgent, "Scene"], bool]


class Scene:
    """One esper world: a 40×20 grid with a wall to walk round, a walking agent, events logged."""

    def __init__(self) -> None:
        esper.switch_world("godot-table")
        passable = np.ones((20, 40), dtype=bool)
        passable[4:, 15] = False
        self.nav = Navigation(Grid(passable), cache_dir=False)
        install(self.nav, prepare=False)
        self.seen: list[str] = []
        self.handlers = {name: self._logger(name) for name in events.ALL}
        for name, handler in self.handlers.items():
            esper.set_handler(name, handler)
        self.agent = NavigationAgent(target_position=(30.5, 10.5, 0.0), max_speed=6.0, avoidance_enabled=True)
        self.entity = esper.create_entity(Position(3.5, 10.5), Velocity(), self.agent)
        self.idle = NavigationAgent(avoidance_enabled=True)
        self.idle_entity = esper.create_entity(Position(3.5, 3.5), Velocity(), self.idle)

    def _logger(self, name: str):
        def log(*args) -> None:
            self.seen.append(name)
        return log

    def run(self, ticks: int) -> None:
        for _ in range(ticks):
            esper.process(DT)

    def close(self) -> None:
        esper.switch_world("default")
        esper.delete_world("godot-table")


def _set(name: str, value) -> Probe:
    """Setting ``name`` to ``value`` reads back (a member with Godot's name)."""
    def probe(agent: NavigationAgent, scene: Scene) -> bool:
        setattr(agent, name, value)
        return getattr(agent, name) == value
    return probe


def _has(name: str) -> Probe:
    return lambda agent, scene: hasattr(agent, name)


def _event(name: str) -> Probe:
    return lambda agent, scene: name in scene.seen


def _velocity(agent: NavigationAgent, scene: Scene) -> bool:
    scene.idle.velocity = (2.0, 0.0, 0.0)
    before = scene.nav.positions([scene.idle_entity])[0]
    scene.run(10)
    after = scene.nav.positions([scene.idle_entity])[0]
    scene.idle.velocity = None
    return after[0] - before[0] > 0.5


def _forced(agent: NavigationAgent, scene: Scene) -> bool:
    scene.idle.set_velocity_forced((1.0, 0.0, 0.0))
    ok = scene.idle.velocity == (1.0, 0.0, 0.0)
    scene.idle.velocity = None
    return ok


def _layer_bits(kind: str) -> Probe:
    def probe(agent: NavigationAgent, scene: Scene) -> bool:
        getattr(agent, f"set_{kind}_value")(3, True)
        ok = getattr(agent, f"get_{kind}_value")(3)
        getattr(agent, f"set_{kind}_value")(3, False)
        return ok and not getattr(agent, f"get_{kind}_value")(3)
    return probe


def _obstacle(agent: NavigationAgent, scene: Scene) -> bool:
    entity = esper.create_entity(Position(20.0, 15.0), NavigationObstacle(radius=1.0))
    scene.run(2)
    ok = bool(scene.nav.crowd.agents.obstacle.any())
    esper.delete_entity(entity, immediate=True)
    return ok


S, D, M = "same", "differs", "missing"
#: (Godot member, kind, rtsnav, verdict, note, probe or None)
MEMBERS: list[tuple[str, str, str, str, str, Probe | None]] = [
    # ---- properties
    ("avoidance_enabled", "property", "`avoidance_enabled`", S, "reciprocal avoidance (ORCA), walls as hard limits",
     _set("avoidance_enabled", True)),
    ("avoidance_layers", "property", "`avoidance_layers`", S, "32-bit mask, default 1", _set("avoidance_layers", 0b101)),
    ("avoidance_mask", "property", "`avoidance_mask`", S,
     "agents on none of these layers are not avoided (nor pushed by the contact pass)", _set("avoidance_mask", 0b11)),
    ("avoidance_priority", "property", "`avoidance_priority`", S,
     "0..1, default 1: lower-priority agents are not avoided (they avoid all the way); between equals, "
     "standing agents step aside for walking ones", _set("avoidance_priority", 0.5)),
    ("debug_enabled", "property", "`debug_enabled`", D,
     "kept on the component for the game's drawing; rtsnav draws debug only in the demo and `levels show`",
     _set("debug_enabled", True)),
    ("debug_path_custom_color", "property", "`debug_path_custom_color`", D, "as `debug_enabled`",
     _set("debug_path_custom_color", (1.0, 0.0, 0.0, 1.0))),
    ("debug_path_custom_point_size", "property", "`debug_path_custom_point_size`", D, "as `debug_enabled`",
     _set("debug_path_custom_point_size", 6.0)),
    ("debug_use_custom", "property", "`debug_use_custom`", D, "as `debug_enabled`", _set("debug_use_custom", True)),
    ("height", "property", "`height`", S, "default 1; with `use_3d_avoidance`, agents whose spans miss are ignored",
     _set("height", 2.0)),
    ("keep_y_velocity", "property", "`keep_y_velocity`", D,
     "rtsnav is Z-up: keeps the velocity input's z (the up axis) in the safe velocity", _set("keep_y_velocity", True)),
    ("max_neighbors", "property", "`max_neighbors`", S, "default: the crowd's `avoidance_neighbours` (10)",
     _set("max_neighbors", 6)),
    ("max_speed", "property", "`max_speed`", D, "default 4 world units / s (Godot 10)", _set("max_speed", 6.0)),
    ("navigation_layers", "property", "`navigation_layers`", S,
     "paths use only cells on these layers (`Grid.set_layers`); every planner, the navmesh, waypoint graph, "
     "hierarchy and flow fields of a mask are made from its cells", _set("navigation_layers", 0b11)),
    ("neighbor_distance", "property", "`neighbor_distance`", S, "default: the crowd's `avoidance_distance` (4 cells)",
     _set("neighbor_distance", 5.0)),
    ("path_desired_distance", "property", "`path_desired_distance`", S, "default 1", _set("path_desired_distance", 1.0)),
    ("path_height_offset", "property", "`path_height_offset`", S, "path points are reported this far below the surface",
     _set("path_height_offset", 0.0)),
    ("path_max_distance", "property", "`path_max_distance`", S, "default 5: farther from its path, the agent re-plans",
     _set("path_max_distance", 5.0)),
    ("path_metadata_flags", "property", "`path_metadata_flags`", D,
     "kept; `get_current_navigation_result()` always carries the path types (region or link)",
     _set("path_metadata_flags", 7)),
    ("path_postprocessing", "property", "`path_postprocessing`", D,
     "`corridorfunnel` (default: the level's smoothing; a funnel on the navmesh), `edgecentered` and `none` "
     "(cell centres as searched); navmesh and waypoint paths are always funnelled",
     _set("path_postprocessing", "corridorfunnel")),
    ("path_return_max_length", "property", "`path_return_max_length`", S, "0 = no limit; the path is cut at this length",
     _set("path_return_max_length", 0.0)),
    ("path_return_max_radius", "property", "`path_return_max_radius`", S,
     "0 = no limit; cut where it leaves this radius", _set("path_return_max_radius", 0.0)),
    ("path_search_max_distance", "property", "`path_search_max_distance`", D,
     "0 = no limit; applied to the path found (cut where it leaves the distance), not to the search",
     _set("path_search_max_distance", 0.0)),
    ("path_search_max_polygons", "property", "`path_search_max_polygons`", D,
     "0 = no limit (Godot 4096); applied to the path found (at most this many corners), not to the search",
     _set("path_search_max_polygons", 0)),
    ("pathfinding_algorithm", "property", "`pathfinding_algorithm` / `method`", D,
     "Godot has A* only; rtsnav has 13 planners (`PLANNERS`)", _set("pathfinding_algorithm", "astar")),
    ("radius", "property", "`radius`", S, "", _set("radius", 0.4)),
    ("simplify_epsilon", "property", "`simplify_epsilon`", S, "", _set("simplify_epsilon", 0.0)),
    ("simplify_path", "property", "`simplify_path`", S, "Ramer-Douglas-Peucker", _set("simplify_path", False)),
    ("target_desired_distance", "property", "`target_desired_distance`", S, "default 1",
     _set("target_desired_distance", 1.0)),
    ("target_position", "property", "`target_position`", D,
     "world `(x, y, z)`, Z-up; None to stand (Godot has no 'no target'); setting the same value plans again, "
     "as Godot does", _set("target_position", (30.5, 10.5, 0.0))),
    ("time_horizon_agents", "property", "`time_horizon_agents`", S, "default: the crowd's `avoidance_horizon` (1.5 s)",
     _set("time_horizon_agents", 1.5)),
    ("time_horizon_obstacles", "property", "`time_horizon_obstacles`", D,
     "must be > 0 (Godot allows 0); default: the crowd's `avoidance_wall_horizon` (0.3 s); walls are the grid's "
     "blocked cells", _set("time_horizon_obstacles", 0.3)),
    ("use_3d_avoidance", "property", "`use_3d_avoidance`", D,
     "avoidance stays on the ground plane; agents whose height spans (z .. z + height) miss each other are "
     "ignored", _set("use_3d_avoidance", False)),
    ("velocity", "property", "`velocity`", S,
     "the game's desired velocity: an agent without a target walks at it, steered by avoidance; "
     "`velocity_computed` reports the safe one", _velocity),
    # ---- methods
    ("distance_to_target()", "method", "`distance_to_target()`", S, "ground plane; valid from creation",
     lambda a, s: math.isfinite(a.distance_to_target())),
    ("get_avoidance_layer_value()", "method", "same", S, "", _layer_bits("avoidance_layer")),
    ("get_avoidance_mask_value()", "method", "same", S, "", _layer_bits("avoidance_mask")),
    ("get_current_navigation_path()", "method", "same (also `path`)", S, "world `(N, 3)` array",
     lambda a, s: a.get_current_navigation_path().shape[1] == 3),
    ("get_current_navigation_path_index()", "method", "same (also `path_index`)", S, "",
     lambda a, s: a.get_current_navigation_path_index() >= 0),
    ("get_current_navigation_result()", "method", "same", D,
     "a `NavigationPathResult`: path, path types, length, reachable, reason (no RIDs or owners)",
     lambda a, s: a.get_current_navigation_result().path_length > 0),
    ("get_final_position()", "method", "same", D, "None without a path (Godot: the zero vector)",
     lambda a, s: a.get_final_position() is not None),
    ("get_navigation_layer_value()", "method", "same", S, "", _layer_bits("navigation_layer")),
    ("get_navigation_map()", "method", "same", D, "the `Navigation` installed in the entity's esper world",
     lambda a, s: a.get_navigation_map() is s.nav),
    ("get_next_path_position()", "method", "same", S, "the agent's own position without a path or once arrived",
     lambda a, s: a.get_next_path_position() is not None),
    ("get_path_length()", "method", "same", S, "", lambda a, s: a.get_path_length() > 0),
    ("get_rid()", "method", "same", D, "the agent's crowd id (-1 before registration)", lambda a, s: a.get_rid() >= 0),
    ("is_navigation_finished()", "method", "same", S, "", lambda a, s: a.is_navigation_finished() in (True, False)),
    ("is_target_reachable()", "method", "same", S, "", lambda a, s: a.is_target_reachable()),
    ("is_target_reached()", "method", "same", S, "", lambda a, s: a.is_target_reached() in (True, False)),
    ("set_avoidance_layer_value()", "method", "same", S, "", _layer_bits("avoidance_layer")),
    ("set_avoidance_mask_value()", "method", "same", S, "", _layer_bits("avoidance_mask")),
    ("set_navigation_layer_value()", "method", "same", S, "", _layer_bits("navigation_layer")),
    ("set_navigation_map()", "method", "same", D,
     "an agent belongs to its world's `Navigation`: only that one is accepted (move the entity to another "
     "esper world instead)", lambda a, s: a.set_navigation_map(s.nav) is None),
    ("set_velocity_forced()", "method", "same", S, "neighbours' avoidance sees it at once", _forced),
    # ---- signals (esper events)
    ("link_reached", "signal", "event `link_reached`", D, "payload `(entity, kind, start, end)`", None),
    ("navigation_finished", "signal", "event `navigation_finished`", S, "`(entity)`; also at the closest point of "
     "an unreachable target", None),
    ("path_changed", "signal", "event `path_changed`", D, "payload `(entity, path)`", _event("path_changed")),
    ("target_reached", "signal", "event `target_reached`", S, "`(entity)`; not at the closest point of an "
     "unreachable target", None),
    ("velocity_computed", "signal", "event `velocity_computed`", D,
     "one batched `(entities, velocities)` per tick, not one call per agent", _event("velocity_computed")),
    ("waypoint_reached", "signal", "event `waypoint_reached`", D, "payload `(entity, index, position)`",
     _event("waypoint_reached")),
]


def rows() -> list[tuple[str, str, str, str, str]]:
    """Every member probed; ``(member, kind, rtsnav, verdict, note)``."""
    scene = Scene()
    try:
        scene.run(75)
        for name, _, _, verdict, _, probe in MEMBERS:
            if probe is not None and verdict != M and not probe(scene.agent, scene):
                raise SystemExit(f"godot_table: the probe of {name} failed: the table would not be true")
        assert _obstacle(scene.agent, scene), "NavigationObstacle"
        scene.run(200)
        for name in ("target_reached", "navigation_finished"):
            if name not in scene.seen:
                raise SystemExit(f"godot_table: the agent never sent {name}: the table would not be true")
    finally:
        scene.close()
    return [(name, kind, ours, verdict, note) for name, kind, ours, verdict, note, _ in MEMBERS]


def render() -> str:
    """The whole ``docs/godot.md``."""
    table = rows()
    counts = {v: sum(1 for r in table if r[3] == v) for v in (S, D, M)}
    lines = ["# Godot's NavigationAgent3D in rtsnav", "",
             f"Every member of Godot 4.5's `NavigationAgent3D` ({len(table)}: 33 properties, 20 methods, 6 signals)",
             "and what rtsnav's `NavigationAgent` has for it, written by `python tests/godot_table.py`, which",
             "tries each one on a real agent (a row that claims what the code does not do stops it).",
             "Signals are esper events (`rtsnav.systems.events`).", "",
             f"**{counts[S]} same, {counts[D]} differ, {counts[M]} missing.**", "",
             "| Godot | kind | rtsnav | | what differs / why |", "| --- | --- | --- | --- | --- |"]
    for name, kind, ours, verdict, note in table:
        lines.append(f"| `{name}` | {kind} | {ours} | {verdict} | {note} |")
    lines += ["", "rtsnav adds: `paused`, the events `path_failed` (with a reason), `stuck` and `displaced`, and",
              "`NavigationObstacle` (Godot's `NavigationObstacle3D`: `radius` + `velocity`, or `vertices` with",
              "`affect_navigation_mesh`).", ""]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if DOC.read_text() != text:
            print("docs/godot.md is out of date: run python tests/godot_table.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text)
    print(f"wrote {DOC}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
