"""Plain structs of the reference's file, read as element types of a task.

A ``std::vector<Point>`` or a ``Particle*`` is copied to and from the GPU byte for byte, so
a struct can be an element type when its bytes are all numbers: arithmetic members,
``std::complex``, fixed arrays of them and other such structs, at the C layout. Member
functions are fine (they are not data); virtual functions, base classes, pointers,
references, bitfields, unions and library types such as ``std::string`` are refused with
the struct, the member and its line named, and what to write instead.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from regrapht_core.contracts.task import Record, RecordField
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.errors import TaskError
from regrapht_core.tasks.dtypes import (
    c_type_name,
    is_arithmetic,
    numpy_dtype,
    template_arguments,
    vector_element,
)
from regrapht_core.tasks.expr import integer_constant

__all__ = ["RecordTable", "resolve_type"]

_SPECIFIERS = ("struct_specifier", "class_specifier")
_SKIPPED = frozenset(
    {
        "access_specifier",
        "comment",
        "function_definition",
        "template_declaration",
        "friend_declaration",
        "using_declaration",
        "alias_declaration",
        "type_definition",
        "static_assert_declaration",
        "declaration",
        "preproc_def",
        "enum_specifier",
    }
)


def resolve_type(ctype: str, aliases: Mapping[str, str]) -> str:
    """``ctype`` with typedefs (and aliases inside template arguments) resolved."""
    name = c_type_name(ctype)
    for _ in range(8):
        if name not in aliases or c_type_name(aliases[name]) == name:
            break
        name = c_type_name(aliases[name])
    found = template_arguments(name)
    if found is not None:
        head, parts = found
        inner = ", ".join(resolve_type(p, aliases) for p in parts)
        name = f"{head}<{inner}>"
    return name


@dataclass(frozen=True, slots=True)
class _Definition:
    node: Node
    """The ``struct_specifier`` / ``class_specifier`` with a body."""
    anonymous: bool


class RecordTable:
    """The file's struct definitions, turned into :class:`Record`s as types need them."""

    def __init__(
        self, root: Node, aliases: Mapping[str, str], constants: Mapping[str, int], origin: str
    ) -> None:
        self._aliases = aliases
        self._constants = constants
        self._origin = origin
        self._definitions: dict[str, _Definition] = {}
        self._records: dict[str, Record] = {}
        for node in root.named_children:
            if node.type in _SPECIFIERS:
                name = node.child_by_field_name("name")
                if name is not None and node.child_by_field_name("body") is not None:
                    self._definitions[node_text(name)] = _Definition(node, False)
            elif node.type in ("type_definition", "declaration"):
                spec = node.child_by_field_name("type")
                if spec is None or spec.type not in _SPECIFIERS:
                    continue
                if spec.child_by_field_name("body") is None:
                    continue
                name = spec.child_by_field_name("name")
                if name is not None:
                    self._definitions[node_text(name)] = _Definition(spec, False)
                elif node.type == "type_definition":
                    for typedef in node.children_by_field_name("declarator"):
                        if typedef.type == "type_identifier":
                            self._definitions[node_text(typedef)] = _Definition(spec, True)
                            break

    @property
    def records(self) -> tuple[Record, ...]:
        """Every record required so far, each after the records its members use."""
        return tuple(self._records.values())

    def require(self, ctype: str, at: str) -> str:
        """Check that ``ctype`` (resolved) can be an element type, recording the structs it
        uses; returns the resolved name. Raises a TaskError that starts with ``at``."""
        name = resolve_type(ctype, self._aliases)
        self._require(name, at, ())
        numpy_dtype(name, records=self.records, where=at)
        return name

    def _require(self, name: str, at: str, stack: tuple[str, ...]) -> None:
        if is_arithmetic(name) or name in self._records:
            return
        element = vector_element(name)
        if element is not None:
            self._require(element, at, stack)
            return
        found = template_arguments(name)
        if found is not None:
            if found[0] in ("complex", "pair"):
                for part in found[1]:
                    self._require(resolve_type(part, self._aliases), at, stack)
            return  # numpy_dtype explains what is wrong with anything else
        definition = self._definitions.get(name)
        if definition is None:
            return
        if name in stack:
            raise TaskError(f"{at}: struct {name!r} contains itself")
        fields = self._fields(name, definition, at, (*stack, name))
        self._records[name] = Record(name, fields, definition.anonymous)

    def _fields(
        self, name: str, definition: _Definition, at: str, stack: tuple[str, ...]
    ) -> tuple[RecordField, ...]:
        node = definition.node
        line = f"{self._origin}:{node.start_point.row + 1}"
        what = f"{at}: struct {name!r} ({line})"
        fix = (
            "only numbers, std::complex, fixed arrays of them and other such structs can be "
            "copied to the GPU byte for byte"
        )
        if any(c.type == "base_class_clause" for c in node.named_children):
            raise TaskError(
                f"{what} derives from another class; copy the members into one plain struct"
            )
        if _virtual(node):
            raise TaskError(f"{what} has virtual functions (a vtable pointer); {fix}")
        body = node.child_by_field_name("body")
        fields: list[RecordField] = []
        for member in body.named_children if body is not None else ():
            if member.type != "field_declaration":
                if member.type not in _SKIPPED:
                    raise TaskError(f"{what}: cannot read member {node_text(member)!r}; {fix}")
                continue
            fields += self._member(member, what, fix, at, stack)
        if not fields:
            raise TaskError(f"{what} has no data members; pass something with numbers in it")
        return tuple(fields)

    def _member(
        self, member: Node, what: str, fix: str, at: str, stack: tuple[str, ...]
    ) -> list[RecordField]:
        words = {node_text(c) for c in member.children}
        if "static" in words or "virtual" in words:
            return []
        declarators = member.children_by_field_name("declarator")
        if declarators and all(d.type == "function_declarator" for d in declarators):
            return []
        type_node = member.child_by_field_name("type")
        line = member.start_point.row + 1
        if type_node is None:
            raise TaskError(f"{what}: cannot read member {node_text(member)!r}; {fix}")
        if type_node.type in ("union_specifier", "struct_specifier", "class_specifier"):
            raise TaskError(
                f"{what}: member {node_text(member)!r} (line {line}) declares a nested "
                f"{type_node.type.split('_')[0]}; {fix}. Declare it as a named struct at "
                "file scope"
            )
        if type_node.type == "enum_specifier" or any(
            c.type == "bitfield_clause" for c in member.children
        ):
            kind = "an enum" if type_node.type == "enum_specifier" else "a bitfield"
            raise TaskError(
                f"{what}: member {node_text(member)!r} (line {line}) is {kind}; use a plain "
                "integer member (int, uint8_t, ...)"
            )
        ctype = resolve_type(node_text(type_node), self._aliases)
        out: list[RecordField] = []
        for declarator in declarators:
            field, count = self._declarator(declarator, what, line)
            label = f"{what}: member {field!r} (line {line})"
            self._member_type(
                ctype, written=node_text(type_node), label=label, fix=fix, at=at, stack=stack
            )
            out.append(RecordField(field, ctype, count))
        return out

    def _declarator(self, node: Node, what: str, line: int) -> tuple[str, int]:
        dims: list[int] = []
        while node.type != "field_identifier":
            if node.type in ("pointer_declarator", "reference_declarator"):
                kind = "a pointer" if node.type == "pointer_declarator" else "a reference"
                names = [n for n in walk(node) if n.type == "field_identifier"]
                shown = node_text(names[0]) if names else node_text(node)
                raise TaskError(
                    f"{what}: member {shown!r} (line {line}) is {kind}, whose "
                    "target the GPU cannot reach; store the values themselves (an index into "
                    "another array instead of a pointer)"
                )
            if node.type != "array_declarator":
                raise TaskError(f"{what}: cannot read member {node_text(node)!r} (line {line})")
            size = node.child_by_field_name("size")
            dims.append(self._extent(size, what, line))
            inner = node.child_by_field_name("declarator")
            if inner is None:
                raise TaskError(f"{what}: cannot read member {node_text(node)!r} (line {line})")
            node = inner
        return node_text(node), math.prod(dims)

    def _extent(self, size: Node | None, what: str, line: int) -> int:
        text = node_text(size) if size is not None else ""
        value = integer_constant(text, self._constants)
        if value is None or value < 1:
            raise TaskError(
                f"{what}: array member size {text!r} (line {line}) is not a positive integer "
                "constant; write a number or a #define / constexpr with a literal value"
            )
        return value

    def _member_type(
        self, ctype: str, *, written: str, label: str, fix: str, at: str, stack: tuple[str, ...]
    ) -> None:
        if is_arithmetic(ctype):
            return
        found = template_arguments(ctype)
        if found is not None and found[0] in ("complex", "pair"):
            self._require(ctype, at, stack)
            return
        if found is None and ctype in self._definitions:
            self._require(ctype, at, stack)
            return
        raise TaskError(f"{label} is {written!r}; {fix}")


def _virtual(node: Node) -> bool:
    body = node.child_by_field_name("body")
    for member in body.named_children if body is not None else ():
        if any(node_text(c) == "virtual" for c in member.children):
            return True
    return False
