"""Merging a CUDA translation unit into a document, as plain text changes.

A result is a whole translation unit (includes, helpers, kernels, the entry), not just a
function. Pasting it over the function would redefine everything the file already has, so
it is merged: items the file already contains are left alone, changed definitions of the
same name are replaced where they stand, new ones go above the function, and the function
itself is replaced with the header directly above it (where hover looks).

CUDA documents (``.cu``, ``.cuh``) are changed in place. A C or C++ file cannot hold CUDA,
so its result goes to ``<stem>.regrapht.cu`` beside it: made from the file itself with the
result merged in (so it is the whole file, ready to build instead of it; the CLI writes the
same), merged into again when other functions of the file are optimized, and the original
function gets a one-line comment pointing there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import partial
from pathlib import PurePath

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.document import (
    Document,
    Function,
    Position,
    Span,
    comment_block,
    line_starts,
)
from regrapht_core.cxx.functions import function_name, unqualified
from regrapht_core.cxx.parse import Node, node_text, parse_source

__all__ = [
    "POINTER_MARK",
    "SIDECAR_SUFFIX",
    "FileChanges",
    "HeaderRows",
    "Sidecar",
    "Target",
    "TextChange",
    "Unit",
    "merge_unit",
    "merged_text",
    "pointer_comment",
    "pointer_target",
    "sidecar_path",
]

SIDECAR_SUFFIX = ".regrapht.cu"
POINTER_MARK = "// ReGraphT CUDA version:"
"""Starts the one-line comment left above a C/C++ function whose CUDA version went to a
separate file: ``<mark> <file name> (<brief>)``. It points at a record, it is not one."""


HeaderRows = Callable[[Sequence[str], range], range | None]
"""The rows of a header inside a comment block, ``None`` when it has none."""


@dataclass(frozen=True, slots=True)
class Unit:
    """What to merge: a translation unit and the header that goes above its entry."""

    entry: str
    code: str
    """The translation unit, without the header."""
    header: str
    """A comment block ending with a newline."""
    header_rows: HeaderRows
    """Finds an older header above the function, which the new one replaces."""
    brief: str
    """The pointer comment's tail."""


@dataclass(frozen=True, slots=True)
class TextChange:
    span: Span
    """Replaced by ``text``; an empty span inserts."""
    text: str


class Target(StrEnum):
    DOCUMENT = "document"
    SIDECAR = "sidecar"


@dataclass(frozen=True, slots=True)
class FileChanges:
    target: Target
    changes: tuple[TextChange, ...]
    """Sorted, one per start position, to be applied together."""
    create: bool = False
    """The file does not exist yet: create it (empty) first."""


@dataclass(frozen=True, slots=True)
class Sidecar:
    """The separate CUDA file of a C/C++ document."""

    name: str
    """Its file name, next to the document."""
    document: Document | None
    """Its text now; ``None`` when it does not exist yet."""


@dataclass(frozen=True, slots=True)
class _Item:
    node: Node
    text: str
    key: tuple[str, str] | None
    """Kind and name of what the item defines: only a definition of the same kind replaces."""


def sidecar_path(source: PurePath) -> PurePath:
    """``foo.cpp`` → ``foo.regrapht.cu``, next to it."""
    return source.with_name(source.stem + SIDECAR_SUFFIX)


def pointer_comment(file_name: str, brief: str) -> str:
    return f"{POINTER_MARK} {file_name} ({brief})"


def pointer_target(line: str) -> str | None:
    """The file a pointer comment names, or ``None`` when ``line`` is not one."""
    text = line.strip()
    if not text.startswith(f"{POINTER_MARK} "):
        return None
    name = text.removeprefix(f"{POINTER_MARK} ").partition(" (")[0]
    if not name.endswith(SIDECAR_SUFFIX) or "/" in name or "\\" in name:
        return None
    return name


def merge_unit(
    document: Document, function: Function, unit: Unit, sidecar: Sidecar | None
) -> tuple[FileChanges, ...]:
    """In place (``sidecar`` is ``None``), or into the sidecar with a pointer comment."""
    if sidecar is None:
        changes = _merge(document, document.definition(function), unit)
        return (FileChanges(Target.DOCUMENT, _coalesce(changes)),)
    files: list[FileChanges] = []
    cuda = sidecar.document
    if cuda is None:
        start = Position(0, 0)
        whole = merged_text(document, document.definition(function), unit)
        files.append(FileChanges(Target.SIDECAR, (TextChange(Span(start, start), whole),), True))
    else:
        same = cuda.definitions(unit.entry)
        merged = _merge(cuda, same[0] if len(same) == 1 else None, unit)
        files.append(FileChanges(Target.SIDECAR, _coalesce(merged)))
    pointer = _pointer(document, function, sidecar.name, unit.brief)
    files.append(FileChanges(Target.DOCUMENT, (pointer,)))
    return tuple(files)


def merged_text(document: Document, anchor: Node, unit: Unit) -> str:
    """The text of ``document`` with the unit merged in place of ``anchor``: the user's whole
    file with the result, nothing else of it lost (a kernel's launcher, other functions)."""
    starts = line_starts(document.text)
    text = document.text

    def offset(at: Position) -> int:
        return starts[at.row] + at.column if at.row < len(starts) else len(text)

    for change in reversed(_coalesce(_merge(document, anchor, unit))):
        text = text[: offset(change.span.start)] + change.text + text[offset(change.span.end) :]
    return text


def _name(node: Node) -> str | None:
    if node.type == "function_definition":
        written = function_name(node)
        return None if written is None else unqualified(written)
    named = node.child_by_field_name("name")
    if named is not None:
        return node_text(named)
    declarator = node.child_by_field_name("declarator")
    while declarator is not None and declarator.child_by_field_name("declarator") is not None:
        declarator = declarator.child_by_field_name("declarator")
    return node_text(declarator) if declarator is not None else None


def _items(root: Node) -> list[_Item]:
    """Top-level items; a lone ``;`` after a struct belongs to the struct."""
    items: list[_Item] = []
    for node in root.children:
        if node.type == ";" and items:
            last = items[-1]
            items[-1] = _Item(last.node, last.text + ";", last.key)
            continue
        name = _name(node)
        items.append(_Item(node, node_text(node), (node.type, name) if name else None))
    return items


def _entry_index(items: list[_Item], key: tuple[str, str]) -> int | None:
    found = [i for i, item in enumerate(items) if item.key == key]
    return found[-1] if found else None


def _replaced(anchor: Node) -> Node:
    """What the result replaces: the function, or the file-scope class it is defined in (the
    unit carries that class with the member changed; the helpers it adds belong above the
    class, not inside it)."""
    members = anchor.parent
    owner = members.parent if members is not None else None
    if (
        members is None
        or members.type != "field_declaration_list"
        or owner is None
        or owner.parent is None
        or owner.parent.type != "translation_unit"
    ):
        return anchor
    return owner


def _normal(text: str) -> str:
    return " ".join(text.split())


def _merge(document: Document, anchor: Node | None, unit: Unit) -> list[TextChange]:
    """Changes that put the unit into ``document``, replacing ``anchor`` if given (else
    appending the entry at the end)."""
    items = _items(parse_source(unit.code, SourceLanguage.CUDA).root_node)
    anchor = None if anchor is None else _replaced(anchor)
    name = None if anchor is None else _name(anchor)
    key = ("function_definition", unit.entry)
    if anchor is not None and name is not None:
        key = (anchor.type, name)
    index = _entry_index(items, key)
    if index is None:  # nothing to merge by: the unit replaces the function whole
        ahead, entry, behind = [], unit.code, []
    else:
        ahead, entry, behind = items[:index], items[index].text, items[index + 1 :]
    present = _items(document.tree.root_node)
    changes: list[TextChange] = []
    includes: list[str] = []
    new = partial(_new_items, document, present, anchor=anchor, changes=changes, includes=includes)
    before, after = new(ahead), new(behind)
    if includes:
        last = [item.node for item in present if item.node.type == "preproc_include"]
        # An include's node ends after its newline, at column 0 of the next row.
        row = last[-1].end_point.row + (last[-1].end_point.column > 0) if last else 0
        changes.append(_insert(_row(row), "".join(f"{text}\n" for text in includes)))
    body = unit.header + entry
    if anchor is None:
        changes.append(_insert(document.end(), f"\n{before}{body}\n{after}"))
        return changes
    row = anchor.start_point.row
    block = comment_block(document.lines, row, above=True)
    old_header = unit.header_rows(document.lines, block)
    indented = not document.lines[row].encode()[: anchor.start_point.column].strip()
    if old_header is not None:
        start = _row(old_header.start)
    else:
        start = _row(row) if indented else document.position(anchor.start_point)
    closing = anchor.next_sibling  # the `;` after a class, which the unit's text of it has
    end = document.position(
        closing.end_point if closing is not None and closing.type == ";" else anchor.end_point
    )
    if before:
        changes.append(_insert(_row(block.start if block else row), before))
    changes.append(TextChange(Span(start, end), body))
    if after:
        changes.append(_insert(end, "\n\n" + after.rstrip("\n")))
    return changes


def _new_items(
    document: Document,
    present: list[_Item],
    group: list[_Item],
    *,
    anchor: Node | None,
    changes: list[TextChange],
    includes: list[str],
) -> str:
    """The text of the items of ``group`` that ``document`` lacks. Items it has are skipped;
    a changed definition of the same name becomes a change where it stands; new includes
    are collected apart, to go with the others."""
    texts = {_normal(item.text) for item in present}
    defined = {item.key: item.node for item in present if item.key is not None}
    new: list[str] = []
    for item in group:
        if _normal(item.text) in texts:
            continue
        existing = defined.get(item.key) if item.key else None
        if existing is not None and existing != anchor:
            changes.append(TextChange(document.span(existing), item.text))
        elif item.node.type == "preproc_include":
            includes.append(item.text)
        else:
            new.append(f"{item.text}\n\n")
    return "".join(new)


def _pointer(document: Document, function: Function, file_name: str, brief: str) -> TextChange:
    """Insert the pointer comment above the function, or refresh the one already there."""
    row = function.span.start.row
    line = document.lines[row]
    text = line[: len(line) - len(line.lstrip())] + pointer_comment(file_name, brief) + "\n"
    block = comment_block(document.lines, row, above=True)
    existing = next((r for r in block if pointer_target(document.lines[r]) is not None), None)
    if existing is None:
        return _insert(_row(row), text)
    return TextChange(Span(_row(existing), _row(existing + 1)), text)


def _row(row: int) -> Position:
    return Position(row, 0)


def _insert(at: Position, text: str) -> TextChange:
    return TextChange(Span(at, at), text)


def _coalesce(changes: list[TextChange]) -> tuple[TextChange, ...]:
    """One change per start position, texts in the order given: LSP does not say in which
    order a client applies an insertion and another edit that start at the same place."""
    merged: dict[Position, TextChange] = {}
    for change in changes:
        start = change.span.start
        old = merged.get(start)
        if old is None:
            merged[start] = change
            continue
        end = max(old.span.end, change.span.end)
        merged[start] = TextChange(Span(start, end), old.text + change.text)
    return tuple(merged[start] for start in sorted(merged))
