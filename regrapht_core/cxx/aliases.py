"""Row pointers written as the subscripts they stand for.

C code walks a matrix through a pointer to the current row::

    for (int r = 0; r < rows; ++r) {
        const float* row = x + r * cols;
        for (int c = 0; c < cols; ++c) s += row[c];
    }

The analysis reads subscripts of parameters, and refused ``x`` as "aliased by the local
pointer ``row``". ``row[c]`` is ``x[r * cols + c]``: this writes each ``p[e]`` as
``base[(offset) + (e)]`` and ``*p`` as ``base[offset]`` and drops the declaration, where the
pointer is declared once as ``base + offset`` (``&base[offset]``, or ``base`` alone),
every use is one of those two, and nothing after the declaration changes the pointer, the
base or a name the offset reads (the offset was computed once; its copies are computed at
each use). Each use stays on its line and the declaration's line is left blank, so messages
keep the user's line numbers.
"""

from __future__ import annotations

from regrapht_core.cxx.changes import may_change
from regrapht_core.cxx.declared import declaration_count
from regrapht_core.cxx.lambdas import pure
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.splice import Edit, apply_edits, overlapping
from regrapht_core.cxx.syntax import declared_name, operator_text, strip_parens

__all__ = ["inline_pointer_aliases"]


def inline_pointer_aliases(source: str, function: Node) -> str:
    """``source`` with each row pointer of ``function`` written as subscripts of what it
    points into; ``source`` itself when there is none (see the module)."""
    edits: list[Edit] = []
    for declaration in walk(function):
        found = _alias(declaration, function) if declaration.type == "declaration" else None
        if found is None:
            continue
        name, base, offset = found
        uses = _uses(declaration, name, base, offset)
        if uses is None or not uses:
            continue
        made = [*uses, Edit.replace(declaration, "\n" * node_text(declaration).count("\n"))]
        # ``row[*row]``: a use inside another would need nested edits; it stays as written
        nested = any(overlapping(made[k + 1 :], [edit]) for k, edit in enumerate(made))
        if not nested and not overlapping(made, edits):
            edits += made
    return apply_edits(source.encode("utf-8"), edits) if edits else source


def _alias(declaration: Node, function: Node) -> tuple[str, str, str] | None:
    """``(pointer, base, offset)`` for ``T* p = base + offset;`` (``offset + base``,
    ``&base[offset]``), if nothing after it may change what it reads; else None."""
    declarators = declaration.children_by_field_name("declarator")
    block = declaration.parent
    if len(declarators) != 1 or block is None or block.type != "compound_statement":
        return None
    pointer = declarators[0].child_by_field_name("declarator")
    value = declarators[0].child_by_field_name("value")
    if pointer is None or pointer.type != "pointer_declarator" or value is None:
        return None
    target = pointer.child_by_field_name("declarator")
    if target is None or target.type != "identifier" or not pure(value):
        return None
    parts = _pointed(strip_parens(value), _addresses(function))
    if parts is None:
        return None
    base, offset = parts
    names = {node_text(n) for n in walk(offset) if n.type == "identifier"} - {node_text(base)}
    name = node_text(target)
    if any(may_change(block, n, skip=declaration) for n in names | {node_text(base), name}):
        return None
    if declaration_count(function, name) != 1:
        return None
    return name, node_text(base), "0" if offset == base else node_text(offset)


def _addresses(function: Node) -> set[str]:
    """The names ``function`` declares as pointers or arrays (parameters and locals)."""
    return {
        node_text(found)
        for node in walk(function)
        if node.type in ("pointer_declarator", "array_declarator")
        and (found := declared_name(node)) is not None
    }


def _pointed(value: Node, addresses: set[str]) -> tuple[Node, Node] | None:
    """``(base, offset)`` of ``base + offset``, ``offset + base`` or ``&base[offset]``
    with ``base`` the name of a pointer or an array; ``(base, base)`` for ``base`` alone."""
    if value.type == "pointer_expression" and operator_text(value) == "&":
        inner = strip_parens(value.named_children[0]) if value.named_children else None
        if inner is not None and inner.type == "subscript_expression":
            base = inner.child_by_field_name("argument")
            indices = inner.child_by_field_name("indices")
            index = indices.named_children[0] if indices is not None else None
            if base is not None and node_text(base) in addresses and index is not None:
                return base, index
        return None
    if value.type == "identifier" and node_text(value) in addresses:
        return value, value  # ``T* p = base;``: an offset of zero (``0``, see _alias)
    if value.type != "binary_expression" or operator_text(value) != "+":
        return None
    left, right = value.child_by_field_name("left"), value.child_by_field_name("right")
    if left is None or right is None:
        return None
    if left.type == "identifier" and node_text(left) in addresses:
        return left, right
    if right.type == "identifier" and node_text(right) in addresses:
        return right, left
    return None


def _uses(declaration: Node, name: str, base: str, offset: str) -> list[Edit] | None:
    """The edits that write each use of ``name`` after ``declaration`` in its block as a
    subscript of ``base``; None where a use is not ``name[e]`` or ``*name``."""
    block = declaration.parent
    edits: list[Edit] = []
    for node in walk(block) if block is not None else ():
        if node.start_byte < declaration.end_byte:
            continue
        if node.type != "identifier" or node_text(node) != name:
            continue
        parent = node.parent
        if parent is None:
            return None
        if parent.type == "subscript_expression" and parent.child_by_field_name("argument") == node:
            indices = parent.child_by_field_name("indices")
            index = indices.named_children[0] if indices is not None else None
            if index is None:
                return None
            edits.append(Edit.replace(parent, f"{base}[({offset}) + ({node_text(index)})]"))
        elif parent.type == "pointer_expression" and operator_text(parent) == "*":
            edits.append(Edit.replace(parent, f"{base}[{offset}]"))
        else:
            return None
    return edits
