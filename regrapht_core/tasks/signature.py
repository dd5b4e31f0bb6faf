"""The entry's parameters as the task sees them: pointer, vector, array or scalar, and of what.

What a parameter *is* decides how the harness allocates and passes it, so anything the
contract cannot express (double pointers, tuples, structs holding pointers) is
refused here with the parameter named and what to write instead, rather than guessed. The
parameters are read by :mod:`regrapht_core.cxx.params`; this module resolves typedefs,
checks the element types (numbers, ``std::complex``, ``std::pair``, plain structs: see
:mod:`regrapht_core.tasks.records`) and spells the declaration out for generated code.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from regrapht_core.contracts.task import ParamKind, Task
from regrapht_core.cxx.params import Parameter, parameters, variadic
from regrapht_core.cxx.parse import Node, node_text
from regrapht_core.errors import TaskError
from regrapht_core.tasks.dtypes import c_type_name, cxx_spelling, vector_element
from regrapht_core.tasks.expr import integer_constant
from regrapht_core.tasks.records import RecordTable, resolve_type

__all__ = [
    "MEMBER_ENTRY",
    "array_extent",
    "declaration",
    "entry_params",
    "entry_symbol",
    "member_declaration",
    "member_wrapper",
    "return_type",
    "typedefs",
]

MEMBER_ENTRY = "regrapht_member_entry"
"""The free function generated code calls for a member entry (see :func:`member_wrapper`)."""

_SPECIFIERS = ("struct_specifier", "class_specifier", "union_specifier", "enum_specifier")


def typedefs(root: Node) -> dict[str, str]:
    """File-level ``typedef T name;`` and ``using name = T;`` aliases of plain types;
    ``typedef struct Tag {...} name;`` is an alias of ``Tag`` (an anonymous struct's
    typedef name is the struct's own name, no alias)."""
    out: dict[str, str] = {}
    for node in root.named_children:
        if node.type == "type_definition":
            target = node.child_by_field_name("type")
            text = node_text(target) if target else ""
            if target is not None and target.type in _SPECIFIERS:
                tag = target.child_by_field_name("name")
                if tag is None:
                    continue
                text = node_text(tag)
            for i, child in enumerate(node.children):
                if node.field_name_for_child(i) == "declarator" and child.type == "type_identifier":
                    out[node_text(child)] = text
        elif node.type == "alias_declaration":
            name, target = node.child_by_field_name("name"), node.child_by_field_name("type")
            if name is not None and target is not None:
                out[node_text(name)] = node_text(target)
    return out


def entry_params(
    fn: Node,
    aliases: Mapping[str, str],
    where: str,
    *,
    table: RecordTable | None = None,
    constants: Mapping[str, int] | None = None,
) -> tuple[Parameter, ...]:
    """The parameters, each ``element`` resolved through ``aliases``.

    With ``table`` (the entry), every element type is checked and the structs it uses are
    recorded there, and ``std::array`` extents are evaluated with ``constants``; without
    (a helper the analysis follows), only the kinds are checked.
    """
    found = parameters(fn)
    if found is None:
        raise TaskError(f"{where}: cannot read the parameter list")
    if variadic(fn):
        raise TaskError(f"{where}: variadic functions cannot be tasks; write a wrapper")
    return tuple(_checked(p, aliases, where, table, constants or {}) for p in found)


def _checked(
    param: Parameter,
    aliases: Mapping[str, str],
    where: str,
    table: RecordTable | None,
    constants: Mapping[str, int],
) -> Parameter:
    if not param.element:
        raise TaskError(f"{where}: cannot read parameter {param.declaration!r}")
    if not param.name:
        raise TaskError(f"{where}: parameter {param.declaration!r} needs a name")
    at = f"{where}: parameter {param.name!r} ({param.declaration})"
    if param.container == "span" and param.extent:
        raise TaskError(
            f"{at}: a fixed-size std::span<T, N> is not supported; write std::span<T> (its "
            "size is then read from .size()), or pass a std::array<T, N>&"
        )
    if param.kind is None and param.container is not None:
        raise TaskError(
            f"{at}: pointers to containers are not supported; pass the std::{param.container} "
            "by reference"
        )
    if param.kind is None:
        raise TaskError(
            f"{at}: pointers to pointers are not supported; pass one flat array with its "
            "sizes and index it (a[i * n + j])"
        )
    if param.kind is ParamKind.POINTER and param.reference:
        raise TaskError(
            f"{at}: a reference to a pointer is not supported; pass the pointer by value"
        )
    ctype = resolve_type(param.element, aliases)
    if table is not None:
        ctype = table.require(ctype, at)
    if param.kind is ParamKind.ARRAY:
        extent = array_extent(param.extent, constants, at)
        return replace(param, element=ctype, extent=str(extent))
    return replace(param, element=ctype)


def array_extent(text: str, constants: Mapping[str, int], at: str) -> int:
    """``N`` of ``std::array<T, N>``: a literal, or a macro / constant with one."""
    value = integer_constant(text, constants)
    if value is None or value < 0:
        raise TaskError(
            f"{at}: the std::array size {text!r} is not an integer constant this file "
            "defines; write a number, or a #define / constexpr with a literal value"
        )
    return value


def return_type(
    fn: Node, aliases: Mapping[str, str], where: str, *, table: RecordTable | None = None
) -> str:
    """``void``, an element type, or ``vector<T>`` (a returned ``std::vector``)."""
    outer = fn.child_by_field_name("declarator")
    if outer is not None and outer.type != "function_declarator":
        raise TaskError(
            f"{where}: functions returning pointers or references are not supported; return "
            "a value, or write the result through an output parameter"
        )
    type_node = fn.child_by_field_name("type")
    written = node_text(type_node) if type_node is not None else "int"
    returns = resolve_type(written, aliases)
    if returns == "void" or table is None:
        return returns
    at = f"{where}: the return type {written!r}"
    element = vector_element(returns)
    if returns.startswith(("array<", "span<")):
        raise TaskError(f"{at} is not supported; return a std::vector or use an output parameter")
    table.require(element if element is not None else returns, at)
    return returns


def declaration(name: str, returns: str, params: tuple[Parameter, ...], *, c_linkage: bool) -> str:
    """The entry's declaration with every type spelled out (resolved, ``std::`` qualified,
    array extents as numbers): what generated code outside the reference's file declares."""
    parts = []
    for p in params:
        element = cxx_spelling(p.element)
        const = p.const
        if p.container == "vector":
            text = f"std::vector<{element}>"
        elif p.container == "array":
            text = f"std::array<{element}, {p.extent}>"
        elif p.container == "span":
            text = f"std::span<{'const ' if p.const else ''}{element}>"
            const = p.view_const
        else:
            text = element
        if const:
            text = f"const {text}"
        text += "*" * p.pointers + ("&" if p.reference else "")
        parts.append(f"{text} {p.name}")
    linkage = 'extern "C" ' if c_linkage else ""
    result = cxx_spelling(returns) if c_type_name(returns) != "void" else "void"
    return f"{linkage}{result} {name}({', '.join(parts)})"


def entry_symbol(task: Task) -> str:
    """The function generated code declares and calls: the entry itself, or for a member
    entry the free wrapper :func:`member_wrapper` appends to the unit."""
    return MEMBER_ENTRY if task.owner else task.entry


def member_declaration(task: Task) -> str:
    """The declaration of a member entry's wrapper: the entry's, renamed, as a free function."""
    written = (task.declaration or task.signature).strip().rstrip(";")
    head = re.sub(
        rf"(?:\b\w+\s*::\s*)*\b{re.escape(task.entry)}\s*\(", f"{MEMBER_ENTRY}(", written, count=1
    )
    head = re.sub(r"^\s*(?:static|inline|virtual|constexpr|explicit)\s+", "", head)
    return re.sub(r"\)[\s\w]*$", ")", head)  # const, noexcept, override: the method's


def member_wrapper(task: Task) -> str:
    """For a member entry, a free function appended to the unit that defines the class (the
    reference's, or a candidate's): it makes a fresh object on every call and calls the
    entry on it, so a method that changes members starts each call from the same object.
    Empty for a free function.

    The harness and the validation driver declare and call this wrapper, never the class:
    they need no copy of it, and a candidate's class only has to keep the entry's name and
    signature (its members are its own business, and are not compared).
    """
    if not task.owner:
        return ""
    head = member_declaration(task)
    names = ", ".join(a.name for a in task.args)
    if task.owner_static:
        body = f"  return {task.owner}::{task.entry}({names});"
    else:
        made = f"({', '.join(task.owner_args)})" if task.owner_args else "{}"
        body = (
            f"  {task.owner} regrapht_object{made};\n"
            f"  return regrapht_object.{task.entry}({names});"
        )
    return (
        f"// regrapht: the member entry {task.owner}::{task.entry} as a free function\n"
        f"{head} {{\n{body}\n}}\n"
    )
