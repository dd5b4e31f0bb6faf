"""The LSP base protocol's framing, read so that no input can make the server deaf.

pygls 2.1.1 reads a header line by line, accepts only ``Content-Length: N\\r\\n`` spelt
exactly so, and loses its place for good after one frame it does not expect. Here a frame
is ``header-name: value`` lines (names case-insensitive, ``\\r\\n`` or bare ``\\n``), an
empty line, and a body of exactly ``Content-Length`` bytes: that header is required and a
non-negative integer, ``Content-Type`` and unknown headers are ignored (bodies are UTF-8).

After anything else the reader **resynchronizes**: it reports one problem and skips to the
next ``Content-Length:`` in the input, wherever it is (a body without a newline runs into
the next header, as in the issue's repro). A body shorter than its header claims would
swallow the frames behind it; a JSON body can never contain ``Content-Length: N`` followed
by a raw line break (raw control characters are not allowed inside JSON strings and the
name is no JSON token), so a body that does is cut short, and reading resumes at that
header. A frame over :data:`MAX_MESSAGE_BYTES` is read past in chunks, never held whole.

:class:`FrameParser` is pure (bytes in, frames and problems out) so that it can be fuzzed
in-process; :func:`serve` feeds it from a byte stream and hands bodies to an
:class:`Endpoint`; :func:`run_stdio` and :func:`run_tcp` run that until the client exits
or goes away, and answer the process's exit code.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import threading
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from enum import Enum, auto
from typing import Any, BinaryIO, Protocol

__all__ = [
    "CHUNK_BYTES",
    "MAX_HEADER_BYTES",
    "MAX_MESSAGE_BYTES",
    "Channel",
    "Endpoint",
    "Frame",
    "FrameParser",
    "Problem",
    "run_stdio",
    "run_tcp",
    "serve",
]

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""The largest body the server reads (64 MiB): a 20 MB source file fits three times."""
MAX_HEADER_BYTES = 8 * 1024
"""The largest header part of a frame; real ones are under 100 bytes."""
CHUNK_BYTES = 64 * 1024
"""How much is read from the client at a time (and all an oversized frame ever holds)."""
UNWIND_S = 0.3
"""How long tasks still running at exit get to unwind after they are cancelled."""

_TOKEN = rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_HEADER_LINE = re.compile(rb"(" + _TOKEN + rb")[ \t]*:[ \t]*(.*?)[ \t]*")
_LENGTH = re.compile(rb"[0-9]{1,19}")
_NAME = re.compile(rb"content-length[ \t]{0,16}:", re.IGNORECASE)
_NAME_TAIL = 14 + 16
"""Bytes kept while resynchronizing: a ``Content-Length:`` may straddle two chunks."""
_HEADER_ENDING = re.compile(
    rb"content-length[ \t]{0,16}:[ \t]{0,16}[0-9]{1,19}[ \t]{0,16}\r?\n\Z", re.IGNORECASE
)
_HEADER_WINDOW = 96
"""Longer than any match of ``_HEADER_ENDING``."""


@dataclass(frozen=True, slots=True)
class Frame:
    body: bytes


@dataclass(frozen=True, slots=True)
class Problem:
    """Input that is no frame; reading goes on at the next ``Content-Length:``."""

    reason: str
    level: int = logging.WARNING


class _State(Enum):
    HEADERS = auto()
    SEEKING = auto()
    """Resynchronizing: looking for the next ``Content-Length:``."""
    BODY = auto()
    SKIPPING = auto()
    """Reading past an oversized body."""


class FrameParser:
    """Bytes in, :class:`Frame` and :class:`Problem` out; holds at most one body (capped)."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._state = _State.HEADERS
        self._cursor = 0
        """Where the next header line starts; the header part starts at 0."""
        self._length: int | None = None
        self._scanned = 0
        """Body bytes already searched for a header."""
        self._remaining = 0
        """Bytes of an oversized body still to skip."""
        self._tail = b""
        """The last bytes skipped of an oversized body: a header may start in them."""

    @property
    def held(self) -> int:
        """Bytes held between calls (bounded by the body cap plus one chunk)."""
        return len(self._buffer) + len(self._tail)

    def feed(self, data: bytes) -> list[Frame | Problem]:
        self._buffer += data
        events: list[Frame | Problem] = []
        while self._step(events):
            pass
        return events

    def _step(self, events: list[Frame | Problem]) -> bool:
        """One move of the state machine; ``False`` when it needs more input."""
        if self._state is _State.HEADERS:
            return self._header_line(events)
        if self._state is _State.SEEKING:
            return self._seek()
        if self._state is _State.BODY:
            return self._body(events)
        return self._skip(events)

    def _header_line(self, events: list[Frame | Problem]) -> bool:
        end = self._buffer.find(b"\n", self._cursor)
        start = self._cursor
        if end < 0 or end > MAX_HEADER_BYTES:
            if len(self._buffer) > MAX_HEADER_BYTES:
                return self._resync(events, f"no frame header in {MAX_HEADER_BYTES} bytes", start)
            return False
        line = bytes(self._buffer[start:end]).rstrip(b"\r")
        self._cursor = end + 1
        if not line.strip(b" \t"):
            return self._header_end(events, start)
        match = _HEADER_LINE.fullmatch(line)
        if match is None:
            return self._resync(events, f"not a frame header: {_show(line)}", start)
        if match[1].lower() == b"content-length":
            value = match[2]
            if _LENGTH.fullmatch(value) is None:
                why = f"Content-Length {_show(value)} is not a non-negative integer"
                return self._resync(events, why, start)
            if self._length not in (None, int(value)):
                # The later one is nearer the body; what came before it was no frame.
                events.append(Problem("two different Content-Length headers"))
                self._drop(start)
                self._length = None
                return True
            self._length = int(value)
        return True

    def _header_end(self, events: list[Frame | Problem], start: int) -> bool:
        if start == 0:  # a blank line between frames
            self._drop(self._cursor)
            return True
        if self._length is None:
            # From the top: garbage glued to the header may have hidden it (``*Content-Length``).
            return self._resync(events, "a frame without Content-Length", 0)
        length, self._length = self._length, None
        self._drop(self._cursor)
        if length > MAX_MESSAGE_BYTES:
            events.append(
                Problem(
                    f"a message of {length} bytes is over the limit of {MAX_MESSAGE_BYTES}"
                    " bytes: skipped",
                    logging.ERROR,
                )
            )
            self._state, self._remaining, self._tail = _State.SKIPPING, length, b""
        else:
            self._state, self._scanned = _State.BODY, 0
            self._length = length
        return True

    def _body(self, events: list[Frame | Problem]) -> bool:
        assert self._length is not None
        end = min(len(self._buffer), self._length)
        header = _header_inside(self._buffer, self._scanned, end)
        if header is not None:
            self._drop(header)
            return self._cut_short(events)
        self._scanned = end
        if end < self._length:
            return False
        events.append(Frame(bytes(self._buffer[:end])))
        self._drop(end)
        self._state, self._length = _State.HEADERS, None
        return True

    def _skip(self, events: list[Frame | Problem]) -> bool:
        taken = min(len(self._buffer), self._remaining)
        if taken == 0:
            return False
        region = self._tail + bytes(self._buffer[:taken])
        header = _header_inside(region, len(self._tail), len(region))
        if header is not None:
            del self._buffer[:taken]
            self._buffer[0:0] = region[header:]
            self._tail = b""
            return self._cut_short(events)
        del self._buffer[:taken]
        self._remaining -= taken
        self._tail = region[-_HEADER_WINDOW:]
        if self._remaining == 0:
            self._state, self._tail = _State.HEADERS, b""
        return True

    def _cut_short(self, events: list[Frame | Problem]) -> bool:
        """A frame header inside a body: the body was shorter than its Content-Length."""
        events.append(Problem("a body shorter than its Content-Length: skipped"))
        self._state, self._length, self._cursor = _State.HEADERS, None, 0
        return True

    def _resync(self, events: list[Frame | Problem], reason: str, line: int) -> bool:
        """Seek from just after the start of the offending ``line`` (the next frame may
        begin inside it, after a body that had no line break)."""
        events.append(Problem(reason))
        self._drop(line + 1)
        self._state, self._length = _State.SEEKING, None
        return True

    def _seek(self) -> bool:
        match = _NAME.search(self._buffer)
        if match is None:
            self._drop(max(0, len(self._buffer) - _NAME_TAIL))
            return False
        self._drop(match.start())
        self._state = _State.HEADERS
        return True

    def _drop(self, count: int) -> None:
        del self._buffer[:count]
        self._cursor = 0


def _header_inside(data: bytes | bytearray, start: int, end: int) -> int | None:
    """Where a frame header that ends in ``data[start:end]`` begins; only raw line breaks
    are looked at, so a compact JSON body costs one ``find``."""
    newline = data.find(b"\n", start, end)
    while newline >= 0:
        match = _HEADER_ENDING.search(data, max(0, newline - _HEADER_WINDOW), newline + 1)
        if match is not None:
            return match.start()
        newline = data.find(b"\n", newline + 1, end)
    return None


def _show(data: bytes) -> str:
    return repr(data[:40]) + ("…" if len(data) > 40 else "")


class Channel:
    """The way to the client. Once closed, or once the client is gone, writes are dropped
    quietly: a job's last progress report after ``exit`` must not raise, and its error
    report must not be written to the same closed stream again (finding 6 of #15)."""

    def __init__(self, write: Callable[[bytes], object], close: Callable[[], object]) -> None:
        self._write = write
        self._close = close
        self.closed = False

    @classmethod
    def of_stream(cls, stream: BinaryIO) -> Channel:
        def write(data: bytes) -> None:
            stream.write(data)
            stream.flush()

        return cls(write, stream.close)

    def write(self, data: bytes) -> None:
        if self.closed:
            log.debug("dropped %d bytes for a closed channel", len(data))
            return
        try:
            self._write(data)
        except (OSError, ValueError) as err:
            log.warning("the client is gone (%s): nothing more is sent", err)
            self.close()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            self._close()
        except (OSError, ValueError) as err:
            log.debug("closing the channel: %s", err)


class Endpoint(Protocol):
    """What :func:`serve` drives: the JSON-RPC side of the server."""

    @property
    def exit_code(self) -> int | None:
        """Set once the client has said ``exit`` (0 after ``shutdown``, else 1)."""

    def connect(self, channel: Channel) -> None: ...

    def receive(self, body: bytes) -> None: ...

    def disconnected(self) -> None:
        """The client closed its side: act as on ``exit``, so that ``exit_code`` is set."""


async def serve(endpoint: Endpoint, chunks: AsyncIterator[bytes]) -> int:
    """Deliver the frames in ``chunks`` until ``exit`` or the end of input; the exit code."""
    parser = FrameParser()
    async for chunk in chunks:
        for event in parser.feed(chunk):
            if isinstance(event, Problem):
                log.log(event.level, "skipped input from the client: %s", event.reason)
            else:
                try:
                    endpoint.receive(event.body)
                except Exception:  # a bug in one handler must not end the session
                    log.exception("a message from the client could not be handled")
                # A handler that is a coroutine starts now, before the next message: it
                # sees the documents as they were when its request came (as with pygls).
                await asyncio.sleep(0)
            if endpoint.exit_code is not None:
                return endpoint.exit_code
        await asyncio.sleep(0)  # input that is all garbage must not starve the handlers
    endpoint.disconnected()
    return 1 if endpoint.exit_code is None else endpoint.exit_code


async def _descriptor_chunks(fd: int) -> AsyncIterator[bytes]:
    """Chunks read from ``fd`` by a daemon thread (stdin may be a pipe, a file or a tty,
    which the event loop cannot all watch); a short queue bounds what is read ahead."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[bytes] = asyncio.Queue(maxsize=4)

    def pump() -> None:
        while True:
            try:
                chunk = os.read(fd, CHUNK_BYTES)
            except OSError:
                chunk = b""
            try:
                asyncio.run_coroutine_threadsafe(queue.put(chunk), loop).result()
            except (RuntimeError, asyncio.CancelledError):  # the loop is gone
                return
            if not chunk:
                return

    threading.Thread(target=pump, name="regrapht-stdin", daemon=True).start()
    while chunk := await queue.get():
        yield chunk


async def _stream_chunks(reader: asyncio.StreamReader) -> AsyncIterator[bytes]:
    while chunk := await reader.read(CHUNK_BYTES):
        yield chunk


def _run(main: Coroutine[Any, Any, int]) -> int:
    """Run the session; at its end, cancel what is left and give it a moment to unwind.
    Unlike ``asyncio.run``, never wait for executor threads: one may be compiling."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        return loop.run_until_complete(main)
    finally:
        left = asyncio.all_tasks(loop)
        for task in left:
            task.cancel()
        if left:
            loop.run_until_complete(asyncio.wait(left, timeout=UNWIND_S))
        loop.run_until_complete(loop.shutdown_asyncgens())
        asyncio.set_event_loop(None)
        loop.close()


def run_stdio(endpoint: Endpoint, stdin_fd: int, stdout: BinaryIO) -> int:
    endpoint.connect(Channel.of_stream(stdout))
    return _run(serve(endpoint, _descriptor_chunks(stdin_fd)))


def run_tcp(endpoint: Endpoint, host: str, port: int) -> int:
    """Serve the first client that connects (a debugging aid); later ones are turned away."""

    async def main() -> int:
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        taken = False

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            nonlocal taken
            if taken:
                writer.close()
                return
            taken = True
            endpoint.connect(Channel(writer.write, writer.close))
            done.set_result(await serve(endpoint, _stream_chunks(reader)))

        server = await asyncio.start_server(connection, host, port)
        async with server:
            return await done

    return _run(main())
