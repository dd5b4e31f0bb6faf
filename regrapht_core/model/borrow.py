"""Give an answer the helpers it copied by name from the examples it was shown.

The graph's verified examples use small helpers of their own (``CUDA_CHECK``, a
``DeviceBuffer`` owner, ``kBlockSize``, ``copy_to_device``). A 0.5B model copies their
*uses* faithfully but not their definitions, and on the H100 that made most of its answers
compile errors (``identifier "DeviceBuffer" is undefined``) although the code meant exactly
the example's helper. So a name the answer uses and declares nowhere, which an example
defines at file scope, gets that definition (and the definitions it needs in turn), copied
verbatim after the answer's includes. The copied code is the examples' verified code; the
verifier still checks the whole candidate. The task's own code is a source too, first: its
helpers, made callable on the device (:func:`device_callable`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from regrapht_core.cxx.declared import declared_names
from regrapht_core.cxx.functions import (
    execution_spaces,
    file_scope_item,
    function_definitions,
    function_name,
)
from regrapht_core.cxx.parse import Node, node_text, parse_isolated, walk
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.syntax import declared_name

__all__ = ["Borrowed", "borrow_definitions", "device_callable"]

_NAMES = frozenset({"identifier", "type_identifier", "namespace_identifier"})


@dataclass(frozen=True, slots=True)
class Borrowed:
    code: str
    names: tuple[str, ...] = ()
    """The names whose definitions were copied in, in the order they were inserted."""


@dataclass(frozen=True, slots=True)
class _Item:
    names: frozenset[str]
    text: str
    uses: frozenset[str]


def borrow_definitions(code: str, examples: Sequence[str]) -> Borrowed:
    """``code`` with the file-scope definitions from ``examples`` that it uses but lacks.

    Nothing is copied when ``code`` does not parse cleanly (a guess on a broken tree could
    land mid-function) or when no missing name is defined by an example.
    """
    tree = parse_isolated(code.encode("utf-8")).root_node
    if tree.has_error:
        return Borrowed(code)
    library = _library(examples)
    declared = _declared(tree)
    wanted = [library[n] for n in _used(tree) if n not in declared and n in library]
    chosen = _closure(wanted, library, declared)
    if not chosen:
        return Borrowed(code)
    block = "\n\n".join(item.text for item in chosen) + "\n\n"
    at = _after_includes(tree, code.encode("utf-8"))
    result = code[:at] + ("\n" if at else "") + block + code[at:].lstrip("\n")
    if parse_isolated(result.encode("utf-8")).root_node.has_error:
        return Borrowed(code)
    names = tuple(sorted({n for item in chosen for n in item.names}))
    return Borrowed(result, names)


def device_callable(code: str, *, entry: str) -> str:
    """``code`` with its plain functions other than ``entry`` marked ``__host__ __device__``.

    An answer's kernel often calls the task's own helper (``gelu_tanh(x[i])``) without
    copying its definition: borrowed from the task's code, the helper must run on the device.
    Functions with an execution space already keep it."""
    source = code.encode("utf-8")
    root = parse_isolated(source).root_node
    if root.has_error:
        return code
    edits = [
        Edit.insert(file_scope_item(definition).start_byte, "__host__ __device__ ")
        for definition in function_definitions(root)
        if function_name(definition) != entry and not execution_spaces(definition)
    ]
    return apply_edits(source, edits)


def _library(examples: Sequence[str]) -> dict[str, _Item]:
    """Every file-scope definition of the examples by the names it defines (first wins)."""
    library: dict[str, _Item] = {}
    for example in examples:
        root = parse_isolated(example.encode("utf-8")).root_node
        for node in _file_scope(root):
            names = _defines(node)
            if not names:
                continue
            uses = frozenset(_used(node)) - names
            item = _Item(names, node_text(node), uses)
            for name in names:
                library.setdefault(name, item)
    return library


def _closure(wanted: list[_Item], library: dict[str, _Item], declared: set[str]) -> list[_Item]:
    """``wanted`` and what they use in turn, dependencies first."""
    chosen: list[_Item] = []
    seen: set[int] = set()

    def visit(item: _Item) -> None:
        if id(item) in seen:
            return
        seen.add(id(item))
        for name in sorted(item.uses):
            if name not in declared and name in library:
                visit(library[name])
        chosen.append(item)

    for item in wanted:
        visit(item)
    return chosen


def _file_scope(root: Node) -> Iterator[Node]:
    """Top-level nodes, looking into unnamed namespaces (where the examples keep helpers)."""
    for node in root.named_children:
        body = node.child_by_field_name("body")
        if node.type == "namespace_definition" and node.child_by_field_name("name") is None:
            if body is not None:
                yield from _file_scope(body)
            continue
        yield node


def _defines(node: Node) -> frozenset[str]:
    """The names a file-scope node defines: a macro, function, type, constant or alias."""
    if node.type in ("preproc_def", "preproc_function_def"):
        name = node.child_by_field_name("name")
        return frozenset({node_text(name)}) if name is not None else frozenset()
    if node.type == "template_declaration":
        inner = node.named_children[-1] if node.named_children else None
        return _defines(inner) if inner is not None else frozenset()
    if node.type == "function_definition":
        function = function_name(node)
        return frozenset({function}) if function else frozenset()
    names = {node_text(n) for n in _type_names(node)}
    if node.type in ("declaration", "type_definition", "alias_declaration"):
        names |= _declarator_names(node)
    return frozenset(names)


def _type_names(node: Node) -> Iterator[Node]:
    """The name of a struct/class/enum a node defines (with a body, not just names)."""
    candidates = [node, node.child_by_field_name("type")]
    for candidate in candidates:
        if candidate is None or candidate.type not in (
            "struct_specifier",
            "class_specifier",
            "enum_specifier",
            "union_specifier",
        ):
            continue
        name = candidate.child_by_field_name("name")
        if name is not None and candidate.child_by_field_name("body") is not None:
            yield name


def _declarator_names(node: Node) -> set[str]:
    if node.type == "alias_declaration":
        name = node.child_by_field_name("name")
        return {node_text(name)} if name is not None else set()
    names = set()
    for declarator in node.children_by_field_name("declarator"):
        if declarator.type == "function_declarator":
            continue  # a prototype defines nothing to copy
        name = declared_name(declarator)
        if name is not None:
            names.add(node_text(name))
    return names


def _declared(root: Node) -> set[str]:
    """Every name the answer declares anywhere: its own helpers, parameters and locals."""
    names = declared_names(root)
    for node in _file_scope(root):
        names |= _defines(node)
    return names


def _used(node: Node) -> list[str]:
    """Names the code mentions, first mention first."""
    return list(dict.fromkeys(node_text(n) for n in walk(node) if n.type in _NAMES))


def _after_includes(root: Node, source: bytes) -> int:
    """Character offset just after the answer's last top-level ``#include`` (0: none)."""
    end = max((n.end_byte for n in root.named_children if n.type == "preproc_include"), default=0)
    return len(source[:end].decode("utf-8"))
