"""JSON-RPC and the LSP lifecycle on pygls's dispatch: what pygls 2.1.1 gets wrong.

pygls decodes every nested JSON object as a message, answers nothing to a request whose
params do not deserialize, answers a handler's failure with a traceback in ``data``, logs
expected rejections as errors with tracebacks, runs a second ``initialize`` (a new
workspace: every open document forgotten), and raises ``SystemExit`` inside the dispatch
on ``exit`` (which its loop swallows: exit code 0). :class:`ReGraphTProtocol` takes each
frame's body from :mod:`regrapht_server.wire` and does those parts itself.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import (
    FeatureNotificationError,
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcRequestCancelled,
)
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    MsgId,
)
from pygls.protocol.language_server import lsp_method

from regrapht_server import rpc

if TYPE_CHECKING:
    from collections.abc import Generator
    from concurrent.futures import Future

    from cattrs import Converter
    from pygls.lsp.server import LanguageServer

    from regrapht_server.wire import Channel

__all__ = ["ReGraphTProtocol"]

log = logging.getLogger(__name__)

_EXIT = b'{"jsonrpc": "2.0", "method": "exit"}'
"""What a client that closes its side without a word is taken to have said."""


_OPEN_ONLY = frozenset({types.TEXT_DOCUMENT_DID_CHANGE, types.TEXT_DOCUMENT_DID_CLOSE})
"""Notifications the client may send only about an open document."""


class ReGraphTProtocol(LanguageServerProtocol):
    """JSON-RPC and the LSP lifecycle as the specifications ask, on pygls's dispatch.

    :mod:`regrapht_server.wire` hands over each frame's body; :mod:`regrapht_server.rpc`
    says which message it is. Before pygls dispatches it, this class rejects what the
    lifecycle forbids (a request before ``initialize``: ``ServerNotInitialized``; a
    second ``initialize``, which pygls would run and so forget every open document, or a
    request after ``shutdown``: ``InvalidRequest``) and structures its params, at the top
    level only (``InvalidParams`` when they do not fit; pygls 2.1.1 answers nothing). The
    errors sent back carry no traceback and no path; an expected rejection logs one line.
    """

    def __init__(self, server: LanguageServer, converter: Converter) -> None:
        super().__init__(server, converter)
        self.exit_code: int | None = None
        """Set by ``exit``: 0 after ``shutdown``, else 1 (the LSP specification)."""
        self._initialize_seen = False

    def connect(self, channel: Channel) -> None:
        self.set_writer(channel)

    def receive(self, body: bytes) -> None:
        value = rpc.decode(body)
        message = value if isinstance(value, rpc.Invalid) else rpc.classify(value)
        if isinstance(message, rpc.Invalid):
            self._reject(message)
        elif isinstance(message, rpc.Request):
            self._request(message)
        elif isinstance(message, rpc.Notification):
            self._notification(message)
        else:
            self._response(message)

    def disconnected(self) -> None:
        if self.exit_code is None:
            log.info("the client closed the channel without exit")
            self.receive(_EXIT)

    def _request(self, request: rpc.Request) -> None:
        code, why = types.ErrorCodes.InvalidRequest, None
        if self._shutdown:
            why = "the server is shutting down"
        elif request.method == types.INITIALIZE and self._initialize_seen:
            why = "initialize may be sent only once"
        elif request.method != types.INITIALIZE and not self._initialize_seen:
            code, why = types.ErrorCodes.ServerNotInitialized, "the server is not initialized yet"
        if why is not None:
            self._reject(rpc.Invalid(code, f"{request.method}: {why}", request.id))
            return
        kind = self.get_message_type(request.method) or JsonRPCRequestMessage
        structured = self._structure(request.raw, kind)
        if isinstance(structured, Exception):
            problem = rpc.params_problem(request.method, structured)
            self._reject(rpc.Invalid(types.ErrorCodes.InvalidParams, problem, request.id))
            return
        if request.method == types.INITIALIZE:
            self._initialize_seen = True
        self.handle_message(structured)

    def _notification(self, notification: rpc.Notification) -> None:
        method = notification.method
        if method != types.EXIT and (self._shutdown or not self._initialize_seen):
            when = "after shutdown" if self._shutdown else "before initialize"
            log.info("dropped %s: it came %s", method, when)
            return
        kind = self.get_message_type(method) or JsonRPCNotification
        structured = self._structure(notification.raw, kind)
        if isinstance(structured, Exception):
            log.warning("dropped %s", rpc.params_problem(method, structured))
            return
        if method in _OPEN_ONLY and unquote(structured.params.text_document.uri) not in (
            self.workspace.text_documents
        ):
            # pygls would fail with a KeyError: a traceback at ERROR and a message to the user.
            log.warning("dropped %s: %s is not open", method, structured.params.text_document.uri)
            return
        self.handle_message(structured)

    def _response(self, response: rpc.Response) -> None:
        if "error" in response.raw:
            kind: Any = types.ResponseErrorMessage
        else:
            kind = self._result_types.pop(response.id, None) or JsonRPCResponseMessage
        structured = self._structure(response.raw, kind)
        if isinstance(structured, Exception):
            problem = rpc.params_problem(f"the answer to {response.id}", structured)
            log.warning("%s", problem)
            future = self._request_futures.pop(response.id, None)
            if future is not None and not future.done():
                future.set_exception(JsonRpcException(problem))
            return
        self.handle_message(structured)

    def _structure(self, raw: dict[str, Any], kind: Any) -> Any:
        try:
            structured = self._converter.structure(raw, kind)
        except Exception as err:  # cattrs raises many kinds; each means "does not fit"
            return err
        return structured

    def _reject(self, invalid: rpc.Invalid) -> None:
        log.log(logging.INFO if invalid.answer else logging.WARNING, "%s", invalid.message)
        if invalid.answer:
            self._send_data(rpc.error_response(invalid.id, invalid.code, invalid.message))

    def _send_handler_result(self, future: Future[Any], *, msg_id: MsgId) -> None:
        """pygls sends a traceback in ``data`` and logs expected rejections as errors."""
        self._request_futures.pop(msg_id, None)
        if future.cancelled():
            cancelled = JsonRpcRequestCancelled(f"request {msg_id} was cancelled")
            self._send_response(msg_id, error=cancelled.to_response_error())
            return
        failure = future.exception()
        if failure is None:
            self._send_response(msg_id, result=future.result())
        elif isinstance(failure, JsonRpcException):
            log.info("request %s: %s", msg_id, failure.message)
            answer = types.ResponseError(failure.code, failure.message)
            self._send_response(msg_id, error=answer)
        else:
            log.error("request %s failed", msg_id, exc_info=failure)
            message = f"internal error ({type(failure).__name__}): see the server log"
            error = types.ResponseError(types.ErrorCodes.InternalError, message)
            self._send_response(msg_id, error=error)

    def _run_generator(
        self,
        future: Future[Any] | None,
        *,
        gen: Generator[Any, Any, Any],
        result_future: Future[Any],
    ) -> None:
        """pygls lets the ``CancelledError`` of a cancelled step (a command's handler, at
        exit) escape into the event loop's error log; the request is cancelled instead."""
        if future is not None and future.cancelled():
            gen.close()
            result_future.cancel()
            return
        super()._run_generator(future, gen=gen, result_future=result_future)

    def _check_handler_result(self, future: Future[Any]) -> None:
        failure = None if future.cancelled() else future.exception()
        if isinstance(failure, JsonRpcException):
            log.warning("a notification was rejected: %s", failure.message)
        elif failure is not None:
            log.error("a notification handler failed", exc_info=failure)
            error = JsonRpcInternalError(f"{type(failure).__name__}: see the server log")
            self._server._report_server_error(error, FeatureNotificationError)

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any) -> Generator[Any, Any, None]:
        """Closes the channel, sets the exit code for the wire to return, then runs the
        handler (which cancels the jobs); pygls would ``sys.exit`` inside the dispatch."""
        self.exit_code = 0 if self._shutdown else 1
        if self.writer is not None:
            self.writer.close()
        if (handler := self.fm.features.get(types.EXIT)) is not None:
            yield handler, args, None
