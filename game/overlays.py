"""Overlays in the 3D view: ``DebugDraw`` arrays from the core (``rtsnav.systems.nav.debug_draw``)
turned into one line mesh and one point mesh — the same data ``rtsnav-levels show`` draws."""

from __future__ import annotations

import numpy as np
from panda3d.core import (
    Geom,
    GeomEnums,
    GeomLines,
    GeomNode,
    GeomPoints,
    GeomTriangles,
    GeomVertexArrayFormat,
    GeomVertexData,
    GeomVertexFormat,
    NodePath,
    TransparencyAttrib,
)

from rtsnav.components import NavState
from rtsnav.systems.nav import debug_draw
from rtsnav.systems.nav.debug_draw import DebugDraw

__all__ = ["debug_node", "heat_map", "Overlays"]


def _format() -> GeomVertexFormat:
    a = GeomVertexArrayFormat()
    a.addColumn("vertex", 3, Geom.NTFloat32, Geom.CPoint)
    a.addColumn("color", 4, Geom.NTFloat32, Geom.CColor)
    return GeomVertexFormat.registerFormat(GeomVertexFormat(a))


def _geom(vertices: np.ndarray, colors: np.ndarray, primitive) -> Geom:
    vdata = GeomVertexData("debug", _format(), Geom.UHStatic)
    vdata.uncleanSetNumRows(len(vertices))
    interleaved = np.concatenate([vertices.astype(np.float32), colors.astype(np.float32)], axis=1)
    np.frombuffer(memoryview(vdata.modifyArray(0)).cast("B"), dtype=np.float32)[:] = interleaved.ravel()
    prim = primitive(Geom.UHStatic)
    prim.setIndexType(GeomEnums.NT_uint32)
    handle = prim.modifyVertices()
    handle.uncleanSetNumRows(len(vertices))
    np.frombuffer(memoryview(handle).cast("B"), dtype=np.uint32)[:] = np.arange(len(vertices), dtype=np.uint32)
    geom = Geom(vdata)
    geom.addPrimitive(prim)
    return geom


def debug_node(draw: DebugDraw, thickness: float = 2.0, point_size: float = 5.0) -> NodePath:
    """One node drawing ``draw``'s segments (as lines) and points (as square dots), unlit."""
    node = GeomNode("debug-draw")
    root = NodePath(node)
    if len(draw.segments):
        node.addGeom(_geom(draw.segments.reshape(-1, 3), np.repeat(draw.segment_colors, 2, axis=0), GeomLines))
    if len(draw.points):
        dots = GeomNode("debug-points")
        dots.addGeom(_geom(draw.points, draw.point_colors, GeomPoints))
        dots_np = root.attachNewNode(dots)
        dots_np.setRenderModeThickness(point_size)
    root.setRenderModeThickness(thickness)
    root.setLightOff()
    root.setDepthOffset(2)
    return root


def heat_map(centres: np.ndarray, colors: np.ndarray, size: float, alpha: float = 0.5) -> NodePath:
    """A translucent square of side ``size`` on each of ``centres`` (world, ``(N, 3)``) in its
    colour: a heat map lying on the ground, over the terrain and under the units (which stand
    higher and are drawn after it)."""
    corners = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]) * size
    verts = np.repeat(centres, 6, axis=0)
    verts[:, :2] += np.tile(corners, (len(centres), 1))
    rgba = np.repeat(np.c_[np.asarray(colors)[:, :3], np.full(len(centres), alpha)], 6, axis=0)
    node = GeomNode("density-heat-map")
    node.addGeom(_geom(verts, rgba, GeomTriangles))
    root = NodePath(node)
    root.setTransparency(TransparencyAttrib.MAlpha)
    root.setDepthWrite(False)
    root.setTwoSided(True)
    root.setLightOff()
    root.setBin("transparent", 0)
    return root


class Overlays:
    """The overlays of the demo (F5-F9): arrays from the core's debug-draw layer for the selection
    and its last order, drawn as one mesh under the world's root ``scene``."""

    def __init__(self, scene, navigation, level) -> None:
        self._navigation, self._level = navigation, level
        self.node = scene.attachNewNode("overlay")
        #: the overlay shown (0: none; see ``draw``) and its legend (name, colour) pairs
        self.number = 0
        self.legend: list = []

    def redraw(self, ids: np.ndarray, all_ids: np.ndarray, goal: tuple[int, int] | None) -> str | None:
        """Draw the overlay shown for the agents ``ids`` (the selection, or ``all_ids`` when none
        is selected: ``ids`` is then empty) and the order ``goal``; returns why it could not be
        drawn (an overlay never stops the game), else None."""
        self.node.getChildren().detach()
        if self.number == 0:
            return None
        try:
            drawn = self.draw(self.number, ids, all_ids, goal)
        except Exception as e:                               # noqa: BLE001 - an overlay never stops the game
            return f"overlay unavailable: {type(e).__name__}: {e}"
        if self.number == 5 and len(drawn.points):
            self.node.attachNewNode(heat_map(drawn.points, drawn.point_colors, self._level.grid.cell_size).node())
        elif self.number == 4 and len(drawn.segments):
            # every polygon outline faint, the selection's corridor and path strong
            faint = np.isclose(drawn.segment_colors, debug_draw.COLORS["navmesh"]).all(axis=1)
            muted = np.broadcast_to([0.42, 0.58, 0.5, 1.0], (int(faint.sum()), 4))    # near the grass: faint
            outlines = debug_node(DebugDraw(drawn.segments[faint], muted), thickness=1.0)
            outlines.setName("navmesh-outlines")
            self.node.attachNewNode(outlines.node())
            strong = DebugDraw(drawn.segments[~faint], drawn.segment_colors[~faint], drawn.points, drawn.point_colors)
            self.node.attachNewNode(debug_node(strong, thickness=3.5).node())
        elif not drawn.empty:
            self.node.attachNewNode(debug_node(drawn).node())
        self.legend = drawn.legend
        return None

    def draw(self, number: int, ids: np.ndarray, all_ids: np.ndarray, goal: tuple[int, int] | None) -> DebugDraw:
        """The arrays overlay ``number`` draws for the agents ``ids`` (the selection; empty: none
        selected) and their last order ``goal``: 1 the paths its units follow, 2 the corridor
        field its group follows (else the flow field to its goal), 3 hierarchy clusters,
        entrances and the abstract route of the order, 4 the navmesh and the order's query
        corridor, 5 crowd density (of ``all_ids``)."""
        grid, ground = self._level.grid, self._level.ground
        crowd = self._navigation.crowd
        chosen = len(ids) > 0
        if not chosen:
            ids = all_ids
        if number == 1:
            walking = ids[crowd.states[ids] == NavState.FOLLOWING][:2000]       # arrived units: no path
            status = crowd.status(walking)
            lines = [crowd.path(int(a))[max(int(k) - 1, 0):] for a, k in zip(walking.tolist(), status.path_index.tolist())]
            # a group's route once (its member with the longest way to go), not one line per unit
            left = np.array([len(p) for p in lines])
            order = np.lexsort((-left, status.group))
            first = order[np.r_[True, status.group[order][1:] != status.group[order][:-1]]]
            shown = np.r_[first[status.group[first] >= 0], np.flatnonzero(status.group < 0)[:40]]
            return debug_draw.paths(grid, [lines[k] for k in shown.tolist() if len(lines[k]) >= 2], heights=ground,
                                    label="routes of the selected groups (one per group) and units")
        if number == 5:
            return debug_draw.density(grid, crowd.positions[all_ids, :2], heights=ground)
        if goal is None or not chosen:
            return DebugDraw()
        start_xy = crowd.positions[ids, :2].mean(axis=0)
        start = grid.nearest_reachable(grid.world_to_cell(*start_xy), grid.world_to_cells(crowd.positions[ids, :2]))
        if start is None:
            return DebugDraw()
        goal_world = grid.cell_to_world(*goal)
        marks = (debug_draw.markers(grid, np.array([goal_world[:2]]), "goal", "order goal", heights=ground)
                 + debug_draw.markers(grid, np.array([start_xy]), "spawn", "selection", heights=ground))
        step = max(2, max(grid.shape) // 48)
        if number == 2:
            order = self.group_order_of(ids)
            if order is not None and order.corridor is not None:
                return marks + debug_draw.vector_field(grid, order.corridor, step=step, mask=order.corridor.inside,
                                                       color="corridor", heights=ground,
                                                       label="corridor field (the group follows it)")
            field = order.field if order is not None and order.field is not None else \
                self._navigation.flow_field(goal)
            return marks + debug_draw.vector_field(grid, field, step=step, heights=ground, label="flow field to the goal")
        if number == 3:
            h = self._navigation.hierarchy()
            planned = h.plan(start, goal)
            route = getattr(planned, "waypoints", None)
            return marks + debug_draw.hierarchy(grid, h, route=route, heights=ground)
        if number == 4:
            mesh = self._navigation.navmesh()
            a = (*grid.cell_to_world(*start)[:2], float(ground[start[1], start[0]]))
            b = (*goal_world[:2], float(ground[goal[1], goal[0]]))
            r = mesh.find_path(a, b)
            drawn = r.points is not None and len(r.points) >= 2          # a PARTIAL answer is drawn too
            corridor = mesh.polygons_along(r.points) if drawn else None
            label = "navmesh path" if r.found else "navmesh path to the closest point"
            return (marks + debug_draw.navmesh(mesh, corridor=corridor)
                    + (debug_draw.paths(grid, [r.points], heights=ground, label=label) if drawn else DebugDraw()))
        return DebugDraw()

    def group_order_of(self, ids: np.ndarray):
        """The group order the agents ``ids`` belong to (the most common), or None."""
        groups = self._navigation.crowd.status(ids).group
        if not len(groups):
            return None
        values, counts = np.unique(groups, return_counts=True)
        group = int(values[np.argmax(counts)])
        for key, order in self._navigation.crowd.groups.orders.items():
            if key[0] == group:
                return order
        return None
