"""Deterministic technique appliers: CUDA rewrites a small model cannot be trusted to write.

Each rewriter applies one taxonomy technique on the tree-sitter syntax tree, or refuses
with a reason; :func:`rewriter_propose_fn` puts them behind the search's proposer contract.
See docs/rewriters.md.
"""

from regrapht_core.rewrite.grid_stride import GridStrideLoop
from regrapht_core.rewrite.launch_config import LaunchConfiguration
from regrapht_core.rewrite.parallelize import Parallelize
from regrapht_core.rewrite.propose import RewriterProposer, rewriter_propose_fn
from regrapht_core.rewrite.protocol import (
    Applicability,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
    Rewriter,
)
from regrapht_core.rewrite.reduction import ParallelReduction
from regrapht_core.rewrite.registry import Registry, default_registry, registry_of
from regrapht_core.rewrite.restrict import ReadOnlyRestrict
from regrapht_core.rewrite.transfers import PinnedMemory, TransferMinimization
from regrapht_core.rewrite.unroll import LoopUnrolling
from regrapht_core.rewrite.vectorize import VectorizedAccess

__all__ = [
    "Applicability",
    "GridStrideLoop",
    "LaunchConfiguration",
    "LoopUnrolling",
    "ParallelReduction",
    "Parallelize",
    "PinnedMemory",
    "ReadOnlyRestrict",
    "Registry",
    "RewriteCandidate",
    "RewriteContext",
    "RewriteParams",
    "Rewriter",
    "RewriterProposer",
    "TransferMinimization",
    "VectorizedAccess",
    "default_registry",
    "registry_of",
    "rewriter_propose_fn",
]
