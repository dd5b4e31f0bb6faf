"""C element types as numpy dtypes, for the Linux x86-64 / CUDA data model.

The generator, the task checks, the validation driver and the harness must agree byte for
byte on what ``long``, ``std::complex<float>`` or ``struct Point`` is, so the mapping lives
in one place. Element types are numbers, ``std::complex<float|double>``, ``std::pair<A, B>``
and plain structs of the reference's file (:class:`~regrapht_core.contracts.task.Record`,
passed as ``records``): complex numbers become numpy complex dtypes, pairs and structs
structured dtypes with the C layout (``align=True``), which the generated C++ checks
against the compiler with ``static_assert`` (:func:`layout_asserts`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from regrapht_core.contracts.task import Record
from regrapht_core.errors import TaskError

__all__ = [
    "c_type_name",
    "cxx_spelling",
    "is_arithmetic",
    "is_integer",
    "layout_asserts",
    "leaf_kinds",
    "numpy_dtype",
    "template_arguments",
    "vector_element",
]

_DTYPES: dict[str, np.dtype[np.generic]] = {}


def _register(dtype: type[np.generic], *names: str) -> None:
    for name in names:
        _DTYPES[name] = np.dtype(dtype)


_register(np.float32, "float")
_register(np.float64, "double")
_register(np.float16, "half", "__half")
_register(np.bool_, "bool")
_register(np.int8, "char", "signed char", "int8_t")
_register(np.uint8, "unsigned char", "uint8_t")
_register(np.int16, "short", "short int", "signed short", "int16_t")
_register(np.uint16, "unsigned short", "unsigned short int", "uint16_t")
_register(np.int32, "int", "signed", "signed int", "int32_t")
_register(np.uint32, "unsigned", "unsigned int", "uint32_t")
_register(
    np.int64,
    "long",
    "long int",
    "long long",
    "long long int",
    "signed long",
    "int64_t",
    "ptrdiff_t",
    "ssize_t",
)
_register(
    np.uint64,
    "unsigned long",
    "unsigned long int",
    "unsigned long long",
    "unsigned long long int",
    "uint64_t",
    "size_t",
)

_COMPLEX: dict[str, np.dtype[np.generic]] = {
    "float": np.dtype(np.complex64),
    "double": np.dtype(np.complex128),
}
_DROPPED = frozenset({"const", "volatile", "struct", "class", "typename"})
_STD_TEMPLATES = re.compile(r"(?<![\w:])(complex|pair|vector|array|tuple)<")
_SUPPORTED = (
    "supported: float, double, half, bool, (unsigned) char/short/int/long/long long, "
    "int8_t..uint64_t, size_t, std::complex<float|double>, std::pair of those, and plain "
    "structs of them defined in the file"
)


def c_type_name(ctype: str) -> str:
    """The canonical spelling: qualifiers, ``struct`` and ``std::`` dropped, whitespace
    collapsed, template arguments written ``pair<float, int>``."""
    words = [w for w in ctype.replace("std::", "").split() if w not in _DROPPED]
    name = " ".join(words)
    name = re.sub(r"\s*<\s*", "<", name)
    name = re.sub(r"\s*>", ">", name)
    return re.sub(r"\s*,\s*", ", ", name)


def cxx_spelling(ctype: str) -> str:
    """``ctype`` as generated C++ must write it: ``std::`` put back on standard templates."""
    return _STD_TEMPLATES.sub(r"std::\1<", c_type_name(ctype))


def template_arguments(ctype: str) -> tuple[str, tuple[str, ...]] | None:
    """``("pair", ("float", "int"))`` for ``pair<float, int>``; None for a plain name."""
    name = c_type_name(ctype)
    start = name.find("<")
    if start < 0 or not name.endswith(">"):
        return None
    parts: list[str] = []
    depth, begin = 0, start + 1
    for i in range(start + 1, len(name) - 1):
        char = name[i]
        if char == "<":
            depth += 1
        elif char == ">":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(name[begin:i].strip())
            begin = i + 1
    parts.append(name[begin:-1].strip())
    return name[:start], tuple(parts)


def vector_element(ctype: str) -> str | None:
    """``T`` of ``vector<T>`` (a returned vector), else None."""
    found = template_arguments(ctype)
    if found is None or found[0] != "vector" or len(found[1]) != 1:
        return None
    return found[1][0]


def is_arithmetic(ctype: str) -> bool:
    """A number type (bool included): what a scalar ``value`` expression can produce."""
    return c_type_name(ctype) in _DTYPES


class _Unmapped(Exception):
    pass


@lru_cache(maxsize=512)
def _dtype(name: str, records: tuple[Record, ...]) -> np.dtype[np.generic]:
    if name in _DTYPES:
        return _DTYPES[name]
    found = template_arguments(name)
    if found is not None:
        head, parts = found
        if head == "complex" and len(parts) == 1:
            if parts[0] in _COMPLEX:
                return _COMPLEX[parts[0]]
            raise _Unmapped(f"std::complex<{parts[0]}> has no fixed layout; use float or double")
        if head == "pair" and len(parts) == 2:
            first, second = (_dtype(c_type_name(p), records) for p in parts)
            return np.dtype({"names": ["first", "second"], "formats": [first, second]}, align=True)
        if head == "tuple":
            raise _Unmapped(
                "std::tuple elements are laid out in an order the standard leaves open "
                "(libstdc++ stores them last to first); use a struct or std::pair"
            )
        if head in ("vector", "array", "span"):
            raise _Unmapped(
                f"nested containers (std::{head} inside a container) are not supported; "
                "flatten into one std::vector<T> and index it"
            )
    for record in records:
        if record.name == name:
            formats = []
            for f in record.fields:
                inner = _dtype(c_type_name(f.ctype), records)
                formats.append(inner if f.count == 1 else np.dtype((inner, (f.count,))))
            names = [f.name for f in record.fields]
            return np.dtype({"names": names, "formats": formats}, align=True)
    if name == "long double":
        raise _Unmapped("long double has no layout the GPU shares; use double")
    raise _Unmapped(f"it has no numeric mapping; {_SUPPORTED}")


def numpy_dtype(
    ctype: str, *, records: Iterable[Record] = (), where: str = ""
) -> np.dtype[np.generic]:
    """The dtype of one element of type ``ctype``; structs are looked up in ``records``
    (the task's, :attr:`~regrapht_core.contracts.task.Task.records`)."""
    name = c_type_name(ctype)
    try:
        return _dtype(name, tuple(records))
    except _Unmapped as err:
        prefix = f"{where}: " if where else ""
        raise TaskError(f"{prefix}element type {ctype!r}: {err}") from None


def leaf_kinds(dtype: np.dtype[np.generic]) -> set[str]:
    """The numpy kinds of a dtype's numbers: ``{"f", "i"}`` for ``{float x; int k;}``."""
    if dtype.subdtype is not None:
        return leaf_kinds(dtype.subdtype[0])
    if dtype.names is not None:
        kinds: set[str] = set()
        for name in dtype.names:
            kinds |= leaf_kinds(dtype.fields[name][0])  # type: ignore[index]
        return kinds
    return {dtype.kind}


def is_integer(ctype: str, records: Iterable[Record] = ()) -> bool:
    """Integer and bool outputs (every field of a struct) are compared exactly."""
    return leaf_kinds(numpy_dtype(ctype, records=records)) <= set("biu")


def layout_asserts(ctypes: Iterable[str], records: Iterable[Record], *, tag: str) -> list[str]:
    """C++ ``static_assert``s that the compiler lays out every complex, pair and struct in
    ``ctypes`` (and the ones inside them) as numpy does: ``sizeof`` and each member's
    ``offsetof``. ``tag`` keeps the helper aliases' names apart (``regrapht_<tag>_<k>``)."""
    table = tuple(records)
    seen: list[str] = []

    def visit(ctype: str) -> None:
        name = c_type_name(ctype)
        if name in seen or name in _DTYPES:
            return
        found = template_arguments(name)
        for part in found[1] if found is not None else ():
            visit(part)
        for record in table:
            if record.name == name:
                for f in record.fields:
                    visit(f.ctype)
        seen.append(name)

    for ctype in ctypes:
        element = vector_element(ctype)
        if c_type_name(ctype) != "void":
            visit(element if element is not None else ctype)
    lines: list[str] = []
    for k, name in enumerate(seen):
        dtype = numpy_dtype(name, records=table)
        alias = f"regrapht_{tag}_{k}"
        note = f'"regrapht: the layout of {name} is not the one the task assumes"'
        lines.append(f"using {alias} = {cxx_spelling(name)};")
        lines.append(f"static_assert(sizeof({alias}) == {dtype.itemsize}, {note});")
        for field in dtype.names or ():
            offset = dtype.fields[field][1]  # type: ignore[index]
            lines.append(f"static_assert(offsetof({alias}, {field}) == {offset}, {note});")
    return lines
