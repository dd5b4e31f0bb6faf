"""Which elements each iteration owns: the proof that written arrays do not overlap.

Every access to an array the loop writes must be affine in the loop variable with one
stride (:mod:`regrapht_core.cxx.affine`), and stay inside the element, row or column
its iteration owns.
"""

from __future__ import annotations

from regrapht_core.cxx.affine import Affine, affine, literal_int, stride_key
from regrapht_core.cxx.definitions import integer_values
from regrapht_core.cxx.loop_scope import (
    Access,
    LoopScope,
    quote,
)
from regrapht_core.cxx.parse import Node, node_text
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.syntax import strip_parens

__all__ = ["OwnershipAnalysis"]


class OwnershipAnalysis(LoopScope):
    def inner_offset(self, term: Node, stride: str, access: Node) -> bool:
        """``term`` is an inner loop variable running over ``[0, stride)`` around ``access``."""
        term = strip_parens(term)
        loops = self.facts.inner_loops.get(node_text(term), []) if term.type == "identifier" else []
        around = [
            loop for loop in loops if loop.body.start_byte <= access.start_byte < loop.body.end_byte
        ]
        if not around:
            return False
        inner = max(around, key=lambda loop: loop.body.start_byte)  # the innermost one
        return inner.inside(stride, self.facts.integers)

    def named_integers(self) -> dict[str, int]:
        """The file's integer constants defined as literals (:func:`integer_values`) that no
        parameter, local or loop variable of the entry shadows."""
        shadowing = set(self.params) | set(self.entry.locals) | self.body_locals
        shadowing |= set(self.facts.inner_loops) | {self.loop.var}
        return {k: v for k, v in integer_values(self.file_root()).items() if k not in shadowing}

    def column_owned(self, access: Access, form: Affine) -> bool:
        """``k * S + i`` with ``i`` over ``[0, S)`` and ``k`` an inner loop variable around
        the access: each (k, i) is a distinct element, and iteration ``i`` owns column
        ``i`` whatever ``k`` is (``out[j * m + i]`` in a loop ``for (i = 0; i < m; ++i)``)."""
        loop = self.loop
        if form.sign < 0 or len(form.rest) != 1 or form.rest[0][0] < 0:
            return False
        if not loop.starts_at_zero() or loop.inclusive:
            return False
        term = form.rest[0][1]
        for name, inner_loops in self.facts.inner_loops.items():
            if not any(
                inner.body.start_byte <= access.node.start_byte < inner.body.end_byte
                for inner in inner_loops
            ):
                continue
            by_inner = affine(term, name)
            if (
                by_inner is not None
                and by_inner.sign > 0
                and not by_inner.rest
                and by_inner.stride == stride_key(loop.upper)
                and all(self.invariant(f) for f in by_inner.stride_factors)
            ):
                return True
        return False

    def ownership(self, atomic: frozenset[str] = frozenset()) -> None:
        """Refuses unless every written array but the ``atomic`` ones is owned per iteration."""
        var = self.loop.var
        for array in sorted(self.facts.written - atomic):
            accesses = [a for a in self.facts.accesses if a.array == array]
            forms: list[tuple[Access, Affine]] = []
            for access in accesses:
                if access.node.type != "subscript_expression":
                    raise Refusal(f"the loop writes `{array}` and also uses it as a pointer")
                form = affine(access.index, var)
                if form is None:
                    verb = "writes" if access.write else "reads"
                    raise Refusal(
                        f"the loop {verb} {quote(access.node)} through an index that is not "
                        f"affine in `{var}`, so iterations may touch the same element"
                    )
                forms.append((access, form))
            self.check_slices(array, forms)

    def check_slices(self, array: str, forms: list[tuple[Access, Affine]]) -> None:
        first_access, first = forms[0]
        for access, form in forms:
            if (form.sign, form.stride) != (first.sign, first.stride):
                raise Refusal(
                    f"{quote(access.node)} and {quote(first_access.node)} index `{array}` "
                    "with different strides: a loop-carried dependence cannot be ruled out"
                )
            if not all(self.invariant(f) for f in form.stride_factors):
                raise Refusal(f"the stride in {quote(access.node)} changes inside the loop")
        if first.stride == "":
            self.check_elements(forms)
        else:
            self.check_rows(array, forms)

    def check_elements(self, forms: list[tuple[Access, Affine]]) -> None:
        """Unit stride: every access is the same element, or each owns a column."""
        if all(self.column_owned(access, form) for access, form in forms):
            return
        first_access, first = forms[0]
        key = first.rest_key()
        for access, form in forms:
            if form.rest_key() != key or not all(self.invariant(n) for _, n in form.rest):
                raise Refusal(
                    f"the loop writes {quote(first_access.node)} but also touches "
                    f"{quote(access.node)}, which another iteration owns: "
                    "a loop-carried dependence"
                )

    def check_rows(self, array: str, forms: list[tuple[Access, Affine]]) -> None:
        """Stride ``S``: every access stays in ``[S*i, S*i + S)``, the row iteration i owns."""
        first = forms[0][1]
        literal_stride = (
            literal_int(first.stride_factors[0]) if len(first.stride_factors) == 1 else None
        )
        # A read of a row's first element is safe even when the row length S is symbolic:
        # if S <= 0, the writes (each proven inside [S*i, S*i + S) below) never happen.
        rows_written = all(len(f.rest) == 1 for a, f in forms if a.write)
        for access, form in forms:
            if form.sign < 0:
                raise Refusal(f"{quote(access.node)} walks `{array}` backwards by rows")
            first_element = len(form.rest) == 0
            if first_element and literal_stride is not None and literal_stride > 0:
                continue
            if first_element and not access.write and rows_written:
                continue
            single = len(form.rest) == 1 and form.rest[0][0] > 0
            if not single or not self.in_row(form.rest[0][1], first.stride, literal_stride, access):
                raise Refusal(
                    f"cannot prove {quote(access.node)} stays inside the row of `{array}` "
                    "that its iteration owns"
                )

    def in_row(self, term: Node, stride: str, literal_stride: int | None, access: Access) -> bool:
        """The offset ``term`` stays in ``[0, stride)``: a literal, or an inner loop variable."""
        value = literal_int(term)
        if literal_stride is not None and value is not None and 0 <= value < literal_stride:
            return True
        return self.inner_offset(term, stride, access.node)
