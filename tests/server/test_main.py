"""``python -m regrapht_server``: stdout is JSON-RPC only; TCP and a log file for debugging;
how the process ends."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient

from .conftest import EXAMPLE
from .stdio import EXIT, RawServer, frame, notification, request

STRAY = """
import os
from regrapht_server.__main__ import _private_stdout
channel = _private_stdout()
print("a stray print", flush=True)
os.write(1, b"a native library writing to fd 1")
channel.write(b"json-rpc")
channel.flush()
"""


def test_only_the_channel_reaches_stdout() -> None:
    done = subprocess.run(
        [sys.executable, "-c", STRAY], capture_output=True, check=True, timeout=60
    )
    assert done.stdout == b"json-rpc"
    assert b"a stray print" in done.stderr and b"a native library" in done.stderr


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.mark.slow
async def test_tcp_serves_a_session_and_logs_to_the_file(tmp_path: Path) -> None:
    port, log = free_port(), tmp_path / "server.log"
    command = [sys.executable, "-m", "regrapht_server", "--tcp", "--port", str(port)]
    server = await asyncio.create_subprocess_exec(
        *command, "--log-file", str(log), "--log-level", "INFO"
    )
    client = LanguageClient("test", "1")
    try:
        async with asyncio.timeout(60):
            while True:
                try:
                    await client.start_tcp("127.0.0.1", port)
                    break
                except OSError:
                    await asyncio.sleep(0.2)
            result = await client.initialize_async(
                types.InitializeParams(capabilities=types.ClientCapabilities())
            )
            assert result.server_info is not None and result.server_info.name == "regrapht"
            await client.shutdown_async(None)
            client.exit(None)
            await server.wait()
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()
        await client.stop()
    assert "ReGraphT language server" in log.read_text()
    assert f"on tcp 127.0.0.1:{port}" in log.read_text()


STUBBORN = """
import time
from regrapht_core.contracts.proposal import SearchProgress
from regrapht_server.jobs import Engine

class Stubborn:
    '''A candidate that compiles for 20 s without looking at the cancel, reporting all along.'''
    gpu = False
    def run(self, task, *, progress_fn=None, cancel=None):
        end = time.monotonic() + 20
        while time.monotonic() < end:
            progress_fn(SearchProgress(1, 3, "parallelization", None))
            time.sleep(0.002)
        raise RuntimeError("the search outlived the session")

Engine._build_optimizer = lambda self, settings: Stubborn()
from regrapht_server.__main__ import main
main()
"""


async def running_job(server: RawServer) -> None:
    """Initialize, open the example, start a job and wait until it reports progress."""
    await server.initialize()
    uri = EXAMPLE.as_uri()
    item = {"uri": uri, "languageId": "cpp", "version": 1, "text": EXAMPLE.read_text()}
    await server.send(frame(notification("textDocument/didOpen", {"textDocument": item})))
    target = {"uri": uri, "function": "smooth"}
    params = {"command": "regrapht.optimize", "arguments": [target]}
    await server.send(frame(request(2, "workspace/executeCommand", params)))
    while True:
        message = await server.read()
        if message.get("method") == "regrapht/jobProgress" and message["params"]["technique"]:
            return


@pytest.mark.parametrize("how", ["exit", "closed stdin"])
async def test_leaving_without_shutdown_during_a_job_is_prompt_and_quiet(how: str) -> None:
    """Finding 6 of #15: ``exit`` without ``shutdown`` during a job took 20-33 s and wrote
    ~37,000 tracebacks (writes to the closed stream, each reported by another write).
    Now: under a second, nothing on stderr, and exit code 1 (no ``shutdown`` came)."""
    server = await RawServer.start(("-c", STUBBORN))
    try:
        await running_job(server)
        if how == "exit":
            await server.send(frame(EXIT))
        ended = await server.ended(close_stdin=how == "closed stdin")
    finally:
        await server.stop()
    assert ended.code == 1
    assert ended.seconds < 1.0, ended.seconds
    assert b"Traceback" not in ended.stderr and len(ended.stderr) < 1000, ended.stderr[:2000]


async def test_shutdown_then_exit_leaves_with_code_0_at_once() -> None:
    """The other half of finding 6 of #15: 0 after ``shutdown`` (the LSP specification),
    with nothing on stderr."""
    server = await RawServer.start()
    try:
        await server.initialize()
        await server.send(frame(request(8, "shutdown")))
        assert (await server.answer(8))["result"] is None
        await server.send(frame(EXIT))
        ended = await server.ended()
    finally:
        await server.stop()
    assert ended.code == 0 and ended.seconds < 1.0
    assert ended.stderr == b""
