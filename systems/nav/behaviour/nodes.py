"""Behaviour-tree nodes: leaves (``Action``, ``Condition``), the two flow nodes (``Sequence``,
``Fallback``), ``Parallel`` and decorators (``Inverter``, ``ForceSuccess``, ``ForceFailure``,
``Repeat``).

Leaves are *batched*: a leaf's function takes the ids of the agents ticking it (``int64``
array) and a blackboard, and returns one status per agent (an ``Action``) or one bool per agent
(a ``Condition``). One tree serves every agent; what differs per agent lives in the caller's
arrays (indexed by the ids) and, for memory nodes, in the tree's own per-agent memory.

Semantics (the usual ones, as in Colledanchise & Ögren's book):

* ``Sequence``: ticks its children in order until one does not succeed, and returns that status
  (SUCCESS when all succeed). ``Fallback``: the dual, until one does not fail.
  Without memory they are *reactive*: every tick starts from the first child. With
  ``memory=True`` a child that answered RUNNING is resumed next tick without re-ticking the
  children before it; the memory clears when the node finishes (SUCCESS or FAILURE).
* ``Parallel``: ticks every child each tick; SUCCESS when at least ``success_threshold``
  children succeeded, FAILURE when so many failed that the threshold cannot be reached,
  RUNNING otherwise.
* Decorators change one child's status: ``Inverter`` swaps SUCCESS and FAILURE,
  ``ForceSuccess`` / ``ForceFailure`` turn a finished child into success / failure,
  ``Repeat(child, times)`` ticks a child that succeeds up to ``times`` times in one tick.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

__all__ = ["Status", "Node", "Action", "Condition", "Sequence", "Fallback", "Parallel", "Decorator",
           "Inverter", "ForceSuccess", "ForceFailure", "Repeat", "Leaf", "LeafFunction"]


class Status(enum.IntEnum):
    """A node's answer for one agent (``int8`` in status arrays)."""

    SUCCESS = 1
    FAILURE = 2
    RUNNING = 3


#: A leaf's work for a batch of agents: ``(ids, blackboard) -> statuses`` (or bools, a condition).
LeafFunction = Callable[[np.ndarray, Any], np.ndarray]


class Node:
    """A behaviour-tree node (see the module docs for each kind's rule)."""

    children: tuple[Node, ...] = ()

    def walk(self) -> Iterator[Node]:
        """This node and every node below it, depth first, parents before children."""
        yield self
        for child in self.children:
            yield from child.walk()

    @property
    def leaves(self) -> list[Leaf]:
        """The leaves under this node, left to right."""
        return [n for n in self.walk() if isinstance(n, Leaf)]


class Leaf(Node):
    """A node that does work: an ``Action`` or a ``Condition``."""

    def __init__(self, name: str, function: LeafFunction) -> None:
        if not callable(function):
            raise TypeError(f"{type(self).__name__} {name!r}: function must be callable, got {function!r}")
        self.name, self.function = str(name), function

    def run(self, ids: np.ndarray, blackboard: Any) -> np.ndarray:
        """Statuses (``int8``, one per id) of this leaf for the agents ``ids``."""
        raise NotImplementedError

    def _checked(self, out: Any, ids: np.ndarray) -> np.ndarray:
        out = np.asarray(out)
        if out.shape != ids.shape:
            raise ValueError(f"{type(self).__name__} {self.name!r} returned shape {out.shape} for "
                             f"{len(ids)} agents; expected one value per agent")
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class Action(Leaf):
    """A leaf whose function returns a ``Status`` per agent (SUCCESS, FAILURE or RUNNING)."""

    def run(self, ids: np.ndarray, blackboard: Any) -> np.ndarray:
        out = self._checked(self.function(ids, blackboard), ids).astype(np.int8)
        if len(out) and (out.min() < Status.SUCCESS or out.max() > Status.RUNNING):
            raise ValueError(f"Action {self.name!r} returned a status outside SUCCESS, FAILURE, RUNNING: "
                             f"{sorted(set(out.tolist()))}")
        return out


class Condition(Leaf):
    """A leaf whose function returns a bool per agent: True is SUCCESS, False FAILURE."""

    def run(self, ids: np.ndarray, blackboard: Any) -> np.ndarray:
        truth = self._checked(self.function(ids, blackboard), ids).astype(bool)
        return np.where(truth, np.int8(Status.SUCCESS), np.int8(Status.FAILURE))


class _Composite(Node):
    def __init__(self, *children: Node, memory: bool = False) -> None:
        if not children:
            raise ValueError(f"{type(self).__name__} needs at least one child")
        for c in children:
            if not isinstance(c, Node):
                raise TypeError(f"{type(self).__name__}: children must be nodes, got {c!r}")
        self.children, self.memory = tuple(children), bool(memory)

    def __repr__(self) -> str:
        inner = ", ".join(map(repr, self.children))
        return f"{type(self).__name__}({inner}{', memory=True' if self.memory else ''})"


class Sequence(_Composite):
    """Children in order until one does not succeed (``memory``: resume a RUNNING child)."""

    #: the status that moves on to the next child
    proceed_on = Status.SUCCESS


class Fallback(_Composite):
    """Children in order until one does not fail (``memory``: resume a RUNNING child)."""

    proceed_on = Status.FAILURE


class Parallel(Node):
    """Every child every tick; SUCCESS at ``success_threshold`` successes (default: all)."""

    def __init__(self, *children: Node, success_threshold: int | None = None) -> None:
        if not children:
            raise ValueError("Parallel needs at least one child")
        k = len(children) if success_threshold is None else int(success_threshold)
        if not 1 <= k <= len(children):
            raise ValueError(f"Parallel success_threshold must be 1..{len(children)}, got {success_threshold!r}")
        self.children, self.success_threshold = tuple(children), k

    def combine(self, successes: np.ndarray, failures: np.ndarray) -> np.ndarray:
        """The Parallel's statuses from per-agent counts of succeeded and failed children."""
        out = np.full(len(successes), Status.RUNNING, dtype=np.int8)
        out[failures > len(self.children) - self.success_threshold] = Status.FAILURE
        out[successes >= self.success_threshold] = Status.SUCCESS
        return out

    def __repr__(self) -> str:
        return f"Parallel({', '.join(map(repr, self.children))}, success_threshold={self.success_threshold})"


class Decorator(Node):
    """One child whose status is mapped by ``transform`` (statuses array -> statuses array)."""

    def __init__(self, child: Node) -> None:
        if not isinstance(child, Node):
            raise TypeError(f"{type(self).__name__}: child must be a node, got {child!r}")
        self.children = (child,)

    @property
    def child(self) -> Node:
        """The decorated node."""
        return self.children[0]

    def transform(self, statuses: np.ndarray) -> np.ndarray:
        """The decorator's statuses from its child's."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.child!r})"


class Inverter(Decorator):
    """SUCCESS ↔ FAILURE; RUNNING stays RUNNING."""

    def transform(self, statuses: np.ndarray) -> np.ndarray:
        out = statuses.copy()
        out[statuses == Status.SUCCESS] = Status.FAILURE
        out[statuses == Status.FAILURE] = Status.SUCCESS
        return out


class ForceSuccess(Decorator):
    """A finished child succeeds; RUNNING stays RUNNING."""

    def transform(self, statuses: np.ndarray) -> np.ndarray:
        return np.where(statuses == Status.RUNNING, statuses, np.int8(Status.SUCCESS)).astype(np.int8)


class ForceFailure(Decorator):
    """A finished child fails; RUNNING stays RUNNING."""

    def transform(self, statuses: np.ndarray) -> np.ndarray:
        return np.where(statuses == Status.RUNNING, statuses, np.int8(Status.FAILURE)).astype(np.int8)


class Repeat(Decorator):
    """Ticks a succeeding child again, up to ``times`` ticks of it in one tick of the tree; the
    first FAILURE or RUNNING is returned at once."""

    def __init__(self, child: Node, times: int) -> None:
        super().__init__(child)
        if int(times) != times or times < 1:
            raise ValueError(f"Repeat times must be an int >= 1, got {times!r}")
        self.times = int(times)

    def transform(self, statuses: np.ndarray) -> np.ndarray:
        return statuses

    def __repr__(self) -> str:
        return f"Repeat({self.child!r}, times={self.times})"
