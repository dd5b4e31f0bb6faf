"""A written trace reads back identical, and replaying it reproduces the search exactly."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from regrapht_core.contracts.proposal import Proposal, ProposeFn, ProposeRequest, SearchResult
from regrapht_core.search import run_search
from regrapht_core.search.config import SearchConfig
from regrapht_core.search.trace_log import TraceError, read_trace, replay_fns, write_trace
from tests.core.search.test_mcgs import TASK, Graph, Verifier, propose

GRAPH = Graph({"sequential": ["A", "B"], "A": ["B", "C"], "B": ["A"], "C": ["A"]})
TABLE = {("A",): 2.0, ("B",): None, ("A", "B"): 0.8, ("A", "C"): 4.0, ("B", "A"): 1.5}


def round_trip(propose_fn: ProposeFn, tmp_path: Path) -> tuple[SearchResult, SearchResult]:
    """A search, and its replay from the trace it wrote (which must read back equal)."""
    config = SearchConfig(budget=12, rollout_epsilon=0.3)
    first = run_search(
        TASK,
        GRAPH,
        propose_fn=propose_fn,
        evaluate_fn=Verifier(TABLE),
        config=config,
        rng=random.Random(3),
    )
    trace = tmp_path / "trace.jsonl"
    write_trace(first.candidates, trace)
    recorded = read_trace(trace)
    assert recorded == list(first.candidates)
    replay_propose, replay_evaluate = replay_fns(recorded)
    again = run_search(
        TASK,
        GRAPH,
        propose_fn=replay_propose,
        evaluate_fn=replay_evaluate,
        config=config,
        rng=random.Random(3),
    )
    return first, again


def test_trace_round_trips_and_replays_to_the_same_search(tmp_path: Path) -> None:
    first, again = round_trip(propose, tmp_path)
    assert again.candidates == first.candidates
    assert again.best == first.best


def test_replay_with_another_seed_diverges_loudly(tmp_path: Path) -> None:
    config = SearchConfig(budget=12, rollout_epsilon=0.5)
    first = run_search(
        TASK,
        GRAPH,
        propose_fn=propose,
        evaluate_fn=Verifier(TABLE),
        config=config,
        rng=random.Random(3),
    )
    diverged = 0
    for seed in range(4, 40):
        fns = replay_fns(list(first.candidates))
        try:
            run_search(
                TASK,
                GRAPH,
                propose_fn=fns[0],
                evaluate_fn=fns[1],
                config=config,
                rng=random.Random(seed),
            )
        except TraceError:
            diverged += 1
    assert diverged > 0


def test_corrupt_trace_is_a_clear_error(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    trace.write_text('{"index": 0}\n', encoding="utf-8")
    with pytest.raises(TraceError, match=r"trace.jsonl:1: not a trace record"):
        read_trace(trace)


def relabelling(request: ProposeRequest) -> Proposal:
    """As ``propose``, but a step B taken from the sequential code says it applied A (a
    model asked for a library call that wrote a plain kernel)."""
    proposal = propose(request)
    if request.from_technique == "sequential" and request.technique == "B":
        return dataclasses.replace(proposal, technique="A")
    return proposal


def test_a_relabelled_step_is_recorded_as_applied_and_replays_as_asked(tmp_path: Path) -> None:
    first, again = round_trip(relabelling, tmp_path)
    relabelled = [c for c in first.candidates if c.asked]
    assert relabelled and all(c.technique == "A" and c.asked == c.step == "B" for c in relabelled)
    assert all(c.step == c.technique for c in first.candidates if not c.asked)
    assert again.candidates == first.candidates
