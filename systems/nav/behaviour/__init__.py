"""Behaviour trees for unit AI: nodes, a reference interpreter, and a compiler to jump tables.

Build a tree from ``Sequence``, ``Fallback``, ``Parallel``, decorators and batched leaves
(``Action``, ``Condition``), then ``compile_tree(tree).tick(ids, blackboard)`` every frame. The
compiled tree gives the statuses (and calls the leaves in the order) of ``Interpreter``, at
about the cost of a state machine; see ``compile.py``.
"""

from .compile import CompiledTree, compile_tree
from .interpret import Interpreter
from .nodes import (
    Action,
    Condition,
    Decorator,
    Fallback,
    ForceFailure,
    ForceSuccess,
    Inverter,
    Node,
    Parallel,
    Repeat,
    Sequence,
    Status,
)

__all__ = ["Action", "Condition", "Sequence", "Fallback", "Parallel", "Decorator", "Inverter", "ForceSuccess",
           "ForceFailure", "Repeat", "Node", "Status", "Interpreter", "CompiledTree", "compile_tree"]
