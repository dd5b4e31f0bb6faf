"""A document as editors see it: where ReGraphT can act (functions with loops, and
``__global__`` kernels), found under a cursor or by name, as plain values.

Code actions are requested on every cursor move, so finding the function under the cursor
must be cheap even in a 50,000-line file: one parse per document text (``DocumentCache``),
incremental from the previous parse of that document, then a walk from the cursor's node up
to its function and a loop query over that function only. A parse hands the interpreter
lock back while it runs (a progress callback), so a server can parse in a worker thread and
go on answering.

Positions here are rows and columns in code points (Python string indices); editors convert
the columns to their own units. Rows are separated by the LSP's line breaks, ``\\n``,
``\\r\\n`` and a lone ``\\r``, and by nothing else: not by a form feed, U+0085 or U+2028,
which ``str.splitlines`` would split on, so rows here are the rows an editor shows. The
syntax tree counts only ``\\n``, so it parses the text with each lone ``\\r`` read as
``\\n`` (the same length in bytes): its rows and byte offsets are then the document's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from itertools import accumulate
from typing import NamedTuple

import tree_sitter

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.functions import function_declarator, function_name, is_kernel, unqualified
from regrapht_core.cxx.parse import Node, QueryCursor, grammar, node_text, query

__all__ = [
    "Document",
    "DocumentCache",
    "Function",
    "FunctionKind",
    "Position",
    "Span",
    "comment_block",
    "split_lines",
]

_LOOPS = "[(for_statement) (while_statement) (do_statement) (for_range_loop)] @loop"
_FUNCTIONS = "(function_definition) @fn"
_SCOPES = ("namespace_definition", "class_specifier", "struct_specifier")
_LINE_BREAK = re.compile(r"\r\n?|\n")
_LONE_CR = re.compile(rb"\r(?!\n)")
_CHUNK = 1 << 16
"""Bytes handed to the parser per read: small enough that a read is cheap, and the parser's
progress callback (not the reads) is what gives the interpreter lock back."""
_BLOCK = 1 << 12
"""Bytes compared at a time when finding where two versions of a text differ."""


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


def line_starts(text: str) -> list[int]:
    """Where each row of ``text`` (as :func:`split_lines` cuts it) starts, in code points:
    what an editor's positions are counted from."""
    if "\r" not in text:
        rows = text.split("\n")
        return list(accumulate((len(row) + 1 for row in rows[:-1]), initial=0))
    return [0, *(found.end() for found in _LINE_BREAK.finditer(text))]


def split_lines(text: str) -> list[str]:
    """The rows of ``text`` between the LSP's line breaks, without them."""
    if "\r" not in text:
        return text.split("\n")
    return _LINE_BREAK.split(text)


def _tree_bytes(text: str) -> bytes:
    """What the syntax tree parses: the text, each lone ``\\r`` read as ``\\n``."""
    data = text.encode("utf-8")
    return _LONE_CR.sub(b"\n", data) if b"\r" in data else data


def _common_prefix(old: bytes, new: bytes) -> int:
    limit = min(len(old), len(new))
    same = 0
    while same + _BLOCK <= limit and old[same : same + _BLOCK] == new[same : same + _BLOCK]:
        same += _BLOCK
    low, high = same, min(same + _BLOCK, limit)
    while low < high:
        middle = (low + high + 1) // 2
        if old[same:middle] == new[same:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(old: bytes, new: bytes, limit: int) -> int:
    """The length of the common end of ``old`` and ``new``, at most ``limit``."""
    end_old, end_new = len(old), len(new)
    same = 0
    while (
        same + _BLOCK <= limit
        and old[end_old - same - _BLOCK : end_old - same]
        == new[end_new - same - _BLOCK : end_new - same]
    ):
        same += _BLOCK
    low, high = same, min(same + _BLOCK, limit)
    while low < high:
        middle = (low + high + 1) // 2
        if old[end_old - middle : end_old - same] == new[end_new - middle : end_new - same]:
            low = middle
        else:
            high = middle - 1
    return low


def _point(data: bytes, offset: int) -> tree_sitter.Point:
    row = data.count(b"\n", 0, offset)
    return tree_sitter.Point(row, offset - data.rfind(b"\n", 0, offset) - 1)


def _edited(old: bytes, tree: tree_sitter.Tree, new: bytes) -> tree_sitter.Tree:
    """A copy of ``tree`` told what changed from ``old`` to ``new``: the one span between
    their common start and their common end (a few changes, or a whole-document sync, read
    as one edit). The copy leaves the previous document's tree as it was."""
    start = _common_prefix(old, new)
    same_end = _common_suffix(old, new, min(len(old), len(new)) - start)
    edited = tree.copy()
    edited.edit(
        start,
        len(old) - same_end,
        len(new) - same_end,
        _point(old, start),
        _point(old, len(old) - same_end),
        _point(new, len(new) - same_end),
    )
    return edited


def _keep_going(offset: int, has_error: bool) -> bool:
    """The parser's progress callback: running Python here is what lets the interpreter hand
    its lock to other threads (the parse itself holds it), so a server's event loop answers
    other requests while a large document parses in a worker thread."""
    return False


def _parse(data: bytes, language: SourceLanguage, old: tree_sitter.Tree | None) -> tree_sitter.Tree:
    """A parser of its own per parse: parsers are not shared across threads."""
    parser = tree_sitter.Parser(grammar(language))

    def read(offset: int, _: tree_sitter.Point) -> bytes:
        return data[offset : offset + _CHUNK]

    if old is None:
        return parser.parse(read, progress_callback=_keep_going)
    return parser.parse(read, old, progress_callback=_keep_going)


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
    """One version of one document: its text, its lines and its syntax tree.

    Given the ``previous`` version of the same document, the tree is parsed incrementally
    from that version's tree: after a keystroke in a 50,000-line file, milliseconds instead
    of a whole parse."""

    def __init__(
        self, text: str, language: SourceLanguage, previous: Document | None = None
    ) -> None:
        self.text = text
        self.language = language
        self.lines = split_lines(text)
        self._bytes = _tree_bytes(text)
        old = None
        if previous is not None and previous.language is language:
            old = _edited(previous._bytes, previous.tree, self._bytes)
        self.tree: tree_sitter.Tree = _parse(self._bytes, language, old)

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
            return Position(row, min(column, len(line)))
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
    """The latest parse of each open document: reused while the document's text is the
    same, and the start of the next, incremental parse when it is not.

    Keyed on the text, not on the version number: a client may send a version twice, and
    the parse must still be of the text it has now (finding 11 of #15). ``get`` may run in
    a worker thread while ``cached`` runs in another; a parse never changes the one it
    starts from, so the worst a race does is parse again."""

    def __init__(self) -> None:
        self._documents: dict[str, Document] = {}

    def cached(self, key: str, text: str, language: SourceLanguage) -> Document | None:
        """The parse of exactly this text, if it is the latest one; never parses."""
        document = self._documents.get(key)
        if document is not None and document.language is language and document.text == text:
            return document
        return None

    def get(self, key: str, text: str, language: SourceLanguage) -> Document:
        document = self.cached(key, text, language)
        if document is None:
            document = Document(text, language, self._documents.get(key))
            self._documents[key] = document
        return document

    def drop(self, key: str) -> None:
        self._documents.pop(key, None)
