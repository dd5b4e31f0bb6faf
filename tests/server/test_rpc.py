"""JSON-RPC conformance: every malformed message gets the error JSON-RPC and LSP name, no
answer carries a traceback, expected rejections log one quiet line (finding 11 of #15)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol.types import ErrorCodes
from regrapht_server import rpc
from regrapht_server.server import ReGraphTServer
from regrapht_server.wire import Channel, Frame, FrameParser

from .conftest import EXAMPLE
from .stdio import EXIT, INITIALIZE, RawServer, frame, notification, request

PARSE_ERROR, INVALID_REQUEST = ErrorCodes.ParseError, ErrorCodes.InvalidRequest
INVALID_PARAMS, NOT_INITIALIZED = ErrorCodes.InvalidParams, ErrorCodes.ServerNotInitialized


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{not json", PARSE_ERROR),
        (b"\xff\xfe", PARSE_ERROR),
        (b"[" * 100_000, PARSE_ERROR),
        (b"1" * 5000, PARSE_ERROR),
        (b"[]", INVALID_REQUEST),
        (b'"text"', INVALID_REQUEST),
        (b"{}", INVALID_REQUEST),
        (b'{"id": 1}', INVALID_REQUEST),
        (b'{"id": 1, "method": "shutdown"}', INVALID_REQUEST),
        (b'{"jsonrpc": "1.0", "id": 1, "method": "shutdown"}', INVALID_REQUEST),
        (b'{"jsonrpc": "2.0", "id": 1.5, "method": "shutdown"}', INVALID_REQUEST),
        (b'{"jsonrpc": "2.0", "id": true, "method": "shutdown"}', INVALID_REQUEST),
        (b'{"jsonrpc": "2.0", "id": 1, "method": 3}', INVALID_REQUEST),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "m", "params": 3}', INVALID_REQUEST),
    ],
)
def test_what_is_no_message_gets_its_error(body: bytes, code: ErrorCodes) -> None:
    value = rpc.decode(body)
    message = value if isinstance(value, rpc.Invalid) else rpc.classify(value)
    assert isinstance(message, rpc.Invalid) and message.code == code and message.answer


def test_the_id_of_an_invalid_request_is_kept_when_it_can_be_read() -> None:
    message = rpc.classify({"id": 5, "method": "textDocument/hover", "params": {}})
    assert isinstance(message, rpc.Invalid) and message.id == 5
    assert rpc.error_response(None, -32700, "x")["id"] is None  # JSON-RPC: "id": null


def test_notifications_and_responses_that_are_invalid_get_no_answer() -> None:
    for value in (
        {"method": "initialized"},
        {"jsonrpc": "2.0", "method": "x", "params": "p"},
        {"id": 3, "result": None},
        {"jsonrpc": "2.0", "id": [1], "result": None},
    ):
        message = rpc.classify(value)
        assert isinstance(message, rpc.Invalid) and not message.answer, value


def test_only_the_top_level_is_a_message() -> None:
    """Finding 11 of #15: a request-shaped object inside params was answered on its own."""
    nested = {"jsonrpc": "2.0", "id": 99, "method": "textDocument/hover", "params": []}
    value = rpc.decode(json.dumps(request(3, "workspace/executeCommand", [nested])).encode())
    message = rpc.classify(value)
    assert isinstance(message, rpc.Request) and message.id == 3
    assert message.raw["params"] == [nested]


def test_lone_surrogates_become_replacement_characters() -> None:
    """Finding 11 of #15: a ``\\ud800`` in a document's text broke every later request."""
    body = json.dumps(notification("m", {"text": "a\ud800b\U0001f600c", "\udfffk": "\udc00"}))
    value = rpc.decode(body.encode())
    assert value == {
        "jsonrpc": "2.0",
        "method": "m",
        "params": {"text": "a\ufffdb\U0001f600c", "\ufffdk": "\ufffd"},
    }
    assert rpc.decode(b'{"t": "\xed\xa0\x80"}') == {"t": "\ufffd"}  # raw, surrogatepass


# -- the protocol in-process, fuzzed ---------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)
_messages = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0", 2]),
        "id": st.one_of(st.integers(-3, 3), st.text(max_size=3), st.none(), st.floats()),
        "method": st.sampled_from(
            [
                "initialize",
                "initialized",
                "shutdown",
                "exit",
                "textDocument/hover",
                "textDocument/codeAction",
                "textDocument/didOpen",
                "textDocument/didChange",
                "workspace/executeCommand",
                "$/cancelRequest",
                "regrapht/unknown",
            ]
        ),
        "params": _json,
        "result": _json,
        "error": _json,
    },
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(_json, _messages), min_size=1, max_size=8))
def test_fuzz_random_json_values_as_messages(values: list[Any]) -> None:
    """Never raises; every answer is a well-formed frame whose errors carry no traceback."""
    server = ReGraphTServer()
    written: list[bytes] = []
    server.endpoint.connect(Channel(written.append, lambda: None))

    async def session() -> None:
        for value in values:
            server.endpoint.receive(json.dumps(value).encode())
            await asyncio.sleep(0)

    with asyncio.Runner() as runner:
        runner.run(session())
    server.engine.close()
    for data in written:
        (event,) = FrameParser().feed(data)
        assert isinstance(event, Frame)
        assert_clean(json.loads(event.body))


def assert_clean(message: dict[str, Any]) -> None:
    """An error names no traceback, file or install path."""
    if "error" in message:
        error = message["error"]
        assert set(error) == {"code", "message"}, error
        for marker in ("Traceback", 'File "', "site-packages", ".py"):
            assert marker not in error["message"], error


# -- the real process ----------------------------------------------------------------------


def code_action(ident: int, uri: str, line: int) -> dict[str, Any]:
    where = {"line": line, "character": 8}
    return request(
        ident,
        "textDocument/codeAction",
        {
            "textDocument": {"uri": uri},
            "range": {"start": where, "end": where},
            "context": {"diagnostics": []},
        },
    )


def did_open(uri: str, text: str) -> bytes:
    item = {"uri": uri, "languageId": "cpp", "version": 1, "text": text}
    return frame(notification("textDocument/didOpen", {"textDocument": item}))


LOOP_LINE = next(i for i, x in enumerate(EXAMPLE.read_text().splitlines()) if "acc += x[j]" in x)


async def test_every_malformed_or_untimely_request_gets_its_error_code() -> None:
    """Finding 11 of #15: before, requests without ``jsonrpc`` or after ``shutdown`` got
    no answer; invalid params and requests before ``initialize`` got -32603 with a
    traceback (install paths) in ``data``; rejections logged tracebacks at ERROR."""
    server = await RawServer.start(("-m", "regrapht_server", "--log-level", "INFO"))
    try:
        await server.send(frame(request(1, "textDocument/hover", {})))
        assert (await server.answer(1))["error"]["code"] == NOT_INITIALIZED
        await server.initialize()
        uri = EXAMPLE.as_uri()
        cases: list[tuple[bytes, int | None, int]] = [
            (frame(request(2, "textDocument/hover", [])), 2, INVALID_PARAMS),
            (frame(code_action(3, "file:///never/opened.cpp", 0)), 3, INVALID_PARAMS),
            (frame(b'{"id": 4, "method": "textDocument/hover", "params": {}}'), 4, INVALID_REQUEST),
            (frame(b"[1, 2]"), None, INVALID_REQUEST),
            (frame(b"{not json"), None, PARSE_ERROR),
        ]
        for data, ident, code in cases:
            await server.send(data)
            answer = await server.answer(ident)
            assert answer["error"]["code"] == code, answer
        unopened = {"textDocument": {"uri": "file:///never/opened.cpp", "version": 2}}
        await server.send(
            frame(notification("textDocument/didChange", {**unopened, "contentChanges": []})),
            frame(notification("textDocument/didClose", unopened)),
            frame(notification("textDocument/didOpen", unopened)),
        )
        await server.send(frame(request(8, "shutdown")))
        assert (await server.answer(8))["result"] is None
        await server.send(frame(code_action(9, uri, LOOP_LINE)))
        assert (await server.answer(9))["error"]["code"] == INVALID_REQUEST
        await server.send(frame(EXIT))
        ended = await server.ended()
    finally:
        await server.stop()
    assert ended.code == 0
    for message in server.received:
        assert_clean(message)
    assert b"Traceback" not in ended.stderr and b" ERROR " not in ended.stderr
    assert all(m.get("method") != "window/showMessage" for m in server.received)
    assert ended.stderr.count(b"\n") < 40, ended.stderr.decode()


async def test_a_second_initialize_is_refused_and_keeps_the_documents() -> None:
    """Finding 11 of #15: a second ``initialize`` made a new workspace: every open
    document was gone (code actions answered "not an open document")."""
    server = await RawServer.start()
    try:
        await server.initialize()
        uri = EXAMPLE.as_uri()
        await server.send(did_open(uri, EXAMPLE.read_text()))
        await server.send(frame({**INITIALIZE, "id": 2}))
        assert (await server.answer(2))["error"]["code"] == INVALID_REQUEST
        await server.send(frame(code_action(3, uri, LOOP_LINE)))
        actions = (await server.answer(3))["result"]
        assert [a["title"] for a in actions] == ["Optimize to CUDA (ReGraphT)"]
    finally:
        await server.stop()


async def test_lone_surrogates_in_a_document_do_not_break_later_requests(tmp_path: Path) -> None:
    """Finding 11 of #15: a ``\\ud800`` in didOpen/didChange text broke every request on
    the document."""
    server = await RawServer.start()
    try:
        await server.initialize()
        uri = (tmp_path / "smooth.cpp").as_uri()
        await server.send(did_open(uri, "// \ud800 lone\n" + EXAMPLE.read_text()))
        change = {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [
                {
                    "range": {
                        "start": {"line": 0, "character": 0},
                        "end": {"line": 0, "character": 0},
                    },
                    "text": "/* \udfff */",
                }
            ],
        }
        await server.send(frame(notification("textDocument/didChange", change)))
        await server.send(frame(code_action(3, uri, LOOP_LINE + 1)))
        answer = await server.answer(3)
        assert [a["title"] for a in answer["result"]] == ["Optimize to CUDA (ReGraphT)"]
        hover = {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 4}}
        await server.send(frame(request(4, "textDocument/hover", hover)))
        assert "error" not in await server.answer(4)
    finally:
        await server.stop()


async def test_a_request_inside_params_gets_no_answer_of_its_own() -> None:
    """Finding 11 of #15: the nested object (id 99) got an error response."""
    server = await RawServer.start()
    try:
        await server.initialize()
        nested = {"jsonrpc": "2.0", "id": 99, "method": "textDocument/hover", "params": []}
        params = {"command": "regrapht.cancel", "arguments": [nested]}
        await server.send(frame(request(3, "workspace/executeCommand", params)))
        assert (await server.answer(3))["error"]["code"] == INVALID_PARAMS
        await server.send(frame(request(4, "shutdown")))
        await server.answer(4)
    finally:
        await server.stop()
    assert all(m.get("id") != 99 for m in server.received)
