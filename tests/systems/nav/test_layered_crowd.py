"""A crowd on stacked surfaces (issue 41): given a ``LayeredNavMesh``, agents plan on it, their
height follows the surface they walk, and bodies on different surfaces (the road and the bridge
deck over it) never meet — in contacts or in avoidance."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.systems.nav import NavMesh
from rtsnav.systems.nav.crowd import Crowd

from . import layered_scenes as scenes

DT = 1 / 30


@pytest.fixture(scope="module")
def overpass():
    mesh = NavMesh.from_triangles(*scenes.overpass(), agent_radius=0.4)
    return mesh, mesh.footprint()


def _streams(mesh, grid, road: int, deck: int, ticks: int = 1500):
    """``road`` agents walking the road under the bridge (+x) and ``deck`` agents crossing over
    it (south ramp, deck, north ramp). Returns per stream the time the last one arrived, the
    highest z a road agent reached, the lowest z of a deck agent over the road, and the ticks
    in which a road agent and a deck agent were closer than a body in plan."""
    crowd = Crowd(grid, navmesh=mesh)
    rng = np.random.default_rng(3)
    pos_r = np.c_[rng.uniform(4, 16, road), rng.uniform(1.0, 7.0, road), np.zeros(road)]
    pos_d = np.c_[rng.uniform(37.5, 42.5, deck), rng.uniform(-33, -28, deck), np.zeros(deck)]
    ids_r = crowd.add_agents(pos_r, radius=0.4, max_speed=3.0, avoidance=True) if road else np.zeros(0, int)
    ids_d = crowd.add_agents(pos_d, radius=0.4, max_speed=3.0, avoidance=True) if deck else np.zeros(0, int)
    if road:
        crowd.move(ids_r, pos_r + (56.0, 0.0, 0.0), planner="navmesh")
    if deck:
        crowd.move(ids_d, pos_d + (0.0, 70.0, 0.0), planner="navmesh")
    arrived: dict[int, int] = {}
    road_top, deck_low, crossings = 0.0, np.inf, 0
    for k in range(ticks):
        for i in crowd.update(DT).reached.tolist():
            arrived.setdefault(i, k)
        p = crowd.agents.position
        if road:
            road_top = max(road_top, float(np.abs(p[ids_r, 2]).max()))
        if deck:
            over = (p[ids_d, 1] > 0.5) & (p[ids_d, 1] < 7.5)
            deck_low = min(deck_low, float(p[ids_d][over, 2].min(initial=np.inf)))
        if road and deck:
            gap = np.hypot(*(p[ids_r, None, :2] - p[None, ids_d, :2]).transpose(2, 0, 1))
            crossings += int((gap < 0.8).any())
        if len(arrived) == road + deck:
            break
    last = [max((arrived.get(int(i), ticks) for i in ids), default=0) * DT for ids in (ids_r, ids_d)]
    return last, road_top, deck_low, crossings


def test_a_unit_on_the_road_and_one_on_the_deck_pass_through_each_other_in_plan(overpass):
    mesh, grid = overpass
    crowd = Crowd(grid, navmesh=mesh)
    # on the road along x under the deck, and on the deck along y over the road: they meet at (40, 4)
    below, above = crowd.add_agents([(33.0, 4.0, 0.0), (40.0, 11.0, scenes.DECK_Z)], radius=0.4, max_speed=3.0,
                                    avoidance=True)
    crowd.move([below], (47.0, 4.0, 0.0), planner="navmesh")
    crowd.move([above], (40.0, -3.0, scenes.DECK_Z), planner="navmesh")
    for _ in range(150):
        crowd.update(DT)
        p = crowd.agents.position
        assert abs(p[below, 1] - 4.0) < 0.05 and p[below, 2] == 0.0        # straight on, on the road
        assert abs(p[above, 0] - 40.0) < 0.05 and p[above, 2] == scenes.DECK_Z
    assert p[below, 0] > 45.0 and p[above, 1] < -1.0


@pytest.mark.slow                     # a long scene: make test-slow
def test_twenty_under_the_bridge_and_twenty_over_it_neither_stream_slows(overpass):
    mesh, grid = overpass
    (road_alone, _), _, _, _ = _streams(mesh, grid, 20, 0)
    (_, deck_alone), _, _, _ = _streams(mesh, grid, 0, 20)
    (road_both, deck_both), road_top, deck_low, crossings = _streams(mesh, grid, 20, 20)
    assert crossings > 0                                   # the streams did cross, one over the other
    assert road_top == 0.0 and deck_low == pytest.approx(scenes.DECK_Z)
    assert road_both <= 1.1 * road_alone and deck_both <= 1.1 * deck_alone
