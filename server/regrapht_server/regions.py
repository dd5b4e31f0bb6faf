"""Where in a document ReGraphT can act: functions with loops, and ``__global__`` kernels.

Code actions are requested on every cursor move, so finding the region under the cursor
must be cheap even in a 50,000-line file: one parse per document version (cached), then a
walk from the cursor's node up to its function and a loop query over that function only.
Rows here are tree-sitter rows (``\\n``-separated lines, byte columns); conversion to LSP
positions goes through the client's position encoding in one place, ``Parsed.position``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

import tree_sitter
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec
from tree_sitter import QueryCursor

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.functions import function_name, is_kernel
from regrapht_core.cxx.parse import (
    language_for_path,
    node_text,
    parse_source,
    query,
)
from regrapht_core.errors import TaskError

__all__ = ["ParseCache", "Parsed", "Region", "comment_block", "document_language"]

_LANGUAGE_IDS = {
    "c": SourceLanguage.CPP,
    "cpp": SourceLanguage.CPP,
    "cuda-cpp": SourceLanguage.CUDA,
    "cuda": SourceLanguage.CUDA,
}
_LOOPS = "[(for_statement) (while_statement) (do_statement) (for_range_loop)] @loop"
_FUNCTIONS = "(function_definition) @fn"


def document_language(path: str, language_id: str | None) -> SourceLanguage | None:
    """The editor's language id decides; the file suffix is the fallback for other clients."""
    if language_id is not None:
        return _LANGUAGE_IDS.get(language_id)
    try:
        return language_for_path(PurePath(path))
    except TaskError:
        return None


@dataclass(frozen=True, slots=True)
class Region:
    """A function the user can optimize, as it stood in one version of the document."""

    name: str
    node: tree_sitter.Node

    @property
    def row(self) -> int:
        return self.node.start_point.row

    @property
    def text(self) -> str:
        return node_text(self.node)


def _eligible(fn: tree_sitter.Node, language: SourceLanguage) -> Region | None:
    """A host function with a loop, or a kernel; never ``main``, templates or device code.

    Those three cannot become tasks, so offering them would only lead to an error.
    """
    name = function_name(fn)
    if name is None or name == "main":
        return None
    if fn.parent is not None and fn.parent.type == "template_declaration":
        return None
    if is_kernel(fn):
        return Region(name, fn)
    qualifiers = {child.type for child in fn.children}
    if "__device__" in qualifiers and "__host__" not in qualifiers:
        return None
    if not QueryCursor(query(language, _LOOPS)).captures(fn):
        return None
    return Region(name, fn)


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


class Parsed:
    """One version of one document: its text, its lines and its syntax tree."""

    def __init__(self, source: str, language: SourceLanguage, codec: PositionCodec) -> None:
        self.source = source
        self.language = language
        self.codec = codec
        self.lines = source.split("\n")
        self.tree = parse_source(source, language)

    def point(self, position: types.Position) -> tree_sitter.Point:
        """An LSP position (client units) as a tree-sitter point (row, byte column)."""
        row = min(position.line, len(self.lines) - 1)
        line = self.lines[row]
        column = types.Position(0, position.character)
        where = self.codec.position_from_client_units([line], column)
        return tree_sitter.Point(row, len(line[: where.character].encode()))

    def position(self, point: tree_sitter.Point) -> types.Position:
        """A tree-sitter point as an LSP position in the client's units."""
        if point.row >= len(self.lines):
            return types.Position(len(self.lines), 0)
        line = self.lines[point.row]
        prefix = line.encode()[: point.column].decode(errors="ignore")
        return types.Position(point.row, self.codec.client_num_units(prefix))

    def end(self) -> types.Position:
        last = len(self.lines) - 1
        return self.position(tree_sitter.Point(last, len(self.lines[last].encode())))

    def range(self, node: tree_sitter.Node) -> types.Range:
        return types.Range(self.position(node.start_point), self.position(node.end_point))

    def function_at(self, start: types.Position, end: types.Position) -> tree_sitter.Node | None:
        """The innermost function definition spanning the selection (or cursor)."""
        node: tree_sitter.Node | None = self.tree.root_node.descendant_for_point_range(
            self.point(start), self.point(end)
        )
        while node is not None and node.type != "function_definition":
            node = node.parent
        return node

    def region_at(self, start: types.Position, end: types.Position) -> Region | None:
        fn = self.function_at(start, end)
        while fn is not None:
            region = _eligible(fn, self.language)
            if region is not None:
                return region
            fn = fn.parent
            while fn is not None and fn.type != "function_definition":
                fn = fn.parent
        return None

    def functions_named(self, name: str) -> list[tree_sitter.Node]:
        found = QueryCursor(query(self.language, _FUNCTIONS)).captures(self.tree.root_node)
        return [fn for fn in found.get("fn", []) if function_name(fn) == name]

    def locate(self, name: str, row: int | None = None) -> Region | None:
        """The eligible function ``name`` starting on ``row``, else the only one of that name."""
        found = [
            region
            for fn in self.functions_named(name)
            if (region := _eligible(fn, self.language)) is not None
        ]
        at_row = [region for region in found if region.row == row]
        if at_row:
            return at_row[0]
        return found[0] if len(found) == 1 else None

    def find(self, name: str, text: str) -> Region | None:
        """The function ``name`` if its text is still exactly ``text``: the job's result fits
        there even when lines above it moved."""
        same = [fn for fn in self.functions_named(name) if node_text(fn) == text]
        return Region(name, same[0]) if len(same) == 1 else None


class ParseCache:
    """The latest parse of each open document, reused while its version is unchanged."""

    def __init__(self) -> None:
        self._parsed: dict[str, tuple[int | None, Parsed]] = {}

    def get(
        self,
        uri: str,
        version: int | None,
        source: str,
        language: SourceLanguage,
        codec: PositionCodec,
    ) -> Parsed:
        cached = self._parsed.get(uri)
        if cached is not None and version is not None and cached[0] == version:
            return cached[1]
        parsed = Parsed(source, language, codec)
        self._parsed[uri] = (version, parsed)
        return parsed

    def drop(self, uri: str) -> None:
        self._parsed.pop(uri, None)
