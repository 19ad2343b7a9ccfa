"""How a crowd's agents move each tick once their velocities are steered: reciprocal avoidance
(ORCA) between agents, the walk itself (walls, heights), and the hard-contact pass. ``Motion``
owns what the avoidance of the next tick needs to remember: the velocities agents achieved."""

from __future__ import annotations

import numpy as np
from scipy.ndimage import binary_dilation

from rtsnav.names import (
    A_HORIZON_AGENTS,
    A_HORIZON_OBSTACLES,
    A_MAX_NEIGHBORS,
    A_NEIGHBOR_DISTANCE,
    A_PRIORITY,
    L_AVOIDANCE_LAYERS,
    L_AVOIDANCE_MASK,
    O_3D_AVOIDANCE,
    O_KEEP_Z_VELOCITY,
    S_HEIGHT,
)

from ..grid import Grid
from ..kernels.threads import threads_for
from ..steering.contacts import HELD_UP, resolve_contacts
from ..steering.density import cap_speed_by_density
from ..steering.lanes import keep_right
from ..steering.movement import keep_off_walls, move_agents
from ..steering.orca import OrcaAgents, OrcaRules, OrcaSettings, orca_velocities
from .config import CrowdConfig
from .level_cache import LevelCache
from .state import CrowdState, Mode, NavState

__all__ = ["Motion", "LEAD_CELLS", "STALLED", "GIVE_WAY_SECONDS", "GIVE_WAY_AFTER", "GIVE_WAY_CELLS"]

#: Near walls, between two walking units heading the same way, the one ``LEAD_CELLS`` nearer its
#: target takes e times less of their avoidance (measured at the practice level's one-cell gap,
#: 39 units × 24 runs: 0.3 drains it in 32 s on average with no failed order; equal shares 45 s
#: with 80 failed; 1 cell, 43 s with 10 failed).
LEAD_CELLS = 0.3
#: Agents in a narrow passage or this many cells from one are ``tight`` for the contact pass
#: (its share rule: the front goes first at a passage's mouth).
TIGHT_CELLS = 2.0
#: ... and agents this close to any wall (a gap's mouth in a short wall is no labelled passage).
TIGHT_WALL_CELLS = 1.5
#: Agents within this many cells of a narrow passage walk without the crowd-density cap.
MOUTH_CELLS = 6
#: Contact rounds at most that pull apart agents spawned on top of each other (``separate``).
SPAWN_ROUNDS = 100
#: ... and stop after this many rounds that leave no fewer pairs in contact ...
SPAWN_STALE_ROUNDS = 5
#: ... or once the rounds met this many pairs in contact in all (~2-7 µs each here), the next
#: tick going on from there: ten thousand units spawned a dozen to a cell met ~150,000 a round,
#: and 100 rounds in one tick froze it for 14 s.
SPAWN_PAIR_BUDGET = 100_000
#: ... among the bodies within this many cells of a newcomer.
NEWCOMER_CELLS = 3
#: A walker without progress (the progress watch's clock) for this many seconds keeps its course
#: in a passage of two lanes instead of moving over to its right half: where a passage turns a
#: corner, that sidestep and the unit's way stepped it back and forth over one line for good,
#: each step counted as movement, so it stood without a ``stuck`` event.
LANE_PATIENCE = 1.5
#: Units in a dead stop (reported frozen ``GIVE_WAY_AFTER`` times, nobody close by progressing: two
#: units side by side before a one-cell gap, each held by walls and the other) give way: every
#: stalled walker within ``GIVE_WAY_CELLS`` of one, but the one nearest its target, backs off
#: from it at half speed for ``GIVE_WAY_SECONDS`` while it goes. Without it such pairs stood for
#: good and their orders failed ("no progress … after 6 recoveries").
GIVE_WAY_SECONDS = 1.5
GIVE_WAY_AFTER = 2
GIVE_WAY_CELLS = 3.0


def near_cells(points: np.ndarray, around: np.ndarray, grid: Grid, cells: int) -> np.ndarray:
    """Per point of ``points`` (``(n, 2)`` world): whether its cell is within ``cells`` cells
    (Chebyshev) of the cell of a point of ``around`` (indexes into ``points``)."""
    where = np.floor((points - np.asarray(grid.origin)) / grid.cell_size)
    where = np.clip(np.nan_to_num(where, nan=-1e9), -1e9, 1e9).astype(np.int64)   # far off: no wrap in the cast
    span = grid.width + 2 * cells + 1
    key = (where[:, 1] + cells) * span + (where[:, 0] + cells)
    steps = np.arange(-cells, cells + 1)
    offsets = (steps[:, None] * span + steps[None, :]).ravel()
    return np.isin(key, np.unique(key[around][:, None] + offsets[None, :]))
#: A walking agent that achieved less than this share of its speed last tick is held up: it yields
#: to moving ones in avoidance and contacts, as a standing one does.
STALLED = 0.2


class Motion:
    """Avoidance and movement of a crowd's agents (see the module docs)."""

    def __init__(self, agents: CrowdState, grid: Grid, config: CrowdConfig, level: LevelCache) -> None:
        self._agents, self._grid, self._config, self._level = agents, grid, config, level
        self._last_velocity = np.zeros((0, 2))      # what each unit walked at (avoidance's velocity)
        self._last_pace = np.zeros((0, 2))          # ... and what it made of it after contacts and walls
        self._wanted = np.zeros((0, 2))             # this tick's steered velocities, before avoidance
        # (grid version, tight, mouth, and the passage and near-wall masks they were made from)
        self._tight_cells: tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        #: agents that walk at the game's velocity input this tick (``desired_velocity``)
        self.driven = np.zeros(0, dtype=bool)

    def rest(self) -> None:
        """Agents with nowhere to walk (idle, arrived, failed, waiting for a plan without a quick
        route) want to stand: last tick's velocity, which avoidance may have set to make way, is
        no wish of theirs (kept, it drifted an arrived unit away at full speed for good) — unless
        the game gives them a velocity (Godot's ``velocity``: avoidance-only agents), which they
        walk at, capped at their speed. Run before the steering of a tick; the group steering sets
        its settled members' own."""
        s = self._agents
        n = s.size
        state = s.nav_state[:n, 0]
        walks = (state == NavState.FOLLOWING) | ((state == NavState.PLANNING) & (s.mode[:n] == Mode.QUICK))
        s.velocity[:n][~walks] = 0.0
        desired = s.desired_velocity[:n]
        self.driven = ~walks & s.alive[:n] & ~s.paused[:n] & np.isfinite(desired).all(axis=1)
        if self.driven.any():
            wish = desired[self.driven]
            speed = np.hypot(wish[:, 0], wish[:, 1])
            top = s.max_speed[:n][self.driven]
            wish[:, :2] *= np.where(speed > top, top / np.maximum(speed, 1e-12), 1.0)[:, None]
            s.velocity[:n][self.driven] = wish

    def pace(self) -> np.ndarray:
        """Each agent's velocity ``(n, 2)`` as it walked last tick, after contacts and walls (zeros
        before its first move and for agents added since)."""
        n = self._agents.size
        return self._last_pace if len(self._last_pace) == n else np.zeros((n, 2))

    def walking(self) -> np.ndarray:
        """Ids of the agents that walk this tick: on their way, or at the game's velocity."""
        s = self._agents
        n = s.size
        driven = self.driven if len(self.driven) == n else np.zeros(n, dtype=bool)
        return np.flatnonzero((s.nav_state[:n, 0] == NavState.FOLLOWING) | driven)

    def avoid(self, dt: float) -> None:
        """Reciprocal avoidance (ORCA) between every agent with ``avoidance_enabled``: the
        planners' velocity is the preferred one; the safe velocity replaces it."""
        s, grid, cfg = self._agents, self._grid, self._config
        n = s.size
        active = s.alive[:n] & s.avoidance[:n] & ~s.paused[:n]
        if not active.any():
            return
        state = s.nav_state[:n, 0]
        driven = self.driven if len(self.driven) == n else np.zeros(n, dtype=bool)
        active &= (state != NavState.FAILED) | driven
        present = s.alive[:n] & np.isfinite(s.position[:n, 0]) & np.isfinite(s.position[:n, 1])
        walking = (state == NavState.FOLLOWING) | (s.mode[:n] == Mode.QUICK) | driven
        # a walker held up (slower than STALLED of its speed last tick) yields like a standing
        # unit: a waiting crowd makes way for the flow coming out of a passage
        priority = np.where(walking & ~self._stalled(n), 1.0, cfg.idle_priority)
        preferred = s.velocity[:n, :2].copy()
        self._give_way(n, preferred, priority)
        previous = self._last_velocity if len(self._last_velocity) == n else preferred
        if s.forced:                                    # ``set_velocity_forced``: seen at once
            previous = previous.copy()
            for i, (vx, vy) in s.forced.items():
                if i < n:
                    previous[i] = (vx, vy)
            s.forced.clear()
        # on stacked surfaces, each storey's traffic is its own: the crowd on a bridge deck neither
        # slows nor turns the column on the road under it
        for storey in self._storeys(n):
            if cfg.density_speed:
                # packed ground ahead: walk at the pace of the crowd there, not into it
                pace = self._last_pace if len(self._last_pace) == n else preferred
                # not at a passage's mouth: there the pressure of the queue is what drives it through
                # (a one-way flow through a 3-cell gap: 55% of its limit capped, 71% not)
                capped = active & walking & storey & ~self._on_cells(s.position[:n], self._passage_cells()[1])
                cap_speed_by_density(s.position[:n], preferred, pace, s.radius[:n], present & storey, capped)
            if cfg.lanes:
                # traffic coming the other way ahead: keep right, so opposing flows pass in lanes
                keep_right(s.position[:n], preferred, active & walking & storey, s.radius[:n],
                           self._level.passages(cfg.congestion_narrow), grid.view, s.still_for[:n] > LANE_PATIENCE)
        # the unit nearer its target keeps its course (a queue at a gap drains front first);
        # without it avoidance's equal shares froze the gap's mouth for minutes
        lead = -np.hypot(*(s.target[:n, :2] - s.position[:n, :2]).T) / (LEAD_CELLS * grid.cell_size)
        lead[~np.isfinite(lead)] = 0.0
        self._wanted = preferred
        safe = np.empty((n, 2))
        agents = OrcaAgents(np.ascontiguousarray(s.position[:n, :2]), previous, preferred,
                            np.ascontiguousarray(s.radius[:n]),
                            np.ascontiguousarray(s.max_speed[:n]), priority, lead,
                            self._avoid_groups(n), active, present)
        rules, settings = self._rules(n)
        with threads_for(int(active.sum()), "orca"):
            orca_velocities(agents, rules, settings, grid.view, dt, safe)
        keep_z = s.agent_options[:n, O_KEEP_Z_VELOCITY] & driven
        s.velocity[:n, :2] = np.where(active[:, None], safe, preferred)
        s.velocity[:n, 2] = np.where(keep_z, s.desired_velocity[:n, 2], np.where(driven, 0.0, s.velocity[:n, 2]))

    def _rules(self, n: int) -> tuple[OrcaRules, OrcaSettings]:
        """Each agent's avoidance rules (its own values, the crowd's config where it set none)."""
        s, cfg, cs = self._agents, self._config, self._grid.cell_size
        defaults = np.array([1.0, cfg.avoidance_distance * cs, cfg.avoidance_neighbours, cfg.avoidance_horizon,
                             cfg.avoidance_wall_horizon])
        s.avoidance_defaults = defaults
        params = s.avoidance_params[:n]
        values = np.where(np.isnan(params), defaults, params)
        reach = np.ascontiguousarray(values[:, A_NEIGHBOR_DISTANCE])
        most = values[:, A_MAX_NEIGHBORS].astype(np.int64)
        rules = OrcaRules(np.ascontiguousarray(values[:, A_PRIORITY]),
                          np.ascontiguousarray(s.agent_layers[:n, L_AVOIDANCE_LAYERS]),
                          np.ascontiguousarray(s.agent_layers[:n, L_AVOIDANCE_MASK]), reach, most,
                          np.ascontiguousarray(values[:, A_HORIZON_AGENTS]),
                          np.ascontiguousarray(values[:, A_HORIZON_OBSTACLES]),
                          np.ascontiguousarray(s.position[:n, 2]), self._heights(n),
                          np.ascontiguousarray(s.agent_options[:n, O_3D_AVOIDANCE] | (self._level.surface is not None)))
        live = s.alive[:n]
        settings = OrcaSettings(float(reach[live].max()) if live.any() else float(defaults[1]),
                                int(max(1, most[live].max())) if live.any() else int(defaults[2]),
                                float(cfg.avoidance_horizon), float(cfg.avoidance_wall_horizon))
        return rules, settings

    def separate(self) -> bool:
        """Push apart bodies that overlap where they stand (agents spawned on top of each
        other): contact rounds until none is left, at most ``SPAWN_ROUNDS``. Run before a tick
        that follows an ``add_agents``. False when the rounds met ``SPAWN_PAIR_BUDGET`` pairs
        first: the tick stays bounded and the next one goes on where this one stopped."""
        s, grid = self._agents, self._grid
        n = s.size
        bodies = s.alive[:n] & (s.radius[:n] <= self._config.max_radius_cells * grid.cell_size) \
            & np.isfinite(s.position[:n, 0]) & np.isfinite(s.position[:n, 1])
        if not self._config.contacts or bodies.sum() < 2:
            return True
        # only the newcomers and the bodies around them: one unit spawned among 100,000 ran the
        # rounds over all of them (5 s a spawn); the tick's contact pass keeps the rest apart
        fresh = np.concatenate(s.newcomers) if s.newcomers else np.flatnonzero(bodies)
        bodies &= near_cells(s.position[:n, :2], fresh[fresh < n], grid, NEWCOMER_CELLS)
        pos = s.position[:n]
        rank = np.where(s.paused[:n], -1.0, np.inf)             # all stand: even shares, held ones stay
        group = np.zeros(n, dtype=np.int64)
        radius = np.ascontiguousarray(s.radius[:n])
        best, stale, met = np.inf, 0, 0
        for _ in range(SPAWN_ROUNDS):
            found = resolve_contacts(pos, radius, rank, group, bodies, grid.view, True)
            met += found
            if not found:
                break
            if met > SPAWN_PAIR_BUDGET:
                return False                       # walls are kept off when the rounds end
            # more bodies than the room holds (hundreds spawned on one cell) never separate:
            # stop when the rounds stop helping instead of running all of them every spawn
            best, stale = (found, 0) if found < best else (best, stale + 1)
            if stale >= SPAWN_STALE_ROUNDS:
                break
        if self._config.wall_clearance:
            keep_off_walls(pos, radius, bodies & ~s.paused[:n], grid.view)
        return True

    def _avoid_groups(self, n: int) -> np.ndarray:
        """Flock groups for avoidance: mates steered together do not avoid each other (their
        flocking spaces them); a member walking its own path (a split, a recovery) avoids
        everyone, like a single unit."""
        s = self._agents
        group = s.flock_group[:n, 0].copy()
        alone = s.mode[:n] == Mode.PATH
        group[alone] = -1 - np.flatnonzero(alone)
        return group

    def _give_way(self, n: int, preferred: np.ndarray, priority: np.ndarray) -> None:
        """Avoiding walkers giving way (``GIVE_WAY_SECONDS``) back off from the unit they make room
        for, at half their speed, as moving units (not yielding ones)."""
        s = self._agents
        away = np.flatnonzero((s.give_way[:n] > 0.0) & (s.nav_state[:n, 0] == NavState.FOLLOWING) & ~s.paused[:n]
                              & s.avoidance[:n])
        if len(away) == 0:
            return
        off = s.position[away, :2] - np.column_stack((s.way_x[away], s.way_y[away]))
        length = np.maximum(np.hypot(off[:, 0], off[:, 1]), 1e-9)
        preferred[away] = off / length[:, None] * (0.5 * s.max_speed[away])[:, None]
        priority[away] = 1.0

    def _stalled(self, n: int) -> np.ndarray:
        """Agents that moved slower than ``STALLED`` of their speed last tick (none on the first)."""
        v = self._last_pace
        if len(v) != n:
            return np.zeros(n, dtype=bool)
        s = self._agents
        return np.hypot(v[:, 0], v[:, 1]) < STALLED * s.max_speed[:n]

    def move(self, dt: float, movement: str = "rtsnav") -> None:
        """Walk every agent by its velocity (walls, heights), then push overlapping ones apart.
        ``movement="game"``: positions are the game's to move; only the velocities are final."""
        s, grid = self._agents, self._grid
        n = s.size
        vel = s.velocity[:n]
        still = s.paused[:n] | ~s.alive[:n]
        if still.any():
            vel[still] = 0.0
        pos = s.position[:n] if movement == "rtsnav" else s.position[:n].copy()
        s.give_way[:n] = np.maximum(s.give_way[:n] - dt, 0.0)
        # hard contacts act on flock mates (``contacts``) or on avoiding units (``team_contacts``)
        contacts = movement == "rtsnav" and (self._config.contacts or (
            self._config.team_contacts and bool(s.avoidance[:n].any())))
        walls = movement == "rtsnav" and self._config.wall_clearance
        before = pos[:, :2].copy() if contacts or walls else pos[:0, :2]
        surface = self._level.surface if movement == "rtsnav" else None
        start = pos.copy() if surface is not None else None
        with threads_for(n, "move"):
            move_agents(pos, vel, np.ascontiguousarray(s.max_speed[:n]), dt, grid.view)
        # bodies: an absurd radius (refused with a reason by the orders) takes no part
        sane = s.alive[:n] & (s.radius[:n] <= self._config.max_radius_cells * grid.cell_size)
        if contacts:
            self._push_apart(pos, sane)
        if walls:
            # last: a body never ends a tick inside a wall, whatever the contacts pushed
            radius = np.ascontiguousarray(s.radius[:n])
            pressed = pos[:, :2].copy() if contacts else pos[:0, :2]
            with threads_for(n, "walls"):
                keep_off_walls(pos, radius, sane & ~still, grid.view)
            if contacts and (pos[:, :2] != pressed).any():
                # a crowd pressed against a wall: the wall pass pushed bodies back into their
                # neighbours; the contacts once more (the 2,000-unit demo armies had 5 times the
                # stacked pairs without it; by-wall bodies alone, twice as many: pushed into
                # the crowd behind them)
                self._push_apart(pos, sane)
                with threads_for(n, "walls"):
                    keep_off_walls(pos, radius, sane & ~still, grid.view)
        if start is not None and surface is not None:
            # stacked surfaces: each agent keeps to its own (the grid is every surface's footprint)
            surface.follow_surface(pos, start)
            self._replan_off_path(pos, surface.config.max_climb)
        # avoidance next tick sees the velocity each unit walked at, not the pace the contacts left
        # it: with the pace, a queue pressing into a gap avoided itself as if standing (a one-way
        # flow through a 3-cell gap ran at 28% of its limit, 40–60% with the velocity)
        self._last_velocity = np.ascontiguousarray(vel[:, :2]).copy()
        if contacts or walls:
            self._held_back(pos, vel, before, sane, dt)
        # the crowd's pace ahead (density) is what it made: a packed army pressing on reads slow
        self._last_pace = np.ascontiguousarray(vel[:, :2]).copy()
        self._wanted = np.zeros((0, 2))

    def _push_apart(self, pos: np.ndarray, bodies: np.ndarray) -> None:
        """Hard contacts (Detour's collision pass): ORCA keeps groups apart but cannot promise it
        in a jam, and flocking spaces mates only softly, so overlapping agents are pushed apart —
        between groups always (``team_contacts``), between mates with ``contacts``. ``bodies``:
        the agents that take part (paused ones too: others are pushed off them)."""
        s, grid = self._agents, self._grid
        n = s.size
        mates = self._config.contacts
        # all flock members and avoiding units; with team contacts only, the avoiding ones
        agents = bodies & (((s.flock_group[:n, 0] >= 0) & mates) | s.avoidance[:n]) \
            & np.isfinite(pos[:, 0]) & np.isfinite(pos[:, 1])
        if not agents.any():
            return
        walking = (s.nav_state[:n, 0] == NavState.FOLLOWING) | (s.mode[:n] == Mode.QUICK)
        rank = np.where(walking, np.hypot(*(s.target[:n, :2] - pos[:, :2]).T), np.inf)
        rank[walking & self._stalled(n)] = HELD_UP   # makes room for moving units, not for standing ones
        rank[s.paused[:n]] = -1.0                    # held (paused): a body others are pushed off
        flock = s.flock_group[:n, 0]
        group = np.where(flock >= 0, flock, -1 - np.arange(n))           # a single unit is its own group
        wanted = self._wanted if len(self._wanted) == n else s.velocity[:n, :2]
        speed = np.hypot(wanted[:, 0], wanted[:, 1])
        heading = np.where((walking & (speed > 1e-9))[:, None], wanted / np.maximum(speed, 1e-9)[:, None], 0.0)
        tight = self._on_cells(pos, self._passage_cells()[0])
        marks = s.agent_layers[:n, :2]
        layers = None if (marks == 1).all() else (np.ascontiguousarray(marks[:, 0]), np.ascontiguousarray(marks[:, 1]))
        spans = None if self._level.surface is None else (np.ascontiguousarray(pos[:, 2]), self._heights(n))
        resolve_contacts(pos, np.ascontiguousarray(s.radius[:n]), rank, group, agents, grid.view, mates, heading,
                         tight, layers, spans)

    def _replan_off_path(self, pos: np.ndarray, climb: float) -> None:
        """On stacked surfaces, a unit walking its path on another surface than the path's
        (pushed off a ramp's low side, it walks the ground beside the ramp while the path climbs)
        re-plans from where it is — else it would follow the path's plan view into a wall."""
        s = self._agents
        n = s.size
        walking = (s.nav_state[:n, 0] == NavState.FOLLOWING) & (s.mode[:n] == Mode.PATH) & (s.path_len[:n] >= 2)
        if not walking.any():
            return
        ids = np.flatnonzero(walking)
        at = s.path_start[ids] + np.clip(s.path_idx[ids], 1, s.path_len[ids] - 1)
        a, b = s.paths.points[at - 1], s.paths.points[at]
        ab = b[:, :2] - a[:, :2]
        t = np.clip(np.einsum("ij,ij->i", pos[ids, :2] - a[:, :2], ab) / np.maximum(np.einsum("ij,ij->i", ab, ab),
                                                                                  1e-12), 0.0, 1.0)
        off = np.abs(pos[ids, 2] - (a[:, 2] + t * (b[:, 2] - a[:, 2]))) > climb + 0.25
        s.replans.update(ids[off].tolist())

    def _storeys(self, n: int) -> list[np.ndarray]:
        """Agents grouped by storey (their z in steps of the navmesh's ``agent_height``) on
        stacked surfaces; one group of all agents on a single surface."""
        surface = self._level.surface
        if surface is None:
            return [np.ones(n, dtype=bool)]
        z = np.nan_to_num(self._agents.position[:n, 2])
        storey = np.floor(z / surface.config.agent_height + 0.5).astype(np.int64)
        return [storey == k for k in np.unique(storey)]

    def _heights(self, n: int) -> np.ndarray:
        """Each agent's body height (``height``; on stacked surfaces at least the navmesh's
        ``agent_height``, so a unit on a bridge never meets one on the road under it)."""
        height = np.ascontiguousarray(self._agents.path_settings[:n, S_HEIGHT])
        surface = self._level.surface
        return height if surface is None else np.maximum(height, surface.config.agent_height)

    def _passage_cells(self) -> tuple[np.ndarray, np.ndarray]:
        """``(tight, mouth)`` cell masks, cached per grid version: ``tight``, cells in or within
        ``TIGHT_CELLS`` of a narrow passage (``LevelCache.passages``) or within
        ``TIGHT_WALL_CELLS`` of any wall; ``mouth``, cells within ``MOUTH_CELLS`` of a passage."""
        version = self._grid.version
        cached = self._tight_cells
        if cached is None or cached[0] != version:
            passage = self._level.passages(self._config.congestion_narrow)[0] >= 0
            walls = self._level.clearance() <= TIGHT_WALL_CELLS
            if cached is not None and cached[3].shape == passage.shape:
                # after an edit the passages change round it: the masks are made again there only
                # (each cell's marks depend on the passages within MOUTH_CELLS of it)
                near, mouth = cached[1].copy(), cached[2].copy()
                changed = np.argwhere((passage != cached[3]) | (walls != cached[4]))
                if len(changed):
                    m = int(MOUTH_CELLS)
                    (y0, x0), (y1, x1) = np.maximum(changed.min(axis=0) - m, 0), changed.max(axis=0) + m + 1
                    oy0, ox0 = max(y0 - m, 0), max(x0 - m, 0)
                    part = passage[oy0: y1 + m, ox0: x1 + m]
                    inner = (slice(y0 - oy0, y1 - oy0), slice(x0 - ox0, x1 - ox0))
                    near[y0:y1, x0:x1] = binary_dilation(part, iterations=int(TIGHT_CELLS))[inner] | walls[y0:y1, x0:x1]
                    mouth[y0:y1, x0:x1] = binary_dilation(part, iterations=m)[inner]
            else:
                near = (binary_dilation(passage, iterations=int(TIGHT_CELLS)) if passage.any() else passage) | walls
                mouth = binary_dilation(passage, iterations=int(MOUTH_CELLS)) if passage.any() else passage
            cached = self._tight_cells = (version, near, mouth, passage, walls)
        return cached[1], cached[2]

    def _on_cells(self, pos: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Which agents stand on a cell of ``mask`` (off the grid or not finite: none)."""
        cells = self._grid.world_to_cells(np.nan_to_num(pos[:, :2]))
        h, w = mask.shape
        inside = (cells[:, 0] >= 0) & (cells[:, 0] < w) & (cells[:, 1] >= 0) & (cells[:, 1] < h)
        return inside & mask[np.clip(cells[:, 1], 0, h - 1), np.clip(cells[:, 0], 0, w - 1)]

    def _held_back(self, pos: np.ndarray, vel: np.ndarray, before: np.ndarray, bodies: np.ndarray,
                   dt: float) -> None:
        """A unit held back by others or by a wall slows down to the pace it made (the arrival
        stall clock and path following's "stopped" test see it); its heading stays the
        steering's, so pushes do not make it jitter."""
        wanted = np.hypot(vel[:, 0], vel[:, 1])
        made = np.hypot(*((pos[:, :2] - before) / dt).T)
        scale = np.where(bodies & (wanted > made), made / np.maximum(wanted, 1e-12), 1.0)
        vel[:, :2] *= scale[:, None]
