"""A finished job's candidates, for the extension's results view and code lens.

Progress says how far a job is; this says what it found: every candidate the search
evaluated (technique, producer, verifier status, speedup, and the verifier's reason when it
refused one), the job's time split, and which candidate, if any, was offered. The server
sends it once per job as ``regrapht/jobResult`` (:data:`JOB_RESULT`), right after the job's
last ``regrapht/jobProgress`` payload and before the edit, built from the core's
:class:`~regrapht_core.optimize.job.OptimizeOutcome` so that nothing reads text back.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from regrapht_core.api import display_name
from regrapht_server.progress import JobState, camel_keys

if TYPE_CHECKING:
    from regrapht_core.api import Candidate, OptimizeOutcome

__all__ = ["JOB_RESULT", "CandidateRow", "JobResult", "TimeSplit", "job_result"]

JOB_RESULT = "regrapht/jobResult"
"""The server's notification with a :class:`JobResult` (camelCase keys)."""

FEEDBACK_CHARS = 600
"""The verifier's feedback is already short; a view needs no more than this of it."""


@dataclass(frozen=True, slots=True)
class TimeSplit:
    """Where the job's seconds went (``WallTime.as_dict``): ``search`` is the search itself."""

    total: float
    propose: float
    compile: float
    run: float
    search: float


@dataclass(frozen=True, slots=True)
class CandidateRow:
    """One evaluated candidate, as the verifier judged it."""

    index: int
    parent: int | None
    """The candidate it was derived from; ``None``: from the sequential code."""
    technique: str
    technique_name: str
    producer: str
    """``model:<name>`` or ``rewriter:<technique>``."""
    phase: str
    status: str
    """The verifier's status (``verified``, ``not_run``, ``compile_error``, ...)."""
    speedup: float | None
    """Measured against the sequential code; ``None`` unless verified and timed."""
    feedback: str
    """Why it was refused or failed (first compiler error, first mismatch...), trimmed."""


@dataclass(frozen=True, slots=True)
class JobResult:
    """What one job found. ``offered`` is the candidate the server offers as the edit (a
    verified, faster one; without a GPU the deepest compiled one), if any."""

    job: str
    uri: str
    function: str
    state: JobState
    """``done`` or ``cancelled`` (a failed job has no result)."""
    gpu: bool
    model: str
    stop_reason: str
    offered: int | None
    verified: bool
    """The offered candidate was run, checked and timed faster (never without a GPU)."""
    speedup: float | None
    """Of the offered candidate; ``None`` when it was not timed."""
    techniques: tuple[str, ...]
    """Ids of the techniques from the sequential code to the offered candidate."""
    summary: str
    """Why nothing was offered, from the statuses, most common first; empty otherwise."""
    time: TimeSplit
    candidates: tuple[CandidateRow, ...]

    def as_json(self) -> dict[str, object]:
        return asdict(self, dict_factory=camel_keys)


def _trim(text: str) -> str:
    text = text.strip()
    return text if len(text) <= FEEDBACK_CHARS else text[: FEEDBACK_CHARS - 1] + "…"


def _row(candidate: Candidate) -> CandidateRow:
    result = candidate.result
    return CandidateRow(
        index=candidate.index,
        parent=candidate.parent,
        technique=candidate.technique,
        technique_name=display_name(candidate.technique),
        producer=candidate.producer,
        phase=candidate.phase,
        status=str(result.status),
        speedup=result.speedup,
        feedback=_trim(result.feedback),
    )


def job_result(job: str, uri: str, function: str, outcome: OptimizeOutcome) -> JobResult:
    search = outcome.search
    offered = outcome.answer
    return JobResult(
        job=job,
        uri=uri,
        function=function,
        state=JobState.CANCELLED if search.cancelled else JobState.DONE,
        gpu=outcome.gpu,
        model=outcome.model,
        stop_reason=str(search.stop_reason),
        offered=offered.index if offered else None,
        verified=offered is not None and offered.result.verified,
        speedup=offered.result.speedup if offered else None,
        techniques=tuple(step.technique for step in search.path) if offered else (),
        summary="" if offered else outcome.failure_summary(),
        time=TimeSplit(**outcome.wall.as_dict()),
        candidates=tuple(_row(candidate) for candidate in search.candidates),
    )
