"""Which timing-size calls are checked, tested on the scheduling alone: a scripted harness
stands in for the process (its "outputs" name the variant they were computed for), so a
candidate that turns stale after some call can be run thousands of times."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from regrapht_core.contracts.evaluation import Status
from regrapht_core.verify.bank import POOL_SIZE, TimingSet
from regrapht_core.verify.cases import Case
from regrapht_core.verify.checks import WARMUPS, Verdict, check_and_time
from regrapht_core.verify.compare import Expected
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.driver import CallSample, Dumped
from regrapht_core.verify.timing import Adaptive
from regrapht_core.verify.variants import Change, Variant
from tests.core.verify.tasks_fixture import SUM


def _variant(k: int) -> Variant:
    return (Change(2, np.array([k], dtype=np.int64), np.array([float(k)], dtype=np.float32)),)


class Scripted:
    """Answers honestly (the variant's own answer) until call ``stale_after``, then returns
    the answer it gave last, as a cache would; timings are noisy so calls go on to 30."""

    def __init__(self, timing: TimingSet, stale_after: int, rng: np.random.Generator) -> None:
        self.timing = timing
        self.stale_after = stale_after
        self.rng = rng
        self.calls = 0
        self.variant: Variant = ()
        self.last = np.array([-1.0], dtype=np.float32)

    def load(self, folder: str) -> None:
        pass

    def use(self, variant: Variant) -> None:
        self.variant = variant

    def call(self, *, flush: bool) -> CallSample:
        self.calls += 1
        if self.calls <= self.stale_after:
            known = [k for k, v in enumerate(self.timing.pool) if v is self.variant]
            self.last = np.array([known[0] if known else 1000.0 + self.calls], dtype=np.float32)
        ms = float(self.rng.uniform(0.8, 1.2))
        return CallSample(ms, ms, ms, 1, ms)

    def dump(self) -> Dumped:
        return Dumped({"return": self.last.copy()}, None)

    def skip(self) -> None:
        pass


def _timing() -> TimingSet:
    arrays = (np.array([4], np.int32), np.zeros(4, np.float32), np.zeros(4, np.float32))
    expected = tuple(
        Expected({"return": np.array([k], dtype=np.float32)}) for k in range(POOL_SIZE)
    )
    return TimingSet(
        case=Case({"n": 4}, arrays),
        folder=Path("/nonexistent"),
        pool=tuple(_variant(k) for k in range(POOL_SIZE)),
        expected=expected,
        telling=tuple(range(POOL_SIZE)),
        reference_ms=(10.0,),
    )


def _run(stale_after: int, seed: int) -> Verdict | list[CallSample]:
    rng = np.random.default_rng(seed)
    timing = _timing()
    harness = Scripted(timing, stale_after, rng)
    return check_and_time(
        SUM,
        harness,  # type: ignore[arg-type]
        (),
        (),
        timing,
        adaptive=Adaptive(),
        checked=VerifyConfig().checked_calls,
        rng=rng,
    )


def test_an_honest_candidate_gets_its_samples() -> None:
    found = _run(stale_after=10**6, seed=1)
    assert isinstance(found, list) and 10 <= len(found) <= 30


@pytest.mark.parametrize("stale_after", [0, WARMUPS + 5, WARMUPS + 10, WARMUPS + 15])
def test_a_candidate_that_turns_stale_is_caught(stale_after: int) -> None:
    """Turning stale at any point early enough to move the median (half of up to 30 timed
    calls) is caught almost always: checks fall among the first calls and, at the same
    rate, among the later ones."""
    caught = sum(
        isinstance(v := _run(stale_after, seed), Verdict) and v.status is Status.WRONG_OUTPUT
        for seed in range(400)
    )
    assert caught >= 0.97 * 400, caught
