"""Annotation comments: the user's word on what inference cannot see.

One or more ``// regrapht: ...`` comments directly above the function (or inside its
body) hold ``;``-separated items::

    // regrapht: n = 1<<20; x[n] in; y[n] inout; a = 2.5
    // regrapht: row_ptr[m+1] in ~ csr(col=col, cols=n); col[nnz] in; nnz = m*8

``name = expr`` sets a size variable's timing value (or, for a non-size scalar parameter,
its value); ``name[length] role ~ dist(...)`` describes a pointer, vector or array (each
part optional; ``count out`` gives a ``T&`` scalar's role, ``return[n]`` a returned
vector's length); ``atol``, ``rtol``, ``timing``, ``grid``, ``block`` and ``shared`` are
settings.
The same syntax is rendered back, pre-filled, in errors that ask the user for an
annotation, so what the tool suggests is exactly what it accepts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from regrapht_core.contracts.task import ArgSpec, Distribution, ParamKind, Role, TimingMode
from regrapht_core.errors import TaskError
from regrapht_core.tasks.check import unknown_dist_param
from regrapht_core.tasks.dtypes import is_arithmetic, numpy_dtype
from regrapht_core.tasks.expr import parse_expr

__all__ = [
    "MARKER",
    "Annotation",
    "ArrayNote",
    "annotation_text",
    "default_dist",
    "parse_annotation",
    "render_annotation",
]

MARKER = "regrapht:"
_ARRAY = re.compile(
    r"^(?P<name>[A-Za-z_]\w*)\s*(?:\[(?P<len>[^\]]*)\])?\s*(?P<role>inout|in|out)?\s*"
    r"(?:~\s*(?P<dist>.+))?$"
)
_ASSIGN = re.compile(r"^(?P<name>[A-Za-z_]\w*)\s*=\s*(?P<expr>.+)$")
_DIST = re.compile(r"^(?P<kind>[a-z]+)\s*(?:\((?P<args>.*)\))?$")
_POSITIONAL = {
    "uniform": ("lo", "hi"),
    "int": ("lo", "hi"),
    "sorted": ("lo", "hi"),
    "normal": ("mean", "std"),
    "const": ("lo",),
}
_NUMERIC = ("lo", "hi", "mean", "std")


@dataclass(frozen=True, slots=True)
class ArrayNote:
    length: str | None = None
    role: Role | None = None
    dist: Distribution | None = None


@dataclass(frozen=True, slots=True)
class Annotation:
    assignments: dict[str, str] = field(default_factory=dict)
    arrays: dict[str, ArrayNote] = field(default_factory=dict)
    atol: float | None = None
    rtol: float | None = None
    timing: TimingMode | None = None
    grid: tuple[str, ...] | None = None
    block: tuple[str, ...] | None = None
    shared: str | None = None

    def __bool__(self) -> bool:
        return bool(self.assignments or self.arrays or self.settings_given)

    @property
    def settings_given(self) -> bool:
        settings = (self.atol, self.rtol, self.timing, self.grid, self.block, self.shared)
        return any(s is not None for s in settings)


def annotation_text(comment: str) -> str | None:
    """The items of one comment, or None when it is not a regrapht annotation."""
    body = comment.strip()
    if body.startswith("//"):
        body = body[2:]
    elif body.startswith("/*"):
        body = body[2:].removesuffix("*/")
    body = body.strip()
    return body[len(MARKER) :].strip() if body.startswith(MARKER) else None


def parse_annotation(texts: Sequence[str], where: str) -> Annotation:
    """Merge the items of several comments; a later item for the same name wins."""
    assignments: dict[str, str] = {}
    arrays: dict[str, ArrayNote] = {}
    settings: dict[str, object] = {}
    for text in texts:
        for raw in text.split(";"):
            item = raw.strip()
            if not item:
                continue
            at = f"{where}: annotation item {item!r}"
            if match := _ASSIGN.match(item):
                name, expr = match["name"], match["expr"].strip()
                if name in ("atol", "rtol"):
                    settings[name] = _number(expr, at)
                elif name == "timing":
                    settings[name] = _timing(expr, at)
                elif name in ("grid", "block"):
                    dims = tuple(e.strip() for e in expr.split(","))
                    for e in dims:
                        parse_expr(e, where=at)
                    settings[name] = dims
                elif name == "shared":
                    parse_expr(expr, where=at)
                    settings[name] = expr
                else:
                    parse_expr(expr, where=at)
                    assignments[name] = expr
            elif (match := _ARRAY.match(item)) and (match["len"] or match["role"] or match["dist"]):
                length = match["len"].strip() if match["len"] is not None else None
                if length is not None:
                    parse_expr(length, where=at)
                dist = _dist(match["dist"], at) if match["dist"] else None
                role = Role(match["role"]) if match["role"] else None
                arrays[match["name"]] = ArrayNote(length, role, dist)
            else:
                raise TaskError(
                    f"{at}: expected 'name = expr', 'name[length] in|out|inout ~ dist(...)' "
                    "or a setting (atol, rtol, timing, grid, block, shared)"
                )
    return Annotation(assignments, arrays, **settings)  # type: ignore[arg-type]


def _number(text: str, at: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise TaskError(f"{at}: {text!r} is not a number") from None


def _timing(text: str, at: str) -> TimingMode:
    try:
        return TimingMode(text)
    except ValueError:
        choices = ", ".join(m.value for m in TimingMode)
        raise TaskError(f"{at}: timing must be one of {choices}") from None


def _dist(text: str, at: str) -> Distribution:
    match = _DIST.match(text.strip())
    if match is None:
        raise TaskError(f"{at}: {text!r} is not a distribution like normal(0, 1) or csr(col=c)")
    kind = match["kind"]
    numbers: dict[str, float] = {}
    params: list[tuple[str, str]] = []
    parts = [p.strip() for p in (match["args"] or "").split(",") if p.strip()]
    for position, part in enumerate(parts):
        key, sep, value = part.partition("=")
        if not sep:
            names = _POSITIONAL.get(kind, ())
            if position >= len(names):
                raise TaskError(f"{at}: {kind} takes no positional value {part!r}")
            key, value = names[position], part
        key, value = key.strip(), value.strip()
        if key in _NUMERIC:
            numbers[key] = _number(value, at)
        else:
            params.append((key, value))
    dist = Distribution(kind=kind, params=tuple(params), **numbers)
    problem = unknown_dist_param(dist)
    if problem is not None:
        raise TaskError(f"{at}: {problem}")
    return dist


def default_dist(ctype: str) -> Distribution:
    """Floats in [-1, 1]; integers spread wide enough to overflow narrow accumulators.

    Complex numbers draw both parts like floats; a struct (or pair) with this default draws
    each member from its own type's default (the generator sees the default and does so).
    """
    if not is_arithmetic(ctype):
        return Distribution()
    dtype = numpy_dtype(ctype)
    if dtype.kind == "u":
        return Distribution(kind="int", lo=0.0, hi=1000.0)
    if dtype.kind == "i":
        return Distribution(kind="int", lo=-1000.0, hi=1000.0)
    return Distribution()


def render_annotation(
    args: Sequence[ArgSpec],
    sizes: Mapping[str, int | float],
    unknown_lengths: frozenset[str] = frozenset(),
    unknown_roles: frozenset[str] = frozenset(),
    *,
    return_length: str | None = None,
) -> str:
    """The comment that reproduces ``args`` (and a returned vector's length); unknown
    lengths and roles become ``?``."""
    items = [f"{name} = {_pretty(value)}" for name, value in sizes.items()]
    for arg in args:
        if arg.kind is ParamKind.SCALAR:
            shown = arg.value is not None and arg.value != arg.name and arg.name not in sizes
            if shown and arg.role is not Role.OUT:
                items.append(f"{arg.name} = {arg.value}")
            if arg.role is not Role.IN:
                items.append(f"{arg.name} {arg.role.value}")
            if arg.value is None and arg.dist != default_dist(arg.ctype):
                items.append(f"{arg.name} ~ {_render_dist(arg.dist)}")
            continue
        if arg.kind is ParamKind.ARRAY:
            unknown = arg.name in unknown_roles
            if unknown or arg.role is not Role.IN or arg.dist != default_dist(arg.ctype):
                item = f"{arg.name} {'?' if unknown else arg.role.value}"
                if arg.dist != default_dist(arg.ctype):
                    item += f" ~ {_render_dist(arg.dist)}"
                items.append(item)
            continue
        length = "?" if arg.name in unknown_lengths or arg.length is None else arg.length
        role = "?" if arg.name in unknown_roles else arg.role.value
        item = f"{arg.name}[{length}] {role}"
        if arg.dist != default_dist(arg.ctype):
            item += f" ~ {_render_dist(arg.dist)}"
        items.append(item)
    if return_length is not None:
        items.append(f"return[{'?' if 'return' in unknown_lengths else return_length}]")
    return f"// {MARKER} " + "; ".join(items)


def _render_dist(dist: Distribution) -> str:
    default = Distribution()
    parts = [
        f"{k}={getattr(dist, k)!r}" for k in _NUMERIC if getattr(dist, k) != getattr(default, k)
    ]
    parts += [f"{k}={v}" for k, v in dist.params]
    return f"{dist.kind}({', '.join(parts)})" if parts else dist.kind


def _pretty(value: int | float) -> str:
    if isinstance(value, int) and value >= 1024 and value & (value - 1) == 0:
        return f"1<<{value.bit_length() - 1}"
    return repr(value)
