"""Verifier throughput over the whole benchmark suite, written as a JSON result.

The figure the search lives on is how many candidates a minute one verifier session gets
through when compiles run ahead on every core and GPU runs go one at a time
(:func:`~regrapht_core.verify.pool.verify_many`). Saxpy alone flatters it (one task, one
session setup, one input size), so the candidates are the suite's own: for every task the
deterministic rewriters answer, the rewriter's first-step CUDA at the default block size and
at other block sizes the rewriter itself offers (honest variants, no text edits), up to
``per_task`` distinct sources.

The session is a :class:`TimedVerifier`: the verifier unchanged, with each ``build`` and
``run`` timed from outside, and a budget so the run fits the device machine's 10-minute
calls: once the budget is spent, tasks whose first candidate has not reached the GPU are
skipped (neither compiled further nor run) and counted as such; tasks already started finish.

Run on the GPU machine after ``source scripts/gpu-env.sh``::

    python3 -m benchmarks.verify_throughput [--per-task 4] [--budget 300]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.provenance import device_prefix, provenance, write_result
from regrapht_core.bench.runner import load_manifest
from regrapht_core.contracts.deadline import NO_DEADLINE, Deadline
from regrapht_core.contracts.evaluation import Evaluation, Status
from regrapht_core.contracts.proposal import ProposeRequest
from regrapht_core.contracts.task import Task
from regrapht_core.optimize.rewriter_proposer import rewriter_propose_fn
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.pipeline import Built, Verifier
from regrapht_core.verify.pool import verify_many

__all__ = [
    "BLOCK_SIZES",
    "MANIFEST",
    "RESULT_NAME",
    "SuiteJob",
    "TimedVerifier",
    "main",
    "run_throughput",
    "suite_jobs",
]

MANIFEST = Path(__file__).parent / "tasks" / "manifest.toml"
RESULT_NAME = "verify-throughput.json"
"""Written as ``gpu-<gpu>-verify-throughput.json``, named for the GPU that measured it."""
BLOCK_SIZES = (256, 128, 512, 64)
"""The rewriters' ``block_size`` knob, default first: every value is one both rewriters
accept (a multiple of 32 in 32..1024) and small enough for any kernel's registers."""
FIRST_STEP = ("sequential", "parallelization")
SPENT = Deadline(at=0.0)
"""Already passed: the verifier refuses work under it without starting any."""

SetupFn = Callable[[Verifier, Task], object]
"""A session's one-time preparation of a task (inputs, reference outputs and timing),
called before the task's first GPU run and timed apart from the candidates."""


@dataclass(frozen=True, slots=True)
class SuiteJob:
    name: str
    """The manifest's task name."""
    task: Task
    source: str
    producer: str
    """``rewriter:<technique>`` of the rewriter that wrote ``source``."""
    variant: str
    """What the rewriter says it did (block size, 1-D or 2-D mapping)."""


def rewriter_variants(name: str, task: Task, per_task: int) -> list[SuiteJob]:
    """Distinct first-step candidates in the order the rewriters offer them, block size by
    block size (default first); empty where every rewriter refuses the task."""
    found: dict[str, SuiteJob] = {}
    request = ProposeRequest(task, *FIRST_STEP, task.source)
    for block in BLOCK_SIZES:
        propose = rewriter_propose_fn(params={FIRST_STEP[1]: {"block_size": block}})
        while len(found) < per_task and (proposal := propose(request)).code is not None:
            found.setdefault(
                proposal.code,
                SuiteJob(name, task, proposal.code, proposal.producer, proposal.think),
            )
    return list(found.values())


def suite_jobs(manifest: Path = MANIFEST, per_task: int = 4) -> list[list[SuiteJob]]:
    """Per answered task (manifest order), its candidates; refused tasks are left out."""
    tasks = [(entry.name, entry.task()) for entry in load_manifest(manifest)]
    return [jobs for name, task in tasks if (jobs := rewriter_variants(name, task, per_task))]


@dataclass(slots=True)
class _TaskClock:
    started: bool = False
    setup_s: float | None = None
    build_s: list[float] = field(default_factory=list)
    run_s: list[float] = field(default_factory=list)
    """In GPU order: the first includes whatever per-task setup the session does lazily."""


class TimedVerifier(Verifier):
    """The verifier under test, unchanged, with its ``build`` and ``run`` timed per task and
    a budget after which tasks not yet on the GPU are skipped."""

    def __init__(
        self, config: VerifyConfig, *, budget_s: float, setup: SetupFn | None = None
    ) -> None:
        super().__init__(config)
        self._budget = Deadline.after(budget_s)
        self._setup = setup
        self._clocks: dict[str, _TaskClock] = {}
        self._lock = threading.Lock()
        self.last_run_end: float | None = None

    def clock(self, task: Task) -> _TaskClock:
        with self._lock:
            return self._clocks.setdefault(task.name, _TaskClock())

    def _admit(self, task: Task, *, running: bool) -> bool | None:
        """``None``: ``task`` is out of budget (it has not reached the GPU and the budget is
        spent); else whether this is its first run (``running`` marks it started)."""
        with self._lock:
            clock = self._clocks.setdefault(task.name, _TaskClock())
            if clock.started:
                return False
            if self._budget.expired:
                return None
            clock.started = running
            return running

    def build(
        self, task: Task, source: str, *, deadline: Deadline = NO_DEADLINE
    ) -> Built | Evaluation:
        if self._admit(task, running=False) is None:
            return super().build(task, source, deadline=SPENT)
        start = time.perf_counter()
        outcome = super().build(task, source, deadline=deadline)
        self.clock(task).build_s.append(time.perf_counter() - start)
        return outcome

    def run(self, built: Built, *, deadline: Deadline = NO_DEADLINE) -> Evaluation:
        first = self._admit(built.task, running=True)
        if first is None:
            return super().run(built, deadline=SPENT)
        clock = self.clock(built.task)
        if first and self._setup is not None:
            start = time.perf_counter()
            self._setup(self, built.task)
            clock.setup_s = time.perf_counter() - start
        start = time.perf_counter()
        result = super().run(built, deadline=deadline)
        clock.run_s.append(time.perf_counter() - start)
        self.last_run_end = time.perf_counter()
        return result


def _median(values: Sequence[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def _row(jobs: list[SuiteJob], results: list[Evaluation], clock: _TaskClock) -> dict[str, Any]:
    speedups = [r.speedup for r in results if r.speedup is not None]
    later = clock.run_s[1:]
    return {
        "task": jobs[0].name,
        "candidates": len(jobs),
        "statuses": dict(Counter(str(r.status) for r in results)),
        "best_speedup": round(max(speedups), 3) if speedups else None,
        "timing_mode": next((str(r.timing.mode) for r in results if r.timing), None),
        "median_build_seconds": _median(clock.build_s),
        "median_run_seconds": _median(clock.run_s),
        "first_run_seconds": round(clock.run_s[0], 3) if clock.run_s else None,
        "median_later_run_seconds": _median(later),
        "setup_seconds": None if clock.setup_s is None else round(clock.setup_s, 3),
        "variants": [
            {"producer": j.producer, "variant": j.variant, "status": str(r.status)}
            for j, r in zip(jobs, results, strict=True)
        ],
        "failures": [r.feedback[:300] for r in results if r.status is not Status.VERIFIED],
    }


def _setup_seconds(clocks: list[_TaskClock]) -> tuple[float, str]:
    """The session's per-task setup: measured where a setup hook ran, else estimated as each
    task's first run minus the median of its later runs (lazy setup lands in the first)."""
    if clocks and all(c.setup_s is not None for c in clocks):
        return sum(c.setup_s or 0.0 for c in clocks), "measured (setup hook)"
    extra = [
        max(0.0, c.run_s[0] - statistics.median(c.run_s[1:])) for c in clocks if len(c.run_s) > 1
    ]
    return sum(extra), "estimated: first run minus the median of later runs, per task"


def run_throughput(
    *,
    per_task: int = 4,
    budget_s: float = 300.0,
    command: str = "python3 -m benchmarks.verify_throughput",
    manifest: Path = MANIFEST,
    setup: SetupFn | None = None,
    cache_dir: Path | None = None,
) -> tuple[dict[str, Any], list[Evaluation]]:
    """Verify the suite's rewriter candidates in one session, write the JSON result (only
    where there is a GPU) and return it with the evaluations of the tasks that ran (skipped
    tasks left out).

    ``setup``: called before a task's first GPU run and timed apart. The verifier prepares a
    task's session data during that task's first build (on a build thread, overlapped with
    other tasks' GPU runs), so by default nothing is passed and the setup share is estimated
    from each task's first run.
    """
    per_task_jobs = suite_jobs(manifest, per_task)
    jobs = [job for task_jobs in per_task_jobs for job in task_jobs]
    with tempfile.TemporaryDirectory(prefix="regrapht-throughput-") as cache:
        config = VerifyConfig(cache_dir=cache_dir or Path(cache))
        verifier = TimedVerifier(config, budget_s=budget_s, setup=setup)
        start = time.perf_counter()
        results = verify_many(verifier, [(job.task, job.source) for job in jobs])
        finished = time.perf_counter()
    wall = (verifier.last_run_end or finished) - start

    rows, done, clocks = [], [], []
    offset = 0
    for task_jobs in per_task_jobs:
        task_results = results[offset : offset + len(task_jobs)]
        offset += len(task_jobs)
        clock = verifier.clock(task_jobs[0].task)
        if clock.started:
            rows.append(_row(task_jobs, task_results, clock))
            done += task_results
            clocks.append(clock)
    setup_s, setup_how = _setup_seconds(clocks)
    runs = [s for c in clocks for s in c.run_s]
    builds = [s for c in clocks for s in c.build_s]
    record: dict[str, Any] = {
        "benchmark": "verifier throughput over the task suite (rewriter candidates, seq2cuda)",
        **provenance(verifier, command),
        "per_task": per_task,
        "budget_seconds": budget_s,
        "workers": "verify_many default (all cores but two build, one GPU run at a time)",
        "tasks_answered": len(per_task_jobs),
        "tasks_done": len(rows),
        "tasks_skipped_for_budget": len(per_task_jobs) - len(rows),
        "candidates": len(done),
        "statuses": dict(Counter(str(r.status) for r in done)),
        "wall_seconds": round(wall, 3),
        "candidates_per_minute": round(60.0 * len(done) / wall, 2) if wall > 0 else None,
        "session_setup_seconds": round(setup_s, 3),
        "session_setup": setup_how,
        "candidates_per_minute_excluding_setup": (
            round(60.0 * len(done) / (wall - setup_s), 2) if wall > setup_s else None
        ),
        "median_run_seconds_per_candidate": _median(runs),
        "median_build_seconds_per_candidate": _median(builds),
        "total_run_seconds": round(sum(runs), 3),
        "tasks": rows,
    }
    if verifier.device is not None:  # a machine without a GPU measures only compiles
        write_result(f"{device_prefix(verifier.device.name)}-{RESULT_NAME}", record)
    return record, done


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m benchmarks.verify_throughput")
    parser.add_argument("--per-task", type=int, default=4, help="candidates per task")
    parser.add_argument("--budget", type=float, default=300.0, help="seconds; then stop")
    args = parser.parse_args(argv)
    command = " ".join(["python3 -m benchmarks.verify_throughput", *(argv or sys.argv[1:])])
    record, _ = run_throughput(per_task=args.per_task, budget_s=args.budget, command=command)
    summary = {k: record[k] for k in ("candidates", "wall_seconds", "candidates_per_minute")}
    sys.stdout.write(f"{summary} statuses {record['statuses']}\n")
    return 0 if record["device"] else 1


if __name__ == "__main__":
    sys.exit(main())
