"""Checks of what callers hand the crowd: agent ids, positions and per-agent settings, each
refused with a ``NavError`` that names the argument, its value and what was expected."""

from __future__ import annotations

import math

import numpy as np

from rtsnav import checks

from ..errors import NavError
from ..grid import finite_point
from ..kernels.threads import FORKED_MESSAGE, forked_after_openmp
from .config import CrowdConfig
from .state import CrowdState

__all__ = ["agent_ids", "one_agent", "check_group", "check_settings", "check_targets", "check_tick", "layer_masks", "each_once"]


def agent_ids(agents: CrowdState, ids) -> np.ndarray:
    """``ids`` as an ``int64`` array of live agents' ids; ``NavError`` naming the first that is not."""
    if isinstance(ids, (str, bytes)):
        raise NavError(f"agent ids must be integers, got {ids!r}")
    arr = np.atleast_1d(checks.indices(ids, "agent ids", agents.size, error=NavError, missing="no agent with id {}"))
    if arr.ndim != 1:
        raise NavError(f"agent ids must be one id or a flat list of ids, got an array of shape {arr.shape}")
    dead = ~agents.alive[arr]
    if dead.any():
        raise NavError(f"no agent with id {int(arr[dead][0])}")
    return arr


def one_agent(agents: CrowdState, agent) -> int:
    """``agent`` as the id of one live agent (an int, not a list or a float), else ``NavError``."""
    if np.ndim(agent) != 0:
        raise NavError(f"agent must be one agent id, got {agent!r}")
    return int(agent_ids(agents, agent)[0])


def layer_masks(masks) -> set[int]:
    """``masks`` (navigation-layer bit masks) as a set of ints 0 .. 2**32 - 1, else ``NavError``."""
    if isinstance(masks, (str, bytes)) or np.ndim(masks) != 1 and not isinstance(masks, (set, frozenset)):
        raise NavError(f"navigation_layers must be a list of bit masks 0 .. 2**32 - 1, got {masks!r}")
    return {checks.whole_number(m, "navigation_layers mask", low=0, high=2 ** 32 - 1, error=NavError) for m in masks}


def check_settings(positions, cell_size: float, config: CrowdConfig, **settings: float) -> np.ndarray:
    """``positions`` as a finite ``(N, 2|3) float64`` array, each of ``settings`` (``radius``,
    ``max_speed``, distances, ``flock_radius``) in its range; returns the positions."""
    try:
        pos = checks.float_array(positions)
    except (TypeError, ValueError):
        raise NavError(f"positions must be an (N, 2) or (N, 3) array of finite world points, got {positions!r}") from None
    if pos.ndim != 2 or pos.shape[1] not in (2, 3) or not np.isfinite(pos).all():
        raise NavError(f"positions must be an (N, 2) or (N, 3) array of finite world points, got shape {pos.shape}")
    limits = {"radius": (0.0, config.max_radius_cells * cell_size),
              "max_speed": (1e-9, config.max_speed_cells * cell_size),
              "separation": (0.0, math.inf), "cohesion": (0.0, math.inf), "alignment": (0.0, math.inf)}
    for name, value in settings.items():
        low, high = limits.get(name, (1e-9, math.inf))
        checks.number(value, name, low=low, high=high, error=NavError)
    return pos


def check_speeds(max_speed, ids: np.ndarray, cell_size: float, config: CrowdConfig) -> np.ndarray:
    """``max_speed`` (one number, or one per agent, each named once) as ``len(ids)`` speeds in
    range, else ``NavError``."""
    count = len(ids)
    if np.ndim(max_speed) and np.size(max_speed) > 1:
        each_once(ids, "speeds")
    try:
        speeds = np.broadcast_to(checks.float_array(max_speed), (count,)) if np.ndim(max_speed) else None
    except (TypeError, ValueError):
        raise NavError(f"max_speed must be one number or one per agent ({count}), got {max_speed!r}") from None
    for value in (np.unique(speeds).tolist() if speeds is not None else [max_speed]):
        check_settings(np.zeros((0, 2)), cell_size, config, max_speed=value)
    return speeds if speeds is not None else np.full(count, float(max_speed))


def check_group(group) -> None:
    """``group`` an integer: ≥ 0 a flock, negative none."""
    if isinstance(group, bool) or not isinstance(group, (int, np.integer)) or not -(2**62) <= group < 2**62:
        raise NavError(f"group must be an integer (>= 0 for a flock, -1 for none) that fits 64 bits, got {group!r}")


def check_tick(dt, movement: str, waypoints: bool = False, velocities: bool = False) -> float:
    """``dt`` as seconds (finite, ≥ 0), ``movement`` one of ``"rtsnav"`` / ``"game"`` and the
    two report switches True or False (a truthy ``"no"`` would mean the opposite)."""
    seconds = checks.number(dt, "dt (seconds)", low=0.0, error=NavError)
    checks.choice(movement, "movement", ("rtsnav", "game"), error=NavError)
    checks.flag(waypoints, "waypoints", error=NavError)
    checks.flag(velocities, "velocities", error=NavError)
    if forked_after_openmp():            # a forked child: a clear error, not a process ended by OpenMP
        raise NavError(FORKED_MESSAGE)
    return seconds



def each_once(ids: np.ndarray, what: str) -> None:
    """``NavError`` when ``ids`` name an agent twice for values given one per agent (which one
    would it get? NumPy keeps the last, silently: a formation's two slots for one unit)."""
    if len(ids) > 1 and len(np.unique(ids)) != len(ids):
        values, counts = np.unique(ids, return_counts=True)
        raise NavError(f"{what} are given one per agent, but agent {int(values[counts > 1][0])} is named "
                       f"{int(counts.max())} times in ids; name each agent once")


def check_targets(target, ids: np.ndarray) -> np.ndarray:
    """``(len(ids), 3)`` world targets from one point or one per agent (``(len(ids), 2|3)``: a
    formation, each agent named once); a missing z is 0."""
    count = len(ids)
    out = np.zeros((count, 3))
    if np.ndim(target) == 2:
        each_once(ids, "per-agent targets")
        try:
            per = checks.float_array(target)
        except (TypeError, ValueError, OverflowError):
            raise NavError(f"per-agent targets must be finite ({count}, 2 or 3) numbers, got {target!r:.100}") from None
        if per.shape[0] != count or per.shape[1] not in (2, 3) or not np.isfinite(per).all():
            raise NavError(f"per-agent targets must be finite ({count}, 2 or 3), got shape {per.shape}")
        out[:, : per.shape[1]] = per
    else:
        t = finite_point(target, "target")
        out[:, : len(t)] = t
    return out
