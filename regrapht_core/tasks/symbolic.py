"""Polynomials over size variables, and intervals of them, for bounding array indices.

Length inference needs ``a[i*n + j]`` with ``i < m`` and ``j < n`` to come out as
``m*n``, not as a number: the same spec must serve every size. Size variables are assumed
to be at least 1, which is what makes ``n - 1`` provably non-negative. Division keeps exact
fractions; rendering rounds up, so a rendered length never undercounts.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["Interval", "Poly", "dominating", "greatest", "larger", "smaller"]

Monomial = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Poly:
    terms: tuple[tuple[Monomial, Fraction], ...] = ()
    """Sorted (monomial, non-zero coefficient) pairs; the empty monomial is the constant."""

    @staticmethod
    def _of(terms: dict[Monomial, Fraction]) -> Poly:
        return Poly(tuple(sorted((m, c) for m, c in terms.items() if c != 0)))

    @staticmethod
    def const(value: int | Fraction) -> Poly:
        return Poly._of({(): Fraction(value)})

    @staticmethod
    def var(name: str) -> Poly:
        return Poly._of({(name,): Fraction(1)})

    def __add__(self, other: Poly) -> Poly:
        out = dict(self.terms)
        for m, c in other.terms:
            out[m] = out.get(m, Fraction(0)) + c
        return Poly._of(out)

    def __neg__(self) -> Poly:
        return Poly(tuple((m, -c) for m, c in self.terms))

    def __sub__(self, other: Poly) -> Poly:
        return self + (-other)

    def __mul__(self, other: Poly) -> Poly:
        out: dict[Monomial, Fraction] = {}
        for m1, c1 in self.terms:
            for m2, c2 in other.terms:
                m = tuple(sorted(m1 + m2))
                out[m] = out.get(m, Fraction(0)) + c1 * c2
        return Poly._of(out)

    def scale(self, factor: Fraction) -> Poly:
        return Poly._of({m: c * factor for m, c in self.terms})

    @property
    def constant(self) -> Fraction | None:
        """The value when the polynomial has no variables."""
        if all(m == () for m, _ in self.terms):
            return self.terms[0][1] if self.terms else Fraction(0)
        return None

    @property
    def names(self) -> frozenset[str]:
        return frozenset(v for m, _ in self.terms for v in m)

    def nonneg(self) -> bool:
        """Provably >= 0 when every variable is >= 1 (sufficient, not necessary)."""
        if any(c < 0 for m, c in self.terms if m):
            return False
        return sum((c for _, c in self.terms), Fraction(0)) >= 0

    def rounded_up(self) -> Poly:
        """The leading (highest-degree) part when the rest only subtracts from it.

        ``h*w - w - 1`` becomes ``h*w``: arrays are sized by dimension products, and a
        loop that stops short of the edge (a stencil) must not shrink the buffer.
        """
        degree = max((len(m) for m, _ in self.terms), default=0)
        if degree == 0:
            return self
        lead = Poly(tuple((m, c) for m, c in self.terms if len(m) == degree))
        rest = self - lead
        return lead if (-rest).nonneg() else self

    def rename(self, mapping: dict[str, str]) -> Poly:
        out: dict[Monomial, Fraction] = {}
        for m, c in self.terms:
            key = tuple(sorted(mapping.get(v, v) for v in m))
            out[key] = out.get(key, Fraction(0)) + c
        return Poly._of(out)

    def render(self) -> str:
        """A C expression; fractional coefficients become a division rounded up."""
        denominator = math.lcm(*(c.denominator for _, c in self.terms)) if self.terms else 1
        whole = self.scale(Fraction(denominator))
        ordered = sorted(whole.terms, key=lambda t: (-len(t[0]), t[0]))
        text = ""
        for m, c in ordered:
            magnitude = abs(int(c))
            factors = ([str(magnitude)] if magnitude != 1 or not m else []) + list(m)
            body = "*".join(factors)
            if not text:
                text = body if c > 0 else f"-{body}"
            else:
                text += f" + {body}" if c > 0 else f" - {body}"
        text = text or "0"
        if denominator == 1:
            return text
        return f"({text} + {denominator - 1})/{denominator}"

    def __str__(self) -> str:
        return self.render()


def larger(a: Poly, b: Poly) -> Poly | None:
    """The provably larger of two bounds, or None when it depends on the sizes."""
    if (a - b).nonneg():
        return a
    if (b - a).nonneg():
        return b
    return None


def smaller(a: Poly, b: Poly) -> Poly | None:
    if (a - b).nonneg():
        return b
    if (b - a).nonneg():
        return a
    return None


def greatest(polys: list[Poly]) -> Poly | None:
    """The one bound provably at least every other, or None when none is.

    Compares every pair rather than folding left: ``0``, ``n - 3`` and ``n - 1`` have a
    greatest (``n - 1``) although ``0`` and ``n - 3`` cannot be ordered.
    """
    for candidate in polys:
        if all((candidate - other).nonneg() for other in polys):
            return candidate
    return None


def dominating(polys: list[Poly]) -> Poly:
    """A polynomial provably at least each of ``polys``: per monomial, the largest
    coefficient any of them has (0 where one lacks it), so every difference has only
    non-negative coefficients. ``n - 1`` and ``m - 1`` give ``m + n - 1``."""
    coefficients = [dict(p.terms) for p in polys]
    monomials = {m for p in coefficients for m in p}
    return Poly._of({m: max(p.get(m, Fraction(0)) for p in coefficients) for m in monomials})


@dataclass(frozen=True, slots=True)
class Interval:
    """Inclusive bounds of an integer expression; ``None`` is unknown or unbounded."""

    lo: Poly | None = None
    hi: Poly | None = None

    @staticmethod
    def exact(p: Poly) -> Interval:
        return Interval(p, p)

    @property
    def known(self) -> bool:
        return self.lo is not None and self.hi is not None

    def nonneg(self) -> bool:
        return self.lo is not None and self.lo.nonneg()

    def __add__(self, other: Interval) -> Interval:
        lo = _both(self.lo, other.lo, Poly.__add__)
        return Interval(lo, _both(self.hi, other.hi, Poly.__add__))

    def __neg__(self) -> Interval:
        lo = None if self.hi is None else -self.hi
        return Interval(lo, None if self.lo is None else -self.lo)

    def __sub__(self, other: Interval) -> Interval:
        return self + (-other)

    def __mul__(self, other: Interval) -> Interval:
        for a, b in ((self, other), (other, self)):
            c = b.lo.constant if b.lo is not None and b.lo == b.hi else None
            if c is not None:
                k = Poly.const(c)
                lo = None if a.lo is None else a.lo * k
                hi = None if a.hi is None else a.hi * k
                return Interval(lo, hi) if c >= 0 else Interval(hi, lo)
        if self.nonneg() and other.nonneg():
            assert self.lo is not None and other.lo is not None
            return Interval(self.lo * other.lo, _both(self.hi, other.hi, Poly.__mul__))
        return Interval()

    def divided(self, other: Interval) -> Interval:
        c = other.lo.constant if other.lo is not None and other.lo == other.hi else None
        if c is None or c <= 0:
            return Interval(Poly.const(0), None) if self.nonneg() and other.nonneg() else Interval()
        f = 1 / c
        return Interval(
            None if self.lo is None else self.lo.scale(f),
            None if self.hi is None else self.hi.scale(f),
        )

    def modulo(self, other: Interval) -> Interval:
        if self.nonneg() and other.nonneg() and other.hi is not None:
            return Interval(Poly.const(0), other.hi - Poly.const(1))
        return Interval()

    def join(self, other: Interval) -> Interval:
        """Bounds holding for a value that is either ``self`` or ``other``."""
        lo = _both(self.lo, other.lo, smaller)
        return Interval(lo, _both(self.hi, other.hi, _above))

    def with_hi(self, hi: Poly) -> Interval:
        """Narrowed by a guard ``x <= hi``; keeps the old bound when it is provably tighter."""
        keep = self.hi if self.hi is not None and smaller(self.hi, hi) == self.hi else None
        return Interval(self.lo, keep or hi)

    def with_lo(self, lo: Poly) -> Interval:
        keep = self.lo if self.lo is not None and larger(self.lo, lo) == self.lo else None
        return Interval(keep or lo, self.hi)


def _above(a: Poly, b: Poly) -> Poly:
    return greatest([a, b]) or dominating([a, b])


def _both(a: Poly | None, b: Poly | None, op: Callable[[Poly, Poly], Poly | None]) -> Poly | None:
    return None if a is None or b is None else op(a, b)
