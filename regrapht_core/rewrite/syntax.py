"""Syntax-tree access and byte-range edits shared by every rewriter.

Rewriters decide on tree-sitter nodes and change code by splicing replacements into byte
ranges of the original text, so everything they do not touch -- comments, formatting,
macros -- reaches the candidate unchanged. The CUDA grammar is a superset of the C++ one,
so one parser serves sequential references and kernels alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache

import tree_sitter
import tree_sitter_cuda

from regrapht_core.rewrite.protocol import Refusal

__all__ = [
    "Edit",
    "NameAllocator",
    "apply_edits",
    "canon",
    "declared_name",
    "function_definitions",
    "function_name",
    "identifiers",
    "indent_block",
    "loop_ancestor",
    "parse",
    "render",
    "strip_parens",
    "text",
    "walk",
]

_LOOPS = frozenset({"for_statement", "while_statement", "do_statement", "for_range_loop"})


@cache
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))


def parse(code: str) -> tree_sitter.Tree:
    """The tree, or a refusal naming the first syntax error: half-typed code is not rewritten."""
    tree = _parser().parse(code.encode("utf-8"))
    if tree.root_node.has_error:
        for node in walk(tree.root_node):
            if node.type == "ERROR" or node.is_missing:
                row, col = node.start_point
                raise Refusal(f"the code does not parse (line {row + 1}, column {col + 1})")
    return tree


def text(node: tree_sitter.Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


def walk(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """Pre-order, source order, without recursion."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def identifiers(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    return (n for n in walk(node) if n.type == "identifier")


def strip_parens(node: tree_sitter.Node) -> tree_sitter.Node:
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        inner = node.named_children[0]
        node = inner
    return node


def canon(node: tree_sitter.Node) -> str:
    """Token text without layout or outer parentheses: ``( m )`` and ``m`` compare equal."""
    node = strip_parens(node)
    return " ".join(text(leaf) for leaf in walk(node) if leaf.child_count == 0)


def loop_ancestor(node: tree_sitter.Node, stop: tree_sitter.Node) -> tree_sitter.Node | None:
    """The innermost loop strictly inside ``stop`` that encloses ``node`` (``None``: stop's)."""
    current = node.parent
    while current is not None and current != stop:
        if current.type in _LOOPS:
            return current
        current = current.parent
    return None


def function_name(definition: tree_sitter.Node) -> str | None:
    declarator = definition.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        declarator = declarator.child_by_field_name("declarator")
    if declarator is None:
        return None
    name = declarator.child_by_field_name("declarator")
    return text(name) if name is not None and name.type == "identifier" else None


def function_definitions(root: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """Namespace-scope definitions, templates included, in source order."""
    for child in root.named_children:
        if child.type == "function_definition":
            yield child
        elif child.type == "template_declaration":
            yield from (c for c in child.named_children if c.type == "function_definition")


def declared_name(declarator: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The identifier a (pointer, array, init, reference) declarator introduces."""
    while declarator is not None and declarator.type != "identifier":
        if declarator.type in ("function_declarator", "parenthesized_declarator"):
            return None
        declarator = declarator.child_by_field_name("declarator")
    return declarator


@dataclass(frozen=True, slots=True)
class Edit:
    start: int
    end: int
    replacement: str

    @classmethod
    def replace(cls, node: tree_sitter.Node, replacement: str) -> Edit:
        return cls(node.start_byte, node.end_byte, replacement)

    @classmethod
    def insert(cls, at: int, replacement: str) -> Edit:
        return cls(at, at, replacement)


def apply_edits(source: bytes, edits: Iterable[Edit], *, base: int = 0) -> str:
    """Splice ``edits`` (offsets relative to the file; ``source`` starts at ``base``)."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
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


def render(node: tree_sitter.Node, edits: Iterable[Edit]) -> str:
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


class NameAllocator:
    """Fresh identifiers that collide with nothing in the file (or handed out before)."""

    def __init__(self, root: tree_sitter.Node) -> None:
        self._taken = {
            text(n)
            for n in walk(root)
            if n.type in ("identifier", "type_identifier", "field_identifier")
        }

    def fresh(self, wanted: str) -> str:
        name, suffix = wanted, 1
        while name in self._taken:
            suffix += 1
            name = f"{wanted}{suffix}"
        self._taken.add(name)
        return name
