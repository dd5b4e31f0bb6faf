"""Sizes: which bindings a task is checked at, and what lengths and scalars become there.

Kernels are most often wrong at the edges of their tiling, so correctness sizes are chosen
to miss every power of two: 1, small primes, numbers just past a multiple of 32 or 256,
and the exact timing size. With several dimensions each gets a different value in the
same binding, so transposed indexing cannot pass by symmetry.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from regrapht_core.contracts.task import ArgSpec, ParamKind, SizeBinding
from regrapht_core.errors import TaskError
from regrapht_core.tasks.dtypes import is_integer
from regrapht_core.tasks.expr import evaluate, evaluate_length

__all__ = [
    "arg_length",
    "default_timing_value",
    "derive_correctness_sizes",
    "scalar_value",
]

_PER_DIM: dict[int, tuple[int, ...]] = {
    1: (1, 7, 31, 257, 1000, 4099),
    2: (1, 7, 31, 67, 257),
    3: (1, 3, 7, 17, 33),
}


def default_timing_value(dimensions: int, degree: int = 1) -> int:
    """Big enough to time a GPU, small enough for a one-thread reference to finish: about
    2^20 elements per array, and about 2^24 iterations when loops over the sizes nest
    deeper than there are sizes (``degree``: a product of n-by-n matrices has three, all
    pairs of n points two), where 2^20 would leave the reference running for days."""
    per_dimension = {1: 1 << 20, 2: 1024}.get(dimensions, 256)
    if degree <= dimensions:
        return per_dimension
    return min(per_dimension, 1 << (24 // degree))


def derive_correctness_sizes(
    timing: SizeBinding,
    dims: Sequence[str],
    derived: Mapping[str, str] | None = None,
) -> tuple[dict[str, int | float], ...]:
    """Bindings for ``dims`` (clamped to the timing size), then the timing size itself.

    ``derived`` are variables defined by an expression over the others (``nnz = m*8``),
    recomputed in each binding; any other entry of ``timing`` is carried unchanged.
    """
    base = _PER_DIM[min(max(len(dims), 1), 3)]
    out: list[dict[str, int | float]] = []
    for k in range(len(base)):
        binding = dict(timing)
        for d, name in enumerate(dims):
            binding[name] = min(base[(k + d) % len(base)], int(timing[name]))
        for name, expr in (derived or {}).items():
            binding[name] = evaluate(expr, binding, where=f"size variable {name!r}")
        if binding not in out:
            out.append(binding)
    final = dict(timing)
    if final in out:
        out.remove(final)
    out.append(final)
    return tuple(out)


def arg_length(arg: ArgSpec, binding: SizeBinding) -> int:
    if arg.length is None:
        raise TaskError(f"argument {arg.name!r} ({arg.kind}) has no length expression")
    return evaluate_length(arg.length, binding, where=f"length of {arg.name!r}")


def scalar_value(arg: ArgSpec, binding: SizeBinding) -> int | float:
    """The value passed for a by-value scalar, converted as C would convert it."""
    if arg.kind is not ParamKind.SCALAR or arg.value is None:
        raise TaskError(f"argument {arg.name!r} is not a scalar with a value expression")
    value = evaluate(arg.value, binding, where=f"value of {arg.name!r}")
    return int(value) if is_integer(arg.ctype) else float(value)
