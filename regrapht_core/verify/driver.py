"""The verifier's side of the harness protocol: one command, one answer, then decide.

A :class:`Harness` wraps a running harness (:mod:`regrapht_core.verify.harness`) in its
private run directory. The verifier asks for a call, reads its timings, and only then says
whether it wants the outputs (``dump``) or not (``next``): a candidate cannot know, while
it runs, whether this call is one that is checked. Outputs are copied out of the session's
shared window as soon as the harness has written them, before the next command lets
candidate code run again.

Any answer that is not the expected one (the process died, hung, or wrote something else
on the protocol pipe) raises :class:`HarnessStopped`; the caller closes the session to
learn how it ended. That exception never leaves the verifier.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from regrapht_core.contracts.task import Task
from regrapht_core.verify.cases import Array, outputs_from_window
from regrapht_core.verify.sandbox import Session
from regrapht_core.verify.variants import Variant, encode

__all__ = ["CallSample", "Dumped", "Harness", "HarnessStopped", "responsive"]

_SWITCH_S = 0.0002
"""The interpreter's thread switch interval while a harness is driven (default: 5 ms)."""


@contextlib.contextmanager
def responsive() -> Iterator[None]:
    """Hand the interpreter lock over quickly while a candidate's session runs.

    Every round trip of the protocol needs the lock when its answer arrives; with builds
    busy in other threads of this process, each waited for the 5 ms switch interval, more
    than once: 34 ms per round trip with four busy threads, 1.3 ms at 0.2 ms
    (benchmarks/results/cpu-harness-round-trip.json). On the H100 that was most of a
    candidate's run time.
    """
    before = sys.getswitchinterval()
    sys.setswitchinterval(min(before, _SWITCH_S))
    try:
        yield
    finally:
        sys.setswitchinterval(before)


class HarnessStopped(Exception):
    """The harness did not answer as the protocol says (see :meth:`Session.close`)."""


@dataclass(frozen=True, slots=True)
class CallSample:
    """One call as the harness measured it (milliseconds)."""

    host_ms: float
    event_ms: float
    kernel_ms: float
    launches: int
    cpu_ms: float
    host_work_ms: float = 0.0
    """The call's host time outside the runtime calls and launches the harness wraps: the
    candidate's own host code (a loop it left on the CPU), which kernel-only time counts."""


@dataclass(frozen=True, slots=True)
class Dumped:
    outputs: dict[str, Array]
    """Every output (and ``"return"``) as the call left it."""
    modified: str | None
    """The name of an input the call changed, if it changed one."""


class Harness:
    def __init__(self, session: Session, task: Task, *, call_wall_s: float | None = None) -> None:
        """``call_wall_s`` bounds each call (a hang ends the session as a timeout)."""
        self._session = session
        self._task = task
        self._call_wall_s = call_wall_s
        self._queued: list[str] = []
        hello = self._ask(None, answer=None)
        if not hello.startswith("hello "):
            raise HarnessStopped(hello)
        self.locked = hello == "hello 1"

    def _ask(
        self, line: str | None, *, answer: str | None = "ok", wall_s: float | None = None
    ) -> str:
        """Send the queued commands and ``line`` in one write; check every answer.

        Commands that only prepare (``load``, ``clear``, ``change``, ``next``) are queued
        and travel with the next one that does something, so a call costs one round trip.
        Nothing that decides about a call is ever sent before its answer has come back.
        """
        queued, self._queued = self._queued, []
        lines = [*queued, *([] if line is None else [line])]
        if lines and not self._session.send(lines):
            raise HarnessStopped("")
        for _ in queued:
            if self._session.ask(None) != "ok":
                raise HarnessStopped("")
        said = self._session.ask(None, wall_s=wall_s)
        if said is None or (answer is not None and said != answer):
            raise HarnessStopped(said or "")
        return said

    def load(self, folder: str) -> None:
        self._queued.append(f"load {folder}")

    def flush(self, device_bytes: int) -> None:
        """Calls with ``flush`` first overwrite this much device memory (the L2 cache)."""
        self._ask(f"flush {device_bytes}")

    def use(self, variant: Variant) -> None:
        """The next calls get the loaded inputs with ``variant``'s changes."""
        self._queued.append("clear")
        self._queued.extend(encode(change) for change in variant)

    def call(self, *, flush: bool) -> CallSample:
        fields = self._ask(f"call {int(flush)}", answer=None, wall_s=self._call_wall_s).split()
        if len(fields) != 7 or fields[0] != "done":
            raise HarnessStopped(" ".join(fields))
        try:
            host, event, kernel = (float(value) for value in fields[1:4])
            used, work = float(fields[5]), float(fields[6])
            return CallSample(host, event, kernel, int(fields[4]), used, work)
        except ValueError as error:
            raise HarnessStopped(" ".join(fields)) from error

    def dump(self) -> Dumped:
        """The last call's outputs, copied now; the inputs checked and reset."""
        said = self._ask("dump", answer=None)
        fields = said.split()
        if len(fields) < 2 or fields[0] != "dumped":
            raise HarnessStopped(said)
        outputs = outputs_from_window(self._task, self._session.window, fields[2:])
        if outputs is None:
            raise HarnessStopped(f"the harness's outputs do not fit the task's: {said}")
        try:
            index = int(fields[1])
            modified = None if index < 0 else self._task.args[index].name
        except (ValueError, IndexError) as error:
            raise HarnessStopped(said) from error
        return Dumped(outputs, modified)

    def skip(self) -> None:
        """The last call's outputs are not wanted; its input changes are undone."""
        self._queued.append("next")

    def quit(self) -> None:
        self._ask("quit", answer="bye")
