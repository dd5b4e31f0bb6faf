"""The embedded model on a scaffold's hole: the real model, real parsing, real splicing.

Whether the model gets the atomics right is for the verifier (and the H100 suite) to say;
here the model must be asked the short question and its answer either spliced into the
scaffold, the rest of the candidate untouched, or refused with a reason.
"""

from __future__ import annotations

import pytest

from regrapht_core.contracts.proposal import ProposeRequest
from regrapht_core.graph.model import ReGraph
from regrapht_core.model.llama import LlamaCppModel
from regrapht_core.optimize.proposers import HoleProposer
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.rewrite.scaffold import HOLE, parallel_scaffold
from tests.core.rewrite import cases


@pytest.mark.slow
def test_the_embedded_model_answers_a_hole_with_a_spliced_body_or_a_reason(
    small_model: LlamaCppModel,
) -> None:
    task = cases.HISTOGRAM
    scaffold = parallel_scaffold(task.source, RewriteContext(task))
    proposer = HoleProposer(small_model, ReGraph(), max_tokens=128)
    request = ProposeRequest(task, "sequential", "parallelization", task.source)
    proposal = proposer(request)
    assert proposal.producer == "scaffold:parallelization+model:" + small_model.name
    if proposal.code is None:
        assert proposal.message and proposal.retryable
        return
    before, after = scaffold.code.split(HOLE)
    assert proposal.code.startswith(before) and proposal.code.endswith(after)
    assert len(proposal.code) > len(before) + len(after)
