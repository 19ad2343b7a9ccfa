"""Godot's limits on a returned path, per agent: cut at a length (``path_return_max_length``) or
where it leaves a radius around its start (``path_return_max_radius``, and
``path_search_max_distance``, which rtsnav applies to the path found rather than to the search),
at most so many corners (``path_search_max_polygons``, likewise), and simplified
(``simplify_path`` / ``simplify_epsilon``, Ramer-Douglas-Peucker)."""

from __future__ import annotations

import numpy as np

from rtsnav.names import (
    O_SIMPLIFY_PATH,
    S_RETURN_MAX_LENGTH,
    S_RETURN_MAX_RADIUS,
    S_SEARCH_MAX_DISTANCE,
    S_SEARCH_MAX_POLYGONS,
    S_SIMPLIFY_EPSILON,
)

__all__ = ["limit_path", "simplify"]


def limit_path(points: np.ndarray, settings: np.ndarray, options: np.ndarray, keep: bool = False
               ) -> tuple[np.ndarray, str]:
    """``points`` (``(N, 3)`` world) shaped by one agent's ``path_settings`` / ``agent_options``
    row; returns the path and why it was cut ('' when it was not). ``keep``: the points must keep
    their indexes (off-mesh links refer to them): no simplifying."""
    if len(points) < 2:
        return points, ""
    if options[O_SIMPLIFY_PATH] and settings[S_SIMPLIFY_EPSILON] > 0 and not keep:
        points = simplify(points, float(settings[S_SIMPLIFY_EPSILON]))
    why = ""
    corners = int(settings[S_SEARCH_MAX_POLYGONS])
    if 0 < corners < len(points) - 1:
        points, why = points[: corners + 1], f"path_search_max_polygons {corners}"
    for index, name in ((S_RETURN_MAX_RADIUS, "path_return_max_radius"),
                        (S_SEARCH_MAX_DISTANCE, "path_search_max_distance")):
        radius = float(settings[index])
        if radius > 0:
            points, cut = _within_radius(points, radius)
            why = why or (f"{name} {radius:g}" if cut else "")
    length = float(settings[S_RETURN_MAX_LENGTH])
    if length > 0:
        points, cut = _within_length(points, length)
        why = why or (f"path_return_max_length {length:g}" if cut else "")
    return points, why


def _within_length(points: np.ndarray, length: float) -> tuple[np.ndarray, bool]:
    """The path cut ``length`` world units (ground plane) from its start."""
    steps = np.hypot(*np.diff(points[:, :2], axis=0).T)
    walked = np.concatenate([[0.0], np.cumsum(steps)])
    if walked[-1] <= length:
        return points, False
    k = int(np.searchsorted(walked, length, side="right"))       # the segment (k-1, k) crosses it
    t = (length - walked[k - 1]) / max(steps[k - 1], 1e-12)
    end = points[k - 1] + t * (points[k] - points[k - 1])
    return np.vstack([points[:k], end]), True


def _within_radius(points: np.ndarray, radius: float) -> tuple[np.ndarray, bool]:
    """The path cut where it first leaves ``radius`` around its start (ground plane)."""
    rel = points[:, :2] - points[0, :2]
    outside = np.flatnonzero(np.hypot(rel[:, 0], rel[:, 1]) > radius)
    if len(outside) == 0:
        return points, False
    k = int(outside[0])
    a, b = rel[k - 1], rel[k]
    d = b - a
    # |a + t d| = radius, the root in [0, 1]
    qa, qb, qc = d @ d, 2 * (a @ d), a @ a - radius * radius
    t = (-qb + np.sqrt(max(qb * qb - 4 * qa * qc, 0.0))) / (2 * max(qa, 1e-12))
    end = points[k - 1] + min(max(t, 0.0), 1.0) * (points[k] - points[k - 1])
    return np.vstack([points[:k], end]), True


def simplify(points: np.ndarray, epsilon: float) -> np.ndarray:
    """Ramer-Douglas-Peucker on the ground plane: the corners farther than ``epsilon`` from the
    simplified line, and both ends."""
    keep = np.zeros(len(points), dtype=bool)
    keep[0] = keep[-1] = True
    spans = [(0, len(points) - 1)]
    while spans:
        a, b = spans.pop()
        if b - a < 2:
            continue
        p, q = points[a, :2], points[b, :2]
        inner = points[a + 1:b, :2]
        d = q - p
        length = float(np.hypot(*d))
        dist = (np.abs(d[0] * (inner[:, 1] - p[1]) - d[1] * (inner[:, 0] - p[0])) / length if length > 1e-12
                else np.hypot(*(inner - p).T))
        k = int(np.argmax(dist))
        if dist[k] > epsilon:
            keep[a + 1 + k] = True
            spans += [(a, a + 1 + k), (a + 1 + k, b)]
    return points[keep]
