"""A written trace reads back identical, and replaying it reproduces the search exactly."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from regrapht_core.search import run_search
from regrapht_core.search.config import SearchConfig
from regrapht_core.search.trace_log import TraceError, read_trace, replay_fns, write_trace
from tests.core.search.test_mcgs import TASK, Graph, Verifier, propose

GRAPH = Graph({"sequential": ["A", "B"], "A": ["B", "C"], "B": ["A"], "C": ["A"]})
TABLE = {("A",): 2.0, ("B",): None, ("A", "B"): 0.8, ("A", "C"): 4.0, ("B", "A"): 1.5}


def test_trace_round_trips_and_replays_to_the_same_search(tmp_path: Path) -> None:
    config = SearchConfig(budget=12, rollout_epsilon=0.3)
    first = run_search(
        TASK,
        GRAPH,
        propose_fn=propose,
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
