"""Labelled timings from the harness's samples."""

from __future__ import annotations

import pytest

from regrapht_core.contracts.task import TimingMode
from regrapht_core.verify.driver import CallSample
from regrapht_core.verify.timing import HOST_WORK_ALLOWANCE_MS, no_gpu_work, summarize


def _samples(kernel_ms: float, host_work_ms: float, launches: int = 1) -> list[CallSample]:
    return [CallSample(9.0, 9.0, kernel_ms, launches, 9.0, host_work_ms) for _ in range(5)]


def test_kernel_only_time_counts_the_host_loop_a_candidate_left_behind() -> None:
    """A token kernel and the real work in a host loop: not a 100x speedup by kernel time."""
    timing = summarize(_samples(0.02, 1.98), [2.0] * 5, TimingMode.KERNEL_ONLY)
    assert timing is not None
    assert timing.candidate_ms == pytest.approx(2.0 - HOST_WORK_ALLOWANCE_MS)
    assert timing.speedup == pytest.approx(1.0, rel=0.02)


def test_the_runtimes_own_few_microseconds_are_not_host_work() -> None:
    """A copy-launch-copy call's unwrapped runtime steps leave its kernel time alone."""
    timing = summarize(_samples(0.025, 0.006), [2.5] * 5, TimingMode.KERNEL_ONLY)
    assert timing is not None and timing.candidate_ms == pytest.approx(0.025)


def test_end_to_end_time_is_the_host_clock_whatever_the_split() -> None:
    timing = summarize(_samples(0.02, 1.98), [18.0] * 5, TimingMode.END_TO_END)
    assert timing is not None and timing.candidate_ms == 9.0 and timing.speedup == 2.0


def test_kernel_only_time_is_unavailable_when_a_call_launched_nothing() -> None:
    assert summarize(_samples(0.0, 2.0, launches=0), [2.0] * 5, TimingMode.KERNEL_ONLY) is None


def test_calls_that_launched_no_kernel_are_not_a_cuda_version() -> None:
    """The sequential loop again, beside kernels it never launches."""
    objection = no_gpu_work(_samples(0.0, 9.0, launches=0))
    assert objection is not None and "no timed call launched a kernel" in objection


def test_a_call_that_launched_a_kernel_is_gpu_work() -> None:
    """One launching call is enough: a candidate that skips calls is caught by fresh inputs
    and checked outputs, not by this rule."""
    samples = [*_samples(0.0, 9.0, launches=0)[:4], *_samples(0.5, 0.0, launches=1)[:1]]
    assert no_gpu_work(samples) is None
    assert no_gpu_work(_samples(0.5, 0.0, launches=2)) is None
