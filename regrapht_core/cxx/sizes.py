"""Row sizes as products: a literal coefficient times named factors, so the ownership proof
can divide a row into the sub-rows of the loops inside it.

A 3-D sweep writes ``out[z * plane + y * nx + x]`` with ``plane = nx * ny``: iteration ``z``
owns ``[z * plane, z * plane + plane)`` because ``y * nx + x`` stays below ``nx * ny`` when
``y`` runs inside ``[0, ny)`` and ``x`` inside ``[0, nx)``. Checking that means dividing
``nx * ny`` by ``nx`` and naming the quotient the way a loop bound is compared
(:func:`regrapht_core.cxx.affine.stride_key`), with named integer constants
(``#define S 16``) folded into the coefficient.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from regrapht_core.cxx.affine import literal_int
from regrapht_core.cxx.parse import Node, node_text
from regrapht_core.cxx.syntax import canon, strip_parens

__all__ = ["Size"]


@dataclass(frozen=True, slots=True)
class Size:
    coefficient: int
    names: tuple[str, ...]
    """The named factors' canonical texts, sorted (repeats kept)."""

    @classmethod
    def of(cls, factors: Iterable[Node], values: Mapping[str, int]) -> Size:
        """The product of ``factors``; an identifier in ``values`` counts as its value."""
        coefficient, names = 1, []
        for written in factors:
            factor = strip_parens(written)
            named = factor.type == "identifier"
            known = values.get(node_text(factor)) if named else literal_int(factor)
            if known is None:
                names.append(canon(factor))
            else:
                coefficient *= known
        return cls(coefficient, tuple(sorted(names)))

    def over(self, divisor: Size) -> Size | None:
        """``self / divisor`` when it divides exactly (as products), else ``None``."""
        left, right = Counter(self.names), Counter(divisor.names)
        if right - left or divisor.coefficient <= 0 or self.coefficient % divisor.coefficient:
            return None
        names = tuple(sorted((left - right).elements()))
        return Size(self.coefficient // divisor.coefficient, names)

    @property
    def literal(self) -> int | None:
        return None if self.names else self.coefficient

    def text(self) -> str:
        """The size as a 64-bit host expression (``static_cast<long long>(cols) * 4``)."""
        factors = [f"static_cast<long long>({name})" for name in self.names]
        return " * ".join(
            [*factors, *([] if self.coefficient == 1 and factors else [str(self.coefficient)])]
        )

    def key(self) -> str:
        """The size as :func:`~regrapht_core.cxx.affine.stride_key` spells a bound."""
        unit = self.coefficient == 1 and self.names
        return " * ".join(sorted([*([] if unit else [str(self.coefficient)]), *self.names]))
