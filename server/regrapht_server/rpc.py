"""JSON-RPC 2.0 as LSP uses it: what a frame's body is, and the error owed to one that is
no message.

pygls 2.1.1 decodes every nested object with its message hook (so an object shaped like a
request inside ``params`` got an answer of its own), drops messages without ``"jsonrpc"``
unanswered, and keeps lone surrogates (``"\\ud800"``) in strings, where they break every
later request on the document once its text is encoded. Here only the top level is a
message; lone surrogates become U+FFFD (one code unit for one, so positions stay right);
and every malformed message that can be answered gets the error JSON-RPC names, with the
id when it can be read and ``null`` when it cannot. Errors carry a message for the user,
never a traceback or a path.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from cattrs.errors import BaseValidationError
from cattrs.v import transform_error
from lsprotocol.types import ErrorCodes

__all__ = [
    "Invalid",
    "Notification",
    "Request",
    "Response",
    "classify",
    "decode",
    "error_response",
    "params_problem",
]

MessageId = int | str

_LONE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


@dataclass(frozen=True, slots=True)
class Request:
    id: MessageId
    method: str
    raw: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Notification:
    method: str
    raw: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Response:
    """A client's answer to a request of the server's."""

    id: MessageId
    raw: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Invalid:
    """No message: ``answer`` when JSON-RPC wants an error response (with ``id``)."""

    code: ErrorCodes
    message: str
    id: MessageId | None = None
    answer: bool = True


Message = Request | Notification | Response | Invalid


def decode(body: bytes) -> object | Invalid:
    """The JSON value of a body, with lone surrogates replaced; ``ParseError`` if none."""
    try:
        text = body.decode("utf-8", "surrogatepass")
        value: object = json.loads(text)
        if _SURROGATE_ESCAPE.search(text) or _LONE.search(text):
            value = _without_lone_surrogates(value)
    except (ValueError, RecursionError) as err:  # JSONDecodeError, UnicodeDecodeError
        reason = err.msg if isinstance(err, json.JSONDecodeError) else type(err).__name__
        return Invalid(ErrorCodes.ParseError, f"Parse error: the body is not JSON ({reason})")
    return value


def _without_lone_surrogates(value: object) -> object:
    if isinstance(value, str):
        return _LONE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {_LONE.sub("\ufffd", k): _without_lone_surrogates(v) for k, v in value.items()}
    return value


def _is_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def classify(value: object) -> Message:
    """Which message a JSON value is (LSP has no batches: an array is an invalid request)."""
    if not isinstance(value, dict):
        return Invalid(ErrorCodes.InvalidRequest, "Invalid request: a message is a JSON object")
    ident = value.get("id")
    readable = ident if _is_id(ident) else None
    has_id, method = "id" in value, value.get("method")
    if "method" not in value:
        if has_id and ("result" in value or "error" in value):
            if readable is None or value.get("jsonrpc") != "2.0":
                return Invalid(ErrorCodes.InvalidRequest, "an invalid response", answer=False)
            return Response(readable, value)
        return Invalid(
            ErrorCodes.InvalidRequest,
            "Invalid request: neither a request, a notification nor a response",
        )
    problem = None
    if value.get("jsonrpc") != "2.0":
        problem = 'Invalid request: "jsonrpc" must be "2.0"'
    elif not isinstance(method, str):
        problem = "Invalid request: the method must be a string"
    elif has_id and readable is None:
        problem = "Invalid request: the id must be an integer or a string"
    elif value.get("params") is not None and not isinstance(value["params"], dict | list):
        problem = "Invalid request: params must be an object or an array"
    if problem is not None:
        return Invalid(ErrorCodes.InvalidRequest, problem, readable, answer=has_id)
    assert isinstance(method, str)
    if readable is None:
        return Notification(method, value)
    return Request(readable, method, value)


def params_problem(method: str, error: Exception) -> str:
    """Why params did not fit their type, as a user can read it (no traceback)."""
    if isinstance(error, BaseValidationError):
        details = "; ".join(transform_error(error)[:3])
    else:
        details = type(error).__name__
    return f"Invalid params for {method}: {details}"


def error_response(ident: MessageId | None, code: int, message: str) -> dict[str, Any]:
    """A response with ``"id": null`` when the id is unknown (lsprotocol would omit it)."""
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}
