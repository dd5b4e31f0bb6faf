"""The rollout policy: ε-greedy over transition statistics with a visit penalty λ·N that
keeps a rollout from replaying the one transition that paid off once. A transition's value
starts at the graph's prior for the state (``search.prior``) and moves to what the search
saw."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from regrapht_core.search.prior import EdgePrior
from regrapht_core.search.tree import SearchGraph

__all__ = ["rollout_action"]


def rollout_action(
    graph: SearchGraph,
    technique: str,
    actions: Sequence[str],
    *,
    lam: float,
    epsilon: float,
    rng: random.Random,
    prior: Callable[[str], EdgePrior],
) -> str:
    if rng.random() < epsilon:
        return rng.choice(list(actions))
    best_action, best_score = actions[0], -math.inf
    for action in actions:
        stats = graph.edge(technique, action)
        score = prior(action).blend(stats.q, stats.visits) - lam * stats.visits
        if score > best_score:
            best_action, best_score = action, score
    return best_action
