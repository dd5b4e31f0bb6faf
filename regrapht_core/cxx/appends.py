"""The shape of a loop that appends one element per iteration.

C++ fills a container with ``push_back``::

    std::vector<float> out;
    for (std::size_t i = 0; i < x.size(); ++i) out.push_back(f(x[i]));
    for (float v : x) out.push_back(f(v));

Such a loop appends exactly once per iteration, so the container's final length, and where
each element lands, are known before it runs. Two places need that: the task analysis,
which infers the length of a returned vector filled this way (``tasks.infer``), and the
rewriter that sizes the container first and writes by index (``rewrite.appends``). Both
read the shape here: a counted loop, or a range-for over a named container, whose body
appends unconditionally, once, at its top level, to a container it does not otherwise
touch, with no ``break``, ``continue``, ``return`` or ``goto``, and bounds (the container
walked) the body does not change.
"""

from __future__ import annotations

from dataclasses import dataclass

from regrapht_core.cxx.affine import mentions, uses
from regrapht_core.cxx.loops import CountedLoop, counted_loop
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.syntax import assignment_targets, body_statements, strip_parens

__all__ = ["AppendingLoop", "appending_loop"]

_APPENDS = frozenset({"push_back"})
_LEAVES = frozenset({"break_statement", "continue_statement", "return_statement", "goto_statement"})


@dataclass(frozen=True, slots=True)
class AppendingLoop:
    statement: Node
    loop: CountedLoop | None
    """The counted loop's header; ``None`` for a range-for (see :attr:`over`)."""
    over: str
    """The container a range-for walks (``for (float v : x)``: ``x``); empty otherwise."""
    container: str
    argument: Node
    """The appended value's expression."""
    append: Node
    """The ``v.push_back(e);`` statement."""


def _append(statement: Node) -> tuple[str, Node, Node] | None:
    """``(container, argument, call)`` of ``v.push_back(e);``."""
    call = statement.named_children[0] if statement.named_child_count else None
    if statement.type != "expression_statement" or call is None:
        return None
    if call.type != "call_expression":
        return None
    function, arguments = (
        call.child_by_field_name("function"),
        call.child_by_field_name("arguments"),
    )
    if function is None or arguments is None or function.type != "field_expression":
        return None
    obj, field = function.child_by_field_name("argument"), function.child_by_field_name("field")
    if obj is None or field is None or node_text(function.children[1]) != ".":
        return None
    if strip_parens(obj).type != "identifier" or node_text(field) not in _APPENDS:
        return None
    if arguments.named_child_count != 1:
        return None
    return node_text(strip_parens(obj)), arguments.named_children[0], call


def _written(body: Node) -> set[str]:
    """Names the body assigns, increments or declares."""
    targets = assignment_targets(body, declarations=True)
    return {node_text(n) for target in targets for n in walk(target) if n.type == "identifier"}


def appending_loop(statement: Node) -> AppendingLoop | None:
    """``statement`` read as a loop of the module's shape, or None."""
    loop, over, body = None, "", None
    if statement.type == "for_statement":
        try:
            loop = counted_loop(statement)
        except Refusal:
            return None
        body = loop.body
    elif statement.type == "for_range_loop":
        walked = statement.child_by_field_name("right")
        body = statement.child_by_field_name("body")
        if walked is None or strip_parens(walked).type != "identifier":
            return None
        over = node_text(strip_parens(walked))
    if body is None:
        return None
    appends = [(s, found) for s in body_statements(body) if (found := _append(s)) is not None]
    if len(appends) != 1 or any(n.type in _LEAVES for n in walk(body)):
        return None
    append, (container, argument, call) = appends[0]
    own = {n.id for n in walk(call.child_by_field_name("function") or call)}
    if any(n.id not in own for n in uses(body, container)):
        return None
    changed = _written(body) | {container}
    if loop is None:
        if over in changed or _walks_changed(body, over):
            return None
    elif any(mentions(bound, changed) for bound in loop.bounds()):
        return None
    return AppendingLoop(statement, loop, over, container, argument, append)


def _walks_changed(body: Node, over: str) -> bool:
    """The body calls a method of the container it walks (which might resize it)."""
    for n in walk(body):
        if n.type == "field_expression" and n.child_by_field_name("argument") is not None:
            argument = n.child_by_field_name("argument")
            if argument is not None and node_text(strip_parens(argument)) == over:
                return True
    return False
