"""When the reference is timed: only inside its turn on the GPU, as candidates are.

A scripted harness stands in for the reference process and records, call by call, whether
the turn was held; the real process and the real GPU lock are in ``test_gpu.py``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from regrapht_core.verify.bank import POOL_SIZE, TimingSet, build_timing_set
from regrapht_core.verify.cases import Case
from regrapht_core.verify.driver import CallSample, Dumped
from regrapht_core.verify.timing import Adaptive
from regrapht_core.verify.variants import Variant
from tests.core.verify.tasks_fixture import SUM


class Turn:
    """A GPU turn that is granted (or not) and says whether it is held."""

    def __init__(self, granted: bool) -> None:
        self.granted = granted
        self.held = False

    @contextmanager
    def __call__(self) -> Iterator[bool]:
        self.held = self.granted
        try:
            yield self.granted
        finally:
            self.held = False


class Reference:
    """The reference process: the base inputs' answer, every call's flush and turn."""

    def __init__(self, turn: Turn) -> None:
        self.turn = turn
        self.calls: list[tuple[bool, bool]] = []
        self.quit_sent = False

    def load(self, folder: str) -> None:
        pass

    def use(self, variant: Variant) -> None:
        pass

    def call(self, *, flush: bool) -> CallSample:
        self.calls.append((flush, self.turn.held))
        return CallSample(5.0, 5.0, 5.0, 0, 5.0)

    def dump(self) -> Dumped:
        return Dumped({"return": np.array([1.0], dtype=np.float32)}, None)

    def skip(self) -> None:
        pass

    def quit(self) -> None:
        self.quit_sent = True


def _build(turn: Turn, reference: Reference, tmp_path: Path) -> TimingSet | None:
    (tmp_path / "base").mkdir()
    arrays = (np.array([64], np.int32), np.arange(64, dtype=np.float32), np.zeros(64, np.float32))
    return build_timing_set(
        SUM,
        Case({"n": 64}, arrays),
        tmp_path,
        reference,  # type: ignore[arg-type]
        adaptive=Adaptive(least=5, most=20, tolerance=0.05),
        turn=turn(),
    )


def test_every_timed_call_of_the_reference_holds_the_gpu_turn(tmp_path: Path) -> None:
    """The answers (unflushed calls) need no turn; each timed call had it."""
    turn = Turn(granted=True)
    reference = Reference(turn)
    timing = _build(turn, reference, tmp_path)
    assert timing is not None
    answers = [held for flush, held in reference.calls if not flush]
    timed = [held for flush, held in reference.calls if flush]
    assert len(answers) == 1 + POOL_SIZE
    assert len(timed) == len(timing.reference_ms) >= 5
    assert all(timed)
    assert reference.quit_sent


def test_no_turn_before_the_deadline_means_no_timing_set(tmp_path: Path) -> None:
    """The deadline passed waiting for the GPU: nothing timed, the process told to quit."""
    turn = Turn(granted=False)
    reference = Reference(turn)
    assert _build(turn, reference, tmp_path) is None
    assert not any(flush for flush, _ in reference.calls)
    assert reference.quit_sent


def test_the_exact_sum_reference_answers_every_variant_and_is_never_timed(
    tmp_path: Path,
) -> None:
    """Its answers sit beside the reference's for each pool variant; its calls are never
    flushed or timed (the baseline is the code as written), and it is told to quit."""
    turn = Turn(granted=True)
    reference, exact = Reference(turn), Exact(turn)
    (tmp_path / "base").mkdir()
    arrays = (np.array([64], np.int32), np.arange(64, dtype=np.float32), np.zeros(64, np.float32))
    timing = build_timing_set(
        SUM,
        Case({"n": 64}, arrays),
        tmp_path,
        reference,  # type: ignore[arg-type]
        adaptive=Adaptive(least=5, most=20, tolerance=0.05),
        turn=turn(),
        exact=exact,  # type: ignore[arg-type]
    )
    assert timing is not None and len(timing.expected) == POOL_SIZE
    for expected in timing.expected:
        assert expected.written["return"][0] == 1.0
        assert expected.exact is not None and expected.exact["return"][0] == 2.0
    assert len(exact.calls) == 1 + POOL_SIZE
    assert not any(flush for flush, _ in exact.calls)
    assert exact.quit_sent


class Exact(Reference):
    def dump(self) -> Dumped:
        return Dumped({"return": np.array([2.0], dtype=np.float32)}, None)
