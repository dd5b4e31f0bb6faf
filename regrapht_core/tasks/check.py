"""Whole-task consistency, checked before a task is used or written.

A task that only fails once the verifier generates inputs would be reported as a bad
candidate, or worse, pass vacuously; every expression is therefore evaluated at every size
here, and structured inputs are checked to be constructible there.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from regrapht_core.contracts.task import (
    ArgSpec,
    Distribution,
    ParamKind,
    Record,
    Role,
    SizeBinding,
    Task,
    TaskMode,
)
from regrapht_core.errors import TaskError
from regrapht_core.tasks.dtypes import is_arithmetic, is_integer, numpy_dtype, vector_element
from regrapht_core.tasks.expr import evaluate, evaluate_length, free_names, parse_expr
from regrapht_core.tasks.sizes import arg_length

__all__ = ["DIST_KINDS", "STRUCTURED_KINDS", "check_binding", "check_task", "unknown_dist_param"]

STRUCTURED_KINDS: dict[str, str] = {"csr": "col", "graph": "adj"}
"""Structured kinds with a companion argument, and the parameter that names it."""

_DIST_PARAMS: dict[str, frozenset[str]] = {
    **dict.fromkeys(("uniform", "normal", "int", "sorted"), frozenset({"edges"})),
    **dict.fromkeys(("permutation", "const"), frozenset[str]()),
    "csr": frozenset({"col", "cols"}),
    "graph": frozenset({"adj"}),
    "image": frozenset({"width", "height", "channels"}),
    "part": frozenset({"of"}),
}
"""The named parameters each kind reads (docs/task-format.md; the numbers ``lo``, ``hi``,
``mean``, ``std`` are fields, not parameters). Any other is a misspelling that would be
ignored, or would leave a companion unnamed."""
DIST_KINDS = frozenset(_DIST_PARAMS)


def unknown_dist_param(dist: Distribution) -> str | None:
    """Why ``dist`` names a parameter its kind does not read, or ``None``."""
    known = _DIST_PARAMS.get(dist.kind)
    unknown = [key for key, _ in dist.params if known is not None and key not in known]
    if not unknown:
        return None
    takes = ", ".join(sorted(known or ())) or "no named parameters"
    return f"{dist.kind} has no parameter {unknown[0]!r} (it takes {takes})"


def check_task(task: Task, where: str) -> None:
    """Raise a TaskError naming ``where`` (a file, or a function in a file) and the field."""
    if not task.name or not task.entry.isidentifier():
        raise TaskError(f"{where}: entry: {task.entry!r} is not a function name")
    if not task.source.strip():
        raise TaskError(f"{where}: source: the reference source is empty")
    _check_owner(task, where)
    names = [a.name for a in task.args]
    for i, arg in enumerate(task.args):
        if names.count(arg.name) > 1:
            raise TaskError(f"{where}: args[{i}].name: {arg.name!r} appears twice")
        _check_arg(
            arg, f"{where}: args[{i}] ({arg.name})", {a.name: a for a in task.args}, task.records
        )
    _check_returns(task, where)
    if task.returns == "void" and all(arg.role is Role.IN for arg in task.args):
        raise TaskError(
            f"{where}: {task.entry!r} writes no output the checks can compare (no array or "
            "reference it writes, no return value): a candidate that did nothing would pass. "
            "If it does write an argument, annotate it `out` or `inout`"
        )
    tolerance = task.tolerance
    for label, value in (
        ("atol", tolerance.atol),
        ("rtol", tolerance.rtol),
        ("per_term", tolerance.per_term),
    ):
        if not (math.isfinite(value) and value >= 0):
            raise TaskError(f"{where}: tolerance.{label}: {value} must be finite and >= 0")
    _check_launch(task, where)
    _check_sizes(task, where)


def _check_owner(task: Task, where: str) -> None:
    """A member entry names its class; constructor arguments only for a non-static one."""
    if task.owner and not task.owner.isidentifier():
        raise TaskError(f"{where}: owner: {task.owner!r} is not a class name")
    if (task.owner_args or task.owner_static) and not task.owner:
        raise TaskError(f"{where}: owner_args, owner_static: only for a member entry (owner)")
    if task.owner_static and task.owner_args:
        raise TaskError(f"{where}: owner_args: a static member function needs no object")
    if task.owner and task.mode is TaskMode.KERNEL_TO_KERNEL:
        raise TaskError(f"{where}: owner: a kernel cannot be a member function")
    for i, text in enumerate(task.owner_args):
        if not text.strip() or any(c in text for c in ";{}"):
            raise TaskError(f"{where}: owner_args[{i}]: {text!r} is not one C++ expression")


def _check_launch(task: Task, where: str) -> None:
    if (task.mode is TaskMode.KERNEL_TO_KERNEL) != (task.launch is not None):
        raise TaskError(
            f"{where}: launch: a kernel2kernel task needs a launch table and a seq2cuda "
            "task must not have one"
        )
    if task.launch is not None:
        for label, dims in (("grid", task.launch.grid), ("block", task.launch.block)):
            if not 1 <= len(dims) <= 3:
                raise TaskError(f"{where}: launch.{label}: needs 1 to 3 expressions")
        for i, arg in enumerate(task.args):
            at = f"{where}: args[{i}] ({arg.name})"
            if arg.kind in (ParamKind.VECTOR, ParamKind.ARRAY, ParamKind.SPAN):
                raise TaskError(f"{at}.kind: a kernel cannot take a {arg.kind}")
            if arg.kind is ParamKind.SCALAR and (
                arg.role is not Role.IN or not is_arithmetic(arg.ctype)
            ):
                raise TaskError(f"{at}: a kernel takes number scalars by value only")


def _check_returns(task: Task, where: str) -> None:
    if task.returns == "void":
        if task.return_length is not None:
            raise TaskError(f"{where}: return_length: a void function returns nothing")
        return
    element = vector_element(task.returns)
    numpy_dtype(element or task.returns, records=task.records, where=f"{where}: returns")
    if element is not None and task.return_length is None:
        raise TaskError(f"{where}: return_length: a returned vector needs its length (return[n])")
    if element is None and task.return_length is not None:
        raise TaskError(f"{where}: return_length: only a returned vector has a length")
    if task.return_length is not None:
        parse_expr(task.return_length, where=f"{where}: return_length")


def _check_sizes(task: Task, where: str) -> None:
    if not task.correctness_sizes:
        raise TaskError(f"{where}: correctness_sizes: at least one size is needed")
    if dict(task.timing_size) not in [dict(b) for b in task.correctness_sizes]:
        raise TaskError(
            f"{where}: correctness_sizes: must include the timing size {dict(task.timing_size)}"
        )
    for i, binding in enumerate(task.correctness_sizes):
        check_binding(task, binding, f"{where}: correctness_sizes[{i}]")
    check_binding(task, task.timing_size, f"{where}: timing_size")


def _check_arg(
    arg: ArgSpec, where: str, by_name: dict[str, ArgSpec], records: tuple[Record, ...]
) -> None:
    numpy_dtype(arg.ctype, records=records, where=f"{where}.ctype")
    if arg.kind is ParamKind.SCALAR:
        if not is_arithmetic(arg.ctype):
            if arg.value is not None:
                raise TaskError(
                    f"{where}.value: a {arg.ctype} scalar is drawn from its dist, not a value"
                )
            _check_dist(arg, where, by_name, records)
            return
        if arg.value is None:
            raise TaskError(f"{where}.value: a scalar needs a value expression")
        parse_expr(arg.value, where=f"{where}.value")
        return
    if arg.length is None:
        raise TaskError(f"{where}.length: a {arg.kind} needs a length expression")
    parse_expr(arg.length, where=f"{where}.length")
    if arg.kind is ParamKind.ARRAY and free_names(arg.length, where=f"{where}.length"):
        raise TaskError(f"{where}.length: a std::array's length is a number (its N)")
    _check_dist(arg, where, by_name, records)


_COMPOUND_KINDS = frozenset({"uniform", "normal", "int", "const"})
"""What a complex, pair or struct element can be drawn from (per number inside it)."""


def _check_dist(
    arg: ArgSpec, where: str, by_name: dict[str, ArgSpec], records: tuple[Record, ...]
) -> None:
    dist = arg.dist
    if dist.kind not in DIST_KINDS:
        raise TaskError(
            f"{where}.dist.kind: {dist.kind!r} is not one of {', '.join(sorted(DIST_KINDS))}"
        )
    problem = unknown_dist_param(dist)
    if problem is not None:
        raise TaskError(f"{where}.dist: {problem}")
    if not is_arithmetic(arg.ctype) and dist.kind not in _COMPOUND_KINDS:
        raise TaskError(
            f"{where}.dist.kind: a {arg.ctype} element is drawn number by number; use one of "
            f"{', '.join(sorted(_COMPOUND_KINDS))} (structured and ordered inputs are for "
            "number arrays)"
        )
    if dist.kind == "int" and dist.lo > dist.hi:
        raise TaskError(f"{where}.dist: lo {dist.lo} is above hi {dist.hi}")
    if dist.kind == "normal" and dist.std < 0:
        raise TaskError(f"{where}.dist.std: {dist.std} is negative")
    if dist.kind in STRUCTURED_KINDS:
        key = STRUCTURED_KINDS[dist.kind]
        _check_companion(arg, dist.param(key), f"{where}.dist.{key}", by_name)
    structural = dist.kind in STRUCTURED_KINDS or dist.kind in ("part", "permutation")
    if structural and not (is_arithmetic(arg.ctype) and is_integer(arg.ctype, records)):
        raise TaskError(f"{where}.ctype: a {dist.kind} array must have an integer type")
    if dist.kind == "part":
        _check_part(arg, where, by_name)
    if dist.kind == "image":
        for key in ("width", "height"):
            if dist.param(key) is None:
                raise TaskError(f"{where}.dist.{key}: an image needs its {key} expression")


def _check_part(arg: ArgSpec, where: str, by_name: dict[str, ArgSpec]) -> None:
    owner = by_name.get(arg.dist.param("of") or "")
    if owner is None or owner.dist.kind not in STRUCTURED_KINDS:
        raise TaskError(
            f"{where}.dist.of: {arg.dist.param('of')!r} is not an argument with a "
            "structured distribution (csr, graph)"
        )
    if owner.dist.param(STRUCTURED_KINDS[owner.dist.kind]) != arg.name:
        raise TaskError(f"{where}.dist.of: {owner.name!r} does not name {arg.name!r}")


def _check_companion(
    arg: ArgSpec, companion: str | None, where: str, by_name: dict[str, ArgSpec]
) -> None:
    other = by_name.get(companion or "")
    if other is None:
        raise TaskError(f"{where}: {companion!r} is not an argument of the entry")
    if other.role is Role.OUT or other.dist.kind != "part" or other.dist.param("of") != arg.name:
        raise TaskError(
            f"{where}: {companion!r} must be an input with dist "
            f'{{ kind = "part", of = "{arg.name}" }}'
        )


def check_binding(task: Task | Sequence[ArgSpec], binding: SizeBinding, where: str) -> None:
    """Every expression evaluates at ``binding`` and every structured input can be built."""
    args = task.args if isinstance(task, Task) else tuple(task)
    by_name = {a.name: a for a in args}
    if isinstance(task, Task) and task.return_length is not None:
        evaluate_length(task.return_length, binding, where=f"{where}: return_length")
    lengths = _lengths(args, binding, where)
    for arg in args:
        dist = arg.dist
        if dist.kind not in STRUCTURED_KINDS:
            if dist.kind == "image":
                _check_image(arg, binding, lengths[arg.name], where)
            continue
        rows = lengths[arg.name] - 1
        if rows < 0:
            raise TaskError(f"{where}: {arg.name!r} has length 0; it needs rows + 1 entries")
        key = STRUCTURED_KINDS[dist.kind]
        companion = by_name.get(dist.param(key) or "")
        if companion is None:
            raise TaskError(
                f"{where}: {arg.name}.dist.{key}: {dist.param(key)!r} is not an argument of "
                "the entry"
            )
        nnz = lengths[companion.name]
        if dist.kind == "csr":
            cols_expr = dist.param("cols")
            cols = rows if cols_expr is None else int(evaluate(cols_expr, binding, where=where))
            room = rows * cols
        else:
            room = rows * (rows - 1)
        if nnz > room:
            raise TaskError(
                f"{where}: {nnz} {dist.kind} entries do not fit {rows} rows of "
                f"{dist.kind} {arg.name!r} (at most {room})"
            )


def _lengths(args: Sequence[ArgSpec], binding: SizeBinding, where: str) -> dict[str, int]:
    """Every argument's length at ``binding``; values and dist expressions evaluated."""
    lengths: dict[str, int] = {}
    for arg in args:
        if arg.kind is ParamKind.SCALAR:
            if arg.value is not None:
                evaluate(arg.value, binding, where=f"{where}: value of {arg.name!r}")
        else:
            try:
                lengths[arg.name] = arg_length(arg, binding)
            except TaskError as exc:
                raise TaskError(f"{where}: {exc}") from None
        for key, text in arg.dist.params:
            if key in ("width", "height", "channels", "cols"):
                evaluate(text, binding, where=f"{where}: {arg.name}.dist.{key}")
    return lengths


def _check_image(arg: ArgSpec, binding: SizeBinding, length: int, where: str) -> None:
    dims = [
        int(evaluate(arg.dist.param(k) or "1", binding, where=where))
        for k in ("height", "width", "channels")
    ]
    if math.prod(dims) != length:
        raise TaskError(
            f"{where}: image {arg.name!r} has {length} elements but height*width*channels "
            f"is {math.prod(dims)}"
        )
