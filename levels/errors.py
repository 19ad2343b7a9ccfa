"""Errors for level and map files: they name the file, line and column, and what was expected."""

from __future__ import annotations

from pathlib import Path


class LevelError(ValueError):
    """A level, map or scenario file is malformed.

    The message reads ``path:line:col: what is wrong (expected ...)``; the parts are also
    available as attributes. ``line`` and ``col`` are 1-based; 0 means "not applicable".
    """

    def __init__(self, path: str | Path, line: int, col: int, message: str) -> None:
        self.path = str(path)
        self.line = int(line)
        self.col = int(col)
        self.message = message
        where = self.path
        if line:
            where += f":{line}"
            if col:
                where += f":{col}"
        super().__init__(f"{where}: {message}")
