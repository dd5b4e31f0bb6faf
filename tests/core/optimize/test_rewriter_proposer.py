"""The rewriters behind the search's proposer contract."""

from __future__ import annotations

import random
import threading

import pytest

from regrapht_core.contracts.evaluation import Evaluation, Status, Timing
from regrapht_core.contracts.proposal import Proposal, ProposeRequest
from regrapht_core.contracts.task import Task, TimingMode
from regrapht_core.graph.paths import shipped_snapshot
from regrapht_core.graph.snapshot import load_snapshot
from regrapht_core.graph.taxonomy import TECHNIQUES
from regrapht_core.optimize.proposers import first_of
from regrapht_core.optimize.rewriter_proposer import rewriter_propose_fn
from regrapht_core.rewrite.parallelize import Parallelize
from regrapht_core.rewrite.registry import default_registry, registry_of
from regrapht_core.search import run_search
from regrapht_core.search.config import SearchConfig
from tests.core.rewrite import cases


def _request(
    task: Task = cases.SAXPY,
    technique: str = "parallelization",
    cancel: threading.Event | None = None,
) -> ProposeRequest:
    return ProposeRequest(task, "sequential", technique, task.source, cancel=cancel)


def test_every_registered_technique_is_a_taxonomy_id() -> None:
    known = {t.id for t in TECHNIQUES}
    assert set(default_registry()) <= known
    with pytest.raises(ValueError, match="not a technique id"):
        registry_of([("parallelise", Parallelize())])


def test_a_map_loop_is_proposed_by_the_parallelization_rewriter() -> None:
    proposal = rewriter_propose_fn()(_request())
    assert proposal.code is not None and "__global__" in proposal.code
    assert proposal.producer == "rewriter:parallelization"
    assert proposal.think.startswith("mapped each iteration")


def test_a_reduction_loop_asked_to_parallelize_gets_the_reduction_rewriter() -> None:
    proposal = rewriter_propose_fn()(_request(cases.SUM))
    assert proposal.code is not None and "__shfl_down_sync" in proposal.code
    assert proposal.producer == "rewriter:warp_shuffle_reduction"


def test_candidates_are_handed_out_once_each_then_the_step_says_so() -> None:
    propose = rewriter_propose_fn()
    first, second, third = (propose(_request(cases.MATRIX_ADD)) for _ in range(3))
    assert first.code is not None and "blockIdx.y" in first.code
    assert second.code is not None and "blockIdx.y" not in second.code
    assert third.code is None and "all 2 rewriter candidates" in third.message


def test_refusals_carry_the_reason() -> None:
    proposal = rewriter_propose_fn()(_request(cases.RUNNING_PRODUCT))
    assert proposal.code is None
    assert proposal.producer == "rewriter:parallelization"
    assert "loop-carried dependence" in proposal.message


def test_unknown_techniques_and_cancellation_produce_no_code() -> None:
    propose = rewriter_propose_fn()
    assert propose(_request(technique="tensor_cores")).code is None
    cancelled = threading.Event()
    cancelled.set()
    assert propose(_request(cancel=cancelled)).message == "cancelled"


def test_the_model_is_asked_only_when_the_rewriters_have_nothing() -> None:
    asked: list[str] = []

    def model(request: ProposeRequest) -> Proposal:
        asked.append(request.task.name)
        return Proposal("// model code", producer="model:fake")

    propose = first_of(rewriter_propose_fn(), model)
    assert propose(_request()).producer == "rewriter:parallelization"
    assert propose(_request(cases.RUNNING_PRODUCT)).producer == "model:fake"
    assert asked == ["running_product"]


def test_params_reach_the_rewriter() -> None:
    propose = rewriter_propose_fn(params={"parallelization": {"block_size": 128}})
    proposal = propose(_request())
    assert proposal.code is not None and "= 128;" in proposal.code


def test_a_reason_two_rewriters_share_is_given_once() -> None:
    proposal = rewriter_propose_fn()(_request(cases.RUNNING_PRODUCT))
    assert proposal.code is None and proposal.message
    parts = proposal.message.split("; ")
    assert len(parts) == len(set(parts))


@pytest.mark.parametrize("seed", range(4))
def test_a_search_over_the_shipped_graph_never_asks_the_rewriters_twice(seed: int) -> None:
    """Regression (issue 16): the rewriters hand each step's candidates out once; before
    rollout states were stored, the search asked again and scored the refusal ("all N
    rewriter candidates for this step were proposed") as a failed step. Now only a
    widening asks again (for the next variant), and the refusal that ends a step's
    variants spends nothing and scores nothing. The real graph and rewriters; every
    compiled candidate passes as a 2x speedup (the GPU's stand-in)."""
    graph = load_snapshot(shipped_snapshot()).graph
    passed = Evaluation(
        Status.VERIFIED, "h", timing=Timing(TimingMode.END_TO_END, 2.0, 1.0, 0.0, 0.0, 30)
    )
    result = run_search(
        cases.SAXPY,
        graph,
        propose_fn=rewriter_propose_fn(),
        evaluate_fn=lambda code: passed,
        config=SearchConfig(budget=60, retry_with_feedback=False),
        rng=random.Random(seed),
    )
    repeats = [c for c in result.candidates if "were proposed" in c.result.feedback]
    assert all(c.phase == "widen" for c in repeats), [(c.technique, c.phase) for c in repeats]
    assert any(c.result.status is Status.VERIFIED for c in result.candidates)
