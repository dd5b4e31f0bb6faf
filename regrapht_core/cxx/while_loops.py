"""Counting ``while`` loops written as the ``for`` loops they are.

Some people count with ``while``::

    std::size_t i = 0;
    while (i < n) {
        data[i] *= k;
        ++i;
    }

The analysis reads counted ``for`` loops, and saw here an index with no bound. This is
``for (std::size_t i = 0; i < n; ++i) { data[i] *= k; }`` exactly when the counter is
declared just before the loop, advanced by one as the body's last statement and nowhere
else in it, the body has no ``continue`` of its own (a ``continue`` skips the ``while``'s
increment but not the ``for``'s), and nothing after the loop reads the counter (the
``for`` ends its scope). Only then is it rewritten, each part on its own line (the
declaration's line is left blank), so line numbers in messages stay the user's.
"""

from __future__ import annotations

from regrapht_core.cxx.affine import mentions
from regrapht_core.cxx.changes import may_change
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.splice import Edit, apply_edits

__all__ = ["counted_whiles"]

_LOOPS = frozenset({"for_statement", "for_range_loop", "while_statement", "do_statement"})
_STEPS = ("++{i}", "{i}++", "{i} += 1", "{i} = {i} + 1")


def counted_whiles(source: str, function: Node) -> str:
    """``source`` with each counting ``while`` loop of ``function`` written as its ``for``
    loop; ``source`` itself when there is none (see the module)."""
    edits: list[Edit] = []
    for loop in walk(function):
        found = _counting(loop) if loop.type == "while_statement" else None
        if found is None:
            continue
        declaration, condition, step = found
        counter = node_text(declaration).rstrip().removesuffix(";")
        header = f"for ({counter}; {node_text(condition)}; ++{_counter(declaration)})"
        body = loop.child_by_field_name("body")
        assert body is not None  # _counting found its last statement
        # The lines between ``while`` and the body (a brace on its own line) stay lines.
        spanned = (loop.text or b"")[: body.start_byte - loop.start_byte].count(b"\n")
        edits += [
            Edit.replace(declaration, ""),
            Edit(
                loop.start_byte,
                body.start_byte,
                header + " " + "\n" * (spanned - header.count("\n")),
            ),
            Edit.replace(step, "\n" * node_text(step).count("\n")),
        ]
    return apply_edits(source.encode("utf-8"), edits) if edits else source


def _counting(loop: Node) -> tuple[Node, Node, Node] | None:
    """``(declaration, condition, step)`` of a counting ``while`` loop, or None."""
    previous, body = loop.prev_named_sibling, loop.child_by_field_name("body")
    clause = loop.child_by_field_name("condition")
    condition = clause.named_children[0] if clause is not None and clause.named_children else None
    if previous is None or body is None or condition is None or body.type != "compound_statement":
        return None
    name = _counter(previous)
    statements = [c for c in body.named_children if c.type != "comment"]
    if name is None or "\n" in node_text(previous) or not statements:
        return None
    step = statements[-1]
    steps = {s.format(i=name) for s in _STEPS}
    if step.type != "expression_statement" or _spaced(node_text(step).removesuffix(";")) not in {
        _spaced(s) for s in steps
    }:
        return None
    if may_change(body, name, skip=step) or _continues(body) or _read_after(loop, name):
        return None
    return previous, condition, step


def _counter(statement: Node) -> str | None:
    """``i`` for ``T i = start;`` declaring one plain variable, else None."""
    declarators = statement.children_by_field_name("declarator")
    if statement.type != "declaration" or len(declarators) != 1:
        return None
    target = declarators[0].child_by_field_name("declarator")
    if declarators[0].type != "init_declarator" or target is None or target.type != "identifier":
        return None
    if any(c.type == "type_qualifier" for c in statement.children):
        return None
    return node_text(target)


def _spaced(text: str) -> str:
    return "".join(text.split())


def _continues(body: Node) -> bool:
    """Whether ``body`` has a ``continue`` of this loop (not of a loop inside it)."""
    for node in walk(body):
        if node.type != "continue_statement":
            continue
        owner = node.parent
        while owner is not None and owner != body and owner.type not in _LOOPS:
            owner = owner.parent
        if owner == body:
            return True
    return False


def _read_after(loop: Node, name: str) -> bool:
    """Whether a statement after ``loop`` in its block mentions ``name``."""
    after = loop.next_named_sibling
    while after is not None:
        if mentions(after, name):
            return True
        after = after.next_named_sibling
    return False
