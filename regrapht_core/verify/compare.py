"""Compare what a candidate wrote with what the reference wrote, on the verifier's side.

Integers must match exactly; floats within the task's tolerance. A NaN or infinity is
accepted only where the reference has the same value, which is what catches poisoned
(never written) outputs. Feedback names the first differing index with both values, which
is the most useful single fact for the proposer that wrote the code.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from regrapht_core.contracts.task import Tolerance

__all__ = ["first_mismatch"]


def first_mismatch(
    name: str,
    want: npt.NDArray[np.generic],
    got: npt.NDArray[np.generic],
    tolerance: Tolerance | None,
) -> str | None:
    """``None`` when ``got`` matches ``want``; otherwise one line saying where and how.

    ``tolerance`` of ``None`` means exact (integers, and run-to-run comparisons of integer
    outputs); float outputs always use the task's tolerance.
    """
    if want.shape != got.shape:
        return f"output '{name}' has {got.size} elements, expected {want.size}"
    if want.size == 0:
        return None
    if tolerance is None or want.dtype.kind not in "fc":
        count, index = _count_first(want.reshape(-1) != got.reshape(-1))
    else:
        count, index = _outside(want.reshape(-1), got.reshape(-1), tolerance)
    if count == 0:
        return None
    expected = want.reshape(-1)[index].item()
    actual = got.reshape(-1)[index].item()
    return (
        f"output '{name}' differs at index {index}: expected {expected!r}, got {actual!r} "
        f"({count} of {want.size} elements differ)"
    )


_CHUNK = 1 << 18
"""Elements compared at a time: a megabyte of floats, so every pass stays in cache."""


def _count_first(bad: npt.NDArray[np.bool_], offset: int = 0) -> tuple[int, int]:
    """How many are set, and the (offset) index of the first."""
    count = int(np.count_nonzero(bad))
    return count, (offset + int(np.argmax(bad)) if count else -1)


def _outside(
    want: npt.NDArray[np.generic], got: npt.NDArray[np.generic], tolerance: Tolerance
) -> tuple[int, int]:
    """How many elements of ``got`` are not within tolerance of ``want``, and the first.

    Runs in the arrays' own precision, a chunk at a time (outputs at the timing size are
    tens of megabytes, compared several times per candidate); only the elements that fail
    are looked at again for matching NaNs and infinities.
    """
    count, first = 0, -1
    for start in range(0, want.size, _CHUNK):
        w, g = want[start : start + _CHUNK], got[start : start + _CHUNK]
        with np.errstate(invalid="ignore", over="ignore"):
            bound = np.abs(w)
            bound *= tolerance.rtol
            bound += tolerance.atol
            difference = np.subtract(g, w)
            np.abs(difference, out=difference)
            bad: npt.NDArray[np.bool_] = np.logical_not(difference <= bound)
        suspects = np.flatnonzero(bad)
        if suspects.size:
            ws, gs = w[suspects], g[suspects]
            same = (np.isnan(ws) & np.isnan(gs)) | (np.isinf(ws) & (gs == ws))
            bad[suspects[same]] = False
            found, index = _count_first(bad, start)
            count += found
            first = index if first < 0 else first
    return count, first
