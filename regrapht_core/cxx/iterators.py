"""Iterator loops over a container, written as the index loops they are.

Older C++ walks a vector with an iterator::

    for (auto it = v.begin(); it != v.end(); ++it) *it *= 2;

The analysis reads index loops, and saw here a container whose role and length it could not
tell. An iterator that starts at ``v.begin()``, stops at ``v.end()`` and steps by one is
the index ``it`` of ``v``: this writes ``for (std::size_t it = 0; it < v.size(); ++it)``
and, in the body, ``*it`` as ``v[it]``, ``it->m`` as ``v[it].m`` and ``it - v.begin()`` as
``it``, keeping the user's name. Only where every use of the iterator in the body is one of
those (not stored, compared, moved or passed on), the body does not change ``v``'s size
(which would end the iterator's life) and the loop declares the iterator (``auto`` or a
``...iterator`` type). Each part stays on its line, so messages keep the user's line
numbers.
"""

from __future__ import annotations

from regrapht_core.cxx.loops import compared_bound, declared_loop
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.splice import Edit, rewrite_loops
from regrapht_core.cxx.syntax import ObjectCall, object_call, strip_parens

__all__ = ["index_iterators"]

_BEGINS = {"begin": "end", "cbegin": "cend"}
_RESIZES = frozenset(
    {"push_back", "emplace_back", "pop_back", "insert", "erase", "resize", "clear", "assign"}
)


def index_iterators(source: str, function: Node) -> str:
    """``source`` with each iterator loop of ``function`` over a container written as an
    index loop; ``source`` itself when there is none (see the module)."""
    return rewrite_loops(source, function, _rewritten)


def _rewritten(loop: Node) -> list[Edit]:
    """The edits that index ``loop``, or none where it is not read."""
    parts = declared_loop(loop)
    if parts is None:
        return []
    kind = parts.kind
    if not (node_text(kind) == "auto" or node_text(kind).endswith("iterator")):
        return []
    it, opened = parts.var, _called(parts.value, frozenset(_BEGINS))
    body, condition, update = parts.body, parts.condition, parts.update
    bound = compared_bound(condition, it)
    closed = _called(bound[1], frozenset({_BEGINS[opened.method]})) if opened and bound else None
    if opened is None or bound is None or closed is None or bound[0] not in ("!=", "<"):
        return []
    container = opened.target
    step = "".join(node_text(update).split())
    if closed.target != container or step not in (f"++{it}", f"{it}++"):
        return []
    uses = _uses(body, it, container)
    if uses is None or _resized(body, container):
        return []
    return [
        Edit.replace(kind, "std::size_t"),
        Edit.replace(parts.value, "0"),
        Edit.replace(strip_parens(condition), f"{it} < {container}.size()"),
        Edit.replace(strip_parens(update), f"++{it}"),
        *uses,
    ]


def _called(node: Node, methods: frozenset[str]) -> ObjectCall | None:
    """``v.begin()`` with ``begin`` among ``methods``, in parentheses or not; an iterator
    from ``std::begin(v)`` or ``p->begin()`` is not read (the index form spells ``v``)."""
    call = object_call(strip_parens(node))
    if call is None or call.spelled != "." or call.arguments or call.method not in methods:
        return None
    return call


def _uses(body: Node, it: str, container: str) -> list[Edit] | None:
    """The edits that spell each use of ``it`` by index, or None where one is not
    ``*it``, ``it->m`` or ``it - container.begin()``."""
    edits = []
    for node in walk(body):
        if node.type != "identifier" or node_text(node) != it:
            continue
        parent = node.parent
        if parent is None:
            return None
        operator = parent.child_by_field_name("operator")
        symbol = node_text(operator) if operator is not None else ""
        if parent.type == "pointer_expression" and symbol == "*":
            edits.append(Edit.replace(parent, f"{container}[{it}]"))
        elif parent.type == "field_expression" and operator is not None and symbol == "->":
            edits.append(Edit.replace(node, f"{container}[{it}]"))
            edits.append(Edit.replace(operator, "."))
        elif symbol == "-" and _from_begin(parent, node, container):
            edits.append(Edit.replace(parent, it))
        else:
            return None
    return edits


def _from_begin(difference: Node, node: Node, container: str) -> bool:
    """``it - container.begin()`` with ``it`` on the left."""
    right = difference.child_by_field_name("right")
    opened = _called(right, frozenset(_BEGINS)) if right is not None else None
    left = difference.child_by_field_name("left")
    return (
        difference.type == "binary_expression"
        and left == node
        and (opened is not None and opened.target == container)
    )


def _resized(body: Node, container: str) -> bool:
    """Whether ``body`` calls a method that may change ``container``'s size."""
    calls = (object_call(node) for node in walk(body))
    return any(
        c is not None and c.spelled != "std::" and c.target == container and c.method in _RESIZES
        for c in calls
    )
