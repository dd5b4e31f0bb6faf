"""Deterministic technique appliers: CUDA rewrites a small model cannot be trusted to write.

Each rewriter applies one taxonomy technique on the tree-sitter syntax tree, or refuses
with a reason; :mod:`regrapht_core.optimize.rewriter_proposer` puts them behind the search's
proposer contract.
See docs/rewriters.md.
"""

from regrapht_core.rewrite.grid_stride import GridStrideLoop
from regrapht_core.rewrite.launch_config import LaunchConfiguration
from regrapht_core.rewrite.parallelize import Parallelize
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
    "TransferMinimization",
    "VectorizedAccess",
    "default_registry",
    "registry_of",
]
