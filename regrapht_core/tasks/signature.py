"""The entry's parameters as the task sees them: pointer, vector or scalar, and of what.

What a parameter *is* decides how the harness allocates and passes it, so anything the
contract cannot express (double pointers, references to scalars, structs by value) is
refused here with the parameter named, rather than guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from regrapht_core.contracts.task import ParamKind
from regrapht_core.cxx.parse import Node, node_text
from regrapht_core.errors import TaskError
from regrapht_core.tasks.dtypes import c_type_name, numpy_dtype

__all__ = ["Param", "entry_params", "is_kernel", "return_type", "signature_text", "typedefs"]


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    kind: ParamKind
    ctype: str
    """Element type (pointers, vectors) or the type (scalars), typedefs resolved."""
    const: bool
    """The pointee (or the vector) is const: the function promises not to write it."""
    by_reference: bool = False


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


def _vector_element(type_node: Node) -> str | None:
    """``T`` of ``std::vector<T>`` / ``vector<T>``, else None."""
    template = type_node
    if template.type == "qualified_identifier":
        inner = template.child_by_field_name("name")
        if inner is None:
            return None
        template = inner
    if template.type != "template_type":
        return None
    name = template.child_by_field_name("name")
    arguments = template.child_by_field_name("arguments")
    if name is None or node_text(name) != "vector" or arguments is None:
        return None
    types = [c for c in arguments.named_children if c.type == "type_descriptor"]
    return node_text(types[0]) if len(types) == 1 else None


def entry_params(fn: Node, aliases: Mapping[str, str], where: str) -> tuple[Param, ...]:
    declarator = _function_declarator(fn)
    plist = declarator.child_by_field_name("parameters") if declarator else None
    if plist is None:
        raise TaskError(f"{where}: cannot read the parameter list")
    params = []
    for decl in plist.named_children:
        if decl.type == "variadic_parameter":
            raise TaskError(f"{where}: variadic functions cannot be tasks")
        if decl.type != "parameter_declaration":
            continue
        params.append(_param(decl, aliases, where))
    return tuple(params)


def _param(decl: Node, aliases: Mapping[str, str], where: str) -> Param:
    type_node = decl.child_by_field_name("type")
    if type_node is None:
        raise TaskError(f"{where}: cannot read parameter {node_text(decl)!r}")
    const = any(c.type == "type_qualifier" and node_text(c) == "const" for c in decl.children)
    pointers, reference, name_node = 0, False, decl.child_by_field_name("declarator")
    while name_node is not None and name_node.type != "identifier":
        if name_node.type in ("pointer_declarator", "array_declarator"):
            pointers += 1
        elif name_node.type == "reference_declarator":
            reference = True
        else:
            break
        inner = name_node.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in name_node.named_children if c.type == "identifier"), None)
        name_node = inner
    if name_node is None or name_node.type != "identifier":
        raise TaskError(f"{where}: parameter {node_text(decl)!r} needs a name")
    name = node_text(name_node)
    at = f"{where}: parameter {name!r} ({node_text(decl)})"
    element = _vector_element(type_node)
    if element is not None and pointers == 0:
        ctype = _resolve(element, aliases)
        numpy_dtype(ctype, where=at)
        return Param(name, ParamKind.VECTOR, ctype, const, by_reference=reference)
    if pointers > 1 or (element is not None):
        raise TaskError(f"{at}: pointers to pointers or to vectors are not supported")
    ctype = _resolve(node_text(type_node), aliases)
    numpy_dtype(ctype, where=at)
    if pointers == 1:
        return Param(name, ParamKind.POINTER, ctype, const)
    if reference:
        raise TaskError(
            f"{at}: a reference to a scalar is not supported; return the value or pass a pointer"
        )
    return Param(name, ParamKind.SCALAR, ctype, const)


def _function_declarator(fn: Node) -> Node | None:
    node = fn.child_by_field_name("declarator")
    while node is not None and node.type != "function_declarator":
        node = node.child_by_field_name("declarator")
    return node


def return_type(fn: Node, aliases: Mapping[str, str], where: str) -> str:
    """``void``, a number type, or a struct/class name (compared byte for byte)."""
    outer = fn.child_by_field_name("declarator")
    if outer is not None and outer.type != "function_declarator":
        raise TaskError(f"{where}: functions returning pointers or references are not supported")
    type_node = fn.child_by_field_name("type")
    return _resolve(node_text(type_node), aliases) if type_node is not None else "int"


def signature_text(fn: Node) -> str:
    """The declaration as written, up to the body, on one line."""
    body = fn.child_by_field_name("body")
    start = fn.start_byte
    end = body.start_byte if body is not None else fn.end_byte
    head = (fn.text or b"")[: end - start].decode("utf-8", errors="replace")
    return " ".join(head.split())


def is_kernel(fn: Node) -> bool:
    return any(c.type == "__global__" for c in fn.children)
