"""Every RTS control of the demo, driven from an orders file (the same calls the mouse and keys
make), with its outcome checked in the game state."""

from __future__ import annotations

import esper
import numpy as np
import pytest

from rtsnav.components import NavState, Selected
from rtsnav.game.__main__ import _apply
from rtsnav.game.app import RtsApp
from rtsnav.game.army import GROUP_PLANNER_CYCLE, UnitMode
from rtsnav.game.script import load_orders
from rtsnav.levels.errors import LevelError


@pytest.fixture
def app():
    a = RtsApp("river", 120, headless=True, size=(640, 400))
    yield a
    a.destroy()


def play(app, tmp_path, text: str, ticks: int = 0) -> None:
    """Load ``text`` as an orders file and run it like ``--orders`` does, then ``ticks`` more."""
    path = tmp_path / "orders.toml"
    path.write_text(text)
    script = load_orders(path, app.level)
    end = max([t for t, _, _ in script], default=0) + ticks
    while app.tick <= end:
        while script and script[0][0] <= app.tick:
            _, kind, ev = script.pop(0)
            _apply(app, kind, ev)
        app.step(1)


def team_units(app, team: int) -> np.ndarray:
    return np.flatnonzero(app.army.team == team)


def states(app, units) -> np.ndarray:
    return app.navigation.crowd.states[app.army.ids[units]]


def positions(app, units) -> np.ndarray:
    return app.navigation.crowd.agents.position[app.army.ids[units], :2]


@pytest.mark.slow
def test_shift_queued_waypoints_are_walked_in_order(app, tmp_path):
    play(app, tmp_path, """
[[order]]
tick = 1
select = 1
target = [30.5, 32.5]
[[order]]
tick = 2
target = [30.5, 12.5]
queue = true
""", ticks=1500)
    mine = team_units(app, 1)
    assert not app.army.queue                                    # both legs walked
    near_b = np.hypot(*(positions(app, mine) - [30.5, 12.5]).T) < 10
    assert near_b.mean() > 0.9 and (states(app, mine) == NavState.FINISHED).mean() > 0.9


def test_patrol_walks_to_the_point_and_back_as_one_group(app, tmp_path):
    play(app, tmp_path, """
[[order]]
tick = 1
select = 1
target = [30.5, 32.5]
mode = "patrol"
""", ticks=20)
    mine = team_units(app, 1)
    s = app.navigation.crowd.agents
    assert (app.army.mode[mine] == UnitMode.PATROL).all()
    assert np.allclose(s.target[app.army.ids[mine], :2], [30.5, 32.5])     # first leg: to B
    a = app.army.patrol[mine[0], 0].copy()
    turned_at = np.full(len(mine), -1)
    for tick in range(1500):
        app.step(1)
        turned = np.hypot(*(s.target[app.army.ids[mine], :2] - a).T) < 1e-6
        turned_at[turned & (turned_at < 0)] = tick
        if (turned_at >= 0).all():
            break
    assert (turned_at >= 0).all()                                           # they reached B, turned to A
    assert turned_at.max() == turned_at.min()                               # together: the patrol waits for all
    assert (app.army.mode[mine] == UnitMode.PATROL).all()


def test_stop_and_hold(app, tmp_path):
    play(app, tmp_path, """
[[order]]
tick = 1
select = 1
target = [30.5, 32.5]
[[command]]
tick = 30
do = "stop"
""", ticks=30)
    mine = team_units(app, 1)
    assert (app.army.mode[mine] == UnitMode.IDLE).all()
    assert (states(app, mine) == NavState.IDLE).all()
    v = app.navigation.crowd.agents.velocity[app.army.ids[mine], :2]
    assert np.hypot(*v.T).max() < 0.5
    play(app, tmp_path, f"""
[[command]]
tick = {app.tick}
do = "hold"
""", ticks=5)
    assert (app.army.mode[mine] == UnitMode.HOLD).all() and (states(app, mine) == NavState.IDLE).all()


def test_control_groups_and_select_all(app, tmp_path):
    play(app, tmp_path, """
[[order]]
tick = 1
box = [0, 0, 640, 200]
target = [20.5, 20.5]
[[command]]
tick = 2
do = "set_group"
group = 3
[[command]]
tick = 3
do = "select_all"
""")
    selected = {e for e, _ in esper.get_component(Selected)}
    assert selected == {app.entities[i] for i in team_units(app, 1)}        # all of mine, none of theirs
    group = set(app.army.control_group(3).tolist())
    assert 0 < len(group) < len(team_units(app, 1))
    play(app, tmp_path, f"""
[[command]]
tick = {app.tick}
do = "recall_group"
group = 3
""")
    assert {app.index_of[e] for e, _ in esper.get_component(Selected)} == group
    with pytest.raises(LevelError, match="group must be a control group 1..9"):
        play(app, tmp_path, '[[command]]\ntick = 1\ndo = "set_group"\ngroup = 12\n')


def test_formation_moves_keep_the_layout_at_one_speed(app, tmp_path):
    play(app, tmp_path, """
[[order]]
tick = 1
select = 1
target = [30.5, 40.5]
formation = true
""")
    mine = team_units(app, 1)
    s = app.navigation.crowd.agents
    speeds = s.agent_params[app.army.ids[mine], 0]
    assert np.ptp(speeds) == 0 and speeds[0] == app.army.base_speed[mine].min()
    targets = s.target[app.army.ids[mine], :2]
    start = positions(app, mine)
    # the layout is kept: west-most units get west-most slots (rank correlation)
    rx = np.argsort(np.argsort(start[:, 0]))
    tx = np.argsort(np.argsort(targets[:, 0]))
    assert np.corrcoef(rx, tx)[0, 1] > 0.8
    play(app, tmp_path, f'[[order]]\ntick = {app.tick}\nselect = 1\ntarget = [30.5, 40.5]\n')
    assert np.allclose(s.agent_params[app.army.ids[mine], 0], app.army.base_speed[mine])   # speeds back


@pytest.mark.slow
def test_planner_switch_changes_what_group_orders_use(app, tmp_path):
    from rtsnav.systems.nav.crowd.state import PLANNERS

    play(app, tmp_path, """
[[command]]
tick = 1
do = "planner"
[[order]]
tick = 2
select = 1
target = [30.5, 40.5]
""", ticks=2)
    assert app.army.planner == GROUP_PLANNER_CYCLE[1]
    mine = team_units(app, 1)
    method = app.navigation.crowd.agents.agent_method[app.army.ids[mine], 0]
    assert (method == PLANNERS.index(GROUP_PLANNER_CYCLE[1])).all()
    play(app, tmp_path, f'[[command]]\ntick = {app.tick}\ndo = "planner"\nplanner = "navmesh"\n'
                        f'[[order]]\ntick = {app.tick + 1}\nselect = 1\ntarget = [20.5, 40.5]\n', ticks=2)
    method = app.navigation.crowd.agents.agent_method[app.army.ids[mine], 0]
    assert (method == PLANNERS.index("navmesh")).all()


@pytest.mark.slow
def test_minimap_look_and_order(app, tmp_path):
    play(app, tmp_path, """
[[command]]
tick = 1
do = "look"
minimap = [0.25, 0.75]
[[order]]
tick = 2
select = 1
minimap = [0.25, 0.25]
""", ticks=2)
    g = app.level.grid
    assert np.allclose(app.camera.target[:2], [0.25 * g.width, 0.75 * g.height], atol=1.0)
    mine = team_units(app, 1)
    t = app.navigation.crowd.agents.target[app.army.ids[mine[0]], :2]
    assert np.allclose(t, [0.25 * g.width, 0.25 * g.height], atol=1.5)    # row 0 at the top of the minimap


def test_camera_jump_and_follow(app, tmp_path):
    play(app, tmp_path, """
[[order]]
tick = 1
box = [0, 0, 320, 400]
target = [30.5, 20.5]
[[command]]
tick = 2
do = "jump"
[[command]]
tick = 3
do = "follow"
""", ticks=60)
    app.sync_scene()
    chosen = app.selected_units()
    assert app.camera.following
    assert np.allclose(app.camera.target[:2], positions(app, chosen).mean(axis=0), atol=1e-6)


@pytest.mark.slow
def test_attack_move_fights_on_the_way_and_a_plain_move_does_not(tmp_path):
    """A unit on a plain move never fires while it walks (an attack-moving one does); once it has
    arrived it is idle and defends itself like any idle unit (or retreats hurt), so what counts
    is the walk."""
    results = {}
    for mode in ("move", "attack"):
        a = RtsApp("river", 120, headless=True, size=(320, 200))
        try:
            # both armies walk into each other across the south bridge (the north one closed:
            # congestion-aware routes would otherwise send the second army over the free bridge)
            play(a, tmp_path, f"""
[[gate]]
tick = 0
name = "north bridge"
[[order]]
tick = 1
select = 1
target = [80.5, 48.5]
mode = "{mode}"
[[order]]
tick = 1
select = 2
target = [15.5, 48.5]
mode = "attack"
""")
            mine = team_units(a, 1)
            theirs = team_units(a, 2)
            fought_walking = 0
            order_mode = UnitMode.MOVE if mode == "move" else UnitMode.ATTACK_MOVE
            for _ in range(900):
                a.step(1)
                walking = a.army.alive[mine] & (a.army.mode[mine] == order_mode)
                fought_walking += int((a.army.fighting[mine] & walking).sum())
            results[mode] = (fought_walking, a.army.health[mine].min())
        finally:
            a.destroy()
    assert results["move"][0] == 0                   # a plain move never fights on its way
    assert results["attack"][0] > 0                  # attack-move fights on the way
    assert results["move"][1] < 1.0                  # (the enemy attack-moved, so mine were hit)


def test_hurt_units_retreat_home_and_heal(app):
    mine = team_units(app, 1)[:5]
    app.army.health[mine] = 0.1
    app.step(3)
    assert (app.army.mode[mine] == UnitMode.RETREAT).all()
    for _ in range(600):
        app.step(1)
        if (app.army.health[mine] >= 1.0).all():
            break
    assert (app.army.health[mine] >= 1.0).all() and (app.army.mode[mine] == UnitMode.IDLE).all()


def test_hurt_units_obey_the_players_move_order_before_they_retreat(app):
    """Issue 40: below 30% health the unit AI forced a retreat on its next decision and the
    player's order was lost; now the order wins until it is done, then the unit retreats."""
    mine = team_units(app, 1)[:20]
    app.army.health[mine] = 0.1
    app.step(3)
    assert (app.army.mode[mine] == UnitMode.RETREAT).all()
    spot = np.median(positions(app, mine), axis=0) + np.array([0.0, 8.0])
    app.army.command(mine, spot)
    obeyed_at = None
    for tick in range(30 * 30):
        app.step(1)
        assert not ((app.army.mode[mine] == UnitMode.RETREAT) & app.army.obeying[mine]).any(), tick
        targets = app.navigation.crowd.status(app.army.ids[mine]).target[:, :2]
        if obeyed_at is None and np.mean(np.hypot(*(targets - spot).T) < 3.0) >= 0.95:
            obeyed_at = tick
        if (~app.army.obeying[mine]).all():
            break
    assert obeyed_at is not None and obeyed_at <= 90                  # within 3 s
    app.step(6)
    # order done: now they go home (or, home already, healed)
    assert ((app.army.mode[mine] == UnitMode.RETREAT) | (app.army.health[mine] >= 1.0)).all()


def test_the_camera_stays_on_the_map_whatever_the_orders_ask(app, tmp_path):
    """Issue 40: panning and zooming went into the void."""
    grid = app.level.grid
    size = np.array([grid.width, grid.height]) * grid.cell_size
    play(app, tmp_path, '[[command]]\ntick = 1\ndo = "pan"\nby = [1e9, -1e9]\n'
                        '[[command]]\ntick = 2\ndo = "zoom"\nby = 1e6\n'
                        '[[command]]\ntick = 3\ndo = "pan"\nby = [-5e3, 7e3]\n', ticks=2)
    x, y = app.camera.target[:2]
    lo, hi = np.asarray(grid.origin) - 0.1 * size, np.asarray(grid.origin) + 1.1 * size
    assert lo[0] <= x <= hi[0] and lo[1] <= y <= hi[1]
    assert app.camera.distance <= 3.0 * size.max()
    app.zoom(1e-9)                                                   # and never through the ground
    assert app.camera.distance >= 10.0
    with pytest.raises(LevelError, match="pan needs by"):
        play(app, tmp_path, '[[command]]\ntick = 1\ndo = "pan"\nby = [1, "x"]\n')


def test_orders_file_mistakes_name_the_table(app, tmp_path):
    for text, message in (('[[order]]\ntick = 1\nselect = 1\ntarget = [5, 5]\nmode = "charge"\n', "mode must be"),
                          ('[[command]]\ntick = 1\ndo = "dance"\n', "do must be one of"),
                          ('[[order]]\ntick = 1\nminimap = [2, 0]\n', "minimap must be"),
                          ('[[order]]\ntick = 1\ntarget = [5, 5]\nqueue = "yes"\n', "queue must be true or false")):
        with pytest.raises(LevelError, match=message):
            play(app, tmp_path, text)


def test_queued_orders_show_as_a_chain_of_markers(app):
    app.select_team(1)
    app.order_move((30.5, 30.5, 0.0))
    app.order_move((30.5, 20.5, 0.0), queue=True)
    app.order_move((20.5, 20.5, 0.0), queue=True)
    assert len(app.marker_points) == 3 and app.marker_np.getNumChildren() == 3
    assert [p[:2] for p in app.marker_points] == [(30.5, 30.5), (30.5, 20.5), (20.5, 20.5)]
    app.order_move((25.5, 25.5, 0.0))                              # a new order: a new chain
    assert len(app.marker_points) == 1 and app.marker_np.getNumChildren() == 1


def test_f9_density_is_a_translucent_heat_map_on_the_ground(app):
    app.step(2)
    app.set_overlay(5)
    heat = app.overlays.node.find("**/density-heat-map")
    assert not heat.isEmpty() and heat.getTransparency() != 0
    geom = heat.node().getGeom(0)
    assert geom.getPrimitive(0).getNumPrimitives() >= 2                  # squares, not dots


def test_f8_draws_the_navmesh_faintly_and_the_orders_corridor_strongly(app):
    app.select_team(1)
    app.order_move(app.level.grid.cell_to_world(84, 40))
    app.step(2)
    app.set_overlay(4)
    names = [c.getName() for c in app.overlays.node.getChildren()]
    assert names == ["navmesh-outlines", "debug-draw"]
    faint, strong = app.overlays.node.getChildren()
    assert faint.getRenderModeThickness() < strong.getRenderModeThickness()


def test_clicking_an_enemy_shows_it_without_commanding_it(app):
    from rtsnav.game.selection import project_to_screen

    enemy = int(np.flatnonzero(app.army.team != app.player_team)[0])
    app.camera.frame(app.positions()[[enemy]])
    app.sync_scene()
    pixel = project_to_screen(app.base, app.positions()[[enemy]], app.scene)[0][0]
    assert app.select_at(tuple(pixel)) == [] and app.inspected is not None
    app.sync_scene()
    assert "enemy " in app.hud.text.getText() and "health 100%" in app.hud.text.getText()
    assert app.order_move((30.5, 30.5, 0.0)) == 0                 # nobody of the player's is selected
    assert app.army.team[app.inspected] != app.player_team


@pytest.mark.slow                     # a long scene: make test-slow
def test_a_group_takes_its_next_queued_leg_together(app, tmp_path):
    """No unit starts the second leg while a member of its group is still on the first."""
    path = tmp_path / "orders.toml"
    path.write_text('[[order]]\ntick = 1\nselect = 1\ntarget = [30.5, 32.5]\n'
                    '[[order]]\ntick = 2\ntarget = [30.5, 12.5]\nqueue = true\n')
    script = load_orders(path, app.level)
    mine = team_units(app, 1)
    crowd = app.navigation.crowd
    early = 0
    for tick in range(1500):
        while script and script[0][0] <= app.tick:
            _, kind, ev = script.pop(0)
            _apply(app, kind, ev)
        app.step(1)
        if tick < 5:
            continue
        target = crowd.status(app.army.ids[mine]).target[:, :2]          # (a stuck unit's may be moved a little)
        on_second = np.hypot(*(target - [30.5, 12.5]).T) < np.hypot(*(target - [30.5, 32.5]).T)
        if on_second.any() and not on_second.all():
            still_first = ~on_second & ~app.army.arrived(mine)
            early = max(early, int(still_first.sum()))
    assert early == 0 and not app.army.queue


def test_a_box_starts_at_the_trail_point_of_the_press_time_not_where_the_cursor_went():
    """A slow frame reads a press after the cursor moved on: the pointer trail logged with
    times gives where the button went down."""
    from panda3d.core import PointerEventList

    from rtsnav.game.input import pixel_at

    trail = PointerEventList()
    for k, (x, y, t) in enumerate([(10, 10, 1.00), (40, 12, 1.02), (90, 30, 1.05), (300, 200, 1.30)]):
        trail.addEvent(True, x, y, k, t)
    assert pixel_at(trail, 1.06) == (90.0, 30.0)          # pressed at 1.06: not (300, 200)
    assert pixel_at(trail, 1.30) == (90.0, 30.0)          # the drag in the press's own batch (one time)
    assert pixel_at(trail, 0.5) is None                   # nothing logged yet: the caller keeps its own
    assert pixel_at(trail, 2.0) == (300.0, 200.0)
