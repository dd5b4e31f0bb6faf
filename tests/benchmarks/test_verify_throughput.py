"""The throughput benchmark's candidates and budget, checked without a GPU.

The benchmark is only worth its figure if it verifies what it says: one rewriter answer per
"apply" task of the manifest, from the named rewriter, plus distinct honest variants of it;
and a spent budget must stop tasks before any compile or run.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from benchmarks.verify_throughput import SuiteJob, TimedVerifier, suite_jobs
from regrapht_core.contracts.evaluation import Status
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.pool import verify_many
from tests.benchmarks.test_task_suite import manifest

PER_TASK = 4


@cache
def jobs() -> tuple[tuple[SuiteJob, ...], ...]:
    return tuple(tuple(task_jobs) for task_jobs in suite_jobs(per_task=PER_TASK))


def test_every_apply_task_gets_its_rewriters_answer_and_distinct_variants() -> None:
    producers = {e["name"]: e.get("producer") for e in manifest() if e["rewriters"] == "apply"}
    by_task = {task_jobs[0].name: task_jobs for task_jobs in jobs()}
    assert by_task.keys() == producers.keys()
    for name, task_jobs in by_task.items():
        assert len(task_jobs) == PER_TASK, name
        assert len({j.source for j in task_jobs}) == PER_TASK, name
        assert task_jobs[0].producer == f"rewriter:{producers[name]}", name
        assert all(j.name == name and "__global__" in j.source for j in task_jobs), name
    assert sum(len(task_jobs) for task_jobs in jobs()) >= 100


def test_a_spent_budget_skips_tasks_before_they_compile(tmp_path: Path) -> None:
    first = jobs()[0]
    verifier = TimedVerifier(VerifyConfig(cache_dir=tmp_path), budget_s=0.0)
    results = verify_many(verifier, [(j.task, j.source) for j in first])
    assert [r.status for r in results] == [Status.TIMEOUT] * len(first)
    clock = verifier.clock(first[0].task)
    assert not clock.started and not clock.build_s and not clock.run_s
    assert not list(tmp_path.iterdir()), "nothing was compiled"
