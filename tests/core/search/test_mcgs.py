"""Logic tests of MCGS with a scripted graph, proposer and verifier (no model, no GPU).

Each expected number below is worked out by hand from the rules in method.md, so a change
in selection, rollout or back-up shows up as a changed visit count or Q value.
"""

from __future__ import annotations

import dataclasses
import random
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence

import pytest

from regrapht_core.contracts.deadline import Deadline
from regrapht_core.contracts.evaluation import Evaluation, Status, Timing
from regrapht_core.contracts.proposal import Proposal, ProposeRequest, SearchProgress, StopReason
from regrapht_core.contracts.task import (
    ArgSpec,
    LaunchSpec,
    ParamKind,
    Role,
    Task,
    TaskMode,
    TimingMode,
)
from regrapht_core.datatypes import EdgeExample
from regrapht_core.search import run_search
from regrapht_core.search.config import SearchConfig
from regrapht_core.search.mcgs import _Search

TASK = Task(
    name="scale",
    source="void scale(int n, float* x) { for (int i = 0; i < n; ++i) x[i] *= 2; }",
    entry="scale",
    signature="void scale(int n, float* x)",
    args=(
        ArgSpec("n", ParamKind.SCALAR, "int", value="n"),
        ArgSpec("x", ParamKind.POINTER, "float", Role.INOUT, length="n"),
    ),
    correctness_sizes=({"n": 7},),
    timing_size={"n": 1 << 20},
)


class Graph:
    """Edges, and optionally examples on them (the graph's prior)."""

    def __init__(
        self,
        edges: Mapping[str, Sequence[str]],
        examples: Mapping[tuple[str, str], Sequence[EdgeExample]] | None = None,
    ) -> None:
        self.edges = edges
        self.stored = examples or {}

    def successors(self, node: str) -> Sequence[str]:
        return self.edges.get(node, ())

    def predecessors(self, node: str) -> Sequence[str]:
        return [u for u, targets in self.edges.items() if node in targets]

    def examples(self, u: str, v: str) -> Sequence[EdgeExample]:
        return self.stored.get((u, v), ())


def techniques(code: str) -> tuple[str, ...]:
    return tuple(line[3:] for line in code.splitlines() if line.startswith("// "))


def propose(request: ProposeRequest) -> Proposal:
    return Proposal(f"{request.code}\n// {request.technique}", think=f"apply {request.technique}")


class Verifier:
    """Speedups by technique path; a path absent from the table fails to compile."""

    def __init__(self, speedups: Mapping[tuple[str, ...], float | None]) -> None:
        self.speedups = speedups
        self.calls: list[tuple[str, ...]] = []

    def __call__(self, code: str) -> Evaluation:
        path = techniques(code)
        self.calls.append(path)
        if path not in self.speedups:
            return Evaluation(Status.COMPILE_ERROR, "h", feedback=f"error in {path[-1]}")
        speedup = self.speedups[path]
        if speedup is None:
            return Evaluation(Status.NOT_RUN, "h")
        timing = Timing(TimingMode.END_TO_END, speedup, 1.0, 0.0, 0.0, 30)
        return Evaluation(Status.VERIFIED, "h", timing=timing)


def search(
    graph: Graph, verifier: Verifier, seed: int = 0, **config: object
) -> tuple[_Search, list[SearchProgress]]:
    progress: list[SearchProgress] = []
    cfg = SearchConfig(**{"retry_with_feedback": False, "rollout_epsilon": 0.0, **config})  # type: ignore[arg-type]
    state = _Search(
        TASK,
        graph,
        propose_fn=propose,
        evaluate_fn=verifier,
        config=cfg,
        rng=random.Random(seed),
        progress_fn=progress.append,
        cancel=None,
        deadline=None,
    )
    state.run()
    return state, progress


def stats(state: _Search, *path: str) -> tuple[int, float]:
    node = (
        next(n for n in state.tree.nodes.values() if techniques(n.code) == path and not n.terminal)
        if path
        else state.tree.nodes[state.tree.root]
    )
    return node.visits, round(node.q, 6)


def test_two_leaves_golden_visits_and_values() -> None:
    verifier = Verifier({("A",): 2.0})
    state, _ = search(Graph({"sequential": ["A", "B"]}), verifier)
    # Both actions are applied once (fresh first), then both children close: A is a
    # leaf, B failed. Root saw values 2 (A) and -1 (B).
    assert sorted(verifier.calls) == [("A",), ("B",)]
    assert stats(state) == (2, 0.5)
    assert stats(state, "A") == (1, 2.0)
    assert state.result("x").best is not None
    assert state.result("x").best.technique == "A"  # type: ignore[union-attr]
    assert state.tree.root in state.closed


def test_rollout_value_is_the_max_along_it_and_backs_up_the_selection_path() -> None:
    # sequential -> A -> B -> C: expanding A rolls out through B (3x) and C (1.5x);
    # the rollout value is max(2, 3, 1.5) = 3, backed up to root and A only.
    verifier = Verifier({("A",): 2.0, ("A", "B"): 3.0, ("A", "B", "C"): 1.5})
    graph = Graph({"sequential": ["A"], "A": ["B"], "B": ["C"]})
    state, _ = search(graph, verifier, budget=3)
    assert verifier.calls == [("A",), ("A", "B"), ("A", "B", "C")]
    assert stats(state) == (1, 3.0)
    assert stats(state, "A") == (1, 3.0)
    # Rollout states are tree states (under the edge that reached them) with no visits;
    # their transitions are counted.
    assert len(state.tree.nodes) == 4
    assert stats(state, "A", "B") == (0, 0.0)
    assert state.tree.edges[("A", "B")].visits == 1
    assert state.tree.edges[("B", "C")].q == 1.5
    result = state.result("budget")
    assert result.best is not None and result.best.result.speedup == 3.0
    assert [s.technique for s in result.path] == ["A", "B"]


def test_slower_but_correct_scores_speedup_minus_one() -> None:
    verifier = Verifier({("A",): 0.5})
    state, _ = search(Graph({"sequential": ["A"]}), verifier)
    assert stats(state, "A") == (1, -0.5)


def test_rollout_stops_at_first_failure_and_at_the_depth_cap() -> None:
    graph = Graph({"sequential": ["A"], "A": ["X"], "X": ["A"]})
    verifier = Verifier({("A",): 2.0})
    search(graph, verifier, budget=10)
    # A expands, rollout tries X, which fails: nothing after a failing step.
    assert ("A", "X", "A") not in verifier.calls

    loop = Graph({"sequential": ["A"], "A": ["A"]})
    deep = Verifier({("A",) * k: float(k) for k in range(1, 10)})
    state, _ = search(loop, deep, budget=50, depth_cap=3)
    assert max(len(p) for p in deep.calls) == 3
    assert state.result("x").best.result.speedup == 3.0  # type: ignore[union-attr]


def test_p_ucb_prefers_the_better_child_after_the_first_visits() -> None:
    graph = Graph({"sequential": ["A", "B"], "A": ["C"], "B": ["D"]})
    table = {("A",): 3.0, ("B",): 1.2, ("A", "C"): 4.0, ("B", "D"): 1.1}
    verifier = Verifier(table)
    state, _ = search(graph, verifier, budget=5, depth_cap=1)
    # depth_cap=1 keeps rollouts out; after A and B, every visit goes where P-UCB says,
    # and both children close as depth-capped leaves: exactly two evaluations.
    assert sorted(verifier.calls) == [("A",), ("B",)]
    assert stats(state) == (2, round((3.0 + 1.2) / 2, 6))
    assert state.result(StopReason.BUDGET).stop_reason == "budget"


def commuting(request: ProposeRequest) -> Proposal:
    """Steps that commute: A then B and B then A write the same code."""
    applied = sorted({*techniques(request.code), request.technique})
    return Proposal(TASK.source + "".join(f"\n// {t}" for t in applied))


def test_identical_code_is_one_state_and_is_verified_once() -> None:
    # A then B and B then A write the same code: under technique B and A respectively
    # they are two states, but the code is verified once.
    graph = Graph({"sequential": ["A", "B"], "A": ["B"], "B": ["A"]})
    verifier = Verifier({("A",): 2.0, ("B",): 1.5, ("A", "B"): 3.0})
    cfg = SearchConfig(budget=8, retry_with_feedback=False, rollout_epsilon=0.0)
    result = run_search(
        TASK, graph, propose_fn=commuting, evaluate_fn=verifier, config=cfg, rng=random.Random(1)
    )
    assert sorted(verifier.calls) == [("A",), ("A", "B"), ("B",)]
    assert len(result.candidates) > len(verifier.calls)


def test_an_unchanged_answer_is_not_a_step() -> None:
    def echo(request: ProposeRequest) -> Proposal:
        return Proposal("  " + request.code.replace(" ", "\n"), producer="model:echo")

    verifier = Verifier({})
    result = run_search(
        TASK,
        Graph({"sequential": ["A"]}),
        propose_fn=echo,
        evaluate_fn=verifier,
        config=SearchConfig(budget=4),
        rng=random.Random(0),
    )
    assert verifier.calls == []
    assert {c.result.status for c in result.candidates} == {Status.NO_CODE}
    assert "unchanged" in result.candidates[0].result.feedback


def test_same_seed_same_search_and_budget_is_exact() -> None:
    graph = Graph({"sequential": ["A", "B", "C"], "A": ["B", "C"], "B": ["A", "C"], "C": ["A"]})
    table = {p: 1.0 + len(p) / 3 for p in [("A",), ("B",), ("C",), ("A", "B"), ("B", "C")]}
    runs = [search(graph, Verifier(table), seed=7, budget=9, rollout_epsilon=0.3)[0] for _ in "ab"]
    traces = [[(c.technique, c.phase, c.code) for c in r.trace] for r in runs]
    assert traces[0] == traces[1]
    assert len(traces[0]) == 9


def test_progress_is_reported_for_every_candidate() -> None:
    verifier = Verifier({("A",): 2.0, ("A", "B"): 5.0})
    _, progress = search(Graph({"sequential": ["A"], "A": ["B"]}), verifier)
    # Expand A, roll out to B; the tree then follows A->B rather than asking for it again.
    # After two visits through A (ceil(sqrt(2)) = 2 variants allowed) A is asked for another
    # variant, and B once its state is closed (widening): this proposer repeats itself,
    # which is served from the cache, counted (the proposer did the work) and exhausts the
    # step.
    assert [p.evaluations for p in progress] == [1, 2, 3, 4]
    assert [p.best_speedup for p in progress] == [2.0, 5.0, 5.0, 5.0]
    assert [p.technique for p in progress] == ["A", "B", "A", "B"]
    assert verifier.calls == [("A",), ("A", "B")]


def test_retry_gets_the_verifier_feedback_and_counts_against_the_budget() -> None:
    seen: list[str] = []

    def flaky(request: ProposeRequest) -> Proposal:
        seen.append(request.feedback)
        suffix = "fixed" if request.feedback else "broken"
        return Proposal(f"{request.code}\n// {request.technique}-{suffix}")

    verifier = Verifier({("A-fixed",): 2.0})
    cfg = SearchConfig(budget=5, rollout_epsilon=0.0, widening=0.0)
    result = run_search(
        TASK,
        Graph({"sequential": ["A"]}),
        propose_fn=flaky,
        evaluate_fn=verifier,
        config=cfg,
        rng=random.Random(0),
    )
    assert seen == ["", "error in A-broken"]
    assert [c.phase for c in result.candidates] == ["expand", "retry"]
    assert result.best is not None and result.best.result.speedup == 2.0


def test_cancel_stops_between_candidates_and_keeps_the_best_so_far() -> None:
    cancel = threading.Event()
    graph = Graph({"sequential": ["A"], "A": ["A"]})
    verifier = Verifier({("A",) * k: float(k) for k in range(1, 50)})

    def stop_after_three(progress: SearchProgress) -> None:
        if progress.evaluations == 3:
            cancel.set()

    result = run_search(
        TASK,
        graph,
        propose_fn=propose,
        evaluate_fn=verifier,
        config=SearchConfig(budget=100, depth_cap=40, rollout_epsilon=0.0),
        rng=random.Random(0),
        progress_fn=stop_after_three,
        cancel=cancel,
    )
    assert result.cancelled and result.stop_reason == "cancelled"
    assert len(result.candidates) == 3
    assert result.best is not None and result.best.result.speedup == 3.0


def test_time_limit_stops_between_candidates_and_keeps_the_best_so_far() -> None:
    now = [0.0]

    def slow(code: str) -> Evaluation:
        now[0] += 10.0  # every verification takes ten (fake) seconds
        return Verifier({("A",) * k: float(k) for k in range(1, 50)})(code)

    result = run_search(
        TASK,
        Graph({"sequential": ["A"], "A": ["A"]}),
        propose_fn=propose,
        evaluate_fn=slow,
        config=SearchConfig(budget=100, depth_cap=40, rollout_epsilon=0.0, time_limit_s=25.0),
        rng=random.Random(0),
        deadline=Deadline.after(25.0, clock=lambda: now[0]),
    )
    assert result.stop_reason == "time limit" and not result.cancelled
    assert len(result.candidates) == 3
    assert result.best is not None and result.best.result.speedup == 3.0


def test_the_deadline_goes_with_every_request_to_the_proposer() -> None:
    deadline = Deadline.after(60.0, clock=lambda: 0.0)
    seen: list[Deadline] = []

    def remember(request: ProposeRequest) -> Proposal:
        seen.append(request.deadline)
        return propose(request)

    run_search(
        TASK,
        Graph({"sequential": ["A"], "A": []}),
        propose_fn=remember,
        evaluate_fn=Verifier({("A",): 2.0}),
        config=SearchConfig(budget=3),
        rng=random.Random(0),
        deadline=deadline,
    )
    assert seen and all(given is deadline for given in seen)


def test_without_gpu_nothing_is_best_but_the_deepest_compiled_candidate_is_kept() -> None:
    verifier = Verifier({("A",): None, ("A", "B"): None})
    state, _ = search(Graph({"sequential": ["A"], "A": ["B", "X"]}), verifier, budget=10)
    result = state.result("x")
    assert result.best is None
    assert result.best_unmeasured is not None
    assert techniques(result.best_unmeasured.code) == ("A", "B")
    assert [s.technique for s in result.path] == ["A", "B"]
    assert all(s.speedup is None for s in result.path)


def test_no_code_from_the_proposer_is_a_failed_candidate() -> None:
    def silent(request: ProposeRequest) -> Proposal:
        return Proposal(None, message="no code block in the answer")

    result = run_search(
        TASK,
        Graph({"sequential": ["A"]}),
        propose_fn=silent,
        evaluate_fn=Verifier({}),
        config=SearchConfig(budget=4),
        rng=random.Random(0),
    )
    assert [c.result.status for c in result.candidates] == [Status.NO_CODE, Status.NO_CODE]
    assert result.candidates[0].result.reward == -1.0
    assert result.best is None and result.stop_reason == "exhausted"


def test_a_deterministic_refusal_is_not_retried() -> None:
    def refuse(request: ProposeRequest) -> Proposal:
        return Proposal(None, message="no rewriter for this technique", retryable=False)

    result = run_search(
        TASK,
        Graph({"sequential": ["A", "B"]}),
        propose_fn=refuse,
        evaluate_fn=Verifier({}),
        config=SearchConfig(budget=10),
        rng=random.Random(0),
    )
    assert [c.phase for c in result.candidates] == ["expand", "expand"]
    assert result.stop_reason == "exhausted"


def test_config_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="budget"):
        SearchConfig(budget=0)
    with pytest.raises(ValueError, match="epsilon"):
        SearchConfig(rollout_epsilon=1.5)
    with pytest.raises(ValueError, match="time_limit_s"):
        SearchConfig(time_limit_s=0)


def test_a_kernel_task_starts_after_parallelization_not_at_the_sequential_node() -> None:
    kernel = dataclasses.replace(
        TASK,
        mode=TaskMode.KERNEL_TO_KERNEL,
        launch=LaunchSpec("scale", ("(n + 255) / 256",), ("256",)),
    )
    seen: list[tuple[str, str]] = []

    def record(request: ProposeRequest) -> Proposal:
        seen.append((request.from_technique, request.technique))
        return propose(request)

    graph = Graph({"sequential": ["parallelization"], "parallelization": ["grid_stride_loop"]})
    result = run_search(
        kernel,
        graph,
        propose_fn=record,
        evaluate_fn=Verifier({("grid_stride_loop",): 1.5}),
        config=SearchConfig(budget=2),
        rng=random.Random(0),
    )
    assert seen[0] == ("parallelization", "grid_stride_loop")
    assert result.best is not None and result.best.technique == "grid_stride_loop"


class OneEach:
    """A proposer that hands out one candidate per (code, technique), as the rewriter
    proposer does, and refuses a second request for the same step."""

    def __init__(self, answer: Callable[[ProposeRequest], Proposal] = propose) -> None:
        self.asked: list[tuple[str, str]] = []
        self.answer = answer

    def __call__(self, request: ProposeRequest) -> Proposal:
        step = (request.code, request.technique)
        if step in self.asked:
            return Proposal(
                None,
                message="all 1 rewriter candidates for this step were proposed",
                retryable=False,
            )
        self.asked.append(step)
        return self.answer(request)


def one_each_search(
    graph: Graph,
    proposer: OneEach,
    table: Mapping[tuple[str, ...], float | None],
    seed: int,
    *,
    budget: int,
    depth_cap: int,
) -> _Search:
    """A search (not yet run) with ``proposer`` handing out one candidate per step."""
    return _Search(
        TASK,
        graph,
        propose_fn=proposer,
        evaluate_fn=Verifier(table),
        config=SearchConfig(budget=budget, retry_with_feedback=False, depth_cap=depth_cap),
        rng=random.Random(seed),
        progress_fn=None,
        cancel=None,
        deadline=None,
    )


def test_a_step_a_rollout_took_is_never_proposed_again() -> None:
    """Regression (issue 16): rollout states were not stored, so selection later expanded a
    (state, technique) the rollout had applied; the proposer's refusal was scored -1 and the
    verified state orphaned."""
    graph = Graph({"sequential": ["A", "B"], "A": ["B", "C"], "B": ["A", "C"], "C": ["A"]})
    table = {p: 1.0 + len(p) for p in [("A",), ("B",), ("A", "B"), ("A", "C"), ("B", "C")]}
    table.update({("A", "B", "C"): 5.0, ("B", "A"): 2.0, ("A", "C", "A"): 1.5})
    for seed in range(20):
        proposer = OneEach()
        state = one_each_search(graph, proposer, table, seed, budget=40, depth_cap=3)
        reason = state.run()
        assert len(proposer.asked) == len(set(proposer.asked))
        # Asked again only to widen a step, and that refusal is no failure.
        failed = [c for c in state.trace if c.result.status is Status.NO_CODE]
        assert {c.index for c in failed} <= state.refusals, seed
        # Every verified state hangs under the edge that reached it, from the root down.
        reached = {state.tree.root}
        frontier = [state.tree.root]
        while frontier:
            for children in state.tree.nodes[frontier.pop()].children.values():
                for child in children:
                    if child not in reached:
                        reached.add(child)
                        frontier.append(child)
        verified = {k for k, n in state.tree.nodes.items() if n.reward > 0}
        assert verified <= reached, seed
        assert reason.stop_reason is StopReason.EXHAUSTED


def test_deterministic_refusals_spend_no_budget_and_score_nothing() -> None:
    """Regression (issue 16): "no rewriter for this technique" took 37% of a rewriters-only
    suite run's budget and was backed up as a -1 failure."""

    def only_a(request: ProposeRequest) -> Proposal:
        if request.technique != "A":
            return Proposal(None, message="no rewriter for this technique", retryable=False)
        return propose(request)

    graph = Graph({"sequential": ["A", "B", "C"], "A": ["B", "C", "A"]})
    verifier = Verifier({("A",): 2.0, ("A", "A"): 3.0})
    state = _Search(
        TASK,
        graph,
        propose_fn=only_a,
        evaluate_fn=verifier,
        config=SearchConfig(budget=2, retry_with_feedback=False, rollout_epsilon=0.0),
        rng=random.Random(0),
        progress_fn=None,
        cancel=None,
        deadline=None,
    )
    result = state.run()
    refused = [c for c in result.candidates if "no rewriter" in c.result.feedback]
    assert refused and state.spent == 2 == len(result.candidates) - len(refused)
    assert verifier.calls == [("A",), ("A", "A")]
    # Nothing below zero was backed up: the refusals closed their steps instead.
    assert all(node.value_sum >= 0 for node in state.tree.nodes.values())
    assert ("sequential", "B") not in state.tree.edges
    assert result.best is not None and result.best.result.speedup == 3.0


def test_the_refusal_cap_ends_a_search_of_refusals() -> None:
    def refuse(request: ProposeRequest) -> Proposal:
        return Proposal(None, message="no rewriter for this technique", retryable=False)

    loop = Graph({"sequential": [f"T{k}" for k in range(10)]})
    result = run_search(
        TASK,
        loop,
        propose_fn=refuse,
        evaluate_fn=Verifier({}),
        config=SearchConfig(budget=5, refusal_cap=3),
        rng=random.Random(0),
    )
    assert len(result.candidates) == 3 and result.stop_reason == "budget"


class Variants:
    """A proposer with several answers per step, as the rewriter proposer has (launch
    configurations, mappings): one per request, then a refusal once all were handed out."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.handed: dict[tuple[str, str], int] = {}

    def __call__(self, request: ProposeRequest) -> Proposal:
        step = (request.code, request.technique)
        k = self.handed.get(step, 0)
        if k == self.count:
            return Proposal(None, message=f"all {k} candidates were proposed", retryable=False)
        self.handed[step] = k + 1
        return Proposal(f"{request.code}\n// {request.technique}\n// variant {k}")


class ByVariant(Verifier):
    """Speedups by (technique path, variant of the last step)."""

    def __call__(self, code: str) -> Evaluation:
        variant = int(code.rsplit("variant ", 1)[1])
        path = tuple(t for t in techniques(code) if not t.startswith("variant"))
        self.calls.append((*path, f"v{variant}"))
        timing = Timing(
            TimingMode.END_TO_END, self.speedups[(*path, f"v{variant}")] or 1.0, 1.0, 0.0, 0.0, 30
        )
        return Evaluation(Status.VERIFIED, "h", timing=timing)


def test_a_step_is_widened_to_every_variant_its_proposer_has() -> None:
    """Regression (issue 16): each (state, technique) was asked once, so a step's other
    variants (block sizes, a 1-D mapping) were never verified and searches ended with a
    handful of programs per task."""
    table: dict[tuple[str, ...], float | None] = {
        ("P", "v0"): 1.5,
        ("P", "v1"): 3.0,
        ("P", "v2"): 2.0,
        ("P", "v3"): 1.2,
    }

    def run(widening: float) -> tuple[_Search, ByVariant]:
        verifier = ByVariant(table)
        state = _Search(
            TASK,
            Graph({"sequential": ["P"]}),
            propose_fn=Variants(4),
            evaluate_fn=verifier,
            config=SearchConfig(budget=20, retry_with_feedback=False, widening=widening),
            rng=random.Random(0),
            progress_fn=None,
            cancel=None,
            deadline=None,
        )
        state.run()
        return state, verifier

    state, verifier = run(1.0)
    assert sorted(verifier.calls) == sorted(table)
    root = state.tree.nodes[state.tree.root]
    assert len(root.children["P"]) == 4 and "P" in root.exhausted
    result = state.result(StopReason.EXHAUSTED)
    assert result.best is not None and result.best.result.speedup == 3.0
    assert [c.phase for c in state.trace] == ["expand", "widen", "widen", "widen", "widen"]
    assert state.spent == 4  # the last widening was the proposer's refusal

    _, once = run(0.0)
    assert once.calls == [("P", "v0")]


def test_a_states_first_visit_proposes_every_action_and_verifies_them_as_one_batch() -> None:
    batches: list[list[tuple[str, ...]]] = []
    verifier = Verifier({("A",): 2.0, ("A", "B"): 2.5, ("A", "C"): 3.0, ("A", "D"): 1.5})

    def evaluate_many(codes: Iterable[str]) -> list[Evaluation]:
        batch = list(codes)
        if batch:  # a batch of steps all refused or verified before has nothing to run
            batches.append([techniques(code) for code in batch])
        return [verifier(code) for code in batch]

    result = run_search(
        TASK,
        Graph({"sequential": ["A"], "A": ["B", "C", "D"]}),
        propose_fn=propose,
        evaluate_fn=verifier,
        evaluate_many_fn=evaluate_many,
        config=SearchConfig(budget=4, retry_with_feedback=False, rollout_epsilon=0.0),
        rng=random.Random(0),
    )
    # The root's batch is A alone; the rollout from A takes B; A's first visit then
    # proposes both steps not yet taken from it, verified together.
    assert batches == [[("A",)], [("A", "B")], [("A", "C"), ("A", "D")]]
    assert result.best is not None and result.best.result.speedup == 3.0


def test_a_batch_cut_short_by_a_cancel_records_only_what_was_verified() -> None:
    cancel = threading.Event()
    verifier = Verifier({("A",): 2.0, ("B",): 3.0, ("C",): 4.0})

    def evaluate_many(codes: Iterable[str]) -> list[Evaluation]:
        for code in codes:
            first = verifier(code)
            cancel.set()  # the user cancels while the first candidate runs
            return [first]
        return []

    result = run_search(
        TASK,
        Graph({"sequential": ["A", "B", "C"]}),
        propose_fn=propose,
        evaluate_fn=verifier,
        evaluate_many_fn=evaluate_many,
        config=SearchConfig(budget=10),
        rng=random.Random(0),
        cancel=cancel,
    )
    assert result.stop_reason == "cancelled"
    assert [c.technique for c in result.candidates] == ["A"]
    assert result.best is not None and result.best.result.speedup == 2.0


def test_a_batch_never_spends_past_the_budget() -> None:
    verifier = Verifier({(t,): 2.0 for t in "ABCDE"})
    result = run_search(
        TASK,
        Graph({"sequential": list("ABCDE")}),
        propose_fn=propose,
        evaluate_fn=verifier,
        config=SearchConfig(budget=3),
        rng=random.Random(0),
    )
    assert len(result.candidates) == 3 == len(verifier.calls)
    assert result.stop_reason == "budget"


def measured(speedup: float) -> EdgeExample:
    return EdgeExample("t", "", "", "before", "after", speedup=speedup, verified_on="H100")


def test_the_graphs_measured_examples_order_the_first_batch() -> None:
    """The graph as prior: a budget that cuts a batch short cuts the steps the graph has
    least evidence for."""
    graph = Graph({"sequential": ["A", "B", "C"]}, {("sequential", "B"): [measured(5.0)]})
    verifier = Verifier({("A",): 2.0, ("B",): 3.0, ("C",): 1.5})
    search(graph, verifier, budget=1)
    assert verifier.calls == [("B",)]


def test_the_graphs_prior_steers_the_rollout() -> None:
    edges = {"sequential": ["P"], "P": ["A", "B"]}
    table = {("P",): 1.5, ("P", "A"): 2.0, ("P", "B"): 3.0}
    steered = Graph(edges, {("P", "B"): [measured(4.0)]})
    verifier = Verifier(table)
    search(steered, verifier, budget=2)
    assert verifier.calls == [("P",), ("P", "B")]
    plain = Verifier(table)
    search(steered, plain, budget=2, prior_weight=0)
    assert plain.calls == [("P",), ("P", "A")]


def test_a_step_similar_code_gained_nothing_from_waits_behind_untried_ones() -> None:
    """A state's first batch leaves out the steps measured to gain nothing on code like
    its own (``search.prior``), so a small budget tries what might pay first."""
    edges = {"sequential": ["P"], "P": ["A", "B", "E"]}
    stored = {("P", "A"): [measured(2.0)], ("P", "B"): [measured(1.0)]}
    table = {("P",): 1.5, ("P", "A"): 3.0, ("P", "B"): 1.5, ("P", "E"): 2.0}
    verifier = Verifier(table)
    search(Graph(edges, stored), verifier, budget=3)
    assert verifier.calls == [("P",), ("P", "A"), ("P", "E")]
    blind = Verifier(table)
    search(Graph(edges), blind, budget=3)
    assert blind.calls == [("P",), ("P", "A"), ("P", "B")]


def test_where_no_step_is_promising_the_best_ranked_is_still_taken() -> None:
    graph = Graph({"sequential": ["A", "B"]}, {("sequential", "A"): [measured(0.5)]})
    verifier = Verifier({("A",): 1.2, ("B",): 1.1})
    search(graph, verifier, budget=1)
    assert verifier.calls == [("B",)]  # never measured outranks measured to lose
    again = Verifier({("A",): 1.2, ("B",): 1.1})
    search(Graph({"sequential": ["A"]}, {("sequential", "A"): [measured(0.5)]}), again, budget=1)
    assert again.calls == [("A",)]


def test_a_step_from_one_code_is_asked_once_whichever_technique_reached_it() -> None:
    """Where the graph has a cycle (A → B and B → A), A then B and B then A reach one code
    as two states (under B and under A). A step from that code is the code's: asked from
    the second state it was asked again, and the rewriters' refusal ("all candidates were
    proposed") counted against the refusal cap (the shipped graph with the explored
    trajectories, at 39d338b)."""
    graph = Graph({"sequential": ["A", "B"], "A": ["B", "C"], "B": ["A", "C"]})
    table = {("A",): 2.0, ("B",): 2.0, ("A", "B"): 3.0, ("A", "B", "C"): 4.0}
    table |= {("A", "C"): 2.5, ("B", "C"): 2.5}
    for seed in range(20):
        state = one_each_search(graph, OneEach(commuting), table, seed, budget=30, depth_cap=4)
        state.run()
        repeats = [c for c in state.trace if "were proposed" in c.result.feedback]
        assert all(c.phase == "widen" for c in repeats), (seed, [c.phase for c in repeats])
        both = [k for k in state.tree.nodes if techniques(state.tree.nodes[k].code) == ("A", "B")]
        assert len(both) == 2  # the code under B and under A
        first, second = (state.tree.nodes[k] for k in both)
        assert first.children.get("C") is second.children.get("C")  # one step, shared
