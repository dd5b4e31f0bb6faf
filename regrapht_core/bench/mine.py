"""Mining: the search over a corpus's tasks with the real verifier, every verified faster
path kept as a trajectory the graph build reads.

The graph is only as good as its examples, and the paper built its graph from thousands of
verified trajectories. One search already evaluates several paths (different techniques,
different orders), so a task yields one trajectory per *maximal* verified chain that ends
faster than the sequential code: a chain that is the prefix of a longer verified one adds
no edge the longer one lacks, and merging both would count its examples twice. Every step
on a kept chain was verified on the GPU and carries its measured speedup.

Each task also gets a record (every candidate's technique, producer, status and speedup,
failed and slower ones included), so a miner can see what the search tried and the run can
resume: a task with a record from the same device and settings is not mined again.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from regrapht_core.bench.runner import SuiteTask
from regrapht_core.contracts.deadline import Deadline
from regrapht_core.contracts.evaluation import Evaluation, Status
from regrapht_core.contracts.proposal import Candidate
from regrapht_core.datatypes import Trajectory
from regrapht_core.errors import ConfigError, ReGraphTError
from regrapht_core.files import atomic_write
from regrapht_core.graph.trajectories import trajectory_document
from regrapht_core.optimize.job import OptimizeOutcome
from regrapht_core.optimize.learning import verified_trajectory
from regrapht_core.optimize.retiming import CONFIRMATION_SHARE, close_call, reconfirmed
from regrapht_core.optimize.session import JobSettings, Optimizer
from regrapht_core.search import run_search

__all__ = [
    "MINED",
    "RECORDS",
    "Mined",
    "TaskMiner",
    "faster_leaves",
    "mine",
    "mine_task",
    "pending",
    "task_miner",
    "verified_candidates",
    "write_mined",
]

MINED = "trajectories"
"""The folder (under the mining output) of trajectory files: `regrapht graph build
--trajectories OUT/trajectories` takes it as it is."""
RECORDS = "records"


@dataclass(frozen=True, slots=True)
class Mined:
    """One task's result: its trajectories (maybe none) and its record."""

    task: str
    trajectories: tuple[Trajectory, ...]
    record: dict[str, Any]


def faster_leaves(candidates: Sequence[Candidate]) -> list[Candidate]:
    """The ends of the maximal verified chains that finish faster than the reference: the
    verified, faster candidates that are no verified, faster candidate's ancestor."""
    by_index = {c.index: c for c in candidates}
    faster = [c for c in candidates if c.result.verified and (c.result.speedup or 0.0) > 1.0]
    ancestors: set[int] = set()
    for candidate in faster:
        parent = candidate.parent
        while parent is not None and parent in by_index:
            ancestors.add(parent)
            parent = by_index[parent].parent
    return [c for c in faster if c.index not in ancestors]


def confirmed_leaves(
    candidates: Sequence[Candidate],
    confirm: Callable[[Candidate], Evaluation],
    *,
    answer: int | None = None,
) -> list[Candidate]:
    """``candidates`` with every path end near 1x (``retiming.close_call``) measured again
    by ``confirm`` in paired rounds, until each end is a clear gain or confirmed. The job
    confirmed its ``answer`` already; another end was measured once, in the search, and a
    lucky measurement would be mined as a gain (on the H100, 28 of 1,106 mined paths ended
    under 2x, most of them histograms whose binning loop stayed on the host). An end that
    is not confirmed leaves its chain, so its parent may become an end, and is checked in
    turn."""
    trace = list(candidates)
    position = {c.index: k for k, c in enumerate(trace)}
    checked = {answer} if answer is not None else set()
    while pending := [
        c for c in faster_leaves(trace) if close_call(c.result) and c.index not in checked
    ]:
        for leaf in pending:
            checked.add(leaf.index)
            trace[position[leaf.index]] = replace(leaf, result=confirm(leaf))
    return trace


_WHY_CHARS = 300
"""How much of a failed candidate's feedback its record row keeps."""


def _candidate_row(candidate: Candidate) -> dict[str, Any]:
    """A candidate in its task's record. A failed program keeps the verifier's reason
    (``why``), so a verdict can be read after the run: which check judged a program
    implausible, what its output got wrong. A refusal's message says only that a
    rewriter does not apply, and is left out. A timed program keeps both medians, so a
    speedup that moved between runs says which side moved (on four H200s the same tasks'
    best speedups came out 1.24x higher than on one, and the rows could not say why)."""
    result = candidate.result
    failed = result.status.failed and result.status is not Status.NO_CODE
    timing = result.timing
    return {
        "index": candidate.index,
        "parent": candidate.parent,
        "technique": candidate.technique,
        "producer": candidate.producer,
        "status": str(result.status),
        "verified": result.verified,
        "speedup": result.speedup,
        "reference_ms": None if timing is None else timing.reference_ms,
        "candidate_ms": None if timing is None else timing.candidate_ms,
        "why": result.feedback[:_WHY_CHARS] if failed and result.feedback else None,
    }


def _trajectories(
    name: str, outcome: OptimizeOutcome, candidates: Sequence[Candidate]
) -> tuple[Trajectory, ...]:
    """The paths, fastest first, each named for the corpus task ``name`` (entry functions
    repeat across a corpus: `axpby_map` in float and in double)."""
    found = []
    leaves = sorted(faster_leaves(candidates), key=lambda c: -(c.result.speedup or 0.0))
    for leaf in leaves:
        trajectory = verified_trajectory(name, outcome.task.source, leaf, candidates)
        if trajectory is not None:
            found.append(trajectory)
    return tuple(found)


def mine_task(suite_task: SuiteTask, optimizer: Optimizer, settings: Mapping[str, Any]) -> Mined:
    """Search one task and keep what verified. A task that cannot be searched (it does not
    extract, the toolchain fails) gets a record with the reason and no trajectory."""
    record: dict[str, Any] = {"task": suite_task.name, "family": suite_task.family, **settings}
    try:
        outcome = optimizer.run(suite_task.task(), search_fn=run_search)
    except (OSError, ReGraphTError) as err:
        return Mined(suite_task.name, (), record | {"failure": f"{type(err).__name__}: {err}"})
    task, best = outcome.task, outcome.search.best
    allowance = optimizer.settings.search.time_limit_s

    def confirm(leaf: Candidate) -> Evaluation:
        deadline = Deadline.after(allowance * CONFIRMATION_SHARE if allowance else None)
        return reconfirmed(task, leaf.code, optimizer.verifier, deadline)

    candidates = confirmed_leaves(
        outcome.search.candidates, confirm, answer=best.index if best else None
    )
    trajectories = _trajectories(suite_task.name, outcome, candidates)
    record |= {
        "failure": None,
        "best_speedup": outcome.faster.result.speedup if outcome.faster else None,
        "trajectories": len(trajectories),
        "candidates": [_candidate_row(c) for c in candidates],
    }
    return Mined(suite_task.name, trajectories, record)


@dataclass(frozen=True, slots=True)
class TaskMiner:
    """One GPU's miner: the optimizer searching and the settings its records carry (the
    device, driver, nvcc, budget, model, timing and commit a resumed run must match), and
    the command that started the run, which each record names too (a resumed run may be
    started with another ``--limit`` or manifest, so it is not a setting)."""

    optimizer: Optimizer
    settings: Mapping[str, Any]
    command: str

    def __call__(self, suite_task: SuiteTask) -> Mined:
        """The task mined, its record with the seconds this miner waited for and held the
        GPU meanwhile (workers sharing a GPU wait for each other's timed runs), and when,
        in which process and on which GPU it ran: from those a run's records show how
        busy its workers were kept, which the GPU's seconds alone do not (on four H200s,
        benchmarks/results/gpu-h200x4-mining.json, the workers spent 26-30% of the run
        on tasks)."""
        lock = self.optimizer.verifier.gpu_lock
        started = datetime.now(UTC)
        began, waited, held = time.monotonic(), lock.waited_s, lock.held_s
        mined = mine_task(suite_task, self.optimizer, self.settings)
        where = {
            "started": started.isoformat(timespec="milliseconds"),
            "seconds": round(time.monotonic() - began, 2),
            "gpu_waited_s": round(lock.waited_s - waited, 2),
            "gpu_held_s": round(lock.held_s - held, 2),
            "worker": os.getpid(),
            "gpu": os.environ.get("CUDA_VISIBLE_DEVICES"),
        }
        return replace(mined, record=mined.record | where | {"command": self.command})


def task_miner(
    job: JobSettings,
    timing: str | None,
    commit: str,
    command: str,
    compile_threads: int | None = None,
) -> TaskMiner:
    """A miner on this process's GPU (the first one ``CUDA_VISIBLE_DEVICES`` shows);
    refused where there is none, since mining keeps only what ran. ``commit`` and
    ``command`` are the code's and the run's, named by the process that started it (a
    worker may not sit in a checkout); ``compile_threads`` caps the verifier's builds
    (workers sharing a host)."""
    if compile_threads is not None:
        job = replace(job, verify=replace(job.verify, build_workers=compile_threads))
    optimizer = Optimizer(job)
    device = optimizer.verifier.device
    if device is None:
        raise ConfigError("mining keeps only what verified on a GPU, and there is none here")
    settings = {
        "device": device.name,
        "driver": device.driver,
        "nvcc": device.nvcc,
        "budget": job.search.budget,
        "model": optimizer.model_named,
        "timing": timing or "task",
        "commit": commit,
    }
    # Named only when set, so records from before the option still resume their runs.
    settings |= {"explore": True} if job.explore else {}
    return TaskMiner(optimizer, settings, command)


def write_mined(mined: Mined, out: Path) -> None:
    """A task's trajectory files and its record, each written whole (``atomic_write``)."""
    device = str(mined.record.get("device") or "no GPU")
    folder = out / MINED
    folder.mkdir(parents=True, exist_ok=True)
    for k, trajectory in enumerate(mined.trajectories):
        name = trajectory.task if k == 0 else f"{trajectory.task}.path{k + 1}"
        description = (
            f"Mined: task {mined.task}, path {k + 1} of {len(mined.trajectories)} the search "
            f"verified faster on {device}."
        )
        document = trajectory_document(trajectory, description, task=name)
        atomic_write(folder / f"{name}.json", (json.dumps(document, indent=1) + "\n").encode())
    (out / RECORDS).mkdir(parents=True, exist_ok=True)
    text = json.dumps(mined.record, indent=1) + "\n"
    atomic_write(out / RECORDS / f"{mined.task}.json", text.encode())


def pending(
    tasks: Sequence[SuiteTask], out: Path, settings: Mapping[str, Any]
) -> tuple[list[SuiteTask], list[SuiteTask]]:
    """``tasks`` split into those still to mine and those recorded under ``out`` with the
    same ``settings`` (skipped on resume)."""
    todo: list[SuiteTask] = []
    done: list[SuiteTask] = []
    for suite_task in tasks:
        (done if _done(out, suite_task.name, settings) else todo).append(suite_task)
    return todo, done


def verified_candidates(record: Mapping[str, Any]) -> int:
    """How many of a task record's candidates verified (faster or not)."""
    return sum(1 for row in record.get("candidates", []) if row.get("verified"))


def _done(out: Path, name: str, settings: Mapping[str, Any]) -> bool:
    """A record of ``name`` from the same device and settings exists (resume skips it)."""
    path = out / RECORDS / f"{name}.json"
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return all(record.get(key) == value for key, value in settings.items())


def mine(
    tasks: Sequence[SuiteTask],
    miner: Callable[[SuiteTask], Mined],
    out: Path,
    *,
    settings: Mapping[str, Any],
    on_done: Callable[[Mined | None, SuiteTask], None] = lambda _mined, _task: None,
) -> list[Mined]:
    """Mine, one after the other, every task not already recorded under ``out`` with the
    same ``settings`` (the miner's), writing each task's files as it finishes, so an
    interrupted run loses at most the task in progress. ``on_done`` gets each result, or
    ``None`` for a task skipped as already mined. (``bench.mine_ray`` spreads the same
    work over GPUs.)"""
    todo, done = pending(tasks, out, settings)
    for suite_task in done:
        on_done(None, suite_task)
    results = []
    for suite_task in todo:
        mined = miner(suite_task)
        write_mined(mined, out)
        results.append(mined)
        on_done(mined, suite_task)
    return results
