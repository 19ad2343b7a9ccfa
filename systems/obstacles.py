"""``ObstacleProcessor``: the game's ``NavigationObstacle`` entities as the crowd sees them —
discs that avoidance keeps clear of, and outlines whose cells are closed to paths."""

from __future__ import annotations

import warnings

import esper
import numpy as np

from rtsnav.components import NavigationObstacle
from rtsnav.systems.nav import NavError

from .base import NavProcessor

__all__ = ["ObstacleProcessor", "outline_cells", "outline_discs"]

#: Disc spacing along an outline's edges, in cells (the discs overlap: no gap to slip through).
OUTLINE_SPACING = 0.5
#: An outline that carves is carved again when it moved this many cells from where it last carved.
RECARVE_CELLS = 0.5
#: Most avoidance discs one outline may become (a perimeter of ~1,000 cells): a bigger outline is
#: refused by avoidance with one warning (it still carves), not turned into millions of discs.
MAX_OUTLINE_DISCS = 2048


def outline_discs(vertices: np.ndarray, cell_size: float) -> tuple[np.ndarray, float]:
    """Points along the closed outline ``vertices`` (``(k, 2)``, relative) and the disc radius
    that covers its edges between them."""
    step = OUTLINE_SPACING * cell_size
    lengths = np.hypot(*(np.roll(vertices, -1, axis=0) - vertices).T)
    counts = np.maximum(1, np.ceil(lengths / step))
    if counts.sum() > MAX_OUTLINE_DISCS:
        raise NavError(f"an outline {lengths.sum():g} world units round would need {counts.sum():g} avoidance "
                       f"discs; at most {MAX_OUTLINE_DISCS} (a perimeter of {MAX_OUTLINE_DISCS * step:g} units)")
    points = []
    for a, b, count in zip(vertices, np.roll(vertices, -1, axis=0), counts.astype(int)):
        t = np.arange(count)[:, None] / count
        points.append(a + t * (b - a))
    return np.concatenate(points), 0.6 * step


def outline_cells(grid, outline: np.ndarray) -> np.ndarray:
    """Cells ``(N, 2)`` x, y whose centres lie inside the closed world ``outline`` (even-odd rule)."""
    size = [grid.width, grid.height]                # clipped as floats: a far corner must not wrap in the cast
    lo = np.clip(np.floor((outline.min(axis=0) - np.asarray(grid.origin)) / grid.cell_size), 0, size).astype(int)
    hi = np.clip(np.ceil((outline.max(axis=0) - np.asarray(grid.origin)) / grid.cell_size), 0, size).astype(int)
    xs, ys = np.meshgrid(np.arange(lo[0], hi[0]), np.arange(lo[1], hi[1]))
    cells = np.stack([xs.ravel(), ys.ravel()], axis=1)
    if len(cells) == 0:
        return cells
    centre = np.asarray(grid.origin) + (cells + 0.5) * grid.cell_size
    inside = np.zeros(len(cells), dtype=bool)
    for a, b in zip(outline, np.roll(outline, -1, axis=0)):
        crosses = (a[1] > centre[:, 1]) != (b[1] > centre[:, 1])
        x_at = a[0] + (centre[:, 1] - a[1]) * (b[0] - a[0]) / np.where(b[1] == a[1], 1e-12, b[1] - a[1])
        inside ^= crosses & (centre[:, 0] < x_at)
    return cells[inside]


class ObstacleProcessor(NavProcessor):
    """Keeps the crowd's obstacles in step with the world's ``NavigationObstacle`` entities: a
    new one becomes avoidance discs (one for a radius, a ring along an outline) and, with
    ``affect_navigation_mesh``, closes its outline's cells (``Navigation.cells_changed``: units
    inside step out, paths go round); every tick the discs follow their entity's position and
    ``velocity``; a deleted one is taken away and its cells reopened."""

    def __init__(self, navigation) -> None:
        super().__init__(navigation)
        self._discs: dict[int, tuple[NavigationObstacle, np.ndarray, np.ndarray]] = {}   # entity -> (component, ids, offsets)
        self._carved: dict[int, tuple[np.ndarray, np.ndarray]] = {}       # entity -> (cells, where it carved)
        self._made: dict[int, int] = {}                # entity -> the component's revision its discs and cells show
        shape = navigation.grid.shape
        self._count = np.zeros(shape, dtype=np.int32)  # per cell: carvers covering it
        self._closed = np.zeros(shape, dtype=bool)     # per cell: closed by a carver (open before)

    def update(self, dt: float) -> None:
        nav = self.navigation
        found = esper.get_component(NavigationObstacle)
        if not found and not self._discs and not self._carved:
            return
        binding = nav.binding
        crowd = nav.crowd
        seen: set[int] = set()
        ids: list[np.ndarray] = []
        places: list[np.ndarray] = []
        speeds: list[np.ndarray] = []
        for entity, obstacle in found:
            placed = binding.entity_position(entity)
            if placed is None:
                continue
            here = np.array(placed[1], dtype=np.float64)
            if not np.isfinite(here).all():
                continue
            seen.add(entity)
            held = self._discs.get(entity)
            if (held is not None and held[0] is not obstacle) or self._made.get(entity, obstacle.revision) != \
                    obstacle.revision:                 # replaced, or a field changed: made again
                self._drop(entity)
                held = None
            self._made[entity] = obstacle.revision
            if held is None and obstacle.avoidance_enabled:
                try:
                    held = self._discs[entity] = self._make_discs(obstacle, here)
                except NavError as e:                  # an absurd size: told once, the tick goes on
                    held = self._refuse(entity, obstacle, e)
            if held is not None and len(held[1]):
                ids.append(held[1])
                places.append(here[:2] + held[2])
                speeds.append(np.broadcast_to(np.asarray(obstacle.velocity[:2]), held[2].shape))
            if obstacle.affect_navigation_mesh and len(obstacle.vertices) >= 3:
                self._carve(entity, obstacle, here[:2])
            elif entity in self._carved:
                self._uncarve(entity)
        for entity in [e for e in list(self._discs) + list(self._carved) if e not in seen]:
            self._drop(entity)
        if ids:
            crowd.inputs.move_obstacles(np.concatenate(ids), np.concatenate(places), np.concatenate(speeds))

    def _refuse(self, entity: int, obstacle: NavigationObstacle, error: Exception):
        """An obstacle rtsnav cannot take (a radius wider than the crowd allows): one warning,
        it stays out of avoidance (kept as refused so no tick asks again)."""
        warnings.warn(f"NavigationObstacle of entity {entity} ignored by avoidance: {error}", RuntimeWarning,
                      stacklevel=2)
        held = self._discs[entity] = (obstacle, np.zeros(0, dtype=np.int64), np.zeros((0, 2)))
        return held

    def _make_discs(self, obstacle: NavigationObstacle, here: np.ndarray):
        crowd, cs = self.navigation.crowd, self.navigation.grid.cell_size
        parts, offsets = [], []
        if obstacle.radius > 0:
            parts.append(crowd.inputs.add_obstacles(here[None, :2], obstacle.radius, layers=obstacle.avoidance_layers))
            offsets.append(np.zeros((1, 2)))
        if len(obstacle.vertices) >= 3:
            points, radius = outline_discs(np.asarray(obstacle.vertices, dtype=np.float64), cs)
            parts.append(crowd.inputs.add_obstacles(here[:2] + points, radius, layers=obstacle.avoidance_layers))
            offsets.append(points)
        ids = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        if len(ids):
            s = crowd.agents
            s.path_settings[ids, 0] = obstacle.height
            s.agent_options[ids, 2] = obstacle.use_3d_avoidance
        return obstacle, ids, np.concatenate(offsets) if offsets else np.zeros((0, 2))

    def _carve(self, entity: int, obstacle: NavigationObstacle, here: np.ndarray) -> None:
        nav = self.navigation
        grid = nav.grid
        before = self._carved.get(entity)
        if before is not None and np.hypot(*(before[1] - here)) < RECARVE_CELLS * grid.cell_size:
            return
        cells = outline_cells(grid, here + np.asarray(obstacle.vertices, dtype=np.float64))
        if before is not None:
            self._uncarve(entity, reopen_now=False)
        count, closed = self._count, self._closed
        np.add.at(count, (cells[:, 1], cells[:, 0]), 1)
        close = cells[grid.passable[cells[:, 1], cells[:, 0]]]
        changed = [close]
        if len(close):
            closed[close[:, 1], close[:, 0]] = True
            grid.set_passable(close, False)
        reopen = self._pending_reopen()
        if len(reopen):
            changed.append(reopen)
        self._carved[entity] = (cells, here.copy())
        edited = np.concatenate(changed)
        if len(edited):
            nav.cells_changed(edited)

    def _uncarve(self, entity: int, reopen_now: bool = True) -> None:
        cells, _ = self._carved.pop(entity)
        if len(cells) == 0:
            return
        np.subtract.at(self._count, (cells[:, 1], cells[:, 0]), 1)
        if reopen_now:
            reopen = self._pending_reopen()
            if len(reopen):
                self.navigation.cells_changed(reopen)

    def _pending_reopen(self) -> np.ndarray:
        """Cells closed by carvers that no carver covers any more: opened again."""
        free = np.argwhere(self._closed & (self._count <= 0))[:, ::-1]
        if len(free):
            self._closed[free[:, 1], free[:, 0]] = False
            self.navigation.grid.set_passable(free, True)
        return free

    def _drop(self, entity: int) -> None:
        self._made.pop(entity, None)
        held = self._discs.pop(entity, None)
        if held is not None and len(held[1]):
            self.navigation.crowd.remove(held[1])
        if entity in self._carved:
            self._uncarve(entity)
