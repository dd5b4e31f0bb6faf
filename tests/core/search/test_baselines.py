"""Baselines under the MCGS interfaces: random walks on the graph, one-shot sampling."""

from __future__ import annotations

import random

from regrapht_core.contracts.proposal import Proposal, ProposeRequest
from regrapht_core.contracts.techniques import CUDA_PORT
from regrapht_core.search.baselines import run_random_walks, run_sampling
from regrapht_core.search.config import SearchConfig
from tests.core.search.test_mcgs import TASK, Graph, OneEach, Verifier, propose, techniques


def test_random_walks_make_at_most_five_attempts_and_stop_at_a_failure() -> None:
    graph = Graph({"sequential": ["A", "B"], "A": ["A", "B"], "B": ["A", "B"]})
    verifier = Verifier({("A",): 2.0, ("A", "A"): 3.0, ("B",): 1.5, ("B", "A"): 4.0})
    result = run_random_walks(
        TASK,
        graph,
        propose_fn=propose,
        evaluate_fn=verifier,
        config=SearchConfig(budget=100, depth_cap=3, retry_with_feedback=False),
        rng=random.Random(3),
    )
    assert result.stop_reason == "iterations"
    # Five walks; a step an earlier walk took (same state, same technique) is followed,
    # not proposed again.
    steps = [(c.parent, c.technique) for c in result.candidates]
    assert len(steps) == len(set(steps))
    assert {c.technique for c in result.candidates if c.parent is None} == {"A", "B"}
    for candidate in result.candidates:
        if candidate.parent is not None:  # a walk continues only from a verified step
            assert result.candidates[candidate.parent].result.verified
    assert result.best is not None
    assert result.best.result.speedup == max(
        c.result.speedup or 0.0 for c in result.candidates if c.result.verified
    )


def test_walks_never_ask_a_one_each_proposer_twice() -> None:
    """Regression (issue 16): every walk asked again for the root's step, which a proposer
    that hands out each step's candidates once refused, so walks made one program a task."""
    graph = Graph({"sequential": ["A"], "A": ["B", "C"], "B": ["C"], "C": ["B"]})
    table = {("A",): 2.0, ("A", "B"): 3.0, ("A", "C"): 2.5, ("A", "B", "C"): 4.0}
    table[("A", "C", "B")] = 3.5
    proposer = OneEach()
    result = run_random_walks(
        TASK, graph, propose_fn=proposer, evaluate_fn=Verifier(table),
        config=SearchConfig(budget=20, depth_cap=3, retry_with_feedback=False),
        rng=random.Random(5), attempts=8,
    )  # fmt: skip
    assert all(c.result.verified for c in result.candidates)
    assert len(result.candidates) >= 3


def test_random_walks_replay_exactly_with_the_same_seed() -> None:
    graph = Graph({"sequential": ["A", "B"], "A": ["A", "B"], "B": ["A"]})
    verifier = Verifier({("A",): 2.0, ("B",): 1.5, ("B", "A"): 4.0, ("A", "B"): 1.0})

    def run() -> list[tuple[str, ...]]:
        result = run_random_walks(
            TASK, graph, propose_fn=propose, evaluate_fn=verifier,
            config=SearchConfig(budget=20, depth_cap=2), rng=random.Random(11),
        )  # fmt: skip
        return [techniques(c.code) for c in result.candidates]

    assert run() == run()


def test_sampling_asks_for_one_shot_ports_of_the_sequential_code_within_the_budget() -> None:
    asked: list[ProposeRequest] = []

    def port(request: ProposeRequest) -> Proposal:
        asked.append(request)
        return Proposal(f"{request.code}\n// {request.technique} {len(asked)}")

    result = run_sampling(
        TASK,
        Graph({}),
        propose_fn=port,
        evaluate_fn=Verifier({(f"{CUDA_PORT} 2",): 5.0}),
        config=SearchConfig(budget=4, retry_with_feedback=False),
        rng=random.Random(0),
    )
    assert len(result.candidates) == 4 and result.stop_reason == "budget"
    assert {r.code for r in asked} == {TASK.source}
    assert {r.technique for r in asked} == {CUDA_PORT}
    assert result.best is not None and result.best.result.speedup == 5.0
