"""Loop counters declared by deduction, written with the type they have.

Modern C++ lets the compiler pick a counter's type::

    for (auto i = 0u; i < n; ++i) ...                    // unsigned int
    auto n = x.size();
    for (decltype(n) i = 0; i < n; i++) ...              // std::size_t

The analysis and the kernels it writes need the counter's type by name (a thread index of
that type, a grid-stride step cast to it), and refused these loops as "not of an integer
type". The type is fixed by the language, so this writes it out: an integer literal's type
follows from its suffix, and ``decltype(n)`` is the type ``n`` was declared with, or
``std::size_t`` where ``n`` was deduced from a standard container's ``size()``. A counter
whose type is not that plain (a literal too large for ``int``, a ``decltype`` of an
expression, a const ``n``) is left as written, so the refusal still quotes the user's loop.
Only the type is replaced, on its line, so line numbers in messages stay the user's.
"""

from __future__ import annotations

from regrapht_core.cxx.literals import INTEGER_TYPES, literal_type
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.syntax import declared_name

__all__ = ["spell_deduced_counters"]

_CONTAINERS = frozenset({"vector", "string", "string_view", "array", "deque"})
"""Standard containers whose ``size()`` is ``std::size_t`` (the standard allocator's
``size_type``)."""


def spell_deduced_counters(source: str, function: Node) -> str:
    """``source`` with each integer variable of ``function`` declared ``auto`` (from an
    integer literal or a container's ``size()``) or ``decltype(name)`` written with its
    type; ``source`` itself when there is none (see the module)."""
    edits: list[Edit] = []
    for declaration in walk(function):
        if declaration.type != "declaration":
            continue
        spelled = _spelled(declaration, function, frozenset())
        kind = declaration.child_by_field_name("type")
        if spelled is not None and kind is not None:
            edits.append(Edit.replace(kind, spelled))
    return apply_edits(source.encode("utf-8"), edits) if edits else source


def _spelled(declaration: Node, function: Node, seen: frozenset[str]) -> str | None:
    """The integer type of the one plain variable ``declaration`` declares, by name, or
    None. ``seen``: the names whose ``decltype`` led here (invalid code can loop)."""
    kind = declaration.child_by_field_name("type")
    declarators = declaration.children_by_field_name("declarator")
    if kind is None or len(declarators) != 1 or _plain_name(declarators[0]) is None:
        return None
    if any(c.type == "type_qualifier" for c in declaration.children) and seen:
        return None  # decltype of a const variable is const: no counter's type
    value = declarators[0].child_by_field_name("value")
    if kind.type == "placeholder_type_specifier" and node_text(kind) == "auto":
        if value is None or declarators[0].type != "init_declarator":
            return None
        return "std::size_t" if _container_size(value, function) else _literal_type(value)
    if kind.type == "decltype":
        named = list(kind.named_children)
        if len(named) != 1 or named[0].type != "identifier" or node_text(named[0]) in seen:
            return None
        name = node_text(named[0])
        found = [
            node
            for node in walk(function)
            if node.type in ("declaration", "parameter_declaration")
            and any(_plain_name(d) == name for d in node.children_by_field_name("declarator"))
        ]
        return _spelled(found[0], function, seen | {name}) if len(found) == 1 else None
    if kind.type in ("primitive_type", "sized_type_specifier") or node_text(kind) in (
        "size_t",
        "std::size_t",
    ):
        return node_text(kind) if seen else None
    return None


def _literal_type(value: Node) -> str | None:
    """An integer literal's type, or None for any other initial value."""
    if value.type != "number_literal":
        return None
    kind = literal_type(node_text(value).replace("'", "").lower())
    return kind if kind in INTEGER_TYPES else None


def _plain_name(declarator: Node) -> str | None:
    """The name ``declarator`` declares, where it declares a variable itself (not a
    pointer, reference or array, whose ``decltype`` is no counter's type)."""
    inner = declarator.child_by_field_name("declarator")
    target = inner if declarator.type == "init_declarator" and inner is not None else declarator
    return node_text(target) if target.type == "identifier" else None


def _container_size(value: Node, function: Node) -> bool:
    """Whether ``value`` is ``c.size()`` for a ``c`` declared as a standard container."""
    call = value.child_by_field_name("function") if value.type == "call_expression" else None
    arguments = value.child_by_field_name("arguments") if call is not None else None
    if call is None or call.type != "field_expression" or arguments is None:
        return False
    owner, member = call.child_by_field_name("argument"), call.child_by_field_name("field")
    if owner is None or member is None or owner.type != "identifier":
        return False
    if node_text(member) != "size" or arguments.named_child_count:
        return False
    for node in walk(function):
        kind = node.child_by_field_name("type")
        if node.type not in ("declaration", "parameter_declaration") or kind is None:
            continue
        declares = any(
            _referred(d) == node_text(owner) for d in node.children_by_field_name("declarator")
        )
        template = node_text(kind).split("<", 1)[0].strip()
        if declares and template.removeprefix("std::") in _CONTAINERS:
            return True
    return False


def _referred(declarator: Node) -> str | None:
    """The name a declarator introduces, through a reference (``const std::vector<float>&
    x``: ``x``) as well as an initialiser."""
    while declarator.type == "reference_declarator" and declarator.named_child_count:
        declarator = declarator.named_children[-1]
    found = declared_name(declarator)
    return node_text(found) if found is not None else None
