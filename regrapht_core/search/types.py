"""Values that cross the search boundary: requests to the proposer, its proposals, the
per-candidate trace, and the result. The search sees the graph only through ``GraphView``
so a scripted graph can stand in for the ReGraph in logic tests."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from regrapht_core.tasks.spec import Task, TaskMode
from regrapht_core.verify.result import VerifyResult

__all__ = [
    "Candidate",
    "EvaluateFn",
    "GraphView",
    "Proposal",
    "ProposeFn",
    "ProposeRequest",
    "SearchConfig",
    "SearchProgress",
    "SearchResult",
    "StepRecord",
    "root_technique",
]

ROOT_TECHNIQUE = "sequential"
KERNEL_ROOT_TECHNIQUE = "parallelization"


def root_technique(task: Task) -> str:
    """Where the search starts on the graph: a kernel→kernel task is already parallel CUDA,
    so it starts where a parallelization step would have left it (the edges out of it),
    not at the sequential node whose only move, parallelization, cannot apply to a kernel."""
    if task.mode is TaskMode.KERNEL_TO_KERNEL:
        return KERNEL_ROOT_TECHNIQUE
    return ROOT_TECHNIQUE


class GraphView(Protocol):
    """The action set: techniques that may follow a technique (its out-neighbours)."""

    def successors(self, node: str) -> Sequence[str]: ...


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


ProposeFn = Callable[[ProposeRequest], Proposal]
EvaluateFn = Callable[[str], VerifyResult]


@dataclass(frozen=True, slots=True)
class SearchConfig:
    """Search hyper-parameters. The paper gives none but the budget; defaults are ours.

    ``exploration`` scales the P-UCB bonus ``sqrt(2 ln N(parent) / N(s))``; rollouts pick
    ``argmax[Q(s,a) - rollout_lambda * N(s,a)]`` with probability ``1 - rollout_epsilon``.
    """

    budget: int = 200
    """Candidate evaluations (every proposal counts, cached or not), the paper's unit."""
    max_iterations: int | None = None
    time_limit_s: float | None = None
    """Wall-clock limit, checked between candidates like cancellation (a model step on a
    CPU can take a minute; the limit does not interrupt it)."""
    exploration: float = 1.0
    rollout_lambda: float = 0.1
    rollout_epsilon: float = 0.2
    depth_cap: int = 5
    retry_with_feedback: bool = True
    unmeasured_reward: float = 0.0
    """Value given to a candidate that compiled but could not be run (no GPU)."""

    def __post_init__(self) -> None:
        if self.budget < 1 or self.depth_cap < 1:
            raise ValueError("budget and depth_cap must be at least 1")
        if self.time_limit_s is not None and self.time_limit_s <= 0:
            raise ValueError("time_limit_s must be positive")
        if not 0.0 <= self.rollout_epsilon <= 1.0:
            raise ValueError("rollout_epsilon must lie in [0, 1]")


@dataclass(frozen=True, slots=True)
class Candidate:
    """One evaluated proposal: the search trace is the sequence of these."""

    index: int
    parent: int | None
    """Index of the candidate this one was derived from; ``None`` for the sequential code."""
    technique: str
    phase: str
    """``expand``, ``rollout`` or ``retry``."""
    producer: str
    code: str
    think: str
    result: VerifyResult


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


@dataclass(frozen=True, slots=True)
class SearchResult:
    candidates: tuple[Candidate, ...]
    best: Candidate | None
    """The verified candidate with the highest speedup, if any."""
    best_unmeasured: Candidate | None
    """The compiled-but-not-run candidate with the most techniques applied (no-GPU machines)."""
    cancelled: bool
    stop_reason: str
    path: tuple[StepRecord, ...] = field(default=())
    """Steps from the sequential code to ``best`` (or ``best_unmeasured``)."""
