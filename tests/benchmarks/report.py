"""Shared by the benchmarks: write results as JSON beside the printed table, with what
``write_docs.py`` needs to say where they came from (command, machine, date, commit)."""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def machine() -> str:
    """CPU model, cores, memory and OS of this machine, in one line."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {kib / 2**20:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return f"{model}, {os.cpu_count()} cores{memory}, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def commit() -> str:
    """The repository's commit, with "+ changes" when the tree differs from it."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True).stdout.strip()
        return head + (" + changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def meta() -> dict:
    """Where a benchmark's numbers come from."""
    script = Path(sys.argv[0])
    try:
        script = script.resolve().relative_to(ROOT)
    except ValueError:
        pass
    return {"command": " ".join(["python", str(script), *sys.argv[1:]]), "machine": machine(),
            "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"), "commit": commit()}


def save_json(path: Path | None, data) -> None:
    """Write ``{"meta": meta(), "results": data}`` to ``path`` (parents created) and say so;
    nothing when ``path`` is None."""
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"meta": meta(), "results": data}, indent=2, default=str))
    print(f"wrote {path}")
