"""Compare what a candidate wrote with what the reference wrote, on the verifier's side.

Integers and bools must match exactly (bools byte for byte, so an unwritten, poisoned
``bool`` never reads as ``true``); floats within the task's tolerance. A NaN or infinity is
accepted only where the reference has the same value, which is what catches poisoned
(never written) outputs. Complex numbers are compared part by part, structs and pairs
member by member (padding never), each number by its own type's rule. Feedback names the
first differing index (and member) with both values, which is the most useful single fact
for the proposer that wrote the code.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from regrapht_core.contracts.task import Tolerance
from regrapht_core.verify.chunks import chunk_map

__all__ = ["Expected", "first_mismatch"]

Array = npt.NDArray[np.generic]


@dataclass(frozen=True, slots=True)
class Expected:
    """What a call's outputs must match: the reference's answer, or, for a task whose
    whole-function float sums drift with their length, the same reference's answer with
    those sums accumulated in double (:mod:`regrapht_core.verify.exact`)."""

    written: Mapping[str, Array]
    exact: Mapping[str, Array] | None = None

    def mismatch(self, name: str, got: Array, tolerance: Tolerance | None) -> str | None:
        """``None`` when ``got`` matches either answer; else the written one's mismatch."""
        found = first_mismatch(name, self.written[name], got, tolerance)
        if found is None or self.exact is None:
            return found
        return None if first_mismatch(name, self.exact[name], got, tolerance) is None else found


def first_mismatch(
    name: str,
    want: Array,
    got: Array,
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
    if want.dtype.names is not None or want.dtype.kind == "c":
        return _compound_mismatch(name, want.reshape(-1), got.reshape(-1), tolerance)
    flat_want, flat_got = _comparable(want.reshape(-1)), _comparable(got.reshape(-1))
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


def _comparable(values: Array) -> Array:
    """Bools as their bytes: numpy reads any nonzero byte as ``True``."""
    return values.view(np.uint8) if values.dtype.kind == "b" else values


MemberPath = tuple[tuple[str, int], ...]
"""Member names (``.pos``) and how many dimensions each adds (a fixed array member: 1)."""


def _leaves(
    values: Array, path: MemberPath = ()
) -> Iterator[tuple[MemberPath, tuple[int, ...], Array]]:
    """Every number inside a complex, struct or pair array: its member path, the shape
    fixed array members add, and a view of shape (elements, numbers)."""
    dtype = values.dtype
    if dtype.names is not None:
        for member in dtype.names:
            inner = values[member]  # type: ignore[call-overload]
            yield from _leaves(inner, (*path, (f".{member}", inner.ndim - values.ndim)))
    elif dtype.kind == "c":
        yield from _leaves(values.real, (*path, (".real", 0)))
        yield from _leaves(values.imag, (*path, (".imag", 0)))
    else:
        yield path, values.shape[1:], values.reshape(values.shape[0], -1)


def _compound_mismatch(
    name: str, want: Array, got: Array, tolerance: Tolerance | None
) -> str | None:
    leaves = list(zip(_leaves(want), _leaves(got), strict=True))

    def chunk(a: int, b: int) -> tuple[int, int, int, int]:
        """Differing elements in [a, b), and the first one's index, leaf and number."""
        bad = np.zeros(b - a, dtype=bool)
        first: tuple[int, int, int] | None = None
        for k, ((_, _, w), (_, _, g)) in enumerate(leaves):
            ws, gs = _comparable(w[a:b]), _comparable(g[a:b])
            if tolerance is not None and ws.dtype.kind == "f":
                wrong = _outside_mask(ws, gs, tolerance)
            else:
                wrong = ws != gs
                if ws.dtype.kind == "f":
                    wrong &= ~(np.isnan(ws) & np.isnan(gs))
            rows = wrong.any(axis=1)
            if rows.any():
                row = int(np.argmax(rows))
                if first is None or row < first[0]:
                    first = (row, k, int(np.argmax(wrong[row])))
            bad |= rows
        count = int(np.count_nonzero(bad))
        if first is None:
            return count, -1, -1, -1
        return count, a + first[0], first[1], first[2]

    found = chunk_map(chunk, want.size)
    count = sum(c for c, *_ in found)
    if count == 0:
        return None
    _, index, leaf, column = next(f for f in found if f[0])
    (label, shape, w), (_, _, g) = leaves[leaf]
    where = f"{name}[{index}]{_member_label(label, shape, column)}"
    expected = _comparable(w)[index, column].item()
    actual = _comparable(g)[index, column].item()
    return (
        f"output '{name}' differs at {where}: got {actual!r}, want {expected!r} "
        f"({count} of {want.size} elements differ)"
    )


def _member_label(path: MemberPath, shape: tuple[int, ...], column: int) -> str:
    """``.pos[2]`` for the third number of a ``float pos[3]`` member, ``.corners[1].x`` for
    a member of the second element of a ``Vec3 corners[3]`` member."""
    indices = list(np.unravel_index(column, shape)) if shape else []
    label = ""
    for text, dims in path:
        label += text + "".join(f"[{int(indices.pop(0))}]" for _ in range(dims))
    return label


def _outside_mask(want: Array, got: Array, tolerance: Tolerance) -> npt.NDArray[np.bool_]:
    """Which numbers of ``got`` are outside ``tolerance`` of ``want`` (a NaN or infinity
    only matches the same value)."""
    with np.errstate(invalid="ignore", over="ignore"):
        bound = np.abs(want) * tolerance.rtol + tolerance.atol
        bad: npt.NDArray[np.bool_] = np.logical_not(np.abs(np.subtract(got, want)) <= bound)
    if bad.any():
        same = (np.isnan(want) & np.isnan(got)) | (np.isinf(want) & (got == want))
        bad &= ~same
    return bad


def _count_first(bad: npt.NDArray[np.bool_], offset: int = 0) -> tuple[int, int]:
    """How many are set, and the (offset) index of the first."""
    count = int(np.count_nonzero(bad))
    return count, (offset + int(np.argmax(bad)) if count else -1)


def _outside(
    want: Array,
    got: Array,
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
