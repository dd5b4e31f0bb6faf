"""Loops that step by a constant more than one, written as loops that count by one.

Interleaved data is walked in strides::

    for (std::size_t i = 0; i + 1 < stereo.size(); i += 2)
        mono[i / 2] = 0.5f * (stereo[i] + stereo[i + 1]);

The analysis hands one iteration to a thread and so reads only loops that count by one.
This loop is that one with each ``i`` written ``i * 2`` and the bound divided by the step::

    for (std::size_t i = 0; i < (stereo.size() + 0) / 2; ++i)
        mono[i] = 0.5f * (stereo[(i * 2)] + stereo[(i * 2) + 1]);

The ``i``-th iteration of the new loop is the one whose counter was ``start + i * step``,
and the new bound counts them: for ``i + c < B`` from ``start`` by ``s``, the iterations
are the ``t`` with ``t * s < B - start - c``, which number ``(B + s - 1 - start - c) / s``
(zero when ``B`` is smaller). Only a start and shift that are literals with ``start + c``
at most ``s - 1`` are read, so the numerator never goes below ``B`` and cannot wrap for an
unsigned bound. ``i / s`` of a loop from zero is the new ``i`` itself. The loop must declare
its counter, the body must not change it, and the comparison is ``<`` (``<=`` could wrap
at the type's largest value). Each part stays on its line, so messages keep the user's
line numbers.
"""

from __future__ import annotations

from regrapht_core.cxx.affine import additive_terms, literal_int, mentions
from regrapht_core.cxx.changes import may_change
from regrapht_core.cxx.loops import declared_loop
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.splice import Edit, rewrite_loops
from regrapht_core.cxx.syntax import canon, operator_text, strip_parens

__all__ = ["unit_strides"]


def unit_strides(source: str, function: Node) -> str:
    """``source`` with each ``for`` loop of ``function`` that steps by a literal more than
    one written as one that counts by one; ``source`` itself when there is none."""
    return rewrite_loops(source, function, _rewritten)


def _rewritten(loop: Node) -> list[Edit]:
    """The edits that make ``loop`` count by one, or none where it is not read."""
    parts = declared_loop(loop)
    if parts is None:
        return []
    var, first, body = parts.var, literal_int(parts.value), parts.body
    step = _step(loop, var)
    bound = _bound(loop, var)
    if step is None or bound is None or first is None or first < 0:
        return []
    shift, limit, condition = bound
    extra = step - 1 - first - shift
    if extra < 0 or may_change(body, var):
        return []
    counted = f"{var} < ({node_text(strip_parens(limit))} + {extra}) / {step}"
    edits = [
        Edit.replace(parts.value, "0"),
        Edit.replace(condition, counted),
        Edit.replace(strip_parens(parts.update), f"++{var}"),
    ]
    for node in walk(body):
        if node.type != "identifier" or node_text(node) != var:
            continue
        parent = node.parent
        if first == 0 and parent is not None and _divided_by(parent, node, step):
            edits.append(Edit.replace(parent, var))
        elif not any(e.start <= node.start_byte < e.end for e in edits):
            edits.append(Edit.replace(node, f"({var} * {step}{f' + {first}' if first else ''})"))
    return edits


def _step(loop: Node, var: str) -> int | None:
    """``s`` for ``var += s`` or ``var = var + s`` with a literal ``s`` above one."""
    update = loop.child_by_field_name("update")
    update = strip_parens(update) if update is not None else None
    if update is None or update.type != "assignment_expression":
        return None
    left, right = update.child_by_field_name("left"), update.child_by_field_name("right")
    if left is None or right is None or canon(left) != var:
        return None
    if operator_text(update) == "+=":
        step = literal_int(right)
    elif operator_text(update) == "=" and right.type == "binary_expression":
        terms = additive_terms(right, 1)
        named = [t for sign, t in terms if sign > 0 and canon(t) == var]
        numbers = [literal_int(t) for sign, t in terms if sign > 0 and t not in named]
        step = numbers[0] if len(terms) == 2 and len(named) == 1 and len(numbers) == 1 else None
    else:
        step = None
    return step if step is not None and step > 1 else None


def _bound(loop: Node, var: str) -> tuple[int, Node, Node] | None:
    """``(c, B, condition)`` for ``var + c < B`` (``B > var + c``; ``c`` a literal, 0
    where absent)."""
    condition = loop.child_by_field_name("condition")
    comparison = strip_parens(condition) if condition is not None else None
    if comparison is None or comparison.type != "binary_expression":
        return None
    op = operator_text(comparison)
    left, right = comparison.child_by_field_name("left"), comparison.child_by_field_name("right")
    if left is None or right is None or op not in ("<", ">"):
        return None
    counter, limit = (left, right) if op == "<" else (right, left)
    terms = additive_terms(counter, 1)
    named = [t for sign, t in terms if sign > 0 and canon(t) == var]
    shifts = [literal_int(t) for _, t in terms if t not in named]
    if len(named) != 1 or None in shifts or any(sign < 0 for sign, _ in terms):
        return None
    if mentions(limit, var):
        return None
    return sum(s for s in shifts if s is not None), limit, comparison


def _divided_by(parent: Node, node: Node, step: int) -> bool:
    """``node / step`` (``node`` the dividend)."""
    if parent.type != "binary_expression" or operator_text(parent) != "/":
        return False
    divisor = parent.child_by_field_name("right")
    return (
        parent.child_by_field_name("left") == node
        and divisor is not None
        and (literal_int(divisor) == step)
    )
