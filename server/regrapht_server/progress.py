"""A job's progress, told twice from one value.

The extension reads ``regrapht/jobProgress``: a typed payload (:class:`JobProgress`) that
it turns into its notification and status bar without parsing text. Generic clients get
the standard work-done progress, whose message :func:`describe` writes from the same
value; nothing reads that text back. The token of both is the job id, which the client
may choose (``regrapht.optimize``'s ``job`` argument), so a client knows its job from the
start instead of matching titles.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from regrapht_core.api import display_name
from regrapht_server.settings import camel_case

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

    from regrapht_core.api import SearchProgress, SearchResult

__all__ = [
    "JOB_PROGRESS",
    "JobProgress",
    "JobState",
    "Reporter",
    "camel_keys",
    "describe",
    "job_id_problem",
]

log = logging.getLogger(__name__)

JOB_PROGRESS = "regrapht/jobProgress"
"""The server's notification with a :class:`JobProgress` (camelCase keys)."""


class JobState(StrEnum):
    QUEUED = "queued"
    """Waiting for the job that holds the GPU (jobs run one at a time)."""
    RUNNING = "running"
    CANCELLING = "cancelling"
    """Cancel accepted: the search stops before its next step; nothing will be offered."""
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def over(self) -> bool:
        """The search is over: no report follows this one (the result is delivered next)."""
        return self in {JobState.DONE, JobState.FAILED, JobState.CANCELLED}


def camel_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A ``dataclasses.asdict`` factory: the snake_case fields as camelCase JSON keys, and
    tuples as the lists that JSON has."""
    return {camel_case(name): list(v) if isinstance(v, tuple) else v for name, v in pairs}


@dataclass(frozen=True, slots=True)
class JobProgress:
    """Where a job stands, for a client's UI. Sent whole every time (no deltas)."""

    job: str
    uri: str
    function: str
    state: JobState
    evaluations: int = 0
    """Candidates evaluated so far."""
    budget: int = 0
    best_speedup: float | None = None
    """Of the best verified candidate; ``None`` until one is timed (never without a GPU)."""
    technique: str | None = None
    """Id of the technique the last candidate applied; ``None`` before the first."""
    technique_name: str | None = None
    gpu: bool | None = None
    """``None`` until the job has the optimizer (and knows); ``False``: compiled, not run."""
    stop_reason: str | None = None
    """Why the search stopped (``budget``, ``time limit``, ``cancelled``…), once it has."""
    confirming: bool = False
    """The search has ended; its best candidate is being confirmed (timed again, run under
    compute-sanitizer) before it is offered."""

    def as_json(self) -> dict[str, object]:
        return asdict(self, dict_factory=camel_keys)

    def started(self, *, gpu: bool) -> JobProgress:
        state = self.state if self.state is JobState.CANCELLING else JobState.RUNNING
        return replace(self, state=state, gpu=gpu)

    def searched(self, update: SearchProgress) -> JobProgress:
        return replace(
            self,
            evaluations=update.evaluations,
            budget=update.budget,
            best_speedup=update.best_speedup,
            technique=update.technique,
            technique_name=display_name(update.technique),
            confirming=update.confirming,
        )

    def cancelling(self) -> JobProgress:
        return self if self.state.over else replace(self, state=JobState.CANCELLING)

    def ended(self, search: SearchResult) -> JobProgress:
        return replace(
            self,
            state=JobState.CANCELLED if search.cancelled else JobState.DONE,
            evaluations=len(search.candidates),
            stop_reason=str(search.stop_reason),
            confirming=False,
        )

    def failed(self) -> JobProgress:
        return replace(self, state=JobState.FAILED)

    def cancelled(self) -> JobProgress:
        """Cancelled before its search ended (a queued job leaving the queue)."""
        return replace(self, state=JobState.CANCELLED, stop_reason="cancelled")


def describe(progress: JobProgress) -> str:
    """The work-done message: for people, never parsed."""
    match progress.state:
        case JobState.QUEUED:
            return "waiting for the running job"
        case JobState.RUNNING if progress.gpu is None:
            return "starting"
        case JobState.RUNNING if progress.technique is None:
            return "searching" if progress.gpu else "searching (no GPU: compiled, not run)"
        case JobState.RUNNING if progress.confirming:
            best = "" if progress.best_speedup is None else f" ({progress.best_speedup:.2f}x)"
            return f"confirming the best candidate{best} before it is offered"
        case JobState.RUNNING:
            if progress.best_speedup is not None:
                best = f"best {progress.best_speedup:.2f}x"
            else:
                best = "best -" if progress.gpu else "not timed (no GPU)"
            done = f"{progress.evaluations}/{progress.budget} candidates"
            return f"{done}, {best}, {progress.technique_name}"
        case JobState.CANCELLING:
            return "cancelling: finishing a step"
        case JobState.FAILED:
            return "failed"
        case JobState.DONE | JobState.CANCELLED:
            return f"{progress.evaluations} candidates ({progress.stop_reason})"


_SERVER_IDS = "regrapht-job-"
"""The server's own job ids (``regrapht-job-N``): a client's id never looks like one."""


def job_id_problem(job_id: str) -> str | None:
    """Why a client's job id cannot be used, or ``None``: 1-100 printable ASCII characters
    without spaces, so that it is safe in logs and as a progress token."""
    if not 0 < len(job_id) <= 100 or not job_id.isascii() or not job_id.isprintable():
        return f"job id {job_id!r} must be 1-100 printable ASCII characters"
    if " " in job_id:
        return f"job id {job_id!r} must not contain spaces"
    if job_id.startswith(_SERVER_IDS):
        return f"job id {job_id!r} must not start with {_SERVER_IDS!r} (the server's own ids)"
    return None


class Reporter:
    """Sends one job's progress: the typed notification always, work-done progress when
    the client can show it. The last report is an over state (see :attr:`JobState.over`)."""

    def __init__(self, ls: LanguageServer, first: JobProgress) -> None:
        self._ls = ls
        self._token: str | None = None
        self.value = first

    async def open(self, title: str) -> None:
        """The typed notification goes first, so a client knows the job before its token."""
        first = self.value
        self._ls.protocol.notify(JOB_PROGRESS, first.as_json())
        window = self._ls.client_capabilities.window
        if window is None or not window.work_done_progress:
            return
        try:
            await self._ls.work_done_progress.create_async(first.job)
        except JsonRpcException as err:
            log.warning("client refused progress %s: %s", first.job, err)
            return
        # Updates that came while the client answered are in ``value``.
        begin = types.WorkDoneProgressBegin(
            title=title, cancellable=True, message=describe(self.value), percentage=0
        )
        self._ls.work_done_progress.begin(first.job, begin)
        self._token = first.job
        if self.value.state.over:
            self._end()

    def update(self, value: JobProgress) -> None:
        if self.value.state.over:
            return
        self.value = value
        self._ls.protocol.notify(JOB_PROGRESS, value.as_json())
        if self._token is None:
            return
        if value.state.over:
            self._end()
            return
        percentage = None
        if value.technique is not None:
            percentage = min(100, value.evaluations * 100 // max(value.budget, 1))
        report = types.WorkDoneProgressReport(message=describe(value), percentage=percentage)
        self._ls.work_done_progress.report(self._token, report)

    def _end(self) -> None:
        if self._token is not None:
            end = types.WorkDoneProgressEnd(message=describe(self.value))
            self._ls.work_done_progress.end(self._token, end)
            self._ls.work_done_progress.tokens.pop(self._token, None)
            self._token = None
