"""Loops that count down to zero, written as loops that count up.

Reversals and back-to-front passes count down::

    for (int i = n - 1; i >= 0; --i) out[n - 1 - i] = x[i];

The analysis reads loops that count up by one. This loop visits ``i = S, S - 1, ..., 0``
(``S`` the start), so it is the loop ``for (int i = 0; i < (S) + 1; ++i)`` with each use of
``i`` written ``((S) - i)``: iteration ``t`` of the new loop is the one whose counter was
``S - t``, in the opposite order. Whether the order matters is what the analysis then
decides, as for any loop (a reversal's iterations are independent; a backward recurrence's
are not, and it stays on the host). Only a signed counter that the loop declares (an
unsigned one never goes below zero), a bound of ``>= 0`` (or ``> -1``), a step of one, a
body that changes neither the counter nor anything the start reads (the start is read
once, its copies at every use), and a start with no effects are read; a loop that leaves
early (a search from the back) is left to the first-match rewriter, which reads it as
written, and so is a countdown inside another loop: it runs in one thread either way (a
Horner evaluation per element), where the rewriters that read it expect it as written. A
start at the largest value of its type is the one case the new bound (``S + 1``) cannot
count. Each part stays on its line, so messages keep the user's line numbers.
"""

from __future__ import annotations

from regrapht_core.cxx.affine import literal_int, uses
from regrapht_core.cxx.changes import may_change
from regrapht_core.cxx.lambdas import pure
from regrapht_core.cxx.loops import compared_bound, declared_loop
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.splice import Edit, rewrite_loops
from regrapht_core.cxx.syntax import canon, loop_ancestor, operator_text, strip_parens

__all__ = ["count_up"]

_SIGNED = frozenset(
    {"int", "long", "long long", "short", "ptrdiff_t", "std::ptrdiff_t", "int32_t", "int64_t"}
)
_BOUNDS = {(">=", 0), (">", -1)}
_EXITS = frozenset({"break_statement", "return_statement", "goto_statement"})


def count_up(source: str, function: Node) -> str:
    """``source`` with each ``for`` loop of ``function`` that counts down to zero written
    as one that counts up; ``source`` itself when there is none (see the module)."""
    return rewrite_loops(
        source, function, lambda loop: [] if loop_ancestor(loop, function) else _rewritten(loop)
    )


def _rewritten(loop: Node) -> list[Edit]:
    """The edits that make ``loop`` count up, or none where it is not read."""
    parts = declared_loop(loop)
    if parts is None or node_text(parts.kind) not in _SIGNED:
        return []
    var, body, condition, update, value = (
        parts.var,
        parts.body,
        parts.condition,
        parts.update,
        parts.value,
    )
    bound = compared_bound(condition, var)
    if bound is None or (bound[0], literal_int(bound[1])) not in _BOUNDS:
        return []
    if not _steps_down(strip_parens(update), var) or not pure(value):
        return []
    if any(n.type in _EXITS for n in walk(body)):
        return []  # a search from the back: the first-match rewriter reads it as written
    read = {node_text(n) for n in walk(value) if n.type == "identifier"}
    if var in read or any(may_change(body, name) for name in read | {var}):
        return []
    first = f"({node_text(strip_parens(value))})"
    edits = [
        Edit.replace(value, "0"),
        Edit.replace(strip_parens(condition), f"{var} < {first} + 1"),
        Edit.replace(strip_parens(update), f"++{var}"),
    ]
    edits += [Edit.replace(node, f"({first} - {var})") for node in uses(body, var)]
    return edits


def _steps_down(update: Node, var: str) -> bool:
    """``--var``, ``var--``, ``var -= 1`` or ``var = var - 1``."""
    if update.type == "update_expression":
        argument = update.child_by_field_name("argument")
        return argument is not None and canon(argument) == var and "--" in node_text(update)
    if update.type != "assignment_expression":
        return False
    left, right = update.child_by_field_name("left"), update.child_by_field_name("right")
    if left is None or right is None or canon(left) != var:
        return False
    if operator_text(update) == "-=":
        return literal_int(right) == 1
    return operator_text(update) == "=" and canon(right) == f"{var} - 1"
