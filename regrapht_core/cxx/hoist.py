"""A bound declared beside the counter, declared before the loop.

A common micro-optimisation reads the size once, in the loop's own declaration::

    for (std::size_t i = 0, n = x.size(); i < n; ++i) y[i] = 2 * x[i];

The analysis reads a loop that declares one counter, and found the bound ``n`` with no
value. Declared just before the loop, ``std::size_t n = x.size(); for (std::size_t i = 0;
i < n; ++i)``, it is the same program where nothing else in the function declares ``n``
(its scope now reaches past the loop), the loop does not change it, and the counter's
initial value is a literal or a name (the two are then initialised in the same order, with
nothing to run between them). Both stay on the loop's line, so messages keep the user's
line numbers.
"""

from __future__ import annotations

from regrapht_core.cxx.changes import may_change
from regrapht_core.cxx.declared import declaration_count
from regrapht_core.cxx.parse import Node, node_text
from regrapht_core.cxx.splice import Edit, rewrite_loops

__all__ = ["hoist_loop_bounds"]


def hoist_loop_bounds(source: str, function: Node) -> str:
    """``source`` with each ``for (T i = a, n = e; ...)`` of ``function`` written as
    ``T n = e; for (T i = a; ...)``; ``source`` itself when there is none (see the
    module)."""
    return rewrite_loops(source, function, lambda loop: _hoisted(loop, function))


def _hoisted(loop: Node, function: Node) -> list[Edit]:
    """The edits that declare the bound before ``loop``; none where it is not read."""
    init = loop.child_by_field_name("initializer")
    if init is None or init.type != "declaration":
        return []
    declarators = init.children_by_field_name("declarator")
    kind = init.child_by_field_name("type")
    if kind is None or len(declarators) != 2:
        return []
    if loop.parent is None or loop.parent.type != "compound_statement":
        return []
    first, second = declarators
    names = [_plain(d) for d in declarators]
    counter_value = first.child_by_field_name("value")
    if None in names or counter_value is None:
        return []
    if counter_value.type not in ("number_literal", "identifier"):
        return []
    bound = names[1]
    assert bound is not None
    if declaration_count(function, bound) != 1 or may_change(loop, bound, skip=init):
        return []
    qualifiers = "".join(f"{node_text(c)} " for c in init.children if c.type == "type_qualifier")
    hoisted = f"{qualifiers}{node_text(kind)} {node_text(second)}; "
    counter = f"{qualifiers}{node_text(kind)} {node_text(first)};"
    return [Edit.insert(loop.start_byte, hoisted), Edit.replace(init, counter)]


def _plain(declarator: Node) -> str | None:
    """The name of ``name = value``, else None."""
    target = declarator.child_by_field_name("declarator")
    if declarator.type != "init_declarator" or target is None or target.type != "identifier":
        return None
    return node_text(target)
