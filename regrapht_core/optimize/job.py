"""One optimization: search the ReGraph for the fastest verified rewrite of a task.

Shared by the CLI and the language server, so both report the same answer the same way:
only a verified candidate that beats the sequential reference is an answer; on a machine
without a GPU the deepest compiled candidate is offered as "compiled only", never as faster.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass

from regrapht_core.optimize.header import render_header
from regrapht_core.search import SearchConfig, SearchProgress, SearchResult, run_search
from regrapht_core.search.types import Candidate, GraphView, ProposeFn
from regrapht_core.tasks.spec import Task
from regrapht_core.verify.pipeline import Verifier

__all__ = ["OptimizeOutcome", "optimize_task"]


@dataclass(frozen=True, slots=True)
class OptimizeOutcome:
    task: Task
    search: SearchResult
    model: str
    gpu: bool
    """Whether candidates could be run; without a GPU nothing is verified or timed."""

    @property
    def faster(self) -> Candidate | None:
        """The verified answer, if it beats the sequential reference."""
        best = self.search.best
        speedup = best.result.speedup if best else None
        return best if speedup is not None and speedup > 1.0 else None

    @property
    def answer(self) -> Candidate | None:
        """What to offer the user: the faster verified code, else (no GPU) compiled code."""
        return self.faster or (None if self.gpu else self.search.best_unmeasured)

    def annotated_code(self) -> str | None:
        answer = self.answer
        if answer is None:
            return None
        header = render_header(
            self.task,
            answer,
            self.search.path,
            model=self.model,
            candidates_tried=len(self.search.candidates),
        )
        return header + answer.code

    def failure_summary(self) -> str:
        """Why there is no answer, from the statuses the verifier gave, most common first."""
        counts: dict[str, int] = {}
        for candidate in self.search.candidates:
            counts[candidate.result.status] = counts.get(candidate.result.status, 0) + 1
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        parts = ", ".join(f"{count} {status}" for status, count in ranked) or "no candidates"
        first = next((c.result.feedback for c in self.search.candidates if c.result.feedback), "")
        return f"{parts}" + (f"; first problem: {first}" if first else "")


def optimize_task(
    task: Task,
    graph: GraphView,
    *,
    propose_fn: ProposeFn,
    verifier: Verifier,
    config: SearchConfig,
    model: str,
    seed: int = 0,
    progress_fn: Callable[[SearchProgress], None] | None = None,
    cancel: threading.Event | None = None,
) -> OptimizeOutcome:
    result = run_search(
        task,
        graph,
        propose_fn=propose_fn,
        evaluate_fn=lambda code: verifier.verify(task, code),
        config=config,
        rng=random.Random(seed),
        progress_fn=progress_fn,
        cancel=cancel,
    )
    return OptimizeOutcome(task, result, model, gpu=verifier.device is not None)
