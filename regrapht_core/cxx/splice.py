"""Changing code as plain text: byte-range edits spliced into the original.

Everything an edit does not touch -- comments, formatting, macros -- reaches the result
unchanged, which is what makes a candidate reviewable as a diff and mergeable into the
user's file as text changes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from regrapht_core.cxx.parse import Node, walk

__all__ = ["Edit", "apply_edits", "indent_block", "overlapping", "render", "rewrite_loops"]


@dataclass(frozen=True, slots=True)
class Edit:
    start: int
    end: int
    replacement: str

    @classmethod
    def replace(cls, node: Node, replacement: str) -> Edit:
        return cls(node.start_byte, node.end_byte, replacement)

    @classmethod
    def insert(cls, at: int, replacement: str) -> Edit:
        return cls(at, at, replacement)


def apply_edits(source: bytes, edits: Iterable[Edit], *, base: int = 0) -> str:
    """Splice ``edits`` (offsets relative to the file; ``source`` starts at ``base``); the
    same edit asked for twice (two launches sharing one block-size variable) is made once."""
    ordered = sorted(dict.fromkeys(edits), key=lambda e: (e.start, e.end))
    out: list[bytes] = []
    cursor = 0
    for edit in ordered:
        start, end = edit.start - base, edit.end - base
        if start < cursor:
            raise ValueError(f"overlapping edits at byte {edit.start}")
        out.extend((source[cursor:start], edit.replacement.encode("utf-8")))
        cursor = end
    out.append(source[cursor:])
    return b"".join(out).decode("utf-8")


def overlapping(found: Iterable[Edit], edits: Collection[Edit]) -> bool:
    """Whether an edit of ``found`` overlaps one of ``edits``: they share a byte, or one
    inserts strictly inside the other (an insertion at the edge of a replacement does not).
    :func:`apply_edits` cannot make both, so a rewrite that collects edits from several
    places keeps those it found first."""
    return any(a.start < b.end and b.start < a.end for a in found for b in edits)


def rewrite_loops(source: str, function: Node, rewritten: Callable[[Node], list[Edit]]) -> str:
    """``source`` with each ``for`` loop of ``function`` rewritten by ``rewritten`` (its
    edits, none to leave it), outer loops first; a nested loop whose edits would overlap an
    outer one's (its header reads the outer counter) is left as written."""
    edits: list[Edit] = []
    for loop in walk(function):
        found = rewritten(loop) if loop.type == "for_statement" else []
        if not overlapping(found, edits):
            edits += found
    return apply_edits(source.encode("utf-8"), edits) if edits else source


def render(node: Node, edits: Iterable[Edit]) -> str:
    """``node``'s text with the edits that fall inside it applied."""
    inside = [e for e in edits if node.start_byte <= e.start and e.end <= node.end_byte]
    return apply_edits(node.text or b"", inside, base=node.start_byte)


def indent_block(code: str, column: int, indent: str) -> str:
    """Re-indent a block whose first line began at ``column`` in its original file."""
    lines = code.splitlines()
    out = []
    for number, line in enumerate(lines):
        spaces = len(line) - len(line.lstrip(" \t"))
        kept = line[min(spaces, column) :] if number else line
        out.append(f"{indent}{kept}" if kept.strip() else "")
    return "\n".join(out)
