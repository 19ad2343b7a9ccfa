"""The RTS demo: a Panda3D view onto an esper world that rtsnav moves.

The game is a view: one task advances ``esper.process`` at a fixed step, then syncs the scene
from the components; input only fills an intent map that becomes order components. Game state
lives in components, never in Panda3D nodes.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import esper
import numpy as np
from panda3d.core import AmbientLight, DirectionalLight, Filename, LineSegs, PNMImage, TextNode, loadPrcFileData

from rtsnav.components import Flock, NavigationAgent, NavState, Position, Selected, Team, Velocity
from rtsnav.levels.level_file import Level, load_level
from rtsnav.systems import Navigation, install, installed_processors
from rtsnav.systems.nav import debug_draw
from rtsnav.systems.nav.debug_draw import DebugDraw

from .army import Army, UnitMode
from .minimap import Minimap
from .orders import ground_point
from .overlays import debug_node
from .scene import TEAM_COLORS, RingMesh, UnitMesh, build_blocks, build_terrain, drawn_ground, ground_under
from .selection import nearest_unit, project_to_screen, units_in_box

__all__ = ["RtsApp", "configure_panda"]

SIM_DT = 1.0 / 30.0
OVERLAYS = {1: "paths", 2: "corridor / flow field", 3: "hierarchy", 4: "navmesh", 5: "density"}
HELP = ("arrows / screen edge pan   wheel zoom   Q/E rotate   left-drag select (shift adds)   Ctrl+A all\n"
        "right-click move (shift queues)   A attack-move   P patrol   S stop   H hold   F formation\n"
        "Ctrl+1-9 set group   1-9 recall   C jump to selection   V follow   Tab planner   G gate under mouse\n"
        "F5-F9 overlays (paths, corridor/flow, hierarchy, navmesh, density)   minimap: left-click look, right-click move\n"
        "Space pause   F1 help   F3 timings")


def configure_panda(headless: bool, size: tuple[int, int]) -> None:
    """Panda3D settings before ShowBase starts (offscreen software rendering when headless)."""
    prc = [f"win-size {size[0]} {size[1]}", "sync-video false", "audio-library-name null",
           "window-title rtsnav demo", "notify-level-device fatal", "notify-level-x11display fatal",
           "notify-level-display fatal"]
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
        self.army = Army(self.navigation, self.entities, teams, self.level, combat)
        self.index_of = {e: i for i, e in enumerate(self.entities)}
        self.armed: UnitMode | None = None                 # A / P pressed: the next right-click's mode
        self.formation = False                             # F: group moves keep their layout
        self.following = False                             # V: the camera follows the selection
        self.screenshot_path: Path = Path("rtsnav-shot.png")
        self.paused = False
        self.overlay_legend: list = []
        self._overlay_tick = -1
        self.message, self.message_until = "", 0
        self.show_timings = False
        self.overlay = 0
        self.tick = 0
        self.intent: dict = {}
        self.drag_start: tuple[float, float] | None = None
        self.last_goal: tuple[int, int] | None = None
        self.frame_ms = {"simulation": 0.0, "sync": 0.0, "render": 0.0}
        self._build_scene()
        self._bind_input()
        self._accum = 0.0
        self.task_mgr.add(self._frame_task, "rtsnav-frame")

    # ------------------------------------------------------------------ world
    def _spawn(self, units: int, seed: int, avoidance: bool) -> list[int]:
        rng = np.random.default_rng(seed)
        teams = sorted(self.level.spawns)
        ents = []
        for i in range(units):
            team = teams[i % len(teams)]
            cells = self.level.spawns[team]
            x, y = cells[rng.integers(0, len(cells))]
            wx, wy, _ = self.level.grid.cell_to_world(int(x), int(y))
            jitter = rng.uniform(-0.3, 0.3, 2) * self.level.grid.cell_size
            z = float(self.level.ground[y, x])
            ents.append(esper.create_entity(
                Position(wx + jitter[0], wy + jitter[1], z), Velocity(), Team(team), Flock(group=team),
                NavigationAgent(max_speed=float(rng.uniform(4.5, 5.5)), radius=0.35, avoidance_enabled=avoidance)))
        esper.process(0.0)                      # register the agents (no movement at dt = 0)
        return ents

    def positions(self) -> np.ndarray:
        """World positions of the units, ``(N, 3)``, in ``entities`` order."""
        return self.navigation.crowd.state.position[self.army.ids].copy()

    def step(self, ticks: int = 1) -> None:
        """Advance the simulation by ``ticks`` fixed steps (``SIM_DT`` each)."""
        esper.switch_world(self.world)
        for _ in range(ticks):
            esper.process(SIM_DT)
            self.army.tick(SIM_DT)
            self.tick += 1

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
        self.units = UnitMesh(len(self.entities))
        self.units.node.reparentTo(self.scene)
        self.units.node.setLightOff()
        self.rings = RingMesh(len(self.entities))
        self._rings_shown = True
        self.rings.node.reparentTo(self.scene)
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
        base.disableMouse()
        g = self.level.grid
        self.cam_target = np.array([g.width * g.cell_size / 2, g.height * g.cell_size / 2, 0.0])
        self.cam_heading = 0.0
        self.cam_distance = max(g.width, g.height) * g.cell_size * 0.95
        self._place_camera()
        self.frame_units(self.entities)
        self.overlay_np = self.scene.attachNewNode("overlay")
        self.marker_np = self.scene.attachNewNode("order-marker")
        self.marker_until = 0
        self.box_np = base.render2d.attachNewNode("selection-box")
        self.hud = TextNode("hud")
        self.hud.setTextColor(1, 1, 1, 1)
        self.hud.setShadow(0.05, 0.05)
        self.hud.setCardColor(0.0, 0.0, 0.0, 0.55)          # a backing panel: readable over any ground
        self.hud.setCardAsMargin(0.4, 0.4, 0.3, 0.3)
        self.hud.setCardDecal(True)
        hud_np = base.aspect2d.attachNewNode(self.hud)
        hud_np.setScale(0.045)
        hud_np.setPos(-base.getAspectRatio() + 0.03, 0, 0.92)
        self.help_visible = False
        self.minimap = Minimap(base, self.level, TEAM_COLORS)
        self._minimap_tick = -1
        self.sync_scene()

    def _place_camera(self) -> None:
        # the camera lives in render space: the world point (x, y) is drawn at (x, -y)
        h = math.radians(self.cam_heading)
        d = self.cam_distance
        tx, ty, tz = self.cam_target[0], -self.cam_target[1], self.cam_target[2]
        self.base.camera.setPos(tx - math.sin(h) * d * 0.6, ty - math.cos(h) * d * 0.6, tz + d * 0.8)
        self.base.camera.lookAt(tx, ty, tz)
        self.base.camLens.setNearFar(1.0, d * 4)

    def frame_units(self, entities: list[int], margin: float = 0.08) -> None:
        """Point the camera at ``entities`` and zoom until every one is on screen."""
        if not entities:
            return
        pos = self.navigation.positions(entities)
        lo, hi = pos.min(axis=0), pos.max(axis=0)
        self.cam_target = np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, float(np.median(pos[:, 2]))])
        self.cam_distance = float(max(np.hypot(hi[0] - lo[0], hi[1] - lo[1]), 20.0))
        w, h = self.base.win.getXSize(), self.base.win.getYSize()
        for _ in range(30):
            self._place_camera()
            screen, front = project_to_screen(self.base, pos, self.scene)
            inside = front & (screen[:, 0] >= margin * w) & (screen[:, 0] <= (1 - margin) * w) & \
                (screen[:, 1] >= margin * h) & (screen[:, 1] <= (1 - margin) * h)
            if inside.all():
                break
            self.cam_distance *= 1.15

    def _recolor(self) -> None:
        teams = np.array([esper.component_for_entity(e, Team).id for e in self.entities])
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
        s = nav.crowd.state
        pos = s.position[self.army.ids]                    # agent ids are stable: no per-entity lookups
        # stand on the drawn ground (big maps draw merged blocks at their mean height)
        pos[:, 2] = np.maximum(pos[:, 2], ground_under(self.level, self.ground_step, self.ground_drawn, pos))
        self.units.update(pos, s.velocity[self.army.ids, :2] + 1e-9 * np.array([1.0, 0.0]))
        if self._selected_mask.any() or self._rings_shown:  # nothing selected: the rings stay collapsed
            self.rings.update(pos, self._selected_mask)
            self._rings_shown = bool(self._selected_mask.any())
        if self.overlay and self.tick % (15 if self.overlay in (1, 5) else 60) == 0 and self.tick != self._overlay_tick:
            self._overlay_tick = self.tick                      # overlays follow the units and the plans
            self._draw_overlay()
        if self.following:
            chosen = self.selected_units()
            if len(chosen):
                self.cam_target[:2] = pos[chosen, :2].mean(axis=0)
                self._place_camera()
        if self._minimap_tick < 0 or self.tick - self._minimap_tick >= 10:      # dots redrawn 3 times a second
            self._minimap_tick = self.tick
            self.minimap.update(pos, self.army.team, self.view_on_ground())
        if self.marker_until and self.tick >= self.marker_until:
            self.marker_np.getChildren().detach()
            self.marker_until = 0
        self._update_hud()

    def _update_hud(self) -> None:
        states = self.navigation.crowd.state.nav_state[self.army.ids, 0]
        selected = int(self._selected_mask.sum())
        lines = [f"{self.level.name}   {self.tick * SIM_DT:5.1f} s" + ("   PAUSED" if self.paused else ""),
                 f"units {len(self.entities)}   selected {selected}   moving {int((states == NavState.FOLLOWING).sum())}"
                 f"   arrived {int((states == NavState.FINISHED).sum())}",
                 f"group planner: {self.army.planner} (Tab)   formation {'on' if self.formation else 'off'} (F)"
                 + (f"   next right-click: {self.armed.name.lower().replace('_', '-')}" if self.armed else "")
                 + ("   camera follows" if self.following else ""),
                 f"overlay: {OVERLAYS.get(self.overlay, 'off')} (F5-F9)"
                 + ("   " + "  ".join(f"{name}: {_color_name(rgba)}" for name, rgba in self.overlay_legend)
                    if self.overlay else "")]
        if self.level.gates:
            lines.append("gates: " + ", ".join(f"{n} {'open' if g.open else 'CLOSED'}"
                                               for n, g in self.level.gates.items()))
        if self.message and self.tick < self.message_until:
            lines.append(f"! {self.message}")
        if self.show_timings and self.tick > 0:            # a profiler view on demand (F3), never at tick 0
            procs = installed_processors()
            ms = "  ".join(f"{type(p).__name__.replace('Processor', '')} {p.last_ms:.2f}" for p in procs)
            fps = self.base.clock.getAverageFrameRate()
            lines.append(f"{fps:.0f} FPS  sim {self.frame_ms['simulation']:.1f} ms  sync {self.frame_ms['sync']:.1f} ms"
                         f"  render {self.frame_ms['render']:.1f} ms  |  {ms}")
        lines.append(HELP if self.help_visible else "F1 help")
        self.hud.setText("\n".join(lines))

    # ---------------------------------------------------------------- overlays
    def set_overlay(self, number: int) -> None:
        """Show overlay ``number`` (1 paths, 2 corridor / flow field, 3 hierarchy, 4 navmesh,
        5 density; see ``overlay_draw``); the same number again hides it."""
        self.overlay = 0 if self.overlay == number else number
        self._draw_overlay()

    def _draw_overlay(self) -> None:
        self.overlay_np.getChildren().detach()
        if self.overlay == 0:
            return
        try:
            draw = self.overlay_draw(self.overlay)
        except Exception as e:                               # noqa: BLE001 - an overlay never stops the game
            self.say(f"overlay unavailable: {type(e).__name__}: {e}")
            return
        if not draw.empty:
            self.overlay_np.attachNewNode(debug_node(draw).node())
        self.overlay_legend = draw.legend

    def overlay_draw(self, number: int) -> DebugDraw:
        """The arrays overlay ``number`` draws (the core's debug-draw layer), for the selection
        and its last order: 1 the paths its units follow, 2 the corridor field its group follows
        (else the flow field to its goal), 3 hierarchy clusters, entrances and the abstract route
        of the order, 4 the navmesh and the order's query corridor, 5 crowd density."""
        grid, ground = self.level.grid, self.level.ground
        s = self.navigation.crowd.state
        chosen = self.selected_units()
        units = chosen if len(chosen) else np.arange(len(self.entities))
        ids = self.army.ids[units]
        if number == 1:
            walking = ids[s.nav_state[ids, 0] == NavState.FOLLOWING][:400]        # arrived units: no path
            lines = [self.navigation.crowd.path(int(a))[int(s.path_idx[a]) - 1:] if s.path_idx[a] > 0
                     else self.navigation.crowd.path(int(a)) for a in walking.tolist()]
            return debug_draw.paths(grid, [p for p in lines if len(p) >= 2], heights=ground,
                                    label="paths of the selected units")
        if number == 5:
            return debug_draw.density(grid, s.position[self.army.ids, :2], heights=ground)
        goal = self.last_goal
        if goal is None or not len(chosen):
            return DebugDraw()
        start_xy = s.position[ids, :2].mean(axis=0)
        start = grid.nearest_reachable(grid.world_to_cell(*start_xy), grid.world_to_cells(s.position[ids, :2]))
        if start is None:
            return DebugDraw()
        goal_world = grid.cell_to_world(*goal)
        marks = (debug_draw.markers(grid, np.array([goal_world[:2]]), "goal", "order goal", heights=ground)
                 + debug_draw.markers(grid, np.array([start_xy]), "spawn", "selection", heights=ground))
        step = max(2, max(grid.shape) // 48)
        if number == 2:
            order = self._group_order_of(ids)
            if order is not None and order.corridor is not None:
                return marks + debug_draw.vector_field(grid, order.corridor, step=step, mask=order.corridor.inside,
                                                       color="corridor", heights=ground,
                                                       label="corridor field (the group follows it)")
            field = order.field if order is not None and order.field is not None else \
                self.navigation.flow_field(goal)
            return marks + debug_draw.vector_field(grid, field, step=step, heights=ground, label="flow field to the goal")
        if number == 3:
            h = self.navigation.hierarchy()
            planned = h.plan(start, goal)
            route = getattr(planned, "waypoints", None)
            return marks + debug_draw.hierarchy(grid, h, route=route, heights=ground)
        if number == 4:
            mesh = self.navigation.navmesh()
            a = (*grid.cell_to_world(*start)[:2], float(ground[start[1], start[0]]))
            b = (*goal_world[:2], float(ground[goal[1], goal[0]]))
            r = mesh.find_path(a, b)
            drawn = r.points is not None and len(r.points) >= 2          # a PARTIAL answer is drawn too
            corridor = mesh.polygons_along(r.points) if drawn else None
            label = "navmesh path" if r.found else "navmesh path to the closest point"
            return (marks + debug_draw.navmesh(mesh, corridor=corridor)
                    + (debug_draw.paths(grid, [r.points], heights=ground, label=label) if drawn else DebugDraw()))
        return DebugDraw()

    def _group_order_of(self, ids: np.ndarray):
        """The group order the agents ``ids`` belong to (the most common), or None."""
        s = self.navigation.crowd.state
        groups = s.flock_group[ids, 0]
        if not len(groups):
            return None
        values, counts = np.unique(groups, return_counts=True)
        group = int(values[np.argmax(counts)])
        for key, order in self.navigation.crowd.groups.orders.items():
            if key[0] == group:
                return order
        return None

    # ----------------------------------------------------------------- control
    def select_box(self, box: tuple[float, float, float, float], add: bool = False) -> list[int]:
        """Select the units drawn inside the pixel rectangle ``box`` (of team 1 when mixed)."""
        esper.switch_world(self.world)
        idx = units_in_box(self.base, self.positions(), box, self.scene)
        chosen = [self.entities[i] for i in idx if self._team_of(self.entities[i]) == self.player_team]
        self._set_selection(chosen, add)
        return chosen

    def select_at(self, pixel: tuple[float, float], add: bool = False) -> list[int]:
        """Select the player's unit drawn nearest to ``pixel`` (if any)."""
        own = [i for i, e in enumerate(self.entities) if self._team_of(e) == self.player_team]
        i = nearest_unit(self.base, self.positions()[own], pixel, space=self.scene) if own else None
        chosen = [] if i is None else [self.entities[own[i]]]
        self._set_selection(chosen, add)
        return chosen

    def _team_of(self, entity: int) -> int:
        return int(esper.component_for_entity(entity, Team).id)

    def select_team(self, team: int) -> list[int]:
        """Select every unit of ``team``."""
        chosen = [e for e in self.entities if esper.component_for_entity(e, Team).id == team]
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
                reachable = False
                wx, wy, _ = grid.cell_to_world(*near)
                target = (wx, wy, float(self.level.ground[near[1], near[0]]))
                self.say("can't reach that point: moving to the nearest reachable one")
        n = self.army.command(self.selected_units(), target, mode, queue=queue,
                              formation=self.formation if formation is None else formation)
        self.last_goal = grid.world_to_cell(target[0], target[1])
        self._mark_ground(target, (1.0, 1.0, 1.0) if reachable else (1.0, 0.3, 0.25))
        if self.overlay in (2, 3, 4):
            self._draw_overlay()
        return n

    def say(self, message: str, seconds: float = 4.0) -> None:
        """Show ``message`` on the HUD for ``seconds`` of game time."""
        self.message = message
        self.message_until = self.tick + int(seconds / SIM_DT)

    def _mark_ground(self, target: tuple[float, float, float], rgb=(1.0, 1.0, 1.0)) -> None:
        self.marker_np.getChildren().detach()
        segs = LineSegs("order-marker")
        segs.setThickness(3.0)
        segs.setColor(*rgb, 1)
        x, y, z = target
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
        p = self.minimap_point(pixel) or ground_point(self.base, pixel, self.level, self.scene)
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

    def view_on_ground(self) -> np.ndarray:
        """World ``(4, 2)``: where the screen's corners meet the ground plane through the camera's
        target (rays above the horizon are cut at four camera distances)."""
        from panda3d.core import Point2, Point3

        out = np.zeros((4, 2))
        lens = self.base.camLens
        for k, (u, v) in enumerate(((-1, 1), (1, 1), (1, -1), (-1, -1))):
            near, far = Point3(), Point3()
            lens.extrude(Point2(u, v), near, far)
            a = np.array(self.scene.getRelativePoint(self.base.cam, near))
            b = np.array(self.scene.getRelativePoint(self.base.cam, far))
            z = self.cam_target[2]
            t = (z - a[2]) / (b[2] - a[2]) if abs(b[2] - a[2]) > 1e-9 else 1.0
            out[k] = (a + (b - a) * float(np.clip(t, 0.0, 1.0)))[:2]
        return out

    def minimap_point(self, pixel: tuple[float, float]) -> tuple[float, float, float] | None:
        """The world point under a minimap ``pixel`` (None when the pixel is not on it)."""
        return self.minimap.world_point(pixel)

    def look_at_minimap(self, pixel: tuple[float, float]) -> bool:
        """Left-click on the minimap: the camera looks at that point of the map."""
        p = self.minimap.world_point(pixel)
        if p is None:
            return False
        self.cam_target = np.array(p, dtype=np.float64)
        self._place_camera()
        return True

    def jump_to_selection(self) -> None:
        """C: centre the camera on the selection (zoomed to fit it)."""
        units = [self.entities[i] for i in self.selected_units().tolist()]
        if units:
            self.frame_units(units)

    def toggle_follow(self) -> bool:
        """V: the camera follows the selection's centre."""
        self.following = not self.following
        return self.following

    def toggle_gate(self, name: str | None = None, near: tuple[float, float] | None = None) -> str | None:
        """Open / close gate ``name`` (default: the gate nearest to world point ``near``, else to
        the camera's target); units re-plan around the change. Returns the gate's name."""
        if not self.level.gates:
            return None
        esper.switch_world(self.world)
        if name is None:
            px, py = near if near is not None else (self.cam_target[0], self.cam_target[1])
            grid = self.level.grid

            def distance(gate_name: str) -> float:
                w = grid.cells_to_world(self.level.gates[gate_name].cells)
                return float(np.hypot(w[:, 0] - px, w[:, 1] - py).min())

            name = min(self.level.gates, key=distance)
        gate = self.level.gates[name]
        cells = self.level.set_gate(name, not gate.open)
        self.navigation.cells_changed(cells)
        self._show_gates()
        return name

    def _toggle_gate_under_mouse(self) -> None:
        pixel = self._mouse_pixel()
        p = ground_point(self.base, pixel, self.level, self.scene) if pixel is not None else None
        self.toggle_gate(near=None if p is None else (p[0], p[1]))

    # ------------------------------------------------------------------- input
    def _bind_input(self) -> None:
        b = self.base
        for key, move in (("arrow_up", (0, 1)), ("arrow_down", (0, -1)), ("arrow_left", (-1, 0)),
                          ("arrow_right", (1, 0))):
            b.accept(key, self._intent, ["pan", move, True])
            b.accept(key + "-up", self._intent, ["pan", move, False])
        b.accept("q", self._intent, ["rotate", -1, True])
        b.accept("q-up", self._intent, ["rotate", -1, False])
        b.accept("e", self._intent, ["rotate", 1, True])
        b.accept("e-up", self._intent, ["rotate", 1, False])
        b.accept("wheel_up", self._zoom, [0.85])
        b.accept("wheel_down", self._zoom, [1.18])
        b.accept("mouse1", self._mouse_down, [False])
        b.accept("shift-mouse1", self._mouse_down, [True])
        b.accept("mouse1-up", self._mouse_up)
        b.accept("mouse3", self._right_click)
        b.accept("shift-mouse3", self._right_click, [True])
        b.accept("g", self._toggle_gate_under_mouse)
        b.accept("space", self._toggle_pause)
        b.accept("f1", self._toggle_help)
        b.accept("f3", self._toggle_timings)
        b.accept("a", self.arm, [UnitMode.ATTACK_MOVE])
        b.accept("p", self.arm, [UnitMode.PATROL])
        b.accept("s", self.stop)
        b.accept("h", self.hold)
        b.accept("f", self.toggle_formation)
        b.accept("tab", self.cycle_planner)
        b.accept("c", self.jump_to_selection)
        b.accept("v", self.toggle_follow)
        b.accept("control-a", self.select_all)
        b.accept("f12", self._save_screenshot)
        for k in range(1, 10):
            b.accept(f"control-{k}", self.set_control_group, [k])
            b.accept(str(k), self.recall_control_group, [k])
        for k in OVERLAYS:
            b.accept(f"f{k + 4}", self.set_overlay, [k])

    def _intent(self, kind, value, on) -> None:
        held = self.intent.setdefault(kind, set())
        (held.add if on else held.discard)(value)

    def _zoom(self, factor: float) -> None:
        self.cam_distance = float(np.clip(self.cam_distance * factor, 10, 2000))
        self._place_camera()

    def _mouse_pixel(self) -> tuple[float, float] | None:
        mw = self.base.mouseWatcherNode
        if mw is None or not mw.hasMouse():
            return None
        m = mw.getMouse()
        return ((m.x + 1) * 0.5 * self.base.win.getXSize(), (1 - m.y) * 0.5 * self.base.win.getYSize())

    def _mouse_down(self, add: bool) -> None:
        pixel = self._mouse_pixel()
        if pixel is not None and self.minimap.contains(pixel):
            self.look_at_minimap(pixel)
            self.drag_start = None
            return
        self.drag_start = pixel
        self.drag_add = add

    def _mouse_up(self) -> None:
        end = self._mouse_pixel()
        if self.drag_start is None or end is None:
            return
        a, b = self.drag_start, end
        if abs(a[0] - b[0]) + abs(a[1] - b[1]) < 6:
            self.select_at(b, self.drag_add)
        else:
            self.select_box((a[0], a[1], b[0], b[1]), self.drag_add)
        self.drag_start = None
        self.box_np.getChildren().detach()

    def _right_click(self, queue: bool = False) -> None:
        p = self._mouse_pixel()
        if p is not None:
            self.order_move_at_pixel(p, self.armed or UnitMode.MOVE, queue)
        self.armed = None

    def _save_screenshot(self) -> None:
        """F12: save the frame to ``screenshot_path`` (``--screenshot``; default rtsnav-shot.png)."""
        self.screenshot(self.screenshot_path)
        self.say(f"screenshot saved: {self.screenshot_path}", 2.0)

    def _toggle_pause(self) -> None:
        self.paused = not self.paused

    def _toggle_help(self) -> None:
        self.help_visible = not self.help_visible

    def _toggle_timings(self) -> None:
        self.show_timings = not self.show_timings

    def _draw_drag_box(self) -> None:
        self.box_np.getChildren().detach()
        end = self._mouse_pixel()
        if self.drag_start is None or end is None:
            return
        w, h = self.base.win.getXSize(), self.base.win.getYSize()
        to2d = lambda p: ((p[0] / w) * 2 - 1, (1 - p[1] / h) * 2 - 1)  # noqa: E731
        (x0, y0), (x1, y1) = to2d(self.drag_start), to2d(end)
        segs = LineSegs("box")
        segs.setColor(1, 1, 0.3, 1)
        segs.moveTo(x0, 0, y0)
        for x, y in ((x1, y0), (x1, y1), (x0, y1), (x0, y0)):
            segs.drawTo(x, 0, y)
        self.box_np.attachNewNode(segs.create())

    # -------------------------------------------------------------------- loop
    def _frame_task(self, task):
        dt = SIM_DT if self.headless else min(self.base.clock.getDt(), 0.25)
        pan = set(self.intent.get("pan", set()))
        if not self.headless:                      # edge pan: the mouse at the window border
            pixel = self._mouse_pixel()
            if pixel is not None:
                w, h = self.base.win.getXSize(), self.base.win.getYSize()
                edge = 0.02
                if pixel[0] < edge * w:
                    pan.add((-1, 0))
                elif pixel[0] > (1 - edge) * w:
                    pan.add((1, 0))
                if pixel[1] < edge * h:
                    pan.add((0, 1))
                elif pixel[1] > (1 - edge) * h:
                    pan.add((0, -1))
        if pan:
            h = math.radians(self.cam_heading)
            mx = sum(v[0] for v in pan)
            my = sum(v[1] for v in pan)
            speed = self.cam_distance * 0.8 * dt
            self.cam_target[0] += (mx * math.cos(h) + my * math.sin(h)) * speed
            self.cam_target[1] -= (-mx * math.sin(h) + my * math.cos(h)) * speed    # screen up is north: -y
            self._place_camera()
        rot = self.intent.get("rotate", set())
        if rot:
            self.cam_heading += sum(rot) * 90 * dt
            self._place_camera()
        if self.drag_start is not None:
            self._draw_drag_box()
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
        """What a test driving the real window checks: selection, orders, gates, camera, and
        the window pixels of things worth clicking (the player's units, the gates, the centre's
        ground point)."""
        from .selection import project_to_screen

        chosen = self.selected_units()
        s = self.navigation.crowd.state
        pos = self.positions()
        own = np.flatnonzero(self.army.team == self.player_team)
        own_px, front = project_to_screen(self.base, pos[own], self.scene)
        own_px = own_px[front]
        w, h = self.base.win.getXSize(), self.base.win.getYSize()
        probe = ground_point(self.base, (0.75 * w, h / 2), self.level, self.scene)
        gates = {}
        for name, gate in self.level.gates.items():
            px = project_to_screen(self.base, self.level.grid.cells_to_world(gate.cells), self.scene)[0].mean(axis=0)
            gates[name] = {"open": bool(gate.open), "pixel": [float(px[0]), float(px[1])]}
        return {
            "tick": self.tick, "window": [w, h],
            "selected": len(chosen),
            "selected_teams": sorted({int(t) for t in self.army.team[chosen].tolist()}),
            "selected_targets": s.target[self.army.ids[chosen], :2].tolist() if len(chosen) else [],
            "selected_modes": sorted({UnitMode(int(m)).name for m in self.army.mode[chosen].tolist()}),
            "control_groups": {str(k): len(v) for k, v in self.army.control_groups.items()},
            "planner": self.army.planner, "formation": self.formation, "paused": self.paused,
            "player_units_box": [float(v) for v in (*own_px.min(axis=0), *own_px.max(axis=0))] if len(own_px) else [],
            # the ground under the pixel (0.75 w, 0.5 h): somewhere to right-click
            "probe_pixel": [0.75 * w, h / 2],
            "probe_ground": None if probe is None else [float(probe[0]), float(probe[1])],
            "gates": gates,
        }

    def render_frame(self) -> None:
        """Run one frame: the frame task (simulation + sync), then draw."""
        self.task_mgr.step()
        t = time.perf_counter()
        self.base.graphicsEngine.renderFrame()
        self.frame_ms["render"] = (time.perf_counter() - t) * 1e3

    def screenshot(self, path: str | Path) -> np.ndarray:
        """Save the current frame as an image and return it as ``[H, W, 3] uint8``."""
        self.base.graphicsEngine.renderFrame()
        img = PNMImage()
        self.base.win.getScreenshot(img)
        img.write(Filename.fromOsSpecific(str(path)))
        return pnm_to_array(img)

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


def _color_name(rgba) -> str:
    """A word for an overlay colour in the HUD legend."""
    names = {"yellow": (1, 0.9, 0.2), "white": (1, 1, 1), "cyan": (0.3, 0.95, 1), "orange": (1, 0.6, 0.15),
             "magenta": (1, 0.25, 0.9), "light blue": (0.55, 0.85, 1), "green": (0.2, 1, 0.4), "red": (1, 0.2, 0.2),
             "blue": (0.3, 0.6, 1)}
    return min(names, key=lambda n: sum((a - b) ** 2 for a, b in zip(names[n], rgba[:3])))


def pnm_to_array(img: PNMImage) -> np.ndarray:
    """A ``PNMImage`` as ``[H, W, 3] uint8``."""
    from panda3d.core import StringStream

    w, h = img.getXSize(), img.getYSize()
    ss = StringStream()
    img.write(ss, "ppm")
    data = ss.getData()
    # binary PPM: "P6\n<w> <h>\n<max>\n" then the pixels
    header_end = 0
    fields = 0
    while fields < 4:
        while data[header_end:header_end + 1].isspace():
            header_end += 1
        while not data[header_end:header_end + 1].isspace():
            header_end += 1
        fields += 1
    return np.frombuffer(data[header_end + 1:], dtype=np.uint8)[: w * h * 3].reshape(h, w, 3)
