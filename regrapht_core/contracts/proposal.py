"""What the search asks of a proposer, what it gets back, and what it returns.

These values cross every layer (the search makes them, the optimizer, the rewriters, the
model's proposers, the trace file and the result record read them), so they live on the
ground floor and name the verifier's result only as the contract :class:`Evaluation`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from regrapht_core.contracts.deadline import NO_DEADLINE, Deadline
from regrapht_core.contracts.evaluation import Evaluation
from regrapht_core.contracts.task import Task

__all__ = [
    "Candidate",
    "EvaluateFn",
    "EvaluateManyFn",
    "Proposal",
    "ProposeFn",
    "ProposeRequest",
    "SearchProgress",
    "SearchResult",
    "StepRecord",
    "StopReason",
]


@dataclass(frozen=True, slots=True)
class ProposeRequest:
    task: Task
    from_technique: str
    technique: str
    """The technique to apply now; the edge ``from_technique → technique`` holds its examples."""
    code: str
    feedback: str = ""
    """The verifier's feedback on the previous attempt at this step, for a retry."""
    cancel: threading.Event | None = None
    deadline: Deadline = NO_DEADLINE
    """The job's deadline: a proposer stops generating when it passes."""


@dataclass(frozen=True, slots=True)
class Proposal:
    code: str | None
    """The full candidate source, or ``None`` when the proposer produced nothing usable."""
    think: str = ""
    producer: str = "model"
    """Who made it (``model:<name>``, ``rewriter:<technique>``), recorded in the trace."""
    message: str = ""
    """Why there is no code, when there is none."""
    retryable: bool = True
    """``False`` when asking again for this step cannot give a different answer (a
    deterministic proposer's refusal): the search then spends no budget on a retry."""
    technique: str | None = None
    """The technique the code applies, where the proposer found it is not the one asked
    for (a model asked for a library call that wrote a plain kernel: its parallelization);
    the trace records this one, and the step asked for beside it."""


ProposeFn = Callable[[ProposeRequest], Proposal]
EvaluateFn = Callable[[str], Evaluation]
EvaluateManyFn = Callable[[Iterable[str]], list[Evaluation]]
"""Verify a batch of candidates, results in order. The codes arrive lazily, as the search
proposes them, so a verifier may compile one while the next is proposed; it returns fewer,
a prefix, when the job is cancelled on the way."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One evaluated proposal: the search trace is the sequence of these."""

    index: int
    parent: int | None
    """Index of the candidate this one was derived from; ``None`` for the sequential code."""
    technique: str
    """The technique the candidate applies: the step the search asked for, unless the
    proposer said its code applies another (then ``asked`` names the step)."""
    phase: str
    """``expand`` (a state's first batch), ``widen`` (another variant of a step),
    ``rollout`` or ``retry``."""
    producer: str
    code: str
    think: str
    result: Evaluation
    asked: str = ""
    """The step the search asked for, where it is not ``technique``; empty otherwise."""

    @property
    def step(self) -> str:
        """The step the search asked for: what the search's tree and a replay follow."""
        return self.asked or self.technique


@dataclass(frozen=True, slots=True)
class StepRecord:
    technique: str
    producer: str
    think: str
    speedup: float | None
    reward: float | None
    status: str


@dataclass(frozen=True, slots=True)
class SearchProgress:
    evaluations: int
    budget: int
    technique: str
    best_speedup: float | None
    confirming: bool = False
    """The search has ended and its best candidate is being confirmed before it is offered:
    timed again, its reference too, and run under compute-sanitizer (seconds to minutes)."""


class StopReason(StrEnum):
    """Why a search ended; the values are written in traces and result JSON."""

    BUDGET = "budget"
    TIME_LIMIT = "time limit"
    CANCELLED = "cancelled"
    EXHAUSTED = "exhausted"
    """Every state reachable within the depth cap has been tried."""
    ITERATIONS = "iterations"
    """A baseline's fixed number of walks or samples is done."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    candidates: tuple[Candidate, ...]
    best: Candidate | None
    """The verified candidate with the highest speedup, if any."""
    best_unmeasured: Candidate | None
    """The compiled-but-not-run candidate with the most techniques applied (no-GPU machines)."""
    cancelled: bool
    stop_reason: StopReason
    path: tuple[StepRecord, ...] = field(default=())
    """Steps from the sequential code to ``best`` (or ``best_unmeasured``)."""
