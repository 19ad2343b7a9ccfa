import math
from fractions import Fraction

import numpy as np
import pytest

from rtsnav.systems.nav import Grid, NavError
from tests.conftest import ascii_grid


def test_grid_stores_passable_cost_and_placement():
    g = Grid(np.ones((3, 4), dtype=bool), cell_size=2.0, origin=(10.0, -4.0))
    assert g.shape == (3, 4) and g.width == 4 and g.height == 3
    assert g.cost.dtype == np.float32 and (g.cost == 1).all()
    assert g.is_uniform


@pytest.mark.parametrize("bad, message", [
    (np.ones(5, dtype=bool), "2D"),
    (np.ones((2, 2, 2), dtype=bool), "2D"),
    (np.ones((0, 3), dtype=bool), "at least one cell"),
    (np.array([["a", "b"]]), "dtype"),
])
def test_bad_passable_array_raises_nav_error(bad, message):
    with pytest.raises(NavError, match=message):
        Grid(bad)


def test_nan_cost_raises_and_names_the_cell():
    cost = np.ones((3, 3))
    cost[1, 2] = np.nan
    with pytest.raises(NavError, match=r"NaN at cell \(x=2, y=1\)"):
        Grid(np.ones((3, 3), dtype=bool), cost)


def test_negative_or_below_one_cost_raises():
    cost = np.ones((3, 3))
    cost[0, 1] = -2.0
    with pytest.raises(NavError, match=r"below 1"):
        Grid(np.ones((3, 3), dtype=bool), cost)


def test_cost_shape_mismatch_raises():
    with pytest.raises(NavError, match=r"cost shape \(4, 3\) != passable shape \(3, 4\)"):
        Grid(np.ones((3, 4), dtype=bool), np.ones((4, 3)))


def test_heights_must_match_and_be_finite():
    with pytest.raises(NavError, match="heights shape"):
        Grid(np.ones((2, 2), dtype=bool), heights=np.zeros((3, 3)))
    with pytest.raises(NavError, match="not finite"):
        Grid(np.ones((2, 2), dtype=bool), heights=np.array([[0, 1], [np.inf, 0]]))


@pytest.mark.parametrize("cell_size", [0.0, -1.0, float("nan")])
def test_bad_cell_size_raises(cell_size):
    with pytest.raises(NavError, match="cell_size"):
        Grid(np.ones((2, 2), dtype=bool), cell_size=cell_size)


def test_infinite_cost_blocks_the_cell():
    cost = np.ones((2, 3))
    cost[0, 1] = np.inf
    g = Grid(np.ones((2, 3), dtype=bool), cost)
    assert not g.is_passable(1, 0) and g.is_passable(0, 0)


def test_world_cell_round_trip_uses_cell_centres():
    heights = np.arange(12, dtype=np.float32).reshape(3, 4)
    g = Grid(np.ones((3, 4), dtype=bool), heights=heights, cell_size=0.5, origin=(2.0, 3.0))
    assert g.cell_to_world(1, 2) == (2.75, 4.25, 9.0)
    assert g.world_to_cell(2.75, 4.25) == (1, 2)
    assert g.world_to_cell(2.0, 3.0) == (0, 0)
    assert g.world_to_cell(1.99, 3.0) == (-1, 0)           # off-grid is reported, not clamped
    assert not g.in_bounds(*g.world_to_cell(1.99, 3.0))
    cells = np.array([[0, 0], [3, 2], [1, 1]])
    world = g.cells_to_world(cells)
    assert world.shape == (3, 3)
    np.testing.assert_array_equal(g.world_to_cells(world), cells)
    np.testing.assert_array_equal(world[:, 2], heights[cells[:, 1], cells[:, 0]])


def test_in_bounds_and_is_passable():
    g = ascii_grid("""
..#
...
""")
    assert g.in_bounds(2, 1) and not g.in_bounds(3, 0) and not g.in_bounds(0, -1)
    assert not g.is_passable(2, 0) and g.is_passable(2, 1) and not g.is_passable(5, 5)


def test_check_cell_rejects_malformed_and_out_of_bounds():
    g = Grid(np.ones((3, 3), dtype=bool))
    with pytest.raises(NavError, match="outside the grid"):
        g.check_cell((3, 0))
    for bad in [(1,), (0.5, 1), "ab", None, (float("nan"), 0)]:
        with pytest.raises(NavError):
            g.check_cell(bad)


def test_line_of_sight_agrees_with_single_step_move_rule():
    rng = np.random.default_rng(3)
    for _ in range(20):
        g = Grid(rng.random((9, 9)) > 0.35)
        for y in range(9):
            for x in range(9):
                for dx in (-1, 0, 1):
                    for dy in (-1, 0, 1):
                        nx, ny = x + dx, y + dy
                        if (dx, dy) == (0, 0) or not g.in_bounds(nx, ny):
                            continue
                        legal = g.is_passable(x, y) and g.is_passable(nx, ny) and (
                            dx == 0 or dy == 0 or (g.is_passable(nx, y) and g.is_passable(x, ny)))
                        assert g.line_of_sight((x, y), (nx, ny)) == legal


def _segment_touches_cell(p0, p1, cx, cy):
    """Exact (rational) Liang-Barsky test: does the closed segment meet the closed unit square?"""
    t0, t1 = Fraction(0), Fraction(1)
    for p, d, lo, hi in ((p0[0], p1[0] - p0[0], cx, cx + 1), (p0[1], p1[1] - p0[1], cy, cy + 1)):
        if d == 0:
            if p < lo or p > hi:
                return False
            continue
        a, b = (lo - p) / d, (hi - p) / d
        if a > b:
            a, b = b, a
        t0, t1 = max(t0, a), min(t1, b)
        if t0 > t1:
            return False
    return True


def _reference_los(g, a, b):
    """Every cell the centre-to-centre segment touches (corners included) must be passable."""
    p0 = (Fraction(2 * a[0] + 1, 2), Fraction(2 * a[1] + 1, 2))
    p1 = (Fraction(2 * b[0] + 1, 2), Fraction(2 * b[1] + 1, 2))
    for cy in range(min(a[1], b[1]) - 1, max(a[1], b[1]) + 2):
        for cx in range(min(a[0], b[0]) - 1, max(a[0], b[0]) + 2):
            if _segment_touches_cell(p0, p1, cx, cy) and not g.is_passable(cx, cy):
                return False
    return True


def test_line_of_sight_matches_exact_geometry_on_random_grids():
    rng = np.random.default_rng(11)
    for _ in range(30):
        g = Grid(rng.random((12, 12)) > 0.25)
        for _ in range(25):
            a = tuple(int(v) for v in rng.integers(0, 12, 2))
            b = tuple(int(v) for v in rng.integers(0, 12, 2))
            assert g.line_of_sight(a, b) == _reference_los(g, a, b), (a, b)
            assert g.line_of_sight(a, b) == g.line_of_sight(b, a)


def test_components_label_regions_and_answer_connectivity():
    g = ascii_grid("""
..#..
..#..
#####
.....
""")
    lab = g.components()
    assert lab[2, 2] == -1 and lab[0, 2] == -1
    assert g.connected((0, 0), (1, 1)) and not g.connected((0, 0), (3, 0))
    assert not g.connected((0, 0), (0, 3)) and g.connected((0, 3), (4, 3))
    assert len({lab[0, 0], lab[0, 3], lab[3, 0]}) == 3


def test_diagonal_only_contact_does_not_connect_regions():
    g = ascii_grid("""
.#
#.
""")
    assert not g.connected((0, 0), (1, 1))


def test_edits_bump_version_and_refresh_caches():
    g = Grid(np.ones((3, 3), dtype=bool))
    v = g.version
    assert g.connected((0, 0), (2, 2))
    g.set_passable([[1, 0], [1, 1], [1, 2]], False)
    assert g.version > v and not g.connected((0, 0), (2, 2))
    g.set_cost([[0, 0]], 3.0)
    assert not g.is_uniform
    with pytest.raises(NavError):
        g.set_cost([[0, 0]], 0.5)


def _reference_world_clear(g, p0, p1):
    lo_x, hi_x = math.floor(min(p0[0], p1[0])) - 1, math.floor(max(p0[0], p1[0])) + 1
    lo_y, hi_y = math.floor(min(p0[1], p1[1])) - 1, math.floor(max(p0[1], p1[1])) + 1
    for cy in range(lo_y, hi_y + 1):
        for cx in range(lo_x, hi_x + 1):
            if _segment_touches_cell(p0, p1, cx, cy) and not g.is_passable(cx, cy):
                return False
    return True


def test_world_segments_clear_matches_exact_geometry():
    rng = np.random.default_rng(17)
    for _ in range(25):
        g = Grid(rng.random((10, 10)) > 0.2)
        # quarter-cell coordinates: exact in binary floating point and in Fraction
        a = rng.integers(0, 40, (40, 2)) / 4.0 + 0.125
        b = rng.integers(0, 40, (40, 2)) / 4.0 + 0.125
        got = g.segments_clear(a, b)
        for i in range(40):
            p0 = (Fraction(a[i, 0]), Fraction(a[i, 1]))
            p1 = (Fraction(b[i, 0]), Fraction(b[i, 1]))
            assert got[i] == _reference_world_clear(g, p0, p1), (a[i], b[i])


def test_world_segments_clear_respects_cell_size_and_origin():
    g = Grid(np.array([[1, 0, 1]], dtype=bool), cell_size=2.0, origin=(10.0, 0.0))
    assert not g.segments_clear(np.array([[11.0, 1.0]]), np.array([[15.0, 1.0]]))[0]
    assert g.segments_clear(np.array([[11.0, 1.0]]), np.array([[11.9, 1.5]]))[0]


def _same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """Two label arrays describe the same regions (label numbers may differ)."""
    if not np.array_equal(a < 0, b < 0):
        return False
    pairs = np.unique(np.stack([a[a >= 0], b[b >= 0]], axis=1), axis=0)
    return len(np.unique(pairs[:, 0])) == len(pairs) == len(np.unique(pairs[:, 1]))


def test_move_masks_and_regions_follow_edits_in_place_equal_to_a_rebuild():
    """Walls that split regions, gates that join them, cells opened alone in a wall: after each
    ``set_passable`` the kept move masks and labels equal freshly computed ones."""
    from rtsnav.levels import load_level

    grid = load_level("river").grid
    fresh = lambda: Grid(grid.passable.copy(), grid.cost.copy())          # noqa: E731
    rng = np.random.default_rng(2)
    grid.components()
    grid.move_masks()
    wall = np.array([[x, 30] for x in range(0, grid.width)])             # splits the map in two
    edits = [(wall, False), (wall[40:43], True), (wall[41:42], False), (wall, True)]
    for _ in range(12):
        x, y = (int(v) for v in rng.integers(0, (grid.width - 4, grid.height - 4)))
        edits.append((np.array([[x + i, y + j] for i in range(3) for j in range(3)]), bool(rng.integers(0, 2))))
    for cells, value in edits:
        labels_before = grid.components()
        grid.set_passable(cells, value)
        other = fresh()
        assert np.array_equal(grid.move_masks(), other.move_masks())
        assert _same_partition(grid.components(), other.components())
        assert grid.components() is labels_before or not value      # kept, unless a split was possible
