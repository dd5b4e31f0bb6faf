"""Deterministic technique appliers: CUDA rewrites a small model cannot be trusted to write.

Each rewriter applies one taxonomy technique on the tree-sitter syntax tree, or refuses
with a reason; :func:`rewriter_propose_fn` puts them behind the search's proposer contract.
See docs/rewriters.md.
"""

from regrapht_core.rewrite.parallelize import Parallelize
from regrapht_core.rewrite.propose import RewriterProposer, rewriter_propose_fn, with_fallback
from regrapht_core.rewrite.protocol import (
    Applicability,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
    Rewriter,
)
from regrapht_core.rewrite.reduction import ParallelReduction
from regrapht_core.rewrite.registry import Registry, default_registry, registry_of

__all__ = [
    "Applicability",
    "ParallelReduction",
    "Parallelize",
    "Registry",
    "RewriteCandidate",
    "RewriteContext",
    "RewriteParams",
    "Rewriter",
    "RewriterProposer",
    "default_registry",
    "registry_of",
    "rewriter_propose_fn",
    "with_fallback",
]
