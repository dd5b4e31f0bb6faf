"""The action set mining explores: the graph's edges, and from every state past the first
step every technique a rewriter implements.

The search walks the graph's edges only, so a graph mined by searching it can never hold
an edge it did not start with: the 1,101 trajectories of the shipped graph added examples
to the seed's 42 edges and not one edge (docs/graph.md, growth). Yet the rewriters answer
steps the seed never took: over the test split, a read-only-cache rewrite has a launch
configuration to try after it on 48 tasks and a loop unrolling on 25, edges the seed lacks
(docs/mining.md, "Exploring beyond the graph's edges"). Mining with this view lets the
search try those steps; what verifies faster becomes a trajectory, and the build turns its
steps into the edges the editor's search may then take. A step no rewriter answers is
refused at no cost to the budget, so the wider set costs rewriting time, not GPU time.

The first step stays the graph's: every rewriter that turns sequential code into CUDA is
listed under the parallelization node (``rewrite.registry``), and the graph's other first
steps name the model's. Nothing leads back to parallelization either: its rewriters take
sequential loops, not kernels.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from regrapht_core.contracts.techniques import PARALLELIZATION, SEQUENTIAL
from regrapht_core.datatypes import EdgeExample
from regrapht_core.graph.model import ReGraph

__all__ = ["ExploringGraph"]


class ExploringGraph:
    """``graph`` as the search sees it, with the steps to ``techniques`` added after the
    first; an added edge has no examples, so the prior counts it as never measured."""

    def __init__(self, graph: ReGraph, techniques: Iterable[str]) -> None:
        self._graph = graph
        self._later = frozenset(techniques) - {SEQUENTIAL, PARALLELIZATION}

    def successors(self, node: str) -> Sequence[str]:
        own = self._graph.successors(node) if self._graph.has_node(node) else ()
        if node == SEQUENTIAL:
            return own
        return tuple(sorted({*own, *(self._later - {node})}))

    def predecessors(self, node: str) -> Sequence[str]:
        """The graph's: only its edges hold examples whose ``after`` a step began from."""
        return self._graph.predecessors(node) if self._graph.has_node(node) else ()

    def examples(self, u: str, v: str) -> Sequence[EdgeExample]:
        return self._graph.examples(u, v) if self._graph.has_edge(u, v) else ()
