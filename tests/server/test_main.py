"""``python -m regrapht_server``: stdout is JSON-RPC only; TCP and a log file for debugging."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient

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
