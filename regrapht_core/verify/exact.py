"""The reference with its whole-function ``float`` sums accumulated in ``double``: the
second answer a call's outputs may match.

A ``float`` summed over a whole loop (``float s = 0; for (...) s += x[i] * x[i];``) drifts
with the loop's length in the sequential order: over 2^24 squares of uniform(-1, 1) the
reference's total came out 2.1% below the exact sum (numpy reproduces it), and a GPU tree
reduction, which adds numbers of like size and lands on the exact sum, was rejected as a
wrong output (``reductions_sumsq_f32_vec_out``, gpu-h200-variants-b7fb9a1). No tolerance
can tell the two apart: a sequential sum's rounding error is bounded by ``n * u`` times the
sum of the magnitudes, which at 2^24 float terms is the whole sum. So the verifier also runs
this program, the reference with each such accumulator declared ``double`` (converted to
``float`` where the code stores or returns it, as C++ converts), and a call's outputs pass
when they match either answer within the task's tolerance
(:class:`~regrapht_core.verify.compare.Expected`).

It widens what passes only towards the exact result of the same terms: a candidate that
drops terms or lowers precision must still match the written reference or the more precise
one. Widened: declarations at the top level of the entry's body, of one ``float`` variable
that a loop accumulates into (``s += e``, ``s -= e``, ``s = s + e``, ``s = e + s``,
``s = s - e``) or multiplies (``s *= e``, ``s = s * e``, ``s = e * s``: on the H200 a CUB
scan's running product of 2^24 float factors differed from the sequential one by about 0.2%,
which of the two drifted not measured) and whose address no code takes or binds a reference
to. A per-output
accumulator declared inside a loop (a dot product's ``k`` sum) is left as written: it runs
a row's length, which the tolerance's per-term growth covers, and widening it would cost a
matrix product's reference run for every check.
"""

from __future__ import annotations

from regrapht_core.contracts.task import Task
from regrapht_core.cxx.definitions import changed
from regrapht_core.cxx.functions import function_definitions, function_name
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.reductions import is_product_of, is_sum_of
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.syntax import (
    declared_name,
    loop_ancestor,
    operator_text,
    parse,
    strip_parens,
)

__all__ = ["exact_sums_source"]


def exact_sums_source(task: Task) -> str | None:
    """``task``'s source with its whole-function float sums declared ``double``, or
    ``None`` when it has none (or cannot be read)."""
    try:
        root = parse(task.source).root_node
    except Refusal:
        return None
    entry = next((d for d in function_definitions(root) if function_name(d) == task.entry), None)
    body = entry.child_by_field_name("body") if entry is not None else None
    if body is None:
        return None
    edits = []
    for statement in body.named_children:
        name, kind = _float_local(statement)
        if name and kind is not None and _accumulated(body, name) and not _escapes(body, name):
            edits.append(Edit.replace(kind, "double"))
    return apply_edits(task.source.encode("utf-8"), edits) if edits else None


def _float_local(statement: Node) -> tuple[str, Node | None]:
    """The name and type node of a declaration of exactly one plain ``float`` variable."""
    if statement.type != "declaration":
        return "", None
    kind = statement.child_by_field_name("type")
    declarators = statement.children_by_field_name("declarator")
    if kind is None or node_text(kind) != "float" or len(declarators) != 1:
        return "", None
    if any(c.type in ("type_qualifier", "storage_class_specifier") for c in statement.children):
        return "", None
    target = declarators[0]
    if target.type == "init_declarator":
        target = target.child_by_field_name("declarator") or target
    name = declared_name(target)
    return (
        (node_text(name), kind) if name is not None and target.type == "identifier" else ("", None)
    )


def _accumulated(body: Node, name: str) -> bool:
    """Some loop in ``body`` adds to, subtracts from or multiplies ``name``."""
    return any(
        _accumulates(node, name) and _in_loop(node, body)
        for node in walk(body)
        if node.type == "assignment_expression"
    )


def _accumulates(node: Node, name: str) -> bool:
    """``name`` summed or multiplied as the reduction analysis reads it."""
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None or node_text(strip_parens(left)) != name:
        return False
    op = operator_text(node)
    if op in ("+=", "-=", "*="):
        return True
    value = strip_parens(right)
    return op == "=" and (is_sum_of(value, name) or is_product_of(value, name))


def _in_loop(node: Node, body: Node) -> bool:
    return loop_ancestor(node, body) is not None


def _escapes(body: Node, name: str) -> bool:
    """Its address is taken or a reference bound to it: another name may write it."""
    for node in walk(body):
        target = changed(node)
        if target is None or node.type in ("assignment_expression", "update_expression"):
            continue
        if node_text(strip_parens(target)) == name:
            return True
    return False
