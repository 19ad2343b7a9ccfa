"""Baked navigation data on disk (hierarchy, navmesh): one checksummed npz format, a reader that
refuses anything damaged, of another format version or baked for another grid, and load-or-bake.

A file holds ``version``, ``meta`` (the baker's parameters), ``grid`` (a digest of the grid and
parameters it was baked for), ``data`` (an inner npz of the arrays) and ``checksum`` (an
HMAC-SHA256 over all of them: a changed parameter, origin or digest is caught like a flipped
byte). The HMAC's key is a secret kept outside the cache folder (``cache_key``), so a file made
by anyone who can write the cache folder but not read the key fails the check and is rebaked:
an unkeyed hash let a forged file with in-range but wrong values (goal bounds that prune the
right way out) pass. A studio that ships its bakes sets ``RTSNAV_CACHE_KEY`` when baking and in
the game.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import os
import stat
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import numpy as np

from .errors import NavError
from .grid import Grid

__all__ = ["grid_digest", "write_baked", "read_baked", "require", "check_indices", "check_offsets", "load_or_bake",
           "default_cache_dir", "cache_key", "loading_only", "NotBaked"]

#: Cache folders already reported unwritable (one warning each per process).
_WARNED_UNWRITABLE: set[str] = set()


def _scratch_name(path: Path, suffix: str) -> Path:
    """A temporary name beside ``path`` that no other process *or thread* uses: two threads baking
    the same file under one pid wrote into one temporary file (a torn bake, and the loser's rename
    reported the folder as unwritable)."""
    return path.with_name(f".{path.stem}.{os.getpid()}.{threading.get_ident()}{suffix}")


def default_cache_dir() -> Path:
    """Where bakes are cached unless told otherwise: ``$RTSNAV_CACHE_DIR`` when set, else the
    user's cache directory (``platformdirs``: ``~/.cache/rtsnav`` on Linux, following XDG) —
    never the installed package."""
    env = os.environ.get("RTSNAV_CACHE_DIR")
    if env:
        return Path(env)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("rtsnav", appauthor=False))

T = TypeVar("T")

_KEY: bytes | None = None


def cache_key() -> bytes:
    """The secret the caches' checksums are keyed with: ``$RTSNAV_CACHE_KEY`` when set (a studio
    shipping its bakes), else 32 random bytes made once per user and kept, readable by the user
    only, in the user's config folder (``~/.config/rtsnav/cache-key``), outside the cache folder.
    Where that cannot be kept, a key for this process only (bakes are then not reused), with one
    ``RuntimeWarning``."""
    global _KEY
    if _KEY is not None:
        return _KEY
    env = os.environ.get("RTSNAV_CACHE_KEY")
    if env:
        _KEY = env.encode()
        return _KEY
    from platformdirs import user_config_dir

    path = Path(user_config_dir("rtsnav", appauthor=False)) / "cache-key"
    try:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = _scratch_name(path, ".tmp")
            # O_EXCL, never O_TRUNC: a name shared with a key already linked into place would
            # truncate the key itself
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(os.urandom(32))
            try:
                os.link(tmp, path)                  # atomic: of two processes making it, one key wins
            except FileExistsError:
                pass
            finally:
                tmp.unlink(missing_ok=True)
        key = path.read_bytes()
        if len(key) < 16:
            raise OSError(f"{path} holds {len(key)} bytes, expected 32")
        _KEY = key
    except OSError as e:
        warnings.warn(f"cannot keep the bake caches' key in {path} ({e}); caches made in this run are not "
                      "reused by the next", RuntimeWarning, stacklevel=2)
        _KEY = os.urandom(32)
    return _KEY


def grid_digest(grid: Grid, params: tuple, heights: bool = True) -> str:
    """sha256 of the grid's passability, costs (and heights) and ``params``."""
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(grid.passable).tobytes())
    h.update(np.ascontiguousarray(grid.cost).tobytes())
    if heights and grid.heights is not None:
        h.update(np.ascontiguousarray(grid.heights).tobytes())
    h.update(repr(params).encode())
    return h.hexdigest()


def write_baked(path: str | Path, version: int, meta: np.ndarray, arrays: dict[str, np.ndarray],
                grid: str = "", compress: bool = False) -> None:
    """Write ``arrays`` with ``meta`` to ``path`` in the checksummed format."""
    payload = io.BytesIO()
    np.savez(payload, **arrays)  # type: ignore[arg-type]  # numpy stubs type **kwds as bool
    data = payload.getvalue()
    meta = np.ascontiguousarray(np.asarray(meta, dtype=np.float64))
    save = np.savez_compressed if compress else np.savez
    save(path, version=np.array(version), meta=meta, grid=np.array(grid),
         data=np.frombuffer(data, dtype=np.uint8), checksum=np.array(_checksum(version, meta, grid, data)))


def _checksum(version: int, meta: np.ndarray, grid: str, data: bytes) -> str:
    h = hmac.new(cache_key(), digestmod=hashlib.sha256)
    h.update(str(int(version)).encode())
    h.update(np.ascontiguousarray(meta, dtype=np.float64).tobytes())
    h.update(grid.encode())
    h.update(data)
    return h.hexdigest()


def read_baked(path: str | Path, version: int, kind: str) -> tuple[np.ndarray, dict[str, np.ndarray], str]:
    """``(meta, arrays, grid digest)`` from ``path``. Raises ``NavError`` naming the file when it
    is unreadable, of another format version, or corrupt (or not a regular file: a fifo would
    block ``np.load`` forever)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise NavError(f"{path}: not a regular file")
        with np.load(path, allow_pickle=False) as f:
            found, meta, digest = int(f["version"]), f["meta"], str(f["grid"])
            data, checksum = f["data"].tobytes(), str(f["checksum"])
    except Exception as e:                                       # noqa: BLE001 - any damage
        raise NavError(f"{path}: unreadable {kind} cache ({type(e).__name__}: {e})") from None
    if found != version:
        raise NavError(f"{path}: format version {found}, expected {version}")
    if not hmac.compare_digest(_checksum(found, meta, digest, data), checksum):
        raise NavError(f"{path}: checksum mismatch (corrupt, or made without this user's cache key)")
    with np.load(io.BytesIO(data), allow_pickle=False) as f:
        arrays = {name: f[name] for name in f.files}
    return meta, arrays, digest


def require(arrays: dict[str, np.ndarray], names, path: str | Path, kind: str) -> None:
    """``NavError`` naming the file when any of ``names`` is missing from a cache's arrays."""
    missing = [n for n in names if n not in arrays]
    if missing:
        raise NavError(f"{path}: {kind} cache lacks {', '.join(missing)} (incomplete file)")


def check_indices(path: str | Path, kind: str, name: str, values: np.ndarray, upper: int,
                  lowest: int = 0) -> None:
    """``NavError`` naming the file unless ``values`` are integers in ``[lowest, upper)``: the
    kernels do not check bounds, so a cache's indexes are checked before any kernel reads them
    (a forged file must not crash the process)."""
    values = np.asarray(values)
    if values.size == 0:
        return
    if not np.issubdtype(values.dtype, np.integer):
        raise NavError(f"{path}: {kind} cache's {name} is {values.dtype}, expected integers")
    low, high = int(values.min()), int(values.max())
    if low < lowest or high >= upper:
        raise NavError(f"{path}: {kind} cache's {name} holds {low if low < lowest else high}, "
                       f"outside {lowest} .. {upper - 1}")


def check_values(path: str | Path, kind: str, name: str, values: np.ndarray, shape: tuple, low: float = -np.inf,
                 high: float = np.inf, allow_inf: bool = False) -> None:
    """``NavError`` naming the file unless ``values`` is a numeric array of ``shape`` (``-1``: any
    length there) with every value in ``[low, high]`` (NaN never; ``inf`` only with ``allow_inf``):
    coordinates and costs of a forged file are checked as its indexes are."""
    values = np.asarray(values)
    if values.ndim != len(shape) or any(want not in (-1, got) for want, got in zip(shape, values.shape)):
        raise NavError(f"{path}: {kind} cache's {name} has shape {values.shape}, expected {shape}")
    if values.dtype.kind not in "iuf":
        raise NavError(f"{path}: {kind} cache's {name} is {values.dtype}, expected numbers")
    if values.size == 0:
        return
    real = values[np.isfinite(values)] if allow_inf and values.dtype.kind == "f" else values
    if np.isnan(values).any() if values.dtype.kind == "f" else False:
        raise NavError(f"{path}: {kind} cache's {name} holds NaN")
    if real.size and (real.min() < low or real.max() > high or (not allow_inf and not np.isfinite(real).all())):
        raise NavError(f"{path}: {kind} cache's {name} holds values outside {low:g} .. {high:g}")
    if allow_inf and values.dtype.kind == "f" and (values == -np.inf).any():
        raise NavError(f"{path}: {kind} cache's {name} holds -inf")


def check_offsets(path: str | Path, kind: str, name: str, start: np.ndarray, rows: int, entries: int) -> None:
    """``NavError`` unless ``start`` is a CSR offset array: ``rows + 1`` non-decreasing integers
    from 0 to ``entries``."""
    start = np.asarray(start)
    if (len(start) != rows + 1 or not np.issubdtype(start.dtype, np.integer) or (rows + 1 and (
            int(start[0]) != 0 or int(start[-1]) != entries)) or (np.diff(start) < 0).any()):
        raise NavError(f"{path}: {kind} cache's {name} is no offset array of {rows} rows over {entries} entries")


class NotBaked(NavError):
    """Inside ``loading_only()``: the file a bake would be loaded from is missing or unusable."""


_LOADING_ONLY = threading.local()


@contextmanager
def loading_only() -> Iterator[None]:
    """Within it, ``load_or_bake`` on this thread loads but never bakes: where there is no usable
    file it raises ``NotBaked`` (a crowd in a tick loads a cached bake, and leaves baking to its
    worker)."""
    before = getattr(_LOADING_ONLY, "on", False)
    _LOADING_ONLY.on = True
    try:
        yield
    finally:
        _LOADING_ONLY.on = before


def load_or_bake(path: str | Path, load: Callable[[Path], T], bake: Callable[[], T]) -> T:
    """``load(path)`` if that works; otherwise ``bake()``, saved to ``path`` (a corrupt, forged,
    stale or incomplete file is rebuilt, with one ``RuntimeWarning`` saying why). The write is
    atomic (a temporary file renamed into place); a folder that cannot be written keeps the bake
    in memory, with one ``RuntimeWarning``."""
    path = Path(path)
    if path.exists():
        try:
            return load(path)
        except (NavError, KeyError, ValueError, IndexError, TypeError) as e:
            # damaged, forged or from another layout: bake again, and say so
            warnings.warn(f"rebaking {path.name}: {e}", RuntimeWarning, stacklevel=2)
    if getattr(_LOADING_ONLY, "on", False):
        raise NotBaked(f"no usable bake at {path}")
    baked = bake()
    tmp = _scratch_name(path, ".tmp.npz")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        baked.save(tmp)                              # type: ignore[attr-defined]
        os.replace(tmp, path)
    except OSError as e:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        if str(path.parent) not in _WARNED_UNWRITABLE:
            _WARNED_UNWRITABLE.add(str(path.parent))
            warnings.warn(f"cannot write the bake cache in {path.parent} ({e.strerror or e}); "
                          "baking in memory instead", RuntimeWarning, stacklevel=2)
    return baked
