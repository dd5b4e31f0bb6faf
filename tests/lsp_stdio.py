"""Start a language server command, ask ``initialize`` over stdio, shut it down.

Raw framing on purpose: the installed-wheel test runs a server from another environment,
where the test's own pygls client is not the code under test.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

__all__ = ["lsp_initialize"]


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body


def _read(stream: BinaryIO) -> dict[str, Any]:
    length = 0
    while (line := stream.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode("ascii").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    answer: dict[str, Any] = json.loads(stream.read(length))
    return answer


def lsp_initialize(
    command: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 120,
) -> dict[str, Any]:
    """The server's answer to ``initialize``; the server is shut down and has exited."""
    server = subprocess.Popen(
        list(command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=None if env is None else dict(env),
        cwd=cwd,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        params = {"processId": None, "rootUri": None, "capabilities": {}}
        server.stdin.write(
            _frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
        )
        server.stdin.flush()
        answer = _read(server.stdout)
        server.stdin.write(_frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        server.stdin.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
        server.stdin.close()
        server.wait(timeout=timeout)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        server.stdout.close()
    return answer
