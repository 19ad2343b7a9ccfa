"""Query kernels of the layered navmesh: a straight line walked over the span links
(``trace``), Lazy Theta* over the spans (``theta_star``: any-angle paths whose legs are such
lines, so a path stays on the surface it started on unless a link — a ramp, a stair — joins
another), the path's points with the surface height at each crease (``path_points``) and the
nearest span to a point (``nearest_span``).

Positions are world coordinates; a span's height at ``(x, y)`` is its plane through the cell
centre: ``z + gx·(x − cx) + gy·(y − cy)``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..kernels.heap import CLOSED, NOT_IN_HEAP, heap_pop, heap_update

__all__ = ["follow_heights", "open_components", "trace", "clearance_at", "theta_star", "tighten", "densify", "path_points", "nearest_span", "span_height"]


@njit(cache=True)
def span_height(span_cell, span_z, grad, width, cell_size, origin_x, origin_y, s, x, y):
    """Height of span ``s``'s plane at world ``(x, y)``."""
    cx = origin_x + (span_cell[s] % width + 0.5) * cell_size
    cy = origin_y + (span_cell[s] // width + 0.5) * cell_size
    return span_z[s] + grad[s, 0] * (x - cx) + grad[s, 1] * (y - cy)


@njit(cache=True)
def _axis(start, delta, cell, axis):
    """One axis of a grid walk (Amanatides–Woo): ``(step, direction index, t of the first
    border, t between borders)`` for a segment from ``start`` moving ``delta`` (cells)."""
    if delta > 0:
        return 1, axis, (cell + 1 - start) / delta, 1.0 / delta
    if delta < 0:
        return -1, axis + 2, (start - cell) / -delta, -1.0 / delta
    return 0, axis, np.inf, np.inf


@njit(cache=True)
def _crease(span_cell, span_z, grad, width, cell_size, origin_x, origin_y, cur, nxt, ax, ay, wx, wy, tn, out,
            written):
    """Where a walk crosses from span ``cur`` to ``nxt`` at fraction ``tn``: a path point in
    ``out`` when the surface changes plane there (a crease) or height (a step: its point just
    past the edge, on the new surface — a walker that reaches it has stepped up, not stopped at
    the foot of the step). Returns the points written."""
    px, py = ax + wx * tn, ay + wy * tn
    z_old = span_height(span_cell, span_z, grad, width, cell_size, origin_x, origin_y, cur, px, py)
    z_new = span_height(span_cell, span_z, grad, width, cell_size, origin_x, origin_y, nxt, px, py)
    step = abs(z_new - z_old) > 1e-6
    if not (step or abs(grad[nxt, 0] - grad[cur, 0]) > 1e-9 or abs(grad[nxt, 1] - grad[cur, 1]) > 1e-9):
        return written
    if step:
        past = min(1.0, tn + 0.05 * cell_size / max(math.sqrt(wx * wx + wy * wy), 1e-12))
        px, py = ax + wx * past, ay + wy * past
        z_new = span_height(span_cell, span_z, grad, width, cell_size, origin_x, origin_y, nxt, px, py)
    out[written, 0] = px
    out[written, 1] = py
    out[written, 2] = z_new
    return written + 1


@njit(cache=True)
def trace(nbr, span_cell, span_z, grad, clear, radius, width, cell_size, origin_x, origin_y, s, ax, ay, bx, by, out):
    """Walk the segment ``(ax, ay) → (bx, by)`` from span ``s`` (whose cell holds ``a``) cell by
    cell over the links, where every cell border it crosses keeps ``radius`` of clearance
    (``clearance_at``; ``radius = -inf``: links only). Returns ``(end span or -1 if blocked,
    surface length walked, fraction of the segment walked, points written)``. Crossing a lattice
    corner needs both ways round to be open and to agree. When ``out`` has rows, each point
    where the surface changes plane (a crease, a step) is written there with its height."""
    x0 = (ax - origin_x) / cell_size
    y0 = (ay - origin_y) / cell_size
    dx = (bx - origin_x) / cell_size - x0
    dy = (by - origin_y) / cell_size - y0
    cx = span_cell[s] % width
    cy = span_cell[s] // width
    ex = int(math.floor(x0 + dx))
    ey = int(math.floor(y0 + dy))
    step_x, dir_x, t_max_x, t_dx = _axis(x0, dx, cx, 0)
    step_y, dir_y, t_max_y, t_dy = _axis(y0, dy, cy, 1)
    wx, wy = dx * cell_size, dy * cell_size
    cur, t, length, written = s, 0.0, 0.0, 0
    while cx != ex or cy != ey:
        tn = min(t_max_x, t_max_y)
        if tn > 1.0 + 1e-9:
            break
        slope = grad[cur, 0] * wx + grad[cur, 1] * wy
        length += (tn - t) * math.sqrt(wx * wx + wy * wy + slope * slope)
        if abs(t_max_x - t_max_y) <= 1e-12:
            a = nbr[cur, dir_x]
            a = nbr[a, dir_y] if a >= 0 else -1
            b = nbr[cur, dir_y]
            b = nbr[b, dir_x] if b >= 0 else -1
            if a < 0 or a != b:
                return -1, length, tn, written
            nxt = a
            cx += step_x
            cy += step_y
            t_max_x += t_dx
            t_max_y += t_dy
        elif t_max_x < t_max_y:
            nxt = nbr[cur, dir_x]
            if nxt < 0:
                return -1, length, tn, written
            cx += step_x
            t_max_x += t_dx
        else:
            nxt = nbr[cur, dir_y]
            if nxt < 0:
                return -1, length, tn, written
            cy += step_y
            t_max_y += t_dy
        px, py = ax + wx * tn, ay + wy * tn
        # a centre this far from the edge has room everywhere in its cell: skip the interpolation
        if clear[nxt] < radius + 1.5 * cell_size and radius > -np.inf and clearance_at(nbr, span_cell, clear, width, cell_size, origin_x, origin_y,
                                             nxt, px, py) < radius - 1e-9:
            return -1, length, tn, written
        if written < out.shape[0]:
            written = _crease(span_cell, span_z, grad, width, cell_size, origin_x, origin_y, cur, nxt, ax, ay,
                              wx, wy, tn, out, written)
        cur = nxt
        t = tn
    slope = grad[cur, 0] * wx + grad[cur, 1] * wy
    length += (1.0 - t) * math.sqrt(wx * wx + wy * wy + slope * slope)
    return cur, length, 1.0, written


@njit(cache=True)
def _span_toward(nbr, s, dx, dy):
    """The span ``dx, dy`` (each −1..1) cells from ``s`` over the links (-1: none)."""
    dir_x = 0 if dx > 0 else 2
    dir_y = 1 if dy > 0 else 3
    a = s
    if dx != 0:
        a = nbr[a, dir_x]
    if dy != 0 and a >= 0:
        a = nbr[a, dir_y]
    if a >= 0 or dx == 0 or dy == 0:
        return a
    b = nbr[s, dir_y]
    return nbr[b, dir_x] if b >= 0 else -1


@njit(cache=True)
def clearance_at(nbr, span_cell, clear, width, cell_size, origin_x, origin_y, s, x, y):
    """Distance from world ``(x, y)`` on span ``s`` to its surface's edge: the clearances of the
    four cell centres around the point (over the links) interpolated bilinearly; a missing
    neighbour counts −½ cell (its centre lies half a cell past the edge)."""
    fx = (x - origin_x) / cell_size - 0.5
    fy = (y - origin_y) / cell_size - 0.5
    i = int(math.floor(fx))
    j = int(math.floor(fy))
    tx, ty = fx - i, fy - j
    sx = span_cell[s] % width
    sy = span_cell[s] // width
    total = 0.0
    for cx, cy, wgt in ((i, j, (1 - tx) * (1 - ty)), (i + 1, j, tx * (1 - ty)),
                        (i, j + 1, (1 - tx) * ty), (i + 1, j + 1, tx * ty)):
        if wgt == 0.0:
            continue
        t = _span_toward(nbr, s, cx - sx, cy - sy)
        total += wgt * (clear[t] if t >= 0 else -0.5 * cell_size)
    return total


@njit(cache=True)
def _estimate(pos, a, b, octile):
    """A* heuristic from span ``a`` to ``b``: the straight 3D distance, or with ``octile`` the
    xy octile distance (the least an 8-neighbour walk can cost: far tighter for plain A*)."""
    if not octile:
        return _chord(pos, a, b)
    dx = abs(pos[a, 0] - pos[b, 0])
    dy = abs(pos[a, 1] - pos[b, 1])
    return max(dx, dy) + (math.sqrt(2.0) - 1.0) * min(dx, dy)


@njit(cache=True)
def _chord(pos, a, b):
    return math.sqrt((pos[a, 0] - pos[b, 0]) ** 2 + (pos[a, 1] - pos[b, 1]) ** 2 + (pos[a, 2] - pos[b, 2]) ** 2)


@njit(cache=True)
def theta_star(nbr, span_cell, span_z, grad, clear, radius, width, cell_size, origin_x, origin_y, pos,
               link_start, link_to, link_cost, start, goal,
               g, parent, via_link, keys, nodes, heap_pos, stamp, query, any_angle, weight):
    """Lazy Theta* (``any_angle``; else A* over the 8-neighbour steps) from span ``start`` to ``goal`` (their rows of ``pos`` hold the query's exact
    points; every other row a cell centre on its span); only spans with ``radius`` of clearance
    are stepped on, and legs keep it (``trace``). ``stamp``/``query`` reset the per-span
    arrays lazily. Returns ``(reached goal, end span, cost, expanded)``: the end is the goal, or
    when it cannot be reached the expanded span nearest to it (a partial path's end)."""
    empty = np.zeros((0, 3))
    stamp[start] = query
    g[start] = 0.0
    parent[start] = start
    via_link[start] = False
    heap_pos[start] = NOT_IN_HEAP
    # plain A* without links: the octile bound (a link may cost less than any walk: then Euclid)
    octile = not any_angle and len(link_to) == 0
    size = heap_update(keys, nodes, heap_pos, 0, start, _estimate(pos, start, goal, octile))
    best, best_h = start, _chord(pos, start, goal)
    expanded = 0
    while size > 0:
        s, size = heap_pop(keys, nodes, heap_pos, size)
        heap_pos[s] = CLOSED
        expanded += 1
        p = parent[s]
        if any_angle and p != s and not via_link[s]:
            end, length, _, _ = trace(nbr, span_cell, span_z, grad, clear, radius, width, cell_size, origin_x,
                                      origin_y, p, pos[p, 0], pos[p, 1], pos[s, 0], pos[s, 1], empty)
            if end == s:
                g[s] = g[p] + length
            else:                              # no line of sight: best closed neighbour instead
                g[s] = np.inf
                for d in range(8):
                    n = _neighbour(nbr, s, d)
                    if n >= 0 and stamp[n] == query and heap_pos[n] == CLOSED:
                        c = g[n] + _chord(pos, n, s)
                        if c < g[s]:
                            g[s] = c
                            parent[s] = n
        h = _chord(pos, s, goal)
        if h < best_h:
            best, best_h = s, h
        if s == goal:
            return True, s, g[s], expanded
        base = s if via_link[s] or not any_angle else parent[s]
        for d in range(8):
            n = _neighbour(nbr, s, d)
            if n >= 0 and clear[n] >= radius:
                size = _relax(n, base, g[base] + _chord(pos, base, n), False, g, parent, via_link, stamp, query,
                              keys, nodes, heap_pos, size, weight * _estimate(pos, n, goal, octile))
        for k in range(link_start[s], link_start[s + 1]):
            n = link_to[k]
            size = _relax(n, s, g[s] + link_cost[k], True, g, parent, via_link, stamp, query, keys, nodes, heap_pos,
                          size, weight * _estimate(pos, n, goal, octile))
    return False, best, g[best], expanded


@njit(cache=True)
def _relax(n, via, cost, by_link, g, parent, via_link, stamp, query, keys, nodes, heap_pos, size, estimate):
    """Offer span ``n`` the path through ``via`` at ``cost`` (``by_link``: across an off-mesh
    link); first met in this query (``stamp``), its record starts empty; closed spans are
    final. Returns the heap's size."""
    if stamp[n] != query:
        stamp[n] = query
        g[n] = np.inf
        heap_pos[n] = NOT_IN_HEAP
    elif heap_pos[n] == CLOSED:
        return size
    if cost < g[n]:
        g[n] = cost
        parent[n] = via
        via_link[n] = by_link
        size = heap_update(keys, nodes, heap_pos, size, n, cost + estimate)
    return size


@njit(cache=True)
def _neighbour(nbr, s, d):
    """Neighbour ``d`` of span ``s``: 0..3 the links E, N, W, S; 4..7 the diagonals NE, NW, SW,
    SE, open when both ways round lead to the same span."""
    if d < 4:
        return nbr[s, d]
    a_dir = 0 if d in (4, 7) else 2
    b_dir = 1 if d in (4, 5) else 3
    a = nbr[s, a_dir]
    b = nbr[s, b_dir]
    if a < 0 or b < 0:
        return -1
    a = nbr[a, b_dir]
    return a if a >= 0 and a == nbr[b, a_dir] else -1


@njit(cache=True)
def path_points(nbr, span_cell, span_z, grad, clear, radius, width, cell_size, origin_x, origin_y, pos, chain,
                leg_is_link):
    """The path's world points along the span ``chain`` (start .. end): each leg's start, the
    creases it crosses (with their heights), and the end. Returns ``(points, leg index of each
    point)``; link legs are straight (their ends only)."""
    total = len(chain)
    for i in range(len(chain) - 1):                 # a leg crosses at most |dx| + |dy| + 2 borders
        a, b = chain[i], chain[i + 1]
        total += int((abs(pos[b, 0] - pos[a, 0]) + abs(pos[b, 1] - pos[a, 1])) / cell_size) + 2
    pts = np.empty((total, 3))
    leg = np.empty(total, dtype=np.int64)
    n = 0
    for i in range(len(chain)):
        s = chain[i]
        pts[n] = pos[s]
        leg[n] = i
        n += 1
        if i + 1 < len(chain) and not leg_is_link[i]:
            t = chain[i + 1]
            _, _, _, k = trace(nbr, span_cell, span_z, grad, clear, -np.inf, width, cell_size, origin_x, origin_y,
                               s, pos[s, 0], pos[s, 1], pos[t, 0], pos[t, 1], pts[n:])
            leg[n:n + k] = i
            n += k
    return pts[:n].copy(), leg[:n].copy()


@njit(cache=True)
def nearest_span(cell_start, span_cell, span_z, grad, clear, radius, width, height, cell_size, origin_x, origin_y,
                 x, y, z, z_window, rings):
    """The span with ``radius`` of clearance nearest to world ``(x, y, z)`` (3D distance to its
    cell's nearest point on its plane) among spans within ``z_window`` of ``z``, searching up to
    ``rings`` rings of cells;
    ``(-1, 0, 0, 0)`` when none. Returns ``(span, x, y, z)`` of the nearest point."""
    cx = int(math.floor((x - origin_x) / cell_size))
    cy = int(math.floor((y - origin_y) / cell_size))
    best, best_d = -1, np.inf
    bx, by, bz = 0.0, 0.0, 0.0
    margin = 1e-3 * cell_size
    for r in range(rings + 1):
        if best >= 0 and best_d <= (r - 1) * cell_size:
            break
        for yy in range(cy - r, cy + r + 1):
            if yy < 0 or yy >= height:
                continue
            edge_row = yy == cy - r or yy == cy + r
            for xx in range(cx - r, cx + r + 1):
                if xx < 0 or xx >= width or not (edge_row or xx == cx - r or xx == cx + r):
                    continue
                c = yy * width + xx
                qx = min(max(x, origin_x + xx * cell_size + margin), origin_x + (xx + 1) * cell_size - margin)
                qy = min(max(y, origin_y + yy * cell_size + margin), origin_y + (yy + 1) * cell_size - margin)
                for s in range(cell_start[c], cell_start[c + 1]):
                    if clear[s] < radius:
                        continue
                    qz = span_height(span_cell, span_z, grad, width, cell_size, origin_x, origin_y, s, qx, qy)
                    if abs(qz - z) > z_window:
                        continue
                    d = math.sqrt((qx - x) ** 2 + (qy - y) ** 2 + (qz - z) ** 2)
                    if d < best_d:
                        best, best_d, bx, by, bz = s, d, qx, qy, qz
    return best, bx, by, bz


@njit(cache=True)
def _leg(nbr, span_cell, span_z, grad, clear, radius, width, cell_size, origin_x, origin_y, pos, a, b, empty):
    """Surface length of the straight leg from span ``a`` to span ``b`` (inf when blocked)."""
    end, length, _, _ = trace(nbr, span_cell, span_z, grad, clear, radius, width, cell_size, origin_x, origin_y, a,
                              pos[a, 0], pos[a, 1], pos[b, 0], pos[b, 1], empty)
    return length if end == b else np.inf


@njit(cache=True)
def tighten(nbr, span_cell, span_z, grad, clear, radius, width, cell_size, origin_x, origin_y, pos, chain,
            leg_is_link, window, sweeps, drop, stamp, queue):
    """Pull a Theta* path taut: each bend moves to the span within ``window`` cells (over the
    links) that shortens its two legs most, and bends whose neighbours see each other go; up to
    ``sweeps`` rounds. Theta* bends where its parents allowed, which on a long curved wall (a
    spiral ramp) leaves the path a few percent long; this brings it to within the lattice's
    resolution. Ends and link legs stay; with ``drop`` False no bend is removed (so bends added by
    ``densify`` first move in towards the wall). Returns ``(chain, leg_is_link)``."""
    empty = np.zeros((0, 3))
    chain = chain.copy()
    links = leg_is_link.copy()
    n = len(chain)
    mark = 0
    for _ in range(sweeps):
        changed = False
        i = 1
        while i < n - 1:
            if links[i - 1] or links[i]:
                i += 1
                continue
            a, cur, b = chain[i - 1], chain[i], chain[i + 1]
            if drop and _leg(nbr, span_cell, span_z, grad, clear, radius, width, cell_size, origin_x, origin_y, pos,
                             a, b, empty) < np.inf:
                for k in range(i, n - 1):               # the bend is not needed
                    chain[k] = chain[k + 1]
                    links[k - 1] = links[k]
                n -= 1
                changed = True
                continue
            best = (_leg(nbr, span_cell, span_z, grad, clear, radius, width, cell_size, origin_x, origin_y, pos, a, cur, empty)
                    + _leg(nbr, span_cell, span_z, grad, clear, radius, width, cell_size, origin_x, origin_y, pos, cur, b, empty))
            best_span = cur
            mark += 1
            cx, cy = span_cell[cur] % width, span_cell[cur] // width
            head, tail = 0, 1
            queue[0] = cur
            stamp[cur] = mark
            while head < tail:
                u = queue[head]
                head += 1
                if u != cur and clear[u] >= radius:
                    lower = (math.sqrt((pos[a, 0] - pos[u, 0]) ** 2 + (pos[a, 1] - pos[u, 1]) ** 2)
                             + math.sqrt((pos[b, 0] - pos[u, 0]) ** 2 + (pos[b, 1] - pos[u, 1]) ** 2))
                    if lower < best - 1e-9:
                        la = _leg(nbr, span_cell, span_z, grad, clear, radius, width, cell_size, origin_x, origin_y, pos, a, u, empty)
                        if la < best:
                            lb = _leg(nbr, span_cell, span_z, grad, clear, radius, width, cell_size, origin_x, origin_y, pos, u, b, empty)
                            if la + lb < best - 1e-9:
                                best, best_span = la + lb, u
                for d in range(4):
                    v = nbr[u, d]
                    if v >= 0 and stamp[v] != mark:
                        vx, vy = span_cell[v] % width, span_cell[v] // width
                        if abs(vx - cx) <= window and abs(vy - cy) <= window:
                            stamp[v] = mark
                            queue[tail] = v
                            tail += 1
            if best_span != cur:
                chain[i] = best_span
                changed = True
            i += 1
        if not changed:
            break
    return chain[:n].copy(), links[:n - 1].copy()


@njit(cache=True)
def densify(nbr, span_cell, span_z, grad, clear, radius, width, cell_size, origin_x, origin_y, pos, chain,
            leg_is_link, spacing, near):
    """Extra bends along each walked leg, every ``spacing`` cells where the leg passes within
    ``near`` (world) of the clearance limit — the places where a taut path hugs a wall and needs
    more bends than Theta* gave it. Returns ``(chain, leg_is_link)``."""
    empty = np.zeros((0, 3))
    total = len(chain)
    for i in range(len(chain) - 1):
        a, b = chain[i], chain[i + 1]
        total += int(math.hypot(pos[b, 0] - pos[a, 0], pos[b, 1] - pos[a, 1]) / (cell_size * spacing)) + 1
    out = np.empty(total, dtype=np.int64)
    out_link = np.zeros(total, dtype=np.bool_)
    n = 0
    for i in range(len(chain) - 1):
        a, b = chain[i], chain[i + 1]
        out[n] = a
        out_link[n] = leg_is_link[i]
        n += 1
        if leg_is_link[i]:
            continue
        m = int(math.hypot(pos[b, 0] - pos[a, 0], pos[b, 1] - pos[a, 1]) / (cell_size * spacing))
        for k in range(1, m):
            f = k / m
            x = pos[a, 0] + (pos[b, 0] - pos[a, 0]) * f
            y = pos[a, 1] + (pos[b, 1] - pos[a, 1]) * f
            e, _, _, _ = trace(nbr, span_cell, span_z, grad, clear, -np.inf, width, cell_size, origin_x, origin_y,
                               a, pos[a, 0], pos[a, 1], x, y, empty)
            if e >= 0 and e != b and e != out[n - 1] and radius <= clear[e] < radius + near:
                out[n] = e
                out_link[n] = False
                n += 1
    out[n] = chain[len(chain) - 1]
    n += 1
    return out[:n].copy(), out_link[:n - 1].copy()


@njit(cache=True)
def open_components(nbr, clear, radius):
    """Labels of the sets of spans with ``radius`` of clearance that the search's steps (the 4
    links and the diagonals of ``_neighbour``) connect; -1 for the others."""
    s_count = nbr.shape[0]
    label = np.full(s_count, -1, dtype=np.int64)
    queue = np.empty(s_count, dtype=np.int64)
    k = 0
    for s in range(s_count):
        if label[s] >= 0 or clear[s] < radius:
            continue
        label[s] = k
        head, tail = 0, 1
        queue[0] = s
        while head < tail:
            u = queue[head]
            head += 1
            for d in range(8):
                v = _neighbour(nbr, u, d)
                if v >= 0 and label[v] < 0 and clear[v] >= radius:
                    label[v] = k
                    queue[tail] = v
                    tail += 1
        k += 1
    return label


@njit(cache=True)
def _surface_under(cell_start, span_cell, span_z, grad, width, height, cell_size, origin_x, origin_y, x, y, z, step):
    """The span under ``(x, y)`` whose height there is nearest ``z`` within ``step`` (-1: none)
    and that height."""
    cx = int(math.floor((x - origin_x) / cell_size))
    cy = int(math.floor((y - origin_y) / cell_size))
    if cx < 0 or cy < 0 or cx >= width or cy >= height:
        return -1, z
    c = cy * width + cx
    best, best_z, best_dz = -1, z, step
    for s in range(cell_start[c], cell_start[c + 1]):
        zz = span_height(span_cell, span_z, grad, width, cell_size, origin_x, origin_y, s, x, y)
        if abs(zz - z) <= best_dz:
            best, best_z, best_dz = s, zz, abs(zz - z)
    return best, best_z


@njit(cache=True)
def follow_heights(cell_start, span_cell, span_z, grad, width, height, cell_size, origin_x, origin_y,
                   position, previous, step):
    """Keep each agent (``position (n, 3)``, moved this tick from ``previous (n, 3)``) on its
    own surface: its z becomes the height of the surface under it nearest its z within ``step``
    (its climb). A move that leaves that surface — off a deck's edge, into a wall of its floor —
    slides along the edge (one axis of the move kept) or, failing that, is undone. (The paths
    keep the agent radius from edges; a push may bring a body closer, never off.) Agents at
    non-finite places are left alone."""
    for i in range(position.shape[0]):
        x, y, z = position[i, 0], position[i, 1], previous[i, 2]
        px, py = previous[i, 0], previous[i, 1]
        if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z) and math.isfinite(px)
                and math.isfinite(py)):
            continue
        was, _ = _surface_under(cell_start, span_cell, span_z, grad, width, height, cell_size, origin_x, origin_y,
                                px, py, z, step)
        for k in range(3):                     # the move, then each axis of it alone
            qx = px if k == 2 else x
            qy = py if k == 1 else y
            s, zz = _surface_under(cell_start, span_cell, span_z, grad, width, height, cell_size, origin_x, origin_y,
                                   qx, qy, z, step)
            if s >= 0 or was < 0:              # (an agent off every surface may walk back on)
                position[i, 0], position[i, 1], position[i, 2] = qx, qy, zz if s >= 0 else position[i, 2]
                break
            if k == 2:
                position[i, 0], position[i, 1] = px, py
                if was >= 0:
                    position[i, 2] = span_height(span_cell, span_z, grad, width, cell_size, origin_x, origin_y, was,
                                                 px, py)
