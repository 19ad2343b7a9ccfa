"""Fuzz suite, part three: every public method of every class in DESIGN's facade (and the
crowd's, and ``Navigation``'s) called as documented, then with one argument replaced by an odd
value — None, NaN, ±inf, a huge or negative number, text, a bool, an empty or 2-D array, an
object array, a complex number. The property: a documented error (``NavError``; for the esper
side ``TypeError`` / ``ValueError`` / ``KeyError`` naming the argument) or an answer, and the
next call still works — never a raw numpy or Python error, never a hang.
``test_every_public_method_has_a_call`` fails when a new public method has no entry here.

It found (fifth campaign) unchecked point arrays, truthy switches, negative ids counted from the
end, progress callbacks that were numbers, forged tables taken by constructors, and more: see
``tests/test_hardening_sweep.py``.
"""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rtsnav.systems.nav as nav
from rtsnav.systems.nav import (
    Crowd,
    CrowdConfig,
    DStarLite,
    FlowField,
    GoalBounds,
    Grid,
    Hierarchy,
    JumpTable,
    NavError,
    NavMesh,
    SectorGraph,
    WaypointGraph,
)
from tests.test_fuzz import ANY_NUMBER, ANY_VALUE, FUZZ

PASSABLE = np.ones((12, 16), dtype=bool)
PASSABLE[2:10, 7] = False
ODD = {"None": None, "nan": math.nan, "inf": math.inf, "-inf": -math.inf, "-1": -1, "0": 0, "10**30": 10**30,
       "1e300": 1e300, "text": "abc", "True": True, "[]": [], "(nan, 1, 0)": (math.nan, 1.0, 0.0),
       "object array": np.array([object()]), "3x3": np.ones((3, 3)), "0.5": 0.5, "{}": {}, "1j": 1j,
       "int64": np.int64(2), "(1,)": (1,), "far point": (1e30, 1e30), "uint64 max": np.uint64(2**64 - 1)}
PATH = np.array([[0, 0], [1, 1], [2, 2]])


def _grid() -> Grid:
    return Grid(PASSABLE.copy())


class _Parts:
    """The structures the calls run on, built once (each call that edits gets its own)."""

    def __init__(self) -> None:
        self.grid = _grid()
        self.field = FlowField.build(self.grid, [(15, 11)])
        self.sectors = SectorGraph(_grid(), 4)
        self.hierarchy = Hierarchy.build(_grid(), levels=2, cluster_size=4)
        self.graph = WaypointGraph.floodfill(_grid(), (0, 0), 2)
        self.mesh = NavMesh.from_grid(_grid(), 0.0)
        quad = np.array([[0, 0, 0], [10, 0, 0], [10, 10, 0], [0, 10, 0]], dtype=float)
        self.layered = NavMesh.from_triangles(quad, np.array([[0, 1, 2], [0, 2, 3]]), layers="all", agent_radius=0.3)
        self.bounds = GoalBounds.build(self.grid)
        self.jumps = JumpTable.build(self.grid)


PARTS = _Parts()


def _crowd_call(method: str):
    def call(*args, **kwargs):
        crowd = Crowd(_grid(), cache_dir=None)
        ids = crowd.add_agents([(1.5, 1.5), (3.5, 8.5)])
        crowd.move(ids, (14.5, 10.5))
        crowd.update(1 / 30)
        out = getattr(crowd, method)(*args, **kwargs)
        for _ in range(2):
            crowd.update(1 / 30)
        return out
    return call


def _on_fresh_grid(method: str):
    return lambda *args: getattr(_grid(), method)(*args)


def _layered(method: str):
    return lambda *args: getattr(PARTS.layered, method)(*args)


S, G = (0.5, 0.5, 0.0), (15.5, 11.5, 0.0)
#: name -> (call, documented arguments): ``call(*arguments)`` must answer.
CALLS = {
    "Grid": (lambda *a: Grid(*a), [PASSABLE.copy(), None, None]),
    "Grid.cell_to_world": (lambda *a: PARTS.grid.cell_to_world(*a), [1, 2]),
    "Grid.cells_to_world": (lambda *a: PARTS.grid.cells_to_world(*a), [np.array([[1, 2]])]),
    "Grid.check_cell": (lambda *a: PARTS.grid.check_cell(*a), [(1, 2)]),
    "Grid.components": (lambda: PARTS.grid.components(), []),
    "Grid.connected": (lambda *a: PARTS.grid.connected(*a), [(0, 0), (15, 11)]),
    "Grid.in_bounds": (lambda *a: PARTS.grid.in_bounds(*a), [1, 2]),
    "Grid.is_passable": (lambda *a: PARTS.grid.is_passable(*a), [1, 2]),
    "Grid.kept": (lambda *a: _grid().kept(*a), ["k", lambda g: 1]),
    "Grid.line_of_sight": (lambda *a: PARTS.grid.line_of_sight(*a), [(0, 0), (5, 5)]),
    "Grid.masked": (lambda *a: PARTS.grid.masked(*a), [1]),
    "Grid.move_masks": (lambda: PARTS.grid.move_masks(), []),
    "Grid.nearest_reachable": (lambda *a: PARTS.grid.nearest_reachable(*a), [(7, 5), np.array([[0, 0]])]),
    "Grid.padded": (lambda: PARTS.grid.padded(), []),
    "Grid.passability_edits_since": (lambda *a: PARTS.grid.passability_edits_since(*a), [0]),
    "Grid.segments_clear": (lambda *a: PARTS.grid.segments_clear(*a), [np.array([[0.5, 0.5]]), np.array([[5.5, 5.5]])]),
    "Grid.set_cost": (_on_fresh_grid("set_cost"), [np.array([[1, 1]]), 2.0]),
    "Grid.set_layers": (_on_fresh_grid("set_layers"), [np.array([[1, 1]]), 2]),
    "Grid.set_passable": (_on_fresh_grid("set_passable"), [np.array([[1, 1]]), False]),
    "Grid.workspace": (lambda *a: _grid().workspace(*a), ["k", lambda g: 1]),
    "Grid.world_to_cell": (lambda *a: PARTS.grid.world_to_cell(*a), [1.5, 2.5]),
    "Grid.world_to_cells": (lambda *a: PARTS.grid.world_to_cells(*a), [np.array([[1.5, 2.5]])]),
    "find_path": (lambda *a: nav.find_path(*a), [PARTS.grid, (0, 0), (15, 11), "astar"]),
    "FlowField.build": (lambda *a: FlowField.build(*a), [PARTS.grid, [(15, 11)]]),
    "FlowField.descend": (lambda *a: PARTS.field.descend(*a), [(0, 0), 100]),
    "FlowField.sample": (lambda *a: PARTS.field.sample(*a), [np.array([[0.5, 0.5]])]),
    "SectorGraph": (lambda *a: SectorGraph(*a), [PARTS.grid, 4, None]),
    "SectorGraph.start": (lambda *a: SectorGraph.start(*a), [PARTS.grid, 4]),
    "SectorGraph.build_some": (lambda *a: SectorGraph.start(_grid(), 4).build_some(*a), [2]),
    "SectorGraph.order": (lambda *a: PARTS.sectors.order(*a), [(15, 11)]),
    "SectorGraph.ring": (lambda *a: PARTS.sectors.ring(*a), [0]),
    "SectorGraph.sector_of": (lambda *a: PARTS.sectors.sector_of(*a), [np.array([[1, 1]])]),
    "SectorGraph.update": (lambda *a: SectorGraph(_grid(), 4).update(*a), [np.array([[1, 1]])]),
    "SectorGraph.local_field": (lambda *a: PARTS.sectors.local_field(*a), [0, np.array([[1, 1]]), np.array([0.0])]),
    "Hierarchy.build": (lambda *a: Hierarchy.build(*a), [PARTS.grid, 2, 4, 4, None]),
    "Hierarchy.cluster_count": (lambda *a: PARTS.hierarchy.cluster_count(*a), [1]),
    "Hierarchy.component_labels": (lambda *a: PARTS.hierarchy.component_labels(*a), [1]),
    "Hierarchy.find_path": (lambda *a: PARTS.hierarchy.find_path(*a), [(0, 0), (15, 11)]),
    "Hierarchy.plan": (lambda *a: PARTS.hierarchy.plan(*a), [(0, 0), (15, 11)]),
    "Hierarchy.update": (lambda *a: Hierarchy.build(_grid(), 2, 4).update(*a), [np.array([[1, 1]])]),
    "WaypointGraph": (lambda *a: WaypointGraph(*a), [PARTS.grid, np.array([[0, 0], [3, 3]]), np.array([[0, 1]])]),
    "WaypointGraph.floodfill": (lambda *a: WaypointGraph.floodfill(*a), [PARTS.grid, (0, 0), 2, 0.0, 0]),
    "WaypointGraph.from_waypoints": (lambda *a: WaypointGraph.from_waypoints(*a), [PARTS.grid, np.array([[0, 0], [3, 3]]), 10.0]),
    "WaypointGraph.find_path": (lambda *a: PARTS.graph.find_path(*a), [(0.5, 0.5), (15.5, 11.5)]),
    "WaypointGraph.nearest": (lambda *a: PARTS.graph.nearest(*a), [(0.5, 0.5)]),
    "WaypointGraph.shortest_path": (lambda *a: PARTS.graph.shortest_path(*a), [0, 1]),
    "WaypointGraph.visible_from": (lambda *a: PARTS.graph.visible_from(*a), [(0.5, 0.5), 8]),
    "WaypointGraph.lookup_tables": (lambda *a: WaypointGraph.floodfill(_grid(), (0, 0), 2).lookup_tables(*a), [2**20]),
    "NavMesh.from_grid": (lambda *a: NavMesh.from_grid(*a), [PARTS.grid, 0.0]),
    "NavMesh.from_triangles": (lambda *a: NavMesh.from_triangles(*a), [np.array([[0, 0, 0], [4, 0, 0], [0, 4, 0]], float),
                                                                        np.array([[0, 1, 2]])]),
    "NavMesh.find_path": (lambda *a: PARTS.mesh.find_path(*a), [S, G]),
    "NavMesh.start_query": (lambda *a: PARTS.mesh.start_query(*a), [S, G]),
    "NavMesh.height_at": (lambda *a: PARTS.mesh.height_at(*a), [(0.5, 0.5)]),
    "NavMesh.heights_of": (lambda *a: PARTS.mesh.heights_of(*a), [np.array([[0.5, 0.5]])]),
    "NavMesh.nearest_point": (lambda *a: PARTS.mesh.nearest_point(*a), [S, 8]),
    "NavMesh.polygon_at": (lambda *a: PARTS.mesh.polygon_at(*a), [S]),
    "NavMesh.polygon_vertices": (lambda *a: PARTS.mesh.polygon_vertices(*a), [0]),
    "NavMesh.closest_on_polygon": (lambda *a: PARTS.mesh.closest_on_polygon(*a), [0, S]),
    "NavMesh.polygons_along": (lambda *a: PARTS.mesh.polygons_along(*a), [np.array([[0.5, 0.5], [3.5, 3.5]])]),
    "NavMesh.raycast": (lambda *a: PARTS.mesh.raycast(*a), [S, (5.5, 5.5, 0.0)]),
    "NavMesh.add_link": (lambda *a: NavMesh.from_grid(_grid(), 0.0).add_link(*a), [(1.5, 1.5, 0.0), (14.5, 10.5, 0.0), 3.0]),
    "NavMesh.use_plain_sight": (lambda *a: NavMesh.from_grid(_grid(), 0.0).use_plain_sight(*a), [True]),
    "NavMesh.convex_corners": (lambda: PARTS.mesh.convex_corners(), []),
    "NavMesh.exact_applies": (lambda: PARTS.mesh.exact_applies(), []),
    "NavMesh.query_tables": (lambda: PARTS.mesh.query_tables(), []),
    "LayeredNavMesh.find_path": (_layered("find_path"), [(1.0, 1.0, 0.0), (9.0, 9.0, 0.0)]),
    "LayeredNavMesh.start_query": (_layered("start_query"), [(1.0, 1.0, 0.0), (9.0, 9.0, 0.0)]),
    "LayeredNavMesh.height_at": (_layered("height_at"), [(1.0, 1.0, 0.0)]),
    "LayeredNavMesh.heights_of": (_layered("heights_of"), [np.array([[1.0, 1.0]])]),
    "LayeredNavMesh.nearest_point": (_layered("nearest_point"), [(1.0, 1.0, 0.0), 8]),
    "LayeredNavMesh.polygon_at": (_layered("polygon_at"), [(1.0, 1.0, 0.0)]),
    "LayeredNavMesh.span_at": (_layered("span_at"), [(1.0, 1.0, 0.0)]),
    "LayeredNavMesh.raycast": (_layered("raycast"), [(1.0, 1.0, 0.0), (9.0, 9.0, 0.0)]),
    "LayeredNavMesh.footprint": (_layered("footprint"), [1.0]),
    "LayeredNavMesh.follow_surface": (_layered("follow_surface"), [np.array([[1.0, 1.0, 0.0]]), np.array([[1.0, 1.0, 0.0]])]),
    "LayeredNavMesh.from_triangles": (lambda *a: nav.LayeredNavMesh.from_triangles(*a), [
        np.array([[0, 0, 0], [10, 0, 0], [10, 10, 0], [0, 10, 0]], float), np.array([[0, 1, 2], [0, 2, 3]])]),
    "LayeredNavMesh.add_link": (lambda *a: NavMesh.from_triangles(
        np.array([[0, 0, 0], [10, 0, 0], [10, 10, 0], [0, 10, 0]], float), np.array([[0, 1, 2], [0, 2, 3]]),
        layers="all").add_link(*a), [(1.0, 1.0, 0.0), (9.0, 9.0, 0.0), 3.0]),
    "path_length": (lambda *a: nav.path_length(*a), [PATH]),
    "path_cost": (lambda *a: nav.path_cost(*a), [PARTS.grid, PATH]),
    "smooth_path": (lambda *a: nav.smooth_path(*a), [PARTS.grid, PATH, "precise"]),
    "validate_path": (lambda *a: nav.validate_path(*a), [PARTS.grid, PATH, (0, 0), (2, 2)]),
    "DStarLite": (lambda *a: DStarLite(*a), [PARTS.grid, (0, 0), (15, 11)]),
    "DStarLite.move_to": (lambda *a: DStarLite(PARTS.grid, (0, 0), (15, 11)).move_to(*a), [(1, 1)]),
    "DStarLite.cells_changed": (lambda *a: DStarLite(_grid(), (0, 0), (15, 11)).cells_changed(*a), [np.array([[1, 1]])]),
    "DStarLite.plan": (lambda: DStarLite(PARTS.grid, (0, 0), (15, 11)).plan(), []),
    "GoalBounds": (lambda *a: GoalBounds(*a), [PARTS.grid, PARTS.bounds.boxes]),
    "GoalBounds.build": (lambda *a: GoalBounds.build(*a), [PARTS.grid, None, 2048]),
    "GoalBounds.estimate": (lambda *a: GoalBounds.estimate(*a), [PARTS.grid]),
    "JumpTable": (lambda *a: JumpTable(*a), [PARTS.grid, PARTS.jumps.table, 8]),
    "JumpTable.build": (lambda *a: JumpTable.build(*a), [PARTS.grid, None]),
    "JumpTable.empty": (lambda *a: JumpTable.empty(*a), [PARTS.grid]),
    "JumpTable.build_next": (lambda: JumpTable.empty(_grid()).build_next(), []),
    "JumpTable.current": (lambda: JumpTable.empty(_grid()).current(), []),
    "JumpTable.restart_build": (lambda: JumpTable.build(_grid()).restart_build(), []),
    "CrowdConfig": (lambda *a: CrowdConfig(*a), [20_000, 4, "precise", 1.5]),
    "Crowd": (lambda *a: Crowd(*a, cache_dir=None), [PARTS.grid, None]),
    **{f"Crowd.{name}": (_crowd_call(name), args) for name, args in {
        "add_agents": [[(5.5, 5.5)]], "move": [[0, 1], (10.5, 3.5), "astar"], "update": [1 / 30],
        "set_speed": [[0], 2.0], "stop": [[0]], "pause": [[0], True], "remove": [[0]], "status": [[0]],
        "path": [0], "occupants": [np.array([[1, 1]])], "cells_changed": [np.array([[1, 1]])],
        "finish_rebuilds": [1.0], "prepare": [["astar"], None, False, ()]}.items()},
}
#: Public methods that are not called here, and why.
_FILES = "files: the forged-cache and file fuzz of part two (test_forged_caches)"
_CONTRACT = "the sliced query's contract between a mesh and its query object: called by rtsnav on values it made"
_FACTS = "read-only facts of a built structure"
#: Public method names not called here, and why.
NOT_CALLED = {**dict.fromkeys(("cached", "cached_floodfill", "load", "save"), _FILES),
              **dict.fromkeys(("begin_query", "end_query", "partial", "route_between", "snap", "if_stacked", "search"),
                              _CONTRACT),
              **dict.fromkeys(("graph_arrays", "searched", "edges", "compact", "edge_counts", "grid_checksum",
                               "memory_bytes", "unreachable"), _FACTS)}
SLOTS = [(name, k) for name, (_, args) in CALLS.items() for k in range(len(args))]


def test_every_public_method_has_a_call():
    """A public method of the facade's classes with no entry in ``CALLS`` (nor a reason in
    ``NOT_CALLED``) fails here, so the sweep grows with the API; and every documented call answers."""
    missing = []
    for cname in ("Grid", "FlowField", "SectorGraph", "Hierarchy", "WaypointGraph", "NavMesh", "LayeredNavMesh",
                  "DStarLite", "GoalBounds", "JumpTable", "Crowd"):
        cls = getattr(nav, cname)
        for name, value in inspect.getmembers(cls):
            if name.startswith("_") or not callable(value) or isinstance(inspect.getattr_static(cls, name), property):
                continue
            if f"{cname}.{name}" not in CALLS and name not in NOT_CALLED:
                missing.append(f"{cname}.{name}")
    assert not missing, f"no fuzz call for {missing}"
    for name, (call, args) in CALLS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(*args)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_method_on_each_odd_argument(name):
    """Each argument of a documented call replaced by each odd value in turn: a ``NavError`` or
    an answer (and a grid query's answer still right afterwards). Exhaustive: ~4,000 calls."""
    call, args = CALLS[name]
    for k in range(len(args)):
        for value in ODD.values():
            changed = list(args)
            changed[k] = value
            _answer_or_refuse(call, changed)
    assert nav.find_path(PARTS.grid, (0, 0), (15, 11)).found                  # nothing shared was broken


@FUZZ
@given(st.sampled_from(SLOTS), st.one_of(ANY_VALUE, st.lists(ANY_NUMBER, max_size=4),
                                         st.tuples(ANY_NUMBER, ANY_NUMBER, ANY_NUMBER)))
def test_random_method_on_one_random_argument(slot, value):
    """The same with random values (numbers of any size, NaN, text, short lists and triples)."""
    name, k = slot
    call, args = CALLS[name]
    args = list(args)
    args[k] = value
    _answer_or_refuse(call, args)


def _answer_or_refuse(call, args: list) -> None:
    """``call(*args)``: an answer, or a ``NavError`` that says something (anything else fails)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            call(*args)
        except NavError as e:
            assert str(e)
