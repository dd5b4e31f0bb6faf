"""Subscripts that scale a sum by a literal, written as the sum of the scaled terms.

Interleaved data is indexed by a pixel's (or a record's) position times its channel count::

    out[3 * (y * width + x) + c] = ...;        // or (y * width + x) * 3 + c

The analysis reads an index as ``stride * i + rest`` term by term (:mod:`.affine`), so it
cannot see through the parentheses: the index is "not affine in ``y``" and the loop stays on
the host. Written ``y * width * 3 + x * 3 + c``, the same index is a row of ``3 * width``
elements per ``y``, each ``x`` owning three of them. Integer multiplication distributes over
addition, so this is the same index; it only changes where a sum that overflows would
overflow, which is undefined for signed integers either way. Only subscripts are
rewritten, only a product of an integer literal and a parenthesized sum written on one
line, and on that line, so line numbers in messages stay the user's.
"""

from __future__ import annotations

from regrapht_core.cxx.affine import additive_terms, literal_int, mentions
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.syntax import declared_name, operator_text, strip_parens, subscript_of

__all__ = ["distribute_literal_factors"]

_BARE = frozenset({"identifier", "number_literal", "subscript_expression", "call_expression"})
"""Terms that need no parentheses in front of ``* k``."""


def distribute_literal_factors(source: str, function: Node) -> str:
    """``source`` with each ``k * (a + b)`` (or ``(a + b) * k``) that is a term of a
    subscript's index in ``function`` written ``a * k + b * k`` (in parentheses where the
    term is subtracted); ``source`` itself when there is none. A term of a valid index is
    an integer (a floating term would make the index floating), so the distribution is
    exact; a sum that mentions a pointer or an array (``p - q``) is left alone."""
    addresses = _addresses(function)
    edits: list[Edit] = []
    for node in walk(function):
        parts = subscript_of(node) if node.type == "subscript_expression" else None
        if parts is None:
            continue
        for sign, term in additive_terms(parts[1], 1):
            scaled = _scaled_sum(term, addresses)
            if scaled is not None and not _inside_edit(term, edits):
                edits.append(Edit.replace(term, scaled if sign > 0 else f"({scaled})"))
    return apply_edits(source.encode("utf-8"), edits) if edits else source


def _addresses(function: Node) -> set[str]:
    """The names ``function`` declares as pointers or arrays (parameters and locals)."""
    found = set()
    for node in walk(function):
        if node.type in ("pointer_declarator", "array_declarator"):
            name = declared_name(node)
            if name is not None:
                found.add(node_text(name))
    return found


def _inside_edit(node: Node, edits: list[Edit]) -> bool:
    return any(e.start <= node.start_byte and node.end_byte <= e.end for e in edits)


def _scaled_sum(node: Node, addresses: set[str]) -> str | None:
    """``a * k + b * k`` for ``k * (a + b)`` or ``(a + b) * k``, else None."""
    if node.type != "binary_expression" or operator_text(node) != "*":
        return None
    if node.start_point[0] != node.end_point[0]:
        return None  # rewritten onto one line, the lines after it would move up
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None:
        return None
    for factor, other in ((left, right), (right, left)):
        inner = strip_parens(other)
        if literal_int(factor) is None or other.type != "parenthesized_expression":
            continue
        terms = additive_terms(inner, 1)
        if len(terms) < 2 or mentions(inner, addresses):
            return None
        k = node_text(strip_parens(factor))
        parts = [f"{'+' if sign > 0 else '-'} {_times(term, k)}" for sign, term in terms]
        text = " ".join(parts)
        return text[2:] if text.startswith("+ ") else f"-{text[1:]}"
    return None


def _times(term: Node, k: str) -> str:
    """``term * k``, with ``term`` in parentheses unless it binds tighter than ``*``."""
    text = node_text(term)
    tight = term.type in _BARE or (term.type == "binary_expression" and operator_text(term) == "*")
    return f"{text} * {k}" if tight else f"({text}) * {k}"
