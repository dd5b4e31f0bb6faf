"""The search's own settings and its view of the graph: where it starts, what may follow a
technique, and the hyper-parameters of selection and rollout."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from regrapht_core.contracts.task import Task, TaskMode
from regrapht_core.contracts.techniques import PARALLELIZATION, SEQUENTIAL

__all__ = ["GraphView", "Measured", "SearchConfig", "root_technique"]


def root_technique(task: Task) -> str:
    """Where the search starts on the graph: a kernel→kernel task is already parallel CUDA,
    so it starts where a parallelization step would have left it (the edges out of it),
    not at the sequential node whose only move, parallelization, cannot apply to a kernel."""
    if task.mode is TaskMode.KERNEL_TO_KERNEL:
        return PARALLELIZATION
    return SEQUENTIAL


class Measured(Protocol):
    """What the search reads of an edge's example: the step it shows (its task's code
    before and after, and how its proposer described it) and the speedup measured for
    ``after``, if any."""

    @property
    def task(self) -> str: ...

    @property
    def think(self) -> str: ...

    @property
    def before(self) -> str: ...

    @property
    def after(self) -> str: ...

    @property
    def speedup(self) -> float | None: ...


class GraphView(Protocol):
    """The action set: techniques that may follow a technique (its out-neighbours), and
    the examples stored on each such edge (the search's prior, ``search.prior``); the
    techniques that lead into one, whose examples' ``after`` is where a step began."""

    def successors(self, node: str) -> Sequence[str]: ...

    def predecessors(self, node: str) -> Sequence[str]: ...

    def examples(self, u: str, v: str) -> Sequence[Measured]: ...


@dataclass(frozen=True, slots=True)
class SearchConfig:
    """Search hyper-parameters. The paper gives none but the budget; defaults are ours.

    ``exploration`` scales the P-UCB bonus ``sqrt(2 ln N(parent) / N(s))``; rollouts pick
    ``argmax[Q(s,a) - rollout_lambda * N(s,a)]`` with probability ``1 - rollout_epsilon``.
    """

    budget: int = 200
    """Candidates: every proposal with code (verified, or served from the cache of identical
    programs) and every answer without code that a retry could change; the paper's unit."""
    refusal_cap: int = 100
    """Deterministic refusals (a proposer that cannot apply a technique here, e.g. no
    rewriter for it): they cost no model or verifier time, so they do not spend ``budget``,
    and they close the step instead of scoring as a failure; past this many the search
    stops all the same."""
    max_iterations: int | None = None
    time_limit_s: float | None = None
    """Wall-clock limit of the job: the job makes one deadline of it, which the search
    checks between candidates and which caps model generation and the verifier's timeouts."""
    exploration: float = 1.0
    rollout_lambda: float = 0.1
    rollout_epsilon: float = 0.2
    depth_cap: int = 5
    widening: float = 1.0
    """Progressive widening (``search.selection.widening_allows``): a step with ``k``
    variants taken from a state gets another once ``ceil(widening * sqrt(N)) > k`` (``N``:
    visits of its states), and whenever all its states are closed and one of them worked;
    ``0`` asks each step once, as the search did before widening."""
    prior_weight: int = 2
    """At most this many of an edge's measured examples count as visits of the transition
    in the rollout policy (``search.prior``); ``0`` ignores the graph's speedups."""
    prior_neighbours: int = 5
    """A step's prior reads its edge's examples from at most this many distinct ``before``
    codes, those that look most like the state's code (``search.prior``)."""
    retry_with_feedback: bool = True
    unmeasured_reward: float = 0.0
    """Value given to a candidate that compiled but could not be run (no GPU)."""

    def __post_init__(self) -> None:
        if self.budget < 1 or self.depth_cap < 1 or self.refusal_cap < 1:
            raise ValueError("budget, refusal_cap and depth_cap must be at least 1")
        if self.time_limit_s is not None and self.time_limit_s <= 0:
            raise ValueError("time_limit_s must be positive")
        if self.widening < 0 or self.prior_weight < 0:
            raise ValueError("widening and prior_weight must not be negative")
        if self.prior_neighbours < 1:
            raise ValueError("prior_neighbours must be at least 1")
        if not 0.0 <= self.rollout_epsilon <= 1.0:
            raise ValueError("rollout_epsilon must lie in [0, 1]")
