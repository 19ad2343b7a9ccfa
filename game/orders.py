"""Turning the player's intent into order components: who is selected, where they go."""

from __future__ import annotations

import itertools

import esper
import numpy as np

from rtsnav.components import Flock, NavigationAgent, Selected

__all__ = ["ground_point", "issue_move"]

_group_ids = itertools.count(1000)


def ground_point(base, pixel: tuple[float, float], level, space=None) -> tuple[float, float, float] | None:
    """The world point under window ``pixel``: the camera ray marched over the terrain (world
    coordinates are those of ``space``, the scene's root; default ``render``)."""
    from panda3d.core import Point2, Point3

    width, height = base.win.getXSize(), base.win.getYSize()
    ndc = Point2(2 * pixel[0] / width - 1, 1 - 2 * pixel[1] / height)
    near, far = Point3(), Point3()
    base.camLens.extrude(ndc, near, far)
    root = space if space is not None else base.render
    a = np.array(root.getRelativePoint(base.cam, near))
    b = np.array(root.getRelativePoint(base.cam, far))
    grid = level.grid
    ts = np.linspace(0.0, 1.0, 4000)
    pts = a + (b - a) * ts[:, None]
    cells = grid.world_to_cells(pts)
    ok = (cells[:, 0] >= 0) & (cells[:, 0] < grid.width) & (cells[:, 1] >= 0) & (cells[:, 1] < grid.height)
    ground = np.full(len(pts), -np.inf)
    ground[ok] = level.ground[cells[ok, 1], cells[ok, 0]]
    hit = np.flatnonzero(ok & (pts[:, 2] <= ground))
    if len(hit) == 0:
        return None
    p = pts[hit[0]]
    return (float(p[0]), float(p[1]), float(ground[hit[0]]))


def issue_move(target: tuple[float, float, float], *, group_method: str = "leader",
               single_method: str = "astar") -> int:
    """Send every ``Selected`` unit to ``target``: several move as one new flock group
    (leader + corridor flow field), a single one with its own planner. Returns how many."""
    chosen = [e for e, _ in esper.get_component(Selected)]
    if not chosen:
        return 0
    group = next(_group_ids)
    for e in chosen:
        agent = esper.component_for_entity(e, NavigationAgent)
        if len(chosen) > 1:
            flock = esper.try_component(e, Flock)
            if flock is None:
                esper.add_component(e, Flock(group=group))
            else:
                flock.group = group
            agent.method = group_method
        else:
            agent.method = single_method
        agent.target_position = target
    return len(chosen)
