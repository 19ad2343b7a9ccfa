"""Behaviour trees: the compiled jump tables give the interpreter's statuses and leaf calls."""

from __future__ import annotations

import numpy as np
import pytest

from rtsnav.systems.nav.behaviour import (
    Action,
    CompiledTree,
    Condition,
    Fallback,
    ForceFailure,
    ForceSuccess,
    Interpreter,
    Inverter,
    Parallel,
    Repeat,
    Sequence,
    Status,
    compile_tree,
)

S, F, R = Status.SUCCESS, Status.FAILURE, Status.RUNNING


class Script:
    """Leaf outcomes from a random table indexed by (leaf, agent, how often that agent called
    it): identical call sequences see identical outcomes. Records every call per agent."""

    def __init__(self, rng: np.random.Generator, leaves: int, agents: int, calls: int, running: float) -> None:
        p = [(1 - running) / 2, (1 - running) / 2, running]
        self.table = rng.choice([1, 2, 3], size=(leaves, agents, calls), p=p).astype(np.int8)
        self.count = np.zeros((leaves, agents), dtype=np.int64)
        self.log: dict[int, list[int]] = {a: [] for a in range(agents)}

    def leaf(self, k: int, condition: bool):
        def run(ids: np.ndarray, bb) -> np.ndarray:
            out = self.table[k, ids, self.count[k, ids] % self.table.shape[2]]
            self.count[k, ids] += 1
            for a in ids.tolist():
                self.log[a].append(k)
            return out != F if condition else out
        return (Condition if condition else Action)(f"leaf{k}", run)


def random_tree(rng: np.random.Generator, script: Script, depth: int, counter: list[int]):
    """A random tree over every node kind; leaves numbered in creation order."""
    if depth == 0 or rng.random() < 0.25:
        k = counter[0]
        counter[0] += 1
        return script.leaf(k, condition=bool(rng.random() < 0.3))
    kind = int(rng.integers(0, 9))
    if kind <= 3:
        children = [random_tree(rng, script, depth - 1, counter) for _ in range(rng.integers(1, 4))]
        memory = bool(rng.random() < 0.35)
        return (Sequence if kind % 2 == 0 else Fallback)(*children, memory=memory)
    if kind == 4:
        children = [random_tree(rng, script, depth - 1, counter) for _ in range(rng.integers(1, 4))]
        return Parallel(*children, success_threshold=int(rng.integers(1, len(children) + 1)))
    child = random_tree(rng, script, depth - 1, counter)
    if kind == 8:
        return Repeat(child, times=int(rng.integers(1, 4)))
    return (Inverter, ForceSuccess, ForceFailure)[kind - 5](child)


@pytest.mark.parametrize("seed", range(60))
def test_compiled_equals_interpreted_on_random_trees(seed):
    rng = np.random.default_rng(seed)
    agents, ticks = 12, 6
    leaves_max = 64
    # the same tree shape twice, each with its own script over the same outcome table
    shape_seed = int(rng.integers(1 << 30))
    running = float(rng.choice([0.0, 0.2, 0.4]))
    table_seed = int(rng.integers(1 << 30))
    scripts, trees = [], []
    for _ in range(2):
        script = Script(np.random.default_rng(table_seed), leaves_max, agents, 40, running)
        tree = random_tree(np.random.default_rng(shape_seed), script, depth=4, counter=[0])
        scripts.append(script)
        trees.append(tree)
    interp, comp = Interpreter(trees[0]), compile_tree(trees[1])
    bb = object()
    for t in range(ticks):
        ids = np.arange(agents)
        if t % 2:                                     # ticking order and subsets do not matter
            ids = np.random.default_rng(seed + t).permutation(agents)[: agents - 3]
        a = interp.tick(ids, bb)
        b = comp.tick(ids, bb)
        assert a.tolist() == b.tolist(), f"tick {t}: statuses differ for {trees[0]!r}"
    assert scripts[0].log == scripts[1].log, "leaf-call sequences differ"
    assert any(scripts[0].log.values())


def test_jump_tables_flatten_reactive_nodes_and_keep_the_others():
    calls = []

    def leaf(name, status):
        def run(ids, bb):
            calls.append(name)
            return np.full(len(ids), status, dtype=np.int8)
        return Action(name, run)

    tree = Fallback(Sequence(leaf("a", S), leaf("b", F)), Sequence(leaf("c", S), leaf("d", S)))
    comp = CompiledTree(tree)
    assert comp.entries == 4                           # four leaves, no node entries
    p = comp.program
    # a -> b on success, a -> c on failure; b fails over to c; d ends with success
    assert p.on_success[p.entry] == 1 and p.on_failure[p.entry] == 2
    assert comp.tick([0]).tolist() == [S]
    assert calls == ["a", "b", "c", "d"]
    kept = CompiledTree(Sequence(leaf("x", S), Parallel(leaf("y", S), leaf("z", F)), Inverter(leaf("w", F))))
    assert kept.entries == 3                           # x, the Parallel, the Inverter


def test_memory_sequence_resumes_the_running_child():
    state = {"n": 0}
    calls = []

    def first(ids, bb):
        calls.append("first")
        return np.full(len(ids), S, dtype=np.int8)

    def slow(ids, bb):
        calls.append("slow")
        state["n"] += 1
        return np.full(len(ids), S if state["n"] >= 3 else R, dtype=np.int8)

    for make in (Interpreter, compile_tree):
        calls.clear()
        state["n"] = 0
        tree = Sequence(Action("first", first), Action("slow", slow), memory=True)
        runner = make(tree)
        assert [int(runner.tick([0])[0]) for _ in range(3)] == [R, R, S]
        assert calls == ["first", "slow", "slow", "slow"]


def test_condition_and_action_results_are_checked():
    bad = compile_tree(Action("bad", lambda ids, bb: np.full(len(ids), 7)))
    with pytest.raises(ValueError, match="outside SUCCESS"):
        bad.tick([0, 1])
    short = compile_tree(Condition("short", lambda ids, bb: np.ones(1, dtype=bool)))
    with pytest.raises(ValueError, match="one value per agent"):
        short.tick([0, 1])
    with pytest.raises(ValueError, match="distinct"):
        compile_tree(Action("ok", lambda ids, bb: np.full(len(ids), S))).tick([3, 3])
    with pytest.raises(ValueError, match="at least one child"):
        Sequence()
    with pytest.raises(ValueError, match="success_threshold"):
        Parallel(Action("ok", lambda ids, bb: ids), success_threshold=3)
    with pytest.raises(TypeError, match="callable"):
        Action("nope", 3)
