"""Local model servers over the OpenAI-compatible HTTP API, with the standard library only.

Ollama, llama.cpp's server, vLLM and LM Studio all speak ``/v1/chat/completions`` with
server-sent events, so one small client covers them; ``http.client`` keeps the dependency
list short and gives direct access to the socket, which is how cancellation stays prompt:
a watchdog thread shuts the socket down when the caller cancels or the job's deadline
passes, waking a read that may be blocked while the server is still reading the prompt;
every socket timeout is also cut to what is left before the deadline.

Privacy: the prompt contains the user's source. Only loopback addresses are accepted
unless the user explicitly allows a remote endpoint. A host name is resolved once, when
the model is opened; every address it resolves to must be a loopback address, and every
connection goes to those addresses (the name is only sent as the ``Host`` header), so
neither a DNS answer nor a later rebinding can redirect code off the machine.
"""

from __future__ import annotations

import contextlib
import copy
import http.client
import ipaddress
import json
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any
from urllib.parse import urlsplit

from regrapht_core.contracts.deadline import NO_DEADLINE, Deadline
from regrapht_core.errors import ModelError
from regrapht_core.model.protocol import (
    ChatMessage,
    Completion,
    FinishReason,
    Sampling,
    StopWatch,
    TokenSink,
    approx_token_count,
)
from regrapht_core.model.settings import ServerSettings

__all__ = ["OpenAIServerModel", "check_local", "normalise_base_url"]

_RETRY_STATUSES = frozenset({429, 502, 503, 504})
_WATCH_PERIOD_S = 0.05


def normalise_base_url(url: str) -> str:
    """``http://host:port`` → ``http://host:port/v1``; a URL with a path is kept as given."""
    parts = urlsplit(url.strip())
    path = parts.path.rstrip("/")
    return f"{parts.scheme}://{parts.netloc}{path or '/v1'}"


_REMOTE_FIX = (
    "ReGraphT keeps your source local, so only loopback model servers (127.0.0.1, ::1, "
    "localhost) are accepted by default. If you trust this server, allow remote endpoints "
    "explicitly (editor setting regrapht.allowRemote, flag --allow-remote)."
)

Address = tuple[socket.AddressFamily, tuple[Any, ...]]
"""A socket family and address to connect to, as ``getaddrinfo`` gives them."""


def check_local(url: str, *, allow_remote: bool) -> tuple[Address, ...] | None:
    """The loopback addresses to connect to for ``url``; ``None`` when remote endpoints
    are allowed (then the name is resolved as usual, on each connection).

    The host is resolved once: a name whose answer includes any address off this machine
    is refused, whatever else it resolves to.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ModelError(
            f"{url!r} is not an http(s) URL of a model server. Use e.g. "
            "http://127.0.0.1:11434/v1 (Ollama) or http://127.0.0.1:8080/v1 (llama.cpp)."
        )
    if allow_remote:
        return None
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        found = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as err:
        raise ModelError(f"Cannot resolve the model server's host in {url} ({err}).") from err
    addresses = tuple(dict.fromkeys((family, address) for family, _, _, _, address in found))
    off = sorted({str(a[0]) for _, a in addresses if not _is_loopback(str(a[0]))})
    if off or not addresses:
        where = f" (it resolves to {', '.join(off)})" if off else ""
        raise ModelError(
            f"Refusing to send code to {url}: it is not an address on this machine{where}. "
            + _REMOTE_FIX
        )
    return addresses


def _is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def _dial(addresses: Sequence[Address], timeout: float | None) -> socket.socket:
    """A connected socket to the first of ``addresses`` that answers (as
    ``socket.create_connection`` does for a name, without resolving anything)."""
    last: OSError = OSError("no address to connect to")
    for family, address in addresses:
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.settimeout(timeout)
            sock.connect(address)
        except OSError as err:
            sock.close()
            last = err
            continue
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock
    raise last


class _PinnedHTTP(http.client.HTTPConnection):
    """Connects to resolved addresses; ``host`` is only the ``Host`` header."""

    def __init__(
        self, host: str, port: int, timeout: float | None, addresses: Sequence[Address]
    ) -> None:
        super().__init__(host, port, timeout=timeout)
        self._addresses = addresses

    def connect(self) -> None:
        self.sock = _dial(self._addresses, self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    """TLS to resolved addresses; the certificate is checked against ``host``."""

    def __init__(
        self, host: str, port: int, timeout: float | None, addresses: Sequence[Address]
    ) -> None:
        self._tls = ssl.create_default_context()
        super().__init__(host, port, timeout=timeout, context=self._tls)
        self._addresses = addresses

    def connect(self) -> None:
        self.sock = self._tls.wrap_socket(
            _dial(self._addresses, self.timeout), server_hostname=self.host
        )


ConnectionFactory = Callable[[str, int, float], http.client.HTTPConnection]


def _open(scheme: str, addresses: Sequence[Address] | None) -> ConnectionFactory:
    if addresses is None:
        if scheme == "https":
            return lambda host, port, timeout: http.client.HTTPSConnection(
                host, port, timeout=timeout
            )
        return lambda host, port, timeout: http.client.HTTPConnection(host, port, timeout=timeout)
    if scheme == "https":
        return lambda host, port, timeout: _PinnedHTTPS(host, port, timeout, addresses)
    return lambda host, port, timeout: _PinnedHTTP(host, port, timeout, addresses)


class OpenAIServerModel:
    def __init__(
        self,
        base_url: str,
        model: str,
        settings: ServerSettings,
        *,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._base = base_url
        self._model = model
        self._settings = settings
        self._sleep = sleep
        parts = urlsplit(base_url)
        self._host = parts.hostname or ""
        self._port = parts.port or (443 if parts.scheme == "https" else 80)
        self._path = parts.path
        self._connect = _open(
            parts.scheme, check_local(base_url, allow_remote=settings.allow_remote)
        )

    @classmethod
    def connect(
        cls,
        url: str,
        settings: ServerSettings,
        *,
        sleep: Callable[[float], None] = time.sleep,
    ) -> OpenAIServerModel:
        """Check the address is allowed and the server answers, and settle the model name."""
        base = normalise_base_url(url)
        probe = cls(base, settings.model, settings, sleep=sleep)
        listed = probe.list_models()
        if not settings.model:
            if not listed:
                raise ModelError(
                    f"The model server at {base} lists no models. Load one in the server, or "
                    "name it with the server model setting (--server-model)."
                )
            return probe._naming(listed[0])
        if listed and settings.model not in listed:
            raise ModelError(
                f"The model server at {base} has no model {settings.model!r}; it lists "
                f"{', '.join(listed)}. Fix the server model setting (--server-model)."
            )
        return probe

    def _naming(self, model: str) -> OpenAIServerModel:
        """The same server (and resolved addresses) with the model name the server listed."""
        named = copy.copy(self)
        named._model = model
        return named

    @property
    def name(self) -> str:
        return f"{self._model} @ {self._base}"

    @property
    def context_tokens(self) -> int:
        return self._settings.context_tokens

    def count_tokens(self, text: str) -> int:
        return approx_token_count(text)

    def list_models(self) -> list[str]:
        unlimited = StopWatch(on_token=None, cancel=None, deadline=NO_DEADLINE)
        conn, response = self._request("GET", "/models", None, unlimited)
        try:
            body = json.loads(response.read() or b"{}")
        except json.JSONDecodeError as exc:
            raise ModelError(f"{self._base}/models answered something that is not JSON.") from exc
        finally:
            conn.close()
        entries = body.get("data") if isinstance(body, dict) else None
        if not isinstance(entries, list):
            raise ModelError(
                f"{self._base}/models is not an OpenAI-compatible model list. Check the URL "
                "(it usually ends in /v1)."
            )
        return [str(e["id"]) for e in entries if isinstance(e, dict) and e.get("id")]

    def generate(
        self,
        messages: Sequence[ChatMessage],
        sampling: Sampling,
        *,
        on_token: TokenSink | None = None,
        cancel: threading.Event | None = None,
        deadline: Deadline = NO_DEADLINE,
    ) -> Completion:
        payload: dict[str, Any] = {
            "model": self._model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "max_tokens": sampling.max_tokens,
            "temperature": sampling.temperature,
            "stream": True,
        }
        if sampling.seed is not None:
            payload["seed"] = sampling.seed
        if sampling.stop:
            payload["stop"] = list(sampling.stop)
        watch = StopWatch(on_token=on_token, cancel=cancel, deadline=deadline)
        current: list[http.client.HTTPConnection] = []
        done = threading.Event()
        watchdog = threading.Thread(target=self._watch, args=(current, watch, done), daemon=True)
        watchdog.start()
        reason: FinishReason | None = None
        try:
            _, response = self._request("POST", "/chat/completions", payload, watch, current)
            for event in _sse_events(response):
                interrupted = watch.interrupt()
                if interrupted is not None:
                    reason = interrupted
                    break
                if event == "[DONE]":
                    reason = reason or FinishReason.STOP
                    break
                reason = self._take(event, watch) or reason
        except _Interrupted as stopped:
            reason = stopped.reason
        except (OSError, http.client.HTTPException) as exc:
            reason = watch.interrupt()
            if reason is None:
                raise ModelError(
                    f"The model server at {self._base} stopped answering ({exc}). Check the "
                    "server, or raise the read timeout setting."
                ) from exc
        finally:
            done.set()
            watchdog.join()
            for conn in current:
                conn.close()
        if reason is None:
            reason = watch.interrupt()
        if reason is None:
            raise ModelError(f"The model server at {self._base} closed the stream mid-answer.")
        return watch.finish(reason)

    def _take(self, event: str, watch: StopWatch) -> FinishReason | None:
        try:
            data = json.loads(event)
        except json.JSONDecodeError as exc:
            raise ModelError(f"The model server at {self._base} sent a malformed event.") from exc
        if "error" in data:
            raise ModelError(f"The model server at {self._base} reported: {data['error']}")
        choices = data.get("choices") or [{}]
        watch.add((choices[0].get("delta") or {}).get("content") or "")
        finish = choices[0].get("finish_reason")
        if finish == "length":
            return FinishReason.LENGTH
        return FinishReason.STOP if finish else None

    @staticmethod
    def _watch(
        current: list[http.client.HTTPConnection], watch: StopWatch, done: threading.Event
    ) -> None:
        """Shut the socket down on cancel or deadline, waking a blocked read at once."""
        while not done.wait(_WATCH_PERIOD_S):
            if watch.interrupt() is not None:
                for conn in list(current):
                    if conn.sock is not None:
                        with contextlib.suppress(OSError):
                            conn.sock.shutdown(socket.SHUT_RDWR)
                return

    def _request(
        self,
        method: str,
        path: str,
        payload: dict[str, Any] | None,
        watch: StopWatch,
        current: list[http.client.HTTPConnection] | None = None,
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        """Send with retries and back-off while nothing has been received yet.

        Each connection is appended to ``current`` as soon as it exists, so the watchdog
        can cut a request the server is slow to answer.
        """
        headers = {"Accept": "text/event-stream" if payload else "application/json"}
        body = None
        if payload is not None:
            body = json.dumps(payload).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if self._settings.api_key:
            headers["Authorization"] = f"Bearer {self._settings.api_key}"
        delay = self._settings.backoff_s
        last = ""
        for attempt in range(self._settings.retries + 1):
            if attempt:
                self._sleep(delay)
                delay *= 2
            if (stopped := watch.interrupt()) is not None:
                raise _Interrupted(stopped)
            conn = self._connect(
                self._host, self._port, watch.wait_s(self._settings.connect_timeout_s)
            )
            if current is not None:
                current.append(conn)
            try:
                conn.connect()
                if conn.sock is not None:
                    conn.sock.settimeout(watch.wait_s(self._settings.read_timeout_s))
                conn.request(method, self._path + path, body=body, headers=headers)
                response = conn.getresponse()
            except (OSError, http.client.HTTPException) as exc:
                conn.close()
                if (stopped := watch.interrupt()) is not None:
                    raise _Interrupted(stopped) from exc
                last = str(exc) or type(exc).__name__
                continue
            if response.status in _RETRY_STATUSES:
                last = f"HTTP {response.status}"
                conn.close()
                continue
            if response.status >= 400:
                detail = response.read(2000).decode("utf-8", "replace")
                conn.close()
                raise ModelError(
                    f"The model server at {self._base} refused {method} {path}: HTTP "
                    f"{response.status} {detail.strip()}"
                )
            return conn, response
        raise ModelError(
            f"Cannot reach the model server at {self._base} ({last}; "
            f"{self._settings.retries + 1} attempts). Start it (e.g. `ollama serve`, or "
            "`llama-server -m FILE.gguf`), or change --model / "
            "REGRAPHT_MODEL."
        )


class _Interrupted(Exception):
    def __init__(self, reason: FinishReason) -> None:
        super().__init__(reason.value)
        self.reason = reason


def _sse_events(response: http.client.HTTPResponse) -> Iterator[str]:
    """The ``data`` payloads of a server-sent event stream, one per event."""
    data: list[str] = []
    while True:
        raw = response.readline()
        if not raw:
            if data:
                yield "\n".join(data)
            return
        line = raw.decode("utf-8").rstrip("\r\n")
        if not line:
            if data:
                yield "\n".join(data)
                data = []
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
