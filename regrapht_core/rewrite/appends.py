"""A loop that appends one element per iteration, read as one that writes by index.

C++ programmers fill an output with ``push_back``::

    out.clear();
    out.reserve(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) out.push_back(f(x[i]));

Device code cannot grow a container, but this loop appends exactly one element per
iteration, so where each lands is known before the loop runs. :func:`appends_as_writes`
sizes the container first and writes by index::

    out.resize(out.size() + N);                       // N: the trip count, at least 0
    for (std::size_t i = 0; i < x.size(); ++i) out[out.size() - N + (i - 0)] = f(x[i]);

which keeps whatever ``out`` held before (the elements land after it, as they did), and
which the pointer form then splits like any resize-then-map. It applies only to a top-level
counted loop whose body appends unconditionally, once, at its top level, to a container it
does not otherwise touch, with no ``break``, ``continue``, ``return`` or ``goto`` and
bounds the body does not change. A ``push_back`` under a condition (a compaction, whose
length depends on the data) is left alone: it needs a scan.
"""

from __future__ import annotations

from collections.abc import Callable

from regrapht_core.contracts.task import Task
from regrapht_core.cxx.affine import mentions
from regrapht_core.cxx.functions import function_definitions, function_name
from regrapht_core.cxx.loops import CountedLoop, counted_loop
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.syntax import body_statements, parse, strip_parens

__all__ = ["appends_as_writes"]

_APPENDS = frozenset({"push_back"})
_LEAVES = frozenset({"break_statement", "continue_statement", "return_statement", "goto_statement"})


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
    names = set()
    for node in walk(body):
        target = None
        if node.type == "assignment_expression":
            target = node.child_by_field_name("left")
        elif node.type == "update_expression":
            target = node.child_by_field_name("argument")
        elif node.type == "init_declarator":
            target = node.child_by_field_name("declarator")
        if target is not None:
            names |= {node_text(n) for n in walk(target) if n.type == "identifier"}
    return names


def _appending_loop(statement: Node) -> tuple[CountedLoop, str, Node, Node] | None:
    """``(loop, container, argument, append statement)`` for a loop of the module's shape."""
    if statement.type != "for_statement":
        return None
    try:
        loop = counted_loop(statement)
    except Refusal:
        return None
    body = loop.body
    appends = [(s, found) for s in body_statements(body) if (found := _append(s)) is not None]
    if len(appends) != 1 or any(n.type in _LEAVES for n in walk(body)):
        return None
    append, (container, argument, call) = appends[0]
    mentioned = [n for n in walk(body) if n.type == "identifier" and node_text(n) == container]
    own = {n.id for n in walk(call.child_by_field_name("function") or call)}
    if any(n.id not in own for n in mentioned):
        return None
    changed = _written(body) | {container}
    if mentions(loop.upper, changed) or mentions(loop.lower, changed):
        return None
    return loop, container, argument, append


def appends_as_writes(
    code: str,
    task: Task,
    containers: frozenset[str],
    setup: Callable[[Node], bool] = lambda _: True,
) -> str | None:
    """``code`` with the entry's appending loops written by index (see the module), or None
    where it has none. ``containers``: the entry's vectors that may be resized; ``setup``:
    whether a statement may precede the resize, so a loop after other work keeps the
    ``push_back`` its refusal quotes rather than a resize the user never wrote."""
    root = parse(code).root_node
    found = [d for d in function_definitions(root) if function_name(d) == task.entry]
    body = found[0].child_by_field_name("body") if len(found) == 1 else None
    if body is None:
        return None
    edits = []
    statements = body_statements(body)
    for position, statement in enumerate(statements):
        matched = _appending_loop(statement)
        if matched is None or matched[1] not in containers:
            continue
        if not all(setup(s) for s in statements[:position]):
            continue
        loop, container, argument, append = matched
        trip = loop.trip_count()
        count = f"static_cast<std::size_t>(({trip}) > 0 ? ({trip}) : 0)"
        offset = f"({loop.var} - {node_text(loop.lower)})"
        indent = " " * statement.start_point[1]
        edits += [
            Edit.insert(
                statement.start_byte,
                f"{container}.resize({container}.size() + {count});\n{indent}",
            ),
            Edit.replace(
                append,
                f"{container}[{container}.size() - {count} + static_cast<std::size_t>"
                f"{offset}] = {node_text(argument)};",
            ),
        ]
    return apply_edits(code.encode("utf-8"), edits) if edits else None
