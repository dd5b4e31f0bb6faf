"""Optimization jobs: queued one at a time for the GPU, cancellable, isolated from the loop.

A search runs for minutes in a worker thread while the event loop keeps answering the
editor. Threads cannot be interrupted, so every job carries a ``threading.Event`` that the
search (and the model) checks between steps; setting it stops the job within about a
second. Timings are only comparable when nothing else uses the GPU, so jobs wait for each
other; a job cancelled while it waits leaves the queue at once (:class:`JobCancelled`), so
its function is free for a new job without waiting for the one that holds the GPU. The
optimizer (graph, verifier, model) is built for the current settings when a job starts,
never while one runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Protocol

from regrapht_core import api
from regrapht_server.settings import Settings, job_settings

if TYPE_CHECKING:
    from regrapht_core.api import OptimizeOutcome, SearchProgress, Task

__all__ = ["Engine", "Job", "JobCancelled", "Runner", "stop_on_signals"]

log = logging.getLogger(__name__)


class Runner(Protocol):
    """What the engine needs of an ``Optimizer`` (tests substitute a scripted one)."""

    @property
    def gpu(self) -> bool: ...

    def run(
        self,
        task: Task,
        *,
        progress_fn: Callable[[SearchProgress], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> OptimizeOutcome: ...


@dataclass(eq=False)
class Job:
    id: str
    """Also the work-done progress token, so a client that shows the progress can cancel it."""
    uri: str
    function: str
    cancel: threading.Event = field(default_factory=threading.Event)
    waiting: asyncio.Future[bool] | None = field(default=None, repr=False)
    """Its wait for the GPU, while it is queued: a cancel stops the wait."""


class JobCancelled(Exception):
    """The job was cancelled before it had the GPU: nothing ran."""


class Engine:
    def __init__(self, build: Callable[[Settings], Runner] | None = None) -> None:
        self.settings = Settings()
        """Replaced whole on a settings change; read when the next job starts."""
        self._build = build or self._build_optimizer
        self._runner: Runner | None = None
        self._built_for: Settings | None = None
        self._gpu = asyncio.Lock()
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="regrapht-job")
        self._jobs: dict[str, Job] = {}
        self._ids = itertools.count(1)

    @property
    def busy(self) -> bool:
        return self._gpu.locked()

    def has_job(self, uri: str, function: str) -> bool:
        """Whether a job on this function is queued or running."""
        return any(job.uri == uri and job.function == function for job in self._jobs.values())

    def start(self, uri: str, function: str, job_id: str | None = None) -> Job | None:
        """A new job, or ``None`` while one on the same function is queued or running.
        ``job_id``: the client's name for it (the server checked it); else regrapht-job-N."""
        if self.has_job(uri, function):
            return None
        job = Job(job_id or f"regrapht-job-{next(self._ids)}", uri, function)
        self._jobs[job.id] = job
        return job

    def known(self, job_id: str) -> bool:
        """Whether a job with this id is queued or running."""
        return job_id in self._jobs

    def finish(self, job: Job) -> None:
        if self._jobs.get(job.id) is job:
            del self._jobs[job.id]

    def cancel(self, ids: Iterable[str] | None = None) -> list[str]:
        """Cancel the jobs named (all when ``None``); the ids of those that were found.

        A queued job leaves the queue now: its ``run`` raises :class:`JobCancelled` and its
        function is free at once. A running one stops before its next step."""
        chosen = (
            list(self._jobs.values())
            if ids is None
            else [self._jobs[i] for i in ids if i in self._jobs]
        )
        for job in chosen:
            job.cancel.set()
            if job.waiting is not None and job.waiting.cancel():
                self.finish(job)
        return [job.id for job in chosen]

    async def run(
        self,
        job: Job,
        task: Task,
        *,
        started: Callable[[bool], None],
        report: Callable[[SearchProgress], None],
    ) -> OptimizeOutcome:
        """Wait for the GPU, then search; ``started(gpu)`` and ``report`` run on the loop."""
        loop = asyncio.get_running_loop()

        def progress(update: SearchProgress) -> None:
            # At exit the loop may close before the worker notices the cancel.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(report, update)

        await self._queue(job)
        try:
            runner = await loop.run_in_executor(self._worker, self._current)
            started(runner.gpu)
            search = partial(runner.run, task, progress_fn=progress, cancel=job.cancel)
            return await loop.run_in_executor(self._worker, search)
        finally:
            self._gpu.release()

    async def _queue(self, job: Job) -> None:
        """Wait for the GPU; a cancel meanwhile raises :class:`JobCancelled` at once."""
        waiting: asyncio.Future[bool] = asyncio.ensure_future(self._gpu.acquire())
        job.waiting = waiting
        try:
            await waiting
        except asyncio.CancelledError:
            if waiting.done() and not waiting.cancelled():
                self._gpu.release()  # had the GPU just as the caller was cancelled
            elif job.cancel.is_set():
                raise JobCancelled(job.id) from None
            raise
        finally:
            job.waiting = None
        if job.cancel.is_set():  # cancelled just as the GPU came free
            self._gpu.release()
            raise JobCancelled(job.id)

    def reload(self) -> None:
        """Build the optimizer again for the next job: the snapshot on disk has changed."""
        self._runner = None
        self._built_for = None

    def close(self) -> None:
        """Cancel everything; the worker finishes its current candidate and exits."""
        self.cancel()
        self._worker.shutdown(wait=False, cancel_futures=True)

    def _current(self) -> Runner:
        settings = self.settings
        if self._runner is None or self._built_for != settings:
            self._runner = None  # a failed build is retried by the next job
            self._runner = self._build(settings)
            self._built_for = settings
        return self._runner

    @staticmethod
    def _build_optimizer(settings: Settings) -> Runner:
        """The nvcc path and GPU index travel in the job's settings to the verifier, which
        builds its child processes' environments from them; the server's is left alone."""
        # The engine's heavy parts (networkx, numpy, the verifier) load with the first job,
        # not while the editor waits for the server to start.
        log.info("optimizer for %s", settings)
        return api.Optimizer(job_settings(settings))


def stop_on_signals(engine: Engine) -> None:
    """Make SIGTERM (and SIGHUP) end the server cleanly: every job cancelled, the verifier's
    child process groups (nvcc, candidates, references) killed, its scratch directories
    (which hold the user's code) removed, then the process ends by that signal, at once.
    The entry point calls this once, from the main thread, before serving."""
    api.stop_on_signals(before=engine.close)
