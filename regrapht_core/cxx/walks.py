"""Pointer walks written as subscripts of the loop's counter.

C code moves a pointer one element per iteration::

    for (int i = 0; i < n; ++i) *dst++ = *src++ * gain;

The analysis reads subscripts, and refused a write through a moving pointer. In iteration
``i`` of a loop from zero, a pointer stepped once per iteration by ``*p++`` points at its
start plus ``i``, so ``*p++`` is ``p[i]``. This writes that, where each such pointer
appears in the body exactly once, as ``*p++`` in a statement of the body that always runs
it (not under a condition or a short-circuit), the loop counts from zero by one and does
not change its counter, nothing after the loop reads the pointer (it no longer moves), and
the loop does not run again with the pointer where it left it (inside another loop that
the pointer is not declared in).
A local ``T* p = base;`` is then a plain alias, which the row-pointer rewrite
(``cxx/aliases.py``) writes as ``base``. Each use stays on its line.
"""

from __future__ import annotations

from regrapht_core.cxx.affine import literal_int, mentions
from regrapht_core.cxx.changes import may_change
from regrapht_core.cxx.declared import declared_names
from regrapht_core.cxx.loops import declared_loop
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.splice import Edit, rewrite_loops
from regrapht_core.cxx.syntax import identifiers, loop_ancestor, operator_text, strip_parens

__all__ = ["index_pointer_walks"]

_CONDITIONAL = frozenset({"conditional_expression", "if_statement", "lambda_expression"})
_STEPS = ("++{i}", "{i}++", "{i}+=1")


def index_pointer_walks(source: str, function: Node) -> str:
    """``source`` with each ``*p++`` of a loop of ``function`` written ``p[i]`` (see the
    module); ``source`` itself when there is none."""
    return rewrite_loops(source, function, lambda loop: _rewritten(loop, function))


def _rewritten(loop: Node, function: Node) -> list[Edit]:
    parts = declared_loop(loop)
    if parts is None or literal_int(parts.value) != 0:
        return []
    counter, body = parts.var, parts.body
    step = "".join(node_text(parts.update).split())
    if step not in {s.format(i=counter) for s in _STEPS} or may_change(body, counter):
        return []
    edits = []
    for pointer, use in _walked(body).items():
        uses = [n for n in identifiers(body) if node_text(n) == pointer]
        if len(uses) != 1 or not _always_runs(use, body):
            continue
        if _read_after(loop, pointer, function) or _outlives(loop, pointer, function):
            continue
        edits.append(Edit.replace(use, f"{pointer}[{counter}]"))
    return edits


def _walked(body: Node) -> dict[str, Node]:
    """Each pointer the body dereferences as ``*p++``, with that expression."""
    found = {}
    for node in walk(body):
        if node.type != "pointer_expression" or operator_text(node) != "*":
            continue
        inner = strip_parens(node.named_children[0]) if node.named_children else None
        if (
            inner is None
            or inner.type != "update_expression"
            or not node_text(inner).endswith("++")
        ):
            continue
        argument = inner.child_by_field_name("argument")
        if argument is not None and argument.type == "identifier":
            found[node_text(argument)] = node
    return found


def _always_runs(use: Node, body: Node) -> bool:
    """Whether ``use`` runs once every iteration: in a statement of ``body`` itself (or the
    body's one statement), not under a condition, a short-circuit or a loop of its own."""
    node = use.parent
    while node is not None:
        if node.type in _CONDITIONAL:
            return False
        if node.type == "binary_expression" and operator_text(node) in ("&&", "||"):
            return False
        if node.type in ("expression_statement", "declaration"):
            return node == body or (node.parent == body and body.type == "compound_statement")
        if node == body or node.type.endswith(("_statement", "_loop")):
            return False
        node = node.parent
    return False


def _outlives(loop: Node, pointer: str, function: Node) -> bool:
    """Whether ``pointer`` keeps moving across runs of ``loop``: the loop sits in another
    loop that the pointer is not declared in (a parameter, or a local from outside it)."""
    outer = loop_ancestor(loop, function)
    if outer is None:
        return False
    return not any(
        d.type == "declaration" and pointer in declared_names(d)
        for d in walk(outer)
        if d.start_byte < loop.start_byte
    )


def _read_after(loop: Node, pointer: str, function: Node) -> bool:
    """Whether ``function`` mentions ``pointer`` after ``loop``, where it would read where the
    walk left the pointer: in a node after the loop, or after a node holding it."""
    node: Node | None = loop
    while node is not None and node != function:
        after = node.next_sibling
        while after is not None:
            if mentions(after, pointer):
                return True
            after = after.next_sibling
        node = node.parent
    return False
