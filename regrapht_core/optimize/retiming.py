"""Timing an answer again: against a reference timed anew, and, near 1x, in paired rounds.

A job reports the fastest of many noisy measurements, so before it is offered the answer is
measured again (``optimize.job.retimed``). Near 1x that is not enough. The sequential
reference is one CPU thread, and so is the host loop a partial offload leaves behind, so
both move with whatever else the machine does: the same programs measured 1.16-1.45x in one
run and 0.81-0.96x in another (docs/mining.md, the seed control), and in issue 20's run
with the model a histogram answer that offloads only its zeroing loop passed at 1.46x in one
job while the same kind of answer measured 0.98x in the other. So an answer below
:data:`CLOSE_CALL_SPEEDUP` is timed in :data:`PAIRED_ROUNDS` rounds, each the reference and
the answer back to back, the order alternating so a drift in the machine's load does not
favour one side, and it is faster only if it is faster in every round: were each round a
coin flip for a program no faster than the reference, it would pass all five once in 32
times (a bound derived, not measured). Its speedup is then the median round's. The highest
chance pass seen was 1.46x; the threshold leaves room above it.
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from regrapht_core.contracts.deadline import Deadline
from regrapht_core.contracts.evaluation import Evaluation, Status, Timing
from regrapht_core.contracts.task import Task
from regrapht_core.verify.timing import spread

__all__ = [
    "CLOSE_CALL_SPEEDUP",
    "CONFIRMATION_SHARE",
    "PAIRED_ROUNDS",
    "close_call",
    "confirmed",
    "cut_short",
    "rebased",
    "reconfirmed",
    "unconfirmed",
]

CLOSE_CALL_SPEEDUP = 2.0
PAIRED_ROUNDS = 5
CONFIRMATION_SHARE = 0.2
"""The share of a job's time limit its search leaves for confirming the answer: a search that
used it all would leave every close call unconfirmed."""


class Retimer(Protocol):
    """What re-timing needs of the verifier."""

    def verify(self, task: Task, source: str, *, deadline: Deadline) -> Evaluation: ...

    def retime_reference(self, task: Task, *, deadline: Deadline) -> tuple[float, ...] | None: ...


def close_call(result: Evaluation) -> bool:
    """Whether ``result`` is faster by less than timing noise can fake."""
    return result.speedup is not None and 1.0 < result.speedup < CLOSE_CALL_SPEEDUP


def cut_short(result: Evaluation, deadline: Deadline, cancel: threading.Event | None) -> bool:
    """Whether a measurement taken again timed out only because the job's time ran out (or
    it was cancelled): with other jobs holding the GPU, the wait for a turn can outlast the
    deadline. It measured nothing, so it is no verdict on a program whose first run passed."""
    return result.status is Status.TIMEOUT and deadline.stops(cancel)


def rebased(result: Evaluation, reference_ms: Sequence[float]) -> Evaluation:
    """``result`` with its timings against the reference's new times (its own kept)."""
    if result.timing is None:
        return result
    median, width = statistics.median(reference_ms), spread(reference_ms)

    def rebase(timing: Timing) -> Timing:
        return replace(timing, reference_ms=median, reference_spread_ms=width)

    timings = tuple(rebase(timing) for timing in result.timings)
    return replace(result, timing=rebase(result.timing), timings=timings)


def confirmed(
    task: Task,
    code: str,
    second: Evaluation,
    verifier: Retimer,
    deadline: Deadline,
    *,
    cancel: threading.Event | None = None,
) -> Evaluation:
    """``second``, the answer's measurement after its reference was timed again, unless it
    is a close call: then the median of :data:`PAIRED_ROUNDS` paired rounds if it was
    faster in every one, a round's failure if one failed, else :func:`unconfirmed`."""
    if not close_call(second):
        return second
    rounds = [second]
    while _all_faster(rounds) and len(rounds) < PAIRED_ROUNDS and not deadline.stops(cancel):
        answer_first = len(rounds) % 2 == 1
        measured = _paired_round(task, code, verifier, deadline, answer_first=answer_first)
        if cut_short(measured, deadline, cancel):
            break
        rounds.append(measured)
    failed = next((r for r in rounds if r.status is not Status.VERIFIED), None)
    if failed is not None:
        return failed
    said = ", ".join(f"{r.speedup:.2f}x" for r in rounds if r.speedup is not None)
    if not _all_faster(rounds):
        return unconfirmed(second, f"{said}: not faster in every round")
    if len(rounds) < PAIRED_ROUNDS:
        return unconfirmed(second, f"{said}: time ran out after {len(rounds)}")
    middle = sorted(rounds, key=lambda r: r.speedup or 0.0)[len(rounds) // 2]
    note = f"a close call, faster in all {len(rounds)} paired rounds: {said}"
    return replace(middle, flags=(*middle.flags, note))


def reconfirmed(
    task: Task,
    code: str,
    verifier: Retimer,
    deadline: Deadline,
    *,
    cancel: threading.Event | None = None,
) -> Evaluation:
    """A program a search measured once, measured again in a paired round (the reference
    first, as an answer's second measurement follows its reference's) and, if that is a
    close call, confirmed in the rounds after it (:func:`confirmed`). For what is kept
    without being the job's answer: a mined path's end near 1x is as likely a lucky
    measurement as an answer is, and a graph would teach it as a gain."""
    first = _paired_round(task, code, verifier, deadline, answer_first=False)
    if first.status is not Status.VERIFIED:
        return first
    return confirmed(task, code, first, verifier, deadline, cancel=cancel)


def unconfirmed(result: Evaluation, why: str) -> Evaluation:
    """``result`` marked :attr:`Status.UNCONFIRMED`, its timings kept for the record."""
    assert result.speedup is not None
    feedback = (
        f"{result.speedup:.2f}x is within timing noise and was not confirmed in "
        f"{PAIRED_ROUNDS} paired rounds ({why})"
    )
    return replace(
        result, status=Status.UNCONFIRMED, feedback=feedback, flags=(*result.flags, feedback)
    )


def _all_faster(rounds: Sequence[Evaluation]) -> bool:
    return all((r.speedup or 0.0) > 1.0 for r in rounds)


def _paired_round(
    task: Task, code: str, verifier: Retimer, deadline: Deadline, *, answer_first: bool
) -> Evaluation:
    """The answer and the reference timed back to back, in the order given."""
    if not answer_first:
        verifier.retime_reference(task, deadline=deadline)
        return verifier.verify(task, code, deadline=deadline)
    measured = verifier.verify(task, code, deadline=deadline)
    times = verifier.retime_reference(task, deadline=deadline)
    return measured if times is None else rebased(measured, times)
