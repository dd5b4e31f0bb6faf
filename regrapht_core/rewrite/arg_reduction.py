"""Arg-reductions as a min-reduction of packed keys: the index of the smallest or largest
element, first or last on ties.

``if (x[i] < best) { best = x[i]; arg = i; }`` (or ``if (v[i] < v[arg]) arg = i;``) carries
two variables from one iteration to the next, so the reduction rewriter refuses it. But the
pair it keeps is the minimum of the pairs ``(x[i], i)`` under one order: by value, then by
index (the first index wins ties when the comparison is strict, the last when it is ``<=``).
Packed into one 64-bit key, value bits above index bits, that order is the order of the
keys: a 32-bit value is mapped to an unsigned integer that sorts as the values do (a float's
sign flips the rest of its bits, an int's sign bit is flipped, a maximum inverts them), the
index below it (inverted for the last on ties). The loop is rewritten in that sequential form
(``if (k < key) key = k;``, an unsigned min the reduction rewriter maps with warp shuffles
and one ``atomicMin`` per block), and the variables take their values back from the key.

A 64-bit value (``double``, ``long long``) and its index do not fit one key: the loop then
runs twice, a min-reduction of the values' 64-bit order keys, then one of the positions
whose element has the best key (:func:`_two_passes`).

Limits: indices below 2^32 with one key. A NaN element is never the answer (it sorts after
every number either way), as the loop's comparisons never pick one, unless the starting
value is NaN itself. ``-0`` and ``+0`` compare equal, so they share a key.
"""

from __future__ import annotations

from dataclasses import dataclass

from regrapht_core.cxx.affine import mentions, uses
from regrapht_core.cxx.entry import EntryFunction
from regrapht_core.cxx.parse import Node, node_text
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.syntax import (
    NameAllocator,
    body_statements,
    canon,
    operator_text,
    strip_parens,
)
from regrapht_core.rewrite.parallelize import block_size
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)
from regrapht_core.rewrite.reduction import reduction_candidate
from regrapht_core.rewrite.sequential import SplitEntry, analysed_loop, split_entry_function

__all__ = ["ArgReduction"]

_SHAPE = (
    "the loop is not an arg-reduction (`if (x[i] < best) { best = x[i]; arg = i; }` or "
    "`if (x[i] < x[arg]) arg = i;`)"
)
_ORDERS = {"<": (False, False), "<=": (False, True), ">": (True, False), ">=": (True, True)}
"""Comparison of the element against the best so far: (a maximum, the last on ties)."""
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_KINDS = {
    "float": "float",
    "int": "int",
    "int32_t": "int",
    "std::int32_t": "int",
    "unsigned": "unsigned",
    "unsigned int": "unsigned",
    "uint32_t": "unsigned",
    "std::uint32_t": "unsigned",
}
"""Value types whose order fits the key's upper 32 bits, by how they map to it."""
_WIDE = {
    "double": "double",
    "long long": "int",
    "long long int": "int",
    "int64_t": "int",
    "std::int64_t": "int",
    "unsigned long long": "unsigned",
    "unsigned long long int": "unsigned",
    "uint64_t": "unsigned",
    "std::uint64_t": "unsigned",
}
"""64-bit value types: their order takes a whole key, and the index a second pass."""


@dataclass(frozen=True, slots=True)
class _Search:
    value: Node
    """The element compared (``x[i]``, ``a``), free of the tracked variables."""
    best: str
    """The variable holding the best value (Form A), or empty (``x[arg]`` compared)."""
    initial: str
    """The best value before the loop: ``best``, or the element at the starting index."""
    arg: str
    maximum: bool
    last: bool
    kind: str
    """How the value maps to the key: ``float``, ``double``, ``int`` or ``unsigned``."""
    wide: bool
    """A 64-bit value: a pass for the best value's key, then one for its index."""
    spelled: str
    """The value's type as the helpers spell it."""
    keep: tuple[Node, ...]
    """Statements of the body before the comparison (``float a = fabsf(x[i]);``)."""


class ArgReduction(RefusingRewriter):
    technique = "algorithmic_change"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        block = block_size(params)
        split = split_entry_function(code, context.task)
        entry = split.entry
        found = _search(entry)
        if found.wide:
            return [_two_passes(split, found, block)]
        names = NameAllocator(split.root)
        key, step = names.fresh(f"{found.arg}_key"), names.fresh("k")
        make, value_of = names.fresh("order_key"), names.fresh("order_value")
        loop = entry.loop
        var = loop.var
        source = loop.node.text or b""
        header = source[: loop.body.start_byte - loop.node.start_byte].decode().rstrip()
        indent = " " * loop.node.start_point[1]
        index = f"{key} & 0xffffffffull" if not found.last else f"~{key} & 0xffffffffull"
        arg_type = _declared(entry, found.arg)
        start = f"{make}({found.initial}, static_cast<unsigned int>({found.arg}))"
        ran = ""
        if not found.best:  # ``x[arg]`` is read only if the loop runs (``x`` may be empty)
            ran = names.fresh("ran")
            start = f"{ran} ? {start} : ~0ull"
        lines = [
            *([f"const bool {ran} = {loop.condition(f'({loop.lower_text()})')};"] if ran else []),
            f"unsigned long long {key} = {start};",
            f"{header} {{",
            *(f"  {node_text(s)}" for s in found.keep),
            f"  const unsigned long long {step} = {make}({node_text(found.value)}, "
            f"static_cast<unsigned int>({var}));",
            f"  if ({step} < {key}) {key} = {step};",
            "}",
            f"{'if (' + ran + ') ' if ran else ''}{found.arg} = static_cast<{arg_type}>({index});",
        ]
        if found.best:
            lines.append(f"{found.best} = {value_of}({key});")
        helpers = _helpers(found, make, value_of if found.best else "")
        edits = [
            Edit.insert(entry.definition.start_byte, helpers),
            Edit.replace(loop.node, f"\n{indent}".join(lines)),
        ]
        keyed = apply_edits(split.code.encode("utf-8"), edits)
        reduced = analysed_loop(keyed, split.task)
        which = "largest" if found.maximum else "smallest"
        ties = "last" if found.last else "first"
        return [
            RewriteCandidate(
                reduction_candidate(reduced, block),
                f"the index of the {which} element ({ties} on ties) is the minimum of keys "
                f"packing each element's order above its index: one unsigned min-reduction "
                f"({block} threads per block, warp shuffles, one atomicMin per block)",
            )
        ]


def _two_passes(split: SplitEntry, found: _Search, block: int) -> RewriteCandidate:
    """A 64-bit value and its index do not fit one key: the loop runs twice, each pass a
    min-reduction of 64-bit keys. The first finds the best value's key; the second the
    first (or last) index whose element has that key, the starting pair counted before
    every element, as the loop visits it first."""
    entry, loop = split.entry, split.entry.loop
    names = NameAllocator(split.root)
    best_key, position = names.fresh(f"{found.best or found.arg}_key"), names.fresh("position")
    step, again = names.fresh("k"), names.fresh("k")
    order, value_of = names.fresh("order_key"), names.fresh("order_value")
    var = loop.var
    source = loop.node.text or b""
    header = source[: loop.body.start_byte - loop.node.start_byte].decode().rstrip()
    indent = " " * loop.node.start_point[1]
    ran = names.fresh("ran") if not found.best else ""
    start = f"{order}({found.initial})"
    at = f"static_cast<unsigned long long>({var})"
    place, index = (f"~({at} + 1ull)", f"~{position} - 1ull") if found.last else (at, position)
    keep = [f"  {node_text(s)}" for s in found.keep]
    # The first on ties: a starting value equal to the best wins, as the loop saw it first.
    stays = f" && !({ran + ' && ' if ran else ''}{start} == {best_key})" if not found.last else ""
    lines = [
        *([f"const bool {ran} = {loop.condition(f'({loop.lower_text()})')};"] if ran else []),
        f"unsigned long long {best_key} = {f'{ran} ? {start} : ~0ull' if ran else start};",
        f"{header} {{",
        *keep,
        f"  const unsigned long long {step} = {order}({node_text(found.value)});",
        f"  if ({step} < {best_key}) {best_key} = {step};",
        "}",
        f"unsigned long long {position} = ~0ull;",
        f"{header} {{",
        *keep,
        f"  const unsigned long long {again} = "
        f"{order}({node_text(found.value)}) == {best_key} ? {place} : ~0ull;",
        f"  if ({again} < {position}) {position} = {again};",
        "}",
        f"if ({position} != ~0ull{stays}) "
        f"{found.arg} = static_cast<{_declared(entry, found.arg)}>({index});",
    ]
    if found.best:
        lines.append(f"{found.best} = {value_of}({best_key});")
    edits = [
        Edit.insert(entry.definition.start_byte, _wide_helpers(found, order, value_of)),
        Edit.replace(loop.node, f"\n{indent}".join(lines)),
    ]
    code = apply_edits(split.code.encode("utf-8"), edits)
    for _ in range(2):  # the value's pass, then (the only loop left on the host) the index's
        code = reduction_candidate(analysed_loop(code, split.task, loop=0), block)
    which = "largest" if found.maximum else "smallest"
    ties = "last" if found.last else "first"
    return RewriteCandidate(
        code,
        f"the index of the {which} element ({ties} on ties), of 64-bit values: one unsigned "
        f"min-reduction of the values' order keys, then one of the positions holding the "
        f"best key ({block} threads per block, warp shuffles, one atomicMin per block each)",
    )


def _search(entry: EntryFunction) -> _Search:
    keep, test, writes = _shape(entry)
    op = operator_text(test)
    left, right = test.child_by_field_name("left"), test.child_by_field_name("right")
    assert left is not None and right is not None  # _shape read them
    var = entry.loop.var
    arg = next((name for name, value in writes.items() if canon(value) == var), None)
    if arg is None or len(writes) > 2:
        raise Refusal(_SHAPE)
    others = [name for name in writes if name != arg]
    best = others[0] if others else ""
    if best:  # Form A: ``best = e; arg = i;`` with ``e`` compared against ``best``
        if canon(right) != best:
            left, right, op = right, left, _FLIPPED[op]
        if canon(right) != best or canon(writes[best]) != canon(left):
            raise Refusal(_SHAPE)
        kind_of, initial = _declared(entry, best), best
    else:  # Form B: ``x[i] < x[arg]``
        if not _same(left, _at(right, var, arg)):
            left, right, op = right, left, _FLIPPED[op]
        if not _same(left, _at(right, var, arg)):
            raise Refusal(_SHAPE)
        kind_of, initial = _element_type(entry, left), node_text(right)
    for name in filter(None, (best, arg)):
        if mentions(left, name) or any(mentions(s, name) for s in keep):
            raise Refusal(f"the loop reads `{name}` outside its update")
    plain = " ".join(kind_of.replace("const", "").split())
    wide = plain in _WIDE
    kind = _WIDE.get(plain) or _KINDS.get(plain)
    if kind is None:
        raise Refusal(
            f"the arg-reduction compares `{kind_of}` values; only 32-bit and 64-bit "
            "numbers (float, double, int, unsigned, long long and their fixed-width names) "
            "map to an unsigned key in their order"
        )
    maximum, last = _ORDERS[op]
    spelled = {
        "float": "float",
        "double": "double",
        "int": "long long" if wide else "int",
        "unsigned": "unsigned long long" if wide else "unsigned int",
    }[kind]
    return _Search(left, best, initial, arg, maximum, last, kind, wide, spelled, keep)


def _shape(entry: EntryFunction) -> tuple[tuple[Node, ...], Node, dict[str, Node]]:
    """Declarations, then ``if (a CMP b) { v = e; ... }`` with no ``else``: the
    declarations, the comparison and the assignments, else the refusal."""
    statements = body_statements(entry.loop.body)
    if not statements or statements[-1].type != "if_statement":
        raise Refusal(_SHAPE)
    branch, keep = statements[-1], tuple(statements[:-1])
    condition = branch.child_by_field_name("condition")
    consequence = branch.child_by_field_name("consequence")
    if (
        any(s.type != "declaration" for s in keep)
        or branch.child_by_field_name("alternative") is not None
        or condition is None
        or consequence is None
        or not condition.named_children
    ):
        raise Refusal(_SHAPE)
    test = strip_parens(condition.named_children[0])
    if test.type != "binary_expression" or operator_text(test) not in _ORDERS:
        raise Refusal(_SHAPE)
    return keep, test, _assignments(consequence)


def _assignments(block: Node) -> dict[str, Node]:
    """``name -> value`` of a block of plain assignments to names, else the refusal."""
    out: dict[str, Node] = {}
    for statement in body_statements(block):
        expression = statement.named_children[0] if statement.named_child_count else None
        if statement.type != "expression_statement" or expression is None:
            raise Refusal(_SHAPE)
        if expression.type != "assignment_expression" or operator_text(expression) != "=":
            raise Refusal(_SHAPE)
        target = expression.child_by_field_name("left")
        value = expression.child_by_field_name("right")
        if target is None or value is None or target.type != "identifier":
            raise Refusal(_SHAPE)
        out[node_text(target)] = value
    return out


def _at(node: Node, var: str, arg: str) -> str:
    """``node`` (``x[arg]``) as written with ``arg`` in place of ``var``'s uses: what the
    element compared against looks like at the loop's index (``x[i]``)."""
    renamed = [Edit.replace(n, var) for n in uses(node, arg)]
    if not renamed:
        return ""
    text = apply_edits(node.text or b"", renamed, base=node.start_byte)
    return "".join(text.split())


def _same(node: Node, text: str) -> bool:
    """``node`` written as ``text`` (layout aside)."""
    return "".join(node_text(strip_parens(node)).split()) == text


def _declared(entry: EntryFunction, name: str) -> str:
    local = entry.locals.get(name)
    if local is None or not local.scalar:
        raise Refusal(f"`{name}` is not a scalar the code declares before the loop")
    return local.type


def _element_type(entry: EntryFunction, element: Node) -> str:
    """The element type of the parameter ``element`` (``x[i]``) reads."""
    base = (
        element.child_by_field_name("argument") if element.type == "subscript_expression" else None
    )
    param = entry.param(node_text(base)) if base is not None else None
    if param is None or not param.pointer:
        raise Refusal(f"`{node_text(element)}` is not an element of a pointer parameter")
    return param.element


def _helpers(found: _Search, make: str, value_of: str) -> str:
    """The key of a value and an index, and (``value_of`` named) the value back from a key;
    the reduction rewriter marks them ``__host__ __device__``."""
    kind, spelled = found.kind, found.spelled
    if kind == "float":
        order = [
            "  if (v == 0.0f) v = 0.0f;",  # -0 and +0 compare equal: one key, ties by index
            "  union { float f; unsigned int u; } bits;",
            "  bits.f = v;",
            "  unsigned int o = (bits.u & 0x80000000u) ? ~bits.u : (bits.u | 0x80000000u);",
        ]
        back = [
            "  union { float f; unsigned int u; } bits;",
            "  bits.u = (o & 0x80000000u) ? (o & 0x7fffffffu) : ~o;",
            "  return bits.f;",
        ]
    else:
        flip = " ^ 0x80000000u" if kind == "int" else ""
        order = [f"  unsigned int o = (unsigned int)v{flip};"]
        back = [f"  return ({spelled})(o{flip});"]
    if found.maximum:
        order.append("  o = ~o;")
    if kind == "float":
        order.append("  if (v != v) o = 0xffffffffu;")
    index = "~i" if found.last else "i"
    lines = [
        f"static inline unsigned long long {make}({spelled} v, unsigned int i) {{",
        *order,
        f"  return ((unsigned long long)o << 32) | ({index});",
        "}",
        "",
    ]
    if value_of:
        lines += [
            f"static inline {spelled} {value_of}(unsigned long long key) {{",
            "  unsigned int o = (unsigned int)(key >> 32);",
            *(["  o = ~o;"] if found.maximum else []),
            *back,
            "}",
            "",
        ]
    return "\n".join([*lines, ""])


def _wide_helpers(found: _Search, order: str, value_of: str) -> str:
    """The 64-bit order key of a value (a NaN last, -0 as +0), and the value back from it;
    the reduction rewriter marks them ``__host__ __device__``."""
    kind, spelled, sign = found.kind, found.spelled, "0x8000000000000000ull"
    flip = ["  o = ~o;"] if found.maximum else []
    if kind == "double":
        bits = "  union { double f; unsigned long long u; } bits;"
        to_key = [
            "  if (v == 0.0) v = 0.0;",
            bits,
            "  bits.f = v;",
            f"  unsigned long long o = (bits.u & {sign}) ? ~bits.u : (bits.u | {sign});",
            *flip,
            "  if (v != v) o = ~0ull;",
        ]
        back = [bits, f"  bits.u = (o & {sign}) ? (o & ~{sign}) : ~o;", "  return bits.f;"]
    else:
        xor = f" ^ {sign}" if kind == "int" else ""
        to_key = [f"  unsigned long long o = (unsigned long long)v{xor};", *flip]
        back = [f"  return ({spelled})(o{xor});"]
    lines = [
        f"static inline unsigned long long {order}({spelled} v) {{",
        *to_key,
        "  return o;",
        "}",
        "",
    ]
    if found.best:
        lines += [
            f"static inline {spelled} {value_of}(unsigned long long o) {{",
            *flip,
            *back,
            "}",
            "",
        ]
    return "\n".join([*lines, ""])
