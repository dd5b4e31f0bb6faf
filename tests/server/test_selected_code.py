"""What a job changes, through the real server with the rewriters and nvcc (no model, no
GPU: compiled only, offered with ``allowUnverified``): the code action on a loop optimizes
that loop alone, and a kernel's result keeps the rest of its file, its launcher included."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.conftest import gpu_present

from .conftest import Editor, apply_to_disk, configure, open_file, wait_for
from .test_server import actions_at, line_of

pytestmark = pytest.mark.skipif(
    gpu_present(), reason="expects the compile-only path of a GPU-less machine"
)

TWO_LOOPS = """\
// regrapht: n = 1<<16; x[n] in; y[n] out; z[n] out
void two_loops(int n, const float* x, float* y, float* z) {
  for (int i = 0; i < n; ++i) {
    y[i] = 2.0f * x[i];
  }
  for (int i = 0; i < n; ++i) {
    z[i] = x[i] + 1.0f;
  }
}

int main() { return 0; }
"""

LAUNCHED = """\
#include <cuda_runtime.h>

// regrapht: n = 1<<16; a = 2.5; x[n] in; y[n] inout
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy(int n, float a, const float* d_x, float* d_y) {
  saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, d_x, d_y);
}
"""


def run(client: LanguageClient, arguments: list[Any]) -> Any:
    return client.workspace_execute_command_async(
        types.ExecuteCommandParams("regrapht.optimize", arguments=arguments)
    )


async def action_arguments(client: LanguageClient, uri: str, line: int) -> list[Any]:
    (action,) = await actions_at(client, uri, line)
    assert action.command is not None
    return list(action.command.arguments or [])


def assert_compiles(path: Path) -> None:
    done = subprocess.run(
        ["nvcc", "-std=c++17", "-c", path.name, "-o", f"{path.stem}.o"],
        cwd=path.parent,
        capture_output=True,
        text=True,
        check=False,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr


def created_text(edit: types.WorkspaceEdit) -> str:
    """The text of the ``.regrapht.cu`` file the edit creates."""
    create, filled, _ = edit.document_changes or []
    assert isinstance(create, types.CreateFile) and isinstance(filled, types.TextDocumentEdit)
    (whole,) = filled.edits
    assert isinstance(whole, types.AnnotatedTextEdit)
    return whole.new_text


def assert_only_the_second_loop_is_mapped(cuda: str) -> None:
    assert cuda.count("__global__") == 1 and "z[i] = x[i] + 1.0f;" in cuda
    host = cuda[cuda.index("void two_loops(") :]
    assert "for (int i = 0; i < n; ++i) {\n    y[i] = 2.0f * x[i];\n  }" in host
    assert host.endswith("\nint main() { return 0; }\n"), "the rest of the file is kept"


async def test_the_action_on_a_loop_optimizes_that_loop_alone(
    client: LanguageClient, editor: Editor, tmp_path: Path
) -> None:
    source = tmp_path / "loops.cpp"
    source.write_text(TWO_LOOPS)
    uri = open_file(client, source, "cpp")
    configure(client, budget=2, useModel=False, allowUnverified=True)
    arguments = await action_arguments(client, uri, line_of(source, "z[i] = x[i]"))
    assert (await run(client, arguments))["status"] == "applied"
    (params,) = editor.edits
    assert_only_the_second_loop_is_mapped(created_text(params.edit))
    apply_to_disk(params.edit)
    assert_compiles(tmp_path / "loops.regrapht.cu")


async def test_a_rerun_optimizes_the_same_loop(
    client: LanguageClient, editor: Editor, tmp_path: Path
) -> None:
    source = tmp_path / "loops.cpp"
    source.write_text(TWO_LOOPS)
    uri = open_file(client, source, "cpp")
    configure(client, budget=2, useModel=False, allowUnverified=True)
    editor.choose = "Re-run"
    arguments = await action_arguments(client, uri, line_of(source, "z[i] = x[i]"))
    running = asyncio.ensure_future(run(client, arguments))
    await asyncio.sleep(0)  # the server takes the function as it is now, before the edit
    edited = TWO_LOOPS.replace("  for (int i = 0;", "  // first\n  for (int i = 0;", 1)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [types.TextDocumentContentChangeWholeDocument(edited)],
        )
    )
    assert (await running)["status"] == "stale"
    await wait_for(lambda: len(editor.edits) == 1, timeout=120)
    assert_only_the_second_loop_is_mapped(created_text(editor.edits[0].edit))


async def test_a_kernel_is_replaced_in_place_and_its_launcher_kept(
    client: LanguageClient, editor: Editor, tmp_path: Path
) -> None:
    source = tmp_path / "launch.cu"
    source.write_text(LAUNCHED)
    uri = open_file(client, source, "cuda-cpp")
    configure(client, budget=3, useModel=False, allowUnverified=True)
    arguments = await action_arguments(client, uri, line_of(source, "if (i < n)"))
    assert (await run(client, arguments))["status"] == "applied"
    (params,) = editor.edits
    apply_to_disk(params.edit)
    text = source.read_text()
    assert text.startswith(LAUNCHED[: LAUNCHED.index("__global__")])
    assert text.count("__global__ void saxpy_kernel(") == 1
    assert text.index("// ReGraphT: compiled only") < text.index("__global__ void saxpy_kernel(")
    assert text.endswith(LAUNCHED[LAUNCHED.index("\nvoid saxpy(") :])
    assert_compiles(source)
