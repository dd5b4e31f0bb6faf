"""Every technique a rewriter applies can be reached in the shipped graph (issue 16).

The search's steps from a technique are its out-edges, so a rewriter whose technique lies
only behind techniques nothing can apply is never asked: launch configuration and loop
unrolling sat behind memory coalescing and register blocking, which no rewriter does.
"""

from __future__ import annotations

from regrapht_core.contracts.techniques import PARALLELIZATION, SEQUENTIAL
from regrapht_core.datatypes import EdgeExample
from regrapht_core.graph.model import ReGraph
from regrapht_core.graph.paths import shipped_snapshot
from regrapht_core.graph.snapshot import load_snapshot
from regrapht_core.rewrite.registry import default_registry


def reachable(graph: ReGraph, starts: set[str], through: set[str]) -> set[str]:
    """The nodes reached from ``starts`` by steps into nodes of ``through`` only."""
    seen, frontier = set(starts), list(starts)
    while frontier:
        for step in graph.successors(frontier.pop()):
            if step in through and step not in seen:
                seen.add(step)
                frontier.append(step)
    return seen


def test_every_rewriter_is_reachable_through_techniques_that_produce_code() -> None:
    """Each rewriter through at least one technique it is registered for: the sequential
    loops that need another algorithm (a scan, a recurrence, a first match) are answered at
    the parallelization step, whatever edges their own technique has."""
    graph = load_snapshot(shipped_snapshot()).graph
    registry = default_registry()
    appliers = set(registry)
    rewriters = {id(r): r for rs in registry.values() for r in rs}
    # A kernel task starts after parallelization; a sequential one at the sequential node.
    for starts in ({SEQUENTIAL, PARALLELIZATION}, {SEQUENTIAL}):
        reached = reachable(graph, starts, appliers)
        for rewriter in rewriters.values():
            techniques = {t for t, rs in registry.items() if rewriter in rs}
            assert techniques & reached, (type(rewriter).__name__, techniques)


def test_the_walk_sees_a_technique_behind_one_no_rewriter_applies() -> None:
    """The check itself: a node only reachable through an unapplied one is not reached."""
    graph = ReGraph()
    for u, v in [(SEQUENTIAL, "parallelization"), ("parallelization", "memory_coalescing"),
                 ("memory_coalescing", "launch_configuration")]:  # fmt: skip
        graph.add_example(u, v, EdgeExample("t", "", "", "before", "after"))
    applied = {"parallelization", "launch_configuration"}
    assert reachable(graph, {SEQUENTIAL}, applied) == {SEQUENTIAL, "parallelization"}
