"""The one validation layer: checks every public entry shares for what callers hand it.

Plain Python and numpy (no numba, esper or Panda3D), so every layer can use it: the algorithm
core passes ``error=NavError``, the level loaders ``LevelError``, the esper components keep
``ValueError``. Each check returns the value in the form the caller stores (a float, an int, a
tuple, an array) or raises ``error`` with a message that names the argument, says what was
expected and shows what came::

    radius = number(radius, "radius", low=0.0, high=8.0, error=NavError)
    cells = indices(edges, "edges", len(nodes), error=NavError)
    method = choice(method, "method", SEARCH_METHODS, error=NavError)

A new entry point gets the same checks and the same wording by calling these.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar, overload

import numpy as np

from .names import unknown_name

#: What a check raises: an exception class, or any callable that makes one from the message.
Raise = Callable[[str], BaseException]

__all__ = ["Raise", "number", "whole_number", "flag", "point", "points", "indices", "cells", "choice", "known_keys", "as_float",
           "float_array", "callback", "SetOnce", "snapshot_copy"]


def as_float(value: Any) -> float:
    """``value`` as a float, or NaN when it is not a number (a bool, a string, None, a list):
    the range check that follows then refuses it with its message. Text is not a number here
    (``"3"`` is a mistake in a call, not a value to parse)."""
    if isinstance(value, (bool, np.bool_, str, bytes)):
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return math.nan


def float_array(value: Any) -> np.ndarray:
    """``value`` as a float64 array; ``TypeError`` for complex numbers (NumPy would drop their
    imaginary part with only a warning: a mistake accepted in silence)."""
    if np.iscomplexobj(value):
        raise TypeError("complex numbers")
    return np.asarray(value, dtype=np.float64)


def _span(low: float, high: float, low_open: bool, high_open: bool) -> str:
    if math.isinf(low) and math.isinf(high):
        return ""
    if math.isinf(high):
        return f" {'>' if low_open else '>='} {low:g}"
    if math.isinf(low):
        return f" {'<' if high_open else '<='} {high:g}"
    return f" in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"


def number(value: Any, name: str, *, low: float = -math.inf, high: float = math.inf, low_open: bool = False,
           high_open: bool = False, error: Raise = ValueError) -> float:
    """``value`` as a finite float in the range (``low_open`` / ``high_open``: the bound itself
    is refused), else ``error("<name> must be a finite number in [low, high], got <value>")``."""
    v = as_float(value)
    ok = math.isfinite(v) and (v > low if low_open else v >= low) and (v < high if high_open else v <= high)
    if not ok:
        raise error(f"{name} must be a finite number{_span(low, high, low_open, high_open)}, got {value!r}")
    return v


def whole_number(value: Any, name: str, *, low: float = -math.inf, high: float = math.inf,
                 error: Raise = ValueError) -> int:
    """``value`` as an int (a Python or numpy integer, not a bool or a float) in ``[low, high]``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise error(f"{name} must be a whole number{_span(low, high, False, False)}, got {value!r}")
    return int(value)


def point(value: Any, name: str, *, dims: int | tuple[int, ...] = (2, 3),
          error: Raise = ValueError) -> tuple[float, ...]:
    """``value`` as a tuple of ``dims`` finite floats (NaN, None, a string or the wrong length refused)."""
    allowed = (dims,) if isinstance(dims, int) else dims

    def refused() -> BaseException:                  # the message made only when refusing: a
        # numpy point's repr cost ~0.1 ms, more than a short navmesh query itself
        return error(f"{name} must be {' or '.join(map(str, allowed))} finite numbers, got {value!r}")

    if isinstance(value, (str, bytes)):
        raise refused()
    try:
        values = tuple(as_float(v) for v in value)
    except TypeError:
        raise refused() from None
    if len(values) not in allowed or not all(math.isfinite(v) for v in values):
        raise refused()
    return values


def points(value: Any, name: str, *, dims: int | tuple[int, ...] = (2, 3),
           error: Raise = ValueError) -> np.ndarray:
    """``value`` as an ``(N, d)`` float64 array of finite points, ``d`` one of ``dims`` (one point
    alone is one row)."""
    allowed = (dims,) if isinstance(dims, int) else dims
    expected = f"{name} must be an (N, {' or '.join(map(str, allowed))}) array of finite numbers"
    try:
        arr = float_array(value)
    except (TypeError, ValueError, OverflowError):
        raise error(f"{expected}, got {value!r}") from None
    if arr.ndim == 1 and arr.shape[0] in allowed:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] not in allowed:
        raise error(f"{expected}, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise error(f"{expected}; row {int(np.flatnonzero(~np.isfinite(arr).all(axis=1))[0])} is not finite")
    return arr


def indices(value: Any, name: str, size: int, *, error: Raise = ValueError, missing: str = "") -> np.ndarray:
    """``value`` as an int64 array of indexes into something of ``size`` items (``0 <= i < size``;
    negative indexes are refused, not wrapped). ``missing``: the refusal of an index out of range
    in the caller's words, ``{}`` standing for the index (``"no agent with id {}"``)."""
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        raise error(f"{name} must be whole-number indexes 0..{size - 1}, got {value!r}") from None
    if arr.size == 0:
        return arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise error(f"{name} must be whole-number indexes 0..{size - 1}, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    bad = (arr < 0) | (arr >= size)
    if bad.any():
        first = int(arr[bad].flat[0])
        raise error(missing.format(first) if missing else f"{name} must be indexes 0..{size - 1}, got {first}")
    return arr


def cells(value: Any, name: str, width: int, height: int, *, error: Raise = ValueError,
          on_grid: bool = True) -> np.ndarray:
    """``value`` as an ``(N, 2)`` int64 array of ``(x, y)`` cells of a ``width`` × ``height``
    grid (one pair alone is one row; integral floats allowed; 3.7, NaN, True and text refused,
    never truncated; a cell off the grid refused, never wrapped). ``on_grid=False``: any cells
    within ±2**62 (off the grid too; ``width`` / ``height`` unused)."""
    where = f"of the {width}x{height} grid" if on_grid else "within ±2**62"
    expected = f"{name} must be an (N, 2) array of (x, y) integer cells {where}"
    if isinstance(value, (str, bytes)):
        raise error(f"{expected}, got {value!r}")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError, OverflowError):
        raise error(f"{expected}, got {value!r}") from None
    if arr.size == 0 and arr.ndim <= 2:
        return np.zeros((0, 2), dtype=np.int64)
    if arr.ndim == 1 and arr.shape[0] == 2:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise error(f"{expected}, got shape {arr.shape}")
    if arr.dtype.kind == "f":
        whole = np.isfinite(arr) & (arr == np.floor(arr)) if arr.size else np.ones(arr.shape, dtype=bool)
        if not whole.all():
            row = int(np.flatnonzero(~whole.all(axis=1))[0])
            raise error(f"{expected}; row {row} is {tuple(arr[row].tolist())}")
    elif arr.dtype.kind not in "iu":
        raise error(f"{expected}, got dtype {arr.dtype}")
    # compared before the cast: a huge value cannot wrap
    off = ((arr[:, 0] < 0) | (arr[:, 0] >= width) | (arr[:, 1] < 0) | (arr[:, 1] >= height) if on_grid
           else (np.abs(arr.astype(np.float64)) > 2.0 ** 62).any(axis=1))
    if off.any():
        row = int(np.flatnonzero(off)[0])
        raise error(f"{name}: cell {tuple(arr[row].tolist())} (row {row}) is outside the {width}x{height} grid"
                    if on_grid else f"{expected}; row {row} is {tuple(arr[row].tolist())}")
    return arr.astype(np.int64)


def flag(value: Any, name: str, *, error: Raise = ValueError) -> bool:
    """``value`` as a bool if it is True or False (numpy's too), else ``error``: a string such as
    ``"no"`` or a number is truthy and would silently mean the opposite."""
    if not isinstance(value, (bool, np.bool_)):
        raise error(f"{name} must be True or False, got {value!r}")
    return bool(value)


def callback(value: Any, name: str, *, error: Raise = ValueError) -> Callable[..., Any] | None:
    """``value`` if it is None or callable (a progress report, a factory), else ``error``: a
    number here would only fail later, in the middle of a build."""
    if value is not None and not callable(value):
        raise error(f"{name} must be a function (or None), got {value!r}")
    return value


def choice(value: Any, name: str, options: Iterable[str], *, error: Raise = ValueError) -> str:
    """``value`` if it is one of ``options``, else ``error`` with the closest option ("did you mean")."""
    options = tuple(options)
    if not isinstance(value, str) or value not in options:
        raise error(unknown_name(name, value, options))
    return value


def known_keys(keys: Iterable[str], allowed: Iterable[str], where: str, *,
               error: Raise = ValueError) -> None:
    """Refuse the first of ``keys`` not in ``allowed`` (a misspelt key of a file's table), naming
    ``where`` and the closest allowed key."""
    allowed = tuple(allowed)
    for key in keys:
        if key not in allowed:
            raise error((f"{where}: " if where else "") + unknown_name("key", key, allowed))


T = TypeVar("T")


def snapshot_copy(obj: T) -> T:
    """``__copy__`` for objects whose shallow copy would share mutable tables with the original
    (a grid, a crowd): ``copy.copy`` gives a snapshot of its own, as ``copy.deepcopy`` does. A
    shallow copy of a grid shared its cells, so the copy's edits closed cells of the original
    behind the original's caches; one of a crowd ticked the original's agents."""
    return copy.deepcopy(obj)


class SetOnce(Generic[T]):
    """A field its constructor sets once: replacing it later raises ``AttributeError`` (its parts
    took their own reference at construction, so ``crowd.config = other`` changed nothing but
    the attribute — a silently ignored setting). Use: ``config: SetOnce[CrowdConfig] = SetOnce()``."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name
        self._owner = owner.__name__

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> SetOnce[T]: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> T: ...

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        try:
            return obj.__dict__[self._name]
        except KeyError:
            raise AttributeError(f"{self._owner}.{self._name} is not set yet") from None

    def __set__(self, obj: object, value: T) -> None:
        if self._name in obj.__dict__:
            raise AttributeError(f"{self._owner}.{self._name} is fixed when it is made; make a new "
                                 f"{self._owner} for another one")
        obj.__dict__[self._name] = value
