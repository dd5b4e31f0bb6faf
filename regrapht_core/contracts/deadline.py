"""The one deadline of a job: made once from its time limit, read by everything that waits.

A job's limit used to stop at the search loop: a model step had its own fixed 300 s, the
compiler 120 s, a run 60 s, so a job could overrun its limit by minutes. The job makes one
``Deadline`` on a monotonic clock and hands it to the search (checked between candidates),
to the proposers (generation stops when it passes) and to the verifier (each timeout is
capped by what is left), so a job ends within seconds of its limit.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import overload

__all__ = ["NO_DEADLINE", "Deadline"]

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class Deadline:
    """A point on ``clock`` after which work must stop; ``at=None`` is no limit."""

    at: float | None = None
    clock: Clock = time.monotonic

    @classmethod
    def after(cls, seconds: float | None, *, clock: Clock = time.monotonic) -> Deadline:
        """``seconds`` from now on ``clock``; ``None`` for no limit."""
        return cls(None if seconds is None else clock() + seconds, clock)

    def remaining(self) -> float | None:
        """Seconds left (never negative), or ``None`` without a limit."""
        return None if self.at is None else max(0.0, self.at - self.clock())

    @property
    def expired(self) -> bool:
        return self.at is not None and self.clock() >= self.at

    def stops(self, cancel: threading.Event | None) -> bool:
        """Whether work must stop now: this deadline passed or the job was cancelled (what
        every wait and every step between measurements checks)."""
        return self.expired or (cancel is not None and cancel.is_set())

    def earlier(self, seconds: float) -> Deadline:
        """This deadline ``seconds`` sooner (still none without a limit)."""
        return self if self.at is None else Deadline(self.at - seconds, self.clock)

    @overload
    def cap(self, timeout_s: float) -> float: ...
    @overload
    def cap(self, timeout_s: None) -> float | None: ...
    def cap(self, timeout_s: float | None) -> float | None:
        """``timeout_s`` shortened to what is left; ``None`` only when neither limits."""
        left = self.remaining()
        if left is None or timeout_s is None:
            return timeout_s if left is None else left
        return min(timeout_s, left)


NO_DEADLINE = Deadline()
"""The default where no job's limit applies (a single check, a test)."""
