"""Real jobs through the real server: the embedded model and nvcc, on a machine without a
GPU (every candidate ends "compiled, not run"), as on CI. With a GPU the same jobs verify
and time their candidates, and what they offer depends on the measurements."""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcRequestCancelled
from pytest_lsp import LanguageClient

from regrapht_core.graph.paths import snapshot_path
from tests.conftest import gpu_present

from .conftest import (
    EXAMPLE,
    Editor,
    apply_to_disk,
    configure,
    copy_source,
    open_file,
    wait_for,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(gpu_present(), reason="expects the compile-only path of a GPU-less machine"),
]

SMOOTH_LINE = 10
"""``void smooth(`` in examples/smooth.cpp, zero-based."""


def optimize(
    client: LanguageClient, uri: str, function: str = "smooth", job: str | None = None
) -> Any:
    target = {"uri": uri, "function": function, "line": SMOOTH_LINE}
    return client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            "regrapht.optimize", arguments=[target | ({"job": job} if job else {})]
        )
    )


def job_payloads(client: LanguageClient) -> list[dict[str, Any]]:
    """Records the server's ``regrapht/jobProgress`` notifications, as the extension reads them."""
    seen: list[dict[str, Any]] = []

    @client.feature("regrapht/jobProgress")
    def job_progress(params: Any) -> None:
        seen.append(params._asdict())  # pygls makes a namedtuple of a payload it has no type for

    return seen


def reports(client: LanguageClient, job: str) -> list[Any]:
    return list(client.progress_reports.get(job, []))


async def first_report(client: LanguageClient) -> str:
    """The id of the running job, once its search has started. Not its first candidate:
    on a two-core CI machine the embedded model's first answer can take a minute, and a
    cancel that lands mid-answer is the case these tests should cover anyway."""
    await wait_for(
        lambda: any(
            isinstance(r, types.WorkDoneProgressReport)
            and (r.message or "").startswith(("searching", "1/"))
            for rs in client.progress_reports.values()
            for r in rs
        )
    )
    return next(iter(client.progress_reports))


async def started(request: Any) -> asyncio.Future[Any]:
    """Send the request now: the server takes its snapshot of the function before it reads
    the next message (the edit a test sends), so the edit lands while the job runs."""
    running = asyncio.ensure_future(request)
    await asyncio.sleep(0)
    return running


def ended(client: LanguageClient, job: str) -> bool:
    return any(isinstance(r, types.WorkDoneProgressEnd) for r in reports(client, job))


async def test_without_a_gpu_nothing_is_offered_unless_allowed(
    client: LanguageClient, editor: Editor, tmp_path: Path
) -> None:
    uri = open_file(client, copy_source(EXAMPLE, tmp_path), "cpp")
    configure(client, budget=2)
    payloads = job_payloads(client)
    result = await optimize(client, uri)
    assert result["status"] == "no-result"
    assert result["job"] == "regrapht-job-1"  # the client named none
    assert editor.edits == []
    assert any("allowUnverified" in m.message for m in client.messages)
    await wait_for(lambda: bool(client.diagnostics.get(uri)))
    (diagnostic,) = client.diagnostics[uri]
    assert "not_run" in diagnostic.message
    assert diagnostic.range.start.line == SMOOTH_LINE
    progress = reports(client, result["job"])
    assert isinstance(progress[0], types.WorkDoneProgressBegin) and progress[0].cancellable
    # The rewriter's parallelization first; then, from the parallelized state, the steps the
    # graph offers in order of support: the rewriters' refusals (free, each reported with
    # the count unchanged) until one answers and spends the second candidate. The model is
    # not asked: a rewriter acts at both states (RewritersFirst).
    messages = [r.message or "" for r in progress[2:-1]]
    assert messages[0] == "1/2 candidates, not timed (no GPU), Parallelization"
    assert all(m.startswith("1/2 candidates, not timed (no GPU), ") for m in messages[1:-1])
    assert messages[-1].startswith("2/2 candidates, not timed (no GPU), ")
    assert isinstance(progress[-1], types.WorkDoneProgressEnd)
    # The same reports, typed: what the extension reads.
    assert {(p["job"], p["uri"], p["function"]) for p in payloads} == {
        ("regrapht-job-1", uri, "smooth")
    }
    states = [(p["state"], p["gpu"], p["evaluations"]) for p in payloads]
    assert states[:3] == [("running", None, 0), ("running", False, 0), ("running", False, 1)]
    assert states[-2] == ("running", False, 2) and states[-1][:2] == ("done", False)
    assert {s for s in states[3:-2]} <= {("running", False, 1)}
    # The end counts every step tried, the free refusals too, as the trace does.
    assert states[-1][2] == len(states) - 3
    assert payloads[2]["technique"] == "parallelization"
    assert payloads[-1]["stopReason"] == "budget" and payloads[-1]["bestSpeedup"] is None
    assert payloads[2]["techniqueName"] == "Parallelization" and payloads[2]["budget"] == 2


async def test_compiled_only_code_goes_beside_a_cpp_file_when_allowed(
    client: LanguageClient, editor: Editor, tmp_path: Path
) -> None:
    source = copy_source(EXAMPLE, tmp_path)
    uri = open_file(client, source, "cpp")
    configure(client, budget=2, allowUnverified=True)
    assert (await optimize(client, uri))["status"] == "applied"
    (params,) = editor.edits
    create, sidecar, original = params.edit.document_changes or []
    cuda = tmp_path / "smooth.regrapht.cu"
    assert isinstance(create, types.CreateFile) and create.uri == cuda.as_uri()
    assert isinstance(sidecar, types.TextDocumentEdit)
    assert "// ReGraphT: compiled only - not run, not timed" in sidecar.edits[0].new_text
    assert isinstance(original, types.TextDocumentEdit)
    assert original.text_document.version == 1
    annotation = (params.edit.change_annotations or {})["regrapht"]
    assert annotation.label == "ReGraphT: compiled only — not run, not timed"
    assert annotation.needs_confirmation
    assert all(
        isinstance(e, types.AnnotatedTextEdit) and e.annotation_id == "regrapht"
        for change in (sidecar, original)
        for e in change.edits
    )
    apply_to_disk(params.edit)
    lines = source.read_text().splitlines()
    assert lines[SMOOTH_LINE].startswith("// ReGraphT CUDA version: smooth.regrapht.cu")
    assert lines[SMOOTH_LINE - 1].startswith("// regrapht: n = 1<<22")  # still attached
    compiled = subprocess.run(
        ["nvcc", "-c", "-std=c++17", cuda.name, "-o", "smooth.o"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert compiled.returncode == 0, compiled.stderr

    client.text_document_did_change(  # the editor's buffer after Apply
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [types.TextDocumentContentChangeWholeDocument(source.read_text())],
        )
    )
    pointer = types.Position(SMOOTH_LINE, 5)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), pointer)
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "compiled only" in hover.contents.value
    assert "1. Parallelization" in hover.contents.value
    assert "smooth.regrapht.cu" in hover.contents.value


async def test_a_cuda_file_is_changed_in_place_and_still_compiles(
    client: LanguageClient, editor: Editor, tmp_path: Path
) -> None:
    source = copy_source(EXAMPLE, tmp_path, "smooth.cu")
    uri = open_file(client, source, "cuda-cpp")
    configure(client, budget=2, allowUnverified=True)
    assert (await optimize(client, uri))["status"] == "applied"
    (params,) = editor.edits
    (change,) = params.edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit) and change.text_document.uri == uri
    apply_to_disk(params.edit)
    text = source.read_text()
    assert text.count("constexpr int RADIUS") == 1
    # one kernel, however the step that made it declares it (a launch bound, say)
    assert (
        len(re.findall(r"__global__ void (?:__launch_bounds__\(\d+\) )?smooth_kernel\(", text)) == 1
    )
    assert "// ReGraphT: compiled only" in text
    header_end = text.index("void smooth(int n")
    *_, model_line, record_line = text[:header_end].rstrip().splitlines()
    tried = model_line.rsplit("candidates tried: ", 1)[1]
    assert int(tried) >= 2 and record_line.startswith("//   record: ")  # refusals count too
    compiled = subprocess.run(
        ["nvcc", "-c", "-std=c++17", source.name, "-o", "smooth.o"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert compiled.returncode == 0, compiled.stderr


async def test_cancelling_the_progress_stops_the_job_and_sends_no_edit(
    client: LanguageClient, editor: Editor, tmp_path: Path
) -> None:
    """Finding 5 of #15: no edit after a cancel (the search still ends with what it had)."""
    uri = open_file(client, copy_source(EXAMPLE, tmp_path), "cpp")
    configure(client, budget=60, allowUnverified=True)
    payloads = job_payloads(client)
    running = asyncio.ensure_future(optimize(client, uri, job="editor-7"))
    job = await first_report(client)
    assert job == "editor-7"  # the client's id is the progress token
    start = time.monotonic()
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(job))
    await wait_for(lambda: ended(client, job), timeout=30)
    assert time.monotonic() - start < 10
    assert await running == {"status": "cancelled", "job": "editor-7"}
    assert "(cancelled)" in (reports(client, job)[-1].message or "")
    assert editor.edits == []
    states = [p["state"] for p in payloads]
    assert "cancelling" in states and states[-1] == "cancelled"
    assert states.index("cancelling") > states.index("running")
    assert {p["job"] for p in payloads} == {"editor-7"}
    assert payloads[-1]["stopReason"] == "cancelled"


async def test_a_second_request_is_refused_and_the_cancel_command_stops_the_first(
    client: LanguageClient, tmp_path: Path
) -> None:
    uri = open_file(client, copy_source(EXAMPLE, tmp_path), "cpp")
    configure(client, budget=60)
    payloads = job_payloads(client)
    running = asyncio.ensure_future(optimize(client, uri, job="editor-1"))
    job = await first_report(client)
    with pytest.raises(JsonRpcInvalidParams, match="already running"):
        await optimize(client, uri, job="editor-1")
    second = await optimize(client, uri, job="editor-2")
    assert second == {"status": "busy", "job": None}
    (action,) = (
        await client.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(uri),
                types.Range(types.Position(16, 8), types.Position(16, 8)),
                types.CodeActionContext(diagnostics=[]),
            )
        )
        or []
    )
    assert isinstance(action, types.CodeAction) and action.disabled is not None
    assert action.disabled.reason == "already optimizing smooth"
    assert any("already optimizing smooth" in m.message for m in client.messages)
    cancelled = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("regrapht.cancel", arguments=[job])
    )
    assert cancelled == [job] == ["editor-1"]
    assert (await running)["status"] == "cancelled"
    assert [p["state"] for p in payloads][-2:] == ["cancelling", "cancelled"]


async def test_a_job_waits_queued_behind_another_and_cancelling_all_ends_both(
    client: LanguageClient, tmp_path: Path
) -> None:
    first = open_file(client, copy_source(EXAMPLE, tmp_path), "cpp")
    second = open_file(client, copy_source(EXAMPLE, tmp_path, "other.cpp"), "cpp")
    configure(client, budget=60)
    payloads = job_payloads(client)
    running = asyncio.ensure_future(optimize(client, first, job="editor-a"))
    await first_report(client)
    waiting = asyncio.ensure_future(optimize(client, second, job="editor-b"))
    await wait_for(lambda: any(p["job"] == "editor-b" for p in payloads))
    assert await client.workspace_execute_command_async(
        types.ExecuteCommandParams("regrapht.cancel")
    ) in (["editor-a", "editor-b"], ["editor-b", "editor-a"])
    assert (await running)["status"] == "cancelled"
    assert await waiting == {"status": "cancelled", "job": "editor-b"}
    b = [p["state"] for p in payloads if p["job"] == "editor-b"]
    assert b[0] == "queued" and "running" not in b  # cancelled before it had the GPU
    assert b[-2:] == ["cancelling", "cancelled"]
    assert [p for p in payloads if p["job"] == "editor-b"][-1]["evaluations"] == 0


async def test_a_result_for_a_changed_function_is_not_applied_and_can_be_rerun(
    client: LanguageClient, editor: Editor, tmp_path: Path
) -> None:
    source = copy_source(EXAMPLE, tmp_path)
    uri = open_file(client, source, "cpp")
    configure(client, budget=3, allowUnverified=True)
    editor.choose = "Re-run"
    running = await started(optimize(client, uri))
    edited = source.read_text().replace("acc * (1.0f", "acc * (1.00f")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [types.TextDocumentContentChangeWholeDocument(edited)],
        )
    )
    assert (await running)["status"] == "stale"
    await wait_for(lambda: len(editor.edits) == 1, timeout=120)
    (request,) = editor.requests
    assert [a.title for a in request.actions or []] == ["Re-run"]
    (params,) = editor.edits
    changes = params.edit.document_changes or []
    assert isinstance(changes[-1], types.TextDocumentEdit)
    assert changes[-1].text_document.version == 2


async def test_a_result_follows_its_function_when_lines_above_it_change(
    client: LanguageClient, editor: Editor, tmp_path: Path
) -> None:
    source = copy_source(EXAMPLE, tmp_path)
    uri = open_file(client, source, "cpp")
    configure(client, budget=3, allowUnverified=True)
    running = await started(optimize(client, uri))
    top = types.Range(types.Position(0, 0), types.Position(0, 0))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [types.TextDocumentContentChangePartial(top, "// a new first line\n")],
        )
    )
    assert (await running)["status"] == "applied"
    (params,) = editor.edits
    original = (params.edit.document_changes or [])[-1]
    assert isinstance(original, types.TextDocumentEdit)
    assert original.text_document.version == 2
    assert original.edits[0].range.start.line == SMOOTH_LINE + 1


async def test_shutdown_cancels_a_running_job(client: LanguageClient, tmp_path: Path) -> None:
    uri = open_file(client, copy_source(EXAMPLE, tmp_path), "cpp")
    configure(client, budget=60)
    running = asyncio.ensure_future(optimize(client, uri))
    await first_report(client)
    start = time.monotonic()
    await client.shutdown_session()
    assert time.monotonic() - start < 15
    client.capabilities = None  # the session is over: the fixture must not shut it down again
    with pytest.raises(JsonRpcRequestCancelled):
        await running


async def test_a_discarded_edit_is_reported(
    client: LanguageClient, editor: Editor, tmp_path: Path
) -> None:
    uri = open_file(client, copy_source(EXAMPLE, tmp_path), "cpp")
    configure(client, budget=1, allowUnverified=True)
    editor.accept = False
    assert (await optimize(client, uri))["status"] == "not-applied"
    assert client.messages[-1].message == "ReGraphT: the edit was not applied: discarded"


async def test_a_result_is_not_applied_when_what_the_function_uses_changed(
    client: LanguageClient, editor: Editor, tmp_path: Path
) -> None:
    source = copy_source(EXAMPLE, tmp_path)
    uri = open_file(client, source, "cpp")
    configure(client, budget=2, allowUnverified=True)
    running = await started(optimize(client, uri))
    radius = types.Range(types.Position(7, 0), types.Position(8, 0))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [types.TextDocumentContentChangePartial(radius, "constexpr int RADIUS = 8;\n")],
        )
    )
    assert (await running)["status"] == "stale"
    await wait_for(lambda: bool(editor.requests))
    assert editor.edits == []


async def test_with_learn_on_compiled_only_results_leave_the_snapshot_alone(
    client: LanguageClient, tmp_path: Path
) -> None:
    snapshot = Path(shutil.copy(snapshot_path(), tmp_path / "g.msgpack"))
    uri = open_file(client, copy_source(EXAMPLE, tmp_path), "cpp")
    configure(client, budget=1, allowUnverified=True, learn=True, snapshotPath=str(snapshot))
    assert (await optimize(client, uri))["status"] == "applied"
    assert any("learned nothing" in m.message for m in client.messages)
    assert snapshot.read_bytes() == snapshot_path().read_bytes()
