"""A document as editors see it: where ReGraphT can act (functions with loops, and
``__global__`` kernels), found under a cursor or by name, as plain values.

Code actions are requested on every cursor move, so finding the function under the cursor
must be cheap even in a 50,000-line file: one parse per document version (``DocumentCache``),
then a walk from the cursor's node up to its function and a loop query over that function
only. Positions here are rows (``\\n``-separated lines) and columns in code points (Python
string indices); editors convert them to their own units.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

import tree_sitter

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.functions import function_declarator, function_name, is_kernel, unqualified
from regrapht_core.cxx.parse import Node, QueryCursor, node_text, parse_source, query

__all__ = [
    "Document",
    "DocumentCache",
    "Function",
    "FunctionKind",
    "Position",
    "Span",
    "comment_block",
]

_LOOPS = "[(for_statement) (while_statement) (do_statement) (for_range_loop)] @loop"
_FUNCTIONS = "(function_definition) @fn"
_SCOPES = ("namespace_definition", "class_specifier", "struct_specifier")


class Position(NamedTuple):
    row: int
    column: int
    """In code points."""


class Span(NamedTuple):
    start: Position
    end: Position


class FunctionKind(StrEnum):
    KERNEL = "kernel"
    """A ``__global__`` function: optimized as a kernel."""
    LOOP = "loop"
    """A host function with a loop: parallelized."""


@dataclass(frozen=True, slots=True)
class Function:
    """A function the user can optimize, as it stood in one version of the document."""

    name: str
    qualified_name: str
    """With its namespaces and classes, ``ns::Grid::step``."""
    kind: FunctionKind
    span: Span
    declarator: Span
    """Name and parameters: where diagnostics go (not the whole body: no wall of squiggles)."""
    text: str


def comment_block(lines: list[str], row: int, *, above: bool) -> range:
    """Rows of the ``//`` comment lines directly above ``row`` (or around it, when ``row`` is
    itself a comment line); an empty range when there are none."""
    first = row
    while first > 0 and lines[first - 1].lstrip().startswith("//"):
        first -= 1
    if above:
        return range(first, row)
    last = row
    while last < len(lines) and lines[last].lstrip().startswith("//"):
        last += 1
    return range(first, last)


def _name(fn: Node) -> str | None:
    """A definition's own name, without the ``Class::`` or ``ns::`` it may be written with:
    what a job, a diagnostic and the merge call the function."""
    written = function_name(fn)
    return None if written is None else unqualified(written)


def _qualified_name(fn: Node, name: str) -> str:
    """``name`` (as written, with any ``Class::`` of an out-of-class definition) inside the
    namespaces and classes around ``fn``."""
    declarator = function_declarator(fn)
    written = declarator.child_by_field_name("declarator") if declarator else None
    parts = [node_text(written) if written is not None else name]
    scope = fn.parent
    while scope is not None:
        if scope.type in _SCOPES:
            named = scope.child_by_field_name("name")
            parts.append(node_text(named) if named is not None else "(anonymous)")
        scope = scope.parent
    return "::".join(reversed(parts))


class Document:
    """One version of one document: its text, its lines and its syntax tree."""

    def __init__(self, text: str, language: SourceLanguage) -> None:
        self.text = text
        self.language = language
        self.lines = text.split("\n")
        self.tree = parse_source(text, language)

    # -- positions ------------------------------------------------------------------------

    def point(self, position: Position) -> tree_sitter.Point:
        """A position as a tree-sitter point (row, byte column)."""
        row = min(position.row, len(self.lines) - 1)
        line = self.lines[row]
        return tree_sitter.Point(row, len(line[: position.column].encode()))

    def position(self, point: tuple[int, int]) -> Position:
        """A tree-sitter point as a position; past the last line, the start of the next."""
        row, column = point
        if row >= len(self.lines):
            return Position(len(self.lines), 0)
        line = self.lines[row]
        if line.isascii():
            return Position(row, column)
        return Position(row, len(line.encode()[:column].decode(errors="ignore")))

    def span(self, node: Node) -> Span:
        return Span(self.position(node.start_point), self.position(node.end_point))

    def end(self) -> Position:
        return Position(len(self.lines) - 1, len(self.lines[-1]))

    # -- functions ------------------------------------------------------------------------

    def definitions(self, name: str | None = None) -> list[Node]:
        """Every function definition (named ``name``, when given), in source order."""
        found = QueryCursor(query(self.language, _FUNCTIONS)).captures(self.tree.root_node)
        ordered = sorted(found.get("fn", []), key=lambda fn: fn.start_byte)
        return [fn for fn in ordered if name is None or _name(fn) == name]

    def definition(self, function: Function) -> Node:
        """The syntax node of ``function``, which was found in this document."""
        start = self.point(function.span.start)
        node: Node | None = self.tree.root_node.descendant_for_point_range(start, start)
        while node is not None and not (
            node.type == "function_definition" and node.start_point == start
        ):
            node = node.parent
        if node is None:
            raise ValueError(f"{function.name} is not a function of this document")
        return node

    def eligible(self) -> list[Function]:
        return [f for fn in self.definitions() if (f := self._eligible(fn)) is not None]

    def eligible_at(self, start: Position, end: Position | None = None) -> Function | None:
        """The innermost eligible function spanning the selection (or cursor)."""
        node: Node | None = self.tree.root_node.descendant_for_point_range(
            self.point(start), self.point(end or start)
        )
        while node is not None:
            if node.type == "function_definition":
                function = self._eligible(node)
                if function is not None:
                    return function
            node = node.parent
        return None

    def definition_at(self, position: Position) -> Node | None:
        """The innermost function definition at ``position``, eligible or not."""
        point = self.point(position)
        node: Node | None = self.tree.root_node.descendant_for_point_range(point, point)
        while node is not None and node.type != "function_definition":
            node = node.parent
        return node

    def locate(self, name: str, row: int | None = None) -> Function | None:
        """The eligible function ``name`` starting on ``row``, else the only one of that name."""
        found = [f for fn in self.definitions(name) if (f := self._eligible(fn)) is not None]
        at_row = [function for function in found if function.span.start.row == row]
        if at_row:
            return at_row[0]
        return found[0] if len(found) == 1 else None

    def find(self, name: str, text: str) -> Function | None:
        """The eligible function ``name`` if its text is still exactly ``text``: a job's result
        fits there even when lines above it moved."""
        same = [fn for fn in self.definitions(name) if node_text(fn) == text]
        return self._eligible(same[0]) if len(same) == 1 else None

    def _eligible(self, fn: Node) -> Function | None:
        """A host function with a loop, or a kernel; never ``main``, templates or device code.

        Those three cannot become tasks, so offering them would only lead to an error.
        """
        name = _name(fn)
        if name is None or name == "main":
            return None
        if fn.parent is not None and fn.parent.type == "template_declaration":
            return None
        qualifiers = {child.type for child in fn.children}
        if is_kernel(fn):
            kind = FunctionKind.KERNEL
        elif "__device__" in qualifiers and "__host__" not in qualifiers:
            return None
        elif QueryCursor(query(self.language, _LOOPS)).captures(fn):
            kind = FunctionKind.LOOP
        else:
            return None
        head = fn.child_by_field_name("declarator") or fn
        return Function(
            name, _qualified_name(fn, name), kind, self.span(fn), self.span(head), node_text(fn)
        )


class DocumentCache:
    """The latest parse of each open document, reused while its version is unchanged."""

    def __init__(self) -> None:
        self._documents: dict[str, tuple[int | None, Document]] = {}

    def get(self, key: str, version: int | None, text: str, language: SourceLanguage) -> Document:
        cached = self._documents.get(key)
        if (
            cached is not None
            and version is not None
            and cached[0] == version
            and cached[1].language is language
        ):
            return cached[1]
        document = Document(text, language)
        self._documents[key] = (version, document)
        return document

    def drop(self, key: str) -> None:
        self._documents.pop(key, None)
