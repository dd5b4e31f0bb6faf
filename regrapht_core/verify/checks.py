"""One candidate process, start to end: the small cases, then the timed calls.

The small cases (every correctness size, fresh secret seeds) run first, each called twice:
the first call is compared with the reference's outputs, the second with the first
(determinism). Then the timing-size calls: each gets the base inputs with a variant no call
has had before; a secret few of them are pool variants whose answers are known, and only
after such a call has returned does the verifier ask for its outputs, so the candidate
cannot know which calls are checked. Every call is timed; calls stop when the median is
stable (:class:`~regrapht_core.verify.timing.Adaptive`) and every checked call is done.

Which calls are checked: ``checked`` pool variants at secret positions among the first
``WARMUPS + least`` calls (which always happen), and past those, each further call with the
same rate while the pool lasts, so a candidate that behaves until the median could settle
and then cheats is still compared now and then, without knowing when.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from regrapht_core.contracts.evaluation import Status
from regrapht_core.contracts.task import SizeBinding, Task
from regrapht_core.verify.bank import BASE_FOLDER, TimingSet
from regrapht_core.verify.cases import Array, Case, case_folder
from regrapht_core.verify.compare import Expected
from regrapht_core.verify.driver import CallSample, Harness
from regrapht_core.verify.timing import Adaptive

__all__ = ["WARMUPS", "Verdict", "check_and_time"]

log = logging.getLogger(__name__)

WARMUPS = 2
"""Calls before the timed ones; they are checked like any other when drawn."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """A check's finding that ends the run."""

    status: Status
    feedback: str


def check_and_time(
    task: Task,
    harness: Harness,
    small: Sequence[Case],
    expected: Sequence[Expected],
    timing: TimingSet,
    *,
    adaptive: Adaptive,
    checked: int,
    rng: np.random.Generator,
) -> Verdict | list[CallSample]:
    """Raises ``HarnessStopped`` when the process stops answering (the caller learns why)."""
    began = time.perf_counter()
    for k, (case, want) in enumerate(zip(small, expected, strict=True)):
        harness.load(case_folder(k))
        harness.use(())
        verdict = _checked_call(task, harness, case.binding, want)
        if isinstance(verdict, Verdict):
            return verdict
        again = _checked_call(
            task, harness, case.binding, Expected(verdict), against="a second call"
        )
        if isinstance(again, Verdict):
            return again
    log.info("%s: %d small cases in %.2f s", task.name, len(small), time.perf_counter() - began)
    return _timed(task, harness, timing, adaptive=adaptive, checked=checked, rng=rng)


def _timed(
    task: Task,
    harness: Harness,
    timing: TimingSet,
    *,
    adaptive: Adaptive,
    checked: int,
    rng: np.random.Generator,
) -> Verdict | list[CallSample]:
    harness.load(BASE_FOLDER)
    drawn = rng.permutation(np.array(timing.telling or range(len(timing.pool)))).tolist()
    first = WARMUPS + adaptive.least
    planned = drawn[: min(checked, len(drawn))]
    later = drawn[len(planned) :]
    positions = rng.choice(first, len(planned), replace=False)
    plan = {int(p): k for p, k in zip(positions, planned, strict=True)}
    late_rate = len(planned) / first
    samples: list[CallSample] = []
    call = 0
    while call < WARMUPS or plan or not adaptive.enough([s.host_ms for s in samples]):
        pool = plan.pop(call, None)
        if pool is None and call >= first and later and rng.random() < late_rate:
            pool = later.pop()
        harness.use(timing.fresh(task, rng) if pool is None else timing.pool[pool])
        sample = harness.call(flush=True)
        if call >= WARMUPS:
            samples.append(sample)
        if pool is None:
            harness.skip()
        else:
            where = f"call {call + 1} at the timing size"
            verdict = _checked_call(
                task,
                harness,
                timing.case.binding,
                timing.expected[pool],
                where=where,
                called=True,
            )
            if isinstance(verdict, Verdict):
                return verdict
        call += 1
    return samples


def _checked_call(
    task: Task,
    harness: Harness,
    binding: SizeBinding,
    want: Expected,
    *,
    against: str | None = None,
    where: str | None = None,
    called: bool = False,
) -> Verdict | dict[str, Array]:
    """Call (unless ``called``), then inputs untouched and outputs equal to ``want`` (the
    reference's, or an earlier call's when ``against`` names the comparison)."""
    if not called:
        harness.call(flush=False)
    dumped = harness.dump()
    place = where or f"at size {dict(binding)}"
    if dumped.modified is not None:
        return Verdict(Status.INPUT_MODIFIED, f"{place}: input '{dumped.modified}' was modified")
    for name in want.written:
        mismatch = want.mismatch(name, dumped.outputs[name], task.tolerance.at(binding))
        if mismatch is None:
            continue
        if against is None:
            return Verdict(Status.WRONG_OUTPUT, f"{place}: {mismatch}")
        return Verdict(
            Status.NONDETERMINISTIC, f"{place}, {against} on the same inputs: {mismatch}"
        )
    return dumped.outputs
