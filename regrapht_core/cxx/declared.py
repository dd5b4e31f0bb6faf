"""The names a piece of code declares, wherever inside it: what a name it uses can mean.

The model's answers are repaired (``model.repair``: may a kernel the model wrote inside a
host function move to file scope without losing a local it reads?) and completed
(``model.borrow``: which names does an answer use but declare nowhere?) by asking the same
question, so both read the answer here. The source rewrites that move or copy code
(``cxx.aliases``, ``cxx.hoist``) ask here how often a function declares a name.
"""

from __future__ import annotations

from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.syntax import declared_name

__all__ = ["declaration_count", "declared_names", "declared_types"]

_TYPE_SPECIFIERS = frozenset(
    {"struct_specifier", "class_specifier", "union_specifier", "enum_specifier"}
)
_DECLARING = frozenset(
    {
        "declaration",
        "parameter_declaration",
        "optional_parameter_declaration",
        "field_declaration",
        "for_range_loop",
    }
)
_TYPE_PARAMETERS = frozenset({"type_parameter_declaration", "optional_type_parameter_declaration"})


def declared_types(node: Node) -> set[str]:
    """Type names (classes, enums, typedefs, aliases) defined anywhere inside ``node``."""
    names: set[str] = set()
    for child in walk(node):
        defines = child.type in _TYPE_SPECIFIERS and child.child_by_field_name("body") is not None
        if defines or child.type == "alias_declaration":
            name = child.child_by_field_name("name")
        elif child.type == "type_definition":
            name = next(iter(child.children_by_field_name("declarator")), None)
        else:
            continue
        if name is not None:
            names.add(node_text(name))
    return names


def declared_names(node: Node) -> set[str]:
    """Every variable, parameter, type and template type parameter declared anywhere inside
    ``node``. A prototype's function name is not among them: it defines nothing."""
    names = declared_types(node)
    for child in walk(node):
        if child.type in _DECLARING:
            for declarator in child.children_by_field_name("declarator"):
                found = declared_name(declarator)
                if found is not None:
                    names.add(node_text(found))
        elif child.type in _TYPE_PARAMETERS:
            names |= {node_text(n) for n in child.named_children if n.type == "type_identifier"}
    return names


def declaration_count(function: Node, name: str) -> int:
    """How many declarations and parameters of ``function`` declare ``name`` anywhere inside
    them. Code moved or copied to another place in ``function`` reads the same variable there
    only where this is 1. A declaration inside another (a local of a lambda kept in a local)
    counts for both, so a name declared there is never declared once: code inside such a
    lambda is left as written."""
    return sum(
        name in declared_names(d)
        for d in walk(function)
        if d.type in ("declaration", "parameter_declaration")
    )
