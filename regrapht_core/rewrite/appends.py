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

(a range-for ``for (float v : x) out.push_back(f(v));`` becomes a counted loop over ``x``
whose body starts ``float v = x[k];``), which keeps whatever ``out`` held before (the
elements land after it, as they did), and
which the pointer form then splits like any resize-then-map. It applies only to a top-level
loop of the shape ``cxx.appends`` reads (the task analysis reads the same shape to infer
a returned vector's length). A ``push_back`` under a condition (a compaction, whose
length depends on the data) is left alone: it needs a scan.
"""

from __future__ import annotations

from collections.abc import Callable

from regrapht_core.contracts.task import Task
from regrapht_core.cxx.appends import AppendingLoop, appending_loop
from regrapht_core.cxx.functions import function_definitions, function_name
from regrapht_core.cxx.parse import Node, node_text
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.syntax import NameAllocator, body_statements, parse

__all__ = ["appends_as_writes"]


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
    names = NameAllocator(root)
    statements = body_statements(body)
    for position, statement in enumerate(statements):
        matched = appending_loop(statement)
        if matched is None or matched.container not in containers:
            continue
        if not all(setup(s) for s in statements[:position]):
            continue
        container, loop = matched.container, matched.loop
        indent = " " * statement.start_point[1]
        if loop is None:
            count = f"{matched.over}.size()"
            index = names.fresh("k")
            place = f"{container}.size() - {count} + {index}"
            replacement = _counted(matched, index, place)
        else:
            trip = loop.trip_count()
            count = f"static_cast<std::size_t>(({trip}) > 0 ? ({trip}) : 0)"
            offset = f"static_cast<std::size_t>({loop.var} - {node_text(loop.lower)})"
            place = f"{container}.size() - {count} + {offset}"
            replacement = _written(statement, matched, place)
        edits.append(
            Edit.replace(
                statement,
                f"{container}.resize({container}.size() + {count});\n{indent}{replacement}",
            )
        )
    return apply_edits(code.encode("utf-8"), edits) if edits else None


def _written(statement: Node, matched: AppendingLoop, place: str) -> str:
    """``statement``'s text with its ``push_back`` written to ``container[place]``."""
    write = Edit.replace(
        matched.append, f"{matched.container}[{place}] = {node_text(matched.argument)};"
    )
    return apply_edits(statement.text or b"", [write], base=statement.start_byte)


def _counted(matched: AppendingLoop, index: str, place: str) -> str:
    """The range-for as a counted loop over the same container: ``for (T v : x) body`` as
    ``for (std::size_t k = 0; k < x.size(); ++k) { T v = x[k]; body }``."""
    loop = matched.statement
    opened = next(c for c in loop.children if c.type == "(")
    colon = next(c for c in loop.children if c.type == ":")
    body = loop.child_by_field_name("body")
    assert body is not None  # appending_loop read it
    text = loop.text or b""
    variable = text[opened.end_byte - loop.start_byte : colon.start_byte - loop.start_byte]
    over = matched.over
    return (
        f"for (std::size_t {index} = 0; {index} < {over}.size(); ++{index}) {{ "
        f"{variable.decode().strip()} = {over}[{index}]; {_written(body, matched, place)} }}"
    )
