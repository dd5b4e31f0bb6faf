"""P-UCB selection (paper Eq. 2) over a state's moves, and the widening rule that decides
when a step already taken from a state may be asked for another variant.

A move is ``(action, child)``: into a state an earlier step reached, or, with ``child``
``None``, a new proposal for ``action``. States never visited and new proposals come first;
among visited states the highest P-UCB wins.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence

from regrapht_core.search.tree import Key, Node, SearchGraph

__all__ = ["Move", "p_ucb", "select_move", "widening_allows"]

Move = tuple[str, Key | None]


def p_ucb(child: Node, parent_visits: int, exploration: float) -> float:
    return child.q + exploration * math.sqrt(2.0 * math.log(max(parent_visits, 1)) / child.visits)


def widening_allows(
    graph: SearchGraph, children: Sequence[Key], open_children: Sequence[Key], widening: float
) -> bool:
    """Progressive widening: a step not taken yet may be; one with ``k`` children may get
    another variant once their visits ``N`` make ``ceil(widening * sqrt(N)) > k``, or when
    none of them is open any more and one worked (else a step whose other variants were
    never tried would be given up with its state). ``widening`` 0 asks each step once.

    A proposer often has several answers for one step (launch configurations, a 2-D and a
    1-D mapping; a model samples), and a search that asked once per step stopped at a
    handful of programs per task. Visits are where a step has paid off, so a step gets more
    variants as the search keeps coming back through it.
    """
    if not children:
        return True
    if widening <= 0:
        return False
    visits = sum(graph.nodes[k].visits for k in children)
    worked = any(not graph.nodes[k].terminal for k in children)
    return len(children) < math.ceil(widening * math.sqrt(visits)) or (worked and not open_children)


def select_move(
    graph: SearchGraph,
    moves: Sequence[Move],
    parent_visits: int,
    exploration: float,
    rng: random.Random,
    *,
    rank: Callable[[str], tuple[float, ...]],
) -> Move:
    """The move to make from a state with at least one.

    States reached but never visited come first, the best reward first (it is known, and
    going there costs nothing); then new proposals, the step ``rank`` puts highest first
    (the graph's prior); then the highest P-UCB, ties to the earliest move. Ties for first
    place are drawn with ``rng``, so equal searches replay exactly.
    """
    assert moves
    unvisited = {
        m: (graph.nodes[m[1]].reward,) for m in moves if m[1] and not graph.nodes[m[1]].visits
    }
    if unvisited:
        return _best(unvisited, rng)
    new = {m: rank(m[0]) for m in moves if m[1] is None}
    if new:
        return _best(new, rng)
    best_move, best_score = moves[0], -math.inf
    for move in moves:
        key = move[1]
        assert key is not None
        score = p_ucb(graph.nodes[key], parent_visits, exploration)
        if score > best_score:
            best_move, best_score = move, score
    return best_move


def _best(scored: Mapping[Move, tuple[float, ...]], rng: random.Random) -> Move:
    """A move with the highest score, drawn with ``rng`` among equals."""
    top = max(scored.values())
    return rng.choice([move for move, score in scored.items() if score == top])
