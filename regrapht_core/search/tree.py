"""Search data: states keyed by (technique, code hash), so two paths that reach identical
code under the same technique share one state and its statistics (a graph, not a tree)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

__all__ = ["EdgeStats", "Key", "Node", "SearchGraph", "code_hash"]

Key = tuple[str, str]
"""A state: the technique that reached it and its code's hash."""


def code_hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()[:16]


@dataclass(slots=True)
class Node:
    technique: str
    code: str
    candidate: int | None
    """The trace index of the candidate that produced this state (``None`` at the root)."""
    reward: float
    terminal: bool = False
    """Failed states are never expanded: a search path stops at its first failing step."""
    visits: int = 0
    value_sum: float = 0.0
    children: dict[str, list[Key]] = field(default_factory=dict)
    """Action (technique) → the states its steps from here reached, in the order reached:
    one per variant the proposer gave (progressive widening)."""
    exhausted: set[str] = field(default_factory=set)
    """Actions the proposer has nothing more for here: a deterministic refusal, every
    candidate handed out, or an answer repeating one already taken."""
    expanded: bool = False
    """Whether the first visit's batch (one proposal per action) has been made."""

    @property
    def q(self) -> float:
        return self.value_sum / self.visits if self.visits else 0.0


@dataclass(slots=True)
class EdgeStats:
    """Statistics of a technique transition, shared by every state: rollout states are
    fresh each time, so ``Q(s, a)`` in the rollout policy is only meaningful per transition."""

    visits: int = 0
    value_sum: float = 0.0

    @property
    def q(self) -> float:
        return self.value_sum / self.visits if self.visits else 0.0

    def add(self, value: float) -> None:
        self.visits += 1
        self.value_sum += value


@dataclass(slots=True)
class SearchGraph:
    root: Key
    nodes: dict[Key, Node] = field(default_factory=dict)
    edges: dict[tuple[str, str], EdgeStats] = field(default_factory=dict)
    twins: dict[str, list[Key]] = field(default_factory=dict)
    """The states of each code hash: where the graph has a cycle (a read-only cache then a
    launch configuration, or the two the other way round), one code is reached under two
    techniques, as two states."""

    def add(self, key: Key, node: Node) -> None:
        self.nodes[key] = node
        self.twins.setdefault(key[1], []).append(key)

    def share(self, key: Key) -> None:
        """Give the state ``key`` the steps its twins took: a step belongs to the code, not
        to the technique that reached it, as the proposers answer by code and technique (a
        rewriter hands each step's variants out once). Asked again from a twin, a rewriter
        could only say all its candidates were handed out, a refusal that counts against
        the search's refusal cap, and a model would be paid for the same step twice. The
        lists of states reached are shared, so a variant either twin adds is both's."""
        node = self.nodes[key]
        for twin in self.twins.get(key[1], ()):
            if twin != key:
                other = self.nodes[twin]
                for action, reached in other.children.items():
                    node.children.setdefault(action, reached)
                node.exhausted |= other.exhausted

    def edge(self, source: str, target: str) -> EdgeStats:
        return self.edges.setdefault((source, target), EdgeStats())
