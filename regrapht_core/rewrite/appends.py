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
loop of the shape ``cxx.appends`` reads (the task analysis reads the same shape to infer
a returned vector's length). A ``push_back`` under a condition (a compaction, whose
length depends on the data) is left alone: it needs a scan.
"""

from __future__ import annotations

from collections.abc import Callable

from regrapht_core.contracts.task import Task
from regrapht_core.cxx.appends import appending_loop
from regrapht_core.cxx.functions import function_definitions, function_name
from regrapht_core.cxx.parse import Node, node_text
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.syntax import body_statements, parse

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
    statements = body_statements(body)
    for position, statement in enumerate(statements):
        matched = appending_loop(statement)
        if matched is None or matched.container not in containers:
            continue
        if not all(setup(s) for s in statements[:position]):
            continue
        loop, container, argument, append = (
            matched.loop,
            matched.container,
            matched.argument,
            matched.append,
        )
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
