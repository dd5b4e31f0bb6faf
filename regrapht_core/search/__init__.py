"""Monte Carlo Graph Search over the ReGraph (paper §3.3), split mctx-style.

``tree`` holds the search data, ``selection`` the P-UCB rule, ``rollout`` the ε-greedy
policy, and ``mcgs.run_search`` ties them to injected ``propose_fn`` / ``evaluate_fn``.
"""

from regrapht_core.search.mcgs import run_search
from regrapht_core.search.types import (
    Candidate,
    GraphView,
    Proposal,
    ProposeRequest,
    SearchConfig,
    SearchProgress,
    SearchResult,
    StepRecord,
)

__all__ = [
    "Candidate",
    "GraphView",
    "Proposal",
    "ProposeRequest",
    "SearchConfig",
    "SearchProgress",
    "SearchResult",
    "StepRecord",
    "run_search",
]
