"""Flow fields: integration equals Dijkstra, directions never point into walls, line of sight,
sector tiles, corridors; crowd kernels against brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rtsnav.levels import load_movingai_map
from rtsnav.systems.nav import Grid, NavError
from rtsnav.systems.nav.flow import FlowField
from rtsnav.systems.nav.flow.corridor import CorridorField
from rtsnav.systems.nav.flow.direction import octant_of
from rtsnav.systems.nav.flow.integration import integration_field
from rtsnav.systems.nav.flow.sectors import SectorGraph
from rtsnav.systems.nav.kernels.steps import MOVE_DX, MOVE_DY
from rtsnav.systems.nav.steering.flocking import flock_forces
from rtsnav.systems.nav.steering.wall_repulsion import wall_repulsion
from tests.conftest import ascii_grid
from tests.systems.nav.flow_reference import grid_graph, reference_field

_maps = {}


def _map(name):
    if name not in _maps:
        if name == "cape256":
            cape = load_movingai_map("AcrosstheCape.map")
            _maps[name] = Grid(cape.passable[300:556, 200:456].copy())
        else:
            _maps[name] = load_movingai_map(name + ".map")
    return _maps[name]


def _goal(grid, seed=0):
    labels = grid.components()
    big = np.bincount(labels[labels >= 0]).argmax()
    cells = np.argwhere(labels == big)[:, ::-1]
    return tuple(int(v) for v in cells[np.random.default_rng(seed).integers(len(cells))])


@pytest.mark.parametrize("name", ["arena", "den520d", "cape256"])
def test_integration_field_equals_dijkstra_reference(name):
    grid = _map(name)
    goal = _goal(grid)
    ref = reference_field(grid, [goal])
    for field in (FlowField.build(grid, [goal]).integration, integration_field(grid, [goal])):
        fin = np.isfinite(ref)
        assert (np.isfinite(field) == fin).all()
        np.testing.assert_allclose(field[fin], ref[fin], rtol=1e-3)
    exact = integration_field(grid, [goal])
    assert np.max(np.abs(exact[np.isfinite(ref)] - ref[np.isfinite(ref)])) < 1e-9


def test_multiple_goals_and_seed_values_equal_reference():
    grid = _map("arena")
    rng = np.random.default_rng(1)
    cells = np.argwhere(grid.passable)[:, ::-1]
    goals = cells[rng.integers(0, len(cells), 7)]
    values = rng.uniform(0, 40, 7)                  # a spread of start costs (sector seeds)
    graph = grid_graph(grid)
    ref = reference_field(grid, goals, graph=graph)
    np.testing.assert_allclose(FlowField.build(grid, goals).integration[np.isfinite(ref)],
                               ref[np.isfinite(ref)], rtol=1e-5)
    ref_v = reference_field(grid, goals, values, graph=graph)
    got = integration_field(grid, goals, goal_values=values)
    fin = np.isfinite(ref_v)
    np.testing.assert_allclose(got[fin], ref_v[fin], rtol=1e-9, atol=1e-9)


def test_terrain_costs_are_honoured():
    rng = np.random.default_rng(2)
    grid = Grid(rng.random((40, 50)) > 0.15, rng.choice([1.0, 1.0, 2.5, 7.0], size=(40, 50)))
    goal = _goal(grid)
    ref = reference_field(grid, [goal])
    got = integration_field(grid, [goal])
    fin = np.isfinite(ref)
    np.testing.assert_allclose(got[fin], ref[fin], rtol=1e-9)


def _assert_directions_legal(ff):
    grid = ff.grid
    moves = grid.move_masks().reshape(grid.height + 2, grid.width + 2)[1:-1, 1:-1]
    d = ff.direction
    has = np.any(d != 0, axis=2)
    ys, xs = np.nonzero(has)
    for y, x in zip(ys, xs):
        k = octant_of(float(d[y, x, 0]), float(d[y, x, 1]))
        assert (moves[y, x] >> k) & 1, f"direction at {(x, y)} points into a wall or across a corner"
    norms = np.hypot(d[..., 0], d[..., 1])[has]
    np.testing.assert_allclose(norms, 1.0, atol=1e-5)
    # every reachable non-goal cell has a direction
    reach = np.isfinite(ff.integration) & (ff.integration > 0)
    assert has[reach].all()


@pytest.mark.parametrize("name", ["arena", "den520d", "cape256"])
def test_directions_never_point_into_walls(name):
    grid = _map(name)
    for los in (0, 64):
        _assert_directions_legal(FlowField.build(grid, [_goal(grid, 3)], los_radius=los))


@pytest.mark.parametrize("name", ["arena", "den520d", "cape256"])
def test_eikonal_directions_never_point_into_walls(name):
    grid = _map(name)
    for los in (0, 64):
        _assert_directions_legal(FlowField.build(grid, [_goal(grid, 3)], los_radius=los, integration="eikonal"))


@pytest.mark.parametrize("integration", ["dijkstra", "eikonal"])
@pytest.mark.parametrize("name", ["arena", "den520d", "cape256"])
def test_kernel_rule_directions_never_point_into_walls(name, integration):
    grid = _map(name)
    _assert_directions_legal(FlowField.build(grid, [_goal(grid, 3)], los_radius=0, rule="kernel",
                                             integration=integration))


def test_kernel_rule_pushes_cells_beside_walls_away_from_them():
    grid = Grid(np.ones((20, 40), dtype=bool))
    grid.set_passable(np.c_[np.arange(5, 35), np.full(30, 10)], False)          # a wall along y = 10
    ff = FlowField.build(grid, [(38, 9)], los_radius=0, rule="kernel")
    d = ff.direction[9, 10:30]                                                    # the row just above it
    assert (d[:, 0] > 0.8).all() and (d[:, 1] < 0).all()                          # along it, leaning off it


@pytest.mark.parametrize("name", ["open", "terrain", "den520d"])
def test_eikonal_field_matches_scikit_fmm_first_order(name):
    """Within 1% of scikit-fmm's first-order travel times at cells at least 5 from the source
    (measured: 1e-12), on an open map, with terrain speeds, and among obstacles."""
    skfmm = pytest.importorskip("skfmm")
    if name == "open":
        grid = Grid(np.ones((120, 120), dtype=bool))
    elif name == "terrain":
        grid = Grid(np.ones((120, 120), dtype=bool), np.where(np.arange(120)[None, :] > 70, 3.0, 1.0) * np.ones((120, 1)))
    else:
        grid = _map(name)
    gx, gy = _goal(grid, 5) if name == "den520d" else (40, 60)
    ours = FlowField.build(grid, [(gx, gy)], integration="eikonal").integration.astype(np.float64)
    phi = np.ones(grid.shape)
    phi[gy, gx] = -1
    ref = np.abs(np.ma.filled(skfmm.travel_time(np.ma.MaskedArray(phi, ~grid.passable), 1.0 / grid.cost, dx=1.0,
                                                order=1), np.inf))
    ys, xs = np.mgrid[0:grid.height, 0:grid.width]
    far = (np.hypot(xs - gx, ys - gy) >= 5) & np.isfinite(ref)
    assert np.array_equal(np.isfinite(ours), np.isfinite(ref))
    offset = np.sqrt(2) / 4 * grid.cost[gy, gx]                 # our goal costs 0, theirs its contour distance
    rel = np.abs(ours[far] + offset - ref[far]) / ref[far]
    assert rel.max() <= 0.01


def test_eikonal_is_closer_to_straight_lines_than_dijkstra():
    grid = Grid(np.ones((101, 101), dtype=bool))
    eik = FlowField.build(grid, [(50, 50)], integration="eikonal").integration
    dij = FlowField.build(grid, [(50, 50)]).integration
    ys, xs = np.mgrid[0:101, 0:101]
    euclid = np.hypot(xs - 50, ys - 50)
    far = euclid >= 20
    assert np.abs(eik[far] - euclid[far]).max() < 0.6 * np.abs(dij[far] - euclid[far]).max()


def test_directions_on_random_grids_with_terrain_are_legal():
    rng = np.random.default_rng(4)
    for _ in range(10):
        grid = Grid(rng.random((30, 30)) > 0.3, rng.choice([1.0, 3.0], size=(30, 30)))
        _assert_directions_legal(FlowField.build(grid, [_goal(grid, 1)]))


def test_best_moves_descend_along_shortest_paths():
    grid = _map("den520d")
    goal = _goal(grid, 5)
    ff = FlowField.build(grid, [goal])
    cells = np.argwhere(np.isfinite(ff.integration))[:, ::-1]
    for s in cells[np.random.default_rng(0).integers(0, len(cells), 30)]:
        path = ff.descend(tuple(s))
        assert tuple(path[-1]) == goal
        steps = np.diff(path, axis=0)
        cost = np.where(np.all(steps != 0, axis=1), math.sqrt(2), 1.0).sum()
        assert cost == pytest.approx(float(ff.integration[s[1], s[0]]), rel=1e-4)


def test_line_of_sight_cells_see_the_goal_and_aim_at_it():
    grid = _map("arena")
    goal = _goal(grid, 7)
    ff = FlowField.build(grid, [goal], los_radius=30)
    ys, xs = np.nonzero(ff.line_of_sight)
    assert len(xs) > 50
    for x, y in zip(xs[::7], ys[::7]):
        assert grid.line_of_sight((x, y), goal)
        if (x, y) != goal:
            aim = np.array([goal[0] - x, goal[1] - y], dtype=float)
            d = ff.direction[y, x]
            # aims at the goal unless the safety pass replaced it by a legal grid move
            k = octant_of(float(aim[0]), float(aim[1]))
            if np.allclose(d, aim / np.linalg.norm(aim), atol=1e-6):
                continue
            assert (grid.move_masks().reshape(grid.height + 2, -1)[y + 1, x + 1] >> k) & 1 == 0


def test_open_field_flows_straight_at_the_goal():
    grid = Grid(np.ones((40, 40), dtype=bool))
    ff = FlowField.build(grid, [(35, 30)])
    d = ff.direction[5, 3]
    aim = np.array([32.0, 25.0]) / math.hypot(32, 25)
    np.testing.assert_allclose(d, aim, atol=1e-5)         # line of sight, not an octile zig-zag


def test_sample_is_vectorised_and_zero_off_grid():
    grid = _map("arena")
    ff = FlowField.build(grid, [_goal(grid)])
    cells = np.argwhere(grid.passable)[:, ::-1][:100]
    pts = grid.cells_to_world(cells) + 0.2
    np.testing.assert_array_equal(ff.sample(pts), ff.direction[cells[:, 1], cells[:, 0]])
    assert (ff.sample(np.array([[-5.0, 3.0], [1e6, 1e6]])) == 0).all()


def test_flow_field_bad_goals_raise():
    grid = ascii_grid("""
.#
..
""")
    with pytest.raises(NavError, match="at least one goal"):
        FlowField.build(grid, np.zeros((0, 2)))
    with pytest.raises(NavError, match="blocked"):
        FlowField.build(grid, [(1, 0)])
    with pytest.raises(NavError, match="outside"):
        FlowField.build(grid, [(5, 5)])


# ------------------------------------------------------------------------- sector tiles
def _follow_tiles(order, start, limit=4000):
    x, y = start
    cost = 0.0
    for _ in range(limit):
        if (x, y) == order.goal:
            return cost
        k = int(order.best_moves(np.array([[x, y]]))[0])
        if k < 0:
            return math.inf
        x, y = x + int(MOVE_DX[k]), y + int(MOVE_DY[k])
        cost += math.sqrt(2) if k >= 4 else 1.0
    return math.inf


@pytest.mark.slow
def test_sector_tile_paths_reach_the_goal_close_to_the_full_field_cost():
    grid = _map("cape256")
    tiles = SectorGraph(grid, 16)
    goal = _goal(grid, 9)
    order = tiles.order(goal)
    full = FlowField.build(grid, [goal])
    labels = grid.components()
    cells = np.argwhere(labels == labels[goal[1], goal[0]])[:, ::-1]
    ratios = []
    for s in cells[np.random.default_rng(3).integers(0, len(cells), 150)]:
        c = _follow_tiles(order, (int(s[0]), int(s[1])))
        best = float(full.integration[s[1], s[0]])
        assert math.isfinite(c), f"tile flow from {tuple(s)} never reached the goal"
        ratios.append(c / best if best > 0 else 1.0)
        # the tile integration is a real route's estimate: never below the true optimum
        assert order.cost(np.array([s]))[0] >= best - 1e-3
    ratios = np.array(ratios)
    assert ratios.min() >= 1.0 - 1e-6
    assert ratios.mean() <= 1.06 and np.percentile(ratios, 95) <= 1.15


def test_sector_fields_are_built_lazily_only_where_asked():
    grid = _map("cape256")
    tiles = SectorGraph(grid, 16)
    order = tiles.order(_goal(grid, 9))
    assert order.fields == {}
    cells = np.argwhere(grid.passable)[:, ::-1][:40]
    order.sample(grid.cells_to_world(cells))
    assert set(order.fields) == set(tiles.sector_of(cells).tolist())
    # cost_under: the cost where a sector is built (NaN where the goal is out of reach), NaN
    # (not 0) where none is built yet
    others = np.argwhere(grid.passable)[:, ::-1]
    unbuilt = others[~np.isin(tiles.sector_of(others), list(order.fields))][:40]
    cost = order.cost(cells)
    assert np.isfinite(cost).any()
    np.testing.assert_allclose(order.cost_under(grid.cells_to_world(cells)), np.where(np.isinf(cost), np.nan, cost),
                               rtol=1e-6)
    assert np.isnan(order.cost_under(grid.cells_to_world(unbuilt))).all()


def test_one_batch_for_many_orders_builds_what_one_sector_at_a_time_builds():
    """``build_fields`` solves many orders' sectors in one kernel call, straight into their maps; each must equal that
    sector solved alone from its order's ring seeds (and the goal in the goal's sector)."""
    from rtsnav.systems.nav.flow.sector_build import build_fields

    grid = _map("cape256")
    tiles = SectorGraph(grid, 16)
    orders = [tiles.order(_goal(grid, seed)) for seed in (9, 10, 11)]
    rng = np.random.default_rng(4)
    wanted = [(o, int(sid)) for o in orders for sid in rng.choice(len(tiles.sectors), 25, replace=False)]
    wanted += [(o, o.goal_sector) for o in orders]
    build_fields(wanted + wanted[:5])                  # repeats and built ones are skipped
    for order, sid in wanted:
        cells, values = order.seed_values(sid)
        reach = np.isfinite(values)
        own = [order.goal] if sid == order.goal_sector else np.zeros((0, 2))
        dist, best, direction = tiles.local_field(sid, own, [0.0] if sid == order.goal_sector else [],
                                                  cells[reach], values[reach], with_directions=True)
        cost, built_best, built_direction = order.fields[sid]
        assert np.array_equal(cost, dist.astype(np.float32))
        assert np.array_equal(built_best, best)
        assert np.array_equal(built_direction, direction)
    assert np.isfinite(orders[0].fields[orders[0].goal_sector][0]).any()


def test_after_several_edits_one_replan_keeps_only_fields_a_fresh_order_would_build_alike():
    """Sector fields kept through ``replan`` must equal a fresh order's: two edits before one
    replan (the second must not hide the first), whose new walls change portal costs far from
    them (the kept fields' ring seeds are compared)."""
    grid = Grid(_map("cape256").passable.copy())
    tiles = SectorGraph(grid, 16)
    goal = _goal(grid, 9)
    order = tiles.order(goal)
    cells = np.argwhere(grid.passable)[:, ::-1]
    order.sample(grid.cells_to_world(cells))
    built_before = set(order.fields)
    rng = np.random.default_rng(5)
    for _ in range(2):                                  # two edits, each its own update
        block = cells[rng.integers(0, len(cells), 40)]
        block = block[(np.abs(block - np.asarray(goal)).max(axis=1) > 3)]
        grid.set_passable(block, False)
        tiles.update(block)
    order.replan()
    kept = set(order.fields)
    assert 0 < len(kept) < len(built_before)
    fresh = tiles.order(goal)
    fresh.build(sorted(kept))
    for sid in kept:
        for mine, theirs in zip(order.fields[sid], fresh.fields[sid]):
            assert np.array_equal(mine, theirs), sid
    # and what was dropped is rebuilt alike
    order.sample(grid.cells_to_world(np.argwhere(grid.passable)[:, ::-1]))
    fresh.sample(grid.cells_to_world(np.argwhere(grid.passable)[:, ::-1]))
    assert set(order.fields) == set(fresh.fields)
    for sid in order.fields:
        for mine, theirs in zip(order.fields[sid], fresh.fields[sid]):
            assert np.array_equal(mine, theirs), sid


def test_a_field_an_edit_touched_is_dropped_even_when_another_order_rebuilt_it_first():
    """Two orders share a graph: after an edit, one re-plans and rebuilds a touched sector (its
    ring is read again) before the other re-plans — the other must still drop its old field of
    that sector."""
    grid = Grid(np.ones((64, 64), dtype=bool))
    tiles = SectorGraph(grid, 16)
    first, second = tiles.order((60, 60)), tiles.order((60, 4))
    first.build([0])
    second.build([0])
    wall = np.array([[x, 8] for x in range(0, 10)])    # inside sector 0 only
    grid.set_passable(wall, False)
    tiles.update(wall)
    first.replan()
    first.build([0])
    second.replan()
    assert 0 not in second.fields
    fresh = tiles.order((60, 4))
    for mine, theirs in zip(second.field(0), fresh.field(0)):
        assert np.array_equal(mine, theirs)


def test_changing_cells_rebuilds_only_what_it_touches():
    grid = Grid(np.ones((64, 64), dtype=bool))
    tiles = SectorGraph(grid, 16)
    order = tiles.order((60, 60))
    all_cells = np.argwhere(grid.passable)[:, ::-1]
    order.sample(grid.cells_to_world(all_cells))
    assert len(order.fields) == 16
    before = {sid: tuple(a.copy() for a in f) for sid, f in order.fields.items()}
    wall = np.array([[x, 8] for x in range(0, 10)])    # inside sector 0 only, away from borders
    grid.set_passable(wall, False)
    touched = tiles.update(wall)
    assert touched == [0]
    order.replan()
    kept = [sid for sid in order.fields if all(np.array_equal(a, b) for a, b in zip(order.fields[sid], before[sid]))]
    assert 0 not in order.fields and len(kept) >= 12
    c = _follow_tiles(order, (2, 2))
    assert math.isfinite(c)
    # units in sector 0 now route around the new wall
    path_ok = order.best_moves(np.array([[2, 2]]))[0] >= 0
    assert path_ok


def test_update_reports_neighbour_sectors_for_border_cells():
    grid = Grid(np.ones((32, 32), dtype=bool))
    tiles = SectorGraph(grid, 16)
    grid.set_passable([[15, 3]], False)
    assert tiles.update([[15, 3]]) == [0, 1]


def test_sector_order_rejects_stale_graph_and_blocked_goal():
    grid = Grid(np.ones((32, 32), dtype=bool))
    tiles = SectorGraph(grid, 16)
    grid.set_passable([[1, 1]], False)
    with pytest.raises(NavError, match="changed"):
        tiles.order((5, 5))
    tiles.update([[1, 1]])
    with pytest.raises(NavError, match="blocked"):
        tiles.order((1, 1))


# ----------------------------------------------------------------------------- corridor
def test_corridor_widens_the_path_and_leads_back_into_it():
    grid = _map("arena")
    from rtsnav.systems.nav import find_path

    a, b = _goal(grid, 1), _goal(grid, 2)
    path = find_path(grid, a, b).cells
    cf = CorridorField.build(grid, path, width=3.0)
    ys, xs = np.nonzero(cf.inside)
    # every corridor cell is within 3 cost units of the path
    near = reference_field(grid, path)
    assert (near[ys, xs] <= 3.0 + 1e-9).all() and cf.inside[path[:, 1], path[:, 0]].all()
    # inside, directions descend toward the goal; outside within reach, back toward the band
    outside = np.isfinite(cf.back.integration) & ~cf.inside
    oy, ox = np.nonzero(outside)
    for x, y in list(zip(ox, oy))[::11]:
        k = int(cf.back.best_move[y, x])
        nx, ny = x + int(MOVE_DX[k]), y + int(MOVE_DY[k])
        assert cf.back.integration[ny, nx] < cf.back.integration[y, x]


# ------------------------------------------------------------------------ crowd kernels
def _random_flock(seed: int, n: int, size: float):
    """Flocking inputs: positions, velocities, groups, radii, personal spaces, speeds, active,
    steered — and the generator, for more draws."""
    rng = np.random.default_rng(seed)
    pos = rng.uniform(0, size, (n, 2))
    vel = rng.normal(0, 1, (n, 2))
    group = rng.integers(0, 3, n).astype(np.int64)
    radius = rng.uniform(1.0, 2.5, n)
    active = rng.random(n) > 0.1
    steer = active & (rng.random(n) > 0.2)
    return (pos, vel, group, radius, radius * 0.6, np.full(n, 2.0), active, steer), rng


def test_flock_forces_match_brute_force():
    n = 300
    (pos, vel, group, radius, personal, speed, active, steer), _ = _random_flock(6, n, 20.0)
    sep, coh, ali = (np.empty((n, 2)) for _ in range(3))
    flock_forces(pos, vel, group, radius, personal, speed, active, steer, sep, coh, ali)
    for i in np.flatnonzero(steer):
        d = np.hypot(*(pos[i] - pos).T)
        nb = active & (group == group[i]) & (d < radius[i]) & (np.arange(n) != i)
        if not nb.any():
            assert (sep[i] == 0).all() and (coh[i] == 0).all()
            continue
        close = nb & (d < personal[i])
        exp_sep = (((pos[i] - pos[close]) / d[close, None]) * (1 - d[close] / personal[i])[:, None]).sum(0)
        np.testing.assert_allclose(sep[i], exp_sep, atol=1e-9)
        np.testing.assert_allclose(coh[i], (pos[nb].mean(0) - pos[i]) / radius[i], atol=1e-9)
        np.testing.assert_allclose(ali[i], (vel[nb].mean(0) - vel[i]) / 2.0, atol=1e-9)


def test_flock_forces_skip_units_whose_gap_clears_them_and_measure_the_gap_of_the_isolated():
    """``gap``: a unit whose lower bound on the distance to its nearest mate reaches its radius
    (or, separation only, its personal space) is not scanned and gets the zero forces a scan
    gives; a scanned unit with no mate in its radius gets the distance to its nearest mate
    (at most ``GAP_REACH`` times the scan's reach), the others -inf."""
    n = 400
    (pos, vel, group, radius, personal, speed, active, steer), rng = _random_flock(9, n, 60.0)
    refresh = rng.random(n) < 0.5
    full = [np.zeros((n, 2)) for _ in range(3)]
    flock_forces(pos, vel, group, radius, personal, speed, active, steer, *full, refresh)
    d = np.hypot(*(pos[:, None] - pos[None]).transpose(2, 0, 1))
    mate = active[None] & (group[:, None] == group[None]) & ~np.eye(n, dtype=bool)
    nearest = np.where(mate, d, np.inf).min(axis=1)
    gap = nearest * rng.uniform(0.5, 1.0, n)              # true lower bounds, some loose
    gap[rng.random(n) < 0.2] = -np.inf                    # some unknown
    before = gap.copy()
    sep, coh, ali = np.zeros((n, 2)), np.full((n, 2), 7.0), np.full((n, 2), 7.0)
    flock_forces(pos, vel, group, radius, personal, speed, active, steer, sep, coh, ali, refresh, gap)
    fresh = steer & refresh
    np.testing.assert_allclose(sep, full[0], atol=1e-12)
    np.testing.assert_allclose(coh[fresh], full[1][fresh], atol=1e-12)
    np.testing.assert_allclose(ali[fresh], full[2][fresh], atol=1e-12)
    skipped = fresh & (before >= radius)
    assert skipped.sum() >= 20 and (coh[skipped] == 0).all()
    scanned = fresh & ~(before >= radius)
    isolated = scanned & (nearest >= radius)
    cap = 2.0 * radius[active].max()                       # flocking.GAP_REACH
    assert isolated.any() and (scanned & ~isolated).any()
    np.testing.assert_allclose(gap[isolated], np.minimum(nearest[isolated], cap), atol=1e-8)
    assert (gap[isolated] <= nearest[isolated]).all()
    assert np.isneginf(gap[scanned & ~isolated]).all()
    assert (gap[~scanned] == before[~scanned]).all()


def test_flock_forces_refresh_only_some_pulls_and_separate_everyone_alike():
    """The level of detail of big flocks: agents outside ``refresh`` get the same separation from
    the scan of their personal space alone, and their cohesion and alignment rows stay as given."""
    n = 400
    (pos, vel, group, radius, personal, speed, active, steer), rng = _random_flock(8, n, 25.0)
    full = [np.zeros((n, 2)) for _ in range(3)]
    flock_forces(pos, vel, group, radius, personal, speed, active, steer, *full)
    refresh = rng.random(n) < 0.3
    sep, coh, ali = np.zeros((n, 2)), np.full((n, 2), 7.0), np.full((n, 2), 7.0)
    flock_forces(pos, vel, group, radius, personal, speed, active, steer, sep, coh, ali, refresh)
    np.testing.assert_allclose(sep, full[0], atol=1e-9)
    fresh = steer & refresh
    np.testing.assert_allclose(coh[fresh], full[1][fresh], atol=1e-9)
    np.testing.assert_allclose(ali[fresh], full[2][fresh], atol=1e-9)
    assert (coh[~fresh] == 7.0).all() and (ali[~fresh] == 7.0).all()


def test_wall_repulsion_pushes_away_from_walls_only_when_near():
    grid = ascii_grid("""
#.....
#.....
#.....
""")
    pos = np.array([[1.2, 1.5], [4.0, 1.5]])
    out = np.empty((2, 2))
    wall_repulsion(pos, np.array([True, True]), np.array([0.8, 0.8]), grid.view, out, grid.move_masks(),
                   grid.padded()[1])
    assert out[0, 0] > 0 and abs(out[0, 1]) < 1e-9         # pushed east, away from the wall
    # the agent at x=4 is 0.5 from nothing blocked... except the map edge? no: y edges are 1.5 away
    assert (out[1] == 0).all()


def test_wall_repulsion_skips_open_cells_without_changing_a_push(arena):
    """Units whose reach stays in their cell skip the scan where no wall is beside the cell
    (the move mask says so): the pushes equal a full scan of every unit."""
    rng = np.random.default_rng(3)
    open_cells = np.argwhere(arena.passable)[:, ::-1]
    pos = open_cells[rng.integers(0, len(open_cells), 4000)] + rng.uniform(0, 1, (4000, 2))
    reach = rng.uniform(0.3, 1.8, 4000)                    # spans of one and of two cells
    active = np.ones(4000, dtype=bool)
    fast, full = np.empty((4000, 2)), np.empty((4000, 2))
    wall_repulsion(pos, active, reach, arena.view, fast, arena.move_masks(), arena.padded()[1])
    wall_repulsion(pos, active, reach, arena.view, full, np.zeros_like(arena.move_masks()), arena.padded()[1])
    assert np.array_equal(fast, full)
    assert (np.hypot(*full.T) > 0).sum() > 400             # many units are near a wall


def test_potential_field_gets_caught_in_a_bay_and_the_crowd_reports_it():
    """The paper's baseline: a local minimum in a bay facing the units; the crowd's progress
    watch turns it into stuck events and walks the units out (all arrive); flow fields: none."""
    from rtsnav.systems.nav.crowd import Crowd
    from rtsnav.systems.nav.flow.potential import PotentialField

    p = np.ones((40, 50), dtype=bool)
    p[10:30, 30] = False
    p[10, 20:31] = False
    p[29, 20:31] = False
    grid = Grid(p)
    minima = PotentialField.build(grid, (45, 20)).local_minima()
    assert len(minima) >= 1 and ((minima[:, 0] > 20) & (minima[:, 0] < 30)).any()
    for planner, expect_stuck in (("potential", True), ("flowfield", False)):
        crowd = Crowd(grid)
        ids = crowd.add_agents([(5.5 + i % 5, 15.5 + i // 5) for i in range(30)], group=1)
        crowd.move(ids, (45.5, 20.5), planner=planner)
        reached, stuck = set(), 0
        for _ in range(2400):
            ev = crowd.update(1 / 30)
            reached |= set(ev.reached.tolist())
            stuck += len(ev.stuck)
            if len(reached) == 30:
                break
        assert len(reached) == 30 and (stuck > 0) == expect_stuck


def test_incremental_tile_updates_equal_a_fresh_build_after_random_edits():
    """Gates closed and opened, walls dropped across sector borders: after each ``update`` every
    sector field of an order equals the one a freshly built ``SectorGraph`` gives."""
    grid = _map("arena")
    tiles = SectorGraph(grid, 16)
    rng = np.random.default_rng(5)
    open_cells = np.argwhere(grid.passable)[:, ::-1]
    goal = tuple(int(v) for v in open_cells[len(open_cells) // 2])
    for k in range(6):
        x, y = (int(v) for v in rng.integers(0, (grid.width - 6, grid.height - 6)))
        block = np.array([[x + i, y + j] for i in range(1 + 4 * (k % 2)) for j in range(4 - 3 * (k % 2))])
        block = block[(block[:, 0] != goal[0]) | (block[:, 1] != goal[1])]
        grid.set_passable(block, k % 3 == 2)                      # mostly closing, sometimes opening
        tiles.update(block)
        fresh = SectorGraph(grid, 16)
        assert tiles.portal_count == fresh.portal_count
        mine, theirs = tiles.order(goal), fresh.order(goal)
        for sid in range(len(tiles.sectors)):
            a, b = mine.field(sid)[0], theirs.field(sid)[0]
            assert np.array_equal(np.isinf(a), np.isinf(b)), (k, sid)
            assert np.allclose(a[np.isfinite(a)], b[np.isfinite(b)]), (k, sid)


def test_eikonal_field_stops_at_its_limit_and_keeps_the_times_inside_it():
    grid = _map("arena")
    goal = _goal(grid, 3)
    from rtsnav.systems.nav.flow.field import build_field

    whole = build_field(grid, np.array([goal]), eikonal=True).integration
    near = build_field(grid, np.array([goal]), eikonal=True, limit=20.0).integration
    inside = np.isfinite(whole) & (whole <= 19.0)
    assert np.allclose(near[inside], whole[inside], rtol=1e-3)
    assert not np.isfinite(near[np.isfinite(whole) & (whole > 21.0)]).any()


def test_sector_tiles_built_in_steps_equal_the_ones_built_at_once():
    grid = _map("arena")
    whole = SectorGraph(grid, 16)
    stepped = SectorGraph.start(grid, 16)
    steps = 0
    while not stepped.ready:
        stepped.build_some(2)
        steps += 1
    assert steps > 10
    assert np.array_equal(stepped.adj_start, whole.adj_start) and np.array_equal(stepped.adj_target, whole.adj_target)
    assert np.allclose(stepped.adj_cost, whole.adj_cost)


def test_sector_tiles_sample_within_a_build_budget_and_give_the_coarse_route_elsewhere(arena):
    """``sample_within`` builds at most the sectors it is allowed (those under the most points
    first); points there read the field as ``sample`` does; points in sectors still unbuilt get
    the coarse route: a unit step toward the far side of a portal of their sector that leads to
    the goal (its side's portal cost finite), or nothing where none does."""
    tiles = SectorGraph(arena, 8)
    order = tiles.order((24, 24))
    rng = np.random.default_rng(2)
    open_cells = np.argwhere(arena.passable)[:, ::-1]
    points = open_cells[rng.integers(0, len(open_cells), 300)] + rng.uniform(0.1, 0.9, (300, 2))
    sectors = tiles.sector_of(np.floor(points).astype(np.int64))
    busiest = np.unique(sectors, return_counts=True)
    wanted = busiest[0][np.argsort(-busiest[1], kind="stable")][:3]
    directions, builds, coarse = order.sample_within(points, 3)
    assert builds == 3 and set(np.flatnonzero(order.sector_built)) == set(wanted.tolist())
    assert np.array_equal(coarse, ~np.isin(sectors, wanted))
    assert np.allclose(directions[~coarse], order.sample(points[~coarse]))
    length = np.hypot(*directions[coarse].T)
    assert np.allclose(length[length > 0], 1.0, atol=1e-5) and (length > 0).mean() > 0.9
    for k in np.flatnonzero(coarse)[:50].tolist():
        exit_far = order.exits[sectors[k]]
        if exit_far < 0:
            continue
        assert np.isfinite(order.node_cost[exit_far ^ 1])
        assert tiles.node_sector[exit_far ^ 1] == sectors[k]        # a portal of the point's own sector
        aim = tiles.node_cell[exit_far] + 0.5 - points[k]
        assert np.allclose(directions[k], aim / np.hypot(*aim), atol=1e-5)


def test_a_bounded_field_runs_directions_on_its_reached_cells_only_with_the_same_result(arena, monkeypatch):
    """A field that settles few cells (a bounded one here, a corridor in a leader's plan) runs
    the direction pass on the cells it reached: the same directions and moves as the full pass."""
    from rtsnav.systems.nav.flow import field as field_module
    from rtsnav.systems.nav.flow.field import build_field

    seeds = np.array([[10, 10], [30, 20]])
    sparse = build_field(arena, seeds, limit=6.0)
    assert np.isfinite(sparse.integration).mean() < 1 / field_module.SPARSE_BELOW     # took the sparse path
    monkeypatch.setattr(field_module, "SPARSE_BELOW", 0)                                # the full pass
    full = build_field(arena, seeds, limit=6.0)
    assert np.array_equal(sparse.direction, full.direction)
    assert np.array_equal(sparse.best_move, full.best_move) and (sparse.best_move >= 0).sum() > 50


def test_a_big_whole_map_field_takes_its_moves_from_the_two_thread_dijkstra():
    """From 2²⁰ cells ``FlowField.build`` runs the two-thread Dijkstra, which keeps each cell's
    descent move, and the parallel direction pass only makes the directions: every move is
    legal and lands exactly one step's cost lower, goals and walls have none, and the directions
    equal what the searching pass makes of the same integration wherever the two moves agree."""
    from rtsnav.systems.nav.flow.direction import flow_directions
    from rtsnav.systems.nav.flow.integration import PARALLEL_FIELD_CELLS

    rng = np.random.default_rng(3)
    grid = Grid(rng.random((1030, 1030)) > 0.2)
    assert (grid.height + 2) * (grid.width + 2) >= PARALLEL_FIELD_CELLS
    goal = tuple(int(v) for v in np.argwhere(grid.passable)[len(np.argwhere(grid.passable)) // 2][::-1])
    field = FlowField.build(grid, [goal], los_radius=0)
    best, dist = field.best_move, field.integration
    ys, xs = np.nonzero(best >= 0)
    assert len(xs) > 500_000 and best[goal[1], goal[0]] == -1 and (best[~grid.passable] == -1).all()
    k = best[ys, xs].astype(np.int64)
    masks = grid.move_masks().reshape(grid.height + 2, grid.width + 2)[1:-1, 1:-1]
    assert ((masks[ys, xs] >> k) & 1).all()
    step = np.where(k >= 4, math.sqrt(2.0), 1.0)
    assert np.array_equal(dist[ys, xs], (dist[ys + MOVE_DY[k], xs + MOVE_DX[k]].astype(np.float64) + step)
                          .astype(np.float32))
    assert (~np.isfinite(dist[best == -1]) | (dist[best == -1] == 0)).all()

    (_, cost), wp = grid.padded()
    padded = np.full((grid.height + 2) * (grid.width + 2), np.inf, dtype=np.float32)
    padded.reshape(grid.height + 2, wp)[1:-1, 1:-1] = dist
    searched = np.empty(padded.size, dtype=np.int8)
    direction = np.empty((padded.size, 2), dtype=np.float32)
    flow_directions(grid.move_masks(), cost, wp, True, padded, True, searched, direction)
    searched = searched.reshape(grid.height + 2, wp)[1:-1, 1:-1]
    direction = direction.reshape(grid.height + 2, wp, 2)[1:-1, 1:-1]
    same = searched == best
    assert same.mean() > 0.5 and np.array_equal(field.direction[same], direction[same])
