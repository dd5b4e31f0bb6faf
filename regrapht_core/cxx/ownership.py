"""Which elements each iteration owns: the proof that written arrays do not overlap.

Every access to an array the loop writes must be affine in the loop variable with one
stride (:mod:`regrapht_core.cxx.affine`), and stay inside the element, row or column
its iteration owns. Where that holds only for some values of the loop's unchanged names
(an inner loop to ``cols`` in rows of ``pitch`` elements), the conditions are recorded
(``LoopFacts.guards``) for the host to check before it runs the loop on the GPU.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from regrapht_core.cxx.affine import Affine, affine, factors, literal_int, stride_key
from regrapht_core.cxx.definitions import changed, integer_values, is_integer_type
from regrapht_core.cxx.loop_scope import (
    Access,
    LoopScope,
    quote,
)
from regrapht_core.cxx.loops import CountedLoop
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.sizes import Size
from regrapht_core.cxx.syntax import declared_name, strip_parens

__all__ = ["OwnershipAnalysis"]


class OwnershipAnalysis(LoopScope):
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
        """Stride ``S``: every access stays in ``[S*i, S*i + S)``, the row iteration i owns.
        Records the inner loops whose iterations own a sub-row each (``LoopFacts.sub_rows``)
        and the conditions the proof assumed (``LoopFacts.guards``)."""
        first = forms[0][1]
        row = self.size(first.stride_factors)
        # A read of a row's first element is safe even when the row length S is symbolic:
        # if S <= 0, the writes (each proven inside [S*i, S*i + S) below) never happen.
        rows_written = all(len(f.rest) >= 1 for a, f in forms if a.write)
        owners: set[int] | None = None
        for access, form in forms:
            if form.sign < 0:
                raise Refusal(f"{quote(access.node)} walks `{array}` backwards by rows")
            exempt = not form.rest and not access.write and rows_written
            guards = () if exempt else self.fits(form.rest, row, access)
            if guards is None:
                raise Refusal(
                    f"cannot prove {quote(access.node)} stays inside the row of `{array}` "
                    "that its iteration owns"
                )
            self.facts.guards += [g for g in guards if g not in self.facts.guards]
            digits = self.digits(form.rest, row, access)
            ours = {d.node.start_byte for d, _ in digits if isinstance(d, CountedLoop)}
            owners = ours if owners is None else owners & ours
        self.facts.sub_rows[array] = frozenset(owners or ())

    def fits(
        self, terms: Sequence[tuple[int, Node]], row: Size, access: Access
    ) -> tuple[str, ...] | None:
        """The conditions under which the sum of ``terms`` stays in ``[0, row)`` wherever
        ``access`` runs (none when that is proven), else ``None``: nothing (a row of a known
        positive size), or a sum with a leading digit (:meth:`digits`)."""
        if not terms:
            return () if row.literal is not None and row.literal >= 1 else None
        found = [guards for _, guards in self.digits(terms, row, access)]
        return min(found, key=len) if found else None

    def digits(
        self, terms: Sequence[tuple[int, Node]], row: Size, access: Access
    ) -> Iterator[tuple[CountedLoop | int, tuple[str, ...]]]:
        """Each term ``y * B`` of ``terms`` (``B`` may be 1) that leads the sum as a digit
        leads a number: ``y`` (an inner loop around ``access``, or a literal) runs inside
        ``[0, row / B)`` and the other terms stay inside ``[0, B)``, so the sum stays in
        ``[0, row)``, as ``y * nx + x`` stays below ``nx * ny`` (the row of ``z`` in a 3-D
        sweep) and ``i * S + j`` below ``S * S`` (one matrix of a batch). Then each ``y``
        also owns ``[y * B, y * B + B)`` of the row. With each, the conditions that had to
        be assumed (:meth:`placed`)."""
        for k, (sign, term) in enumerate(terms):
            digit = self.digit(term, access) if sign > 0 else None
            span = None if digit is None else row.over(digit[1])
            if digit is None or span is None:
                continue
            loop, unit = digit
            if isinstance(loop, int):
                inside = span.literal is not None and 0 <= loop < span.literal
                guards: tuple[str, ...] | None = () if inside else None
            else:
                guards = self.placed(loop, span)
            rest = self.fits([*terms[:k], *terms[k + 1 :]], unit, access)
            if guards is not None and rest is not None:
                yield loop, (*guards, *(g for g in rest if g not in guards))

    def placed(self, loop: CountedLoop, span: Size) -> tuple[str, ...] | None:
        """The conditions under which the inner ``loop`` stays in ``[0, span)``: none when
        :meth:`CountedLoop.inside` proves it; else, when a bound that may leave the span
        reads names the loop leaves unchanged, ``0 <= lower`` and ``end <= span`` to check
        before the loop, as a copy into rows of ``pitch`` elements needs ``cols <= pitch``.
        A bound of constants, or an end of the span's own names and constants (``j <= w``
        in a row of ``w``), would make a check that is always false or never needed:
        refused."""
        integers = self.facts.integers
        guards = []
        if not loop.starts_inside(integers):
            if not self.checkable(loop.lower, ()):
                return None
            guards.append(f"0 <= static_cast<long long>({node_text(strip_parens(loop.lower))})")
        if not loop.ends_inside(span.key(), integers):
            if not all(map(str.isidentifier, span.names)) or not self.checkable(
                loop.upper, span.names
            ):
                return None
            if loop.shift is not None and not self.invariant(loop.shift):
                return None
            guards.append(f"{loop.end_text()} <= {span.text()}")
        return tuple(guards)

    def checkable(self, bound: Node, span: Sequence[str]) -> bool:
        """``bound`` reads a name that only the run knows, other than those of ``span``,
        and nothing the loop changes: a check of it before the loop says something (``w + 1
        <= w`` never holds, ``cols - r <= cols`` when ``r >= 0``)."""
        names = {
            node_text(n)
            for n in walk(bound)
            if n.type == "identifier" and node_text(n) not in self.facts.integers
        }
        return bool(names - set(span)) and self.invariant(bound)

    def digit(self, term: Node, access: Access) -> tuple[CountedLoop | int, Size] | None:
        """``term`` as ``y * B``: the innermost loop of ``y`` around ``access`` (or a literal
        ``y``) and the size ``B`` of the other factors, each unchanged by the loop."""
        parts = factors(term)
        for k, part in enumerate(parts):
            others = [*parts[:k], *parts[k + 1 :]]
            if not all(self.invariant(f) for f in others):
                continue
            unit = self.size(others)
            value = literal_int(part)
            if value is not None and not others:
                return value, unit
            loop = self.around(part, access.node)
            if loop is not None:
                return loop, unit
        return None

    def around(self, term: Node, access: Node) -> CountedLoop | None:
        """The innermost inner loop of the variable ``term`` that holds ``access``."""
        term = strip_parens(term)
        loops = self.facts.inner_loops.get(node_text(term), []) if term.type == "identifier" else []
        holding = [
            loop for loop in loops if loop.body.start_byte <= access.start_byte < loop.body.end_byte
        ]
        return max(holding, key=lambda loop: loop.body.start_byte) if holding else None

    def size(self, parts: Sequence[Node]) -> Size:
        """The product of ``parts``, each prelude constant that names a product read as it
        (``const int plane = nx * ny;``: :meth:`product`)."""
        expanded: list[Node] = []
        for part in parts:
            expanded += self.product(part) or [part]
        return Size.of(expanded, self.facts.integers)

    def product(self, part: Node, depth: int = 0) -> list[Node] | None:
        """The factors ``part`` stands for when it names a ``const`` integer the prelude
        defines as a product of parameters, constants and such names, none of which the
        function ever assigns: then it holds that product wherever the loop reads it."""
        part = strip_parens(part)
        if part.type != "identifier" or depth > 4:
            return None
        name = node_text(part)
        value = self.constant_definition(name)
        if value is None:
            return None
        found: list[Node] = []
        for written in factors(value):
            factor = strip_parens(written)
            if literal_int(factor) is not None:
                found.append(factor)
                continue
            text = node_text(factor)
            if factor.type != "identifier" or not self.never_assigned(text):
                return None
            param = self.params.get(text)
            nested = None if param is not None else self.product(factor, depth + 1)
            scalar = not param.pointer if param is not None else text in self.facts.integers
            if nested is not None:
                found += nested
            elif scalar:
                found.append(factor)
            else:
                return None
        return found

    def constant_definition(self, name: str) -> Node | None:
        """The initializer of ``const <integer> name = ...;`` in the prelude, if that is
        its only declaration there."""
        found = []
        for statement in self.entry.prelude:
            if statement.type != "declaration":
                continue
            for declarator in statement.children_by_field_name("declarator"):
                named = declared_name(declarator)
                if named is not None and node_text(named) == name:
                    found.append(declarator)
        if len(found) != 1:
            return None
        declarator = found[0]
        local = self.entry.locals.get(name)
        constant = local is not None and {"const", "constexpr"} & set(local.type.split())
        if local is None or not local.scalar or not constant:
            return None
        if not is_integer_type(local.type) or declarator.type != "init_declarator":
            return None
        return declarator.child_by_field_name("value")

    def never_assigned(self, name: str) -> bool:
        """Nothing in the function assigns, steps, takes the address of or binds a
        reference to ``name`` (:func:`~regrapht_core.cxx.definitions.changed`)."""
        body = self.entry.definition.child_by_field_name("body")
        targets = (changed(node) for node in (walk(body) if body is not None else ()))
        return not any(t is not None and node_text(strip_parens(t)) == name for t in targets)
