"""Every name of ../shared/DESIGN.md's stable facade imports and works as written there."""

import numpy as np


def test_design_facade_names_import_and_run():
    from rtsnav.levels import load_level, load_movingai_map, load_movingai_scenarios
    from rtsnav.systems.nav import Crowd, FlowField, Hierarchy, NavMesh, WaypointGraph, find_path

    grid = load_movingai_map("arena.map")
    scens = load_movingai_scenarios("arena.map.scen")
    assert load_level("river").grid.width == 96
    s = scens[5]
    r = find_path(grid, s.start, s.goal, method="astar")
    assert r.found and abs(r.cost - s.optimal) < 1e-3 and r.cells.shape[1] == 2 and r.expanded > 0
    ff = FlowField.build(grid, goals=[s.goal])
    assert ff.integration.shape == grid.passable.shape and ff.direction.shape == grid.passable.shape + (2,)
    mesh = NavMesh.from_grid(grid, agent_radius=0.5)
    mr = mesh.find_path((*grid.cell_to_world(*s.start)[:2], 0.0), (*grid.cell_to_world(*s.goal)[:2], 0.0))
    assert mr.found and mr.points.shape[1] == 3
    h = Hierarchy.build(grid, levels=3)
    assert h.find_path(s.start, s.goal).found
    assert WaypointGraph.floodfill(grid, s.start, spacing=4).find_path(
        grid.cell_to_world(*s.start), grid.cell_to_world(*s.goal)).found
    crowd = Crowd(grid)
    ids = crowd.add_agents(np.array([grid.cell_to_world(*s.start)[:2]]), radius=0.4, max_speed=4.0)
    crowd.move(ids, target=grid.cell_to_world(*s.goal)[:2], planner="flowfield")
    reached = []
    for _ in range(600):
        events = crowd.update(1 / 60)
        reached += events.reached.tolist()
        assert events.failed.size == 0 and events.stuck.size == 0
    assert reached == [int(ids[0])]
    assert crowd.positions.shape == (1, 3) and crowd.velocities.shape == (1, 3)


def test_design_esper_facade():
    import esper

    from rtsnav.components import Flock, NavigationAgent, Position, Velocity
    from rtsnav.levels import load_movingai_map
    from rtsnav.systems import Navigation, install

    esper.switch_world("facade")
    try:
        nav = Navigation(load_movingai_map("arena.map"))
        install(nav, prepare=False)
        e = esper.create_entity(Position(3.5, 10.5, 0.0), Velocity(), Flock(group=1),
                                NavigationAgent(target_position=(12.5, 10.5, 0.0), max_speed=4.0, radius=0.4,
                                                method="flowfield"))
        for _ in range(300):
            esper.process(1 / 60)
        assert esper.component_for_entity(e, NavigationAgent).is_target_reached()
    finally:
        esper.switch_world("default")
        esper.delete_world("facade")
