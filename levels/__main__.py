"""Level tools: ``python -m rtsnav.levels list | validate FILE | show FILE --out map.png | bake FILE``.

* ``list``: the built-in levels.
* ``validate FILE``: load and check a level (``.toml``, a built-in name, or a Moving AI ``.map``);
  mistakes are reported as ``file:line:col: what is wrong``.
* ``show FILE --out map.png``: a picture of the level, optionally with a path, flow-field
  arrows or hierarchy clusters on top.
* ``bake FILE``: build what a level needs before play — the waypoint hierarchy, the flow-field
  sector tiles, the navmesh and the JPS+ jump table — with progress bars; the hierarchy, the
  navmesh and the JPS+ table are cached on disk (format version + checksum; a corrupt or stale
  cache file is rebuilt).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from rtsnav.levels.cli import CliError, add_debug_flag, png_file, positive_int, run_command
from rtsnav.levels.level_file import builtin_levels, load_level
from rtsnav.levels.scenes import SCENES, scene
from rtsnav.systems.nav.bake_cache import default_cache_dir

DEFAULT_CACHE = default_cache_dir()      # the user's cache dir ($RTSNAV_CACHE_DIR overrides), never the package


def _bar(desc: str, unit: str = "cluster"):
    bars: dict[str, tqdm] = {}

    def progress(stage: str, done: int, total: int) -> None:
        bar = bars.get(stage)
        if bar is None:
            bar = bars[stage] = tqdm(total=max(total, 1), desc=f"{desc}: {stage}", unit=unit, leave=True)
        bar.n = done
        bar.refresh()
        if done >= total:
            bar.close()

    return progress


def _check_writable(folder: Path) -> None:
    """``bake`` saves into ``folder``: refuse at once (``error:``, exit 2) when it cannot be
    written, rather than baking into memory and saying "cached"."""
    import tempfile

    from rtsnav.systems.nav import NavError

    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-test-"):
            pass
    except OSError as e:
        raise NavError(f"cannot write the cache folder {folder}: {e.strerror or e} (bake saves its results there; "
                       "pass --cache with a folder you can write)") from None


def bake(args) -> int:
    """Bake every map of ``args.map`` (one or more); goal bounds on ``--scheduler``'s Dask cluster."""
    client = None
    if args.scheduler:
        if not args.goal_bounds:
            raise CliError("--scheduler runs the goal-bounds bake: add --goal-bounds")
        try:
            from dask.distributed import Client
        except ImportError:
            raise CliError("--scheduler needs Dask: pip install 'rtsnav[bake]'") from None
        try:
            client = Client(args.scheduler, timeout="10s")
        except (OSError, TimeoutError, ValueError) as e:
            raise CliError(f"cannot reach the Dask scheduler at {args.scheduler!r}: {e}") from None
    try:
        for name in args.map:
            if len(args.map) > 1:
                print(f"== {name}")
            _bake_one(args, name, client)
    finally:
        if client is not None:
            client.close()
    return 0


def _bake_one(args, name: str, client) -> None:
    from rtsnav.systems.nav.flow.sectors import SectorGraph
    from rtsnav.systems.nav.waypoints.hierarchy import Hierarchy

    _check_writable(args.cache)
    grid = load_level(name).grid
    t = time.perf_counter()
    h = Hierarchy.cached(grid, args.cache, levels=args.levels, cluster_size=args.cluster_size,
                         progress=_bar("hierarchy"))
    what = "built" if any(h.rebuilt) else "loaded from cache"
    print(f"hierarchy {what} in {time.perf_counter() - t:.2f} s: {h.levels} levels, clusters "
          f"{h.sizes}, {h.node_count} waypoints, {h.memory_bytes() / 1e6:.1f} MB")
    t = time.perf_counter()
    bar = tqdm(total=1, desc="sector tiles", unit="sector")

    def tiles_progress(done: int, total: int) -> None:
        bar.total = total
        bar.n = done
        bar.refresh()

    tiles = SectorGraph(grid, 16, tiles_progress)
    bar.close()
    print(f"sector tiles built in {time.perf_counter() - t:.2f} s: {len(tiles.sectors)} sectors, "
          f"{tiles.portal_count} portals")
    from rtsnav.systems.nav import NavMesh

    t = time.perf_counter()
    mesh = NavMesh.cached(grid, args.cache, agent_radius=0.4, progress=_bar("navmesh", unit="step"))
    print(f"navmesh ready in {time.perf_counter() - t:.2f} s (cached): {mesh.polygon_count} polygons, "
          f"{int(mesh.vis_start[-1])} visibility edges, {mesh.landmarks.shape[1]} landmarks")
    from rtsnav.systems.nav.search.jps_plus import JumpTable

    t = time.perf_counter()
    table = JumpTable.cached(grid, args.cache, progress=_bar("jps+", unit="layer"))
    print(f"JPS+ jump table ready in {time.perf_counter() - t:.2f} s (cached): {table.memory_bytes / 1e6:.1f} MB")
    if args.goal_bounds:
        _bake_goal_bounds(grid, args.cache, client)
        _bake_mesh_goal_bounds(mesh, args.cache)


def _bake_mesh_goal_bounds(mesh, cache) -> None:
    """Goal bounds on the navmesh's visibility graph (one Dijkstra per convex corner)."""
    from rtsnav.systems.nav.errors import NavError
    from rtsnav.systems.nav.navmesh.mesh_bounds import MeshGoalBounds

    t = time.perf_counter()
    try:
        MeshGoalBounds.check_size(mesh)
    except NavError as e:
        print(f"goal bounds on the navmesh: {e}")
        return
    bounds = MeshGoalBounds.cached(mesh, cache, progress=_bar("navmesh goal bounds", unit="corner"))
    print(f"goal bounds of the navmesh ({len(mesh.query_tables().corner_ids):,} corners) ready in "
          f"{time.perf_counter() - t:.2f} s (cached): {bounds.memory_bytes / 1e6:.1f} MB")


def _bake_goal_bounds(grid, cache, client=None) -> None:
    """Goal bounds per cell at any size (maps over ``MAX_CELLS`` open cells in resumable chunks on
    Dask or local processes), and on larger maps the crowd's waypoint graph's too (one Dijkstra
    per waypoint: what its waypoint planner prunes with)."""
    from rtsnav.systems.nav.search.goal_bounds import MAX_CELLS, GoalBounds

    if not grid.is_uniform:
        print("goal bounds per cell: only on uniform-cost maps (this one has terrain costs)")
        return
    t = time.perf_counter()
    large = int(grid.passable.sum()) > MAX_CELLS
    if large or client is not None:
        where = f"Dask scheduler {client.scheduler.address}" if client is not None else "this machine's cores"
        print(f"goal bounds per cell: {GoalBounds.estimate(grid)}; on {where}, resumable (run again after a kill)")
    bounds = GoalBounds.cached(grid, cache, progress=_bar("goal bounds", unit="cell"), client=client)
    print(f"goal bounds ready in {time.perf_counter() - t:.2f} s (cached): {bounds.memory_bytes / 1e6:.1f} MB")
    if large:
        from rtsnav.systems.nav.crowd.rebuild import waypoint_seed
        from rtsnav.systems.nav.errors import NavError
        from rtsnav.systems.nav.waypoints.graph import WaypointGraph
        from rtsnav.systems.nav.waypoints.graph_bounds import GraphGoalBounds

        t = time.perf_counter()
        graph = WaypointGraph.cached_floodfill(grid, cache, waypoint_seed(grid), spacing=4)
        try:
            GraphGoalBounds.check_size(graph)
        except NavError as e:
            print(f"goal bounds of the waypoint graph: {e}")
            return
        on_graph = GraphGoalBounds.cached(graph, cache, progress=_bar("waypoint goal bounds", unit="waypoint"))
        print(f"goal bounds of the waypoint graph ({len(graph):,} waypoints) ready in "
              f"{time.perf_counter() - t:.2f} s (cached): {on_graph.memory_bytes / 1e6:.1f} MB")


def list_levels(args) -> int:
    for name in builtin_levels():
        level = load_level(name)
        print(f"{name:<12} {level.grid.width}x{level.grid.height}  {level.description}")
    return 0


def validate(args) -> int:
    level = load_level(args.map)
    g = level.grid
    print(f"{args.map}: ok — {level.name!r}, {g.width}x{g.height}, {int(g.passable.sum())} walkable cells, "
          f"teams {sorted(level.spawns)}, {len(level.waypoints)} waypoints, gates {sorted(level.gates) or 'none'}")
    return 0


def show(args) -> int:
    from rtsnav.levels.picture import level_image, write_png
    from rtsnav.systems.nav import debug_draw as dd
    from rtsnav.systems.nav import find_path
    from rtsnav.systems.nav.flow import FlowField

    overlays = [o.strip() for o in args.overlay.split(",") if o.strip()]
    unknown = [o for o in overlays if o not in OVERLAYS]
    if unknown:
        raise CliError(f"unknown overlay {', '.join(map(repr, unknown))}; choose from {', '.join(OVERLAYS)}")
    if args.scale is not None and not 1 <= args.scale <= MAX_SCALE:
        raise CliError(f"--scale must be 1..{MAX_SCALE} pixels per cell, got {args.scale}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if args.map in SCENES:
        if overlays:
            raise CliError(f"--overlay draws on grid levels; the {args.map!r} scene's picture shows its surfaces "
                           "and routes already (drop --overlay)")
        return _show_scene(args)
    level = load_level(args.map)
    grid = level.grid
    scale = _checked_scale(args.scale or max(1, min(MAX_SCALE, 960 // max(grid.width, grid.height))),
                           max(grid.width, grid.height))
    draw = dd.DebugDraw()
    teams = sorted(level.spawns)
    for team in teams:                                   # spawn areas: a ring on each team's centre
        c = np.asarray(level.spawns[team]).mean(axis=0)
        rgb = {1: (0.3, 0.6, 1.0), 2: (1.0, 0.35, 0.25)}.get(team, (0.9, 0.9, 0.9))
        draw = draw + dd.markers(grid, grid.cells_to_world(c[None].astype(np.int64))[:, :2], rgb,
                                 f"team {team} spawn", radius=max(2.0, grid.width / 40) * grid.cell_size)
    a: tuple[int, int] | None = None                    # a route from team 1's spawn to team 2's
    b: tuple[int, int] = (0, 0)
    if len(teams) >= 2 and all(len(level.spawns[t]) for t in teams[:2]):
        sa, sb = level.spawns[teams[0]], level.spawns[teams[1]]
        a = (int(sa[len(sa) // 2][0]), int(sa[len(sa) // 2][1]))
        b = (int(sb[len(sb) // 2][0]), int(sb[len(sb) // 2][1]))
        if overlays:
            draw = draw + dd.markers(grid, grid.cells_to_world(np.array([b]))[:, :2], "goal", "goal",
                                     radius=max(1.0, grid.width / 80) * grid.cell_size)
    if a is not None and "paths" in overlays:
        r = find_path(grid, a, b)
        if r.found:
            draw = draw + dd.paths(grid, [grid.cells_to_world(r.cells)[:, :2]], label="A* path")
    if a is not None and "flow" in overlays:
        field = FlowField.build(grid, [b])
        draw = draw + dd.vector_field(grid, field, step=max(2, max(grid.shape) // 48), label="flow field to the goal")
    if "hierarchy" in overlays:
        from rtsnav.systems.nav import Hierarchy

        h = Hierarchy.build(grid, levels=2, cluster_size=max(8, max(grid.shape) // 6))
        route = getattr(h.plan(a, b), "waypoints", None) if a is not None else None
        draw = draw + dd.hierarchy(grid, h, route=route)
    mesh = None
    if "navmesh" in overlays or "visibility" in overlays:
        from rtsnav.systems.nav import NavMesh

        mesh = NavMesh.from_grid(grid, agent_radius=0.0)
        if "navmesh" in overlays:
            corridor, mesh_paths = None, []
            if a is not None:
                mesh_route = mesh.find_path((a[0] + 0.5, a[1] + 0.5, 0.0), (b[0] + 0.5, b[1] + 0.5, 0.0))
                if mesh_route.points is not None and len(mesh_route.points) >= 2:
                    corridor, mesh_paths = mesh.polygons_along(mesh_route.points), [mesh_route.points]
            draw = draw + dd.navmesh(mesh, corridor=corridor) + dd.paths(grid, mesh_paths, "route",
                                                                         label="navmesh path")
    img = level_image(level, scale, draw, query_layer=mesh if "visibility" in overlays else None)
    write_png(args.out, img)
    print(f"wrote {args.out} ({img.shape[1]}x{img.shape[0]})")
    return 0


def _show_scene(args) -> int:
    """``show`` for a built-in 3D scene (``levels/scenes.py``): its layered navmesh, every
    surface, with the demo's routes on it."""
    from rtsnav.levels.picture import layered_image, write_png
    from rtsnav.systems.nav import LayeredNavMesh

    built = scene(args.map)
    vertices, triangles, walkable = built.soup()
    mesh = LayeredNavMesh.from_triangles(vertices, triangles, walkable=walkable, agent_radius=0.4,
                                         cell_size=0.4 / 3)
    palette = [(0.9, 0.2, 0.2), (0.2, 0.45, 0.95), (0.95, 0.55, 0.1), (0.7, 0.3, 0.85)]
    paths = []
    for (name, (a, b)), color in zip(built.routes.items(), palette):
        r = mesh.find_path(a, b)
        if len(r.points):
            paths.append((r.points, color, f"{name} ({r.cost:.0f})"))
    scale = _checked_scale(args.scale or max(1, min(MAX_SCALE, 960 // max(mesh.shape))), max(mesh.shape))
    write_png(args.out, layered_image(mesh, scale, paths))
    print(f"wrote {args.out}: scene {args.map}, {mesh.span_count:,} spans, up to {mesh.layer_count} surfaces a cell")
    return 0


def _checked_scale(scale: int, cells: int) -> int:
    """``scale`` when the picture's longer side (``cells`` of it) stays within ``MAX_SIDE``
    pixels, else ``CliError`` (a 768² map at 64 pixels a cell asked for 6.75 GiB)."""
    if scale * cells > MAX_SIDE:
        raise CliError(f"--scale {scale} makes a picture {scale * cells:,} pixels wide; at most {MAX_SIDE:,} "
                       f"(--scale {max(1, MAX_SIDE // cells)} or less for this {cells}-cell side)")
    return scale


#: Overlay names ``show`` draws.
OVERLAYS = ("paths", "flow", "hierarchy", "navmesh", "visibility")
#: Largest ``--scale`` (pixels per cell) ``show`` accepts ...
MAX_SCALE = 64
#: ... and longest side of its picture, pixels (16,384² RGB is 768 MiB).
MAX_SIDE = 16384


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="rtsnav-levels", description=__doc__.splitlines()[0])
    add_debug_flag(ap)
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the built-in levels")
    v = sub.add_parser("validate", help="load and check a level file")
    v.add_argument("map")
    s = sub.add_parser("show", help="write a picture of a level")
    s.add_argument("map")
    s.add_argument("--out", type=png_file, default=Path("map.png"), help="the PNG to write (default: map.png)")
    s.add_argument("--scale", type=int, default=None,
                   help=f"pixels per cell, 1..{MAX_SCALE} (default: the longer side about 960 pixels)")
    s.add_argument("--overlay", default="", help=f"comma list of: {', '.join(OVERLAYS)}")
    b = sub.add_parser("bake", help="build and cache a level's navigation data")
    b.add_argument("map", nargs="+", help="levels (.toml, built-in names) or Moving AI .map files")
    b.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help=f"cache folder (default {DEFAULT_CACHE})")
    b.add_argument("--levels", type=positive_int, default=3)
    b.add_argument("--cluster-size", type=positive_int, default=32)
    b.add_argument("--goal-bounds", action="store_true",
                   help="also build goal bounds: per cell at any map size (one Dijkstra per open cell; "
                        f"beyond {65_536:,} open cells in resumable chunks on Dask or local processes), on "
                        "the crowd's waypoint graph of large maps, and on the navmesh (one per convex corner)")
    b.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="a Dask scheduler (tcp://host:8786) to run the goal-bounds bake on (needs rtsnav[bake])")
    for p in (v, s, b):
        add_debug_flag(p, subcommand=True)
    args = ap.parse_args(argv)
    command = {"list": list_levels, "validate": validate, "show": show, "bake": bake}[args.command]
    return run_command(command, args)


if __name__ == "__main__":
    raise SystemExit(main())
