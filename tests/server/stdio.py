"""A server subprocess driven byte by byte: what arrives on stdout, how it ends, what it
logged. pytest-lsp cannot send a malformed frame; these tests must."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

TIMEOUT_S = 30.0


def frame(message: object, *, header: bytes = b"Content-Length: %d", eol: bytes = b"\r\n") -> bytes:
    """A frame of ``message`` (JSON, or raw bytes); a ``%d`` in ``header`` is the body's length."""
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    line = header % len(body) if b"%d" in header else header
    return line + eol + eol + body


def request(ident: int | str, method: str, params: object = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}


def notification(method: str, params: object = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


INITIALIZE = request(7, "initialize", {"capabilities": {}, "processId": None})
EXIT = notification("exit")


@dataclass
class Ended:
    code: int
    stderr: bytes
    seconds: float
    """From the call to :meth:`RawServer.ended` until the process was gone."""


class RawServer:
    """``python -m regrapht_server`` (or ``-c script``) with raw pipes; stderr is drained
    all along, so a server that logs megabytes cannot block on it."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.stderr = bytearray()
        self._drain = asyncio.ensure_future(self._read_stderr())
        self.received: list[dict[str, Any]] = []

    @classmethod
    async def start(cls, args: Sequence[str] = ("-m", "regrapht_server")) -> RawServer:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        return cls(process)

    async def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        while chunk := await self.process.stderr.read(65536):
            self.stderr += chunk

    async def send(self, *data: bytes) -> None:
        assert self.process.stdin is not None
        for piece in data:
            self.process.stdin.write(piece)
            await self.process.stdin.drain()

    async def read(self) -> dict[str, Any]:
        """The next message from the server (its own framing is assumed correct)."""
        assert self.process.stdout is not None
        async with asyncio.timeout(TIMEOUT_S):
            length = None
            while (line := await self.process.stdout.readline()).strip():
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            assert length is not None, "the server closed its output"
            message: dict[str, Any] = json.loads(await self.process.stdout.readexactly(length))
        self.received.append(message)
        return message

    async def answer(self, ident: int | str | None) -> dict[str, Any]:
        """The response with this id (``None``: an error answered with ``"id": null``)."""
        while True:
            message = await self.read()
            if "method" not in message and message.get("id", 0) == ident:
                return message

    async def initialize(self) -> None:
        await self.send(frame(INITIALIZE))
        assert "result" in await self.answer(7)
        await self.send(frame(notification("initialized", {})))

    async def ended(self, *, close_stdin: bool = False) -> Ended:
        start = time.monotonic()
        if close_stdin:
            assert self.process.stdin is not None
            self.process.stdin.close()
        try:
            async with asyncio.timeout(TIMEOUT_S):
                code = await self.process.wait()
        finally:
            if self.process.returncode is None:
                self.process.kill()
                await self.process.wait()
        seconds = time.monotonic() - start
        await self._drain
        return Ended(code, bytes(self.stderr), seconds)

    async def stop(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()
        await self._drain
