"""Declarations read off source bytes: names, specifiers, indirections, constness.

The verifier's gate reasons about what a declaration makes writable or visible (a
namespace-scope object, a pointer to non-const) on the spliced bytes of a candidate, so
these helpers take the ``code`` the tree was parsed from.
"""

from __future__ import annotations

from regrapht_core.cxx.parse import Node

__all__ = [
    "TRANSPARENT_SCOPES",
    "declarator_name",
    "immutable",
    "inner_declarator",
    "is_prototype",
    "namespace_scope",
    "pointer_levels",
    "specifiers",
    "strip_init",
    "text_in",
]

TRANSPARENT_SCOPES = frozenset(
    {
        "translation_unit",
        "declaration_list",
        "linkage_specification",
        "namespace_definition",
        "template_declaration",
        "preproc_if",
        "preproc_ifdef",
        "preproc_else",
        "preproc_elif",
        "preproc_elifdef",
    }
)
"""Scopes whose declarations are still at namespace scope."""


def text_in(node: Node, code: bytes) -> str:
    return code[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def strip_init(declarator: Node) -> Node:
    if declarator.type == "init_declarator":
        inner = declarator.child_by_field_name("declarator")
        if inner is not None:
            return inner
    return declarator


def inner_declarator(declarator: Node) -> Node | None:
    inner = declarator.child_by_field_name("declarator")
    if inner is None and declarator.type in ("parenthesized_declarator", "reference_declarator"):
        inner = next((c for c in declarator.named_children if c.type != "type_qualifier"), None)
    return inner


def declarator_name(declarator: Node | None, code: bytes) -> str | None:
    while declarator is not None:
        if declarator.type in ("identifier", "field_identifier", "type_identifier"):
            return text_in(declarator, code)
        if declarator.type == "qualified_identifier":
            name = declarator.child_by_field_name("name")
            return None if name is None else declarator_name(name, code)
        declarator = inner_declarator(declarator)
    return None


def is_prototype(declarator: Node) -> bool:
    """A function declaration (not a function-pointer variable)."""
    declarator = strip_init(declarator)
    if declarator.type != "function_declarator":
        return False
    inner = declarator.child_by_field_name("declarator")
    return inner is None or inner.type != "parenthesized_declarator"


def specifiers(node: Node, code: bytes) -> set[str]:
    """Storage classes, qualifiers and CUDA execution spaces written on a declaration."""
    found: set[str] = set()
    for child in node.children:
        if child.type in ("storage_class_specifier", "type_qualifier"):
            found.add(text_in(child, code).strip())
        elif not child.is_named:
            found.add(child.type)
    return found


def pointer_levels(declarator: Node | None, code: bytes) -> list[tuple[str, frozenset[str]]]:
    """Indirections from the base type outwards to the declared name, with their qualifiers."""
    levels: list[tuple[str, frozenset[str]]] = []
    while declarator is not None:
        kind = declarator.type
        if kind in ("pointer_declarator", "abstract_pointer_declarator"):
            quals = frozenset(
                text_in(c, code) for c in declarator.children if c.type == "type_qualifier"
            )
            levels.append(("*", quals))
        elif kind in ("reference_declarator", "abstract_reference_declarator"):
            levels.append((declarator.children[0].type, frozenset({"const"})))
        elif kind in ("array_declarator", "abstract_array_declarator"):
            size = declarator.child_by_field_name("size")
            levels.append((f"[{'' if size is None else text_in(size, code)}]", frozenset()))
        elif kind == "function_declarator":
            break
        declarator = inner_declarator(declarator)
    return levels


def immutable(declaration: Node, declarator: Node, code: bytes) -> bool:
    """Const all the way down: nothing reachable through the variable can be written."""
    specs = specifiers(declaration, code)
    levels = pointer_levels(strip_init(declarator), code)
    constexpr = "constexpr" in specs or "constinit" in specs
    base_const = "const" in specs or (constexpr and not levels)
    indirections = [quals for kind, quals in levels if kind == "*"]
    if indirections and constexpr:
        indirections[-1] = indirections[-1] | {"const"}
    return base_const and all("const" in quals for quals in indirections)


def namespace_scope(node: Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == "translation_unit":
            return True
        if parent.type not in TRANSPARENT_SCOPES:
            return False
        parent = parent.parent
    return False
