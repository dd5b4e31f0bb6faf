"""Verify many candidates: compile on every core, run on the GPU one at a time.

Compiling is the slow, embarrassingly parallel part (nvcc is single-threaded per unit);
running must not overlap, or candidates would time each other's contention. The
verifier's lock already serializes GPU work per device, so the pool only has to overlap
the builds with it and hand results back in the order the candidates came.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from regrapht_core.contracts.evaluation import Evaluation
from regrapht_core.contracts.task import Task
from regrapht_core.verify.pipeline import Built, Verifier

__all__ = ["verify_many"]


def verify_many(
    verifier: Verifier,
    jobs: Sequence[tuple[Task, str]],
    *,
    workers: int | None = None,
) -> list[Evaluation]:
    """Results for ``(task, candidate source)`` pairs, in input order.

    Builds use all cores but two by default: one for the GPU run's host side and one for
    this process, so compiles never stretch the round trips of the run being timed.
    """
    count = workers or max((os.cpu_count() or 1) - 2, 1)
    with ThreadPoolExecutor(max_workers=count, thread_name_prefix="regrapht-build") as builds:
        built: list[Future[Built | Evaluation]] = [
            builds.submit(verifier.build, task, source) for task, source in jobs
        ]
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="regrapht-gpu") as gpu:
            runs = [gpu.submit(_finish, verifier, future) for future in built]
            return [run.result() for run in runs]


def _finish(verifier: Verifier, future: Future[Built | Evaluation]) -> Evaluation:
    outcome = future.result()
    return outcome if isinstance(outcome, Evaluation) else verifier.run(outcome)
