"""The answer of a search, read off its trace: the fastest verified candidate and its steps.

Kept apart from the search loop because the answer is read again after the search: a job
that finds its best candidate unsound at the last check (the sanitizer) marks it so and
asks for the next one (:func:`regrapht_core.optimize.job.optimize_task`).
"""

from __future__ import annotations

from collections.abc import Sequence

from regrapht_core.contracts.evaluation import Status
from regrapht_core.contracts.proposal import Candidate, SearchResult, StepRecord, StopReason

__all__ = ["answer_of", "lineage"]


def lineage(trace: Sequence[Candidate], candidate: Candidate) -> list[Candidate]:
    """``candidate`` and its ancestors, the sequential code first."""
    chain = [candidate]
    while chain[-1].parent is not None:
        chain.append(trace[chain[-1].parent])
    return chain[::-1]


def answer_of(trace: Sequence[Candidate], reason: StopReason) -> SearchResult:
    verified = [c for c in trace if c.result.verified]
    best = max(verified, key=lambda c: c.result.speedup or 0.0, default=None)
    unmeasured = [c for c in trace if c.result.status is Status.NOT_RUN]
    best_unmeasured = max(unmeasured, key=lambda c: len(lineage(trace, c)), default=None)
    answer = best or best_unmeasured
    path = tuple(
        StepRecord(
            c.technique, c.producer, c.think, c.result.speedup, c.result.reward, c.result.status
        )
        for c in (lineage(trace, answer) if answer else [])
    )
    return SearchResult(
        candidates=tuple(trace),
        best=best,
        best_unmeasured=best_unmeasured,
        cancelled=reason is StopReason.CANCELLED,
        stop_reason=reason,
        path=path,
    )
