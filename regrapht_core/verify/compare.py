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
from regrapht_core.verify.chunks import chunk_map

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
    flat_want, flat_got = want.reshape(-1), got.reshape(-1)
    if tolerance is None or want.dtype.kind not in "fc":
        found = chunk_map(lambda a, b: _count_first(flat_want[a:b] != flat_got[a:b], a), want.size)
    else:
        allowed = tolerance
        found = chunk_map(
            lambda a, b: _outside(flat_want[a:b], flat_got[a:b], allowed, a), want.size
        )
    count = sum(n for n, _ in found)
    index = next((first for n, first in found if n), -1)
    if count == 0:
        return None
    expected = flat_want[index].item()
    actual = flat_got[index].item()
    return (
        f"output '{name}' differs at index {index}: expected {expected!r}, got {actual!r} "
        f"({count} of {want.size} elements differ)"
    )


def _count_first(bad: npt.NDArray[np.bool_], offset: int = 0) -> tuple[int, int]:
    """How many are set, and the (offset) index of the first."""
    count = int(np.count_nonzero(bad))
    return count, (offset + int(np.argmax(bad)) if count else -1)


def _outside(
    want: npt.NDArray[np.generic],
    got: npt.NDArray[np.generic],
    tolerance: Tolerance,
    offset: int,
) -> tuple[int, int]:
    """How many elements of ``got`` (one chunk) are not within tolerance of ``want``, and the
    first (``offset`` added).

    Runs in the arrays' own precision; only the elements that fail are looked at again for
    matching NaNs and infinities.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        bound = np.abs(want)
        bound *= tolerance.rtol
        bound += tolerance.atol
        difference = np.subtract(got, want)
        np.abs(difference, out=difference)
        bad: npt.NDArray[np.bool_] = np.logical_not(difference <= bound)
    suspects = np.flatnonzero(bad)
    if suspects.size:
        ws, gs = want[suspects], got[suspects]
        same = (np.isnan(ws) & np.isnan(gs)) | (np.isinf(ws) & (gs == ws))
        bad[suspects[same]] = False
    return _count_first(bad, offset)
