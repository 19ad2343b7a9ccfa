"""Level tools: ``python -m levels bake MAP [--cache DIR]``.

``bake`` builds what a level needs before play — the waypoint hierarchy and the flow-field sector
tiles — with progress bars, and caches the hierarchy on disk (format version + checksum; a
corrupt or stale cache file is rebuilt).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tqdm import tqdm

from levels import LevelError, load_movingai_map
from systems.nav.errors import NavError

DEFAULT_CACHE = Path(__file__).resolve().parent / "cache"


def _bar(desc: str):
    bars: dict[str, tqdm] = {}

    def progress(stage: str, done: int, total: int) -> None:
        bar = bars.get(stage)
        if bar is None:
            bar = bars[stage] = tqdm(total=max(total, 1), desc=f"{desc}: {stage}", unit="cluster", leave=True)
        bar.n = done
        bar.refresh()
        if done >= total:
            bar.close()

    return progress


def bake(args) -> int:
    from systems.nav.flow.sectors import SectorGraph
    from systems.nav.waypoints.hierarchy import Hierarchy

    grid = load_movingai_map(args.map)
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
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m levels", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("bake", help="build and cache a level's navigation data")
    b.add_argument("map", help="a Moving AI .map (a name from levels/maps/ or a path)")
    b.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help=f"cache folder (default {DEFAULT_CACHE})")
    b.add_argument("--levels", type=int, default=3)
    b.add_argument("--cluster-size", type=int, default=32)
    args = ap.parse_args(argv)
    try:
        return bake(args)
    except (LevelError, NavError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
