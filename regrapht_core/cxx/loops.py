"""Counted ``for`` loops: the only loops whose iterations can be handed to threads.

A loop qualifies when its trip count is known before it starts: one variable, initialised
once, compared against a bound with ``<``/``<=`` (or ``!=``, which with a unit step means
``<``), and stepped by one. Anything else -- a pointer walk, a step that depends on data, two
induction variables -- is refused, because mapping it to threads would need a proof this
package does not attempt.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from regrapht_core.cxx.affine import additive_terms, int_literal, literal_int, stride_key
from regrapht_core.cxx.parse import Node, node_text
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.syntax import canon, operator_text, strip_parens

__all__ = [
    "FLIPPED",
    "CountedLoop",
    "DeclaredLoop",
    "LoopStart",
    "Shifted",
    "compared_bound",
    "counted_loop",
    "declared_loop",
    "loop_start",
    "shifted_comparison",
]


@dataclass(frozen=True, slots=True)
class CountedLoop:
    node: Node
    var: str
    var_type: str | None
    """The declared type of the induction variable; ``None`` when declared before the loop."""
    lower: Node
    upper: Node
    inclusive: bool
    """``i <= upper`` rather than ``i < upper``."""
    body: Node
    offset: int = 0
    """``i + offset < upper``: the loop stops ``offset`` short of ``upper`` (a stencil's
    ``i + 1 < n``). Kept as written rather than as ``i < n - 1``, which wraps for an
    unsigned ``n`` of 0."""
    shift: Node | None = None
    """``i + k <= upper`` with ``k`` no literal (a convolution's ``i + k <= n``, ``k`` its
    kernel's length): the loop also stops ``k`` short of ``upper``. Kept as written, as
    ``offset`` is; like ``upper``, it is read once, before the loop runs."""

    @property
    def shifted(self) -> bool:
        """The loop stops short of ``upper`` (``i + 1 < n``, ``i + k <= n``)."""
        return bool(self.offset) or self.shift is not None

    def bounds(self) -> tuple[Node, ...]:
        """Every expression the loop's range reads: ``lower``, ``upper`` and ``shift``."""
        return (self.lower, self.upper, *(() if self.shift is None else (self.shift,)))

    def lower_text(self) -> str:
        return _operand(self.lower)

    def upper_text(self) -> str:
        return _operand(self.upper)

    def condition(
        self, var: str | None = None, operand: Callable[[Node], str] | None = None
    ) -> str:
        """``var < upper`` as written (shifted, ``<=``); ``operand`` renders ``upper`` and
        the shift: their source text by default, a rewrite's edited text in device code."""
        op = "<=" if self.inclusive else "<"
        render = operand or _operand
        return f"{self.stop(var or self.var, render)} {op} {render(self.upper)}"

    def stop(self, var: str, operand: Callable[[Node], str] | None = None) -> str:
        """What the condition compares with ``upper``: ``var``, shifted as written."""
        parts = [var, *([str(self.offset)] if self.offset else [])]
        if self.shift is not None:
            parts.append((operand or _operand)(self.shift))
        return " + ".join(parts)

    def trip_count(self) -> str:
        """Signed iteration count, in ``long long`` so no bound type can wrap it."""
        if self.starts_at_zero():
            return self.end_text()
        lower = f"static_cast<long long>({node_text(strip_parens(self.lower))})"
        return self.end_text(f" - {lower}")

    def end_text(self, minus: str = "") -> str:
        """One past the loop's last value, in ``long long``: ``upper - offset``, plus one
        with ``<=`` (``minus`` goes before those)."""
        extra = (" + 1" if self.inclusive else "") + (f" - {self.offset}" if self.offset else "")
        if self.shift is not None:
            extra += f" - static_cast<long long>({node_text(strip_parens(self.shift))})"
        return f"static_cast<long long>({node_text(strip_parens(self.upper))}){minus}{extra}"

    def starts_at_zero(self) -> bool:
        return canon(self.lower) == "0"

    def inside(self, stride: str, values: Mapping[str, int] | None = None) -> bool:
        """The loop stays in ``[0, stride)``: it starts at a literal ``lo >= 0`` and ends at
        ``stride - c`` (``c >= 0``, or ``c >= 1`` with ``<=``), so interior sweeps such as
        ``for (j = 1; j < w - 1; ++j)`` stay in the row their iteration owns. ``values``:
        names that stand for integer literals, as a stencil's ``for (j = R; j < w - R; ++j)``
        names its radius. A literal ``stride`` takes a bound of known values
        (``for (j = 0; j < S; ++j)`` with ``#define S 16`` inside ``"16"``)."""
        return self.starts_inside(values) and self.ends_inside(stride, values)

    def starts_inside(self, values: Mapping[str, int] | None = None) -> bool:
        """The loop starts at a literal (or a name in ``values``) of at least 0."""
        lower = _value(self.lower, values or {})
        return lower is not None and lower >= 0

    def ends_inside(self, stride: str, values: Mapping[str, int] | None = None) -> bool:
        """The loop's last value is below ``stride`` (see :meth:`inside`)."""
        if self.shift is not None:  # a shift of unknown sign may end at or past ``stride``
            return False
        known = values or {}
        terms = additive_terms(self.upper, 1)
        ours = [(sign, t) for sign, t in terms if _value(t, known) is None]
        limit = int_literal(stride)
        if not ours and limit is not None:  # a literal row, a bound of known values
            top = sum(sign * (_value(t, known) or 0) for sign, t in terms) - self.offset
            return top + (1 if self.inclusive else 0) <= limit
        if len(ours) != 1 or ours[0][0] < 0 or stride_key(ours[0][1]) != stride:
            return False
        slack = self.offset - sum(sign * (_value(t, known) or 0) for sign, t in terms)
        return slack >= (1 if self.inclusive else 0)


def _value(node: Node, known: Mapping[str, int]) -> int | None:
    """An integer literal's value, or a name's in ``known``."""
    node = strip_parens(node)
    if node.type == "identifier":
        return known.get(node_text(node))
    return literal_int(node)


_ATOMS = frozenset({"identifier", "number_literal", "call_expression", "field_expression"})


def _operand(node: Node) -> str:
    """Operand text safe next to a comparison or ``+`` without knowing its precedence."""
    node = strip_parens(node)
    return node_text(node) if node.type in _ATOMS else f"({node_text(node)})"


@dataclass(frozen=True, slots=True)
class LoopStart:
    """What a ``for`` initialiser sets: one variable, to one value."""

    var: str
    value: Node
    declaration: Node | None
    """The declaration when the loop declares the variable (``int i = 0``)."""


FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!=", "==": "=="}
"""Each comparison with its operands swapped."""


def loop_start(init: Node) -> LoopStart | None:
    """``T i = start`` (one declarator) or ``i = start``, else ``None``."""
    if init.type == "declaration":
        declarators = init.children_by_field_name("declarator")
        if len(declarators) == 1 and declarators[0].type == "init_declarator":
            name = declarators[0].child_by_field_name("declarator")
            value = declarators[0].child_by_field_name("value")
            if name is not None and name.type == "identifier" and value is not None:
                return LoopStart(node_text(name), value, init)
        return None
    if init.type == "assignment_expression" and operator_text(init) == "=":
        left, right = init.child_by_field_name("left"), init.child_by_field_name("right")
        if left is not None and left.type == "identifier" and right is not None:
            return LoopStart(node_text(left), right, None)
    return None


@dataclass(frozen=True, slots=True)
class DeclaredLoop:
    """A ``for`` loop that declares one variable and has all its parts: what the extraction
    rewrites (strides, countdowns, iterators) rewrite around its counter."""

    var: str
    kind: Node
    """The declared type."""
    value: Node
    """The initial value."""
    condition: Node
    update: Node
    body: Node


def declared_loop(loop: Node) -> DeclaredLoop | None:
    """``loop``'s parts, where it declares its variable (``T i = start``) and has a
    condition, an update and a body; else None."""
    init, body = loop.child_by_field_name("initializer"), loop.child_by_field_name("body")
    condition, update = loop.child_by_field_name("condition"), loop.child_by_field_name("update")
    start = loop_start(init) if init is not None else None
    declaration = start.declaration if start is not None else None
    kind = declaration.child_by_field_name("type") if declaration is not None else None
    if start is None or kind is None or body is None or condition is None or update is None:
        return None
    return DeclaredLoop(start.var, kind, start.value, condition, update, body)


def compared_bound(comparison: Node, var: str) -> tuple[str, Node] | None:
    """``(op, bound)`` for a comparison of ``var``, read with ``var`` on the left (``n > i``
    is ``("<", n)``), or ``None``."""
    comparison = strip_parens(comparison)
    if comparison.type != "binary_expression":
        return None
    op = operator_text(comparison)
    left, right = comparison.child_by_field_name("left"), comparison.child_by_field_name("right")
    if left is None or right is None or op not in FLIPPED:
        return None
    if canon(left) == var:
        return op, right
    if canon(right) == var:
        return FLIPPED[op], left
    return None


def _init(loop: Node) -> tuple[str, str | None, Node]:
    init = loop.child_by_field_name("initializer")
    if init is None:
        raise Refusal("the loop has no initialiser, so its trip count is unknown")
    start = loop_start(init)
    if start is None and init.type == "declaration":
        declarators = init.children_by_field_name("declarator")
        if len(declarators) != 1 or declarators[0].type != "init_declarator":
            raise Refusal("the loop declares more than one variable")
        raise Refusal("the loop variable is not a plain initialised integer")
    if start is None:
        raise Refusal("the loop initialiser is not `i = start`")
    if start.declaration is None:
        return start.var, None, start.value
    return start.var, _integer_type(start.declaration), start.value


def _integer_type(declaration: Node) -> str:
    kind = declaration.child_by_field_name("type")
    integer = kind is not None and (
        kind.type in ("primitive_type", "sized_type_specifier")
        or node_text(kind) in ("size_t", "std::size_t", "ptrdiff_t")
    )
    if kind is None or not integer:
        raise Refusal("the loop variable is not of an integer type")
    if any(c.type == "type_qualifier" for c in declaration.children):
        raise Refusal("the loop variable is qualified")
    if node_text(kind) in ("float", "double", "bool", "char"):
        raise Refusal("the loop variable is not of an integer type")
    return node_text(kind)


@dataclass(frozen=True, slots=True)
class Shifted:
    """``var + k op bound`` read with ``var`` on the left, ``k`` as its signed terms."""

    op: str
    bound: Node
    terms: tuple[tuple[int, Node], ...]
    """``k``'s terms with their signs: ``((1, 1),)`` for ``i + 1``, ``((-1, k),)`` for
    ``i - k``; none of them reads ``var``."""


def shifted_comparison(comparison: Node, var: str) -> Shifted | None:
    """``i + 1 < n`` (or ``1 + i < n``, ``n > i + 1``), ``i + k <= n``, ``i - k < n``: a
    comparison of ``var`` plus terms that do not read it, or ``None``. The loop reader and
    the task inference both read a shifted bound through it, so they agree on its forms."""
    comparison = strip_parens(comparison)
    if comparison.type != "binary_expression":
        return None
    left, right = comparison.child_by_field_name("left"), comparison.child_by_field_name("right")
    op = operator_text(comparison)
    if left is None or right is None or op not in FLIPPED:
        return None
    for side, other, read in ((left, right, op), (right, left, FLIPPED[op])):
        terms = additive_terms(side, 1)
        rest = tuple((sign, term) for sign, term in terms if canon(term) != var)
        once = len(rest) == len(terms) - 1 and (1, var) in [(s, canon(t)) for s, t in terms]
        if once and rest and not any(var in {node_text(n) for n in _names(t)} for _, t in rest):
            return Shifted(read, other, rest)
    return None


def _condition(loop: Node, var: str) -> tuple[Node, bool, int, Node | None]:
    cond = loop.child_by_field_name("condition")
    cond = strip_parens(cond) if cond is not None else None
    if cond is None or cond.type != "binary_expression":
        raise Refusal("the loop condition is not a comparison of the loop variable")
    found = compared_bound(cond, var)
    shifted = shifted_comparison(cond, var) if found is None else None
    offset, shift = 0, None
    if shifted is not None and len(shifted.terms) == 1 and shifted.terms[0][0] > 0:
        ((_, term),) = shifted.terms
        constant = literal_int(term)
        if constant is None:  # i + k <= n, k a kernel's length
            found, shift = (shifted.op, shifted.bound), term
        elif constant > 0 and shifted.op == "<":
            found, offset = (shifted.op, shifted.bound), constant
        elif constant > 0 and shifted.op == "<=":
            # i + c <= n is i + (c - 1) < n for integers (c >= 1: neither side can wrap).
            found, offset = ("<", shifted.bound), constant - 1
    allowed = ("<", "<=") if shift is not None else ("<", "<=", "!=")
    if found is None or found[0] not in allowed:
        raise Refusal(f"the loop condition `{node_text(cond)}` is not `{var} < bound`")
    op, bound = found
    if any(node_text(n) == var for n in _names(bound)):
        raise Refusal("the loop bound depends on the loop variable")
    return bound, op == "<=", offset, shift


def _names(node: Node) -> list[Node]:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        if current.type == "identifier":
            out.append(current)
        stack.extend(current.children)
    return out


def _unit_step(loop: Node, var: str) -> bool:
    update = loop.child_by_field_name("update")
    if update is None:
        return False
    update = strip_parens(update)
    if update.type == "update_expression":
        argument = update.child_by_field_name("argument")
        return argument is not None and canon(argument) == var and "++" in node_text(update)
    if update.type == "assignment_expression":
        left, right = update.child_by_field_name("left"), update.child_by_field_name("right")
        op = operator_text(update)
        if left is None or right is None or canon(left) != var:
            return False
        if op == "+=":
            return canon(right) == "1"
        if op == "=":
            return canon(right) in (f"{var} + 1", f"1 + {var}")
    return False


def counted_loop(loop: Node) -> CountedLoop:
    if loop.type != "for_statement":
        raise Refusal(f"a {loop.type.replace('_', ' ')} is not a counted for loop")
    var, var_type, lower = _init(loop)
    upper, inclusive, offset, shift = _condition(loop, var)
    if not _unit_step(loop, var):
        raise Refusal(f"the loop does not step `{var}` by one")
    body = loop.child_by_field_name("body")
    if body is None:
        raise Refusal("the loop has no body")
    return CountedLoop(loop, var, var_type, lower, upper, inclusive, body, offset, shift)
