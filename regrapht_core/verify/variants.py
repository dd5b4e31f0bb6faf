"""Variants of a task's timing-size inputs: a few elements changed, so no two calls repeat.

Every call a candidate gets at the timing size uses inputs it has never seen: the session's
base inputs with a handful of elements replaced at secret positions. The new values keep to
the argument's distribution (copied from elsewhere in the same array, or, for bounded
ranges of numbers, the range's ends, which moves a maximum or a count; complex numbers
and structs are copied whole); ordered inputs stay sorted,
permutations stay permutations, structured arrays (CSR offsets, graph adjacency) and
constants are left alone. Changing a few elements is cheap for both sides (a line of
protocol, a few stores), yet a candidate that wants to return an earlier answer must first
read all of its inputs to tell whether anything changed, which is the work it was skipping.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from regrapht_core.contracts.task import Distribution, ParamKind, Role, Task
from regrapht_core.tasks.check import STRUCTURED_KINDS

__all__ = ["Change", "Variant", "draw_variant", "encode"]

_PER_ARRAY = 32
"""Elements changed per input array (fewer in arrays shorter than four times this)."""
_FIXED = frozenset({"const", "part", *STRUCTURED_KINDS})


@dataclass(frozen=True, slots=True)
class Change:
    """New values for some elements of one argument."""

    arg: int
    positions: npt.NDArray[np.int64]
    values: npt.NDArray[np.generic]


Variant = tuple[Change, ...]
"""The changes that turn the base inputs into one call's inputs."""


def draw_variant(
    task: Task, base: tuple[npt.NDArray[np.generic], ...], rng: np.random.Generator
) -> Variant:
    """A fresh variant of ``base`` (one array per argument, as the harness loads them)."""
    changes = []
    for index, arg in enumerate(task.args):
        if arg.kind is ParamKind.SCALAR or arg.role is Role.OUT or arg.dist.kind in _FIXED:
            continue
        data = base[index]
        if data.size < 2:
            continue
        change = _change(index, arg.dist, data, rng)
        if change is not None:
            changes.append(change)
    return tuple(changes)


def _change(
    index: int, dist: Distribution, data: npt.NDArray[np.generic], rng: np.random.Generator
) -> Change | None:
    kind, lo, hi = dist.kind, dist.lo, dist.hi
    count = min(_PER_ARRAY, max(1, data.size // 4))
    positions = np.sort(rng.choice(data.size, count, replace=False)).astype(np.int64)
    if kind == "permutation":
        partners = rng.integers(0, data.size, count)
        swapped = data[partners]
        return Change(
            index,
            np.concatenate([positions, partners]).astype(np.int64),
            np.concatenate([swapped, data[positions]]),
        )
    if kind == "sorted":
        left = data[np.maximum(positions - 1, 0)].astype(np.float64)
        right = data[np.minimum(positions + 1, data.size - 1)].astype(np.float64)
        values = left + (right - left) * rng.random(count)
        if data.dtype.kind in "iu":
            values = np.floor(values)
        return Change(index, positions, values.astype(data.dtype))
    if data.dtype.kind == "b":
        return Change(index, positions, np.logical_not(data[positions]))
    copied = data[rng.integers(0, data.size, count)].copy()
    numbers = data.dtype.names is None and data.dtype.kind != "c"
    if (
        numbers
        and kind in ("uniform", "int")
        and count >= 4
        and np.isfinite(lo)
        and np.isfinite(hi)
    ):
        copied[:2] = np.array([lo, hi]).astype(data.dtype)
    return Change(index, positions, copied)


def encode(change: Change) -> str:
    """The harness's ``change`` command for ``change``."""
    width = change.values.dtype.itemsize
    raw = change.values.tobytes()
    items = " ".join(
        f"{int(position)}:{raw[k * width : (k + 1) * width].hex()}"
        for k, position in enumerate(change.positions)
    )
    return f"change {change.arg} {width} {items}"
