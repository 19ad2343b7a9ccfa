"""Errors for level and map files: they name the file, line and column, and what was expected."""

from __future__ import annotations

import stat
from pathlib import Path

#: The largest file the loaders read (a level, orders, map or scenario file is far smaller; a
#: bigger one is a mistake that would fill memory before any check could speak).
MAX_FILE_BYTES = 256 * 1024 * 1024


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


def read_text_file(path: Path, what: str, encoding: str = "utf-8-sig") -> str:
    """The text of ``path``, a regular file of at most ``MAX_FILE_BYTES``, else ``LevelError``
    saying why (missing, a folder, a fifo or device that would block forever, too big, not
    readable, not text in ``encoding``)."""
    try:
        info = path.stat()
    except OSError as e:
        raise LevelError(path, 0, 0, f"cannot read {what}: {e.strerror or e}") from None
    if not stat.S_ISREG(info.st_mode):
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file (a fifo, socket or device)"
        raise LevelError(path, 0, 0, f"cannot read {what}: it is {kind}")
    if info.st_size > MAX_FILE_BYTES:
        raise LevelError(path, 0, 0, f"{what} is {info.st_size / 2**20:.0f} MiB; at most "
                         f"{MAX_FILE_BYTES // 2**20} MiB is read")
    try:
        return path.read_text(encoding=encoding)
    except UnicodeDecodeError as e:
        line = path.read_bytes()[: e.start].count(b"\n") + 1
        raise LevelError(path, line, 0, f"{what} is not {encoding.replace('-sig', '').upper()} text") from None
    except OSError as e:
        raise LevelError(path, 0, 0, f"cannot read {what}: {e.strerror or e}") from None
