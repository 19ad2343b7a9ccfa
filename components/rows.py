"""Row views: components whose fields live in rows of shared numpy arrays.

A game holds ordinary component objects (``Position(3, 4)``, ``agent.max_speed = 6``); the
processors need whole columns to work on 10,000 agents at once. So a row component keeps its
values in a *store* — an object with named 2D numpy arrays — at row ``_row``:

* a new component has a private one-row store (it works as plain data anywhere);
* when a processor registers the entity, the values are copied into the row of the
  ``Navigation``'s agent table and the component now reads and writes that row;
* when the entity leaves, the values are copied back into a private store: nothing is lost.

Stores need only attributes named after the columns, each an array of shape ``(rows, width)``.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

import numpy as np

from rtsnav.checks import flag

__all__ = ["RowComponent", "Column", "float_field", "bool_field"]


class Column:
    """Declares one store array a component uses: its dtype, width and default row values."""

    __slots__ = ("dtype", "width", "default")

    def __init__(self, dtype: Any, width: int, default: Any = 0) -> None:
        self.dtype = np.dtype(dtype)
        self.width = width
        self.default = default


class _LocalStore:
    """The one-row store of a component that no table owns yet."""

    def __init__(self, columns: dict[str, Column]) -> None:
        for name, col in columns.items():
            self.__dict__[name] = np.full((1, col.width), col.default, dtype=col.dtype)


class RowComponent:
    """Base for components stored in table rows. Subclasses declare ``COLUMNS``."""

    __slots__ = ("_store", "_row")
    COLUMNS: ClassVar[dict[str, Column]] = {}

    def __init__(self) -> None:
        self._store: Any = _LocalStore(self.COLUMNS)
        self._row: int = 0

    @property
    def row(self) -> int:
        """The table row this component reads and writes (0 while it holds its own values)."""
        return self._row

    # -- used by the table that owns the row ---------------------------------------------
    def bind(self, store: Any, row: int) -> None:
        """Copy this component's values into ``store`` at ``row`` and read/write there from now on."""
        for name in self.COLUMNS:
            getattr(store, name)[row] = getattr(self._store, name)[self._row]
        self._store = store
        self._row = row

    def unbind(self) -> None:
        """Copy the values back into a private store (the entity left the table)."""
        local = _LocalStore(self.COLUMNS)
        for name in self.COLUMNS:
            getattr(local, name)[0] = getattr(self._store, name)[self._row]
        self._store = local
        self._row = 0

    @property
    def is_bound(self) -> bool:
        """True while the values live in a table's row (the entity is registered)."""
        return not isinstance(self._store, _LocalStore)

    def bound_to(self, store: Any) -> bool:
        """True while the values live in a row of ``store``."""
        return self._store is store

    # -- copies are snapshots: a copy of a registered unit's component holds its own values (a
    # second view of the unit's row made the copy's setters steer the original, and the copy was
    # refused on another entity as "the same object")
    def __copy__(self) -> RowComponent:
        return _restore(type(self), self._row_values(), {name: getattr(self, name) for name in _extra_slots(type(self))
                                                          if hasattr(self, name)})

    def _row_values(self) -> dict[str, np.ndarray]:
        return {name: np.array(getattr(self._store, name)[self._row]) for name in self.COLUMNS}

    def __deepcopy__(self, memo: dict) -> RowComponent:
        clone = self.__copy__()
        for name in _extra_slots(type(self)):
            if hasattr(clone, name):
                setattr(clone, name, copy.deepcopy(getattr(clone, name), memo))
        return clone

    def __reduce__(self) -> tuple:
        # pickled as its values alone (a registered component would otherwise drag the whole table along)
        extras = {name: getattr(self, name) for name in _extra_slots(type(self)) if hasattr(self, name)}
        return _restore, (type(self), self._row_values(), extras)

    def _values(self) -> tuple:
        return tuple(getattr(self, f) for f in self.FIELDS)  # type: ignore[attr-defined]

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    __hash__ = None  # type: ignore[assignment]  # mutable, like a dataclass with eq

    def __repr__(self) -> str:
        inner = ", ".join(f"{f}={v!r}" for f, v in zip(self.FIELDS, self._values()))  # type: ignore[attr-defined]
        return f"{type(self).__name__}({inner})"


def _extra_slots(cls: type) -> list[str]:
    """The slots a row component subclass adds (settings kept on the object, not in rows)."""
    return [name for klass in cls.__mro__ if klass is not RowComponent
            for name in getattr(klass, "__slots__", ()) if name not in ("_store", "_row")]


def _restore(cls: type[RowComponent], values: dict, extras: dict) -> RowComponent:
    """Unpickle a row component: its own one-row store with ``values``."""
    clone = cls.__new__(cls)
    RowComponent.__init__(clone)                            # its own one-row store
    store = clone._store  # noqa: SLF001 (this module's own class, built without its __init__'s checks)
    for name, row in values.items():
        if name in cls.COLUMNS:
            getattr(store, name)[0] = row
    for name, value in extras.items():
        setattr(clone, name, value)
    return clone


class _Field(property):
    """A property that knows the name it was given in its class (for its error messages)."""

    field_name = "value"

    def __set_name__(self, owner: type, name: str) -> None:
        self.field_name = name


def float_field(column: str, index: int, doc: str, name: str = "") -> property:
    """A float property reading/writing ``store.<column>[row, index]``; a value that is not a
    number (text, a bool, None) is a ``ValueError`` naming the field (NaN is stored: the crowd
    fails that agent with a reason at its next tick)."""

    def get(self: RowComponent) -> float:
        return float(getattr(self._store, column)[self._row, index])

    def set(self: RowComponent, value: float) -> None:
        try:
            if isinstance(value, (bool, np.bool_, str, bytes)):
                raise TypeError                     # "3" is a mistake, True no coordinate
            number = float(value)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"{type(self).__name__}.{name or field.field_name} must be a number, "
                             f"got {value!r}") from None
        getattr(self._store, column)[self._row, index] = number

    field = _Field(get, set, doc=doc)
    return field


def bool_field(column: str, index: int, doc: str) -> property:
    """A bool property reading/writing ``store.<column>[row, index]``: True or False only (a
    truthy ``"no"`` or ``1`` is a ``ValueError`` naming the field)."""

    def get(self: RowComponent) -> bool:
        return bool(getattr(self._store, column)[self._row, index])

    def set(self: RowComponent, value: bool) -> None:
        getattr(self._store, column)[self._row, index] = flag(value, f"{type(self).__name__}.{field.field_name}")

    field = _Field(get, set, doc=doc)
    return field
