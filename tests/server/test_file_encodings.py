"""Files the server reads from disk, in any encoding, through the real server over stdio.

A C/C++ document's ``.regrapht.cu`` is read from disk when it is not open: for the hover on
the pointer comment, and to merge a new result into it. Latin-1, Windows-1252 and UTF-16
with a byte-order mark are read as the text they are; a file that is no text (binary) is a
message naming it. Every request gets its answer and nothing is logged as a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import gpu_present

from .stdio import EXIT, RawServer, frame, notification, request
from .test_documents import LOOP, POINTER
from .test_server import OPTIMIZED

SIDECARS = {
    "latin-1": ("// caf\u00e9\n" + OPTIMIZED).encode("latin-1"),
    "windows-1252": ("// caf\u00e9 \u20ac\n" + OPTIMIZED).encode("cp1252"),
    "utf-16": ("// caf\u00e9\n" + OPTIMIZED).encode("utf-16"),
    "binary": bytes(range(256)) * 16,
}
OPTIONS = {"regrapht": {"budget": 1, "useModel": False, "allowUnverified": True}}


async def started(folder: Path) -> RawServer:
    server = await RawServer.start(("-m", "regrapht_server", "--log-level", "INFO"))
    params = {
        "capabilities": {},
        "processId": None,
        "rootUri": folder.as_uri(),
        "initializationOptions": OPTIONS,
    }
    await server.send(frame(request(1, "initialize", params)))
    assert "result" in await server.answer(1)
    await server.send(frame(notification("initialized", {})))
    return server


async def opened(server: RawServer, path: Path) -> str:
    item = {"uri": path.as_uri(), "languageId": "cpp", "version": 1, "text": path.read_text()}
    await server.send(frame(notification("textDocument/didOpen", {"textDocument": item})))
    return path.as_uri()


async def hover(server: RawServer, ident: int, uri: str) -> Any:
    params = {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 10}}
    await server.send(frame(request(ident, "textDocument/hover", params)))
    answer = await server.answer(ident)
    assert "error" not in answer, answer
    return answer["result"]


async def ended_cleanly(server: RawServer) -> None:
    await server.send(frame(request(99, "shutdown")))
    await server.answer(99)
    await server.send(frame(EXIT))
    ended = await server.ended()
    assert ended.code == 0
    assert b"Traceback" not in ended.stderr and b" ERROR " not in ended.stderr, ended.stderr


async def test_the_cuda_file_beside_is_read_in_any_encoding(tmp_path: Path) -> None:
    server = await started(tmp_path)
    try:
        for ident, (kind, data) in enumerate(SIDECARS.items(), start=10):
            (tmp_path / f"{kind}.regrapht.cu").write_bytes(data)
            source = tmp_path / f"{kind}.cpp"
            source.write_text(POINTER.format(f"{kind}.regrapht.cu") + LOOP.format("scale", 2))
            shown = (await hover(server, ident, await opened(server, source)))["contents"]
            if kind == "binary":
                assert f"`{kind}.regrapht.cu`, which cannot be read: " in shown["value"]
                assert "contains NUL bytes" in shown["value"]
            else:
                assert "Shared-memory tiling" in shown["value"], kind
        await ended_cleanly(server)
    finally:
        await server.stop()


@pytest.mark.skipif(gpu_present(), reason="expects the compile-only path of a GPU-less machine")
async def test_a_result_for_a_file_beside_that_is_no_text_is_a_message(tmp_path: Path) -> None:
    """The job's result would be merged into ``scale.regrapht.cu``; that file is binary, so
    the job says so, names it, and changes nothing (no edit creates it over the top)."""
    cuda = tmp_path / "scale.regrapht.cu"
    cuda.write_bytes(SIDECARS["binary"])
    source = tmp_path / "scale.cpp"
    source.write_text("// regrapht: n = 1<<10; v[n] inout\n" + LOOP.format("scale", 2) + "\n")
    server = await started(tmp_path)
    try:
        uri = await opened(server, source)
        target = {"uri": uri, "function": "scale"}
        command = {"command": "regrapht.optimize", "arguments": [target]}
        await server.send(frame(request(20, "workspace/executeCommand", command)))
        answer = await server.answer(20)
        assert answer["result"]["status"] == "failed", answer
        shown = [
            m["params"]["message"]
            for m in server.received
            if m.get("method") == "window/showMessage"
        ]
        assert any(f"{cuda}: contains NUL bytes" in message for message in shown), shown
        assert not [m for m in server.received if m.get("method") == "workspace/applyEdit"]
        assert cuda.read_bytes() == SIDECARS["binary"]
        await ended_cleanly(server)
    finally:
        await server.stop()
