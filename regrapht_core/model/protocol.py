"""The one seam between the search and a language model.

The search asks for a completion and must stay responsive: a user may cancel the job, and a
stuck model must not stall a rollout or outlive the job's time limit. So every backend
streams, checks a cancellation event and the job's deadline between tokens, and reports
*how* generation ended as a value rather than raising. Exceptions (``ModelError``) are
kept for what a user must fix: a model that cannot be loaded or reached.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, Protocol

from regrapht_core.contracts.deadline import NO_DEADLINE, Deadline

__all__ = [
    "ChatMessage",
    "CodeModel",
    "Completion",
    "FinishReason",
    "GpuTurn",
    "Sampling",
    "StopWatch",
    "TokenSink",
    "approx_token_count",
]

Role = Literal["system", "user", "assistant"]

TokenSink = Callable[[str], None]
"""Receives each piece of text as it is generated (streaming)."""

GpuTurn = Callable[[Deadline, "threading.Event | None"], AbstractContextManager[bool]]
"""Called with the job's deadline and cancel event, a context that holds the GPU and yields
``True``, or yields ``False`` if the deadline passed or the job was cancelled first. A model
on the GPU answers inside it, so its answers and the verifier's timing runs take turns."""


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: Role
    content: str


class FinishReason(StrEnum):
    STOP = "stop"
    """The model ended its answer or hit a stop sequence."""
    LENGTH = "length"
    """``max_tokens`` reached: the answer may be truncated."""
    CANCELLED = "cancelled"
    TIMEOUT = "timeout"


@dataclass(frozen=True, slots=True)
class Sampling:
    """How one answer is drawn: how long it may get, how random it is, where it stops."""

    max_tokens: int
    temperature: float = 0.0
    seed: int | None = None
    stop: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Completion:
    """The text generated so far and how generation ended, with its timing."""

    text: str
    finish_reason: FinishReason
    tokens: int
    """Streamed pieces received; one per token for both backends shipped here."""
    first_token_s: float | None
    """Seconds from the call to the first piece; ``None`` if nothing came."""
    total_s: float

    @property
    def tokens_per_s(self) -> float | None:
        """Decode speed after the first token, the figure that scales with answer length."""
        if self.first_token_s is None or self.tokens < 2:
            return None
        decode_s = self.total_s - self.first_token_s
        return (self.tokens - 1) / decode_s if decode_s > 0 else None


class CodeModel(Protocol):
    """A chat model that writes code; implementations must never write to stdout."""

    @property
    def name(self) -> str: ...

    @property
    def context_tokens(self) -> int:
        """Tokens the prompt and the answer must share."""
        ...

    def count_tokens(self, text: str) -> int: ...

    def generate(
        self,
        messages: Sequence[ChatMessage],
        sampling: Sampling,
        *,
        on_token: TokenSink | None = None,
        cancel: threading.Event | None = None,
        deadline: Deadline = NO_DEADLINE,
    ) -> Completion:
        """Stream an answer; a cancel or the ``deadline`` ends it early, as a finish reason."""
        ...


def approx_token_count(text: str) -> int:
    """Upper-leaning estimate for when no tokenizer is at hand (HTTP servers).

    Code tokenizes denser than prose; about three characters a token keeps budgets on the
    safe side for the BPE vocabularies of current small models.
    """
    return (len(text) + 2) // 3


_SHORTEST_WAIT_S = 0.01
"""A socket timeout of zero would make it non-blocking: waits never go below this."""


class StopWatch:
    """Collects pieces and decides, between tokens, whether to stop early.

    Shared by the backends so cancellation, the deadline and the timing figures mean the
    same everywhere.
    """

    def __init__(
        self,
        *,
        on_token: TokenSink | None,
        cancel: threading.Event | None,
        deadline: Deadline,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._on_token = on_token
        self._cancel = cancel
        self._deadline = deadline
        self._clock = clock
        self.started = clock()
        self._pieces: list[str] = []
        self._first: float | None = None

    def interrupt(self) -> FinishReason | None:
        """Why generation must stop now, if it must."""
        if self._cancel is not None and self._cancel.is_set():
            return FinishReason.CANCELLED
        if self._deadline.expired:
            return FinishReason.TIMEOUT
        return None

    def wait_s(self, timeout_s: float) -> float:
        """``timeout_s`` for one blocking wait, cut to what is left before the deadline."""
        return max(_SHORTEST_WAIT_S, self._deadline.cap(timeout_s))

    def add(self, piece: str) -> None:
        if not piece:
            return
        if self._first is None:
            self._first = self._clock() - self.started
        self._pieces.append(piece)
        if self._on_token is not None:
            self._on_token(piece)

    def finish(self, reason: FinishReason) -> Completion:
        return Completion(
            text="".join(self._pieces),
            finish_reason=reason,
            tokens=len(self._pieces),
            first_token_s=self._first,
            total_s=self._clock() - self.started,
        )
