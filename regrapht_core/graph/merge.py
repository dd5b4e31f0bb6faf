"""Merge trajectories into a ReGraph (paper, Algorithm 1).

Walk from ``sequential``; each step's method is relabelled onto a technique node; the step
becomes an example on the edge from the previous step's node to that node (the edge and
node are created when missing). Because every step lands on exactly one edge and relabelling
is stateless, the result does not depend on the order or grouping of the merges.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from regrapht_core.datatypes import EdgeExample, Trajectory
from regrapht_core.graph.model import ReGraph
from regrapht_core.graph.relabel import relabel
from regrapht_core.graph.taxonomy import SEQUENTIAL

__all__ = ["build_graph", "merge_graph", "merge_trajectory"]

_log = logging.getLogger(__name__)


def merge_trajectory(graph: ReGraph, trajectory: Trajectory, *, allow_new: bool = False) -> None:
    """Add every step of ``trajectory`` to ``graph``.

    All methods are relabelled before the graph is touched, so an unknown technique
    (``UnknownTechniqueError``) leaves the graph exactly as it was.
    """
    nodes = [relabel(step.method, allow_new=allow_new) for step in trajectory.steps]
    previous, before = SEQUENTIAL, trajectory.source
    for step, node in zip(trajectory.steps, nodes, strict=True):
        example = EdgeExample(
            task=trajectory.task,
            think=step.think,
            detail=step.detail,
            before=before,
            after=step.code,
            speedup=step.speedup,
            verified_on=trajectory.verified_on,
        )
        graph.add_example(previous, node, example)
        previous, before = node, step.code
    _log.debug("merged %s: %s", trajectory.task, " -> ".join((SEQUENTIAL, *nodes)))


def build_graph(trajectories: Iterable[Trajectory], *, allow_new: bool = False) -> ReGraph:
    graph = ReGraph()
    for trajectory in trajectories:
        merge_trajectory(graph, trajectory, allow_new=allow_new)
    return graph


def merge_graph(graph: ReGraph, other: ReGraph) -> None:
    """Add ``other``'s nodes and examples to ``graph``, so graphs built apart can be combined."""
    for node in other.nodes:
        graph.add_node(node)
    for u, v in other.edges:
        for example in other.examples(u, v):
            graph.add_example(u, v, example)
