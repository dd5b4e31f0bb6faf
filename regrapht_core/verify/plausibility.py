"""Rooflines: what no correct candidate can beat.

The DRAM bound is deliberately loose (every argument's bytes once, at peak bandwidth, no
launch latency), so a time under it is not a fast kernel but a measurement or correctness
hole: skipped work, cached results, or work the timer did not see.

The copy floor is not a plausibility check but an explanation: end to end, a candidate
that copies the caller's arrays pays at least their bytes at the measured copy rates, so
a function whose copies outlast its sequential loop cannot be sped up per call.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from regrapht_core.contracts.evaluation import Timing
from regrapht_core.contracts.task import ParamKind, Role, Task

__all__ = [
    "SECOND_LOOK_SPEEDUP",
    "bytes_moved",
    "copy_floor_ms",
    "roofline_ms",
    "second_look",
    "under_roofline",
]

SECOND_LOOK_SPEEDUP = 1000.0
"""Speedups above this are kept but flagged for a human to look at."""


def bytes_moved(arrays: Sequence[npt.NDArray[np.generic]]) -> int:
    return sum(int(array.nbytes) for array in arrays)


def roofline_ms(moved: int, peak_bytes_per_s: float) -> float:
    return 1e3 * moved / peak_bytes_per_s


def copy_floor_ms(
    task: Task,
    arrays: Sequence[npt.NDArray[np.generic]],
    up_bytes_per_s: float,
    down_bytes_per_s: float,
    returned: int = 0,
) -> float:
    """Inputs copied up and outputs copied down once each (both for ``inout``), and the
    ``returned`` bytes of a returned vector down: a function that returns its result is
    bound by that copy too."""
    up, down = 0, returned
    for arg, array in zip(task.args, arrays, strict=True):
        if arg.kind is ParamKind.SCALAR:
            continue
        if arg.role in (Role.IN, Role.INOUT):
            up += int(array.nbytes)
        if arg.role in (Role.OUT, Role.INOUT):
            down += int(array.nbytes)
    return 1e3 * (up / up_bytes_per_s + down / down_bytes_per_s)


def under_roofline(timing: Timing, bound_ms: float) -> str | None:
    if timing.candidate_ms >= bound_ms:
        return None
    return (
        f"{timing.mode} time {timing.candidate_ms:.4f} ms is below the roofline bound "
        f"{bound_ms:.4f} ms (all arguments once at peak DRAM bandwidth)"
    )


def second_look(timing: Timing) -> str | None:
    if timing.speedup <= SECOND_LOOK_SPEEDUP:
        return None
    return f"speedup {timing.speedup:.0f}x is unusually large: worth a second look"
