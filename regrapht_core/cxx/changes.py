"""Whether code may change a variable: what rewriting a counter away must rule out.

A loop rewritten around its counter (a ``while`` as a ``for``, a stride as a count) is the
same program only if nothing else moves the counter: an assignment or a step, a pointer to
it, a reference bound to it, or a declaration of the same name that the rewritten uses
would then read instead.
"""

from __future__ import annotations

from regrapht_core.cxx.affine import mentions
from regrapht_core.cxx.declared import declared_names
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.syntax import assignment_targets, canon

__all__ = ["may_change"]


def may_change(scope: Node, name: str, *, skip: Node | None = None) -> bool:
    """Whether ``scope`` (outside ``skip``) assigns or steps ``name``, takes its address,
    declares it again, or declares a reference in a declaration that mentions it."""

    def outside(node: Node) -> bool:
        return skip is None or not (skip.start_byte <= node.start_byte < skip.end_byte)

    if any(canon(t) == name and outside(t) for t in assignment_targets(scope)):
        return True
    for node in walk(scope):
        if not outside(node):
            continue
        if node.type == "pointer_expression" and node_text(node).startswith("&"):
            if node.named_children and canon(node.named_children[0]) == name:
                return True
        elif node.type == "declaration" and (
            name in declared_names(node)
            or (any(n.type == "reference_declarator" for n in walk(node)) and mentions(node, name))
        ):
            return True
    return False
