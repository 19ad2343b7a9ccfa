"""Write ``docs/benchmarks.md`` (and its plots) from the benchmarks' JSON.

    python tests/benchmarks/write_docs.py [--results bench-results] [--out docs/benchmarks.md]

Run by ``make bench`` after the benchmarks. One section per JSON file: the command, machine, date
and commit it came from, and its results as tables (any list of records, record of records or
record of numbers becomes a table). Plots (matplotlib, the ``bench`` extra) where the data has
a scale: grid search time per library against the peers, crowd tick time against agent count,
and avoidance against RVO2. Only the current numbers: each run overwrites the page.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The order sections appear in (others follow alphabetically).
ORDER = ("grid_search", "crowd", "crowd_flows", "flow_crowd", "hierarchy", "navmesh", "layered_navmesh", "cold_start", "ecs_tick",
         "demo_frame", "dynamic", "eikonal")
MAX_ROWS = 60
MAX_COLUMNS = 14


def scalar(value) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def cell(value) -> str:
    if isinstance(value, float):
        return f"{value:,.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return "" if value is None else str(value).replace("|", "/")


def flatten(record: dict) -> dict:
    """A record's scalars, with nested records of scalars joined into it as ``outer/inner``
    columns (a leaf name that every column of one nested record shares is left out)."""
    out: dict = {}
    for key, value in record.items():
        if scalar(value):
            out[key] = value
        elif isinstance(value, dict):
            leaves: dict = {}

            def walk(prefix: list[str], node) -> None:
                for k, v in node.items():
                    if scalar(v):
                        leaves[tuple(prefix + [str(k)])] = v
                    elif isinstance(v, dict):
                        walk(prefix + [str(k)], v)

            walk([str(key)], value)
            if len(leaves) > 1 and len({path[-1] for path in leaves}) == 1 and all(len(p) > 2 for p in leaves):
                leaves = {path[:-1]: v for path, v in leaves.items()}
            out.update({"/".join(path): v for path, v in leaves.items()})
    return out


def table(rows: list[dict]) -> list[str]:
    """Markdown tables of records: consecutive records with the same (flattened) keys share one
    table; a record too wide for a row (more than ``MAX_COLUMNS`` keys) gets a two-column table
    of its own, titled by its first value."""
    flat = [flatten(row) for row in rows]
    out: list[str] = []
    k = 0
    while k < len(flat):
        end = k + 1
        columns = list(flat[k])
        # rows that share most of their columns (a few extra ones: blank cells) go in one table
        while end < len(flat):
            extra = [c for c in flat[end] if c not in columns]
            shared = len(flat[end]) - len(extra)
            if len(columns) + len(extra) > MAX_COLUMNS or shared * 2 < len(flat[end]) or shared * 2 < len(columns):
                break
            columns += extra
            end += 1
        if len(columns) > MAX_COLUMNS:
            for row in flat[k:end]:
                first = next(iter(row.values()), "")
                body = {c: v for c, v in row.items() if v is not None and v != ""}
                out += [f"**{cell(first)}**", "", "| | |", "|---|---|"]
                out += [f"| {c} | {cell(v)} |" for c, v in list(body.items())[1:]] + [""]
        elif columns:
            out += ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
            out += ["| " + " | ".join(cell(row.get(c)) for c in columns) + " |" for row in flat[k:end][:MAX_ROWS]]
            if end - k > MAX_ROWS:
                out.append(f"\n({end - k - MAX_ROWS} more rows in the JSON)")
            out.append("")
        k = end
    return out


def lists_in(record: dict) -> dict:
    """The parts of a record a table cannot hold (lists, and records holding lists)."""
    return {k: v for k, v in record.items() if isinstance(v, list) or (isinstance(v, dict) and any(
        isinstance(x, list) for x in v.values()))}


def name_of(record: dict, fallback: str) -> str:
    """A heading for a record: its scalar strings (a map's name and size, a library)."""
    words = [str(v) for v in record.values() if isinstance(v, str)][:2]
    return " ".join(words) if words else fallback


def render(data, title: str, depth: int) -> list[str]:
    """Tables for ``data``; the parts a table cannot hold get their own headings."""
    head = [f"{'#' * min(depth, 5)} {title}", ""] if title else []
    if isinstance(data, list) and data and all(isinstance(r, dict) for r in data):
        nested = [(name_of(r, f"{title} {i + 1}"), lists_in(r)) for i, r in enumerate(data)]
        if all(rest for _, rest in nested):          # records that each hold lists: one section each
            out = list(head)
            for name, rest in nested:
                out += [f"{'#' * min(depth + 1, 5)} {name}", ""]
                for key, value in rest.items():
                    out += render(value, "", depth + 2) if len(rest) == 1 else render(value, key, depth + 2)
            return out
        return head + table(data) + [""]
    if isinstance(data, dict):
        flat = {k: v for k, v in data.items() if scalar(v)}
        records = {k: v for k, v in data.items() if isinstance(v, dict) and v and not lists_in(v)}
        rest = {k: v for k, v in data.items() if k not in flat and k not in records}
        out = list(head)
        if flat:
            out += ["| | |", "|---|---|"] + [f"| {k} | {cell(v)} |" for k, v in flat.items()] + [""]
        if records:
            out += table([{"": k, **v} for k, v in records.items()]) + [""]
        for key, value in rest.items():
            out += render(value, str(key), depth + 1)
        return out
    if isinstance(data, list):
        return head + [", ".join(cell(v) for v in data), ""]
    return head + [cell(data), ""]


def plot_grid_search(results: dict, out_dir: Path) -> list[str]:
    """Median query time per library on each map, log scale."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    maps = results.get("maps") or []
    if not maps:
        return []
    fig, axes = plt.subplots(1, len(maps), figsize=(5 * len(maps), 4), squeeze=False)
    for ax, report in zip(axes[0], maps):
        rows = sorted(report["results"], key=lambda r: r["median_ms"])
        names = [r["library"] for r in rows]
        colours = ["tab:blue" if n.startswith("rtsnav") else "tab:grey" for n in names]
        ax.barh(names, [max(r["median_ms"], 1e-3) for r in rows], color=colours)
        ax.set_xscale("log")
        ax.set_xlabel("median ms per query (log)")
        ax.set_title(f"{report['map']} ({report['size']})", fontsize=9)
        ax.tick_params(axis="y", labelsize=7)
    fig.tight_layout()
    path = out_dir / "bench_grid_search.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return [f"![grid search against the peers]({path.name})", ""]


def plot_crowd(results: dict, out_dir: Path) -> list[str]:
    """Crowd tick time against agent count (per kind), and the avoidance circle against RVO2."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scale = [r for r in results.get("scale", []) if "agents" in r and "crowd_tick_ms" in r]
    circles = [r for r in results.get("avoidance", []) if "library" in r and "agents" in r]
    if not scale and not circles:
        return []
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for kind in sorted({r["kind"] for r in scale}):
        pts = sorted((r["agents"], r["crowd_tick_ms"]) for r in scale if r["kind"] == kind)
        axes[0].plot(*zip(*pts), marker="o", label=kind)
    axes[0].set(xscale="log", yscale="log", xlabel="agents", ylabel="ms per tick", title="crowd tick")
    for library in sorted({r["library"] for r in circles}):
        pts = sorted((r["agents"], r["ms_per_tick"]) for r in circles if r["library"] == library)
        axes[1].plot(*zip(*pts), marker="o", label=library)
    axes[1].set(xscale="log", yscale="log", xlabel="agents", ylabel="ms per tick", title="avoidance: circle scene")
    for ax in axes:
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    fig.tight_layout()
    path = out_dir / "bench_crowd.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return [f"![crowd tick time against agents, and against RVO2]({path.name})", ""]


PLOTS = {"grid_search": plot_grid_search, "crowd": plot_crowd}


def section(name: str, payload: dict, out_dir: Path) -> list[str]:
    meta = payload.get("meta", {})
    results = payload.get("results", {k: v for k, v in payload.items() if k != "meta"})
    lines = [f"## {name}", ""]
    for key in ("command", "machine", "date", "commit"):
        if key in meta:
            lines.append(f"- {key}: `{meta[key]}`" if key == "command" else f"- {key}: {meta[key]}")
    lines.append("")
    if name in PLOTS:
        try:
            lines += PLOTS[name](results, out_dir)
        except ImportError:
            lines += ["(plots need matplotlib: `pip install -e '.[bench]'`)", ""]
    return lines + render(results, "", 2)


def write(results_dir: Path, out: Path) -> int:
    files = {p.stem: p for p in sorted(results_dir.glob("*.json"))}
    if not files:
        print(f"no benchmark JSON in {results_dir}: run `make bench` first", file=sys.stderr)
        return 1
    names = [n for n in ORDER if n in files] + sorted(n for n in files if n not in ORDER)
    lines = ["# Benchmarks", "",
             "Written by `make bench` (`tests/benchmarks/write_docs.py`) from the JSON the benchmarks wrote; each",
             "section names the command, machine, date and commit of its run. Times vary by ±15–30% between",
             "runs on a shared machine; the ratios against the peers, measured in the same run, hold.", ""]
    lines += [f"- [{n}](#{n})" for n in names] + [""]
    for name in names:
        lines += section(name, json.loads(files[name].read_text()), out.parent)
    out.write_text("\n".join(lines).rstrip() + "\n")
    print(f"wrote {out} ({len(names)} benchmarks)")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=ROOT / "bench-results")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks.md")
    args = ap.parse_args(argv)
    return write(args.results, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
