"""Core values for unit tests, built through the core's own types: a real task from the
bundled example, and outcomes as the search would report them."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from regrapht_core.contracts.evaluation import DeviceInfo, Evaluation, Status, Timing
from regrapht_core.contracts.proposal import Candidate, SearchResult, StepRecord
from regrapht_core.contracts.task import SourceLanguage, Task, TimingMode
from regrapht_core.optimize.job import OptimizeOutcome
from regrapht_core.tasks.extract import extract_task

from .conftest import EXAMPLE

H100 = DeviceInfo("NVIDIA H100 80GB HBM3", "580.95", "13.0", "sm_90")
KERNEL = """\
__global__ void smooth_kernel(int n, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}
"""
CANDIDATE = f"""\
#include <cuda_runtime.h>
#include <cstddef>

constexpr int RADIUS = 16;

{KERNEL}
void smooth(int n, const float* x, float* y) {{
    smooth_kernel<<<(n + 255) / 256, 256>>>(n, x, y);
}}
"""


@cache
def smooth_task() -> Task:
    return extract_task(EXAMPLE.read_text(), SourceLanguage.CPP, function="smooth")


def verified(speedup: float) -> Evaluation:
    timing = Timing(TimingMode.END_TO_END, 10.0 * speedup, 10.0, 0.1, 0.2, 30)
    sizes = ({"n": 1}, {"n": 7}, {"n": 1 << 22})
    return Evaluation(Status.VERIFIED, "h", timing=timing, device=H100, sizes=sizes, seeds=3)


NOT_RUN = Evaluation(Status.NOT_RUN, "h", feedback="no GPU on this machine: compiled, not run")


def outcome(
    results: Sequence[Evaluation],
    *,
    gpu: bool,
    code: str = CANDIDATE,
    cancelled: bool = False,
) -> OptimizeOutcome:
    """A chain of candidates, each derived from the one before, with ``results`` in order."""
    techniques = ("parallelization", "shared_memory_tiling", "loop_unrolling")
    candidates = tuple(
        Candidate(i, i - 1 if i else None, techniques[i], "expand", "rewriter:x", code, "", r)
        for i, r in enumerate(results)
    )
    timed = [c for c in candidates if c.result.verified]
    best = max(timed, key=lambda c: c.result.speedup or 0.0, default=None)
    compiled = [c for c in candidates if c.result.status is Status.NOT_RUN]
    unmeasured = compiled[-1] if compiled else None
    answer = best or unmeasured
    path = (
        tuple(
            StepRecord(
                c.technique, c.producer, "", c.result.speedup, c.result.reward, c.result.status
            )
            for c in candidates[: answer.index + 1]
        )
        if answer
        else ()
    )
    reason = "cancelled" if cancelled else "budget"
    search = SearchResult(candidates, best, unmeasured, cancelled, reason, path)
    return OptimizeOutcome(smooth_task(), search, "qwen2.5-coder-0.5b", gpu=gpu)
