"""Compile first-step candidates through the real verifier with no GPU, two at a time."""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from regrapht_core.contracts.evaluation import Status
from regrapht_core.contracts.task import Task
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.pipeline import Verifier

__all__ = ["compile_failures"]


def compile_failures(jobs: Mapping[str, tuple[Task, str]], cache: Path) -> dict[str, str]:
    """``name -> status: feedback`` for each ``(task, code)`` that did not compile and link
    (status ``not_run``); empty when all did. ``device=None``: compile and link only, also
    on a machine that has a GPU."""
    verifier = Verifier(VerifyConfig(cache_dir=cache), device=None)
    names = list(jobs)
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(
            zip(names, pool.map(lambda n: verifier.verify(*jobs[n]), names), strict=True)
        )
    return {
        n: f"{r.status.value}: {r.feedback}"
        for n, r in results.items()
        if r.status is not Status.NOT_RUN
    }
