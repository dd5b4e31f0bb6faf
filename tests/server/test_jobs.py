"""The job engine with a scripted optimizer: queueing, cancelling, rebuilding on new settings."""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from regrapht_server import jobs
from regrapht_server.jobs import Engine
from regrapht_server.settings import Settings

from regrapht_core.contracts.proposal import SearchProgress
from regrapht_core.contracts.task import Task
from regrapht_core.optimize.job import OptimizeOutcome
from regrapht_core.optimize.session import Optimizer

from .fakes import NOT_RUN, outcome, smooth_task


class Scripted:
    """Reports one step, then holds the job until released or cancelled."""

    def __init__(self, settings: Settings, *, fail: bool = False) -> None:
        self.settings = settings
        self.gpu = False
        self.fail = fail
        self.release = threading.Event()
        self.running: list[Task] = []

    def run(
        self,
        task: Task,
        *,
        progress_fn: Callable[[SearchProgress], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> OptimizeOutcome:
        assert progress_fn is not None and cancel is not None
        self.running.append(task)
        progress_fn(SearchProgress(1, self.settings.budget, "parallelization", None))
        if self.fail:
            raise RuntimeError("the search crashed")
        while not self.release.wait(0.01) and not cancel.is_set():
            pass
        return outcome([NOT_RUN], gpu=False, cancelled=cancel.is_set())


class Builder:
    def __init__(self) -> None:
        self.built: list[Scripted] = []
        self.broken = False

    def __call__(self, settings: Settings) -> Scripted:
        if self.broken:
            self.broken = False
            raise OSError("cannot read the snapshot")
        runner = Scripted(settings)
        self.built.append(runner)
        return runner


async def until(condition: Callable[[], bool]) -> None:
    async with asyncio.timeout(10):
        while not condition():
            await asyncio.sleep(0.01)


def run(
    engine: Engine, job: jobs.Job, seen: list[object] | None = None
) -> asyncio.Task[OptimizeOutcome]:
    record = seen if seen is not None else []
    return asyncio.ensure_future(
        engine.run(job, smooth_task(), started=record.append, report=record.append)
    )


async def test_jobs_run_one_at_a_time() -> None:
    builder = Builder()
    engine = Engine(builder)
    first_job, second_job = engine.start("a", "f"), engine.start("a", "g")
    assert first_job is not None and second_job is not None
    seen: list[object] = []
    first = run(engine, first_job, seen)
    await until(lambda: len(seen) == 2)
    assert seen == [False, SearchProgress(1, 200, "parallelization", None)]
    second = run(engine, second_job)
    await asyncio.sleep(0.1)
    assert engine.busy and len(builder.built[0].running) == 1
    builder.built[0].release.set()
    results = await asyncio.gather(first, second)
    assert [r.search.cancelled for r in results] == [False, False]
    assert len(builder.built) == 1 and len(builder.built[0].running) == 2
    engine.close()


async def test_one_function_has_one_job_at_a_time() -> None:
    engine = Engine(Builder())
    job = engine.start("file:///a.cpp", "f")
    assert job is not None
    assert engine.start("file:///a.cpp", "f") is None
    assert engine.start("file:///b.cpp", "f") is not None
    engine.finish(job)
    assert engine.start("file:///a.cpp", "f") is not None
    engine.close()


async def test_cancel_stops_the_named_jobs_and_keeps_their_results() -> None:
    builder = Builder()
    engine = Engine(builder)
    one, two = engine.start("a", "f"), engine.start("a", "g")
    assert one is not None and two is not None
    running = run(engine, one)
    await until(lambda: bool(builder.built) and bool(builder.built[0].running))
    assert engine.cancel(["nope", one.id]) == [one.id]
    assert one.cancel.is_set() and not two.cancel.is_set()
    result = await running
    assert result.search.cancelled and result.answer is not None
    assert engine.cancel(None) == [one.id, two.id]
    engine.close()


async def test_a_queued_job_leaves_the_queue_when_cancelled() -> None:
    """Finding 4 of #15: a queued job's cancel waited for its turn (95 s in the probe),
    its function "already optimizing" meanwhile. It now ends at once, and the function
    is free while the running job goes on."""
    builder = Builder()
    engine = Engine(builder)
    first_job, queued_job = engine.start("a", "f"), engine.start("a", "g")
    assert first_job is not None and queued_job is not None
    first = run(engine, first_job)
    await until(lambda: bool(builder.built) and bool(builder.built[0].running))
    queued = run(engine, queued_job)
    await asyncio.sleep(0.05)
    assert engine.cancel([queued_job.id]) == [queued_job.id]
    assert not engine.has_job("a", "g")  # free at once, not when its turn comes
    with pytest.raises(jobs.JobCancelled):
        await asyncio.wait_for(queued, 1)
    assert not first.done() and engine.busy
    again = engine.start("a", "g")
    assert again is not None
    engine.finish(queued_job)  # the server's cleanup of the old job leaves the new one
    assert engine.has_job("a", "g")
    builder.built[0].release.set()
    assert not (await first).search.cancelled
    late = engine.start("a", "h")
    assert late is not None
    engine.cancel([late.id])
    with pytest.raises(jobs.JobCancelled):  # cancelled before its turn: nothing runs
        await run(engine, late)
    assert len(builder.built[0].running) == 1
    engine.close()


async def test_new_settings_apply_to_the_next_job_not_the_running_one() -> None:
    builder = Builder()
    engine = Engine(builder)
    first_job, second_job = engine.start("a", "f"), engine.start("a", "g")
    assert first_job is not None and second_job is not None
    first = run(engine, first_job)
    await until(lambda: bool(builder.built) and bool(builder.built[0].running))
    engine.settings = Settings(budget=7)
    builder.built[0].release.set()
    await first
    assert len(builder.built) == 1
    second = run(engine, second_job)
    await until(lambda: len(builder.built) == 2)
    assert builder.built[1].settings.budget == 7
    builder.built[1].release.set()
    await second
    engine.close()


async def test_a_failure_reaches_the_caller_and_the_engine_carries_on() -> None:
    builder = Builder()
    engine = Engine(builder)
    builder.broken = True
    job = engine.start("a", "f")
    assert job is not None
    with pytest.raises(OSError, match="snapshot"):
        await run(engine, job)
    engine.finish(job)
    crashing = Scripted(Settings(), fail=True)
    engine = Engine(lambda settings: crashing)
    job = engine.start("a", "f")
    assert job is not None
    with pytest.raises(RuntimeError, match="crashed"):
        await run(engine, job)
    crashing.fail = False
    crashing.release.set()
    assert (await run(engine, job)).answer is not None
    engine.close()


async def test_the_real_optimizer_gets_the_gpu_and_nvcc_as_settings_not_environment(
    tmp_path: Path,
) -> None:
    (tmp_path / "nvcc").symlink_to(shutil.which("nvcc") or "nvcc")
    before = dict(os.environ)
    engine = Engine()
    engine.settings = Settings(gpu_index=1, nvcc_path=str(tmp_path))
    optimizer = engine._current()
    assert isinstance(optimizer, Optimizer)
    verify = optimizer.settings.verify
    assert (verify.nvcc_path, verify.gpu_index) == (tmp_path / "nvcc", 1)
    assert optimizer.verifier.compiler.environment["PATH"].startswith(f"{tmp_path}{os.pathsep}")
    assert dict(os.environ) == before
    engine.settings = Settings()
    assert engine._current() is not optimizer
    engine.close()
