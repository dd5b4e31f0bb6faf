"""The technique ids the code names by hand: where the search starts and what a one-shot
baseline asks for. Every other id is data (the taxonomy in :mod:`regrapht_core.graph.taxonomy`,
the snapshot); these few are written into logic, so they are spelled once, here."""

from __future__ import annotations

__all__ = ["CUDA_PORT", "PARALLELIZATION", "SEQUENTIAL"]

SEQUENTIAL = "sequential"
"""The initial node: the sequential code every trajectory starts from. Not a technique."""
PARALLELIZATION = "parallelization"
"""The first step of every sequential→CUDA path, and where a kernel→kernel search starts."""
CUDA_PORT = "cuda_port"
"""The pseudo-technique a one-shot proposer is asked for: "make this fast CUDA"."""
