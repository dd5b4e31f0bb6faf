"""Atomic updates: a loop whose iterations add into shared elements (a histogram's
``h[x[i]]++``, a scatter-add ``out[idx[i]] += v[i]``) becomes one thread per iteration with
each of those additions an ``atomicAdd``.

Parallelization refuses such a loop because its index is data, so two iterations may touch
one element. The rewrite is exact when every access to such an array is an addition to an
element as a statement of its own (``+=``, ``-=``, ``++``, ``--``): additions commute, so an
integer result does not depend on their order, and a floating-point one only by rounding,
which the verifier's tolerance judges as it does for reductions. Every other array the loop
writes must still pass the ownership proof.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping

from regrapht_core.cxx.loop_scope import Access
from regrapht_core.cxx.parse import Node, node_text
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit
from regrapht_core.rewrite.parallelize import block_size, candidate_1d
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)
from regrapht_core.rewrite.sequential import SequentialLoop, analysed_loop, as_map, split_entry

__all__ = ["AtomicUpdates"]

_NATIVE = frozenset(
    {"int", "int32_t", "unsigned", "unsigned int", "uint32_t", "float", "double"}
    | {"unsigned long long", "unsigned long long int"}
)
"""Element types ``atomicAdd`` has an overload for."""
_AS_U64 = frozenset(
    {"long", "long int", "long long", "long long int", "int64_t"}
    | {"unsigned long", "unsigned long int", "uint64_t", "size_t"}
)
"""64-bit integers added through ``unsigned long long``: two's complement addition is the
same operation whatever the signedness."""


@dataclasses.dataclass(frozen=True, slots=True)
class _Update:
    element: Node
    """The subscript expression updated."""
    operator: Node
    """The ``+=``/``-=``/``++``/``--`` token."""
    value: Node | None
    """What ``+=``/``-=`` add; ``None`` for ``++``/``--``."""


@dataclasses.dataclass(frozen=True, slots=True)
class AddedLoop:
    """A loop whose only obstacle to one thread per iteration is additions to shared
    elements: analysed with those arrays left out of the ownership proof."""

    found: SequentialLoop
    types: Mapping[str, str]
    """Element type of each added-to array, by name."""

    def atomic_edits(self, rename: Mapping[str, str] | None = None) -> list[Edit]:
        """The additions as ``atomicAdd``; ``rename`` makes them target other arrays
        (private copies) of the same element type."""
        edits = []
        for access in self.found.facts.accesses:
            if access.array in self.types:
                update = _update_of(access)
                assert update is not None  # every access to an added-to array is one
                target = (rename or {}).get(access.array)
                if target is not None:
                    array = update.element.child_by_field_name("argument")
                    assert array is not None
                    edits.append(Edit.replace(array, target))
                ctype = self.types[access.array]
                cast = target is None and ctype in _AS_U64
                edits += _atomic(update, added_type(ctype), cast)
        return edits

    def with_edits(self, edits: list[Edit]) -> SequentialLoop:
        """The loop with ``edits`` applied to its body, after the analysis's own."""
        facts = dataclasses.replace(self.found.facts, edits=[*self.found.facts.edits, *edits])
        return dataclasses.replace(self.found, facts=facts)


def added_loop(code: str, context: RewriteContext) -> AddedLoop:
    """The entry's loop as an :class:`AddedLoop`, or the :class:`Refusal` saying why not."""
    split, task = split_entry(code, context.task)
    first = as_map(analysed_loop(split, task, prove_ownership=False))
    if not first.facts.unowned:
        raise Refusal("the iterations write disjoint elements: no update needs an atomic")
    shared = frozenset(_added_only(first))
    if not shared:
        names = ", ".join(f"`{a}`" for a in sorted(first.facts.written))
        raise Refusal(
            f"no atomics: the loop writes {names} other than by adding to an element "
            "(+=, -=, ++, -- as a statement)"
        )
    found = as_map(analysed_loop(split, task, atomic=shared))
    return AddedLoop(found, {array: _element_type(found, array) for array in sorted(shared)})


def added_type(ctype: str) -> str:
    """The type ``atomicAdd`` adds an element of ``ctype`` as."""
    return "unsigned long long" if ctype in _AS_U64 else ctype


def shared_names(loop: AddedLoop) -> str:
    return ", ".join(f"`{a}`" for a in loop.types)


class AtomicUpdates(RefusingRewriter):
    technique = "atomics"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        block = block_size(params)
        loop = added_loop(code, context)
        return [
            RewriteCandidate(
                candidate_1d(loop.with_edits(loop.atomic_edits()), block),
                f"mapped each iteration of the loop over `{loop.found.entry.loop.var}` to one "
                f"CUDA thread ({block} threads per block); the additions to "
                f"{shared_names(loop)}, whose elements several iterations may share, are "
                "atomicAdd",
            )
        ]


def _added_only(found: SequentialLoop) -> Iterator[str]:
    """The written arrays every access of which is an addition statement."""
    for array in sorted(found.facts.written):
        accesses = [a for a in found.facts.accesses if a.array == array]
        if all(_update_of(a) is not None for a in accesses):
            yield array


def _update_of(access: Access) -> _Update | None:
    """``access`` as the target of ``+=``, ``-=``, ``++`` or ``--`` in a statement of its own."""
    node = access.node
    parent = node.parent
    if node.type != "subscript_expression" or parent is None:
        return None
    if parent.parent is None or parent.parent.type != "expression_statement":
        return None
    if parent.type == "assignment_expression" and parent.child_by_field_name("left") == node:
        operator = parent.child_by_field_name("operator")
        if operator is not None and operator.type in ("+=", "-="):
            return _Update(node, operator, parent.child_by_field_name("right"))
    if parent.type == "update_expression":
        operator = parent.child_by_field_name("operator")
        if operator is not None:
            return _Update(node, operator, None)
    return None


def _element_type(found: SequentialLoop, array: str) -> str:
    arg = next((a for a in found.task.args if a.name == array), None)
    if arg is None:
        raise Refusal(f"`{array}` is not a parameter: its updates cannot leave the kernel")
    ctype = " ".join(arg.ctype.replace("const", " ").split())
    if ctype not in _NATIVE | _AS_U64:
        raise Refusal(
            f"`{array}` holds {arg.ctype}: atomicAdd needs 32- or 64-bit integers, float "
            "or double elements"
        )
    return ctype


def _atomic(update: _Update, added: str, cast: bool) -> list[Edit]:
    """Edits that make the update ``atomicAdd(&element, amount)`` without touching the text
    inside the element or the value (other edits may change that). ``cast``: the element's
    own type is not ``added`` (a 64-bit integer added as ``unsigned long long``)."""
    element, operator = update.element, update.operator
    target = "reinterpret_cast<unsigned long long*>(&" if cast else "&"
    open_ = f"atomicAdd({target}"
    close = ")" if cast else ""
    op = node_text(operator)
    if update.value is None:
        one = f"static_cast<{added}>({'1' if op == '++' else '-1'})"
        edits = [Edit.replace(operator, ""), Edit.insert(element.start_byte, open_)]
        return [*edits, Edit.insert(element.end_byte, f"{close}, {one})")]
    amount = f"static_cast<{added}>("
    if op == "-=":
        amount = f"static_cast<{added}>(0) - {amount}"
    return [
        Edit.insert(element.start_byte, open_),
        Edit(element.end_byte, update.value.start_byte, f"{close}, {amount}"),
        Edit.insert(update.value.end_byte, "))"),
    ]
