"""The cache-friendly matrix product as C++ programmers write it, read as the textbook one.

On a CPU the i-k-j order is the fast one, so that is how a product is usually written::

    for (t = 0; t < M * N; ++t) C[t] = 0;
    for (i = 0; i < M; ++i)
      for (k = 0; k < K; ++k) {
        const T a = A[i*K + k];
        for (j = 0; j < N; ++j) C[i*N + j] += a * B[k*N + j];
      }

On a GPU it is the wrong order: mapped as it stands, one thread per row runs the two inner
loops alone (0.55x the CPU on a 512-cube in ``gpu-h100-cxx-inputs.json``). The matmul
rewriters tile the i-j-k form with an accumulator, so :func:`product_as_dot` rewrites
the pair of loops into it::

    for (i = 0; i < M; ++i)
      for (j = 0; j < N; ++j) {
        T acc = 0;
        for (k = 0; k < K; ++k) acc += (A[i*K + k]) * (B[k*N + j]);
        C[i*N + j] = acc;
      }

Every output still starts at zero and adds its products in ascending ``k``, so the sums are
the loop's own. With no zeroing loop (``C[i*N + j] += a * B[k*N + j]`` into the caller's
values, the nest the entry's only loop), the last line is ``C[i*N + j] += acc;``: the
products' sum is added once, as a ``beta = 1`` GEMM adds it, which rounds differently from
adding one product at a time, within the task's tolerance. The rewrite applies only when the
zeroing (if any) covers exactly the outputs the nest accumulates into (``M*N`` elements, row
stride ``N``), the loops are rectangular from zero, the nest's only statement is the
accumulation (after an optional hoisted factor of ``i`` and ``k``), and neither factor reads
the output.
"""

from __future__ import annotations

from dataclasses import dataclass

from regrapht_core.contracts.task import Task
from regrapht_core.cxx.affine import affine, factors, mentions, stride_key
from regrapht_core.cxx.functions import function_definitions, function_name
from regrapht_core.cxx.loops import CountedLoop, counted_loop
from regrapht_core.cxx.params import parameters
from regrapht_core.cxx.parse import Node, node_text
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.syntax import (
    NameAllocator,
    body_statements,
    canon,
    operator_text,
    parse,
    strip_parens,
    zero_literal,
)

__all__ = ["product_as_dot"]

_FLOATS = frozenset({"float", "double"})


def _plain(loop: Node) -> CountedLoop | None:
    """``loop`` as ``for (T v = 0; v < bound; ++v)`` with a declared ``v``, else None."""
    try:
        found = counted_loop(loop)
    except Refusal:
        return None
    simple = found.starts_at_zero() and not found.inclusive and not found.shifted
    return found if simple and found.var_type is not None else None


def _only(body: Node, kind: str) -> Node | None:
    statements = body_statements(body)
    return statements[0] if len(statements) == 1 and statements[0].type == kind else None


def _store(statement: Node) -> tuple[Node, Node, Node] | None:
    """``(array, index, value)`` of ``array[index] op value;``."""
    expression = statement.named_children[0] if statement.named_child_count else None
    if statement.type != "expression_statement" or expression is None:
        return None
    if expression.type != "assignment_expression":
        return None
    left, right = expression.child_by_field_name("left"), expression.child_by_field_name("right")
    if left is None or right is None or left.type != "subscript_expression":
        return None
    array, indices = left.child_by_field_name("argument"), left.child_by_field_name("indices")
    if array is None or indices is None or indices.named_child_count != 1:
        return None
    return array, indices.named_children[0], expression


def _zeroing(statement: Node) -> tuple[str, CountedLoop] | None:
    """``(C, loop)`` of ``for (t = 0; t < E; ++t) C[t] = 0;``."""
    loop = _plain(statement) if statement.type == "for_statement" else None
    body = _only(loop.body, "expression_statement") if loop is not None else None
    store = _store(body) if body is not None else None
    if loop is None or store is None:
        return None
    array, index, expression = store
    value = strip_parens(expression.child_by_field_name("right") or expression)
    if operator_text(expression) != "=" or not zero_literal(value) or canon(index) != loop.var:
        return None
    return node_text(array), loop


def _hoisted(statement: Node) -> tuple[str, Node] | None:
    """``(name, value)`` of ``[const] T name = value;``."""
    declarators = statement.children_by_field_name("declarator")
    if statement.type != "declaration" or len(declarators) != 1:
        return None
    init = declarators[0]
    name, value = init.child_by_field_name("declarator"), init.child_by_field_name("value")
    if name is None or value is None or name.type != "identifier":
        return None
    return node_text(name), value


def _factors(accumulate: Node, output: str, index: Node) -> tuple[Node, Node] | None:
    """The two factors of ``C[idx] += X * Y`` or ``C[idx] = C[idx] + X * Y``."""
    right = expression_right = accumulate.child_by_field_name("right")
    if expression_right is None:
        return None
    if operator_text(accumulate) == "=":
        right = strip_parens(expression_right)
        terms = [right.child_by_field_name(f) for f in ("left", "right")]
        own = f"{output} [ {canon(index)} ]"
        if right.type != "binary_expression" or operator_text(right) != "+" or None in terms:
            return None
        sides = [canon(t) for t in terms if t is not None]
        right = terms[1] if sides[0] == own else terms[0] if sides[1] == own else None
    elif operator_text(accumulate) != "+=":
        return None
    product = strip_parens(right) if right is not None else None
    if product is None or product.type != "binary_expression" or operator_text(product) != "*":
        return None
    left, other = product.child_by_field_name("left"), product.child_by_field_name("right")
    return (left, other) if left is not None and other is not None else None


def _element(definition: Node, output: str) -> str | None:
    """The element type of the pointer parameter ``output`` (``float* C`` -> ``float``)."""
    found = [p for p in parameters(definition) or () if p.name == output and p.pointers == 1]
    return found[0].element if len(found) == 1 and not found[0].const else None


@dataclass(frozen=True, slots=True)
class _Nest:
    """``for i { for k { [T a = ...;] for j { C[idx] += X * Y; } } }``, taken apart."""

    rows: CountedLoop
    depth: CountedLoop
    columns: CountedLoop
    hoisted: tuple[str, Node] | None
    output: str
    index: Node
    factors: tuple[Node, Node]


def _nest(statement: Node) -> _Nest | None:
    rows = _plain(statement)
    depth_node = _only(rows.body, "for_statement") if rows is not None else None
    depth = _plain(depth_node) if depth_node is not None else None
    inner = body_statements(depth.body) if depth is not None else []
    hoisted = _hoisted(inner[0]) if len(inner) == 2 else None
    if rows is None or depth is None or len(inner) != (1 if hoisted is None else 2):
        return None
    columns = _plain(inner[-1]) if inner[-1].type == "for_statement" else None
    body = _only(columns.body, "expression_statement") if columns is not None else None
    store = _store(body) if body is not None else None
    if columns is None or store is None:
        return None
    array, index, accumulate = store
    pair = _factors(accumulate, node_text(array), index)
    if pair is None:
        return None
    return _Nest(rows, depth, columns, hoisted, node_text(array), index, pair)


def _rectangle(nest: _Nest, zero_loop: CountedLoop | None) -> bool:
    """The loops' bounds are fixed, the output row stride is the column count, and the
    zeroing (if any) covers the ``M*N`` outputs exactly."""
    loop_vars = {nest.rows.var, nest.depth.var, nest.columns.var}
    bounds = [nest.rows.upper, nest.depth.upper, nest.columns.upper]
    if zero_loop is not None:
        bounds.append(zero_loop.upper)
    form = affine(nest.index, nest.rows.var)
    covered = sorted(canon(f) for f in [*factors(nest.rows.upper), *factors(nest.columns.upper)])
    return (
        not any(mentions(b, loop_vars) for b in bounds)
        and form is not None
        and form.sign > 0
        and form.stride == stride_key(nest.columns.upper)
        and [(s, canon(n)) for s, n in form.rest] == [(1, nest.columns.var)]
        and (
            zero_loop is None
            or stride_key(zero_loop.upper) == " * ".join(c for c in covered if c != "1")
        )
    )


def _terms(nest: _Nest) -> list[str] | None:
    """The two factors as text, the hoisted one spelled out; None when one reads the output
    or the hoisted declaration is more than a factor's name."""
    hoisted, terms = nest.hoisted, []
    for factor in nest.factors:
        text = node_text(factor)
        if hoisted is not None and canon(factor) == hoisted[0]:
            if mentions(hoisted[1], {nest.columns.var, nest.output}):
                return None
            text, hoisted = node_text(hoisted[1]), None
        elif hoisted is not None and mentions(factor, hoisted[0]):
            return None
        if mentions(factor, nest.output):
            return None
        terms.append(f"({text})")
    return terms if hoisted is None else None


def product_as_dot(code: str, task: Task) -> str | None:
    """``code`` with the entry's i-k-j product (zeroed first, or added to the output) as an
    i-j-k one (see the module), or None where the entry is not exactly that (or a loop was
    selected by line)."""
    if task.loop is not None:
        return None
    root = parse(code).root_node
    found = [d for d in function_definitions(root) if function_name(d) == task.entry]
    body = found[0].child_by_field_name("body") if len(found) == 1 else None
    statements = body_statements(body) if body is not None else []
    loops = [i for i, s in enumerate(statements) if s.type == "for_statement"]
    if len(loops) not in (1, 2) or loops[-1] != loops[0] + len(loops) - 1:
        return None
    zeroing = _zeroing(statements[loops[0]]) if len(loops) == 2 else None
    nest = _nest(statements[loops[-1]])
    if nest is None or (len(loops) == 2 and (zeroing is None or nest.output != zeroing[0])):
        return None
    element = _element(found[0], nest.output)
    terms = _terms(nest)
    zero_loop = zeroing[1] if zeroing is not None else None
    if element not in _FLOATS or terms is None or not _rectangle(nest, zero_loop):
        return None
    acc = NameAllocator(root).fresh("acc")
    output = f"{nest.output}[{node_text(nest.index)}]"
    rows, columns, depth = nest.rows, nest.columns, nest.depth
    dot = "\n".join(
        [
            f"for ({rows.var_type} {rows.var} = 0; {rows.condition()}; ++{rows.var}) {{",
            f"  for ({columns.var_type} {columns.var} = 0; {columns.condition()}; "
            f"++{columns.var}) {{",
            f"    {element} {acc} = 0;",
            f"    for ({depth.var_type} {depth.var} = 0; {depth.condition()}; ++{depth.var}) {{",
            f"      {acc} += {terms[0]} * {terms[1]};",
            "    }",
            f"    {output} = {acc};" if zeroing is not None else f"    {output} += {acc};",
            "  }",
            "}",
        ]
    )
    if zeroing is None:
        return apply_edits(code.encode("utf-8"), [Edit.replace(rows.node, dot)])
    edits = [Edit.replace(zeroing[1].node, dot), Edit.replace(rows.node, "")]
    return apply_edits(code.encode("utf-8"), edits)
