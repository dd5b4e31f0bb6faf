"""The entry's parameters as the task sees them: pointer, vector or scalar, and of what.

What a parameter *is* decides how the harness allocates and passes it, so anything the
contract cannot express (double pointers, references to scalars, structs by value) is
refused here with the parameter named, rather than guessed. The parameters are read by
:mod:`regrapht_core.cxx.params`; this module resolves typedefs and checks the types.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from regrapht_core.cxx.params import Parameter, parameters, variadic
from regrapht_core.cxx.parse import Node, node_text
from regrapht_core.errors import TaskError
from regrapht_core.tasks.dtypes import c_type_name, numpy_dtype

__all__ = ["entry_params", "return_type", "typedefs"]


def typedefs(root: Node) -> dict[str, str]:
    """File-level ``typedef T name;`` and ``using name = T;`` aliases of plain types."""
    out: dict[str, str] = {}
    for node in root.named_children:
        if node.type == "type_definition":
            target = node.child_by_field_name("type")
            for i, child in enumerate(node.children):
                if node.field_name_for_child(i) == "declarator" and child.type == "type_identifier":
                    out[node_text(child)] = node_text(target) if target else ""
        elif node.type == "alias_declaration":
            name, target = node.child_by_field_name("name"), node.child_by_field_name("type")
            if name is not None and target is not None:
                out[node_text(name)] = node_text(target)
    return out


def _resolve(ctype: str, aliases: Mapping[str, str]) -> str:
    name = c_type_name(ctype)
    for _ in range(8):
        if name not in aliases:
            break
        name = c_type_name(aliases[name])
    return name


def entry_params(fn: Node, aliases: Mapping[str, str], where: str) -> tuple[Parameter, ...]:
    """The parameters, each ``element`` resolved through ``aliases`` to a known type."""
    found = parameters(fn)
    if found is None:
        raise TaskError(f"{where}: cannot read the parameter list")
    if variadic(fn):
        raise TaskError(f"{where}: variadic functions cannot be tasks")
    return tuple(_checked(p, aliases, where) for p in found)


def _checked(param: Parameter, aliases: Mapping[str, str], where: str) -> Parameter:
    if not param.element:
        raise TaskError(f"{where}: cannot read parameter {param.declaration!r}")
    if not param.name:
        raise TaskError(f"{where}: parameter {param.declaration!r} needs a name")
    at = f"{where}: parameter {param.name!r} ({param.declaration})"
    if param.kind is None and (param.pointers > 1 or param.vector):
        raise TaskError(f"{at}: pointers to pointers or to vectors are not supported")
    if param.kind is None:
        raise TaskError(
            f"{at}: a reference to a scalar is not supported; return the value or pass a pointer"
        )
    ctype = _resolve(param.element, aliases)
    numpy_dtype(ctype, where=at)
    return replace(param, element=ctype)


def return_type(fn: Node, aliases: Mapping[str, str], where: str) -> str:
    """``void``, a number type, or a struct/class name (compared byte for byte)."""
    outer = fn.child_by_field_name("declarator")
    if outer is not None and outer.type != "function_declarator":
        raise TaskError(f"{where}: functions returning pointers or references are not supported")
    type_node = fn.child_by_field_name("type")
    return _resolve(node_text(type_node), aliases) if type_node is not None else "int"
