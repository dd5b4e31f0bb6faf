"""Function definitions: where they are, what they are called, what their header says.

One notion of a function's name for the whole engine (task extraction, rewriters, the
editor's eligibility): :func:`function_name` is the name *as a caller at namespace scope
writes it*, so ``float f(...)`` is ``f``, ``float ns::f(...)`` is ``ns::f`` and
``void S::f()`` is ``S::f``. A task's entry must be a plain identifier (the harness calls it
by that name), so a qualified function is named truthfully and then refused by the task
check rather than silently mistaken for a free function ``f``.
"""

from __future__ import annotations

from collections.abc import Iterator

from regrapht_core.cxx.parse import Node, node_text

__all__ = [
    "definition_header",
    "execution_spaces",
    "file_scope_item",
    "function_declarator",
    "function_definitions",
    "function_name",
    "is_kernel",
    "signature_text",
    "unqualified",
]

_NAMES = frozenset(
    {
        "identifier",
        "field_identifier",
        "qualified_identifier",
        "operator_name",
        "destructor_name",
    }
)


def function_declarator(definition: Node) -> Node | None:
    """The ``function_declarator`` under pointer/reference return declarators."""
    node = definition.child_by_field_name("declarator")
    while node is not None and node.type != "function_declarator":
        if node.type == "reference_declarator":
            # What a reference declarator refers to has no field name.
            node = node.named_children[0] if node.named_child_count else None
        else:
            node = node.child_by_field_name("declarator")
    return node


def function_name(definition: Node) -> str | None:
    """The name as written, qualification included and layout removed (``ns::f``, ``S::f``,
    ``f``; a template is named without its parameters), or ``None`` when the declarator
    names nothing (a conversion operator, a parse error)."""
    declarator = function_declarator(definition)
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    if name is not None and name.type == "template_function":
        name = name.child_by_field_name("name")
    if name is None or name.type not in _NAMES:
        return None
    return "".join(node_text(name).split())


def unqualified(name: str) -> str:
    """The last component of a :func:`function_name` (``ns::f`` -> ``f``): what a use of
    the function inside its own scope is spelled as."""
    return name.rsplit("::", 1)[-1]


def function_definitions(root: Node) -> Iterator[Node]:
    """Namespace-scope definitions, templates included, in source order."""
    for child in root.named_children:
        if child.type == "function_definition":
            yield child
        elif child.type == "template_declaration":
            yield from (c for c in child.named_children if c.type == "function_definition")


def file_scope_item(definition: Node) -> Node:
    """The namespace-scope item a definition is: itself, or the template that holds it."""
    parent = definition.parent
    return parent if parent is not None and parent.type == "template_declaration" else definition


_EXECUTION_SPACES = frozenset({"__global__", "__device__", "__host__"})


def execution_spaces(definition: Node) -> frozenset[str]:
    """The CUDA execution space keywords a definition is declared with (none: host only)."""
    return frozenset(c.type for c in definition.children if c.type in _EXECUTION_SPACES)


def is_kernel(definition: Node) -> bool:
    return any(c.type == "__global__" for c in definition.children)


def definition_header(definition: Node) -> str:
    """Everything before the body, as written (the signature the caller links against)."""
    body = definition.child_by_field_name("body")
    end = body.start_byte if body is not None else definition.end_byte
    source = definition.text or b""
    return source[: end - definition.start_byte].decode("utf-8", errors="replace")


def signature_text(definition: Node) -> str:
    """The declaration as written, up to the body, on one line."""
    return " ".join(definition_header(definition).split())
