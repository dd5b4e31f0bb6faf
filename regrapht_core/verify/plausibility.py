"""Roofline plausibility: no correct candidate moves its data faster than the DRAM allows.

The bound is deliberately loose (every argument's bytes once, at peak bandwidth, no launch
latency), so a time under it is not a fast kernel but a measurement or correctness hole:
skipped work, cached results, or work the timer did not see.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from regrapht_core.contracts.evaluation import Timing

__all__ = ["SECOND_LOOK_SPEEDUP", "bytes_moved", "roofline_ms", "second_look", "under_roofline"]

SECOND_LOOK_SPEEDUP = 1000.0
"""Speedups above this are kept but flagged for a human to look at."""


def bytes_moved(arrays: Sequence[npt.NDArray[np.generic]]) -> int:
    return sum(int(array.nbytes) for array in arrays)


def roofline_ms(moved: int, peak_bytes_per_s: float) -> float:
    return 1e3 * moved / peak_bytes_per_s


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
