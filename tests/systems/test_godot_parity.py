"""What Godot's ``NavigationAgent3D`` users reach for: each member of the Godot table (docs/godot.md)
that rtsnav implements, tested."""

from __future__ import annotations

import math
import os
import stat

import esper
import numpy as np
import pytest

from rtsnav.components import NavigationAgent, NavState, Position, Velocity
from rtsnav.systems import Navigation, install
from rtsnav.systems.nav import Grid


def _open(w=30, h=20):
    return Grid(np.ones((h, w), dtype=bool))


def test_defaults_match_godot():
    agent = NavigationAgent()
    assert agent.path_desired_distance == 1.0
    assert agent.target_desired_distance == 1.0
    assert agent.path_max_distance == 5.0
    assert agent.paused is False and agent.avoidance_enabled is False


def test_final_position_reachability_and_distance(world):
    install(Navigation(_open()), prepare=False)
    agent = NavigationAgent(target_position=(25.5, 10.5, 0.0), max_speed=5.0)
    assert agent.get_final_position() is None and agent.distance_to_target() == math.inf
    e = esper.create_entity(Position(2.5, 10.5), Velocity(), agent)
    esper.process(1 / 30)
    esper.process(1 / 30)
    assert agent.get_final_position()[:2] == (25.5, 10.5)
    assert agent.is_target_reachable()
    pos = esper.component_for_entity(e, Position)
    assert agent.distance_to_target() == pytest.approx(25.5 - pos.x)
    path = agent.get_current_navigation_path()
    assert path.shape[1] == 3 and agent.get_current_navigation_path_index() == agent.path_index


def test_unreachable_target_is_not_reachable(world):
    passable = np.ones((20, 30), dtype=bool)
    passable[:, 15] = False
    install(Navigation(Grid(passable)), prepare=False)
    agent = NavigationAgent(target_position=(25.5, 10.5, 0.0))
    seen = []
    def finished(entity):
        seen.append("finished")

    def reached(entity):
        seen.append("reached")

    esper.set_handler("navigation_finished", finished)      # (esper keeps handlers by weak reference)
    esper.set_handler("target_reached", reached)
    e = esper.create_entity(Position(2.5, 10.5), Velocity(), agent)
    for _ in range(5):
        esper.process(1 / 30)
    # Godot's rule: it walks to the closest point it can reach, and says the target is unreachable
    assert agent.state is NavState.FOLLOWING and not agent.is_target_reachable()
    assert "not reachable" in agent.failure_reason
    for _ in range(200):
        esper.process(1 / 30)
    pos = esper.component_for_entity(e, Position)
    assert agent.state is NavState.FINISHED and seen == ["finished"]
    assert abs(pos.x - 14.5) < 1.5 and abs(pos.y - 10.5) < 1.5
    assert not agent.is_target_reached() and not agent.is_target_reachable()


def test_pause_keeps_target_and_path_and_resumes(world):
    install(Navigation(_open()), prepare=False)
    agent = NavigationAgent(target_position=(25.5, 10.5, 0.0), max_speed=5.0)
    e = esper.create_entity(Position(2.5, 10.5), Velocity(), agent)
    for _ in range(10):
        esper.process(1 / 30)
    agent.paused = True
    pos = esper.component_for_entity(e, Position)
    held = pos.as_tuple()
    for _ in range(60):
        esper.process(1 / 30)
    assert pos.as_tuple() == held and agent.state is NavState.FOLLOWING
    assert agent.max_speed == 5.0 and len(agent.path) > 0
    agent.paused = False
    for _ in range(300):
        esper.process(1 / 30)
    assert agent.is_target_reached()


def test_pushed_beyond_path_max_distance_replans_from_where_it_stands(world):
    passable = np.ones((30, 40), dtype=bool)
    passable[5:25, 20] = False                       # a wall to walk around
    nav = Navigation(Grid(passable))
    install(nav, prepare=False)
    paths = []

    class Log:
        def on_path(self, entity, path):
            paths.append(path)

    log = Log()
    esper.set_handler("path_changed", log.on_path)
    agent = NavigationAgent(target_position=(35.5, 15.5, 0.0), max_speed=4.0, path_max_distance=3.0)
    e = esper.create_entity(Position(5.5, 15.5), Velocity(), agent)
    for _ in range(5):
        esper.process(1 / 30)
    assert len(paths) == 1
    pos = esper.component_for_entity(e, Position)
    pos.x, pos.y = 5.5, 28.5                           # a shove far off the path
    for _ in range(6):                                 # noticed within DRIFT_CHECK_EVERY ticks
        esper.process(1 / 30)
    assert len(paths) == 2
    assert math.hypot(paths[1][0][0] - 5.5, paths[1][0][1] - 28.5) < 2.0   # from where it stands
    for _ in range(900):
        esper.process(1 / 30)
    assert agent.is_target_reached()


def test_prepare_reports_progress_and_bakes_what_the_planners_need(tmp_path, arena):
    nav = Navigation(arena, cache_dir=tmp_path)
    seen = []

    def progress(stage, done, total):
        seen.append((stage, done, total))

    seconds = nav.prepare(["navmesh", "hierarchy", "astar"], progress)
    assert set(seconds) == {"kernels", "navmesh", "hierarchy"}
    assert seen[-1] == ("done", 3, 3) and [s for s, *_ in seen[:-1]] == ["kernels", "navmesh", "hierarchy"]
    assert nav.crowd.level.structure("navmesh") is not None and nav.crowd.level.structure("hierarchy") is not None
    assert sorted(p.name.split("-")[0] for p in tmp_path.iterdir()) == ["hierarchy", "navmesh"]
    with pytest.raises(Exception, match="unknown planner"):
        nav.prepare(["teleport"])


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_cache_folder_degrades_to_memory_with_one_warning(tmp_path, arena):
    tmp_path.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        nav = Navigation(arena, cache_dir=tmp_path / "bakes")
        with pytest.warns(RuntimeWarning, match="baking in memory"):
            nav.prepare(["hierarchy"])
        assert nav.crowd.level.structure("hierarchy") is not None
    finally:
        tmp_path.chmod(stat.S_IRWXU)


def test_unwritable_cache_path_degrades_to_memory_with_one_warning(tmp_path, arena):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")               # a cache 'folder' that is a file: unwritable even for root
    nav = Navigation(arena, cache_dir=blocker / "bakes")
    with pytest.warns(RuntimeWarning, match="baking in memory"):
        nav.prepare(["hierarchy", "navmesh"])
    assert nav.crowd.level.structure("hierarchy") is not None and nav.crowd.level.structure("navmesh") is not None


def test_cache_goes_to_the_user_cache_dir_not_the_package(monkeypatch, arena):
    monkeypatch.delenv("RTSNAV_CACHE_DIR", raising=False)
    nav = Navigation(arena)
    import rtsnav

    assert nav.cache_dir is not None
    assert os.path.dirname(rtsnav.__file__) not in str(nav.cache_dir)
    assert "rtsnav" in str(nav.cache_dir)
    assert Navigation(arena, cache_dir=False).cache_dir is None


def test_a_re_added_navigation_agent_plans_again_instead_of_walking_off(world):
    passable = np.ones((20, 30), dtype=bool)
    install(Navigation(Grid(passable)), prepare=False)
    agent = NavigationAgent(target_position=(25.5, 10.5, 0.0), max_speed=5.0)
    e = esper.create_entity(Position(2.5, 10.5), Velocity(), agent)
    for _ in range(10):
        esper.process(1 / 30)
    assert agent.state is NavState.FOLLOWING
    esper.remove_component(e, NavigationAgent)
    esper.process(1 / 30)
    assert not agent.is_bound and agent.state is NavState.FOLLOWING       # it kept its values
    esper.add_component(e, agent)
    pos = esper.component_for_entity(e, Position)
    for _ in range(300):
        esper.process(1 / 30)
        assert 0 < pos.x < 30 and 0 < pos.y < 20                        # never walks off the map
    assert agent.is_target_reached()


def test_the_godot_table_in_the_docs_is_what_the_members_do():
    from tests.godot_table import DOC, render

    text = render()                                   # probes every member on a real agent
    assert "0 missing" in text
    assert DOC.read_text() == text, "docs/godot.md is out of date: run python tests/godot_table.py"
