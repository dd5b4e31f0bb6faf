"""A job's progress as one value: the typed payload the extension reads and the human text
of work-done progress, both from it."""

from __future__ import annotations

import json

import pytest
from regrapht_server.progress import JobProgress, JobState, describe, job_id_problem

from regrapht_core.contracts.proposal import SearchProgress, SearchResult

from .fakes import NOT_RUN, outcome, verified


def queued() -> JobProgress:
    return JobProgress("vscode-1", "file:///w/smooth.cpp", "smooth", JobState.QUEUED, budget=200)


def searched(*, gpu: bool, update: SearchProgress) -> JobProgress:
    return queued().started(gpu=gpu).searched(update)


def test_the_payload_has_camel_case_keys_and_plain_json_values() -> None:
    progress = searched(gpu=True, update=SearchProgress(3, 200, "shared_memory_tiling", 2.5))
    payload = progress.as_json()
    assert payload == {
        "job": "vscode-1",
        "uri": "file:///w/smooth.cpp",
        "function": "smooth",
        "state": "running",
        "evaluations": 3,
        "budget": 200,
        "bestSpeedup": 2.5,
        "technique": "shared_memory_tiling",
        "techniqueName": "Shared-memory tiling",
        "gpu": True,
        "stopReason": None,
        "confirming": False,
    }
    assert json.loads(json.dumps(payload)) == payload


def test_once_the_search_ends_the_best_candidate_is_said_to_be_confirmed() -> None:
    """Its second timing and compute-sanitizer take seconds to minutes after the last
    candidate: the progress says so instead of standing still at the last one."""
    update = SearchProgress(8, 8, "parallelization", 2.5, confirming=True)
    progress = searched(gpu=True, update=update)
    assert progress.as_json()["confirming"] is True
    assert describe(progress) == "confirming the best candidate (2.50x) before it is offered"


def test_progress_says_how_far_and_how_good() -> None:
    update = SearchProgress(3, 200, "shared_memory_tiling", 2.5)
    assert describe(searched(gpu=True, update=update)) == (
        "3/200 candidates, best 2.50x, Shared-memory tiling"
    )
    early = SearchProgress(1, 200, "parallelization", None)
    assert describe(searched(gpu=True, update=early)) == (
        "1/200 candidates, best -, Parallelization"
    )
    assert describe(searched(gpu=False, update=early)) == (
        "1/200 candidates, not timed (no GPU), Parallelization"
    )


def test_a_job_goes_from_queued_to_over() -> None:
    first = queued()
    assert describe(first) == "waiting for the running job"
    assert describe(JobProgress("j", "u", "f", JobState.RUNNING)) == "starting"
    assert describe(first.started(gpu=True)) == "searching"
    no_gpu = first.started(gpu=False)
    assert (no_gpu.state, no_gpu.gpu) == (JobState.RUNNING, False)
    assert describe(no_gpu) == "searching (no GPU: compiled, not run)"
    done = no_gpu.ended(outcome([NOT_RUN, NOT_RUN], gpu=False).search)
    assert (done.state, done.evaluations, done.stop_reason) == (JobState.DONE, 2, "budget")
    assert done.state.over and not no_gpu.state.over
    assert describe(done) == "2 candidates (budget)"
    assert no_gpu.failed().state.over and describe(no_gpu.failed()) == "failed"


def test_a_cancel_is_reported_at_once_and_ends_the_job_cancelled() -> None:
    running = searched(gpu=True, update=SearchProgress(1, 200, "parallelization", 1.5))
    cancelling = running.cancelling()
    assert cancelling.state is JobState.CANCELLING and not cancelling.state.over
    assert describe(cancelling) == "cancelling: finishing a step"
    assert cancelling.started(gpu=True).state is JobState.CANCELLING  # a queued job cancelled
    search: SearchResult = outcome([verified(1.5)], gpu=True, cancelled=True).search
    over = cancelling.ended(search)
    assert (over.state, over.stop_reason, over.best_speedup) == (
        JobState.CANCELLED,
        "cancelled",
        1.5,
    )
    assert describe(over) == "1 candidates (cancelled)"
    assert over.cancelling() is over  # a cancel after the end changes nothing


@pytest.mark.parametrize(
    ("job_id", "problem"),
    [
        ("vscode-0b6f9c1e", None),
        ("", "1-100 printable ASCII"),
        ("x" * 101, "1-100 printable ASCII"),
        ("bad\nid", "1-100 printable ASCII"),
        ("naïve", "1-100 printable ASCII"),
        ("two words", "spaces"),
        ("regrapht-job-3", "the server's own ids"),
    ],
)
def test_a_client_job_id_is_checked(job_id: str, problem: str | None) -> None:
    found = job_id_problem(job_id)
    assert (found is None) if problem is None else (problem in (found or ""))
