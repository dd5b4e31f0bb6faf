"""The reference translation unit: the entry and exactly what it needs from its file.

A candidate is compared against this unit compiled on its own, so it must be complete
(helpers, types, macros, constants, kernels it launches) and must not drag in the rest of
the file (a ``main``, unrelated code that may not even compile on its own).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.functions import function_name, unqualified
from regrapht_core.cxx.parse import (
    Node,
    QueryCursor,
    included_header,
    node_text,
    parse_source,
    query,
    walk,
)

__all__ = ["NVCC_DECLARES", "reference_unit"]

_USES = "(identifier) @n (type_identifier) @n (namespace_identifier) @n"
_CUDA_ONLY = {"__global__", "__device__", "__constant__", "__shared__", "kernel_call_syntax"}
_CUDA_HEADERS = (
    "cuda",
    "cublas",
    "cufft",
    "curand",
    "cusparse",
    "cooperative_groups",
    "device_",
    "thrust/",
    "cub/",
    "nvToolsExt",
)
_BLOCKS = {"preproc_ifdef", "preproc_if", "namespace_definition", "linkage_specification"}
_SPECIFIERS = {"struct_specifier", "class_specifier", "union_specifier", "enum_specifier"}
_ALWAYS = {"preproc_include", "using_declaration", "namespace_alias_definition"}
"""Kept whatever the entry uses: includes, ``using namespace std;``, namespace aliases."""
NVCC_DECLARES = {
    **dict.fromkeys(("size_t", "ptrdiff_t"), "cstddef"),
    **{f"{u}int{bits}_t": "cstdint" for u in ("", "u") for bits in (8, 16, 32, 64)},
    **dict.fromkeys(("intptr_t", "uintptr_t"), "cstdint"),
}
"""Names nvcc declares in every unit (its pre-included ``cuda_runtime.h`` brings
``<stddef.h>`` and ``<stdint.h>``), with the header that declares them: a file built with
nvcc may use them with no include, but a C++ reference unit is compiled by g++ too (its
validation, the verifier's host build), whose ``<vector>`` does not declare ``size_t``."""


@dataclass
class _Item:
    node: Node
    language: SourceLanguage
    text: str

    @cached_property
    def defines(self) -> frozenset[str]:
        return frozenset(_defined_names(self.node))

    @cached_property
    def uses(self) -> frozenset[str]:
        names = {
            node_text(n)
            for nodes in QueryCursor(query(self.language, _USES)).captures(self.node).values()
            for n in nodes
        }
        for n in walk(self.node):
            if n.type == "preproc_arg":
                names |= _identifiers_in(node_text(n), self.language)
        return frozenset(names - self.defines_self)

    @cached_property
    def defines_self(self) -> frozenset[str]:
        """Names a function defines for itself are no dependency; a macro's are."""
        return self.defines if self.node.type == "function_definition" else frozenset()


def _identifiers_in(text: str, language: SourceLanguage) -> set[str]:
    tree = parse_source(text, language)
    kinds = ("identifier", "type_identifier")
    return {node_text(n) for n in walk(tree.root_node) if n.type in kinds}


def _defined_names(node: Node) -> set[str]:
    kind = node.type
    if kind == "function_definition":
        name = function_name(node)
        return {unqualified(name)} if name else set()
    if kind in ("preproc_def", "preproc_function_def"):
        name_node = node.child_by_field_name("name")
        return {node_text(name_node)} if name_node else set()
    if kind == "template_declaration" or kind in _BLOCKS:
        return _block_names(node)
    if kind in _SPECIFIERS:
        return _specifier_names(node)
    if kind in ("declaration", "type_definition", "alias_declaration"):
        return _declaration_names(node)
    return set()


def _block_names(node: Node) -> set[str]:
    """What a template, namespace or linkage block defines, its body included."""
    out: set[str] = set()
    for child in node.named_children:
        out |= _defined_names(child)
    body = node.child_by_field_name("body")
    if body is not None:
        for child in body.named_children:
            out |= _defined_names(child)
    return out


def _specifier_names(node: Node) -> set[str]:
    """A struct, class, union or enum name, and an enum's enumerators."""
    name_node = node.child_by_field_name("name")
    out = {node_text(name_node)} if name_node else set()
    for n in walk(node):
        value_name = n.child_by_field_name("name") if n.type == "enumerator" else None
        if value_name is not None:
            out.add(node_text(value_name))
    return out


def _declaration_names(node: Node) -> set[str]:
    out: set[str] = set()
    for child in node.named_children:
        if child.type in _SPECIFIERS:
            out |= _defined_names(child)
    for i, child in enumerate(node.children):
        if node.field_name_for_child(i) in ("declarator", "name"):
            out |= _declared(child)
    return out


def _declared(declarator: Node) -> set[str]:
    """The name a declarator introduces: through pointers, arrays, inits and functions."""
    node: Node | None = declarator
    while node is not None and node.type not in ("identifier", "type_identifier"):
        inner = node.child_by_field_name("declarator")
        if inner is None:
            inner = next(
                (c for c in node.named_children if c.type in ("identifier", "type_identifier")),
                None,
            )
        node = inner
    return {node_text(node)} if node is not None else set()


def _is_cuda(node: Node) -> bool:
    for n in walk(node):
        if n.type in _CUDA_ONLY:
            return True
        if n.type == "identifier" and node_text(n).startswith(("cuda", "cublas")):
            return True
    return False


def reference_unit(root: Node, entry: Node, language: SourceLanguage) -> tuple[str, SourceLanguage]:
    """The unit's text (includes, then needed items in file order) and what compiles it."""
    items: list[_Item] = []
    includes: list[_Item] = []
    children = root.children
    for i, node in enumerate(children):
        text = node_text(node)
        if node.type in _SPECIFIERS and i + 1 < len(children) and children[i + 1].type == ";":
            text += ";"
        item = _Item(node, language, text)
        has_include = node.type in _BLOCKS and any(n.type == "preproc_include" for n in walk(node))
        if node.type in _ALWAYS or has_include:
            includes.append(item)  # a using directive names nothing a search would find
        elif node.type != "function_definition" or function_name(node) != "main":
            items.append(item)
    entry_item = next((it for it in items if it.node == entry), None)
    if entry_item is None:
        entry_item = _Item(entry, language, node_text(entry))
        items.append(entry_item)
    chosen = {id(entry_item)}
    pending = set(entry_item.uses)
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        seen.add(name)
        for item in items:
            if id(item) not in chosen and name in item.defines:
                chosen.add(id(item))
                pending |= item.uses - seen
    selected = [it for it in items if id(it) in chosen]
    unit_language = SourceLanguage.CPP
    if language is SourceLanguage.CUDA and any(_is_cuda(it.node) for it in selected):
        unit_language = SourceLanguage.CUDA
    kept = [
        it.text.strip()
        for it in includes
        if unit_language is SourceLanguage.CUDA or not _includes_cuda(it.node)
    ]
    if unit_language is SourceLanguage.CPP:
        kept += _missing_headers(selected, [it.node for it in includes])
    body = [it.text.strip() for it in sorted(selected, key=lambda it: it.node.start_byte)]
    header = "\n".join(kept) + "\n\n" if kept else ""
    return header + "\n\n".join(body) + "\n", unit_language


def _missing_headers(selected: list[_Item], includes: list[Node]) -> list[str]:
    """The includes that declare what the unit uses unqualified from ``NVCC_DECLARES`` and
    its file's includes do not name (``size_t`` with only ``<vector>``)."""
    named = {
        included_header(n).removesuffix(".h").removeprefix("c")
        for node in includes
        for n in walk(node)
        if n.type == "preproc_include"
    }
    wanted = {
        NVCC_DECLARES[node_text(n)]
        for it in selected
        for n in walk(it.node)
        if n.type in ("primitive_type", "type_identifier")
        and node_text(n) in NVCC_DECLARES
        and (n.parent is None or n.parent.type != "qualified_identifier")
    }
    return [f"#include <{h}>" for h in sorted(wanted) if h.removeprefix("c") not in named]


def _includes_cuda(node: Node) -> bool:
    for n in walk(node):
        if n.type == "preproc_include" and included_header(n).startswith(_CUDA_HEADERS):
            return True
    return False
