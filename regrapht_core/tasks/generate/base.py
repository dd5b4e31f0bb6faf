"""What a task family is, and the small vocabulary its templates share.

Mining needs hundreds of tasks, and hand-written ones come one at a time; a family is a
template of serial C++ with the choices a real codebase varies (element type, operator,
radius, shape, container style, distribution), and each point of its grid is one
:class:`Generated` task: a complete ``.cpp`` file with its ``// regrapht:`` annotation,
exactly what a user's file gives the extractor. Families enumerate their points in a fixed
order, without randomness, so the corpus is a pure function of the code: regenerating it
reproduces the committed files byte for byte.

The helpers here keep families from spelling the same things differently: element types
and their literal suffixes, parameters as pointers or ``std::vector`` references, and the
annotation line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "ELEMENTS",
    "Array",
    "Container",
    "Element",
    "Family",
    "Generated",
    "annotation",
    "literal",
    "parameter",
    "source",
]

_NAME = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(frozen=True, slots=True)
class Generated:
    """One task: ``source`` is the whole file, ``function`` its entry."""

    family: str
    name: str
    """Unique across the corpus: the family's name, then the variant's choices."""
    function: str
    source: str

    def __post_init__(self) -> None:
        for label, value in (("name", self.name), ("function", self.function)):
            if not _NAME.fullmatch(value):
                raise ValueError(f"{label} {value!r} is not a lower-case identifier")
        if not self.name.startswith(f"{self.family}_"):
            raise ValueError(f"{self.name!r} does not start with its family {self.family!r}")


@dataclass(frozen=True, slots=True)
class Family:
    """A template and its grid: ``variants()`` yields every task, in a fixed order."""

    name: str
    summary: str
    """One line: what the code computes and what its variants vary."""
    variants: Callable[[], Iterable[Generated]]


@dataclass(frozen=True, slots=True)
class Element:
    """An element type: its C++ spelling, the short tag in task names, a literal suffix."""

    ctype: str
    tag: str
    suffix: str
    floating: bool


ELEMENTS = {
    "float": Element("float", "f32", "f", True),
    "double": Element("double", "f64", "", True),
    "int": Element("int", "i32", "", False),
    "unsigned char": Element("unsigned char", "u8", "", False),
    "unsigned int": Element("unsigned int", "u32", "u", False),
    "long long": Element("long long", "i64", "LL", False),
}


def literal(value: float | int, element: Element) -> str:
    """``value`` as a literal of ``element``'s type: ``0.5f``, ``0.5``, ``3``, ``3u``."""
    if element.floating:
        text = repr(float(value))
        return f"{text}{element.suffix}"
    return f"{int(value)}{element.suffix}"


class Container(StrEnum):
    """How an array parameter is passed: what C code and what C++ code write."""

    POINTER = "ptr"
    VECTOR = "vec"


@dataclass(frozen=True, slots=True)
class Array:
    """An array parameter and its annotation: ``name[length] role ~ dist``."""

    name: str
    element: Element
    length: str
    role: str
    """``in``, ``out`` or ``inout``."""
    dist: str = ""
    """A distribution as the annotation writes it (``uniform(-2, 2)``), or empty."""

    def note(self) -> str:
        note = f"{self.name}[{self.length}] {self.role}"
        return f"{note} ~ {self.dist}" if self.dist else note


def parameter(array: Array, container: Container) -> str:
    """The parameter declaration: ``const float* x`` or ``const std::vector<float>& x``."""
    const = "const " if array.role == "in" else ""
    if container is Container.POINTER:
        return f"{const}{array.element.ctype}* {array.name}"
    return f"{const}std::vector<{array.element.ctype}>& {array.name}"


def annotation(sizes: Sequence[tuple[str, str]], arrays: Sequence[Array]) -> str:
    """The ``// regrapht:`` line: size variables and scalar values (``("n", "1<<20")``) in
    order, then every array."""
    items = [f"{name} = {value}" for name, value in sizes] + [a.note() for a in arrays]
    return "// regrapht: " + "; ".join(items)


def source(
    comment: str,
    includes: Iterable[str],
    container: Container,
    note: str,
    body: str,
    *,
    helpers: str = "",
) -> str:
    """A task file: a comment saying what it is, the includes (``<vector>`` added for the
    vector style), helpers, then the annotation directly above the entry ``body``."""
    wanted = set(includes) | ({"vector"} if container is Container.VECTOR else set())
    lines = [f"// {comment}"]
    lines += [f"#include <{header}>" for header in sorted(wanted)]
    text = "\n".join(lines) + "\n\n"
    if helpers:
        text += helpers.strip("\n") + "\n\n"
    return text + note + "\n" + body.strip("\n") + "\n"
