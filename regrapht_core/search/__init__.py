"""Monte Carlo Graph Search over the ReGraph (paper §3.3), split mctx-style.

``tree`` holds the search data, ``selection`` the P-UCB rule, ``rollout`` the ε-greedy
policy, and ``mcgs.run_search`` ties them to injected ``propose_fn`` / ``evaluate_fn``.
The values it exchanges with proposers and the verifier live in
:mod:`regrapht_core.contracts.proposal`; the search imports no verifier, model or rewriter.
"""

from regrapht_core.search.config import GraphView, SearchConfig
from regrapht_core.search.mcgs import run_search

__all__ = ["GraphView", "SearchConfig", "run_search"]
