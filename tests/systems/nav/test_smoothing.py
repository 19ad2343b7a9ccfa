"""Path smoothing keeps endpoints, never enters a wall or cuts a corner, never gets longer."""

import numpy as np
import pytest

from rtsnav.levels import load_movingai_map
from rtsnav.systems.nav import Grid, NavError, find_path, path_length, smooth_path
from rtsnav.systems.nav.grid import line_max_cost
from tests.conftest import ascii_grid

MODES = ["fast", "precise"]


def _check_smoothed(grid, raw, smooth):
    assert smooth.dtype == np.int32 and smooth.shape[1] == 2
    assert (smooth[0] == raw[0]).all() and (smooth[-1] == raw[-1]).all()
    assert len(smooth) <= len(raw)
    for a, b in zip(smooth[:-1], smooth[1:]):
        assert grid.line_of_sight(tuple(a), tuple(b)), (a, b)
    assert path_length(smooth) <= path_length(raw) + 1e-9
    # kept points are a subsequence of the raw path
    raw_list = [tuple(c) for c in raw]
    idx = [raw_list.index(tuple(c)) for c in smooth]
    assert idx == sorted(idx)


@pytest.mark.parametrize("mode", MODES)
def test_open_field_smooths_to_a_straight_segment(mode):
    g = Grid(np.ones((10, 20), dtype=bool))
    raw = find_path(g, (0, 0), (19, 6)).cells
    assert smooth_path(g, raw, mode).tolist() == [[0, 0], [19, 6]]


@pytest.mark.parametrize("mode", MODES)
def test_smoothing_keeps_the_corner_point_around_a_wall(mode):
    g = ascii_grid("""
.........
.........
#######..
.........
""")
    raw = find_path(g, (0, 0), (0, 3)).cells
    sm = smooth_path(g, raw, mode)
    _check_smoothed(g, raw, sm)
    assert len(sm) >= 3          # cannot see through the wall


@pytest.mark.parametrize("mode", MODES)
def test_smoothing_does_not_cut_diagonal_corners(mode):
    g = ascii_grid("""
...#
...#
.#..
....
""")
    raw = find_path(g, (0, 0), (3, 3)).cells
    sm = smooth_path(g, raw, mode)
    _check_smoothed(g, raw, sm)


@pytest.mark.parametrize("mode", MODES)
def test_smoothing_on_real_map_paths(mode, arena):
    rng = np.random.default_rng(4)
    cells = np.argwhere(arena.passable)[:, ::-1]
    for _ in range(150):
        s, t = (tuple(int(v) for v in cells[i]) for i in rng.integers(0, len(cells), 2))
        r = find_path(arena, s, t)
        if r.found:
            _check_smoothed(arena, r.cells, smooth_path(arena, r.cells, mode))


def test_precise_removes_at_least_as_many_points_as_fast_on_average():
    g = load_movingai_map("den520d.map")
    rng = np.random.default_rng(8)
    cells = np.argwhere(g.passable)[:, ::-1]
    fast = precise = 0
    for _ in range(40):
        s, t = (tuple(int(v) for v in cells[i]) for i in rng.integers(0, len(cells), 2))
        r = find_path(g, s, t)
        if r.found:
            fast += len(smooth_path(g, r.cells, "fast"))
            precise += len(smooth_path(g, r.cells, "precise"))
    assert precise <= fast


@pytest.mark.parametrize("mode", MODES)
def test_terrain_shortcut_is_not_taken_through_costlier_cells(mode):
    # the road (cost 1) around a thick mud patch (cost 9) is cheaper than crossing it
    g = ascii_grid("""
.........
.99999999
.99999999
.99999999
.........
""")
    raw = find_path(g, (8, 0), (8, 4)).cells
    assert (g.cost[raw[:, 1], raw[:, 0]] == 1).all()          # A* takes the road
    sm = smooth_path(g, raw, mode)
    _check_smoothed(g, raw, sm)
    (passable, cost), wp = g.padded()
    raw_list = [tuple(c) for c in raw]
    for a, b in zip(sm[:-1], sm[1:]):
        if raw_list.index(tuple(b)) - raw_list.index(tuple(a)) >= 2:      # a shortcut
            assert line_max_cost(passable, cost, wp, a[0], a[1], b[0], b[1]) == 1.0


@pytest.mark.parametrize("mode", MODES)
def test_smoothed_segments_never_cost_more_than_the_stretch_they_replace(mode):
    rng = np.random.default_rng(21)
    for _ in range(40):
        g = Grid(rng.random((20, 20)) > 0.2, rng.choice([1.0, 1.0, 1.0, 4.0], size=(20, 20)))
        cells = np.argwhere(g.passable)[:, ::-1]
        s, t = (tuple(int(v) for v in cells[i]) for i in rng.integers(0, len(cells), 2))
        r = find_path(g, s, t)
        if not r.found:
            continue
        sm = smooth_path(g, r.cells, mode)
        _check_smoothed(g, r.cells, sm)
        raw = [tuple(c) for c in r.cells]
        (passable, cost), wp = g.padded()
        for a, b in zip(sm[:-1], sm[1:]):
            i, j = raw.index(tuple(a)), raw.index(tuple(b))
            if j - i < 2:
                continue               # an original step: its cost is the grid step's cost
            stretch = r.cells[i:j + 1]
            cheapest = g.cost[stretch[:, 1], stretch[:, 0]].min()
            assert line_max_cost(passable, cost, wp, a[0], a[1], b[0], b[1]) <= cheapest


def test_bad_smoothing_input_raises():
    g = Grid(np.ones((3, 3), dtype=bool))
    with pytest.raises(NavError, match="mode"):
        smooth_path(g, np.zeros((2, 2), dtype=np.int32), "perfect")
    with pytest.raises(NavError, match="shape"):
        smooth_path(g, np.zeros((2, 3), dtype=np.int32))
    with pytest.raises(NavError, match="outside"):
        smooth_path(g, np.array([[0, 0], [5, 5]]))
