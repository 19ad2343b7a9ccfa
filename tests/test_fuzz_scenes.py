"""Fuzz suite, part four: random crowd scenes (and the same through the esper plugin:
``random_esper_scene``, a game's component setters, spawns and deletions each tick). A random
map, agents, orders with every planner (some off the map, some one target per agent), map and
layer edits, removals, pauses and uneven frame times; the properties, checked every tick: no
tick raises, every live agent's position is finite, no walking agent's centre is inside a
blocked cell, no order fails by a last-resort guard (``INTERNAL_FAILURES``), and no agent with
an order stands still for ``stuck_after`` + 2.5 s of game time without an event (reached,
failed or stuck).

Found (fifth campaign): a group sent off the map killed the tick (seeds 2, 28, 33 of 60 did on
the code before it), and a contact push capped on the straight line back cut a wall's corner (a
centre inside a wall, 5 ticks of a longer scene). Sixth: in seed 77 a leader group's follower,
where a passage turns a corner, was stepped to and fro over one line by the lanes' "move over
to your half" (the other flow far off in the passage) and its way back: each step counted as
movement, so it stood 6 s without an event (now a unit without progress keeps its course while
nobody comes at it close ahead); in seeds 20, 24 and 31 a D* Lite unit on a layer's grid failed
its order with a planner error after an edit; in varied scenes (cell sizes, origins, wide units)
seed 73's unit cut off from its group's field (cost to go inf) counted jostles as progress and
stood without an event, and seed 4's wide unit, spawned where it does not fit, re-planned a path
starting behind a wall every few ticks. Seventh: with settings at their edges
(``random_settings``), an ``avoidance_distance`` or ``leader_sight`` of 0.001 made the spatial
hashes ask for billions of buckets (seed 12: a MemoryError; another run was killed at 15 GB).
Eighth: with a planning budget of 1 unit a tick (seed 97) units waited for their plans without
an event; and a game's handlers acting inside ``esper.process`` (``random_handler_scene``: 17 of
40 seeds) got events for entities they had deleted, killed the tick asking for a path of an agent
a nested ``esper.process`` had dropped, or (a death and a birth in one frame) the registry's
bisect ran past its list.
``RTSNAV_FUZZ_EXAMPLES`` scales it as the other
parts (one scene per 30 of their cases, at least 2; seeds 2, 77 and varied 73 always).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rtsnav.names import PLANNERS, NavState
from rtsnav.systems.nav import Crowd, CrowdConfig, Grid, NavError
from tests.test_fuzz import EXAMPLES, FUZZ

#: Reasons of the crowd's last-resort guards (a plan that raised, a group order whose goal is off
#: the map): each means a bug elsewhere, so a scene must never show one.
INTERNAL_FAILURES = ("planner error", "the group's goal cell")


#: The highest steering weights ``random_settings`` draws (see there).
STEERING_TOPS = {"wall_avoidance": 10.0, "flow_acceleration": 10.0, "avoidance_wall_horizon": 3.0}


def random_settings(seed: int) -> dict:
    """A random third of ``CrowdConfig``'s settings at their edges (lowest, highest, or between):
    every choice and switch, tiny and huge distances, budgets and caches. Left as they are: the
    caps on agents' radius and speed and ``max_tick`` (they would refuse the scene's agents or
    slow its clock). Budgets go down to 1 unit a tick (plans then take minutes of game time:
    the units waiting for them are reported ``stuck``). The steering weights stay within ``STEERING_TOPS``
    (wall avoidance 10, about 3 × its default): at 15 and more a wide unit following its
    leader's corridor jitters on the spot beside mates that progress (excused as waiting in a
    moving queue: no event for as long as they move); with an ORCA wall horizon of 12 s units
    crawl along walls at a twentieth of their speed (slow, not silent, but under this test's
    measure). Both are left as findings (the seventh campaign's note)."""
    from rtsnav.systems.nav.crowd.config import _LIMITS, _POSITIVE

    rng = np.random.default_rng([seed, 99])
    chosen: dict = {}
    for name, kind, low, high in _LIMITS:
        if name in ("rebuild_worker", "max_radius_cells", "max_speed_cells", "max_tick") or rng.random() > 0.35:
            continue
        if kind == "flag":
            chosen[name] = bool(rng.integers(0, 2))
        elif kind == "choice":
            chosen[name] = low[int(rng.integers(len(low)))]
        elif kind == "int":
            top = min(high, 10 ** 6 if name in ("planning_units", "flow_cache_bytes") else 64)
            chosen[name] = int(rng.choice([low, low + 1, top, int(rng.integers(low, top + 1))]))
        else:
            least = max(low, 1e-3) if name in _POSITIVE else low
            top = STEERING_TOPS.get(name, 50.0)
            chosen[name] = float(rng.choice([least, top, rng.uniform(least, top)]))
    if "stuck_after" in chosen:
        chosen["stuck_after"] = max(chosen["stuck_after"], 0.5)
    return chosen


def random_crowd_scene(seed: int, ticks: int = 300, varied: bool = False,
                       settings: dict | None = None) -> list[tuple[str, int, int]]:
    """A random map (scattered walls, wall lines with gaps, some terrain costs), up to 60 agents of
    one radius and speed, random orders with every planner (some off the map, some one target per
    agent), map edits, layer edits, removals, pauses and uneven frame times. ``varied``: also a
    random cell size and origin, and a second batch of agents of another radius (up to 0.9 cells:
    wide units); ``settings``: the crowd's ``CrowdConfig`` (default: the defaults). Returns the
    breaches of the invariants: ``(kind, tick, agent)``."""
    rng = np.random.default_rng(seed)
    vary = np.random.default_rng([seed, 7])           # its own draws: the plain scenes stay as they were
    cs = float(vary.choice([0.5, 1.0, 2.0, 3.0])) if varied else 1.0
    origin = (float(vary.uniform(-20, 20)), float(vary.uniform(-20, 20))) if varied else (0.0, 0.0)

    def world(cells):
        return np.asarray(origin) + np.asarray(cells, dtype=np.float64) * cs

    w, h = int(rng.integers(12, 48)), int(rng.integers(12, 48))
    passable = rng.random((h, w)) > rng.uniform(0.05, 0.3)
    for _ in range(rng.integers(0, 4)):
        if rng.random() < 0.5:
            x = rng.integers(2, w - 2)
            passable[:, x] = False
            g = rng.integers(0, h - 2)
            passable[g:g + rng.integers(1, 4), x] = True
        else:
            y = rng.integers(2, h - 2)
            passable[y, :] = False
            g = rng.integers(0, w - 2)
            passable[y, g:g + rng.integers(1, 4)] = True
    grid = Grid(passable, rng.choice([1.0, 1.0, 2.0, 5.0], size=(h, w)) if rng.random() < 0.3 else None,
                cell_size=cs, origin=origin)
    crowd = Crowd(grid, CrowdConfig(**settings) if settings else None, cache_dir=None)
    free = np.argwhere(passable)[:, ::-1]
    n = int(rng.integers(1, 60))
    start = world(free[rng.integers(0, len(free), n)] + 0.5 + rng.uniform(-0.3, 0.3, (n, 2)))
    live = crowd.add_agents(start, radius=float(rng.choice([0.2, 0.3, 0.4, 0.6])) * cs,
                            max_speed=float(rng.uniform(1, 6)) * cs,
                            avoidance=bool(rng.random() < 0.5), group=int(rng.choice([-1, 1, 2]))).tolist()
    if varied:
        m = int(vary.integers(1, 30))
        more = world(free[vary.integers(0, len(free), m)] + 0.5 + vary.uniform(-0.3, 0.3, (m, 2)))
        live += crowd.add_agents(more, radius=float(vary.choice([0.2, 0.4, 0.6, 0.9])) * cs,
                                 max_speed=float(vary.uniform(1, 6)) * cs, avoidance=bool(vary.random() < 0.7),
                                 group=int(vary.choice([-1, 1, 2]))).tolist()
    quiet_since = {}
    anchor = {}
    breaches = []
    dt = 1 / 30
    clock = [0.0]                     # game time after each tick

    def reset(agents, t):
        for a in agents:
            quiet_since[a] = t

    for t in range(ticks):
        r = rng.random()
        if t == 0 or r < 0.02:
            who = rng.choice(live, size=int(rng.integers(1, len(live) + 1)), replace=False) if live else []
            target = world(free[rng.integers(0, len(free))] + 0.5 if rng.random() < 0.9
                           else rng.uniform(-3, max(w, h) + 3, 2))
            if rng.random() < 0.2:
                target = world(free[rng.integers(0, len(free), len(who))] + 0.5)
            try:
                crowd.move(who, target, str(rng.choice(PLANNERS)),
                           group=int(rng.integers(0, 3)) if rng.random() < 0.3 else None)
            except NavError:
                pass
            reset(list(map(int, who)), t)
        elif r < 0.022 and live:
            a = int(rng.choice(live))
            crowd.remove([a])
            live.remove(a)
        elif r < 0.026:
            cells = free[rng.integers(0, len(free), rng.integers(1, 6))]
            grid.set_passable(cells, bool(rng.random() < 0.5))
            crowd.cells_changed(cells)
            reset(live, t)
        elif r < 0.028 and live:
            crowd.pause([int(rng.choice(live))], True)
        elif r < 0.03 and live:
            crowd.pause(live, False)
        elif r < 0.033:
            cells = free[rng.integers(0, len(free), rng.integers(1, 8))]
            grid.set_layers(cells, int(rng.choice([1, 2, 3])))
            crowd.cells_changed(cells)
            reset(live, t)
        step = dt * float(rng.choice([1, 1, 1, 0.5, 3]))
        events = crowd.update(step)
        clock.append(clock[-1] + step)
        reset([int(a) for a in (*events.reached, *events.failed, *events.stuck)], t)
        for a, reason in zip(events.failed.tolist(), events.reasons):
            if any(fallback in reason for fallback in INTERNAL_FAILURES):
                breaches.append(("internal failure: " + reason, t, a))
        pos, state = crowd.positions, crowd.states
        for a in live:
            if not np.isfinite(pos[a]).all():
                breaches.append(("not finite", t, a))
                continue
            if a not in anchor or math.dist(pos[a, :2], anchor[a]) > 0.75 * cs:
                anchor[a] = pos[a, :2].copy()
                quiet_since[a] = t
            cx, cy = grid.world_to_cell(*pos[a, :2])
            if state[a] == NavState.FOLLOWING and 0 <= cx < w and 0 <= cy < h and not grid.passable[cy, cx]:
                breaches.append(("in a wall", t, a))
            ordered = state[a] in (NavState.PLANNING, NavState.FOLLOWING) and not crowd.agents.paused[a]
            if crowd.agents.paused[a]:
                quiet_since[a] = t                                       # a held unit is not stuck
            if ordered and clock[-1] - clock[quiet_since.get(a, 0)] > crowd.config.stuck_after + 2.5:
                breaches.append(("silent", t, a))
                quiet_since[a] = t
    return breaches


@settings(FUZZ, max_examples=max(2, EXAMPLES // 30))
@given(st.integers(0, 2**31 - 1), st.booleans())
@example(2, False)
@example(77, False)
@example(73, True)
def test_random_crowd_scenes_keep_their_promises(seed, varied):
    """No breach of the crowd's promises in a random scene (see the module docstring)."""
    assert random_crowd_scene(seed, varied=varied) == []


@settings(FUZZ, max_examples=max(2, EXAMPLES // 30))
@given(st.integers(0, 2**31 - 1), st.booleans())
@example(12, False)
@example(97, False)
def test_random_crowd_scenes_keep_their_promises_with_any_settings(seed, varied):
    """The same promises with settings at their edges (``random_settings``)."""
    assert random_crowd_scene(seed, varied=varied, settings=random_settings(seed)) == []


def random_esper_level(rng: np.random.Generator):
    """A random map of scattered walls (12-39 cells a side) with a ``Navigation`` installed in the
    current esper world: ``(grid, navigation, free cells (x, y))``."""
    from rtsnav.systems import Navigation, install

    w, h = int(rng.integers(12, 40)), int(rng.integers(12, 40))
    passable = rng.random((h, w)) > rng.uniform(0.05, 0.25)
    grid = Grid(passable)
    nav = Navigation(grid, cache_dir=None)
    install(nav, prepare=False)
    return grid, nav, np.argwhere(passable)[:, ::-1]


def random_esper_scene(seed: int, ticks: int = 300) -> list[tuple[str, int, int]]:
    """The same promises through the esper plugin: ``install(Navigation(grid))``, entities with a
    ``Position``, ``Velocity`` and ``NavigationAgent`` (random planners, radii, avoidance), and
    each tick a random game's doing — new targets (some off the map), component setters (speed,
    radius, avoidance, the velocity input, method, no target, pause, navigation layers), entities
    deleted and spawned, obstacles, map and layer edits, uneven frames. Returns the breaches:
    ``esper.process`` raised, a position not finite, or a unit under an order standing
    ``stuck_after`` + 2.5 s with no movement and no event."""
    import esper

    from rtsnav.components import NavigationAgent, NavigationObstacle, Position, Velocity

    rng = np.random.default_rng(seed)
    world = f"fuzz-scene-{seed}"
    esper.switch_world(world)
    try:
        grid, nav, free = random_esper_level(rng)
        heard: set[int] = set()
        handlers = [lambda entity, *_: heard.add(int(entity)) for _ in range(4)]   # esper keeps weak references
        for kind, handler in zip(("path_failed", "stuck", "target_reached", "navigation_finished"), handlers):
            esper.set_handler(kind, handler)
        ents: list[int] = []

        def spawn(k: int) -> None:
            for _ in range(k):
                c = free[rng.integers(0, len(free))] + 0.5 + rng.uniform(-0.3, 0.3, 2)
                agent = NavigationAgent(max_speed=float(rng.uniform(1, 5)), radius=float(rng.choice([0.2, 0.3, 0.4, 0.7])),
                                        avoidance_enabled=bool(rng.random() < 0.6), method=str(rng.choice(PLANNERS)))
                ents.append(esper.create_entity(Position(float(c[0]), float(c[1]), 0.0), Velocity(), agent))

        spawn(int(rng.integers(1, 40)))
        quiet: dict[int, int] = {}
        anchor: dict[int, tuple[float, float]] = {}
        breaches: list[tuple[str, int, int]] = []
        clock = [0.0]
        for t in range(ticks):
            r = rng.random()
            live = [e for e in ents if esper.entity_exists(e)]
            if live and r < 0.05:
                for e in rng.choice(live, size=int(rng.integers(1, len(live) + 1)), replace=False).tolist():
                    c = free[rng.integers(0, len(free))] + 0.5 if rng.random() < 0.85 else rng.uniform(-4, max(grid.width, grid.height) + 4, 2)
                    esper.component_for_entity(e, NavigationAgent).target_position = (float(c[0]), float(c[1]), 0.0)
                    quiet[e] = t
            elif live and r < 0.07:
                e = int(rng.choice(live))
                _set_one(esper.component_for_entity(e, NavigationAgent), int(rng.integers(0, 8)), rng)
                quiet[e] = t
            elif live and r < 0.075:
                esper.delete_entity(int(rng.choice(live)), immediate=bool(rng.random() < 0.5))
            elif r < 0.08:
                spawn(int(rng.integers(1, 4)))
            elif r < 0.088:
                cells = free[rng.integers(0, len(free), rng.integers(1, 6))]
                if r < 0.085:
                    grid.set_passable(cells, bool(rng.random() < 0.5))
                else:
                    grid.set_layers(cells, int(rng.choice([1, 2, 3])))
                nav.cells_changed(cells)
                quiet.update((e, t) for e in live)
            elif r < 0.09:
                c = free[rng.integers(0, len(free))] + 0.5
                esper.create_entity(Position(float(c[0]), float(c[1]), 0.0), NavigationObstacle(radius=float(rng.uniform(0.3, 1.5))))
            step = (1 / 30) * float(rng.choice([1, 1, 1, 0.5, 3]))
            heard.clear()
            try:
                esper.process(step)
            except Exception as e:                                      # the breach this scene looks for
                breaches.append((f"process raised {type(e).__name__}: {e}", t, -1))
                break
            clock.append(clock[-1] + step)
            quiet.update((e, t) for e in heard)
            for e in ents:
                if not esper.entity_exists(e) or not esper.has_component(e, NavigationAgent):
                    continue
                agent, p = esper.component_for_entity(e, NavigationAgent), esper.component_for_entity(e, Position)
                if not (math.isfinite(p.x) and math.isfinite(p.y)):
                    breaches.append(("not finite", t, e))
                    continue
                if e not in anchor or math.dist((p.x, p.y), anchor[e]) > 0.75:
                    anchor[e] = (p.x, p.y)
                    quiet[e] = t
                ordered = agent.state in (NavState.PLANNING, NavState.FOLLOWING) and not agent.paused
                if not ordered:
                    quiet[e] = t
                elif clock[-1] - clock[quiet.get(e, 0)] > nav.crowd.config.stuck_after + 2.5:
                    breaches.append(("silent", t, e))
                    quiet[e] = t
        return breaches
    finally:
        esper.switch_world("default")
        esper.delete_world(world)


def _set_one(agent, which: int, rng) -> None:
    """One of a game's runtime changes to an agent's settings (``random_esper_scene``)."""
    if which == 0:
        agent.max_speed = float(rng.uniform(0.5, 6))
    elif which == 1:
        agent.radius = float(rng.choice([0.2, 0.4, 0.8]))
    elif which == 2:
        agent.avoidance_enabled = not agent.avoidance_enabled
    elif which == 3:
        agent.velocity = (float(rng.uniform(-2, 2)), float(rng.uniform(-2, 2)), 0.0)
    elif which == 4:
        agent.method = str(rng.choice(PLANNERS))
    elif which == 5:
        agent.target_position = None
    elif which == 6:
        agent.paused = not agent.paused
    else:
        agent.navigation_layers = int(rng.choice([1, 2, 3]))


@settings(FUZZ, max_examples=max(1, EXAMPLES // 60))
@given(st.integers(0, 2**31 - 1))
@example(40)
def test_random_esper_scenes_keep_their_promises(seed):
    """No breach of the plugin's promises in a random esper scene (``random_esper_scene``)."""
    assert random_esper_scene(seed) == []


#: What ``random_handler_scene``'s handlers do (one drawn, evenly, each time a handler runs).
HANDLER_ACTIONS = ("new target", "delete", "strip agent", "spawn", "edit map", "setter", "strip position",
                   "replace agent", "process again")


def random_handler_scene(seed: int, ticks: int = 300) -> list[tuple]:
    """A random esper game whose event handlers act inside ``esper.process``, as games do: on a
    random choice of events each handler gives a new target, deletes the entity (now or at the
    next process), strips its agent or position, replaces its agent, spawns a unit, edits the
    map, changes a setting or runs ``esper.process`` again. Returns the breaches: a tick raised,
    a position not finite, an event for an entity that no longer exists."""
    import esper

    from rtsnav.components import NavigationAgent, Position, Velocity

    rng = np.random.default_rng([seed, 7])
    world = f"fuzz-handlers-{seed}"
    esper.switch_world(world)
    breaches: list[tuple] = []
    try:
        grid, nav, free = random_esper_level(rng)
        ents: list[int] = []

        def spot() -> tuple[float, float, float]:
            c = free[rng.integers(0, len(free))] + 0.5
            return float(c[0]), float(c[1]), 0.0

        def spawn() -> None:
            agent = NavigationAgent(max_speed=float(rng.uniform(1, 5)), radius=float(rng.choice([0.2, 0.3, 0.4, 0.7])),
                                    avoidance_enabled=bool(rng.random() < 0.6), method=str(rng.choice(PLANNERS)))
            ents.append(esper.create_entity(Position(*spot()), Velocity(), agent))
            agent.target_position = spot()

        def act(entity, *_) -> None:
            if not esper.entity_exists(entity):
                breaches.append(("event for a deleted entity", entity))
                return
            action = HANDLER_ACTIONS[int(rng.integers(len(HANDLER_ACTIONS)))]
            agent = esper.try_component(entity, NavigationAgent)
            if action == "new target" and agent is not None:
                agent.target_position = spot() if rng.random() < 0.9 else tuple(rng.uniform(-5, 50, 3).tolist())
            elif action == "delete":
                esper.delete_entity(entity, immediate=bool(rng.random() < 0.5))
            elif action == "strip agent" and agent is not None:
                esper.remove_component(entity, NavigationAgent)
            elif action == "spawn":
                spawn()
            elif action == "edit map":
                cells = free[rng.integers(0, len(free), rng.integers(1, 4))]
                grid.set_passable(cells, bool(rng.random() < 0.5))
                nav.cells_changed(cells)
            elif action == "setter" and agent is not None:
                _set_one(agent, int(rng.integers(0, 8)), rng)
            elif action == "strip position" and esper.has_component(entity, Position):
                esper.remove_component(entity, Position)
            elif action == "replace agent":
                esper.add_component(entity, NavigationAgent(max_speed=2.0))
            elif action == "process again":
                esper.process(1 / 60)

        kinds = ("path_changed", "waypoint_reached", "target_reached", "navigation_finished", "path_failed", "stuck",
                 "displaced")
        chosen = [kind for kind in kinds if rng.random() < 0.6]
        for kind in chosen:
            esper.set_handler(kind, act)
        for _ in range(int(rng.integers(3, 30))):
            spawn()
        for t in range(ticks):
            try:
                esper.process(1 / 30)
            except Exception as e:                                      # the breach this scene looks for
                breaches.append((f"process raised {type(e).__name__}: {e}", t))
                break
            for e in ents:
                p = esper.try_component(e, Position) if esper.entity_exists(e) else None
                if p is not None and not math.isfinite(p.x + p.y):
                    breaches.append(("position not finite", t, e))
        for kind in chosen:
            esper.remove_handler(kind, act)
    finally:
        esper.switch_world("default")
        esper.delete_world(world)
    return breaches


@settings(FUZZ, max_examples=max(1, EXAMPLES // 60))
@given(st.integers(0, 2**31 - 1))
@example(17)
@pytest.mark.filterwarnings("ignore:entity .* has a NavigationAgent but no Position:RuntimeWarning")
def test_random_handler_scenes_keep_their_promises(seed):
    """No breach when the game's handlers act inside ``esper.process`` (``random_handler_scene``)."""
    assert random_handler_scene(seed) == []
