"""What a task family is, and the small vocabulary its templates share.

Mining needs hundreds of tasks, and hand-written ones come one at a time; a family is a
template of serial C++ with the choices a real codebase varies (element type, operator,
radius, shape, container style, distribution), and each point of its grid is one
:class:`Generated` task: a complete ``.cpp`` file with its ``// regrapht:`` annotation,
exactly what a user's file gives the extractor. Families enumerate their points in a fixed
order, without randomness, so the corpus is a pure function of the code: regenerating it
reproduces the committed files byte for byte.

The helpers here keep families from spelling the same things differently: element types
and their literal suffixes, parameters as pointers or ``std::vector`` references, the
alternation of those two styles, and :func:`task`, which lays out every task file the same
way (comment, includes, helpers, annotation, entry) within :data:`WIDTH` columns.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "ELEMENTS",
    "WIDTH",
    "Array",
    "Container",
    "Element",
    "Family",
    "Generated",
    "alternate",
    "fill",
    "length",
    "literal",
    "parameter",
    "task",
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


WIDTH = 100
"""Generated lines stay within this many columns where they can: people read these files."""


def fill(text: str, **values: str) -> str:
    """``text`` with every ``{key}`` replaced by its value. Templates are C++, whose own
    braces rule out :meth:`str.format`."""
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text


def alternate(index: int) -> Container:
    """Pointers for an even ``index``, vectors for an odd one: numbering a family's variants
    through this gives each of its other choices both argument styles."""
    return Container.VECTOR if index % 2 else Container.POINTER


def length(container: Container, vector: str, size: str = "n") -> tuple[list[str], str]:
    """How an entry learns an array's element count, as each style's code does: an ``int``
    parameter with pointers, the vector's ``size()`` with vectors. Returns the parameters and
    the body's first line."""
    if container is Container.POINTER:
        return [f"int {size}"], ""
    return [], f"    const int {size} = static_cast<int>({vector}.size());\n"


def _annotation(sizes: Sequence[tuple[str, str]], arrays: Sequence[Array]) -> str:
    """The ``// regrapht:`` comment: size variables and scalar values (``("n", "1<<20")``)
    in order, then every array, packed onto as many lines as :data:`WIDTH` needs."""
    head = "// regrapht: "
    lines: list[str] = []
    for item in [f"{name} = {value}" for name, value in sizes] + [a.note() for a in arrays]:
        if lines and len(f"{lines[-1]}; {item}") <= WIDTH:
            lines[-1] += f"; {item}"
        else:
            lines.append(head + item)
    return "\n".join(lines)


def _signature(returns: str, function: str, params: Sequence[str]) -> str:
    """``returns function(params) {``, the parameters wrapped under the first one when the
    line would pass :data:`WIDTH`."""
    head = f"{returns} {function}("
    lines = [head]
    for k, param in enumerate(params):
        piece = param + (", " if k < len(params) - 1 else "")
        if lines[-1].strip() not in ("", head) and len(lines[-1] + piece.rstrip()) > WIDTH - 3:
            lines[-1] = lines[-1].rstrip()
            lines.append(" " * len(head))
        lines[-1] += piece
    lines[-1] += ") {"
    return "\n".join(lines)


def task(
    family: str,
    choices: str,
    function: str,
    comment: str,
    container: Container,
    *,
    sizes: Sequence[tuple[str, str]],
    items: Sequence[str | Array],
    body: str,
    returns: str = "void",
    includes: Iterable[str] = (),
    helpers: str = "",
) -> Generated:
    """The task ``{family}_{choices}``: a file of ``comment``, the includes (``<vector>``
    added for the vector style), ``helpers``, then the annotation directly above the entry
    ``returns function(items) { body }``. ``items`` are the parameters in order: a plain
    declaration (``int n``) for a scalar, an :class:`Array` for an array, declared in
    ``container``'s style and annotated after ``sizes``. ``body`` is indented already."""
    arrays = [item for item in items if isinstance(item, Array)]
    params = [parameter(i, container) if isinstance(i, Array) else i for i in items]
    wanted = set(includes) | ({"vector"} if container is Container.VECTOR else set())
    lines = [f"// {line}" for line in textwrap.wrap(comment, WIDTH - 3, break_on_hyphens=False)]
    lines += [f"#include <{header}>" for header in sorted(wanted)]
    text = "\n".join(lines) + "\n\n"
    if helpers:
        text += helpers.strip("\n") + "\n\n"
    text += _annotation(sizes, arrays) + "\n" + _signature(returns, function, params) + "\n"
    text += body.strip("\n") + "\n}\n"
    return Generated(family, f"{family}_{choices}", function, text)
