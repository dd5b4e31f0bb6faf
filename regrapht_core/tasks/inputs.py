"""Inputs for one run of a task: every input and in-out argument, drawn from its seed.

The verifier calls this with fresh secret seeds, so a candidate can neither memorise
inputs nor be lucky on one draw. Each argument draws from its own stream, derived from the
seed and the argument's position, so adding an argument never changes the others. Edge
values (zero, the range ends, negatives where the range has them) are mixed into plain
draws because that is where hand-written kernels go wrong. Complex numbers draw their
real and imaginary parts, structs and pairs each member, from the argument's distribution
(each member from its own type's default when the argument has none of its own).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from regrapht_core.contracts.task import (
    ArgSpec,
    Distribution,
    ParamKind,
    Record,
    Role,
    SizeBinding,
    Task,
)
from regrapht_core.errors import TaskError
from regrapht_core.tasks.annotation import default_dist
from regrapht_core.tasks.check import STRUCTURED_KINDS
from regrapht_core.tasks.dtypes import is_arithmetic, numpy_dtype
from regrapht_core.tasks.expr import evaluate
from regrapht_core.tasks.sizes import arg_length, scalar_value

__all__ = ["InputValue", "generate_inputs"]

InputValue = npt.NDArray[np.generic] | int | float
"""An array for pointer, vector and array arguments, a number for number scalars, a
one-element array for complex, pair and struct scalars."""

_EDGE_SHARE = 64
"""One element in this many (at least one) is replaced by an edge value."""
_EDGE_MIN_LENGTH = 8
"""Shorter arrays keep plain draws: a size-1 input that is always 0 would test nothing."""


def generate_inputs(task: Task, binding: SizeBinding, seed: int) -> dict[str, InputValue]:
    """Scalars and ``in``/``inout`` arrays by name, in declaration order.

    ``out`` arguments are absent: the verifier allocates and poisons them itself, with
    lengths from :func:`regrapht_core.tasks.sizes.arg_length`.
    """
    by_name = {a.name: a for a in task.args}
    values: dict[str, InputValue] = {}
    for index, arg in enumerate(task.args):
        rng = np.random.default_rng([seed & 0xFFFF_FFFF_FFFF_FFFF, index])
        if arg.kind is ParamKind.SCALAR and is_arithmetic(arg.ctype):
            values[arg.name] = scalar_value(arg, binding)
        elif arg.kind is ParamKind.SCALAR:
            dtype = numpy_dtype(arg.ctype, records=task.records, where=f"input {arg.name!r}")
            values[arg.name] = _draw(rng, arg.dist, dtype=dtype, length=1, where=arg.name)
        elif arg.role is not Role.OUT and arg.dist.kind != "part":
            values.update(_array(arg, by_name, binding, rng, task.records))
    return {a.name: values[a.name] for a in task.args if a.name in values}


def _array(
    arg: ArgSpec,
    by_name: dict[str, ArgSpec],
    binding: SizeBinding,
    rng: np.random.Generator,
    records: tuple[Record, ...],
) -> dict[str, InputValue]:
    where = f"input {arg.name!r}"
    dtype = numpy_dtype(arg.ctype, records=records, where=where)
    length = arg_length(arg, binding)
    dist = arg.dist
    if dist.kind in STRUCTURED_KINDS:
        companion = by_name[dist.param(STRUCTURED_KINDS[dist.kind]) or ""]
        count = arg_length(companion, binding)
        cdtype = numpy_dtype(companion.ctype, where=f"input {companion.name!r}")
        if dist.kind == "csr":
            cols_expr = dist.param("cols") or str(length - 1)
            cols = int(evaluate(cols_expr, binding, where=where))
            offsets, targets = _csr(rng, length - 1, cols, count, where)
        else:
            offsets, targets = _graph(rng, length - 1, count, where)
        return {arg.name: offsets.astype(dtype), companion.name: targets.astype(cdtype)}
    if dist.kind == "permutation":
        return {arg.name: rng.permutation(length).astype(dtype)}
    if dist.kind == "const":
        return {arg.name: np.full(length, dist.lo).astype(dtype)}
    if dist.kind == "image":
        return {arg.name: _image(rng, dist, binding, dtype, where)}
    if dtype.names is not None or dtype.kind == "c":
        return {arg.name: _draw(rng, dist, dtype=dtype, length=length, where=where)}
    data = _plain(rng, dist, dtype, length, where)
    if dist.kind == "sorted":
        data.sort()
    return {arg.name: data}


def _plain(
    rng: np.random.Generator,
    dist: Distribution,
    dtype: np.dtype[np.generic],
    length: int,
    where: str,
) -> npt.NDArray[np.generic]:
    if dtype.kind == "b":
        return rng.integers(0, 2, length).astype(dtype)
    integral = dtype.kind in "iu"
    lo, hi = dist.lo, dist.hi
    if integral:
        info = np.iinfo(dtype)  # type: ignore[type-var]
        lo, hi = max(math.ceil(lo), int(info.min)), min(math.floor(hi), int(info.max))
        if lo > hi:
            raise TaskError(
                f"{where}: the range [{dist.lo}, {dist.hi}] holds no {dtype.name} value"
            )
    if dist.kind == "normal":
        data: npt.NDArray[np.generic] = rng.normal(dist.mean, dist.std, length)
        if integral:
            data = np.clip(np.rint(data), lo, hi)
        edges = [0.0, dist.mean]
    elif integral:
        data = rng.integers(int(lo), int(hi), length, endpoint=True)
        edges = [float(lo), float(hi)]
    else:
        data = rng.uniform(lo, hi, length)
        edges = [lo, hi]
    if dist.kind != "normal" and lo <= 0 <= hi:
        edges.append(0.0)
    if dist.param("edges") != "no" and length >= _EDGE_MIN_LENGTH:
        count = max(1, length // _EDGE_SHARE)
        positions = rng.choice(length, count, replace=False)
        data[positions] = rng.choice(np.array(edges), count)
    return data.astype(dtype)


def _draw(
    rng: np.random.Generator,
    dist: Distribution,
    *,
    dtype: np.dtype[np.generic],
    length: int,
    where: str,
) -> npt.NDArray[np.generic]:
    """``length`` elements of any element type: numbers as :func:`_plain`, complex numbers
    part by part, structs and pairs member by member (padding bytes zero)."""
    if dtype.names is None and dtype.kind != "c":
        if dist.kind == "const":
            return np.full(length, dist.lo).astype(dtype)
        return _plain(rng, dist, dtype, length, where)
    out = np.zeros(length, dtype=dtype)
    for path, leaf in _leaf_paths(dtype):
        view = out
        for name in path:
            view = view[name]
        complex_ = leaf.kind == "c"
        part = np.dtype(np.float32 if leaf.itemsize == 8 else np.float64) if complex_ else leaf
        own = dist if dist != Distribution() else default_dist(_CTYPES[part.name])
        draws = [
            _draw(rng, own, dtype=part, length=view.size, where=where)
            for _ in range(2 if complex_ else 1)
        ]
        values = np.add(draws[0], np.multiply(draws[1], 1j)) if complex_ else draws[0]
        view[...] = values.reshape(view.shape)
    return out


def _leaf_paths(dtype: np.dtype[np.generic]) -> list[tuple[tuple[str, ...], np.dtype[np.generic]]]:
    """Every number inside a complex, struct or pair dtype: its member path and its dtype
    (a complex member is one leaf, a fixed array member one leaf of its element type)."""
    if dtype.subdtype is not None:
        return _leaf_paths(dtype.subdtype[0])
    if dtype.names is None:
        return [((), dtype)]
    found = []
    for name in dtype.names:
        for path, leaf in _leaf_paths(dtype.fields[name][0]):  # type: ignore[index]
            found.append(((name, *path), leaf))
    return found


_CTYPES = {
    "float32": "float",
    "float64": "double",
    "float16": "half",
    "bool": "bool",
    "int8": "int8_t",
    "uint8": "uint8_t",
    "int16": "int16_t",
    "uint16": "uint16_t",
    "int32": "int32_t",
    "uint32": "uint32_t",
    "int64": "int64_t",
    "uint64": "uint64_t",
}


def _distinct(rng: np.random.Generator, pool: int, count: int) -> npt.NDArray[np.int64]:
    """``count`` distinct sorted integers below ``pool``, fast when ``pool`` is huge."""
    if count * 4 > pool:
        return np.sort(rng.choice(pool, count, replace=False))
    found = _sorted_unique(rng.integers(0, pool, count + count // 8 + 16))
    while len(found) < count:
        found = _sorted_unique(np.concatenate([found, rng.integers(0, pool, count)]))
    return found[np.sort(rng.choice(len(found), count, replace=False))]


def _sorted_unique(values: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``np.unique`` of a 1-D array, by sort and mask: numpy 2.4's ``unique`` took 6.0 s on
    4.5M int64 values where this takes 0.1 s, and CSR inputs are drawn for every candidate."""
    ordered = np.sort(values)
    keep = np.empty(len(ordered), dtype=bool)
    keep[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def _csr(
    rng: np.random.Generator, rows: int, cols: int, nnz: int, where: str
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Row pointers (monotone, from 0 to nnz) and in-range, per-row-sorted column indices."""
    if rows < 0 or nnz > rows * cols:
        raise TaskError(f"{where}: {nnz} nonzeros do not fit a {rows}x{cols} matrix")
    cells = _distinct(rng, rows * cols, nnz)
    row_of, col_of = np.divmod(cells, max(cols, 1))
    offsets = np.searchsorted(row_of, np.arange(rows + 1), side="left")
    return offsets.astype(np.int64), col_of.astype(np.int64)


def _graph(
    rng: np.random.Generator, nodes: int, edges: int, where: str
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Adjacency as offsets and neighbour lists: no self loops, no repeated edges."""
    if nodes < 0 or edges > nodes * (nodes - 1):
        raise TaskError(f"{where}: {edges} edges do not fit a simple graph of {nodes} nodes")
    pairs = _distinct(rng, nodes * max(nodes - 1, 1), edges)
    src, rest = np.divmod(pairs, max(nodes - 1, 1))
    dst = rest + (rest >= src)
    offsets = np.searchsorted(src, np.arange(nodes + 1), side="left")
    return offsets.astype(np.int64), dst.astype(np.int64)


def _image(
    rng: np.random.Generator,
    dist: Distribution,
    binding: SizeBinding,
    dtype: np.dtype[np.generic],
    where: str,
) -> npt.NDArray[np.generic]:
    """A smooth gradient with noise and a hard edge: flat regions and edges both occur."""
    h, w, c = (
        int(evaluate(dist.param(k) or "1", binding, where=where))
        for k in ("height", "width", "channels")
    )
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    base = 0.5 + 0.3 * np.sin(x / max(w, 1) * 6.0) * np.cos(y / max(h, 1) * 4.0)
    base = np.where(x > w / 2, base * 0.5, base)
    noisy = base[:, :, None] + rng.normal(0.0, 0.05, (h, w, c))
    unit: npt.NDArray[np.float64] = np.clip(noisy, 0.0, 1.0).reshape(-1)
    if dtype.kind in "iu":
        top = min(255, int(np.iinfo(dtype).max))  # type: ignore[type-var]
        unit = np.rint(unit * top)
    result: npt.NDArray[np.generic] = unit.astype(dtype)
    return result
