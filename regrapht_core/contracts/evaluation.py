"""What checking one candidate produced: a status, never an exception.

The reward the search sees is derived here, once, from the status and the measured
speedup (paper, Eq. 3), so no caller can invent one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from regrapht_core.contracts.task import SizeBinding, TimingMode

__all__ = ["DeviceInfo", "Evaluation", "Status", "Timing", "copy_bound", "speedup_reward"]


class Status(StrEnum):
    """Outcome of the first failing stage, or of the whole pipeline."""

    NO_CODE = "no_code"
    """The proposer returned nothing that parses as a candidate."""
    GATE_REJECTED = "gate_rejected"
    COMPILE_ERROR = "compile_error"
    CRASH = "crash"
    """Non-zero exit, signal, CUDA launch/runtime error, out of memory."""
    TIMEOUT = "timeout"
    WRONG_OUTPUT = "wrong_output"
    INPUT_MODIFIED = "input_modified"
    NONDETERMINISTIC = "nondeterministic"
    SANITIZER_ERROR = "sanitizer_error"
    UNCONFIRMED = "unconfirmed"
    """Correct, and measured faster by less than timing noise can fake, but not faster in
    every one of the paired re-timings that would confirm it (or they could not all run
    in the job's time): not offered as faster (``optimize.retiming``)."""
    IMPLAUSIBLE = "implausible"
    """Faster than the roofline allows, the event timer disagrees with the wall clock, work
    ran on other CPU threads, or no call launched a kernel (not a CUDA version)."""
    NOT_RUN = "not_run"
    """Passed the static gate and compiled; no GPU to run it. Never labelled verified."""
    VERIFIED = "verified"

    @property
    def failed(self) -> bool:
        return self not in (Status.NOT_RUN, Status.VERIFIED)


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    name: str
    driver: str
    nvcc: str
    arch: str


def copy_bound(copy_floor_ms: float | None, reference_ms: float | None) -> bool:
    """The copies alone take longer than the sequential code: end to end, no CUDA version
    that moves the data per call can be faster, on this machine."""
    return copy_floor_ms is not None and reference_ms is not None and copy_floor_ms >= reference_ms


@dataclass(frozen=True, slots=True)
class Timing:
    """Medians and spread of interleaved timed calls, in milliseconds."""

    mode: TimingMode
    reference_ms: float
    candidate_ms: float
    reference_spread_ms: float
    candidate_spread_ms: float
    runs: int
    copy_floor_ms: float | None = None
    """End-to-end only: how long copying every array argument once takes (inputs to the
    device, outputs back) at the machine's measured ``cudaMemcpy`` rates for pageable
    memory. A candidate that copies the caller's data cannot beat the reference by more
    than ``reference_ms / copy_floor_ms``, however fast its kernels."""

    @property
    def speedup(self) -> float:
        return self.reference_ms / self.candidate_ms

    @property
    def copy_bound(self) -> bool:
        return copy_bound(self.copy_floor_ms, self.reference_ms)

    def copy_bound_note(self) -> str:
        """Why a faster end-to-end answer cannot exist here, for the user."""
        return (
            f"copying the arguments to the GPU and back takes at least "
            f"{self.copy_floor_ms or 0.0:.3g} ms at this machine's measured copy rates, and "
            f"the sequential code takes {self.reference_ms:.3g} ms: a CUDA version must keep "
            "the data on the GPU across calls to be faster (optimize the kernel that works "
            "on it instead)"
        )


@dataclass(frozen=True, slots=True)
class Evaluation:
    status: Status
    code_hash: str
    feedback: str = ""
    """Short, trimmed text for the proposer: first compiler errors, first mismatch, etc."""
    timing: Timing | None = None
    device: DeviceInfo | None = None
    sizes: tuple[SizeBinding, ...] = ()
    seeds: int = 0
    flags: tuple[str, ...] = field(default=())
    """Non-fatal observations, e.g. a sanitizer stage skipped."""
    timings: tuple[Timing, ...] = ()
    """Every mode that was measured (end-to-end, and kernel-only where the launches could be
    timed), each labelled; ``timing`` is the one the task asked for and the reward uses."""

    @property
    def verified(self) -> bool:
        return self.status is Status.VERIFIED and self.timing is not None

    @property
    def speedup(self) -> float | None:
        return self.timing.speedup if self.verified and self.timing else None

    @property
    def reward(self) -> float | None:
        """Paper Eq. 3: -1 on any failure; speedup - 1 if slower; speedup if faster.

        ``None`` when nothing was measured (no GPU): an unmeasured candidate earns no reward.
        """
        if self.status.failed:
            return -1.0
        speedup = self.speedup
        return None if speedup is None else speedup_reward(speedup)


def speedup_reward(speedup: float) -> float:
    """Paper Eq. 3 for a correct candidate: ``speedup - 1`` if slower, else ``speedup``."""
    return speedup - 1.0 if speedup < 1.0 else speedup
