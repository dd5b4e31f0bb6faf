"""The paper's comparison points, under the same interfaces, budget and trace as MCGS.

* ``run_random_walks``: "ReGraphT without search" -- up to ``attempts`` walks from the
  sequential code, each step a uniformly random successor on the graph, a walk ending at
  its first failing step or the depth cap. No statistics guide it; a step an earlier walk
  took is followed rather than proposed again (a proposer may hand each step's candidates
  out once).
* ``run_sampling``: the model-only baselines (plain prompting, chain of thought, code-RAG)
  -- independent one-shot rewrites of the sequential code, as many as the budget allows;
  which prompt is used is the proposer's business (``optimize.proposers.OneShotProposer``).

Both reuse MCGS's bookkeeping (budget, cancellation, time limit, the verified-result cache,
progress and the answer), so a comparison differs only in how actions are chosen.
"""

from __future__ import annotations

import dataclasses
import random
import threading
from collections.abc import Callable

from regrapht_core.contracts.deadline import Deadline
from regrapht_core.contracts.proposal import (
    EvaluateFn,
    EvaluateManyFn,
    ProposeFn,
    SearchProgress,
    SearchResult,
)
from regrapht_core.contracts.task import Task
from regrapht_core.contracts.techniques import CUDA_PORT
from regrapht_core.search.config import GraphView, SearchConfig
from regrapht_core.search.mcgs import _Search

__all__ = ["run_random_walks", "run_sampling"]

Progress = Callable[[SearchProgress], None] | None


class _RandomWalks(_Search):
    def iterate(self) -> None:
        """One walk; a step an earlier walk took is followed, not proposed again."""
        key = self.tree.root
        for _ in range(self.config.depth_cap):
            node = self.tree.nodes[key]
            actions = self.graph.successors(node.technique)
            if node.terminal or not actions:
                break
            stepped = self.take(key, self.rng.choice(list(actions)))
            if stepped is None:
                break
            key = stepped


class _Sampling(_Search):
    def iterate(self) -> None:
        self.apply(self.tree.root, [CUDA_PORT], "expand")


def run_random_walks(
    task: Task,
    graph: GraphView,
    *,
    propose_fn: ProposeFn,
    evaluate_fn: EvaluateFn,
    config: SearchConfig,
    rng: random.Random,
    attempts: int = 5,
    progress_fn: Progress = None,
    cancel: threading.Event | None = None,
    deadline: Deadline | None = None,
    evaluate_many_fn: EvaluateManyFn | None = None,
) -> SearchResult:
    limited = _with_iterations(config, attempts)
    return _RandomWalks(
        task, graph, propose_fn=propose_fn, evaluate_fn=evaluate_fn, config=limited,
        rng=rng, progress_fn=progress_fn, cancel=cancel, deadline=deadline,
        evaluate_many_fn=evaluate_many_fn,
    ).run()  # fmt: skip


def run_sampling(
    task: Task,
    graph: GraphView,
    *,
    propose_fn: ProposeFn,
    evaluate_fn: EvaluateFn,
    config: SearchConfig,
    rng: random.Random,
    progress_fn: Progress = None,
    cancel: threading.Event | None = None,
    deadline: Deadline | None = None,
    evaluate_many_fn: EvaluateManyFn | None = None,
) -> SearchResult:
    """``graph`` is unused (the baselines know no graph); it keeps one signature for all."""
    return _Sampling(
        task, graph, propose_fn=propose_fn, evaluate_fn=evaluate_fn,
        config=_with_iterations(config, config.budget), rng=rng, progress_fn=progress_fn,
        cancel=cancel, deadline=deadline, evaluate_many_fn=evaluate_many_fn,
    ).run()  # fmt: skip


def _with_iterations(config: SearchConfig, iterations: int) -> SearchConfig:
    return dataclasses.replace(config, max_iterations=iterations)
