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
        w = want.astype(np.float64)
        g = got.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            close = np.abs(g - w) <= tolerance.atol + tolerance.rtol * np.abs(w)
        same_nan = np.isnan(w) & np.isnan(g)
        same_inf = np.isinf(w) & (g == w)
        bad = ~(close | same_nan | same_inf)
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
