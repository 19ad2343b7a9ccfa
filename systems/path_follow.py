"""``PathFollowProcessor``: steers every path-following agent toward its next waypoint."""

from __future__ import annotations

import esper
import numpy as np

from rtsnav.components import NavState
from rtsnav.components.navigation import (F_PAUSED, F_TARGET_DIRTY, P_MAX_SPEED, P_PATH_DIST, P_PATH_MAX,
                                          P_TARGET_DIST)

from . import events
from .base import NavProcessor

#: Waypoints one agent may pass in a single tick (dense paths, fast agents).
MAX_ADVANCES_PER_TICK = 8
#: World distance at which an agent is *at* a waypoint and passes it unconditionally.
AT_WAYPOINT = 1e-3
#: Ticks between checks of the distance to the path (``path_max_distance``): a shove is noticed
#: within this many ticks, at a quarter of the cost of checking every tick.
DRIFT_CHECK_EVERY = 4


class PathFollowProcessor(NavProcessor):
    """Vectorised over all following agents: advance the waypoint within
    ``path_desired_distance``; arrive within ``target_desired_distance`` of the last one; write
    the velocity toward the current waypoint. The speed is capped at ``distance / dt`` so an
    agent never steps past a waypoint and oscillates around it. Paused agents are skipped; an
    agent farther than ``path_max_distance`` from its current path segment re-plans from where
    it stands."""

    def update(self, dt: float) -> None:
        table = self.navigation.agents
        n = table.count
        # only agents walking a path (group-steered units have none: FlowSteeringProcessor)
        rows = np.flatnonzero((table.nav_state[:n, 0] == NavState.FOLLOWING) & (table.path_len[:n] > 0)
                              & ~table.agent_flags[:n, F_PAUSED])
        if len(rows) == 0 or not dt > 0.0:
            return
        points = table.paths.points
        pos = table.position[rows, :2]
        start = table.path_start[rows]
        last = table.path_len[rows] - 1
        idx = table.path_idx[rows]
        params = table.agent_params[rows]
        reach = params[:, P_PATH_DIST]
        grid = self.navigation.grid
        announce = events.has_handler(events.WAYPOINT_REACHED)
        for _ in range(MAX_ADVANCES_PER_TICK):
            offset = points[start + idx, :2] - pos
            dist = np.sqrt((offset * offset).sum(axis=1))
            advance = (idx < last) & (dist <= reach)
            if not advance.any():
                break
            # Pass a waypoint early only if the next one is in sight from where the agent
            # really stands; otherwise walk on to the waypoint itself (it sees the next one).
            near = np.flatnonzero(advance & (dist > AT_WAYPOINT))
            if len(near):
                nxt = points[start[near] + idx[near] + 1, :2]
                advance[near] = grid.segments_clear(pos[near], nxt)
                if not advance.any():
                    break
            if announce:
                for k in np.flatnonzero(advance):
                    i = int(idx[k])
                    esper.dispatch_event(events.WAYPOINT_REACHED, int(table.entity[rows[k]]), i,
                                         tuple(float(v) for v in points[start[k] + i]))
            if table.links:
                self._take_links(rows, advance, idx, start, pos)
            idx = idx + advance
        else:
            offset = points[start + idx, :2] - pos
            dist = np.sqrt((offset * offset).sum(axis=1))
        table.path_idx[rows] = idx
        arrived = (idx >= last) & (dist <= params[:, P_TARGET_DIST])
        speed = np.minimum(params[:, P_MAX_SPEED], dist / dt)
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = np.where(dist > 0, speed / dist, 0.0)
        velocity = np.zeros((len(rows), 3))
        velocity[:, :2] = offset * scale[:, None]
        velocity[arrived] = 0.0
        table.velocity[rows] = velocity
        if self.runs % DRIFT_CHECK_EVERY == 0:
            self._replan_if_pushed_off(rows, pos, start, idx, params[:, P_PATH_MAX])
        if arrived.any():
            self.arrive(rows[arrived])

    def _replan_if_pushed_off(self, rows, pos, start, idx, limit) -> None:
        """Agents farther than ``path_max_distance`` from the segment they walk re-plan."""
        points = self.navigation.agents.paths.points
        a = points[start + np.maximum(idx - 1, 0), :2]
        b = points[start + idx, :2]
        ab = b - a
        length2 = (ab * ab).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.clip(np.where(length2 > 0, ((pos - a) * ab).sum(axis=1) / length2, 0.0), 0.0, 1.0)
        off = pos - (a + ab * t[:, None])
        far = np.flatnonzero((off * off).sum(axis=1) > limit * limit)
        if len(far):
            self.navigation.agents.agent_flags[rows[far], F_TARGET_DIRTY] = True

    def _take_links(self, rows, advance, idx, start, pos) -> None:
        """Agents passing the start of an off-mesh link: ``link_reached``, then carried to its
        end (the next waypoint), the step walls would otherwise stop."""
        table = self.navigation.agents
        points = table.paths.points
        for k in np.flatnonzero(advance):
            entity = int(table.entity[rows[k]])
            kind = table.links.get(entity, {}).get(int(idx[k]))
            if kind is None:
                continue
            a = points[start[k] + idx[k]]
            b = points[start[k] + idx[k] + 1]
            esper.dispatch_event(events.LINK_REACHED, entity, kind, tuple(float(v) for v in a),
                                 tuple(float(v) for v in b))
            table.position[rows[k]] = b
            pos[k] = b[:2]
