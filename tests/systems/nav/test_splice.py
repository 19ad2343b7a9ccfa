"""Path splicing: clear paths stay, a blocked stretch is spliced, long splices re-plan, and the
survey's poor-splice example: the splice keeps the old route's shape, costlier than a fresh path."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.systems.nav import Grid, find_path, path_cost, validate_path
from rtsnav.systems.nav.search.splice import check_ahead, splice_path
from tests.conftest import ascii_grid


def _straight(x0, x1, y):
    return np.array([(x, y) for x in range(x0, x1 + 1)], dtype=np.int64)


def test_a_clear_path_is_kept():
    grid = Grid(np.ones((20, 30), dtype=bool))
    path = _straight(2, 27, 10)
    r = splice_path(grid, path, 0, k=8, m=32)
    assert r.how == "clear" and np.array_equal(r.cells, path) and check_ahead(grid, path, 0, 8) == -1


def test_a_gate_closed_ahead_is_spliced_around():
    grid = Grid(np.ones((20, 30), dtype=bool))
    path = _straight(2, 27, 10)
    grid.set_passable(np.c_[np.full(3, 8), np.arange(9, 12)], False)          # a 3-cell gate across the path
    assert check_ahead(grid, path, 0, 4) == -1 and check_ahead(grid, path, 0, 8) == 6
    r = splice_path(grid, path, 0, k=8, m=32)
    assert r.how == "spliced"
    validate_path(grid, r.cells, (2, 10), (27, 10))
    fresh = find_path(grid, (2, 10), (27, 10)).cost
    assert fresh <= path_cost(grid, r.cells) <= 1.05 * fresh                  # near the best, not the best
    assert r.expanded < find_path(grid, (2, 10), (27, 10)).expanded


def test_a_splice_longer_than_m_re_plans():
    grid = Grid(np.ones((40, 30), dtype=bool))
    path = _straight(2, 27, 20)
    grid.set_passable(np.c_[np.full(36, 12), np.arange(2, 38)], False)        # a long wall: a long detour
    r = splice_path(grid, path, 0, k=12, m=8)
    assert r.how == "replanned"
    validate_path(grid, r.cells, (2, 20), (27, 20))


def test_the_surveys_poor_splice_keeps_the_old_shape():
    """1 -> 2 -> 3 -> 4 with 2 -> 3 cut becomes 1 -> 2 -> 5 -> 3 -> 4: the detour returns to the old
    route behind the wall instead of heading for the goal; a fresh search is shorter."""
    grid = Grid(np.ones((30, 30), dtype=bool))
    path = _straight(2, 27, 15)
    grid.set_passable(np.c_[np.full(21, 14), np.arange(5, 26)], False)        # a tall wall across it
    r = splice_path(grid, path, 0, k=16, m=64)
    assert r.how == "spliced"
    validate_path(grid, r.cells, (2, 15), (27, 15))
    assert (r.cells == (15, 15)).all(axis=1).any()                            # back on the old route at 3
    spliced, fresh = path_cost(grid, r.cells), find_path(grid, (2, 15), (27, 15)).cost
    assert spliced > fresh + 1.0


def test_bstar_crawls_to_the_goal_with_a_legal_path_and_says_what_it_is():
    grid = Grid(np.ones((60, 80), dtype=bool))
    grid.set_passable(np.c_[np.full(30, 40), np.arange(15, 45)], False)       # a bay facing the walker
    grid.set_passable(np.c_[np.arange(25, 41), np.full(16, 15)], False)
    grid.set_passable(np.c_[np.arange(25, 41), np.full(16, 44)], False)
    r = find_path(grid, (10, 30), (70, 30), "bstar")
    assert r.found and "not a shortest" in r.reason
    validate_path(grid, r.cells, (10, 30), (70, 30))
    assert r.cost >= find_path(grid, (10, 30), (70, 30)).cost
    open_map = Grid(np.ones((50, 50), dtype=bool))
    straight = find_path(open_map, (2, 2), (40, 30), "bstar")
    assert straight.cost == pytest.approx(find_path(open_map, (2, 2), (40, 30)).cost)   # open ground: straight
    walled = Grid(np.ones((20, 20), dtype=bool))
    walled.set_passable(np.c_[np.full(20, 10), np.arange(20)], False)
    assert not find_path(walled, (2, 2), (15, 15), "bstar").found                    # another region


# A room open at its lower left, between the crawler and the goal (found by a random search for a
# map where the crawler goes round in circles): the concave trap of the survey.
TRAP = ascii_grid("\n".join(["." * 50] * 15) + """
.....##############...............................
..................#...............................
......#...........#...............................
......#...........#...............................
......#...........#...............................
......#...........#...............................
......#...........#...............................
......#...........#...............................
......#...........#...............................
......#...........#...............................
......#...........#...............................
......#...........#...............................
......#...........#...............................
......#...........#...............................
......#...........#...............................
......#...........#...............................
......#...........#...............................
......#...........#...............................
......#...........#...............................
......#...........#...............................
..............###############.....................
..................................................
..................................................
..................................................
..................................................
""")


def test_bstar_goes_round_in_circles_in_a_concave_trap_unless_it_may_backtrack():
    assert TRAP.connected((2, 20), (47, 20))
    stuck = find_path(TRAP, (2, 20), (47, 20), "bstar")
    assert not stuck.found and "backtrack" in stuck.reason
    out = find_path(TRAP, (2, 20), (47, 20), "bstar", backtrack=300)
    assert out.found
    validate_path(TRAP, out.cells, (2, 20), (47, 20))
    assert out.cost >= find_path(TRAP, (2, 20), (47, 20)).cost
