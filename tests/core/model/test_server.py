"""The OpenAI-compatible HTTP backend against a real llama.cpp server (xllamacpp's)."""

from __future__ import annotations

import contextlib
import http.client
import http.server
import ipaddress
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any, ClassVar
from urllib.parse import urlsplit

import pytest

from regrapht_core.contracts.deadline import Deadline
from regrapht_core.errors import ModelError
from regrapht_core.model.protocol import ChatMessage, FinishReason, Sampling
from regrapht_core.model.server import OpenAIServerModel, check_local, normalise_base_url
from regrapht_core.model.settings import ServerSettings

ASK = [ChatMessage("user", "Write a CUDA kernel that adds two float arrays.")]


def test_streams_a_seeded_answer_from_a_real_server(llama_server: str) -> None:
    model = OpenAIServerModel.connect(llama_server, ServerSettings())
    assert model.name == f"qwen2.5-coder-0.5b @ {llama_server}"
    pieces: list[str] = []
    done = model.generate(ASK, Sampling(16, temperature=0.7, seed=5), on_token=pieces.append)
    again = model.generate(ASK, Sampling(16, temperature=0.7, seed=5))
    assert done.text.strip()
    assert done.text == again.text
    assert "".join(pieces) == done.text
    assert len(pieces) > 1  # streamed, not one block
    assert done.finish_reason is FinishReason.LENGTH


def test_base_url_without_path_gets_v1(llama_server: str) -> None:
    root = llama_server.removesuffix("/v1")
    model = OpenAIServerModel.connect(root, ServerSettings(model="qwen2.5-coder-0.5b"))
    assert model.generate(ASK, Sampling(2)).tokens > 0


def test_unknown_model_name_lists_what_the_server_has(llama_server: str) -> None:
    with pytest.raises(ModelError, match=r"no model 'starcoder'; it lists qwen2\.5-coder-0\.5b"):
        OpenAIServerModel.connect(llama_server, ServerSettings(model="starcoder"))


def test_cancellation_stops_a_streamed_answer_within_a_second(llama_server: str) -> None:
    model = OpenAIServerModel.connect(llama_server, ServerSettings())
    cancel = threading.Event()
    first = threading.Event()
    cancelled_at: list[float] = []

    def cancel_soon() -> None:
        first.wait(30)
        time.sleep(0.2)
        cancelled_at.append(time.monotonic())
        cancel.set()

    canceller = threading.Thread(target=cancel_soon)
    canceller.start()
    done = model.generate(
        ASK, Sampling(1500, seed=3), on_token=lambda _: first.set(), cancel=cancel
    )
    returned_at = time.monotonic()
    canceller.join()
    assert done.finish_reason is FinishReason.CANCELLED
    assert returned_at - cancelled_at[0] < 1.0


def test_time_limit_is_a_value(llama_server: str) -> None:
    model = OpenAIServerModel.connect(llama_server, ServerSettings())
    done = model.generate(ASK, Sampling(1500, seed=3), deadline=Deadline.after(0.5))
    assert done.finish_reason is FinishReason.TIMEOUT


def test_server_down_is_a_clear_error_after_retries(unused_port: int) -> None:
    delays: list[float] = []
    port = unused_port
    settings = ServerSettings(retries=2, backoff_s=0.25, connect_timeout_s=1)
    with pytest.raises(ModelError, match="Cannot reach the model server") as caught:
        OpenAIServerModel.connect(f"http://127.0.0.1:{port}/v1", settings, sleep=delays.append)
    assert f"127.0.0.1:{port}" in str(caught.value)
    assert "3 attempts" in str(caught.value)
    assert delays == [0.25, 0.5]


@pytest.mark.parametrize(
    "url",
    ["http://192.168.1.20:11434/v1", "http://example.com/v1", "https://[2001:db8::1]/v1"],
)
def test_remote_endpoints_are_refused_unless_allowed(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _resolve_to(monkeypatch, "93.184.215.14")  # example.com, answered without asking DNS
    with pytest.raises(ModelError, match="Refusing to send code") as caught:
        OpenAIServerModel.connect(url, ServerSettings())
    assert "allowRemote" in str(caught.value) and "--allow-remote" in str(caught.value)
    assert check_local(url, allow_remote=True) is None


def _resolve_to(monkeypatch: pytest.MonkeyPatch, *addresses: str) -> list[str]:
    """``socket.getaddrinfo`` answers ``addresses`` for any name; returns the names asked."""
    asked: list[str] = []
    real = socket.getaddrinfo

    def fake(host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
        with contextlib.suppress(ValueError):
            ipaddress.ip_address(host)
            return real(host, port, *args, **kwargs)  # a literal needs no lookup
        asked.append(host)
        return [real(address, port, *args, **kwargs)[0] for address in addresses]

    monkeypatch.setattr(socket, "getaddrinfo", fake)
    return asked


def _no_connections(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> None:
        pytest.fail("a connection was attempted to a refused model server")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(http.client.HTTPConnection, "connect", refuse)


@pytest.mark.parametrize("answers", [("10.1.2.3",), ("127.0.0.1", "10.1.2.3")])
def test_a_name_resolving_off_the_machine_is_refused_before_any_connection(
    answers: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 3 of #15: ``http://evil.localhost:8080/v1`` with allowRemote off was looked up
    in DNS and connected to what it resolved to (a 10.x address); any answer off loopback
    now refuses the server, before a single connection, naming the setting."""
    asked = _resolve_to(monkeypatch, *answers)
    _no_connections(monkeypatch)
    with pytest.raises(ModelError, match="Refusing to send code") as caught:
        OpenAIServerModel.connect("http://evil.localhost:8080/v1", ServerSettings())
    assert "10.1.2.3" in str(caught.value) and "allowRemote" in str(caught.value)
    assert asked == ["evil.localhost"]


def test_an_unresolvable_name_is_a_model_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_: object, **__: object) -> None:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", fail)
    with pytest.raises(ModelError, match="Cannot resolve"):
        OpenAIServerModel.connect("http://nowhere.localhost/v1", ServerSettings())


def test_a_loopback_name_is_resolved_once_and_its_address_is_used(
    scripted: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 3 of #15: every connection goes to the address resolved when the model was
    opened, with the name as the ``Host`` header: a later answer (DNS rebinding) is never
    asked for."""
    port = urlsplit(scripted).port
    asked = _resolve_to(monkeypatch, "127.0.0.1")
    _Scripted.script = [(200, b'{"data": [{"id": "m"}]}'), (200, _event("ok", "stop"))]
    _Scripted.hosts = []
    model = OpenAIServerModel.connect(f"http://model.localhost:{port}/v1", ServerSettings())
    _resolve_to(monkeypatch, "10.1.2.3")
    monkeypatch.setattr(socket, "create_connection", lambda *_, **__: pytest.fail("resolved"))
    assert model.generate(ASK, Sampling(4)).text == "ok"
    assert asked == ["model.localhost"]
    assert _Scripted.hosts == [f"model.localhost:{port}"] * 2


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8080/v1", "http://localhost:11434", "http://[::1]:1234/v1"]
)
def test_loopback_endpoints_are_accepted(url: str) -> None:
    addresses = check_local(normalise_base_url(url), allow_remote=False)
    assert addresses and all(ipaddress.ip_address(a[0]).is_loopback for _, a in addresses)


def test_not_a_url_is_refused() -> None:
    with pytest.raises(ModelError, match="not an http"):
        check_local("ftp://127.0.0.1/v1", allow_remote=False)


def test_a_server_that_is_not_openai_compatible_is_named(scripted: str) -> None:
    _Scripted.script = [(200, b"<html>hello</html>")]
    with pytest.raises(ModelError, match="not JSON"):
        OpenAIServerModel.connect(scripted, ServerSettings())
    _Scripted.script = [(200, b'{"models": []}')]
    with pytest.raises(ModelError, match="not an OpenAI-compatible model list"):
        OpenAIServerModel.connect(scripted, ServerSettings())


class _Scripted(http.server.BaseHTTPRequestHandler):
    """Busy twice, then a stream with junk lines: what retries and the SSE reader must survive."""

    script: ClassVar[list[tuple[int, bytes]]] = []
    hosts: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.do_POST()

    def do_POST(self) -> None:
        self.hosts.append(self.headers.get("Host", ""))
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        status, body = self.script.pop(0)
        self.send_response(status)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        """Quiet: the test output is not the place for access logs."""


@pytest.fixture
def scripted() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Scripted)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()
    thread.join()


def _event(content: str, finish: str | None = None) -> bytes:
    chunk = {"choices": [{"delta": {"content": content}, "finish_reason": finish}]}
    done = "data: [DONE]\n\n" if finish else ""
    return f"data: {json.dumps(chunk)}\n\n{done}".encode()


def test_busy_server_is_retried_with_back_off(scripted: str) -> None:
    _Scripted.script = [
        (503, b""),
        (503, b""),
        (200, b": keep-alive\n\n" + _event("__global__") + _event(" void", "stop")),
    ]
    delays: list[float] = []
    model = OpenAIServerModel(scripted, "m", ServerSettings(backoff_s=0.1), sleep=delays.append)
    done = model.generate(ASK, Sampling(8))
    assert done.text == "__global__ void"
    assert done.finish_reason is FinishReason.STOP
    assert delays == [0.1, 0.2]


def test_error_event_and_garbage_are_model_errors(scripted: str) -> None:
    _Scripted.script = [
        (200, b'data: {"error": {"message": "out of memory"}}\n\n'),
        (200, b"data: {not json\n\n"),
        (200, _event("half an ans")),
    ]
    model = OpenAIServerModel(scripted, "m", ServerSettings())
    with pytest.raises(ModelError, match="out of memory"):
        model.generate(ASK, Sampling(8))
    with pytest.raises(ModelError, match="malformed"):
        model.generate(ASK, Sampling(8))
    with pytest.raises(ModelError, match="closed the stream mid-answer"):
        model.generate(ASK, Sampling(8))


def test_client_errors_are_not_retried(scripted: str) -> None:
    _Scripted.script = [(400, b'{"error": "bad request"}')]
    model = OpenAIServerModel(scripted, "m", ServerSettings())
    with pytest.raises(ModelError, match="HTTP 400"):
        model.generate(ASK, Sampling(8))
