"""What MCGS itself costs per iteration, model and verifier excluded.

Issue target: under 5 ms per iteration on a 300-node graph. The proposer and verifier are
instant stand-ins (a string append and a table look-up), so the time measured is selection,
expansion, rollout, back-up, hashing and bookkeeping. Every iteration evaluates at least
one candidate, so per-candidate cost is an upper bound of per-iteration cost.
"""

from __future__ import annotations

import random
import zlib

from pytest_benchmark.fixture import BenchmarkFixture

from regrapht_core.contracts.evaluation import Evaluation, Status, Timing
from regrapht_core.contracts.proposal import Proposal, ProposeRequest
from regrapht_core.contracts.task import Task, TimingMode
from regrapht_core.contracts.techniques import SEQUENTIAL as ROOT_TECHNIQUE
from regrapht_core.datatypes import EdgeExample
from regrapht_core.search import run_search
from regrapht_core.search.config import SearchConfig
from tests.core.search.test_mcgs import TASK

NODES, OUT_DEGREE, BUDGET = 300, 12, 2_000
TARGET_S_PER_ITERATION = 0.005


class WideGraph:
    def __init__(self, rng: random.Random) -> None:
        names = [f"t{i:03d}" for i in range(NODES - 1)]
        self.edges = {node: rng.sample(names, OUT_DEGREE) for node in [ROOT_TECHNIQUE, *names]}

    def successors(self, node: str) -> list[str]:
        return self.edges[node]

    def predecessors(self, node: str) -> list[str]:
        return [u for u, targets in self.edges.items() if node in targets]

    def examples(self, u: str, v: str) -> list[EdgeExample]:
        return []


def propose(request: ProposeRequest) -> Proposal:
    return Proposal(f"{request.code}\n// {request.technique}")


def evaluate(code: str) -> Evaluation:
    digest = zlib.crc32(code.encode())
    if digest % 5 == 0:
        return Evaluation(Status.WRONG_OUTPUT, "h", feedback="mismatch at 3")
    speedup = 0.5 + (digest % 1000) / 100
    timing = Timing(TimingMode.END_TO_END, 1.0, 1.0 / speedup, 0.0, 0.0, 30)
    return Evaluation(Status.VERIFIED, "h", timing=timing)


def test_search_overhead_per_iteration(benchmark: BenchmarkFixture) -> None:
    graph = WideGraph(random.Random(0))
    task: Task = TASK

    def search() -> int:
        result = run_search(
            task,
            graph,
            propose_fn=propose,
            evaluate_fn=evaluate,
            config=SearchConfig(budget=BUDGET, depth_cap=6),
            rng=random.Random(1),
        )
        return len(result.candidates)

    candidates = benchmark.pedantic(search, rounds=3, iterations=1)
    per_candidate = benchmark.stats.stats.median / candidates
    benchmark.extra_info.update(
        nodes=NODES, out_degree=OUT_DEGREE, candidates=candidates, s_per_candidate=per_candidate
    )
    assert candidates == BUDGET
    assert per_candidate < TARGET_S_PER_ITERATION
