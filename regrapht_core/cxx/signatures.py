"""Function signatures as comparable type keys.

A candidate must define the entry with the task's signature; two spellings of one type
(names, spacing, ``const`` placement, ``restrict``, ``std::`` prefixes, ``long int``)
must compare equal, and different types must not.
"""

from __future__ import annotations

from typing import NamedTuple

from regrapht_core.cxx.declarators import (
    inner_declarator,
    pointer_levels,
    specifiers,
    strip_init,
    text_in,
)
from regrapht_core.cxx.parse import Node
from regrapht_core.cxx.syntax import words

__all__ = ["Signature", "signature_of", "type_key"]

_INTEGER_WORDS = frozenset({"signed", "unsigned", "long", "short", "int", "char"})
_STD_TYPES = words(
    "size_t ptrdiff_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t"
)


def _leaves(node: Node, code: bytes) -> list[str]:
    if node.child_count == 0:
        return [text_in(node, code)]
    return [leaf for child in node.children for leaf in _leaves(child, code)]


def _base_type(node: Node | None, code: bytes) -> str:
    if node is None:
        return "int"
    words = _leaves(node, code)
    if words[:2] == ["std", "::"] and "".join(words[2:]) in _STD_TYPES:
        words = words[2:]
    if words and set(words) <= _INTEGER_WORDS:
        unsigned = "unsigned " if "unsigned" in words else ""
        if "char" in words:
            return ("signed " if "signed" in words else unsigned) + "char"
        longs = words.count("long")
        core = "short" if "short" in words else ("long " * longs).strip() or "int"
        return unsigned + core
    return " ".join(words)


def type_key(
    qualifiers: set[str], type_node: Node | None, declarator: Node | None, code: bytes
) -> str:
    """A type written two ways (names, spacing, ``const`` placement, restrict) compares equal."""
    levels = pointer_levels(declarator, code)
    if levels and levels[-1][0].startswith("["):
        levels[-1] = ("*", frozenset())
    base_quals = {q for q in qualifiers if q in ("const", "volatile")}
    if levels:
        levels[-1] = (levels[-1][0], frozenset())
    else:
        base_quals = set()
    parts = [*sorted(base_quals), _base_type(type_node, code)]
    for kind, quals in levels:
        parts.append(kind + "".join(f" {q}" for q in sorted(quals & {"const", "volatile"})))
    return " ".join(parts)


class Signature(NamedTuple):
    returns: str
    params: tuple[str, ...]


def _function_declarator(declarator: Node | None) -> Node | None:
    while declarator is not None and declarator.type != "function_declarator":
        declarator = inner_declarator(declarator)
    return declarator


def signature_of(owner: Node, code: bytes) -> Signature | None:
    """Types of a function's result and parameters; ``owner`` is its definition or declaration."""
    top = owner.child_by_field_name("declarator")
    if top is None:
        return None
    function = _function_declarator(strip_init(top))
    if function is None:
        return None
    returns = type_key(
        specifiers(owner, code), owner.child_by_field_name("type"), strip_init(top), code
    )
    params: list[str] = []
    plist = function.child_by_field_name("parameters")
    for param in () if plist is None else plist.named_children:
        if param.type == "variadic_parameter":
            params.append("...")
        elif param.type in ("parameter_declaration", "optional_parameter_declaration"):
            params.append(
                type_key(
                    specifiers(param, code),
                    param.child_by_field_name("type"),
                    param.child_by_field_name("declarator"),
                    code,
                )
            )
    if params == ["void"]:
        params = []
    return Signature(returns, tuple(params))
