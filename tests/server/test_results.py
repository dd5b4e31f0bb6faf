"""A finished job's candidates as one typed payload (``regrapht/jobResult``), for the
extension's results view and code lens (#15, Build: "a results view (each candidate:
technique, producer, status, speedup, time split, why refused) and a code lens")."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from regrapht_server.progress import JobState
from regrapht_server.results import FEEDBACK_CHARS, JobResult, job_result

from regrapht_core.contracts.evaluation import Evaluation, Status
from regrapht_core.optimize.job import OptimizeOutcome, WallTime

from .conftest import EXAMPLE, configure, copy_source, open_file
from .fakes import NOT_RUN, outcome, verified

URI = "file:///w/smooth.cpp"
REFUSED = Evaluation(Status.COMPILE_ERROR, "h", feedback="error: identifier 'tile' is undefined")


def result_of(found: OptimizeOutcome) -> JobResult:
    return job_result("vscode-1", URI, "smooth", found)


def test_each_candidate_says_technique_producer_status_speedup_and_why() -> None:
    found = replace(
        outcome([REFUSED, verified(2.0), verified(8.125)], gpu=True),
        wall=WallTime(total=10.0, propose=1.0, compile=6.0, run=2.5),
    )
    payload = result_of(found).as_json()
    assert json.loads(json.dumps(payload)) == payload
    assert payload["candidates"][0] == {
        "index": 0,
        "parent": None,
        "technique": "parallelization",
        "techniqueName": "Parallelization",
        "producer": "rewriter:x",
        "phase": "expand",
        "status": "compile_error",
        "speedup": None,
        "feedback": "error: identifier 'tile' is undefined",
    }
    assert [(c["status"], c["speedup"]) for c in payload["candidates"]] == [
        ("compile_error", None),
        ("verified", 2.0),
        ("verified", 8.125),
    ]
    assert payload["time"] == {
        "total": 10.0,
        "propose": 1.0,
        "compile": 6.0,
        "run": 2.5,
        "search": 0.5,
    }
    assert (payload["job"], payload["uri"], payload["function"]) == ("vscode-1", URI, "smooth")
    assert (payload["state"], payload["stopReason"], payload["gpu"]) == ("done", "budget", True)
    # What the code lens says: how much faster, after how many techniques.
    assert (payload["offered"], payload["verified"], payload["speedup"]) == (2, True, 8.125)
    assert payload["techniques"] == ["parallelization", "shared_memory_tiling", "loop_unrolling"]
    assert payload["summary"] == ""


def test_without_a_gpu_the_offer_is_compiled_only_and_never_called_faster() -> None:
    found = result_of(outcome([NOT_RUN, NOT_RUN], gpu=False))
    assert (found.offered, found.verified, found.speedup) == (1, False, None)
    assert found.techniques == ("parallelization", "shared_memory_tiling")
    assert found.candidates[1].feedback == "no GPU on this machine: compiled, not run"


def test_with_nothing_offered_the_result_says_why() -> None:
    found = result_of(outcome([REFUSED, verified(0.5)], gpu=True, cancelled=True))
    assert found.state is JobState.CANCELLED and found.stop_reason == "cancelled"
    assert (found.offered, found.verified, found.speedup, found.techniques) == (
        None,
        False,
        None,
        (),
    )
    assert found.summary.startswith("1 compile_error, 1 verified; first problem: error:")


def test_long_feedback_is_trimmed() -> None:
    noisy = replace(REFUSED, feedback="error: x\n" * 500)
    (row,) = result_of(outcome([noisy], gpu=True)).candidates
    assert len(row.feedback) == FEEDBACK_CHARS and row.feedback.endswith("…")


@pytest.mark.slow
async def test_the_server_sends_the_result_after_the_last_progress(
    client: LanguageClient, tmp_path: Path
) -> None:
    """The real server, rewriters only: the result follows the job's last progress payload
    and comes before the answer to ``regrapht.optimize``."""
    seen: list[tuple[str, dict[str, Any]]] = []

    @client.feature("regrapht/jobProgress")
    def job_progress(params: Any) -> None:
        seen.append(("progress", params._asdict()))

    @client.feature("regrapht/jobResult")
    def job_result(params: Any) -> None:
        seen.append(("result", params._asdict()))

    uri = open_file(client, copy_source(EXAMPLE, tmp_path), "cpp")
    configure(client, budget=2, useModel=False)
    target = {"uri": uri, "function": "smooth", "job": "test-1"}
    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("regrapht.optimize", arguments=[target])
    )
    assert answer["job"] == "test-1"
    (kind, last), (result_kind, result) = seen[-2:]
    assert (kind, last["state"], result_kind) == ("progress", "done", "result")
    assert (result["job"], result["uri"], result["function"]) == ("test-1", uri, "smooth")
    candidates = [dict(c._asdict()) for c in result["candidates"]]
    assert len(candidates) == last["evaluations"] > 0
    assert {"technique", "producer", "status", "speedup", "feedback"} <= set(candidates[0])
    assert set(result["time"]._asdict()) == {"total", "propose", "compile", "run", "search"}
