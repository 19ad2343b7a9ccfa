"""The RTS demo: a Panda3D view onto an esper world that rtsnav moves.

The game is a view: one task advances ``esper.process`` at a fixed step (and the army's unit
AI), then syncs the scene from the crowd's arrays. ``RtsApp`` holds the world, the scene, the
selection and the orders, and composes parts that own their state: the camera (``camera.py``),
the HUD (``hud.py``), the input (``input.py``, calling the app's public commands) and the
overlays (``overlays.py``). Game state lives in components and the army's arrays, never in
Panda3D nodes.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import esper
import numpy as np
from panda3d.core import AmbientLight, DirectionalLight, LineSegs, PNMImage, loadPrcFileData

from rtsnav.components import Flock, NavigationAgent, NavState, Position, Selected, Team, Velocity
from rtsnav.levels.level_file import Level, load_level
from rtsnav.systems import Navigation, install

from .army import Army, UnitMode
from .camera import Camera
from .hud import HELP, OVERLAYS, SIM_DT, Hud, color_name
from .input import Input
from .minimap import Minimap
from .orders import ground_point
from .overlays import Overlays
from .scene import TEAM_COLORS, RingMesh, UnitMesh, build_blocks, build_terrain, drawn_ground, ground_under
from .selection import nearest_unit, units_in_box
from .unit_types import UNIT_TYPES, spawn_cells_for_width, spawn_ground, unit_kinds
from .window_state import HealthBars, Shots, pnm_to_array, save_frame, window_summary

__all__ = ["RtsApp", "configure_panda", "pnm_to_array", "SIM_DT", "OVERLAYS", "HELP"]

def configure_panda(headless: bool, size: tuple[int, int]) -> None:
    """Panda3D settings before ShowBase starts (offscreen software rendering when headless)."""
    prc = [f"win-size {size[0]} {size[1]}", "sync-video false", "audio-library-name null",
           "window-title rtsnav demo", "notify-level-device fatal", "notify-level-x11display fatal",
           "notify-level-display fatal", "print-pipe-types false"]
    if headless:
        prc += ["window-type offscreen", "load-display p3tinydisplay"]
    loadPrcFileData("rtsnav", "\n".join(prc))


class RtsApp:
    """The demo application (wraps a ``ShowBase``).

    Args:
        level: a built-in level name, a level ``.toml`` or a Moving AI ``.map``.
        units: how many units (split between the level's teams).
        headless: render offscreen (``p3tinydisplay``) instead of opening a window.
        size: window size in pixels.
        avoidance: units steer around each other, enemies included (reciprocal avoidance).
        combat: the unit AI fights enemies in range (False: orders and navigation only).
    """

    def __init__(self, level: "str | Level" = "river", units: int = 500, *, headless: bool = False,
                 size: tuple[int, int] = (1024, 640), seed: int = 1, avoidance: bool = True,
                 combat: bool = True) -> None:
        configure_panda(headless, size)
        from direct.showbase.ShowBase import ShowBase

        self.base = ShowBase(windowType="offscreen" if headless else None)
        self.loader = self.base.loader
        self.task_mgr = self.base.taskMgr
        self.headless = headless
        self.world = f"rtsnav-demo-{id(self)}"
        esper.switch_world(self.world)
        self.level: Level = level if isinstance(level, Level) else load_level(level)
        self.navigation = Navigation(self.level.grid)
        install(self.navigation)
        self.entities = self._spawn(units, seed, avoidance)
        self.player_team = min(self.level.spawns)          # the player's side; the others are scripted
        teams = np.array([esper.component_for_entity(e, Team).id for e in self.entities])
        self.army = Army(self.navigation, self.entities, teams, self.level, combat, self.kinds)
        self.index_of = {e: i for i, e in enumerate(self.entities)}
        self.armed: UnitMode | None = None                 # A / P pressed: the next right-click's mode
        self.inspected: int | None = None                  # an enemy clicked on: its state on the HUD
        self.formation = False                             # F: group moves keep their layout
        self.screenshot_path: Path = Path("rtsnav-shot.png")
        self.paused = False
        #: a closing gate waits while units stand in it (else it closes and they step out)
        self.gates_wait_for_units = False
        self._overlay_tick = -1
        self.tick = 0
        self.last_goal: tuple[int, int] | None = None
        self.frame_ms = {"simulation": 0.0, "sync": 0.0, "render": 0.0}
        self._build_scene()
        self.input = Input(self.base, self)
        self._accum = 0.0
        self.task_mgr.add(self._frame_task, "rtsnav-frame")

    # ------------------------------------------------------------------ world
    def _spawn(self, units: int, seed: int, avoidance: bool) -> list[int]:
        rng = np.random.default_rng(seed)
        teams = sorted(self.level.spawns)
        # about two bodies a cell of the open ground the spawns stand on (a tiny map cannot hold
        # the army: its bodies would be pressed into one heap)
        labels = self.level.grid.components()
        reached = np.unique(np.concatenate([labels[c[:, 1], c[:, 0]] for c in self.level.spawns.values()]))
        room = 2 * int(np.isin(labels, reached[reached >= 0]).sum())
        if units > room:
            print(f"note: the open ground of {self.level.name!r} holds about {room} units: spawning {room} of {units}",
                  file=sys.stderr)
            units = room
        ents = []
        self.kinds = unit_kinds(units)
        kinds = [UNIT_TYPES[k] for k in self.kinds.tolist()]
        ground = spawn_ground(self.level, {t: len(range(k, units, len(teams))) for k, t in enumerate(teams)})
        roomy = spawn_cells_for_width(self.level, 0.7, ground)    # a tank next to a tree would start in it
        for i in range(units):
            team = teams[i % len(teams)]
            cells = roomy[team] if kinds[i].radius > 0.5 * self.level.grid.cell_size else ground[team]
            x, y = cells[rng.integers(0, len(cells))]
            wx, wy, _ = self.level.grid.cell_to_world(int(x), int(y))
            jitter = rng.uniform(-0.3, 0.3, 2) * self.level.grid.cell_size
            z = float(self.level.ground[y, x])
            ents.append(esper.create_entity(
                Position(wx + jitter[0], wy + jitter[1], z), Velocity(), Team(team), Flock(group=team, radius=1.2),
                NavigationAgent(max_speed=kinds[i].speed * float(rng.uniform(0.92, 1.08)), radius=kinds[i].radius,
                                avoidance_enabled=avoidance)))
        esper.process(0.0)                      # register the agents (no movement at dt = 0)
        return ents

    def positions(self) -> np.ndarray:
        """World positions of the units, ``(N, 3)``, in ``entities`` order."""
        return self.navigation.crowd.positions[self.army.ids].copy()

    def step(self, ticks: int = 1) -> None:
        """Advance the simulation by ``ticks`` fixed steps (``SIM_DT`` each)."""
        esper.switch_world(self.world)
        for _ in range(ticks):
            esper.process(SIM_DT)
            self.army.tick(SIM_DT)
            self.tick += 1
            if len(self.army.fallen):
                self._selected_mask &= self.army.alive
                if (winner := self.army.winner()) is not None and self.hud.message != f"team {winner} wins":
                    self.say(f"team {winner} wins", 30.0)

    # ------------------------------------------------------------------ scene
    def _build_scene(self) -> None:
        base = self.base
        base.setBackgroundColor(0.08, 0.09, 0.11, 1)
        # The level file is a top-down map with its first row at the north edge (the top of the
        # screen), as `levels show` draws it; world y grows with the row, so the scene's root
        # mirrors y. Everything placed in world coordinates goes under ``self.scene``.
        self.scene = base.render.attachNewNode("world (y mirrored: row 0 is north)")
        self.scene.setScale(1, -1, 1)
        self.terrain = build_terrain(self.level)
        self.terrain.reparentTo(self.scene)
        self.ground_step, self.ground_drawn = drawn_ground(self.level)
        self.units = UnitMesh(len(self.entities), np.array([UNIT_TYPES[k].radius for k in self.kinds.tolist()]))
        self.units.node.reparentTo(self.scene)
        self.units.node.setLightOff()
        self.rings = RingMesh(len(self.entities))
        self._rings_shown = True
        self.rings.node.reparentTo(self.scene)
        self.bars = HealthBars(len(self.entities), parent=self.scene)
        self.shots = Shots(self.army.team, parent=self.scene)
        self.gate_nodes: dict[str, tuple] = {}
        for name, gate in self.level.gates.items():
            closed = build_blocks(self.level, gate.cells, 1.6, (0.75, 0.18, 0.12), f"gate {name} closed")
            opened = build_blocks(self.level, gate.cells, 0.08, (0.35, 0.8, 0.35), f"gate {name} open")
            closed.reparentTo(self.scene)
            opened.reparentTo(self.scene)
            self.gate_nodes[name] = (opened, closed)
        self._show_gates()
        self._recolor()
        sun = DirectionalLight("sun")
        sun.setColor((0.9, 0.9, 0.85, 1))
        sun_np = base.render.attachNewNode(sun)
        sun_np.setHpr(30, -60, 0)
        amb = AmbientLight("amb")
        amb.setColor((0.45, 0.45, 0.5, 1))
        self.terrain.setLight(sun_np)
        self.terrain.setLight(base.render.attachNewNode(amb))
        g = self.level.grid
        x0, y0 = g.origin
        self.camera = Camera(base, self.scene, np.array([g.width * g.cell_size / 2, g.height * g.cell_size / 2, 0.0]),
                             max(g.width, g.height) * g.cell_size * 0.95,
                             bounds=(x0, y0, x0 + g.width * g.cell_size, y0 + g.height * g.cell_size))
        self.camera.frame(self.positions())
        self.overlays = Overlays(self.scene, self.navigation, self.level)
        self.marker_np = self.scene.attachNewNode("order-marker")
        self.marker_until = 0
        self.marker_points: list[tuple[float, float, float]] = []         # the shown chain of orders
        self.hud = Hud(base)
        self.minimap = Minimap(base, self.level, TEAM_COLORS)
        self._minimap_tick = -1
        self.sync_scene()

    def _recolor(self) -> None:
        teams = self.army.team
        rgb = np.array([TEAM_COLORS.get(int(t), (0.8, 0.8, 0.8)) for t in teams])
        self.units.set_colors(rgb)
        self.rings.set_colors(np.clip(0.35 + rgb, 0, 1))
        self._selected_mask = np.zeros(len(self.entities), dtype=bool)
        for e, _ in esper.get_component(Selected):
            self._selected_mask[self.index_of[e]] = True

    def _show_gates(self) -> None:
        for name, (opened, closed) in self.gate_nodes.items():
            is_open = self.level.gates[name].open
            (opened.show if is_open else opened.hide)()
            (closed.hide if is_open else closed.show)()

    def sync_scene(self) -> None:
        """Scene nodes follow the components (positions, headings, HUD)."""
        nav = self.navigation
        crowd = nav.crowd
        pos = crowd.positions[self.army.ids]               # agent ids are stable: no per-entity lookups
        # stand on the drawn ground (big maps draw merged blocks at their mean height)
        pos[:, 2] = np.maximum(pos[:, 2], ground_under(self.level, self.ground_step, self.ground_drawn, pos))
        alive = self.army.alive
        self.units.update(pos, crowd.velocities[self.army.ids, :2] + 1e-9 * np.array([1.0, 0.0]), alive)
        if self._selected_mask.any() or self._rings_shown:  # nothing selected: the rings stay collapsed
            self.rings.update(pos, self._selected_mask)
            self._rings_shown = bool(self._selected_mask.any())
        self.bars.update(pos, self.army.health, alive)
        self.shots.update(pos, self.army.fighting, self.army.enemy, alive, self.tick * SIM_DT)
        overlay = self.overlays.number
        if overlay and self.tick % (15 if overlay in (1, 5) else 60) == 0 and self.tick != self._overlay_tick:
            self._overlay_tick = self.tick                      # overlays follow the units and the plans
            self._draw_overlay()
        if self.camera.following:
            chosen = self.selected_units()
            if len(chosen):
                self.camera.target[:2] = pos[chosen, :2].mean(axis=0)
                self.camera.place()
        if self._minimap_tick < 0 or self.tick - self._minimap_tick >= 10:      # dots redrawn 3 times a second
            self._minimap_tick = self.tick
            self.minimap.update(pos[alive], self.army.team[alive], self.camera.view_on_ground())
        if self.marker_until and self.tick >= self.marker_until:
            self.marker_np.getChildren().detach()
            self.marker_until = 0
        self._update_hud()

    def _update_hud(self) -> None:
        states = self.navigation.crowd.states[self.army.ids[self.army.alive]]
        overlay = self.overlays.number
        deaths = ", ".join(f"team {t} {n}" for t, n in self.army.deaths.items())
        lines = [f"{self.level.name}   {self.tick * SIM_DT:5.1f} s" + ("   PAUSED" if self.paused else ""),
                 f"units {int(self.army.alive.sum())}   deaths: {deaths}   selected {int(self._selected_mask.sum())}"
                 f"   moving {int((states == NavState.FOLLOWING).sum())}"
                 f"   arrived {int((states == NavState.FINISHED).sum())}",
                 f"group planner: {self.army.planner} (Tab)   formation {'on' if self.formation else 'off'} (F)"
                 + (f"   next right-click: {self.armed.name.lower().replace('_', '-')}" if self.armed else "")
                 + ("   camera follows" if self.camera.following else ""),
                 f"overlay: {OVERLAYS.get(overlay, 'off')} (F5-F9)"
                 + ("   " + "  ".join(f"{name}: {color_name(rgba)}" for name, rgba in self.overlays.legend)
                    if overlay else "")]
        if self.inspected is not None:
            u, army = self.inspected, self.army
            state = f"health {army.health[u]:.0%}, {UnitMode(int(army.mode[u])).name.lower()}" if army.alive[u] else "dead"
            lines.append(f"enemy {UNIT_TYPES[army.kind[u]].name} (team {army.team[u]}): {state}")
        if self.level.gates:
            lines.append("gates: " + ", ".join(f"{n} {'open' if g.open else 'CLOSED'}"
                                               for n, g in self.level.gates.items()))
        self.hud.update(lines, self.tick, self.frame_ms)

    @property
    def message(self) -> str:
        """The HUD's message while it is shown ('' otherwise)."""
        return self.hud.message if self.tick < self.hud.message_until else ""

    def say(self, message: str, seconds: float = 4.0) -> None:
        """Show ``message`` on the HUD for ``seconds`` of game time."""
        self.hud.say(message, self.tick + int(seconds / SIM_DT))

    # ---------------------------------------------------------------- overlays
    def set_overlay(self, number: int) -> None:
        """Show overlay ``number`` (1 paths, 2 corridor / flow field, 3 hierarchy, 4 navmesh,
        5 density; see ``Overlays.draw``); the same number again hides it."""
        self.overlays.number = 0 if self.overlays.number == number else number
        self._draw_overlay()

    def overlay_draw(self, number: int):
        """The arrays overlay ``number`` draws for the selection and its last order."""
        return self.overlays.draw(number, self.army.ids[self.selected_units()], self.army.ids[self.army.alive],
                                  self.last_goal)

    def _draw_overlay(self) -> None:
        problem = self.overlays.redraw(self.army.ids[self.selected_units()], self.army.ids[self.army.alive],
                                       self.last_goal)
        if problem:
            self.say(problem)

    # ---------------------------------------------------------------- camera
    def frame_units(self, entities: list[int]) -> None:
        """Point the camera at ``entities`` and zoom until every one is on screen."""
        entities = [e for e in entities if esper.entity_exists(e)]          # the dead are gone
        if entities:
            self.camera.frame(self.navigation.positions(entities))

    def zoom(self, factor: float, pixel: tuple[float, float] | None = None) -> None:
        """Wheel: zoom in (``factor`` < 1) or out, toward the ground under window ``pixel``
        (the cursor) when given."""
        toward = ground_point(self.base, pixel, self.level, self.scene) if pixel is not None else None
        self.camera.zoom(factor, None if toward is None else np.asarray(toward))

    def on_minimap(self, pixel: tuple[float, float]) -> bool:
        """True when window ``pixel`` is on the minimap."""
        return self.minimap.contains(pixel)

    def look_at_minimap(self, pixel: tuple[float, float]) -> bool:
        """Left-click on the minimap: the camera looks at that point of the map."""
        p = self.minimap.world_point(pixel)
        if p is None:
            return False
        self.camera.look_at(p)
        return True

    def jump_to_selection(self) -> None:
        """C: centre the camera on the selection (zoomed to fit it)."""
        self.frame_units([self.entities[i] for i in self.selected_units().tolist()])

    def toggle_follow(self) -> bool:
        """V: the camera follows the selection's centre."""
        self.camera.following = not self.camera.following
        return self.camera.following

    # ------------------------------------------------------------- small keys
    def toggle_pause(self) -> bool:
        """Space: pause or resume the simulation."""
        self.paused = not self.paused
        return self.paused

    def toggle_help(self) -> None:
        """F1: the key help."""
        self.hud.toggle_help()

    def toggle_timings(self) -> None:
        """F3: frame and processor timings."""
        self.hud.toggle_timings()

    def save_screenshot(self) -> None:
        """F12: save the frame to ``screenshot_path`` (``--screenshot``; default rtsnav-shot.png)."""
        try:
            self.screenshot(self.screenshot_path)
            self.say(f"screenshot saved: {self.screenshot_path}", 2.0)
        except OSError as e:                      # a key press never ends the game
            self.say(f"screenshot not saved: {e.strerror} ({self.screenshot_path})", 4.0)

    def right_click(self, pixel: tuple[float, float], queue: bool = False) -> int:
        """Right-click: the armed order (A, P) or a move, to the ground under ``pixel``."""
        n = self.order_move_at_pixel(pixel, self.armed or UnitMode.MOVE, queue)
        self.armed = None
        return n

    def toggle_gate_at_pixel(self, pixel: tuple[float, float] | None) -> str | None:
        """G: open or close the gate nearest the ground under ``pixel``."""
        p = ground_point(self.base, pixel, self.level, self.scene) if pixel is not None else None
        return self.toggle_gate(near=None if p is None else (p[0], p[1]))

    # ----------------------------------------------------------------- control
    def select_box(self, box: tuple[float, float, float, float], add: bool = False) -> list[int]:
        """Select the units drawn inside the pixel rectangle ``box`` (of team 1 when mixed)."""
        esper.switch_world(self.world)
        idx = units_in_box(self.base, self.positions(), box, self.scene)
        chosen = [self.entities[i] for i in idx if self.army.alive[i] and self.army.team[i] == self.player_team]
        self._set_selection(chosen, add)
        return chosen

    def select_at(self, pixel: tuple[float, float], add: bool = False) -> list[int]:
        """Select the player's unit drawn nearest to ``pixel`` (if any)."""
        own = np.flatnonzero((self.army.team == self.player_team) & self.army.alive).tolist()
        i = nearest_unit(self.base, self.positions()[own], pixel, space=self.scene) if own else None
        chosen = [] if i is None else [self.entities[own[i]]]
        self.inspected = None
        if i is None:                           # an enemy under the cursor: shown, not commanded
            enemy = np.flatnonzero((self.army.team != self.player_team) & self.army.alive)
            k = nearest_unit(self.base, self.positions()[enemy], pixel, space=self.scene) if len(enemy) else None
            self.inspected = None if k is None else int(enemy[k])
        self._set_selection(chosen, add)
        return chosen

    def select_kind_at(self, pixel: tuple[float, float]) -> list[int]:
        """Double-click: every unit of the player's on screen of the kind of the one under ``pixel``."""
        picked = self.select_at(pixel)
        if not picked:
            return []
        kind = self.kinds[self.index_of[picked[0]]]
        mine = np.flatnonzero((self.army.team == self.player_team) & self.army.alive & (self.kinds == kind))
        w, h = self.base.win.getXSize(), self.base.win.getYSize()
        chosen = [self.entities[mine[i]] for i in units_in_box(self.base, self.positions()[mine], (0, 0, w, h),
                                                               self.scene)]
        self._set_selection(chosen, False)
        return chosen

    def select_team(self, team: int) -> list[int]:
        """Select every living unit of ``team``."""
        chosen = [self.entities[i] for i in np.flatnonzero((self.army.team == team) & self.army.alive).tolist()]
        self._set_selection(chosen, False)
        return chosen

    def _set_selection(self, chosen: list[int], add: bool) -> None:
        if not add:
            for e, _ in list(esper.get_component(Selected)):
                esper.remove_component(e, Selected)
        for e in chosen:
            if not esper.has_component(e, Selected):
                esper.add_component(e, Selected())
        self._recolor()

    def selected_units(self) -> np.ndarray:
        """Indices (into ``entities``) of the selected units."""
        return np.flatnonzero(self._selected_mask)

    def order_move(self, target: tuple[float, float, float], mode: UnitMode = UnitMode.MOVE, *,
                   queue: bool = False, formation: bool | None = None) -> int:
        """Order the selection to world ``target`` (what a right-click does); a ring marks it.
        ``mode``: MOVE, ATTACK_MOVE or PATROL; ``queue`` appends it after their current orders
        (shift); ``formation`` (default: the F toggle) keeps their layout at one speed.
        A target the selection cannot reach (water, a sealed fort) becomes the nearest point it
        can reach, and the HUD says so (the ring turns red)."""
        esper.switch_world(self.world)
        chosen = [e for e, _ in esper.get_component(Selected)]
        grid = self.level.grid
        reachable = True
        if chosen:
            goal = grid.world_to_cell(target[0], target[1])
            near = grid.nearest_reachable(goal, grid.world_to_cells(self.navigation.positions(chosen)))
            if near is not None and near != goal:
                # a click on a tree or a rock beside open ground just means the ground there
                reachable = math.hypot(near[0] - goal[0], near[1] - goal[1]) <= 1.5
                target = (*grid.cell_to_world(*near)[:2], float(self.level.ground[near[1], near[0]]))
                if not reachable:
                    self.say("can't reach that point: moving to the nearest reachable one")
        n = self.army.command(self.selected_units(), target, mode, queue=queue,
                              formation=self.formation if formation is None else formation)
        self.last_goal = grid.world_to_cell(target[0], target[1])
        self._mark_ground(target, (1.0, 1.0, 1.0) if reachable else (1.0, 0.3, 0.25), chained=queue)
        if self.overlays.number in (2, 3, 4):
            self._draw_overlay()
        return n

    def _mark_ground(self, target: tuple[float, float, float], rgb=(1.0, 1.0, 1.0), chained: bool = False) -> None:
        """Rings where an order goes; a queued order (shift) adds its rings to the chain of the
        earlier ones, joined by a line, so the whole queue shows."""
        segs = LineSegs("order-marker")
        segs.setThickness(3.0)
        segs.setColor(*rgb, 1)
        x, y, z = target
        if chained and self.marker_until and self.marker_points:
            segs.moveTo(*self.marker_points[-1])
            segs.drawTo(x, y, z + 0.5)
        else:
            self.marker_np.getChildren().detach()
            self.marker_points = []
        self.marker_points.append((x, y, z + 0.5))
        for radius in (0.8, 1.6):
            ring = [(x + radius * math.cos(a), y + radius * math.sin(a), z + 0.5)
                    for a in np.linspace(0, 2 * math.pi, 25)]
            segs.moveTo(*ring[0])
            for p in ring[1:]:
                segs.drawTo(*p)
        marker = self.marker_np.attachNewNode(segs.create())
        marker.setLightOff()
        self.marker_until = self.tick + 90                     # shown for 3 s of game time

    def order_move_at_pixel(self, pixel: tuple[float, float], mode: UnitMode = UnitMode.MOVE,
                            queue: bool = False) -> int:
        """Right-click: order the selection to the ground under ``pixel`` (a click on the
        minimap orders to that point of the map)."""
        p = self.minimap.world_point(pixel) or ground_point(self.base, pixel, self.level, self.scene)
        return 0 if p is None else self.order_move(p, mode, queue=queue)

    # ------------------------------------------------------------ RTS commands
    def stop(self) -> None:
        """S: the selection stops (orders and queues dropped)."""
        self.army.stop(self.selected_units())

    def hold(self) -> None:
        """H: the selection holds position."""
        self.army.hold(self.selected_units())

    def select_all(self) -> list[int]:
        """Ctrl + A: select every unit of the player's team."""
        return self.select_team(self.player_team)

    def set_control_group(self, number: int) -> None:
        """Ctrl + number: the selection becomes control group ``number``."""
        self.army.set_control_group(number, self.selected_units())
        self.say(f"control group {number}: {len(self.army.control_group(number))} units", 2.0)

    def recall_control_group(self, number: int) -> list[int]:
        """Number: select control group ``number``; pressed again quickly, the camera jumps to it."""
        chosen = [self.entities[i] for i in self.army.control_group(number).tolist()]
        self._set_selection(chosen, False)
        return chosen

    def cycle_planner(self) -> str:
        """Tab: the planner group orders use next (leader, flow field, potential, navmesh, …)."""
        name = self.army.next_planner()
        self.say(f"group orders now plan with: {name}", 3.0)
        return name

    def toggle_formation(self) -> bool:
        """F: group moves keep their layout and walk at the slowest unit's speed."""
        self.formation = not self.formation
        self.say(f"formation moves {'on' if self.formation else 'off'}", 2.0)
        return self.formation

    def arm(self, mode: UnitMode) -> None:
        """A (attack-move) or P (patrol): the next right-click gives that order."""
        self.armed = mode

    def toggle_gate(self, name: str | None = None, near: tuple[float, float] | None = None) -> str | None:
        """Open / close gate ``name`` (default: the gate nearest to world point ``near``, else to
        the camera's target); units re-plan around the change; units standing in a closing gate
        step to the nearest open cell, or, with ``gates_wait_for_units``, the gate stays open
        and the HUD says why. Returns the gate's name."""
        if not self.level.gates:
            return None
        esper.switch_world(self.world)
        if name is None:
            px, py = near if near is not None else (self.camera.target[0], self.camera.target[1])
            grid = self.level.grid

            def distance(gate_name: str) -> float:
                w = grid.cells_to_world(self.level.gates[gate_name].cells)
                return float(np.hypot(w[:, 0] - px, w[:, 1] - py).min())

            name = min(self.level.gates, key=distance)
        gate = self.level.gates[name]
        if gate.open and self.gates_wait_for_units:
            standing = self.navigation.crowd.occupants(gate.cells)
            if len(standing):
                n = len(standing)
                self.say(f"{name} stays open: {n} unit{' stands' if n == 1 else 's stand'} in it")
                return name
        cells = self.level.set_gate(name, not gate.open)
        self.navigation.cells_changed(cells)
        self._show_gates()
        return name

    # ------------------------------------------------------------------- input

    # -------------------------------------------------------------------- loop
    def _frame_task(self, task):
        dt = SIM_DT if self.headless else min(self.base.clock.getDt(), 0.25)
        if not self.headless:       # Panda3D draws after this task: the last frame less this task (F3)
            last = self.base.clock.getDt() * 1e3
            self.frame_ms["render"] = max(0.0, last - self.frame_ms["simulation"] - self.frame_ms["sync"])
        mouse = None if self.headless else self.input.mouse_pixel()
        mouse = None if mouse is not None and self.minimap.contains(mouse) else mouse   # no edge pan there
        self.camera.move(dt, self.input.held("pan"), self.input.held("rotate"), mouse)
        if self.input.drag_start is not None:
            self.input.draw_drag_box()
        t0 = time.perf_counter()
        if not self.paused:
            self._accum += dt
            while self._accum >= SIM_DT - 1e-9:
                self.step(1)
                self._accum -= SIM_DT
        t1 = time.perf_counter()
        self.sync_scene()
        t2 = time.perf_counter()
        self.frame_ms["simulation"] = (t1 - t0) * 1e3
        self.frame_ms["sync"] = (t2 - t1) * 1e3
        return task.cont

    def state_summary(self) -> dict:
        """What a test driving the real window checks (``window_state.window_summary``)."""
        return window_summary(self)

    def render_frame(self) -> None:
        """Run one frame: the frame task (simulation + sync), then draw."""
        self.task_mgr.step()
        t = time.perf_counter()
        self.base.graphicsEngine.renderFrame()
        self.frame_ms["render"] = (time.perf_counter() - t) * 1e3

    def screenshot(self, path: str | Path) -> np.ndarray:
        """Save the current frame as an image and return it as ``[H, W, 3] uint8``."""
        return save_frame(self.base, path)

    def image(self) -> np.ndarray:
        """The current frame as ``[H, W, 3] uint8`` (not saved)."""
        self.base.graphicsEngine.renderFrame()
        img = PNMImage()
        self.base.win.getScreenshot(img)
        return pnm_to_array(img)

    def run(self) -> None:
        """Play in a window until it is closed."""
        self.base.run()

    def destroy(self) -> None:
        """Close the window and drop this app's esper world."""
        self.base.destroy()
        esper.switch_world("default")
        if self.world in esper.list_worlds():
            esper.delete_world(self.world)
