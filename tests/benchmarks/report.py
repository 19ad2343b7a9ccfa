"""Shared by the benchmarks: write results as JSON beside the printed table."""

from __future__ import annotations

import json
from pathlib import Path


def save_json(path: Path | None, data) -> None:
    """Write ``data`` to ``path`` (parents created) and say so; nothing when ``path`` is None."""
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, default=str))
    print(f"wrote {path}")
