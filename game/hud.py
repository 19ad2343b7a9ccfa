"""The demo's HUD: a text panel with the level, the army, the planner, the overlay and its legend,
the gates, messages (such as an order nobody can reach), help (F1) and timings (F3)."""

from __future__ import annotations

from rtsnav.components import NavState
from rtsnav.systems import installed_processors

from .parts import AppParts

__all__ = ["HudMixin", "HELP", "OVERLAYS", "SIM_DT"]

SIM_DT = 1.0 / 30.0
OVERLAYS = {1: "paths", 2: "corridor / flow field", 3: "hierarchy", 4: "navmesh", 5: "density"}
HELP = ("arrows / screen edge pan   wheel zoom   Q/E rotate   left-drag select (shift adds)   Ctrl+A all\n"
        "right-click move (shift queues)   A attack-move   P patrol   S stop   H hold   F formation\n"
        "Ctrl+1-9 set group   1-9 recall   C jump to selection   V follow   Tab planner   G gate under mouse\n"
        "F5-F9 overlays (paths, corridor/flow, hierarchy, navmesh, density)   minimap: left-click look, right-click move\n"
        "Space pause   F1 help   F3 timings   F12 screenshot")


class HudMixin(AppParts):
    """The HUD of ``RtsApp``."""

    def _update_hud(self) -> None:
        states = self.navigation.crowd.states[self.army.ids]
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

    def say(self, message: str, seconds: float = 4.0) -> None:
        """Show ``message`` on the HUD for ``seconds`` of game time."""
        self.message = message
        self.message_until = self.tick + int(seconds / SIM_DT)

    def _toggle_help(self) -> None:
        self.help_visible = not self.help_visible

    def _toggle_timings(self) -> None:
        self.show_timings = not self.show_timings


def _color_name(rgba) -> str:
    """A word for an overlay colour in the HUD legend."""
    names = {"yellow": (1, 0.9, 0.2), "white": (1, 1, 1), "cyan": (0.3, 0.95, 1), "orange": (1, 0.6, 0.15),
             "magenta": (1, 0.25, 0.9), "light blue": (0.55, 0.85, 1), "green": (0.2, 1, 0.4), "red": (1, 0.2, 0.2),
             "blue": (0.3, 0.6, 1)}
    return min(names, key=lambda n: sum((a - b) ** 2 for a, b in zip(names[n], rgba[:3])))
