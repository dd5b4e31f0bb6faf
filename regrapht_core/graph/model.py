"""The ReGraph: techniques as nodes, "u then v" transitions as edges carrying examples.

A thin typed wrapper over ``networkx.DiGraph`` so the rest of the core cannot put a
malformed edge in (an edge always has a list of ``EdgeExample``) and so graphs compare by
content: two graphs are equal when they hold the same nodes, edges and multiset of examples
per edge, whatever order they were merged in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TypeAlias

import networkx as nx

from regrapht_core.datatypes import EdgeExample
from regrapht_core.errors import GraphError
from regrapht_core.graph.taxonomy import SEQUENTIAL

__all__ = ["NODE_ID", "Canonical", "ReGraph", "example_sort_key"]

_EXAMPLES = "examples"
NODE_ID = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)*")

Canonical: TypeAlias = tuple[tuple[str, ...], tuple[tuple[str, str, tuple[EdgeExample, ...]], ...]]
"""Sorted nodes, then sorted edges each with its examples in ``example_sort_key`` order."""

_SortKey: TypeAlias = tuple[str, str, str, str, str, bool, float, bool, str]


def example_sort_key(example: EdgeExample) -> _SortKey:
    """A total order on examples (``None`` sorts before any value), for reproducible output."""
    return (
        example.task,
        example.before,
        example.after,
        example.think,
        example.detail,
        example.speedup is not None,
        example.speedup if example.speedup is not None else 0.0,
        example.verified_on is not None,
        example.verified_on or "",
    )


class ReGraph:
    """Directed graph of techniques; cycles and self-loops are allowed (techniques recur)."""

    __slots__ = ("_examples", "_g")

    def __init__(self) -> None:
        self._g: nx.DiGraph[str] = nx.DiGraph()
        self._g.add_node(SEQUENTIAL)
        self._examples = 0

    @property
    def nodes(self) -> tuple[str, ...]:
        return tuple(sorted(self._g.nodes))

    @property
    def edges(self) -> tuple[tuple[str, str], ...]:
        return tuple(sorted(self._g.edges))

    @property
    def node_count(self) -> int:
        return int(self._g.number_of_nodes())

    @property
    def edge_count(self) -> int:
        return int(self._g.number_of_edges())

    @property
    def example_count(self) -> int:
        return self._examples

    def has_node(self, node: str) -> bool:
        return bool(self._g.has_node(node))

    def has_edge(self, u: str, v: str) -> bool:
        return bool(self._g.has_edge(u, v))

    def add_node(self, node: str) -> None:
        """Node ids are snake_case slugs, so every export format can use them unquoted."""
        if not self._g.has_node(node):
            if not NODE_ID.fullmatch(node):
                raise GraphError(f"{node!r} is not a valid technique id (snake_case slug)")
            self._g.add_node(node)

    def add_example(self, u: str, v: str, example: EdgeExample) -> None:
        """Append ``example`` to u→v, creating v and the edge as needed.

        Node and edge creation are one operation here, so no transition can be lost the way
        the authors' construction script loses edges that arrive together with a new node.
        """
        if not self._g.has_node(u):
            raise GraphError(f"cannot add an edge from {u!r}: it is not a node of the graph")
        if self._g.has_edge(u, v):
            data = self._g.edges[u, v]
            if not isinstance(data[_EXAMPLES], list):
                data[_EXAMPLES] = list(data[_EXAMPLES])
            data[_EXAMPLES].append(example)
        else:
            self.add_node(v)
            self._g.add_edge(u, v, **{_EXAMPLES: [example]})
        self._examples += 1

    def add_edges(self, edges: Iterable[tuple[str, str, Sequence[EdgeExample]]]) -> None:
        """Add whole edges at once; endpoints must exist and the edges must be new.

        For loading: one networkx call for all edges, and each ``examples`` is kept as given
        (copied to a list only on a later append), so the snapshot loader can hand over
        sequences that build their examples on first access. Nothing is added on error.
        """
        batch = list(edges)
        for u, v, _ in batch:
            if not (self._g.has_node(u) and self._g.has_node(v)):
                raise GraphError(f"edge {u!r} -> {v!r} ends outside the graph")
            if self._g.has_edge(u, v):
                raise GraphError(f"edge {u!r} -> {v!r} is already in the graph")
        if len({(u, v) for u, v, _ in batch}) != len(batch):
            raise GraphError("the same edge is given twice")
        self._g.add_edges_from((u, v, {_EXAMPLES: examples}) for u, v, examples in batch)
        self._examples += sum(len(examples) for _, _, examples in batch)

    def examples(self, u: str, v: str) -> tuple[EdgeExample, ...]:
        if not self._g.has_edge(u, v):
            raise GraphError(f"the ReGraph has no transition {u!r} -> {v!r}")
        return tuple(self._g.edges[u, v][_EXAMPLES])

    def example_count_of(self, u: str, v: str) -> int:
        return len(self._g.edges[u, v][_EXAMPLES]) if self._g.has_edge(u, v) else 0

    def successors(self, node: str) -> tuple[str, ...]:
        """The techniques tried after ``node``: the search's action set at that node, sorted."""
        self._require(node)
        return tuple(sorted(self._g.successors(node)))

    def predecessors(self, node: str) -> tuple[str, ...]:
        self._require(node)
        return tuple(sorted(self._g.predecessors(node)))

    def canonical(self) -> Canonical:
        return (
            self.nodes,
            tuple(
                (u, v, tuple(sorted(self._g.edges[u, v][_EXAMPLES], key=example_sort_key)))
                for u, v in self.edges
            ),
        )

    def to_networkx(self) -> nx.DiGraph[str]:
        """A deep copy for analysis with networkx; changing it does not change this graph."""
        copy: nx.DiGraph[str] = nx.DiGraph()
        copy.add_nodes_from(self._g.nodes)
        for u, v in self._g.edges:
            copy.add_edge(u, v, **{_EXAMPLES: list(self._g.edges[u, v][_EXAMPLES])})
        return copy

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ReGraph):
            return NotImplemented
        return self.canonical() == other.canonical()

    __hash__ = None  # type: ignore[assignment]  # mutable: equal graphs may later differ

    def __repr__(self) -> str:
        return (
            f"ReGraph(nodes={self.node_count}, edges={self.edge_count}, "
            f"examples={self.example_count})"
        )

    def _require(self, node: str) -> None:
        if not self._g.has_node(node):
            raise GraphError(f"{node!r} is not a node of the ReGraph")
