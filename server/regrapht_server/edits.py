"""An offer as a workspace edit: previewed, annotated, and safe to apply to CUDA sources.

The core's answer is a whole translation unit (includes, helpers, kernels, the entry), not
just a function. Pasting it over the function would redefine everything the file already
has, so it is merged: items the file already contains are left alone, changed definitions
of the same name are replaced where they stand, new ones go above the function, and the
function itself is replaced with the header directly above it (where hover looks).

CUDA documents (``.cu``, ``.cuh``) are changed in place. A C or C++ file cannot hold CUDA,
so its answer goes to ``<stem>.regrapht.cu`` beside it (merged the same way when several
functions of one file are optimized) and the original function gets a one-line comment
pointing there.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import tree_sitter
from lsprotocol import types

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.functions import function_name
from regrapht_core.cxx.parse import node_text, parse_source
from regrapht_server.header import header_rows, pointer_comment, pointer_target
from regrapht_server.outcomes import Offer
from regrapht_server.regions import Parsed, Region, comment_block

__all__ = ["ANNOTATION_ID", "SIDECAR_SUFFIX", "Document", "beside", "in_place", "sidecar_path"]

ANNOTATION_ID = "regrapht"
SIDECAR_SUFFIX = ".regrapht.cu"

_Edit = tuple[types.Range, str]


@dataclass(frozen=True, slots=True)
class Document:
    """A document as the edit will address it: the version pins what the edit was made for
    (``None`` for a file that is not open in the editor)."""

    uri: str
    version: int | None
    parsed: Parsed


@dataclass(frozen=True, slots=True)
class _Item:
    node: tree_sitter.Node
    text: str
    key: tuple[str, str] | None
    """Kind and name of what the item defines: only a definition of the same kind replaces."""


def sidecar_path(source: Path) -> Path:
    """``foo.cpp`` → ``foo.regrapht.cu``, next to it."""
    return source.with_name(source.stem + SIDECAR_SUFFIX)


def in_place(document: Document, region: Region, offer: Offer) -> types.WorkspaceEdit:
    edits = _merge(document.parsed, region.node, offer)
    return _workspace_edit([_document_edit(document.uri, document.version, edits)], offer)


def beside(
    source: Document,
    region: Region,
    sidecar_uri: str,
    sidecar: Document | None,
    offer: Offer,
) -> types.WorkspaceEdit:
    """``sidecar`` is the existing CUDA file, or ``None`` to create it."""
    changes: list[types.TextDocumentEdit | types.CreateFile] = []
    if sidecar is None:
        start = types.Position(0, 0)
        changes.append(types.CreateFile(uri=sidecar_uri, annotation_id=ANNOTATION_ID))
        unit = (types.Range(start, start), _new_unit(offer))
        changes.append(_document_edit(sidecar_uri, None, [unit]))
    else:
        same = sidecar.parsed.functions_named(offer.entry)
        anchor = same[0] if len(same) == 1 else None
        merged = _merge(sidecar.parsed, anchor, offer)
        changes.append(_document_edit(sidecar.uri, sidecar.version, merged))
    pointer = _pointer(source.parsed, region, Path(sidecar_uri).name, offer.summary)
    changes.append(_document_edit(source.uri, source.version, [pointer]))
    return _workspace_edit(changes, offer)


def _workspace_edit(
    changes: list[types.TextDocumentEdit | types.CreateFile], offer: Offer
) -> types.WorkspaceEdit:
    annotation = types.ChangeAnnotation(
        label=offer.label, needs_confirmation=True, description=offer.description
    )
    return types.WorkspaceEdit(
        document_changes=changes, change_annotations={ANNOTATION_ID: annotation}
    )


def _document_edit(uri: str, version: int | None, edits: list[_Edit]) -> types.TextDocumentEdit:
    return types.TextDocumentEdit(
        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
        edits=[
            types.AnnotatedTextEdit(range=rng, new_text=text, annotation_id=ANNOTATION_ID)
            for rng, text in _coalesce(edits)
        ],
    )


def _name(node: tree_sitter.Node) -> str | None:
    if node.type == "function_definition":
        return function_name(node)
    named = node.child_by_field_name("name")
    if named is not None:
        return node_text(named)
    declarator = node.child_by_field_name("declarator")
    while declarator is not None and declarator.child_by_field_name("declarator") is not None:
        declarator = declarator.child_by_field_name("declarator")
    return node_text(declarator) if declarator is not None else None


def _items(root: tree_sitter.Node) -> list[_Item]:
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


def _entry_index(items: list[_Item], entry: str) -> int | None:
    found = [i for i, item in enumerate(items) if item.key == ("function_definition", entry)]
    return found[-1] if found else None


def _normal(text: str) -> str:
    return " ".join(text.split())


def _new_unit(offer: Offer) -> str:
    """The whole candidate, with the header moved directly above the entry function."""
    code = offer.code.encode()
    items = _items(parse_source(offer.code, SourceLanguage.CUDA).root_node)
    index = _entry_index(items, offer.entry)
    if index is None:
        return offer.header + offer.code
    at = items[index].node.start_byte
    return code[:at].decode() + offer.header + code[at:].decode()


def _merge(parsed: Parsed, anchor: tree_sitter.Node | None, offer: Offer) -> list[_Edit]:
    """Edits that put the candidate's unit into ``parsed``, replacing ``anchor`` if given
    (else appending the entry at the end)."""
    items = _items(parse_source(offer.code, SourceLanguage.CUDA).root_node)
    index = _entry_index(items, offer.entry)
    if index is None:  # nothing to merge by: the unit replaces the function whole
        ahead, entry, behind = [], offer.code, []
    else:
        ahead, entry, behind = items[:index], items[index].text, items[index + 1 :]
    present = _items(parsed.tree.root_node)
    edits: list[_Edit] = []
    includes: list[str] = []
    before = _new_items(parsed, present, ahead, anchor=anchor, edits=edits, includes=includes)
    after = _new_items(parsed, present, behind, anchor=anchor, edits=edits, includes=includes)
    if includes:
        last = [item.node for item in present if item.node.type == "preproc_include"]
        # An include's node ends after its newline, at column 0 of the next row.
        row = last[-1].end_point.row + (last[-1].end_point.column > 0) if last else 0
        edits.append((_at(row), "".join(f"{text}\n" for text in includes)))
    body = offer.header + entry
    if anchor is None:
        end = parsed.end()
        edits.append((types.Range(end, end), f"\n{before}{body}\n{after}"))
        return edits
    row = anchor.start_point.row
    block = comment_block(parsed.lines, row, above=True)
    old_header = header_rows(parsed.lines, block)
    indented = not parsed.lines[row].encode()[: anchor.start_point.column].strip()
    if old_header is not None:
        start = _row(old_header.start)
    else:
        start = _row(row) if indented else parsed.position(anchor.start_point)
    end = parsed.position(anchor.end_point)
    if before:
        edits.append((_at(block.start if block else row), before))
    edits.append((types.Range(start, end), body))
    if after:
        edits.append((types.Range(end, end), "\n\n" + after.rstrip("\n")))
    return edits


def _new_items(
    parsed: Parsed,
    present: list[_Item],
    group: list[_Item],
    *,
    anchor: tree_sitter.Node | None,
    edits: list[_Edit],
    includes: list[str],
) -> str:
    """The text of the items of ``group`` that ``parsed`` lacks. Items it has are skipped;
    a changed definition of the same name becomes an edit where it stands; new includes
    are collected apart, to go with the others."""
    texts = {_normal(item.text) for item in present}
    defined = {item.key: item.node for item in present if item.key is not None}
    new: list[str] = []
    for item in group:
        if _normal(item.text) in texts:
            continue
        existing = defined.get(item.key) if item.key else None
        if existing is not None and existing != anchor:
            edits.append((parsed.range(existing), item.text))
        elif item.node.type == "preproc_include":
            includes.append(item.text)
        else:
            new.append(f"{item.text}\n\n")
    return "".join(new)


def _pointer(parsed: Parsed, region: Region, file_name: str, summary: str) -> _Edit:
    """Insert the pointer comment above the function, or refresh the one already there."""
    row = region.row
    line = parsed.lines[row]
    text = line[: len(line) - len(line.lstrip())] + pointer_comment(file_name, summary) + "\n"
    block = comment_block(parsed.lines, row, above=True)
    existing = next((r for r in block if pointer_target(parsed.lines[r]) is not None), None)
    if existing is None:
        return (_at(row), text)
    return (types.Range(_row(existing), _row(existing + 1)), text)


def _row(row: int) -> types.Position:
    return types.Position(row, 0)


def _at(row: int) -> types.Range:
    return types.Range(_row(row), _row(row))


def _coalesce(edits: list[_Edit]) -> list[_Edit]:
    """One edit per start position, texts in the order given: LSP does not say in which
    order a client applies an insertion and another edit that start at the same place."""
    merged: dict[tuple[int, int], _Edit] = {}
    for rng, text in edits:
        key = (rng.start.line, rng.start.character)
        if key not in merged:
            merged[key] = (rng, text)
            continue
        old_range, old_text = merged[key]
        wider = max(old_range, rng, key=lambda r: (r.end.line, r.end.character))
        merged[key] = (wider, old_text + text)
    return [merged[key] for key in sorted(merged)]
