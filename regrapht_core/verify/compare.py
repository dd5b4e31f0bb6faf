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
        bad = want != got
    else:
        bad = _outside(want, got, tolerance)
    count = int(np.count_nonzero(bad))
    if count == 0:
        return None
    index = int(np.flatnonzero(bad)[0])
    expected = want.reshape(-1)[index].item()
    actual = got.reshape(-1)[index].item()
    return (
        f"output '{name}' differs at index {index}: expected {expected!r}, got {actual!r} "
        f"({count} of {want.size} elements differ)"
    )


def _outside(
    want: npt.NDArray[np.generic], got: npt.NDArray[np.generic], tolerance: Tolerance
) -> npt.NDArray[np.bool_]:
    """Where ``got`` is not within tolerance of ``want``, in their own precision.

    The bulk comparison runs in the arrays' type with two temporaries (outputs at the
    timing size are tens of megabytes, compared several times per candidate); only the
    elements that fail it are looked at again for matching NaNs and infinities.
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
        w, g = want[suspects], got[suspects]
        same = (np.isnan(w) & np.isnan(g)) | (np.isinf(w) & (g == w))
        bad[suspects[same]] = False
    return bad
