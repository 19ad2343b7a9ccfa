"""The reference interpreter: ticks one agent's tree by walking the nodes recursively (the
classic way). ``CompiledTree`` must give the same statuses and call the same leaves in the same
order for every agent; the tests compare the two."""

from __future__ import annotations

from typing import Any

import numpy as np

from .nodes import Decorator, Fallback, Leaf, Node, Parallel, Repeat, Sequence, Status

__all__ = ["Interpreter"]


class Interpreter:
    """Ticks ``tree`` for agents one at a time (memory nodes remember per agent)."""

    def __init__(self, tree: Node) -> None:
        if not isinstance(tree, Node):
            raise TypeError(f"Interpreter needs a behaviour-tree node, got {tree!r}")
        self.tree = tree
        self._resume: dict[tuple[int, int], int] = {}     # (id(memory node), agent) -> child index

    def tick(self, ids: np.ndarray | list[int], blackboard: Any = None) -> np.ndarray:
        """One tick of the tree for each agent in ``ids`` (in that order); ``int8`` statuses."""
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        return np.array([self._tick(self.tree, int(a), blackboard) for a in ids.tolist()], dtype=np.int8)

    def reset(self, ids: np.ndarray | list[int] | None = None) -> None:
        """Forget the memory nodes' progress (of ``ids``, or of everyone)."""
        if ids is None:
            self._resume.clear()
            return
        gone = {int(a) for a in np.asarray(ids).reshape(-1).tolist()}
        self._resume = {k: v for k, v in self._resume.items() if k[1] not in gone}

    def _tick(self, node: Node, agent: int, bb: Any) -> int:
        if isinstance(node, Leaf):
            return int(node.run(np.array([agent], dtype=np.int64), bb)[0])
        if isinstance(node, (Sequence, Fallback)):
            key = (id(node), agent)
            start = self._resume.get(key, 0) if node.memory else 0
            for k in range(start, len(node.children)):
                status = self._tick(node.children[k], agent, bb)
                if status != node.proceed_on:
                    if node.memory and status == Status.RUNNING:
                        self._resume[key] = k
                    else:
                        self._resume.pop(key, None)
                    return status
            self._resume.pop(key, None)
            return int(node.proceed_on)
        if isinstance(node, Parallel):
            statuses = [self._tick(c, agent, bb) for c in node.children]
            ok = np.array([statuses.count(Status.SUCCESS)])
            bad = np.array([statuses.count(Status.FAILURE)])
            return int(node.combine(ok, bad)[0])
        if isinstance(node, Repeat):
            status = int(Status.SUCCESS)
            for _ in range(node.times):
                status = self._tick(node.child, agent, bb)
                if status != Status.SUCCESS:
                    break
            return status
        if isinstance(node, Decorator):
            child = self._tick(node.child, agent, bb)
            return int(node.transform(np.array([child], dtype=np.int8))[0])
        raise TypeError(f"unknown behaviour-tree node {node!r}")
