"""The crowd's settings (``CrowdConfig``): one frozen object every part reads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rtsnav import checks

from ..errors import NavError

__all__ = ["CrowdConfig"]


@dataclass(frozen=True, slots=True)
class CrowdConfig:
    """Settings of a crowd; every field says its unit and limits.

    Attributes:
        planning_units: work units all plans share per tick, ≥ 1 (one unit ≈ one grid A*
            expansion, ~0.12 µs here: 20,000 ≈ 2.5 ms).
        max_searches: grid searches in progress at once, ≥ 1 (each holds ~28 bytes per cell;
            as many as fit in 1 GiB on a big map: ``WorkspacePool.BYTES_AT_MOST``).
        smoothing: ``"precise"``, ``"fast"`` or None: how grid paths become waypoints.
        weight: heuristic weight of the ``"weighted"`` planner, ≥ 1.
        flow_mode: ``"full"`` (whole-map flow fields), ``"tiles"`` (sector tiles) or ``"auto"``
            (tiles above 256×256 cells).
        sector_size: sector edge for tiles, cells, ≥ 4.
        corridor_width: leader corridor half-width, cells, ≥ 1 (at least: a big group gets a band as
            wide as the radius of its packing).
        wall_avoidance: weight of the push away from walls for group units, ≥ 0.
        flow_cache_bytes: memory for flow fields of goals no order uses any more (LRU), bytes.
        navmesh_radius: agent radius the default navmesh is eroded by, world units, ≥ 0.
        navmesh_subdivide: sub-cells per cell edge the default navmesh is rasterised at (see
            ``NavMesh.from_grid``), 1..8; 0 = automatic: for a radius under half a cell 6 on maps
            up to 128×128 cells, 2 up to 256×256, else 1 (narrow bridges and diagonal squeezes
            stay open; see ``Crowd.navmesh_subdivide``).
        stuck_after: seconds without progress before a ``stuck`` event, > 0; while still stuck,
            the next comes ``stuck_after`` less min(0.5 s, a quarter of it) later (3.5 s).
        max_recoveries: stuck recoveries before the order fails, ≥ 1 (6: a unit frozen in a crowd
            for half a minute is told; one in churning traffic keeps trying, see ``progress.py``).
        max_radius_cells: largest agent radius, cells; larger agents fail with a reason.
        max_speed_cells: largest speed, cells per second; faster agents fail with a reason.
        avoidance_distance: world units within which agents avoid each other (ORCA), > 0.
        avoidance_neighbours: the nearest this many neighbours are avoided, 1 .. 40.
        avoidance_horizon: seconds ahead agents keep clear of each other, > 0.
        avoidance_wall_horizon: seconds ahead agents keep clear of walls, > 0.
        idle_priority: avoidance priority of standing agents (walking ones have 1): a smaller
            value makes them step aside for units passing through, > 0.
        congestion: congestion-aware routes (on by default): a group order plans on terrain
            costs raised in the narrow passages other groups' planned routes run through (so a
            second army takes the free bridge when queueing on the busy one would take longer);
            a big ``"leader"`` group splits over two passages when that gets it across sooner
            (``crowd/route_split.py``); a unit stuck in a jam re-plans with the jam's cells made
            dearer (``Traffic.jam_grid``). False: every route is the shortest.
        congestion_weight: scales the queueing cost, ≥ 0: a narrow cell of free width w carrying
            the route of T units costs ``weight · T / w`` more (the cells of waiting, per cell).
        congestion_narrow: passages up to this many cells from a wall count as narrow, > 0.
        congestion_refresh: seconds between refreshes of the traffic map from the crowd as it is:
            each group route counts the members still on their way (arrived ones stop counting),
            so orders given later see the queues that remain, > 0.
        flow_integration: how whole-map flow fields integrate: ``"dijkstra"`` (8-neighbour
            costs) or ``"eikonal"`` (fast marching: straighter flows across open ground).
        flow_rule: the direction pass of whole-map fields: ``"descent"`` or ``"kernel"`` (the
            vector-field article's rule; see ``FlowField.build``).
        flow_acceleration: 0 = group units take the field's direction as their velocity (today's
            steering); > 0 = the vector-field article's steering: the direction is an acceleration
            of this many world units/s², the velocity capped at the unit's speed. (With hard
            contacts between mates the force model's momentum swirls in a narrow passage's
            mouth; use it with ``contacts=False``.)
        leader_fallback: how a ``"leader"`` group's follower gets back to its group
            (``crowd/detours.py``): ``"field"`` (the corridor's return field near it, the
            whole-map field beyond), ``"astar"`` (the flocking article's fallback: its own A* that
            stops at the first corridor cell it reaches) or ``"roles"`` (the article's Leader/Target
            election: a follower with no chain of mates in sight to the leader becomes a temporary
            leader on its own A* path to the goal and rejoins the group when it meets one).
        leader_sight: for ``"roles"``: mates within this many cells, in straight sight, are
            linked (a follower is in touch when a chain of links reaches the leader), > 0.
        contacts: hard contacts (Detour's collision pass): after moving, agents closer than the
            sum of their radii are pushed apart (never into a wall), so no two bodies overlap,
            mates included, even where two armies press into each other; a standing unit makes
            room for a walking one, and of two walking mates the one further from its goal
            gives way. False: mates keep only flocking's soft spacing.
        wall_clearance: after moving, every agent's disc is pushed out of the walls it
            overlaps, so its centre stays its full radius from them (False: only the centre
            is kept out of blocked cells).
        team_contacts: the same pass for pairs of avoiding agents of different groups only (on
            by default: it makes ORCA's "no overlap between groups" firm where a jam leaves ORCA
            no safe velocity; it costs a spatial hash per tick, ~0.7 ms at 10,000 agents).
        lanes: a walking unit with traffic coming toward it a little way ahead keeps to its
            right (``steering/lanes.py``), so opposing flows pass a passage in two lanes; a
            flow alone keeps the whole width. False: only avoidance's own right-hand bias.
        density_speed: a walking unit with packed ground just ahead walks at the pace of the
            crowd there (Continuum Crowds' speed field, ``steering/density.py``) instead of
            pressing into it — but not near a narrow passage, where the queue's pressure drives
            it through. False: every unit asks for its full speed.
        quick_steps: a single unit whose plan waits in the queue walks meanwhile a short
            route toward its target from a bounded A* (``crowd/quick_steps.py``): an order is
            answered in the tick it is given. False: it stands until its plan lands.
        rebuild_worker: after a map edit the crowd's navmesh, waypoint graph and hierarchy are
            rebuilt in a worker process while the game goes on (their agents plan on the grid
            meanwhile; see ``crowd/rebuild.py``); one no ``prepare`` made (nor ``cache_dir``
            holds) is baked there too when an order first needs it. False: no process; they are
            rebuilt when ``Crowd.finish_rebuilds`` is called (a loading screen), on the grid
            until then, and a first bake is made in the tick that needs it.
        dstar_agents: ``"dstar"`` agents that may hold D* Lite state at once, ≥ 0. Each keeps
            40 bytes per cell (10.5 MB on a 512² map, 42 MB at 1024²) and repairs its path
            after map edits instead of searching again; agents over the cap plan by A*, as do
            those past 1 GiB of live searches together (``planning.DSTAR_BYTES_AT_MOST``).
        unreachable: what an order to a target nobody can reach does (a wall, water, an island,
            off the map): ``"closest"`` (Godot's rule) — the agent walks to the reachable point
            nearest the target, ``is_target_reachable()`` is False, ``path_failed`` says why and
            ``navigation_finished`` fires on arrival (``target_reached`` does not); ``"fail"`` —
            the order fails at once.
        max_tick: the longest step one ``update`` simulates, seconds, in (0, 3600]: a longer
            ``dt`` (a hitch, a loading screen, a paused game's first frame) is simulated as this
            much: a long frame moves no unit further than ``max_tick`` × its speed in one step
            (``update(1e9)`` took 6 s of sub-steps; Unity's ``Time.maximumDeltaTime``, 1/3 s,
            caps frames the same way).

    Every number is finite and at most 1e9 (counts: whole numbers within the limits above);
    anything else is a ``NavError`` naming the field.
    """

    planning_units: int = 20_000
    max_searches: int = 4
    smoothing: str | None = "precise"
    weight: float = 1.5
    flow_mode: str = "auto"
    sector_size: int = 16
    corridor_width: float = 3.0
    wall_avoidance: float = 3.0
    flow_cache_bytes: int = 256 * 2**20
    navmesh_radius: float = 0.4
    navmesh_subdivide: int = 0
    stuck_after: float = 4.0
    max_recoveries: int = 6
    max_radius_cells: float = 16.0
    max_speed_cells: float = 1000.0
    avoidance_distance: float = 4.0
    avoidance_neighbours: int = 10
    avoidance_horizon: float = 1.5
    avoidance_wall_horizon: float = 0.3
    idle_priority: float = 0.2
    congestion: bool = True
    congestion_weight: float = 1.0
    congestion_narrow: float = 3.0
    congestion_refresh: float = 2.0
    flow_integration: str = "dijkstra"
    flow_rule: str = "descent"
    flow_acceleration: float = 0.0
    leader_fallback: str = "field"
    leader_sight: float = 6.0
    contacts: bool = True
    wall_clearance: bool = True
    quick_steps: bool = True
    lanes: bool = True
    density_speed: bool = True
    team_contacts: bool = True
    rebuild_worker: bool = True
    dstar_agents: int = 8
    unreachable: str = "closest"
    max_tick: float = 0.25

    def __post_init__(self) -> None:
        for name, kind, low, high in _LIMITS:
            value = getattr(self, name)
            where = f"CrowdConfig.{name}"
            if kind == "int":
                value = checks.whole_number(value, where, low=low, high=high, error=NavError)
            elif kind == "float":
                value = checks.number(value, where, low=low, high=high, low_open=name in _POSITIVE, error=NavError)
            elif kind == "flag":
                value = checks.flag(value, where, error=NavError)
            elif not (value is None and None in low):
                value = checks.choice(value, where, [v for v in low if v is not None], error=NavError)
            object.__setattr__(self, name, value)      # the checked form (a numpy int becomes an int)


#: Every field's kind and limits (a choice lists its options in ``low``): the one place they are
#: checked, so a new field needs a row here (``test_crowd_config_checks_every_field``).
_BIG = 1e9
_LIMITS: tuple[tuple[str, str, Any, Any], ...] = (
    ("planning_units", "int", 1, 2**40), ("max_searches", "int", 1, 4096),
    ("smoothing", "choice", ("precise", "fast", None), None), ("weight", "float", 1.0, _BIG),
    ("flow_mode", "choice", ("auto", "full", "tiles"), None), ("sector_size", "int", 4, 1 << 20),
    ("corridor_width", "float", 1.0, _BIG), ("wall_avoidance", "float", 0.0, _BIG),
    ("flow_cache_bytes", "int", 0, 2**50), ("navmesh_radius", "float", 0.0, _BIG),
    ("navmesh_subdivide", "int", 0, 8), ("stuck_after", "float", 0.0, _BIG), ("max_recoveries", "int", 1, 2**31),
    ("max_radius_cells", "float", 0.0, _BIG), ("max_speed_cells", "float", 0.0, _BIG),
    ("avoidance_distance", "float", 0.0, _BIG), ("avoidance_neighbours", "int", 1, 40),
    ("avoidance_horizon", "float", 0.0, _BIG), ("avoidance_wall_horizon", "float", 0.0, _BIG),
    ("idle_priority", "float", 0.0, _BIG), ("congestion", "flag", None, None),
    ("congestion_weight", "float", 0.0, _BIG), ("congestion_narrow", "float", 0.0, _BIG),
    ("congestion_refresh", "float", 0.0, _BIG), ("flow_integration", "choice", ("dijkstra", "eikonal"), None),
    ("flow_rule", "choice", ("descent", "kernel"), None), ("flow_acceleration", "float", 0.0, _BIG),
    ("leader_fallback", "choice", ("field", "astar", "roles"), None), ("leader_sight", "float", 0.0, _BIG),
    ("contacts", "flag", None, None), ("wall_clearance", "flag", None, None), ("quick_steps", "flag", None, None),
    ("lanes", "flag", None, None), ("density_speed", "flag", None, None), ("team_contacts", "flag", None, None),
    ("rebuild_worker", "flag", None, None), ("dstar_agents", "int", 0, 2**31),
    ("unreachable", "choice", ("closest", "fail"), None), ("max_tick", "float", 0.0, 3600.0),
)
#: Fields whose lower limit is itself refused (> 0, not >= 0).
_POSITIVE = frozenset({"stuck_after", "max_radius_cells", "max_speed_cells", "avoidance_distance",
                       "avoidance_horizon", "avoidance_wall_horizon", "idle_priority", "congestion_narrow",
                       "congestion_refresh", "leader_sight", "max_tick"})


def config_or_default(config: CrowdConfig | None) -> CrowdConfig:
    """The settings a crowd runs with: ``config``, or the defaults for None; ``NavError`` for
    anything else (a dict of settings is ``CrowdConfig(**settings)``)."""
    if config is None:
        return CrowdConfig()
    if not isinstance(config, CrowdConfig):
        raise NavError(f"config must be a CrowdConfig (or None for the defaults), got {type(config).__name__}")
    return config
