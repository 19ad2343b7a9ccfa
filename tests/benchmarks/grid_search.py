"""Grid search benchmark: rtsnav's methods against the peer libraries, same queries, same run.

    python tests/benchmarks/grid_search.py                       # AcrosstheCape + the 1024² map
    python tests/benchmarks/grid_search.py levels/maps/den520d.map --json out.json

Maps: a Moving AI map's long-path buckets (its .scen), and "scaled:1024": AcrosstheCape scaled to
1024×1024 (nearest neighbour; the suite's 1024² map; "scaled:1024:NAME" / "joined:1024:NAME" make
one from another map, see ``big_maps``) with seeded random long queries (the 20%
longest of 300 random pairs in the largest region; optimum from rtsnav A*).

Peers (``pip install -e .[bench]``):
  * ``tcod exact``  — tcod.path.CustomGraph with 8 edges, diagonal edges conditioned on both
    orthogonal neighbours (no corner cutting, the benchmark rule), A* heuristic; integer costs
    100000 / 141421. The exact C peer.
  * ``tcod path2d`` — tcod.path.path2d(cardinal=2, diagonal=3): the plain call people use
    (corner cutting allowed, integer costs), reported for speed; its paths are not the optimum.
  * ``python-pathfinding`` — AStarFinder, DiagonalMovement.only_when_no_obstacle (pure Python).
  * ``pyastar2d`` — C++ A* with allow_diagonal=True (corner cutting allowed).

For every query each result is checked: legal under the no-corner-cutting rule, and its cost
equal to the benchmark optimum within max(1e-3, 6e-6 × optimal) (the .scen files print 6
significant digits). Times are wall-clock medians per query, after one untimed pass over the
queries (for every library alike: warm caches, as in a game that plans all the time); setup
(graph building) is separate.
rtsnav's JIT compile and numba-cache load times are measured in fresh subprocesses.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from rtsnav.levels import load_movingai_map, load_movingai_scenarios  # noqa: E402
from rtsnav.systems.nav import NavError, find_path, path_cost, validate_path, warm_up  # noqa: E402

#: "both-ends" is bidirectional search without its pocket rule (which answers open-ended queries by A*)
OURS = ("astar", "dijkstra", "weighted", "bidirectional", "both-ends", "jps", "jps+")


# --------------------------------------------------------------------------- peers
def tcod_exact_setup(grid):
    import tcod.path as tp

    p = grid.passable
    graph = tp.CustomGraph(p.shape)
    cost = p.astype(np.int32)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dx == dy == 0:
                continue
            if dx and dy:
                # source (y, x) may step diagonally only if (y+dy, x) and (y, x+dx) are open
                side_y = np.zeros_like(p)
                side_x = np.zeros_like(p)
                h, w = p.shape
                ys = slice(max(0, -dy), h - max(0, dy))
                xs = slice(max(0, -dx), w - max(0, dx))
                side_y[ys, :] = p[slice(max(0, dy), h - max(0, -dy)), :]
                side_x[:, xs] = p[:, slice(max(0, dx), w - max(0, -dx))]
                graph.add_edge((dy, dx), 141421, cost=cost, condition=(side_y & side_x).astype(np.int8))
            else:
                graph.add_edge((dy, dx), 100000, cost=cost)
    graph.set_heuristic(cardinal=100000, diagonal=141421)
    return graph


def tcod_exact_query(graph, start, goal):
    import tcod.path as tp

    pf = tp.Pathfinder(graph)
    pf.add_root((start[1], start[0]))
    path = pf.path_to((goal[1], goal[0]))
    return path[:, ::-1] if len(path) else None


def tcod_path2d_setup(grid):
    return grid.passable.astype(np.int8)


def tcod_path2d_query(cost, start, goal):
    import tcod.path as tp

    path = tp.path2d(cost, start_points=[(start[1], start[0])], end_points=[(goal[1], goal[0])],
                     cardinal=2, diagonal=3)
    return path[:, ::-1] if len(path) else None


def pathfinding_setup(grid):
    from pathfinding.core.grid import Grid as PFGrid

    return PFGrid(matrix=grid.passable.astype(np.int32).tolist())


def pathfinding_query(pfgrid, start, goal):
    from pathfinding.core.diagonal_movement import DiagonalMovement
    from pathfinding.finder.a_star import AStarFinder

    pfgrid.cleanup()
    finder = AStarFinder(diagonal_movement=DiagonalMovement.only_when_no_obstacle)
    path, _ = finder.find_path(pfgrid.node(*start), pfgrid.node(*goal), pfgrid)
    return np.array([(n.x, n.y) for n in path]) if path else None


def pyastar2d_setup(grid):
    return np.where(grid.passable, 1.0, np.inf).astype(np.float32)


def pyastar2d_query(weights, start, goal):
    import pyastar2d

    path = pyastar2d.astar_path(weights, (start[1], start[0]), (goal[1], goal[0]), allow_diagonal=True)
    return path[:, ::-1] if path is not None else None


PEERS = {
    "tcod exact": (tcod_exact_setup, tcod_exact_query, None),
    "tcod path2d": (tcod_path2d_setup, tcod_path2d_query, None),
    "python-pathfinding": (pathfinding_setup, pathfinding_query, "slow"),
    "pyastar2d": (pyastar2d_setup, pyastar2d_query, None),
}


# --------------------------------------------------------------------------- queries
def long_path_queries(scen_path: Path, count: int):
    scens = [s for s in load_movingai_scenarios(scen_path) if s.optimal > 0]
    top = max(s.bucket for s in scens)
    long = [s for s in scens if s.bucket >= 0.8 * top]
    picks = np.linspace(0, len(long) - 1, min(count, len(long))).round().astype(int)
    return [(s.start, s.goal, s.optimal) for s in (long[i] for i in picks)], \
        f"{len(picks)} of the {len(long)} scenarios in buckets >= {int(np.ceil(0.8 * top))}"


def random_queries(grid, count: int, seed: int = 7, long_only: bool = False):
    labels = grid.components()
    big = np.bincount(labels[labels >= 0]).argmax()
    ys, xs = np.nonzero(labels == big)
    rng = np.random.default_rng(seed)
    pool = 5 * count if long_only else count
    out = []
    while len(out) < pool:
        i, j = rng.integers(0, len(xs), 2)
        r = find_path(grid, (xs[i], ys[i]), (xs[j], ys[j]), method="jps" if long_only else "astar")
        out.append(((int(xs[i]), int(ys[i])), (int(xs[j]), int(ys[j])), r.cost))
    if long_only:
        out = sorted(out, key=lambda q: q[2])[-count:]
        return out, f"the {count} longest of {pool} seeded random pairs in the largest region (optimum from rtsnav JPS, checked exact)"
    return out, f"{count} seeded random pairs in the largest region (optimum from rtsnav A*)"


def scaled_cape(size: int):
    from rtsnav.systems.nav import Grid

    cape = load_movingai_map("AcrosstheCape.map")
    idx = np.arange(size) * cape.width // size
    return Grid(cape.passable[np.ix_(idx, idx)].copy(), name=f"AcrosstheCape scaled to {size}²")


# --------------------------------------------------------------------------- measuring
def jit_times() -> dict:
    """Compile time with an empty numba cache, then load time from that cache (subprocesses)."""
    code = (f"import sys, time; t = time.perf_counter(); sys.path.insert(0, {str(ROOT)!r}); "
            "from rtsnav.systems.nav import warm_up; i = time.perf_counter() - t; print(i, warm_up())")
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for label in ("compile", "cache_load"):
            res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
            imp, warm = map(float, res.stdout.split())
            out[f"{label}_s"] = round(warm, 3)
            out[f"import_{label}_s"] = round(imp, 3)
    return out


def run_lib(name, setup, query, grid, queries, max_queries=None):
    t = time.perf_counter()
    ctx = setup(grid)
    setup_s = time.perf_counter() - t
    memory = ctx[1] if isinstance(ctx, tuple) and len(ctx) == 2 and isinstance(ctx[1], int) else None
    if memory is not None:
        ctx = ctx[0]
    qs = queries if max_queries is None else queries[:max_queries]
    for start, goal, _ in qs:              # one untimed pass: every library's caches warm alike
        query(ctx, start, goal)
    times, expanded, optimal, legal = [], [], 0, 0
    for start, goal, best in qs:
        t = time.perf_counter()
        res = query(ctx, start, goal)
        times.append(time.perf_counter() - t)
        if isinstance(res, tuple):
            cells, exp = res
            expanded.append(exp)
        else:
            cells = res
        if cells is None or len(cells) == 0:
            continue
        cells = np.asarray(cells, dtype=np.int64)
        try:
            validate_path(grid, cells, start, goal)
        except NavError:
            continue
        legal += 1
        optimal += abs(path_cost(grid, cells) - best) <= max(1e-3, 6e-6 * best)
    t_ms = np.array(times) * 1e3
    return {
        "library": name, "queries": len(qs), "setup_ms": round(setup_s * 1e3, 2),
        "preprocessed_mb": None if memory is None else round(memory / 1e6, 1),
        "median_ms": round(float(np.median(t_ms)), 3), "p95_ms": round(float(np.percentile(t_ms, 95)), 3),
        "mean_ms": round(float(t_ms.mean()), 3),
        "expanded_median": int(np.median(expanded)) if expanded else None,
        "legal_pct": round(100.0 * legal / len(qs), 1), "optimal_pct": round(100.0 * optimal / len(qs), 1),
    }


_BOUNDS: dict = {}


def ours_bounded(method):
    """``method`` with goal bounds, built in the setup (one Dijkstra per cell: its time is the
    setup time; the JPS+ table is built there too)."""
    from rtsnav.systems.nav.bake_cache import grid_digest
    from rtsnav.systems.nav.search.goal_bounds import GoalBounds
    from rtsnav.systems.nav.search.jps_plus import jump_table

    def setup(grid):
        grid.components()
        memory = 0
        if method == "jps+":
            memory += jump_table(grid).current().nbytes
        key = grid_digest(grid, ())
        if key not in _BOUNDS:                             # built once per map, for both rows
            _BOUNDS[key] = (GoalBounds.build(grid), GoalBounds.last_build_s)
        bounds, built_s = _BOUNDS[key]
        return (grid, GoalBounds(grid, bounds.boxes)), memory + bounds.memory_bytes

    def query(ctx, start, goal):
        grid, bounds = ctx
        r = find_path(grid, start, goal, method=method, goal_bounds=bounds)
        return r.cells, r.expanded

    return setup, query


def ours(method):
    def setup(grid):
        grid.components()         # the one-off flood fill used for O(1) unreachable answers
        grid.padded()
        if method == "jps+":      # preprocessing: the jump table (32 bytes per cell)
            from rtsnav.systems.nav.search.jps_plus import jump_table

            return grid, jump_table(grid).current().nbytes
        return grid

    def query(grid, start, goal):
        if method == "both-ends":
            r = find_path(grid, start, goal, method="bidirectional", pocket_rule=False)
        else:
            r = find_path(grid, start, goal, method=method, weight=1.5)
        return r.cells, r.expanded

    return setup, query


def _load(map_name: str):
    """A map by name: a .map file, ``scaled:SIZE`` (AcrosstheCape), ``scaled:SIZE:NAME`` or
    ``joined:SIZE:NAME`` (``big_maps``: another map scaled, or its copies joined at native detail)."""
    kind, _, rest = map_name.partition(":")
    if kind == "scaled" and ":" not in rest:
        return scaled_cape(int(rest))
    if kind in ("scaled", "joined"):
        from tests.benchmarks import big_maps

        size, name = rest.split(":", 1)
        return getattr(big_maps, kind)(name, int(size))
    return load_movingai_map(map_name)


def bench_map(map_path: str, count: int, slow_count: int, peers: list[str]) -> dict:
    grid = _load(map_path)
    if map_path.startswith(("scaled:", "joined:")):
        queries, label = random_queries(grid, count, long_only=True)
    else:
        scen = Path(str(map_path) + ".scen")
        if not scen.exists():
            from rtsnav.levels.movingai import resolve_map_path

            scen = resolve_map_path(map_path).with_name(Path(map_path).name + ".scen")
        queries, label = long_path_queries(scen, count) if scen.exists() else random_queries(grid, count, long_only=True)
    rows = []
    for method in OURS:
        setup, query = ours(method)
        rows.append(run_lib(f"rtsnav {method}", setup, query, _load(map_path), queries))
    from rtsnav.systems.nav.search.goal_bounds import MAX_CELLS

    if grid.passable.sum() <= MAX_CELLS:                       # goal bounds are affordable here
        for method in ("astar", "jps+"):
            setup, query = ours_bounded(method)
            rows.append(run_lib(f"rtsnav {method} + bounds", setup, query, _load(map_path), queries))
        rows[-2]["setup_note"] = rows[-1]["setup_note"] = "setup: goal bounds built once for both rows"
        rows[-1]["setup_ms"] = rows[-2]["setup_ms"] = max(rows[-2]["setup_ms"], rows[-1]["setup_ms"])
    for peer in peers:
        setup, query, speed = PEERS[peer]
        rows.append(run_lib(peer, setup, query, grid, queries, slow_count if speed == "slow" else None))
    return {"map": grid.name, "size": f"{grid.width}x{grid.height}", "queries": label, "results": rows}


def print_table(report: dict) -> None:
    print(f"\n{report['map']} ({report['size']}): {report['queries']}")
    head = (f"{'library':<22}{'n':>4}{'setup ms':>10}{'prep MB':>8}{'median ms':>11}{'p95 ms':>9}{'expanded':>10}"
            f"{'legal %':>9}{'optimal %':>10}")
    print(head)
    print("-" * len(head))
    for r in report["results"]:
        exp = "" if r["expanded_median"] is None else str(r["expanded_median"])
        mb = "" if r.get("preprocessed_mb") is None else f"{r['preprocessed_mb']:.1f}"
        print(f"{r['library']:<22}{r['queries']:>4}{r['setup_ms']:>10.1f}{mb:>8}{r['median_ms']:>11.3f}"
              f"{r['p95_ms']:>9.2f}{exp:>10}{r['legal_pct']:>9.1f}{r['optimal_pct']:>10.1f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("maps", nargs="*", default=["AcrosstheCape.map", "scaled:1024", "Berlin_1_256.map"],
                    help=".map files (a .map.scen beside one is used), or scaled:SIZE")
    ap.add_argument("--queries", type=int, default=60, help="queries per map (default 60)")
    ap.add_argument("--slow-queries", type=int, default=10, help="queries for the pure-Python peer (default 10)")
    ap.add_argument("--peers", default=",".join(PEERS), help="comma-separated peers to run")
    ap.add_argument("--json", type=Path, help="write the results here")
    args = ap.parse_args(argv)
    peers = [p for p in args.peers.split(",") if p]
    jit = jit_times()
    warm_up()
    print(f"rtsnav numba kernels: compile {jit['compile_s']:.2f} s (empty cache), "
          f"load {jit['cache_load_s']:.2f} s (warm cache)")
    reports = [bench_map(m, args.queries, args.slow_queries, peers) for m in args.maps]
    for rep in reports:
        print_table(rep)
    from tests.benchmarks.report import save_json

    save_json(args.json, {"jit": jit, "maps": reports})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
