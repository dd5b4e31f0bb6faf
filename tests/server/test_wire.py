"""The framing: no header, body or size makes the server deaf (findings 1 and 2 of #15)."""

from __future__ import annotations

import json
import logging
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from regrapht_server.wire import (
    CHUNK_BYTES,
    MAX_HEADER_BYTES,
    MAX_MESSAGE_BYTES,
    Channel,
    Frame,
    FrameParser,
    Problem,
)

from .stdio import EXIT, INITIALIZE, RawServer, frame, request

BODY = b'{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}'


def parse(*pieces: bytes) -> list[Frame | Problem]:
    parser = FrameParser()
    return [event for piece in pieces for event in parser.feed(piece)]


def frames(events: list[Frame | Problem]) -> list[bytes]:
    return [event.body for event in events if isinstance(event, Frame)]


def problems(events: list[Frame | Problem]) -> list[str]:
    return [event.reason for event in events if isinstance(event, Problem)]


@pytest.mark.parametrize(
    "header",
    [
        b"Content-Length: %d\r\n\r\n",
        b"content-length: %d\r\n\r\n",
        b"CONTENT-LENGTH:%d  \r\n\r\n",
        b"Content-Length: %d\n\n",
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n",
        b"Content-Length: %d\r\nX-Unknown: yes\r\n\r\n",
        b"\r\n\r\nContent-Length: %d\r\n\r\n",
    ],
)
def test_frames_in_the_spellings_the_base_protocol_allows(header: bytes) -> None:
    """Finding 1 of #15: pygls took only ``Content-Length: N\\r\\n`` spelt exactly so."""
    events = parse(header % len(BODY) + BODY)
    assert events == [Frame(BODY)]


def test_any_split_into_chunks_reads_the_same() -> None:
    stream = frame(json.loads(BODY)) + b"Content-Length: abc\r\n\r\n{}" + frame(json.loads(BODY))
    whole = parse(stream)
    assert frames(whole) == [BODY, BODY] and len(problems(whole)) == 1
    for cut in range(1, len(stream)):
        assert parse(stream[:cut], stream[cut:]) == whole
    assert parse(*(stream[i : i + 1] for i in range(len(stream)))) == whole


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (b"Content-Length: abc\r\n\r\n{}", "not a non-negative integer"),
        (b"Content-Length: -5\r\n\r\n{}", "not a non-negative integer"),
        (b"Content-Length: 99999999999999999999999\r\n\r\n{}", "not a non-negative integer"),
        (b"Content-Type: text/plain\r\n\r\n{}", "without Content-Length"),
        (b"Content-Length: 2\r\n", "two different"),
        (b"{}", "not a frame header"),
        (b"GET / HTTP/1.1\r\n", "not a frame header"),
        (b"Content-Length: 200\r\n\r\n{}", "shorter than its Content-Length"),
    ],
)
def test_a_bad_frame_is_reported_once_and_the_next_one_read(bad: bytes, reason: str) -> None:
    """Finding 1 of #15: after one of these pygls read nothing ever again."""
    events = parse(bad + frame(json.loads(BODY)))
    assert frames(events) == [BODY]
    (problem,) = problems(events)
    assert reason in problem


def test_a_body_shorter_than_claimed_gives_a_frame_and_resynchronizes() -> None:
    events = parse(b"Content-Length: 5\r\n\r\n" + BODY + frame(json.loads(BODY)))
    assert frames(events) == [BODY[:5], BODY]  # the first is no JSON: rpc answers ParseError
    assert len(problems(events)) == 1


def test_headers_without_an_end_are_given_up_after_the_cap() -> None:
    parser = FrameParser()
    events = parser.feed(b"X-Long: " + b"a" * (2 * MAX_HEADER_BYTES))
    assert problems(events) and parser.held < 64
    assert frames(parser.feed(frame(json.loads(BODY)))) == [BODY]


def test_an_oversized_body_is_skipped_in_chunks_never_held() -> None:
    """Finding 2 of #15: ``Content-Length: 1099511627776`` was a MemoryError and an exit."""
    parser = FrameParser()
    length = MAX_MESSAGE_BYTES + 1
    events = parser.feed(b"Content-Length: %d\r\n\r\n" % length)
    (problem,) = [e for e in events if isinstance(e, Problem)]
    assert problem.level == logging.ERROR and "over the limit" in problem.reason
    chunk = b"x" * CHUNK_BYTES
    sent = 0
    while sent + len(chunk) <= length:
        assert parser.feed(chunk) == []
        assert parser.held <= 256
        sent += len(chunk)
    assert frames(parser.feed(b"x" * (length - sent) + frame(json.loads(BODY)))) == [BODY]


def test_an_oversized_claim_followed_by_real_frames_resynchronizes() -> None:
    events = parse(b"Content-Length: 1099511627776\r\n\r\n{}", frame(json.loads(BODY)))
    assert frames(events) == [BODY]
    assert len(problems(events)) == 2  # over the limit; then cut short by a header


def test_a_header_shaped_text_inside_a_json_string_is_no_header() -> None:
    """Raw line breaks cannot occur in JSON strings: escaped ones do not cut a body short."""
    body = json.dumps({"text": "Content-Length: 12\r\n\r\n{}"}).encode()
    pretty = json.dumps({"a": 1, "b": [1, 2]}, indent=2).encode()
    assert frames(parse(frame(body), frame(pretty))) == [body, pretty]


# -- fuzz --------------------------------------------------------------------------------

_valid = st.builds(
    lambda ident, text: json.dumps(
        {"jsonrpc": "2.0", "id": ident, "method": "m", "params": {"t": text}}
    ).encode(),
    st.integers(0, 10**9),
    st.text(max_size=50),
)
_header = st.builds(
    lambda name, before, after, eol: (name + b":" + before + b"%d" + after, eol),
    st.sampled_from([b"Content-Length", b"content-length", b"CONTENT-length", b"cOnTeNt-LeNgTh"]),
    st.sampled_from([b"", b" ", b"  ", b"\t"]),
    st.sampled_from([b"", b" ", b"\t "]),
    st.sampled_from([b"\r\n", b"\n"]),
)
_garbage = st.one_of(
    st.binary(max_size=80),
    st.sampled_from(
        [
            b"Content-Length: abc\r\n",
            b"Content-Length: -1\r\n",
            b"content-length: 1e3\n",
            b"Content-Length:",
            b"Content-Type: x\r\n",
            b"{}",
            b"Content-Length: 1099511627776\r\n",
            b"\x00\xff\r\n",
        ]
    ),
).filter(lambda g: b"\n\n" not in g and b"\n\r\n" not in g)
"""Anything but a complete header block (which would rightly take bytes of the next frame)."""


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(_garbage, _header, _valid), min_size=1, max_size=6),
    st.lists(st.integers(1, 97), min_size=1, max_size=20),
)
def test_fuzz_every_frame_after_garbage_is_delivered(
    parts: list[tuple[bytes, tuple[bytes, bytes], bytes]], cuts: list[int]
) -> None:
    """Random header spellings, garbage between frames, random chunking: never raises,
    delivers every well-formed frame in order, holds little more than one frame."""
    stream = b"".join(
        garbage + header % len(body) + eol + eol + body for garbage, (header, eol), body in parts
    )
    parser, delivered, at, sizes = FrameParser(), [], 0, iter(cuts * len(stream))
    while at < len(stream):
        size = next(sizes)
        delivered += frames(parser.feed(stream[at : at + size]))
        at += size
        assert parser.held <= MAX_HEADER_BYTES + 200 + size
    assert delivered[-len(parts) :] == [body for _, _, body in parts]
    assert all(body in delivered for _, _, body in parts)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000), st.integers(1, 64))
def test_fuzz_arbitrary_bytes_never_raise(data: bytes, size: int) -> None:
    parser = FrameParser()
    for at in range(0, len(data), size):
        parser.feed(data[at : at + size])
        assert parser.held <= MAX_HEADER_BYTES + 2000


# -- the real process ----------------------------------------------------------------------

HOVER = request(1, "textDocument/hover", {})


@pytest.mark.parametrize(
    "before",
    [
        b"Content-Length: abc\r\n\r\n{}",
        b"Content-Length: -5\r\n\r\n{}",
        frame(HOVER, header=b"Content-Length: 10"),
        frame(HOVER, header=b"Content-Length: 400"),
        frame(HOVER, header=b"Content-Type: application/vscode-jsonrpc"),
        frame(HOVER, header=b"content-length: %d"),
        frame(HOVER, eol=b"\n"),
        b"Content-Length: 1099511627776\r\n\r\n{}",
    ],
    ids=["non-numeric", "negative", "short", "long", "none", "lower-case", "LF", "1 TiB"],
)
async def test_one_bad_frame_does_not_make_the_server_deaf(before: bytes) -> None:
    """Findings 1 and 2 of #15: the issue's repro (and the others) printed nothing; a
    1 TiB length was a MemoryError. Valid spellings are read; the rest skipped, logged."""
    server = await RawServer.start()
    try:
        await server.send(before, frame(INITIALIZE))
        assert "capabilities" in (await server.answer(7))["result"]
        if before in (frame(HOVER, header=b"content-length: %d"), frame(HOVER, eol=b"\n")):
            (early,) = [m for m in server.received if m.get("id") == 1]
            assert early["error"]["code"] == -32002  # read: it came before initialize
        await server.send(frame(request(8, "shutdown")), frame(EXIT))
        ended = await server.ended()
    finally:
        await server.stop()
    assert ended.code == 0
    assert b"Traceback" not in ended.stderr


async def test_a_real_oversized_message_is_read_past_and_the_server_carries_on() -> None:
    """Finding 2 of #15: the body (64 MiB + 1) is never held whole; the next is answered."""
    server = await RawServer.start()
    try:
        body = b'{"jsonrpc": "2.0", "method": "x", "params": "' + b"a" * MAX_MESSAGE_BYTES + b'"}'
        await server.send(frame(body), frame(INITIALIZE))
        assert "result" in await server.answer(7)
        status = Path(f"/proc/{server.process.pid}/status").read_text()
        peak_mib = int(status.split("VmHWM:")[1].split()[0]) / 1024
        assert peak_mib < MAX_MESSAGE_BYTES / 2**20, peak_mib  # ~46 MiB: never held whole
    finally:
        await server.stop()
    assert b"over the limit" in server.stderr


async def test_fuzz_the_real_process_then_initialize() -> None:
    """50 malformed inputs (seeded), then an ``initialize`` that must be answered."""
    rng = random.Random(15)
    pieces = [
        b"Content-Length: abc\r\n\r\n{}",
        b"content-length: -1\n\n",
        b"Content-Length: 3\r\n\r\n[1,2,3]",
        b"Content-Length: 4\r\n\r\nnull",
        b"Content-Length: 2\r\n\r\n{}",
        b'Content-Length: 9\r\n\r\n{"id": 1}',
        b"\x00\xff\xfe garbage \r\n",
        b"Content-Length: 99999999999\r\n\r\n",
        frame(b'{"jsonrpc": "2.0", "id": "s", "method": "initialize", "params": 3}'),
        frame(b'{"id": 4, "method": "initialize"}'),
        frame(b'{"jsonrpc": "2.0", "method": 5}'),
        frame(b'\xed\xa0\x80"'),
    ]
    inputs = [rng.choice(pieces) for _ in range(50)]
    server = await RawServer.start()
    try:
        await server.send(*inputs, b"\r\n", frame(INITIALIZE))
        assert "result" in await server.answer(7)
    finally:
        await server.stop()
    assert b"Traceback" not in server.stderr


def test_the_channel_drops_writes_once_closed_or_broken() -> None:
    """Finding 6 of #15: each write to the closed stream raised, and its error report was
    another write: ~37,000 tracebacks."""
    sent: list[bytes] = []

    def write(data: bytes) -> None:
        if data == b"broken":
            raise BrokenPipeError("the client is gone")
        sent.append(data)

    channel = Channel(write, lambda: None)
    channel.write(b"one")
    channel.write(b"broken")
    channel.write(b"two")
    assert sent == [b"one"] and channel.closed
    closed = Channel(sent.append, lambda: None)
    closed.close()
    closed.write(b"three")
    assert sent == [b"one"]
