"""The graph as prior: what an edge's stored examples say about a step before the search
has tried it.

An example that was run and timed carries a speedup; its reward (paper Eq. 3, as the
search scores its own candidates) says how far that step has led before. Examples without
a speedup (compile-only) still say the step has been taken. Priors order a state's first
batch and its untried steps, and start the rollout policy's transition values, where
``weight`` measured examples count as that many visits: the search's own results soon
outweigh them (see ``SearchConfig.prior_weight``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from regrapht_core.contracts.evaluation import speedup_reward
from regrapht_core.search.config import Measured

__all__ = ["NO_PRIOR", "EdgePrior", "edge_prior"]


@dataclass(frozen=True, slots=True)
class EdgePrior:
    value: float = 0.0
    """Mean reward of the edge's measured examples; 0 when none was measured."""
    weight: int = 0
    """Measured examples counted, as pseudo-visits (at most the search's cap)."""
    examples: int = 0
    """All the edge's examples, measured or not."""

    def rank(self) -> tuple[bool, float, int]:
        """Sort key, best first when reversed: measured before unmeasured, then by value,
        then by how often the step was taken."""
        return (self.weight > 0, self.value, self.examples)

    def blend(self, value: float, visits: int) -> float:
        """The transition value with this prior as ``weight`` pseudo-visits."""
        if not self.weight:
            return value
        return (self.weight * self.value + visits * value) / (self.weight + visits)


NO_PRIOR = EdgePrior()


def edge_prior(examples: Sequence[Measured], cap: int) -> EdgePrior:
    rewards = [speedup_reward(e.speedup) for e in examples if e.speedup is not None]
    if not rewards:
        return EdgePrior(examples=len(examples))
    return EdgePrior(sum(rewards) / len(rewards), min(len(rewards), cap), len(examples))
