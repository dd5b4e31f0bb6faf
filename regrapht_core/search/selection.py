"""P-UCB selection (paper Eq. 2): unvisited actions first, then the best upper bound."""

from __future__ import annotations

import math
import random

from regrapht_core.search.tree import Node, SearchGraph

__all__ = ["p_ucb", "select_action"]


def p_ucb(child: Node, parent_visits: int, exploration: float) -> float:
    return child.q + exploration * math.sqrt(2.0 * math.log(max(parent_visits, 1)) / child.visits)


def select_action(graph: SearchGraph, node: Node, exploration: float, rng: random.Random) -> str:
    """The action to take at an expanded, non-terminal ``node`` with at least one action.

    Unapplied actions come first, drawn with ``rng`` so equal searches replay exactly;
    among applied ones the highest P-UCB wins, ties to the earliest action in graph order.
    """
    assert node.children
    fresh = [action for action, key in node.children.items() if key is None]
    if fresh:
        return rng.choice(fresh)
    best_action, best_score = "", -math.inf
    for action, key in node.children.items():
        assert key is not None
        child = graph.nodes[key]
        score = p_ucb(child, node.visits, exploration) if child.visits else math.inf
        if score > best_score:
            best_action, best_score = action, score
    return best_action
