"""Path following, vectorised over every agent that walks its own path (modes PATH and LEADER).

An agent passes its waypoint within ``path_desired_distance``, but early only when the next
waypoint is in sight from where it *really* stands — its centre and both sides of its body
(``radius``) — so cutting a corner never walks it into a wall; it arrives within
``target_desired_distance`` of the last one. Its speed is capped at ``distance / dt`` so it never
steps past a waypoint and oscillates around it.
"""

from __future__ import annotations

import numpy as np

from .state import F_PAUSED, P_MAX_SPEED, P_PATH_DIST, P_PATH_MAX, P_RADIUS, P_TARGET_DIST, CrowdState, Mode, NavState

__all__ = ["FollowResult", "follow_paths", "MAX_ADVANCES_PER_TICK", "DRIFT_CHECK_EVERY"]

#: Waypoints one agent may pass in a single tick (dense paths, fast agents).
MAX_ADVANCES_PER_TICK = 8
#: World distance at which an agent is *at* a waypoint and passes it unconditionally.
AT_WAYPOINT = 1e-3
#: Ticks between checks of the distance to the path (``path_max_distance``).
DRIFT_CHECK_EVERY = 4


class FollowResult:
    """What path following saw this tick: arrivals, passed waypoints, taken links, drifters."""

    def __init__(self) -> None:
        self.arrived = np.zeros(0, dtype=np.int64)
        self.waypoints: list[tuple[int, int, tuple[float, float, float]]] = []
        self.links: list[tuple[int, str, tuple, tuple]] = []
        self.drifted = np.zeros(0, dtype=np.int64)


def _clear_with_body(grid, pos: np.ndarray, nxt: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """Sight from ``pos`` to ``nxt`` for the centre and both body edges (offset by ``radius``)."""
    clear = grid.segments_clear(pos, nxt)
    wide = np.flatnonzero(clear & (radius > 0))
    if len(wide):
        d = nxt[wide] - pos[wide]
        length = np.hypot(d[:, 0], d[:, 1])
        length[length == 0] = 1.0
        side = np.stack([-d[:, 1], d[:, 0]], axis=1) / length[:, None] * radius[wide, None]
        ok = grid.segments_clear(pos[wide] + side, nxt[wide] + side) & grid.segments_clear(pos[wide] - side,
                                                                                             nxt[wide] - side)
        clear[wide] = ok
    return clear


def follow_paths(state: CrowdState, grid, dt: float, tick: int, want_waypoints: bool) -> FollowResult:
    """Advance waypoints and write the velocity of every agent walking its own path."""
    out = FollowResult()
    n = state.size
    mode = state.mode[:n]
    rows = np.flatnonzero(((mode == Mode.PATH) | (mode == Mode.LEADER)) & (state.nav_state[:n, 0] == NavState.FOLLOWING)
                          & (state.path_len[:n] > 0) & ~state.agent_flags[:n, F_PAUSED])
    if len(rows) == 0:
        return out
    points = state.paths.points
    pos = state.position[rows, :2].copy()
    start = state.path_start[rows]
    last = state.path_len[rows] - 1
    idx = state.path_idx[rows].copy()
    params = state.agent_params[rows]
    reach = params[:, P_PATH_DIST]
    for _ in range(MAX_ADVANCES_PER_TICK):
        offset = points[start + idx, :2] - pos
        dist = np.sqrt((offset * offset).sum(axis=1))
        advance = (idx < last) & (dist <= reach)
        if not advance.any():
            break
        near = np.flatnonzero(advance & (dist > AT_WAYPOINT))
        if len(near):
            nxt = points[start[near] + idx[near] + 1, :2]
            advance[near] = _clear_with_body(grid, pos[near], nxt, params[near, P_RADIUS])
            if not advance.any():
                break
        for k in np.flatnonzero(advance):
            agent, i = int(rows[k]), int(idx[k])
            if want_waypoints:
                out.waypoints.append((agent, i, tuple(float(v) for v in points[start[k] + i])))
            kind = state.links.get(agent, {}).get(i) if state.links else None
            if kind is not None:                       # an off-mesh link: carried to its end
                a, b = points[start[k] + i], points[start[k] + i + 1]
                out.links.append((agent, kind, tuple(float(v) for v in a), tuple(float(v) for v in b)))
                state.position[agent] = b
                pos[k] = b[:2]
        idx = idx + advance
    offset = points[start + idx, :2] - pos
    dist = np.sqrt((offset * offset).sum(axis=1))
    state.path_idx[rows] = idx
    arrived = (idx >= last) & (dist <= params[:, P_TARGET_DIST])
    speed = np.minimum(params[:, P_MAX_SPEED], dist / dt)
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = np.where(dist > 0, speed / dist, 0.0)
    velocity = np.zeros((len(rows), 3))
    velocity[:, :2] = offset * scale[:, None]
    velocity[arrived] = 0.0
    state.velocity[rows] = velocity
    out.arrived = rows[arrived]
    if tick % DRIFT_CHECK_EVERY == 0:
        out.drifted = rows[_off_path(points, pos, start, idx, params[:, P_PATH_MAX]) & ~arrived]
    return out


def _off_path(points, pos, start, idx, limit) -> np.ndarray:
    """True where the agent is farther than ``limit`` from the segment it walks."""
    a = points[start + np.maximum(idx - 1, 0), :2]
    b = points[start + idx, :2]
    ab = b - a
    length2 = (ab * ab).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.clip(np.where(length2 > 0, ((pos - a) * ab).sum(axis=1) / length2, 0.0), 0.0, 1.0)
    off = pos - (a + ab * t[:, None])
    return (off * off).sum(axis=1) > limit * limit
