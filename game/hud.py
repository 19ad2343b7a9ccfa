"""The demo's HUD: a text panel with the level, the army, the planner, the overlay and its legend,
the gates, messages (such as an order nobody can reach), help (F1) and timings (F3)."""

from __future__ import annotations

from panda3d.core import TextNode

from rtsnav.systems import installed_processors

__all__ = ["Hud", "HELP", "OVERLAYS", "SIM_DT", "color_name"]

SIM_DT = 1.0 / 30.0
OVERLAYS = {1: "paths", 2: "corridor / flow field", 3: "hierarchy", 4: "navmesh", 5: "density"}
HELP = ("arrows / screen edge pan   wheel zoom   Q/E rotate   left-drag select (shift adds)   Ctrl+A all\n"
        "right-click move (shift queues)   A attack-move   P patrol   S stop   H hold   F formation\n"
        "Ctrl+1-9 set group   1-9 recall   C jump to selection   V follow   Tab planner   G gate under mouse\n"
        "F5-F9 overlays (paths, corridor/flow, hierarchy, navmesh, density)   minimap: left-click look, right-click move\n"
        "Space pause   F1 help   F3 timings   F12 screenshot")


class Hud:
    """The text panel: the lines the app gives it, the current message, the timings (F3) and
    help (F1) when asked for."""

    def __init__(self, base) -> None:
        self._base = base
        self.text = TextNode("hud")
        self.text.setTextColor(1, 1, 1, 1)
        self.text.setShadow(0.05, 0.05)
        self.text.setCardColor(0.0, 0.0, 0.0, 0.55)          # a backing panel: readable over any ground
        self.text.setCardAsMargin(0.4, 0.4, 0.3, 0.3)
        self.text.setCardDecal(True)
        node = base.aspect2d.attachNewNode(self.text)
        node.setScale(0.045)
        node.setPos(-base.getAspectRatio() + 0.03, 0, 0.92)
        self.message = ""
        self.message_until = 0                              # the tick the message disappears at
        self.log: list[tuple[int, str]] = []                # every message said: (tick, text)
        self.help_visible = False
        self.show_timings = False

    def say(self, message: str, until_tick: int) -> None:
        """Show ``message`` until tick ``until_tick`` (and keep it in ``log``)."""
        self.message, self.message_until = message, int(until_tick)
        self.log.append((int(until_tick), message))

    def toggle_help(self) -> None:
        """F1: the key help on or off."""
        self.help_visible = not self.help_visible

    def toggle_timings(self) -> None:
        """F3: frame and processor timings on or off."""
        self.show_timings = not self.show_timings

    def update(self, lines: list[str], tick: int, frame_ms: dict) -> None:
        """Show ``lines``, then the message (until it expires), timings and help."""
        lines = list(lines)
        if self.message and tick < self.message_until:
            lines.append(f"! {self.message}")
        if self.show_timings and tick > 0:                  # a profiler view on demand (F3), never at tick 0
            procs = installed_processors()
            ms = "  ".join(f"{type(p).__name__.replace('Processor', '')} {p.last_ms:.2f}" for p in procs)
            fps = self._base.clock.getAverageFrameRate()
            lines.append(f"{fps:.0f} FPS  sim {frame_ms['simulation']:.1f} ms  sync {frame_ms['sync']:.1f} ms"
                         f"  render {frame_ms['render']:.1f} ms  |  {ms}")
        lines.append(HELP if self.help_visible else "F1 help")
        self.text.setText("\n".join(lines))


def color_name(rgba) -> str:
    """A word for an overlay colour in the HUD legend."""
    names = {"yellow": (1, 0.9, 0.2), "white": (1, 1, 1), "cyan": (0.3, 0.95, 1), "orange": (1, 0.6, 0.15),
             "magenta": (1, 0.25, 0.9), "light blue": (0.55, 0.85, 1), "green": (0.2, 1, 0.4), "red": (1, 0.2, 0.2),
             "blue": (0.3, 0.6, 1)}
    return min(names, key=lambda n: sum((a - b) ** 2 for a, b in zip(names[n], rgba[:3])))
