"""Scalars the loop combines across iterations: sums, minima and maxima.

A write to a scalar declared before the loop is allowed only as one recognised
reduction, and the scalar may not be read outside its update: then the iterations can
run at once and the partial results be combined. A ``std::complex<float|double>``
accumulator (spelled ``cuda::std::complex`` in the pointer form) may only be summed: a
complex sum is two independent sums of its parts, while a complex number has no order for
a min or max.
"""

from __future__ import annotations

import re

from regrapht_core.cxx.affine import mentions, uses
from regrapht_core.cxx.loop_scope import (
    LoopScope,
    Reduction,
    ReductionOp,
    quote,
)
from regrapht_core.cxx.parse import Node
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.syntax import canon, operator_text, strip_parens

__all__ = ["ReductionAnalysis", "compared_extreme", "complex_part", "extreme_of", "is_sum_of"]

_MAX_CALLS = frozenset({"fmaxf", "fmax", "max"})
_MIN_CALLS = frozenset({"fminf", "fmin", "min"})
_GREATER = {">": True, ">=": True, "<": False, "<=": False}
"""Comparisons, by whether the left operand wins when it is greater."""
_REDUCIBLE_TYPES = frozenset(
    {
        "float",
        "double",
        "int",
        "unsigned",
        "unsigned int",
        "long",
        "long int",
        "unsigned long",
        "long long",
        "long long int",
        "unsigned long long",
        "size_t",
        "std::size_t",
        "int32_t",
        "uint32_t",
        "int64_t",
        "uint64_t",
    }
)


_COMPLEX = re.compile(r"(?:(?:cuda::)?std::)?complex<(float|double)>")


def complex_part(kind: str) -> str | None:
    """``double`` for ``std::complex<double>`` (or ``cuda::std::complex<double>``), ``float``
    likewise; ``None`` for any other type. Reads a type as written, layout ignored."""
    found = _COMPLEX.fullmatch("".join(kind.split()))
    return found.group(1) if found else None


def is_sum_of(value: Node, name: str) -> bool:
    """``name + e``, ``name - e`` or ``e + name`` with ``e`` free of ``name``."""
    if value.type != "binary_expression" or operator_text(value) not in ("+", "-"):
        return False
    left, other = value.child_by_field_name("left"), value.child_by_field_name("right")
    if left is None or other is None:
        return False
    if canon(left) == name and not mentions(other, name):
        return True
    return operator_text(value) == "+" and canon(other) == name and not mentions(left, name)


def is_product_of(value: Node, name: str) -> bool:
    """``name * e`` or ``e * name`` with ``e`` free of ``name``."""
    if value.type != "binary_expression" or operator_text(value) != "*":
        return False
    left, right = value.child_by_field_name("left"), value.child_by_field_name("right")
    if left is None or right is None:
        return False
    return (canon(left) == name and not mentions(right, name)) or (
        canon(right) == name and not mentions(left, name)
    )


class ReductionAnalysis(LoopScope):
    def reductions(self, candidates: dict[str, list[Node]]) -> None:
        for name, writes in candidates.items():
            kind = self.reducible_type(name)
            ops, covered = set(), []
            for write in writes:
                if complex_part(kind):
                    op, region = self.complex_sum(name, kind, write)
                else:
                    op, region = self.reduction_step(name, write)
                ops.add(op)
                covered.append(region)
            if len(ops) != 1:
                raise Refusal(f"`{name}` is combined with different operations in the loop")
            for node in uses(self.loop.body, name):
                if not any(r.start_byte <= node.start_byte < r.end_byte for r in covered):
                    raise Refusal(
                        f"the loop reads `{name}` outside its update "
                        f"({quote(node.parent or node)}), so its value carries from one "
                        "iteration to the next"
                    )
            self.facts.reductions.append(Reduction(name, ops.pop(), kind))

    def reducible_type(self, name: str) -> str:
        """The type of reduction variable ``name`` without qualifiers, or why it cannot be."""
        declared = self.entry.locals[name].type
        kind = " ".join(w for w in declared.split() if w not in ("const", "volatile"))
        if kind not in _REDUCIBLE_TYPES and complex_part(kind) is None:
            raise Refusal(
                f"`{name}` is a {declared}; reductions support int, long and float types "
                "and sums of std::complex<float> or std::complex<double>"
            )
        return kind

    def complex_sum(self, name: str, kind: str, write: Node) -> tuple[ReductionOp, Node]:
        """A write to complex ``name`` as a sum term, or why it is none (a product, a
        running value: a complex accumulator is reduced only as a sum)."""
        try:
            op, region = self.reduction_step(name, write)
        except Refusal:
            op, region = None, write
        if op is not ReductionOp.SUM:
            raise Refusal(
                f"`{name}` is a {kind} updated by {quote(write)}; a complex accumulator is "
                f"reduced only as a sum: write `{name} += e` or `{name} = {name} + e`"
            )
        return op, region

    def reduction_step(self, name: str, write: Node) -> tuple[ReductionOp, Node]:
        """The operation a write to ``name`` performs, and the code it spans."""
        why = f"`{name}` is assigned in the loop ({quote(write)}), but not as a sum, min or max"
        if write.type == "update_expression":
            return ReductionOp.SUM, write
        op = operator_text(write)
        right = write.child_by_field_name("right")
        if right is None:
            raise Refusal(why)
        if op in ("+=", "-="):
            if mentions(right, name):
                raise Refusal(why)
            return ReductionOp.SUM, write
        if op == "*=" and not mentions(right, name):
            return self.product_step(name, write)
        if op != "=":
            raise Refusal(
                f"`{name}` is combined with `{op}`; only sums, products, min and max are reduced"
            )
        value = strip_parens(right)
        if is_sum_of(value, name):
            return ReductionOp.SUM, write
        if is_product_of(value, name):
            return self.product_step(name, write)
        extreme = self.extreme_call(value, name)
        if extreme is not None:
            return extreme, write
        if not mentions(value, name):
            guarded = self.guarded_extreme(name, write, value)
            if guarded is not None:
                return guarded
        raise Refusal(why)

    def product_step(self, name: str, write: Node) -> tuple[ReductionOp, Node]:
        """A product of floating-point factors: reordered like a float sum (integer products
        would wrap, and the GPU has no atomic multiply to fall back on)."""
        kind = self.reducible_type(name)
        if kind not in ("float", "double"):
            raise Refusal(f"`{name}` is a {kind} product; only float and double are multiplied")
        return ReductionOp.PRODUCT, write

    def extreme_call(self, value: Node, name: str) -> ReductionOp | None:
        """``max(name, e)`` / ``fminf(e, name)`` and the like, ``e`` free of ``name``."""
        if value.type != "call_expression" or value.child_by_field_name("function") is None:
            return None
        arguments = value.child_by_field_name("arguments")
        args: list[Node] = arguments.named_children if arguments else []
        op = extreme_of(self.math_call(value) or "")
        if op is None or len(args) != 2:
            return None
        mine = [a for a in args if canon(a) == name]
        rest = [a for a in args if canon(a) != name]
        if len(mine) == 1 and len(rest) == 1 and not mentions(rest[0], name):
            return op
        return None

    def guarded_extreme(
        self, name: str, write: Node, value: Node
    ) -> tuple[ReductionOp, Node] | None:
        """``if (e > m) m = e;`` (and its mirror images) as a max or min; other conjuncts
        of the test (``if (x[i] < cap && x[i] > m) m = x[i];``) filter the values folded,
        which each thread does as the loop does."""
        holder = _sole_guard(write)
        condition = None if holder is None else holder.child_by_field_name("condition")
        if holder is None or condition is None:
            return None
        compared = [c for c in _conjuncts(condition.named_children[0]) if mentions(c, name)]
        if len(compared) != 1 or compared[0].type != "binary_expression":
            return None
        kept = compared_extreme(compared[0], name, value)
        return None if kept is None else (kept[0], holder)


def extreme_of(called: str) -> ReductionOp | None:
    """The max or min a two-argument call keeps (``fmaxf``, ``std::min``), if it is one."""
    name = called.removeprefix("std::")
    if name in _MAX_CALLS:
        return ReductionOp.MAX
    return ReductionOp.MIN if name in _MIN_CALLS else None


def compared_extreme(test: Node, name: str, value: Node) -> tuple[ReductionOp, bool] | None:
    """What ``if (test) name = value;`` keeps when ``test`` compares ``value`` with
    ``name`` (``value > name``, ``name <= value``, ...): a max or a min, and whether
    ``value`` is the left operand."""
    if test.type != "binary_expression":
        return None
    left, right = test.child_by_field_name("left"), test.child_by_field_name("right")
    greater = _GREATER.get(operator_text(test))
    if left is None or right is None or greater is None:
        return None
    operands, term = (canon(left), canon(right)), canon(value)
    if operands not in ((term, name), (name, term)):
        return None
    value_left = operands == (term, name)
    return (ReductionOp.MAX if greater == value_left else ReductionOp.MIN), value_left


def _sole_guard(write: Node) -> Node | None:
    """The ``if`` (without ``else``) whose only statement is ``write``."""
    statement = write.parent
    if statement is None or statement.type != "expression_statement":
        return None
    holder = statement.parent
    if holder is not None and holder.type == "compound_statement":
        if holder.named_child_count != 1:
            return None
        holder = holder.parent
    if holder is None or holder.type != "if_statement":
        return None
    return None if holder.child_by_field_name("alternative") is not None else holder


def _conjuncts(test: Node) -> list[Node]:
    """The operands of a chain of ``&&`` (the test itself when it is not one)."""
    test = strip_parens(test)
    if test.type == "binary_expression" and operator_text(test) == "&&":
        left, right = test.child_by_field_name("left"), test.child_by_field_name("right")
        if left is not None and right is not None:
            return [*_conjuncts(left), *_conjuncts(right)]
    return [test]
