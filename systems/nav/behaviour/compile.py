"""Behaviour trees compiled to jump tables.

A tree of reactive ``Sequence`` / ``Fallback`` nodes over leaves needs no nodes at run time:
each leaf gets two jump targets, where to go on SUCCESS and where on FAILURE (another leaf,
or the end of the tick with that status), and RUNNING ends the tick. A ``Sequence`` wires each
child's success to the next child and every failure to the sequence's own failure target; a
``Fallback`` the other way round. Ticking is then a loop over a table — what a state machine
costs — instead of a recursive walk.

As the article says, ``Parallel``, decorators and memory nodes are kept as nodes: each becomes
one entry of the table (like a leaf) whose evaluation runs its children's own compiled
programs. Everything is batched: one tick runs all agents together, each with its own program
counter, and every leaf is called once per step with the agents standing on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .nodes import Decorator, Fallback, Leaf, Node, Parallel, Repeat, Sequence, Status

__all__ = ["CompiledTree", "Program", "compile_tree", "END_SUCCESS", "END_FAILURE"]

#: Jump targets that end the tick (entries are numbered from 0).
END_SUCCESS, END_FAILURE = -1, -2


@dataclass
class Program:
    """One compiled (sub)tree: entry point, and per entry what to run and where to jump."""

    entry: int
    runs: list[Any] = field(default_factory=list)          # per entry: a Leaf or a _KeptNode
    on_success: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    on_failure: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))

    def __len__(self) -> int:
        return len(self.runs)

    def run(self, ids: np.ndarray, bb: Any) -> np.ndarray:
        """One tick for every agent of ``ids`` (distinct ids); their ``int8`` statuses."""
        n = len(ids)
        out = np.zeros(n, dtype=np.int8)
        if n == 0:
            return out
        pc = np.full(n, self.entry, dtype=np.int32)
        active = np.arange(n)
        while len(active):
            at = pc[active]
            for p in np.unique(at).tolist():
                rows = active[at == p]
                status = self.runs[p].run(ids[rows], bb)
                running = status == Status.RUNNING
                out[rows[running]] = Status.RUNNING
                pc[rows[running]] = END_SUCCESS                      # stops (out already set)
                ok = status == Status.SUCCESS
                nxt = np.where(ok, self.on_success[p], self.on_failure[p])
                moving = ~running
                pc[rows[moving]] = nxt[moving]
            done = pc[active] < 0
            ended = active[done]
            still_unset = out[ended] == 0
            out[ended[still_unset]] = np.where(pc[ended[still_unset]] == END_SUCCESS,
                                               np.int8(Status.SUCCESS), np.int8(Status.FAILURE))
            active = active[~done]
        return out


class _KeptNode:
    """A Parallel, decorator or memory node in a table: evaluated by running the compiled
    programs of its children."""

    def __init__(self, node: Node, programs: list[Program], tree: CompiledTree) -> None:
        self.node, self.programs, self.tree = node, programs, tree

    def run(self, ids: np.ndarray, bb: Any) -> np.ndarray:
        node = self.node
        if isinstance(node, Parallel):
            ok = np.zeros(len(ids), dtype=np.int64)
            bad = np.zeros(len(ids), dtype=np.int64)
            for prog in self.programs:
                s = prog.run(ids, bb)
                ok += s == Status.SUCCESS
                bad += s == Status.FAILURE
            return node.combine(ok, bad)
        if isinstance(node, Repeat):
            out = np.full(len(ids), Status.SUCCESS, dtype=np.int8)
            going = np.arange(len(ids))
            for _ in range(node.times):
                if not len(going):
                    break
                s = self.programs[0].run(ids[going], bb)
                out[going] = s
                going = going[s == Status.SUCCESS]
            return out
        if isinstance(node, Decorator):
            return node.transform(self.programs[0].run(ids, bb))
        return self._memory(node, ids, bb)

    def _memory(self, node: Node, ids: np.ndarray, bb: Any) -> np.ndarray:
        """A Sequence / Fallback with memory: each agent resumes at the child it left RUNNING."""
        assert isinstance(node, (Sequence, Fallback))
        resume = self.tree.memory_of(self, ids)
        child = resume[ids].astype(np.int64)
        out = np.zeros(len(ids), dtype=np.int8)
        pending = np.arange(len(ids))
        count = len(self.programs)
        while len(pending):
            at = child[pending]
            advanced = []
            for c in np.unique(at).tolist():
                rows = pending[at == c]
                s = self.programs[c].run(ids[rows], bb)
                go = s == node.proceed_on
                out[rows[~go]] = s[~go]
                child[rows[go]] += 1
                advanced.append(rows[go])
            moved = np.concatenate(advanced)
            finished = moved[child[moved] >= count]
            out[finished] = node.proceed_on
            pending = moved[child[moved] < count]
        running = out == Status.RUNNING
        resume[ids] = np.where(running, child, 0)
        return out


class CompiledTree:
    """A behaviour tree compiled to jump tables; ``tick`` runs a batch of agents at once.

    Statuses and each agent's sequence of leaf calls are those of ``Interpreter``.
    """

    def __init__(self, tree: Node) -> None:
        if not isinstance(tree, Node):
            raise TypeError(f"compile_tree needs a behaviour-tree node, got {tree!r}")
        self.tree = tree
        self._resume: dict[int, np.ndarray] = {}        # id(kept memory node) -> child index per agent
        self.program = self._compile(tree)

    def tick(self, ids: np.ndarray | list[int], blackboard: Any = None) -> np.ndarray:
        """One tick for every agent in ``ids`` (distinct, ≥ 0); ``int8`` statuses in that order."""
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        if len(ids) and ids.min() < 0:
            raise ValueError("agent ids must be >= 0")
        if len(np.unique(ids)) != len(ids):
            raise ValueError("agent ids in one tick must be distinct")
        return self.program.run(ids, blackboard)

    def reset(self, ids: np.ndarray | list[int] | None = None) -> None:
        """Forget the memory nodes' progress (of ``ids``, or of everyone)."""
        for arr in self._resume.values():
            if ids is None:
                arr[:] = 0
            else:
                sel = np.asarray(ids, dtype=np.int64).reshape(-1)
                arr[sel[sel < len(arr)]] = 0

    @property
    def entries(self) -> int:
        """Entries in the top-level table (leaves plus kept nodes)."""
        return len(self.program)

    # -------------------------------------------------------------- compile
    def _compile(self, node: Node) -> Program:
        prog = Program(entry=0)
        succ: list[int] = []
        fail: list[int] = []

        def emit(n: Node, on_s: int, on_f: int) -> int:
            if isinstance(n, (Sequence, Fallback)) and not n.memory:
                nxt = on_s if isinstance(n, Sequence) else on_f
                for c in reversed(n.children):
                    nxt = emit(c, nxt, on_f) if isinstance(n, Sequence) else emit(c, on_s, nxt)
                return nxt
            if isinstance(n, Leaf):
                runner: Any = n
            else:                                             # kept as a node
                runner = _KeptNode(n, [self._compile(c) for c in n.children], self)
            prog.runs.append(runner)
            succ.append(on_s)
            fail.append(on_f)
            return len(prog.runs) - 1

        entry = emit(node, END_SUCCESS, END_FAILURE)
        # number the entries left to right as in the tree (emitted right to left above)
        where = {id(n): i for i, n in enumerate(node.walk())}
        order = sorted(range(len(prog.runs)), key=lambda i: where[id(_node_of(prog.runs[i]))])
        new_index = np.empty(len(order) + 2, dtype=np.int32)    # [-2], [-1] keep the end codes
        new_index[-2:] = (END_FAILURE, END_SUCCESS)
        new_index[order] = np.arange(len(order))
        prog.runs = [prog.runs[i] for i in order]
        prog.entry = int(new_index[entry])
        prog.on_success = new_index[np.array(succ, dtype=np.int64)[order]]
        prog.on_failure = new_index[np.array(fail, dtype=np.int64)[order]]
        return prog

    def memory_of(self, kept: _KeptNode, ids: np.ndarray) -> np.ndarray:
        arr = self._resume.get(id(kept))
        need = int(ids.max()) + 1 if len(ids) else 0
        if arr is None or len(arr) < need:
            grown = np.zeros(max(need, 2 * (0 if arr is None else len(arr)), 64), dtype=np.int32)
            if arr is not None:
                grown[: len(arr)] = arr
            self._resume[id(kept)] = arr = grown
        return arr


def _node_of(runner: Any) -> Node:
    return runner.node if isinstance(runner, _KeptNode) else runner


def compile_tree(tree: Node) -> CompiledTree:
    """Compile ``tree`` to jump tables (see the module docs)."""
    return CompiledTree(tree)
