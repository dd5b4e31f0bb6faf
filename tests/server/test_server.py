"""The server as an editor sees it: a real subprocess over stdio, driven by pytest-lsp."""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import Future
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcMethodNotFound
from pytest_lsp import LanguageClient

from regrapht_core.optimize.record import Measurement, ResultRecord, Step

from .conftest import EXAMPLE, SOURCES, Editor, configure, copy_source, open_file, wait_for

OPTIMIZE = "regrapht.optimize"


async def actions_at(
    client: LanguageClient, uri: str, line: int, character: int = 4
) -> list[types.CodeAction]:
    where = types.Position(line, character)
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri),
            types.Range(where, where),
            types.CodeActionContext(diagnostics=[]),
        )
    )
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


async def test_initialize_advertises_actions_commands_and_hover(
    client: LanguageClient, editor: Editor
) -> None:
    assert editor.initialized is not None
    capabilities = editor.initialized.capabilities
    assert editor.initialized.server_info is not None
    assert editor.initialized.server_info.name == "regrapht"
    assert isinstance(capabilities.code_action_provider, types.CodeActionOptions)
    kinds = capabilities.code_action_provider.code_action_kinds
    assert list(kinds or []) == [types.CodeActionKind.RefactorRewrite]
    assert capabilities.execute_command_provider is not None
    assert set(capabilities.execute_command_provider.commands) == {
        OPTIMIZE,
        "regrapht.cancel",
        "regrapht.check",
        "regrapht.graph",
    }
    assert capabilities.hover_provider


def line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines()) if text in line)


async def test_a_loop_offers_the_action(client: LanguageClient, tmp_path: Path) -> None:
    path = copy_source(EXAMPLE, tmp_path)
    uri = open_file(client, path, "cpp")
    cursor = line_of(path, "acc += x[j]")
    actions = await actions_at(client, uri, cursor, 8)
    assert [a.title for a in actions] == ["Optimize to CUDA (ReGraphT)"]
    action = actions[0]
    assert action.kind == types.CodeActionKind.RefactorRewrite
    assert list(action.tags or []) == [types.CodeActionTag.LlmGenerated]
    assert action.command is not None and action.command.command == OPTIMIZE
    assert list(action.command.arguments or []) == [
        {
            "uri": uri,
            "function": "smooth",
            "line": line_of(path, "void smooth("),
            "loop": cursor,  # the loop around the cursor is the one to optimize
            "job": None,  # the client names the job when it runs the command
        }
    ]


async def test_a_kernel_offers_the_action_and_plain_code_does_not(
    client: LanguageClient, tmp_path: Path
) -> None:
    path = copy_source(SOURCES / "kernels.cu", tmp_path)
    uri = open_file(client, path, "cuda-cpp")
    kernel = await actions_at(client, uri, line_of(path, "c[i] = fused(a[i], b[i])"))
    assert kernel[0].command is not None
    assert list(kernel[0].command.arguments or []) == [
        {
            "uri": uri,
            "function": "fused_kernel",
            "line": line_of(path, "void fused_kernel("),
            "loop": None,  # a kernel is optimized whole
            "job": None,
        }
    ]
    for text in ("#include", "return a * b + a", "cudaMalloc(&d_a"):
        assert await actions_at(client, uri, line_of(path, text)) == [], text


MEASURED = Measurement(
    "NVIDIA H100 80GB HBM3", "580.95", "13.0", "end_to_end", 30, 81.0, 10.0, 3, 3, (("n", 1 << 20),)
)
STEPS = (Step("parallelization", 3.2), Step("shared_memory_tiling", 8.1))
HEADER = ResultRecord("scale", STEPS, "qwen2.5-coder-0.5b", 12, MEASURED).render()
OPTIMIZED = f"""\
#include <cuda_runtime.h>

__global__ void scale_kernel(int n, float s, float* v) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] *= s;
}}
// regrapht: n = 1<<20; v[n] inout
{HEADER}void scale(int n, float s, float* v) {{
    scale_kernel<<<(n + 255) / 256, 256>>>(n, s, v);
}}

void other(int n, float* v) {{
    for (int i = 0; i < n; ++i) v[i] = 0;
}}
"""


async def hover_at(client: LanguageClient, uri: str, line: int, character: int) -> str | None:
    result = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, character))
    )
    if result is None:
        return None
    assert isinstance(result.contents, types.MarkupContent)
    assert result.contents.kind == types.MarkupKind.Markdown
    return result.contents.value


async def test_hover_reads_the_record_back_from_the_header(
    client: LanguageClient, tmp_path: Path
) -> None:
    path = tmp_path / "scale.cu"
    path.write_text(OPTIMIZED)
    uri = open_file(client, path, "cuda-cpp")
    inside = line_of(path, "scale_kernel<<<")
    for line, character in ((inside, 8), (line_of(path, "techniques:"), 10)):
        text = await hover_at(client, uri, line, character)
        assert text is not None
        assert "8.10x faster than the sequential scale" in text
        assert "1. Parallelization — 3.20x\n2. Shared-memory tiling — 8.10x" in text
        assert "- timing: end_to_end, median of 30 runs: 81 ms -> 10 ms" in text
        assert "- driver 580.95, nvcc 13.0" in text
        assert "**Model**: qwen2.5-coder-0.5b; candidates tried: 12" in text
    for line in (line_of(path, "v[i] = 0;"), line_of(path, "if (i < n)"), 0):
        assert await hover_at(client, uri, line, 4) is None


async def test_hover_on_a_header_from_an_older_version_says_so(
    client: LanguageClient, tmp_path: Path
) -> None:
    path = tmp_path / "scale.cu"
    record_line = HEADER.splitlines()[-1]
    path.write_text(OPTIMIZED.replace(record_line + "\n", ""))
    uri = open_file(client, path, "cuda-cpp")
    text = await hover_at(client, uri, line_of(path, "scale_kernel<<<"), 8)
    assert text is not None and "written by an older ReGraphT" in text


async def test_hover_on_a_pointer_comment_reads_the_cuda_file(
    client: LanguageClient, tmp_path: Path
) -> None:
    (tmp_path / "scale.regrapht.cu").write_text(OPTIMIZED)
    path = tmp_path / "scale.cpp"
    path.write_text(
        "// ReGraphT CUDA version: scale.regrapht.cu (8.10x faster, verified on NVIDIA H100)\n"
        "void scale(int n, float s, float* v) {\n"
        "    for (int i = 0; i < n; ++i) v[i] *= s;\n"
        "}\n"
    )
    uri = open_file(client, path, "cpp")
    text = await hover_at(client, uri, 0, 10)
    assert text is not None
    assert "in `scale.regrapht.cu`" in text and "Shared-memory tiling — 8.10x" in text
    assert await hover_at(client, uri, 2, 8) == text
    (tmp_path / "scale.regrapht.cu").unlink()
    assert "cannot be read" in (await hover_at(client, uri, 0, 10) or "")


async def test_settings_fail_soft_and_name_the_setting(client: LanguageClient) -> None:
    configure(client, budget="many", depthCap=0, allowUnverified=True, rewriters=None)
    await wait_for(lambda: len(client.messages) >= 2)
    shown = sorted(m.message for m in client.messages)
    assert (
        "regrapht.budget: expected a whole number >= 1, got 'many'; using the default (200)"
        in (shown[0])
    )
    assert "regrapht.depthCap" in shown[1]
    assert all(m.type == types.MessageType.Warning for m in client.messages)


async def test_pulled_settings_are_read_on_a_change_notification(client: LanguageClient) -> None:
    client.set_configuration({"gpuIndex": -1}, section="regrapht")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await wait_for(lambda: bool(client.messages))
    assert "regrapht.gpuIndex: expected a whole number >= 0, got -1" in client.messages[0].message


@pytest.mark.slow
@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("snapshotPath", "broken.msgpack", "broken.msgpack"),
        ("model", "missing.gguf", "missing.gguf"),
    ],
)
async def test_an_unusable_snapshot_or_model_is_reported_with_its_setting(
    client: LanguageClient, tmp_path: Path, key: str, value: str, problem: str
) -> None:
    (tmp_path / "broken.msgpack").write_bytes(b"not a snapshot")
    path = copy_source(EXAMPLE, tmp_path)
    uri = open_file(client, path, "cpp")
    configure(client, **{key: str(tmp_path / value)})
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(OPTIMIZE, [{"uri": uri, "function": "smooth"}])
    )
    assert result["status"] == "failed"
    (message,) = [m for m in client.messages if m.type == types.MessageType.Error]
    assert problem in message.message and f"(setting regrapht.{key})" in message.message
    assert await actions_at(client, uri, line_of(path, "acc += x[j]"), 8)  # still serving


async def test_a_crashing_job_is_reported_and_the_server_carries_on(
    crashing_client: LanguageClient, tmp_path: Path
) -> None:
    client = crashing_client
    path = copy_source(EXAMPLE, tmp_path)
    uri = open_file(client, path, "cpp")
    for _ in range(2):
        result = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(OPTIMIZE, [{"uri": uri, "function": "smooth"}])
        )
        assert result["status"] == "failed"
    assert [m.message for m in client.messages] == [
        "ReGraphT: optimizing smooth failed unexpectedly; see the server log."
    ] * 2
    job = result["job"]
    assert isinstance(client.progress_reports[job][-1], types.WorkDoneProgressEnd)
    assert await actions_at(client, uri, line_of(path, "acc += x[j]"), 8)


async def test_code_that_cannot_become_a_task_gets_a_message_and_a_diagnostic(
    client: LanguageClient, tmp_path: Path
) -> None:
    path = tmp_path / "unknown.cpp"
    path.write_text(
        "void fill(float* out, int count, const int* where) {\n"
        "    for (int i = 0; i < count; ++i) out[where[i]] = 1.0f;\n"
        "}\n"
    )
    uri = open_file(client, path, "cpp")
    (action,) = await actions_at(client, uri, 1, 8)
    assert action.command is not None
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(OPTIMIZE, action.command.arguments)
    )
    assert result == {"status": "not-a-task", "job": None}
    (message,) = client.messages
    assert message.type == types.MessageType.Error and "// regrapht:" in message.message
    await wait_for(lambda: bool(client.diagnostics.get(uri)))
    (diagnostic,) = client.diagnostics[uri]
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    assert diagnostic.range.start.line == 0 and diagnostic.source == "ReGraphT"
    client.text_document_did_change(  # the user edits: the finding no longer applies
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [types.TextDocumentContentChangeWholeDocument(path.read_text() + "\n")],
        )
    )
    await wait_for(lambda: not client.diagnostics.get(uri))


async def raw_request(client: LanguageClient, method: str, params: object) -> object:
    """Send what the typed client cannot: params that do not match the method."""
    msg_id = f"raw-{method}"
    answer: Future[object] = Future()
    client.protocol._request_futures[msg_id] = answer
    body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
    writer = client.protocol.writer
    assert writer is not None
    writer.write(f"Content-Length: {len(body)}\r\n\r\n{body}".encode())
    return await asyncio.wait_for(asyncio.wrap_future(answer), 30)


async def test_malformed_requests_get_errors_and_the_server_carries_on(
    client: LanguageClient, tmp_path: Path
) -> None:
    unknown = (tmp_path / "never_opened.cpp").as_uri()
    with pytest.raises(JsonRpcInvalidParams, match="not an open document"):
        await actions_at(client, unknown, 0)
    with pytest.raises(JsonRpcInvalidParams, match="not an open document"):
        await hover_at(client, unknown, 0, 0)
    with pytest.raises(JsonRpcInvalidParams):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(OPTIMIZE, [{"function": "smooth"}])
        )
    with pytest.raises(JsonRpcInvalidParams):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(OPTIMIZE, [{"uri": unknown, "function": "f"}])
        )
    with pytest.raises(JsonRpcInvalidParams):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams("regrapht.cancel", [{"job": 1}])
        )
    for job, problem in (("", "1-100 printable"), ("regrapht-job-9", "the server's own ids")):
        with pytest.raises(JsonRpcInvalidParams, match=problem):
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(
                    OPTIMIZE, [{"uri": unknown, "function": "f", "job": job}]
                )
            )
    with pytest.raises(JsonRpcInvalidParams):
        await client.workspace_execute_command_async(types.ExecuteCommandParams("regrapht.nope"))
    with pytest.raises(JsonRpcInvalidParams):
        await raw_request(client, types.TEXT_DOCUMENT_CODE_ACTION, {"textDocument": {"uri": 3}})
    with pytest.raises(JsonRpcInvalidParams):
        await raw_request(client, types.TEXT_DOCUMENT_HOVER, [])
    with pytest.raises(JsonRpcMethodNotFound):
        await raw_request(client, "regrapht/unknown", {})
    assert (
        await client.workspace_execute_command_async(types.ExecuteCommandParams("regrapht.cancel"))
        == []
    )
    path = copy_source(EXAMPLE, tmp_path)
    uri = open_file(client, path, "cpp")
    assert await actions_at(client, uri, line_of(path, "acc += x[j]"), 8)
    text = tmp_path / "notes.txt"
    text.write_text("for (;;) {}\n")
    assert await actions_at(client, open_file(client, text, "plaintext"), 0) == []


async def test_code_actions_stay_fast_in_a_huge_file(
    client: LanguageClient, tmp_path: Path
) -> None:
    body = "".join(
        f"void f{i}(int n, float* v) {{\n    for (int i = 0; i < n; ++i) v[i] += {i};\n}}\n"
        for i in range(50_000 // 3)
    )
    path = tmp_path / "huge.cpp"
    path.write_text(body)
    uri = open_file(client, path, "cpp")
    middle = len(body.splitlines()) // 2
    start = time.monotonic()
    assert await actions_at(client, uri, middle, 8)
    first = time.monotonic() - start
    start = time.monotonic()
    for line in range(middle, middle + 30):
        await actions_at(client, uri, line, 4)
    again = (time.monotonic() - start) / 30
    assert first < 5 and again < 0.25, (first, again)
    edit_at = types.Range(types.Position(middle, 0), types.Position(middle, 0))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [types.TextDocumentContentChangePartial(edit_at, "// typed\n")],
        )
    )
    start = time.monotonic()
    assert await actions_at(client, uri, middle + 2, 8)
    assert time.monotonic() - start < 5
