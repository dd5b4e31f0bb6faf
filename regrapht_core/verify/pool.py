"""Verify many candidates: compile on every core, run on the GPU one at a time.

Compiling is the slow, embarrassingly parallel part (nvcc is single-threaded per unit);
running must not overlap, or candidates would time each other's contention. The
verifier's lock already serializes GPU work per device, so the pool only has to overlap
the builds with it and hand results back in the order the candidates came.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Protocol

from regrapht_core.contracts.deadline import NO_DEADLINE, Deadline
from regrapht_core.contracts.evaluation import Evaluation
from regrapht_core.contracts.task import Task
from regrapht_core.verify.pipeline import Built

__all__ = ["Verifies", "build_workers", "verify_many"]


class Verifies(Protocol):
    """What the pool needs of a verifier (``pipeline.Verifier``, or one that times it)."""

    def build(
        self, task: Task, source: str, *, deadline: Deadline = NO_DEADLINE
    ) -> Built | Evaluation: ...

    def run(self, built: Built, *, deadline: Deadline = NO_DEADLINE) -> Evaluation: ...


def build_workers(workers: int | None = None) -> int:
    """``workers``, else all cores but two: one for the GPU run's host side and one for the
    calling process, so compiles never stretch the round trips of the run being timed."""
    return workers or max((os.cpu_count() or 1) - 2, 1)


def verify_many(
    verifier: Verifies,
    jobs: Iterable[tuple[Task, str]],
    *,
    workers: int | None = None,
    deadline: Deadline = NO_DEADLINE,
    cancel: threading.Event | None = None,
) -> list[Evaluation]:
    """Results for ``(task, candidate source)`` pairs, in input order.

    Each build starts as its job arrives, so ``jobs`` may be lazy: a search's proposals
    for one batch compile while the next is being proposed. The GPU runs start once
    ``jobs`` is exhausted: a run must not share the machine with a model writing the next
    proposal, or the timings would carry its load. Builds use :func:`build_workers`. Once
    ``cancel`` is set no further candidate is run and the results are the prefix finished
    by then; builds not started are dropped (one already in nvcc finishes in the
    background, unused). A passed ``deadline`` is the verifier's to report, as a timeout
    per candidate.
    """
    count = build_workers(workers)
    builds = ThreadPoolExecutor(max_workers=count, thread_name_prefix="regrapht-build")
    try:
        built: list[Future[Built | Evaluation]] = []
        for task, source in jobs:
            if _cancelled(cancel):
                return []
            built.append(builds.submit(verifier.build, task, source, deadline=deadline))
        results: list[Evaluation] = []
        for future in built:
            while not _cancelled(cancel) and not future.done():
                wait([future], timeout=_POLL_S)
            if _cancelled(cancel):
                break
            outcome = future.result()
            if isinstance(outcome, Built):
                outcome = verifier.run(outcome, deadline=deadline)
            results.append(outcome)
        return results
    finally:
        builds.shutdown(wait=False, cancel_futures=True)


_POLL_S = 0.1
"""How often a wait for a build looks at ``cancel``: a cancel ends the batch within it."""


def _cancelled(cancel: threading.Event | None) -> bool:
    return cancel is not None and cancel.is_set()
