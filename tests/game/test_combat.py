"""Combat with stakes: units die, their entities and agents go, the HUD counts them, bars show."""

from __future__ import annotations

import esper
import numpy as np
import pytest

from rtsnav.components import NavigationAgent
from rtsnav.game.app import RtsApp
from rtsnav.game.army import UnitMode
from rtsnav.game.window_state import HealthBars


def attack_each_other(army) -> list[int]:
    """Each team attack-moves to the other's home; returns the teams."""
    teams = sorted(army.deaths)
    for t in teams:
        enemy = [o for o in teams if o != t][0]
        army.command(np.flatnonzero(army.team == t), army.home[np.flatnonzero(army.team == enemy)[0]],
                     UnitMode.ATTACK_MOVE)
    return teams


@pytest.fixture
def app():
    a = RtsApp("river", 120, headless=True, size=(640, 400))
    yield a
    a.destroy()


def test_a_unit_at_zero_health_dies_its_entity_and_agent_go_and_commands_skip_it(app):
    army = app.army
    victim = int(np.flatnonzero(army.team == app.player_team)[0])
    entity = app.entities[victim]
    app.select_team(app.player_team)
    army.health[victim] = 0.0
    app.step(4)                                           # the AI thinks, buries, the plugin unregisters
    assert not army.alive[victim] and not esper.entity_exists(entity)
    assert army.deaths[app.player_team] == 1 and app.navigation.agent_count == 119
    assert victim not in app.selected_units().tolist()
    assert army.command(np.arange(len(app.entities)), army.home[victim], UnitMode.MOVE) == 119
    army.stop([victim])                                   # no error for the dead
    assert victim not in app.select_team(app.player_team)
    app.sync_scene()
    assert f"deaths: team {app.player_team} 1" in app.hud.text.getText()
    assert app.state_summary()["deaths"][str(app.player_team)] == 1


@pytest.mark.slow                     # a long scene: make test-slow
def test_attack_move_armies_close_in_and_fight_and_the_crowd_shrinks_with_the_dead(app):
    army = app.army
    teams = attack_each_other(army)
    app.step(30 * 45)
    dead = sum(army.deaths.values())
    assert dead >= 2 and int((~army.alive).sum()) == dead
    assert app.navigation.agent_count == int(army.alive.sum())
    assert sum(1 for _ in esper.get_component(NavigationAgent)) == int(army.alive.sum())


def test_health_bars_show_over_hurt_living_units_only():
    pytest.importorskip("panda3d")
    bars = HealthBars(3)
    pos = np.zeros((3, 3))
    pos[:, 0] = [0.0, 5.0, 10.0]
    bars.update(pos, np.array([1.0, 0.5, 0.2]), np.array([True, True, False]))
    assert bars.shown.tolist() == [False, True, False]


def test_shots_fly_from_fighting_units_to_living_targets_only():
    pytest.importorskip("panda3d")
    from panda3d.core import GeomVertexReader

    from rtsnav.game.window_state import Shots

    shots = Shots(np.array([1, 1, 2, 2]))
    pos = np.zeros((4, 3))
    pos[:, 0] = [0.0, 1.0, 3.0, 4.0]
    fighting = np.array([True, True, True, False])
    enemy = np.array([2, 3, 0, -1])
    alive = np.array([True, True, True, False])        # unit 3 is dead: unit 1 does not shoot at it
    shots.update(pos, fighting, enemy, alive, seconds=0.3)
    assert shots.shown.tolist() == [True, False, True, False]
    reader = GeomVertexReader(shots.vdata, "vertex")
    quads = np.array([list(reader.getData3()) for _ in range(16)]).reshape(4, 4, 3)
    spans = np.ptp(quads[..., 0], axis=1)
    assert spans[0] > 0.1 and spans[2] > 0.1            # a streak between the two
    assert spans[1] == 0 and spans[3] == 0
    assert ((quads[0, :, 0] >= 0) & (quads[0, :, 0] <= 3)).all()      # on the line from unit 0 to unit 2


@pytest.mark.slow
def test_both_teams_attack_moving_on_the_river_lose_a_fifth_of_a_side_within_90_s():
    """The issue's acceptance: 500 units, both teams attack-move into each other."""
    app = RtsApp("river", 500, headless=True, size=(640, 400))
    try:
        army = app.army
        teams = attack_each_other(army)
        app.step(30 * 90)
        share = max(army.deaths[t] / int((army.team == t).sum()) for t in teams)
        assert share >= 0.20, army.deaths
        assert app.navigation.agent_count == int(army.alive.sum()) == 500 - sum(army.deaths.values())
    finally:
        app.destroy()


@pytest.mark.slow
def test_every_unit_type_crosses_the_river_by_the_bridges_and_arrives():
    """Infantry, tanks (wide: the clearance classes) and scouts ordered across the river as one
    group: every kind gets there, the tanks too."""
    from rtsnav.components import NavState
    from rtsnav.game.unit_types import UNIT_TYPES

    app = RtsApp("river", 120, headless=True, size=(640, 400), combat=False)
    try:
        army = app.army
        mine = np.flatnonzero(army.team == app.player_team)
        other = np.flatnonzero(army.team != app.player_team)[0]
        assert len(set(army.kind[mine].tolist())) == len(UNIT_TYPES)
        army.command(mine, army.home[other], UnitMode.MOVE)
        start = app.navigation.crowd.positions[army.ids[mine], 0].copy()
        app.step(30 * 90)                                       # the slow tanks queue at the bridges
        states = app.navigation.crowd.states[army.ids[mine]]
        end = app.navigation.crowd.positions[army.ids[mine], 0]
        for k, kind in enumerate(UNIT_TYPES):
            these = army.kind[mine] == k
            arrived = (states[these] == NavState.FINISHED).mean()
            assert arrived >= 0.9, f"{kind.name}: {arrived:.0%} arrived"
        crossed = np.sign(end - 47.5) != np.sign(start - 47.5)
        assert crossed.mean() >= 0.9                             # over the river (it runs down x = 45..50)
    finally:
        app.destroy()


def test_an_idle_unit_pushed_off_its_post_walks_back(app):
    from rtsnav.components import Position

    army = app.army
    u = int(np.flatnonzero(army.team != app.player_team)[5])
    post = army.post[u].copy()
    pos = esper.component_for_entity(app.entities[u], Position)
    pos.x, pos.y = post[0] - 4.0, post[1]                    # shoved 4 units west (open ground there)
    app.step(2)
    assert np.hypot(*(app.positions()[u, :2] - post)) > 3.0
    app.step(30 * 6)
    assert np.hypot(*(app.positions()[u, :2] - post)) < 1.5
    assert army.mode[u] == UnitMode.IDLE and not army.obeying[u]


@pytest.mark.slow
def test_the_headless_demo_reports_a_fight_with_deaths(tmp_path, capsys):
    """The command line ``make demo`` runs, with units dying on the way (its report read every
    entity's agent and crashed on the dead)."""
    import json

    from rtsnav.game.__main__ import main

    orders = tmp_path / "attack.toml"
    orders.write_text('[[order]]\ntick = 1\nselect = 1\ntarget = [80.5, 31.5]\nmode = "attack"\n\n'
                      '[[order]]\ntick = 1\nselect = 2\ntarget = [12.5, 31.5]\nmode = "attack"\n')
    summary = tmp_path / "summary.json"
    assert main(["--headless", "--units", "80", "--frames", "700", "--size", "320x200", "--orders", str(orders),
                 "--summary-json", str(summary)]) == 0
    s = json.loads(summary.read_text())
    dead = sum(team["deaths"] for team in s["teams"].values())
    assert dead > 0 and s["units"] == 80 - dead
    assert 0 <= s["crowd_agents"] - s["units"] <= 3          # the last tick's dead leave at the next tick
    assert "deaths team 1" in capsys.readouterr().out


def test_units_fire_only_along_a_clear_line(app):
    """Two enemies within attack range with a blocked cell between them do not shoot (they close
    in instead); the same two in the open do."""
    from rtsnav.components import Position

    army, grid = app.army, app.level.grid
    passable = grid.passable
    ys, xs = np.nonzero(~passable[2:-2, 3:-3])
    walled = next((x + 3, y + 2) for y, x in zip(ys.tolist(), xs.tolist())
                  if passable[y + 2, x + 3 - 2] and passable[y + 2, x + 3 + 2] and not passable[y + 2, x + 3])
    shooter = int(np.flatnonzero(army.team == 1)[0])
    target = int(np.flatnonzero(army.team == 2)[0])

    def place(cell_a, cell_b):
        for unit, (cx, cy) in ((shooter, cell_a), (target, cell_b)):
            p = esper.component_for_entity(app.entities[unit], Position)
            p.x, p.y = grid.cell_to_world(cx, cy)[:2]
        army.hold([shooter, target])                      # they stand where they are put
        app.step(8)

    x, y = walled
    place((x - 2, y), (x + 2, y))
    assert army.enemy[shooter] == target and army.enemy_distance[shooter] <= 4.0
    assert not army.fire_clear[shooter] and not army.fighting[shooter]
    open_cells = np.argwhere(passable)
    row = next(r for r, c in open_cells.tolist() if passable[r, c:c + 5].all() and c + 5 < passable.shape[1])
    col = next(c for c in range(passable.shape[1] - 5) if passable[row, c:c + 5].all())
    place((col, row), (col + 4, row))
    assert army.enemy[shooter] == target and army.fire_clear[shooter]
