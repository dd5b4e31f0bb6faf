"""Index expressions as ``±stride * i + rest``: the shape that makes writes provably disjoint.

Two iterations of a loop may run on different threads only if neither writes an element the
other touches. With every access to an array written as ``stride * i + rest``, that holds
when each iteration owns a distinct slice: a single element (``stride`` 1 and the same
``rest`` everywhere) or a row ``[stride*i, stride*i + stride)`` (every ``rest`` an inner loop
variable running over ``[0, stride)``, or a literal inside that range). Expressions are
compared by tokens, so ``i*m + j`` and ``m*i+j`` agree but ``i*(m)`` and ``i*cols`` do not
unless they are spelled the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.syntax import canon, strip_parens, subscript_of

__all__ = [
    "Affine",
    "additive_terms",
    "affine",
    "factors",
    "int_literal",
    "literal_int",
    "mentions",
    "stride_key",
]


@dataclass(frozen=True, slots=True)
class Affine:
    sign: int
    """+1 or -1: the sign of the ``i`` term (``n - 1 - i`` reverses)."""
    stride: str
    """Canonical product of the stride factors, ``""`` for a unit stride."""
    stride_factors: tuple[Node, ...]
    rest: tuple[tuple[int, Node], ...]
    """Signed terms without ``i``."""

    def rest_key(self) -> str:
        return " ".join(f"{'+' if s > 0 else '-'} {canon(n)}" for s, n in self.rest)


def mentions(node: Node, names: set[str] | frozenset[str] | str) -> bool:
    wanted = {names} if isinstance(names, str) else names
    return any(n.type == "identifier" and node_text(n) in wanted for n in walk(node))


def uses(node: Node, name: str) -> list[Node]:
    """Every identifier ``name`` in ``node``, in source order: what a rename edits."""
    return [n for n in walk(node) if n.type == "identifier" and node_text(n) == name]


def array_at(node: Node, var: str, back: int = 0) -> str | None:
    """The array's name when ``node`` is ``array[var]`` (``back`` 0) or ``array[var - back]``."""
    parts = subscript_of(node) if node.type == "subscript_expression" else None
    if parts is None:
        return None
    wanted = var if back == 0 else f"{var}-{back}"
    index = "".join(node_text(strip_parens(parts[1])).split())
    return parts[0] if index == wanted else None


def literal_int(node: Node) -> int | None:
    node = strip_parens(node)
    return int_literal(node_text(node)) if node.type == "number_literal" else None


def int_literal(text: str) -> int | None:
    """An integer literal's value (``16``, ``0x10``, ``16u``), else ``None``."""
    try:
        return int(text.strip().rstrip("uUlL"), 0)
    except ValueError:
        return None


def additive_terms(node: Node, sign: int) -> list[tuple[int, Node]]:
    node = strip_parens(node)
    if node.type == "binary_expression":
        op = node_text(node.child_by_field_name("operator") or node.children[1])
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op in ("+", "-") and left is not None and right is not None:
            return additive_terms(left, sign) + additive_terms(right, sign if op == "+" else -sign)
    if node.type == "unary_expression" and node_text(node.children[0]) in ("-", "+"):
        argument = node.child_by_field_name("argument")
        if argument is not None:
            return additive_terms(argument, -sign if node_text(node.children[0]) == "-" else sign)
    return [(sign, node)]


def factors(node: Node) -> list[Node]:
    node = strip_parens(node)
    if node.type == "binary_expression":
        op = node_text(node.child_by_field_name("operator") or node.children[1])
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op == "*" and left is not None and right is not None:
            return factors(left) + factors(right)
    return [node]


def affine(index: Node, var: str) -> Affine | None:
    """``index`` as ``sign * stride * var + rest``, or ``None`` when it is not affine in var."""
    var_terms, rest = [], []
    for sign, term in additive_terms(index, 1):
        if not mentions(term, var):
            rest.append((sign, term))
            continue
        parts = factors(term)
        direct = [f for f in parts if f.type == "identifier" and node_text(f) == var]
        others = [f for f in parts if not (f.type == "identifier" and node_text(f) == var)]
        if len(direct) != 1 or any(mentions(f, var) for f in others):
            return None
        var_terms.append((sign, others))
    if len(var_terms) != 1:
        return None
    sign, stride_parts = var_terms[0]
    ordered = sorted(stride_parts, key=canon)
    stride = " * ".join(canon(f) for f in ordered if canon(f) != "1")
    return Affine(sign, stride, tuple(ordered), tuple(rest))


def stride_key(node: Node) -> str:
    """A bound in the same canonical form as :attr:`Affine.stride`."""
    return " * ".join(canon(f) for f in sorted(factors(node), key=canon) if canon(f) != "1")
