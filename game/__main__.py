"""``python -m rtsnav.game``: play the rtsnav RTS demo.

    python -m rtsnav.game [--level river] [--units 500]
    python -m rtsnav.game --headless --frames 300 --screenshot out.png [--orders orders.toml]

Headless runs render offscreen (``p3tinydisplay``), then print a summary. ``--orders`` scripts
the player: a TOML file of ``[[order]]`` tables (``tick``, then ``select`` = a team number or
``box`` = [x0, y0, x1, y1] pixels, and ``target`` = [x, y] world or ``click`` = [px, py] pixels),
``[[gate]]`` tables (``tick``, ``name``) and ``[[overlay]]`` tables (``tick``, ``number``).
Without ``--orders`` a headless run orders team 1 to the opposite spawn at tick 1.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from rtsnav.levels.cli import CliError, add_debug_flag, image_file, positive_int, run_command
from rtsnav.levels.level_file import builtin_levels, load_level
from rtsnav.levels.scenes import SCENES

from .script import load_orders


def _script(path: Path | None, app) -> list[tuple[int, str, dict]]:
    if path is None:
        teams = sorted(app.level.spawns)
        if len(teams) < 2:
            return []
        far = app.level.spawns[teams[1]].mean(axis=0)
        target = app.level.grid.cell_to_world(int(far[0]), int(far[1]))
        return [(1, "order", {"select": teams[0], "target": list(target[:2])})]
    return load_orders(path, app.level)


def _keep_state_file(app, path: Path) -> None:
    """Rewrite ``path`` with ``app.state_summary()`` every 5 frames (atomically: write, rename)."""
    import json

    frames = [0]

    def write(task):
        frames[0] += 1
        if frames[0] % 5 == 0:
            try:
                tmp = path.with_suffix(".tmp")
                tmp.write_text(json.dumps(app.state_summary()))
                tmp.replace(path)
            except OSError as e:                      # a full disk or a removed folder never stops the game
                app.say(f"state file not written: {e}", 2.0)
        return task.cont

    app.task_mgr.add(write, "rtsnav-state-file", sort=100)


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT in pixels such as 1024x640, got {text!r}") from None
    if not (64 <= w <= 8192 and 64 <= h <= 8192):
        raise argparse.ArgumentTypeError(f"window size must be 64..8192 pixels each way, got {w}x{h}")
    return w, h


_MODES = {"move": "MOVE", "attack": "ATTACK_MOVE", "patrol": "PATROL"}


def _apply(app, kind: str, ev: dict) -> None:
    """One event of an orders file, through the same calls the mouse and keys make."""
    from rtsnav.game.army import UnitMode

    if kind == "order":
        if "box" in ev:
            app.select_box(tuple(ev["box"]))
        elif ev.get("select") == "all":
            app.select_all()
        elif "select" in ev:
            app.select_team(int(ev["select"]))
        elif "group" in ev:
            app.recall_control_group(int(ev["group"]))
        mode = UnitMode[_MODES[ev.get("mode", "move")]]
        queue = bool(ev.get("queue", False))
        formation = ev.get("formation")
        if "click" in ev:
            app.order_move_at_pixel(tuple(ev["click"]), mode, queue)
        elif "minimap" in ev:
            app.order_move_at_pixel(app.minimap.pixel_at(*ev["minimap"]), mode, queue)
        elif "target" in ev:
            x, y = ev["target"][:2]
            cx, cy = app.level.grid.world_to_cell(x, y)
            app.order_move((float(x), float(y), float(app.level.ground[cy, cx])), mode, queue=queue,
                           formation=formation)
    elif kind == "command":
        do = ev["do"]
        if do == "stop":
            app.stop()
        elif do == "hold":
            app.hold()
        elif do == "select_all":
            app.select_all()
        elif do == "set_group":
            app.set_control_group(int(ev["group"]))
        elif do == "recall_group":
            app.recall_control_group(int(ev["group"]))
        elif do == "planner":
            if "planner" in ev:
                app.army.planner = ev["planner"]
            else:
                app.cycle_planner()
        elif do == "formation":
            app.toggle_formation()
        elif do == "jump":
            app.jump_to_selection()
        elif do == "follow":
            app.toggle_follow()
        elif do == "look":
            app.look_at_minimap(app.minimap.pixel_at(*ev["minimap"]))
        elif do == "pan":
            app.camera.pan(float(ev["by"][0]), float(ev["by"][1]))
        elif do == "zoom":
            app.zoom(float(ev["by"]))
    elif kind == "gate":
        app.toggle_gate(ev.get("name"))
    elif kind == "overlay":
        app.set_overlay(int(ev["number"]))


def main(argv=None) -> int:
    """``rtsnav-demo``: parse the command line (``parse_args``) and run the demo."""
    return run_command(_run, parse_args(argv))


def parse_args(argv=None) -> argparse.Namespace:
    """The demo's options from ``argv`` (a usage error exits with status 2 and a message)."""
    ap = argparse.ArgumentParser(prog="rtsnav-demo", description="rtsnav RTS demo")
    ap.add_argument("--level", default="river",
                    help=f"built-in name ({', '.join(builtin_levels())}), a 3D scene with stacked surfaces "
                         f"({', '.join(SCENES)}), level .toml or Moving AI .map")
    ap.add_argument("--units", type=positive_int, default=500, help="units in all, split between the level's teams, >= 1")
    ap.add_argument("--headless", action="store_true", help="render offscreen and exit")
    ap.add_argument("--frames", type=positive_int, default=300, help="frames to run when headless")
    ap.add_argument("--screenshot", type=image_file, help="save the last frame here (in a window: where F12 saves)")
    ap.add_argument("--state-file", type=Path, help="in a window: keep a JSON summary of the game state here "
                                                   "(selection, orders, gates; for tests driving the window)")
    ap.add_argument("--orders", type=Path, help="TOML script of selections / orders / gates (see game/script.py)")
    ap.add_argument("--size", type=_size, default=(1024, 640), help="window size WIDTHxHEIGHT")
    ap.add_argument("--summary-json", type=Path, help="headless: write the run's summary here (frames, "
                                                      "simulation ms, units by team and state, stuck events, "
                                                      "camera, HUD messages)")
    add_debug_flag(ap)
    return ap.parse_args(argv)


def _run(args) -> int:
    if args.level in SCENES:                       # a 3D scene with stacked surfaces: its own demo
        from rtsnav.game.overpass import main as scene_main

        headless = args.headless or not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
        return scene_main([*(["--headless", "--seconds", str(args.frames / 30)] if headless else []),
                           *(["--screenshot", str(args.screenshot)] if args.screenshot and headless else []),
                           "--scene", args.level])
    level = load_level(args.level)                 # a bad level or orders file fails before any window opens
    if args.orders is not None:
        load_orders(args.orders, level)
    for out in (args.screenshot, args.summary_json):   # a file that cannot be written fails before the run
        if out is not None:
            if out.is_dir():
                raise CliError(f"{out}: is a folder (expected a file name to write)")
            out.parent.mkdir(parents=True, exist_ok=True)
    headless = args.headless or not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or sys.platform in ("win32", "darwin"))
    try:
        from rtsnav.game.app import RtsApp
    except ModuleNotFoundError as e:
        if e.name is None or e.name.split(".")[0] not in ("panda3d", "direct"):
            raise
        print("error: the demo needs Panda3D: pip install 'rtsnav[demo]' (or, in a clone, make demo)", file=sys.stderr)
        return 2

    from rtsnav.systems.nav.crowd.warmup import FIRST_COMPILE, kernels_compiled

    ready = kernels_compiled()
    print(f"rtsnav demo: preparing {level.name!r}, {args.units} units ("
          + ("loading kernels and baking the level, a few seconds" if ready else
             f"compiling kernels first: {FIRST_COMPILE} on 2 cores, once") + ")", file=sys.stderr, flush=True)
    app = RtsApp(level, args.units, headless=headless, size=args.size)
    if not headless:
        if args.screenshot:
            app.screenshot_path = args.screenshot
        if args.state_file:
            _keep_state_file(app, args.state_file)
        app.run()
        return 0
    script = _script(args.orders, app)
    t0 = time.perf_counter()
    sim = sync = render = 0.0
    sim_frames: list[float] = []
    stuck_events = _count_stuck(app)
    for _frame in range(args.frames):
        while script and script[0][0] <= app.tick:
            _, kind, ev = script.pop(0)
            _apply(app, kind, ev)
        app.render_frame()
        sim += app.frame_ms["simulation"]
        sim_frames.append(app.frame_ms["simulation"])
        sync += app.frame_ms["sync"]
        render += app.frame_ms["render"]
    wall = time.perf_counter() - t0
    if args.screenshot:
        app.screenshot(args.screenshot)
    from rtsnav.components import NavState

    army = app.army
    states = app.navigation.crowd.states[army.ids[army.alive]]
    n = max(args.frames, 1)
    deaths = ", ".join(f"team {t} {d}" for t, d in army.deaths.items())
    print(f"rtsnav demo (headless): level {app.level.name!r}, {len(app.entities)} units, {args.frames} frames "
          f"({app.tick} ticks of 1/30 s) in {wall:.1f} s")
    print(f"  alive {int(army.alive.sum())}, deaths {deaths}" + (f", team {army.winner()} won" if army.winner() else ""))
    print(f"  arrived {int((states == NavState.FINISHED).sum())}, moving {int((states == NavState.FOLLOWING).sum())}, "
          f"failed {int((states == NavState.FAILED).sum())}, idle {int((states == NavState.IDLE).sum())}")
    print(f"  ms per frame: simulation {sim / n:.2f}, scene sync {sync / n:.2f}, software render {render / n:.1f}")
    if args.screenshot:
        print(f"  screenshot: {args.screenshot}")
    if args.summary_json:
        _write_summary(app, args, sim_frames, stuck_events, wall)
        print(f"  summary: {args.summary_json}")
    app.destroy()
    return 0


class _Counter:
    """Counts ``stuck`` events (a bound method: esper keeps handlers by weak reference)."""

    def __init__(self) -> None:
        self.count = 0

    def on_stuck(self, entity) -> None:
        self.count += 1


def _count_stuck(app) -> _Counter:
    import esper

    from rtsnav.systems import events

    counter = _Counter()
    esper.switch_world(app.world)
    esper.set_handler(events.STUCK, counter.on_stuck)
    return counter


def _write_summary(app, args, sim_frames: list[float], stuck: _Counter, wall: float) -> None:
    """``--summary-json``: what a test or a person checks of a headless run without pixels."""
    import json

    import numpy as np

    from rtsnav.components import NavState
    from rtsnav.game.army import UnitMode
    from rtsnav.game.unit_types import UNIT_TYPES

    army = app.army
    states = app.navigation.crowd.states[army.ids[army.alive]]
    teams = {}
    for t in np.unique(army.team).tolist():
        mine = (army.team == t) & army.alive
        teams[str(t)] = {"units": int(mine.sum()), "deaths": army.deaths[t],
                         "mean_health": round(float(army.health[mine].mean()), 3) if mine.any() else 0.0,
                         "retreating": int((mine & (army.mode == UnitMode.RETREAT)).sum())}
    summary = {
        "level": app.level.name, "frames": args.frames, "ticks": app.tick, "wall_s": round(wall, 2),
        "simulation_ms": {"median": round(float(np.median(sim_frames)), 2) if sim_frames else 0.0,
                          "p95": round(float(np.percentile(sim_frames, 95)), 2) if sim_frames else 0.0},
        "units": int(army.alive.sum()), "crowd_agents": app.navigation.agent_count,
        "winner": army.winner(), "teams": teams,
        "states": {s.name.lower(): int((states == s).sum()) for s in NavState},
        "unit_types": {kind.name: int(((army.kind == k) & army.alive).sum()) for k, kind in enumerate(UNIT_TYPES)},
        "stuck_events": stuck.count,
        "camera": {"target": [round(float(v), 2) for v in app.camera.target[:2]],
                   "distance": round(float(app.camera.distance), 2), "heading": round(float(app.camera.heading), 1)},
        "messages": [text for _, text in app.hud.log],
    }
    args.summary_json.parent.mkdir(parents=True, exist_ok=True)
    args.summary_json.write_text(json.dumps(summary, indent=2))


if __name__ == "__main__":
    raise SystemExit(main())
