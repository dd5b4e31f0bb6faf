"""Running totals as a library scan: ``acc += term(i); out[i] = acc;`` becomes a kernel
that writes each term into ``out`` and CUB's ``DeviceScan::InclusiveSum`` over it; the
exclusive form, ``out[i] = acc; acc += term(i);`` (offsets from counts, a CSR row pointer),
``DeviceScan::ExclusiveSum`` (``ExclusiveScan`` from the start value when it is not zero).

Every element of a running total depends on the one before, so parallelization refuses the
loop. But the dependence is only through an addition, and a prefix sum is what CUB computes
at close to copy bandwidth: what a CUDA programmer would call instead of writing a scan.
Integer totals are exact in any order; floating-point ones differ by rounding, which the
verifier's tolerance judges. A start value other than zero is folded into the first term.

Recognized exactly: the loop from 0 whose body is the addition to a local the prelude
declares and initializes and the store of that local to ``out[i]`` of the same type, in
either order, with the local used nowhere else. The terms loop (``out[i] = term(i)``)
must pass the map analysis like any loop, so a term that reads ``out`` or calls unknown
code is refused there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from regrapht_core.cxx.affine import array_at, mentions
from regrapht_core.cxx.entry import EntryFunction
from regrapht_core.cxx.loop_scope import ReductionOp
from regrapht_core.cxx.parse import Node, node_text
from regrapht_core.cxx.reductions import compared_extreme, extreme_of
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.syntax import (
    NameAllocator,
    declared_name,
    operator_text,
    strip_parens,
)
from regrapht_core.rewrite.hostcode import DeviceBuffer, HostNames
from regrapht_core.rewrite.parallelize import block_size, candidate_1d
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)
from regrapht_core.rewrite.sequential import split_entry_function

__all__ = ["LibraryScan"]

_ZERO = frozenset({"0", "0L", "0LL", "0l", "0ll", "0u", "0U", "0.0", "0.0f", "0.f", "0.0F"})


@dataclass(frozen=True, slots=True)
class _Total:
    acc: str
    init: str
    term: Node
    out: str
    exclusive: bool
    """The total is stored before the term is added (``out[0]`` is the start value)."""
    op: ReductionOp
    combine: str = ""
    """For a maximum or minimum, the loop's update as an expression of ``a`` (the value so
    far) and ``b`` (the term): ``b > a ? b : a``, ``fmax(a, b)``."""


class LibraryScan(RefusingRewriter):
    technique = "library_call"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        block = block_size(params)
        split = split_entry_function(code, context.task)
        entry = split.entry
        total = _running_total(entry)
        loop = entry.loop
        var, lower = loop.var, ("0" if loop.starts_at_zero() else loop.lower_text())
        element = next(p.element for p in entry.params if p.name == total.out)
        start = f"static_cast<{element}>({total.init})"
        names = NameAllocator(split.root)
        functor = names.fresh(f"scan_{total.op}_op") if total.op is not ReductionOp.SUM else ""
        floating = element.replace("const", "").strip() in ("float", "double")
        if total.op is ReductionOp.PRODUCT and not floating:
            raise Refusal(f"`{total.acc}` is a running product of {element}: only float and double")
        first = f"{var} == {lower}"
        found = split.terms_map(
            _terms(total, element, var, first, floating=floating, local=names.fresh("term"))
        )
        kind = "exclusive" if total.exclusive else "inclusive"
        function, operator = f"{kind.capitalize()}Sum", ""
        if total.op is not ReductionOp.SUM:
            function, operator = "InclusiveScan", f"{functor}{{}}"
        elif total.exclusive and total.init not in _ZERO:
            function, operator = "ExclusiveScan", f"::cuda::std::plus<{element}>{{}}"

        def scan(buffers: list[DeviceBuffer], host: HostNames, names: NameAllocator) -> list[str]:
            device = next(b.device for b in buffers if b.param.name == total.out)
            if lower != "0":
                device = f"{device} + ({lower})"
            temp, size = names.fresh("scan_temp"), names.fresh("scan_bytes")
            operands = [temp, size, device, device, host.count]
            if operator:
                operands[4:4] = [operator, start] if function == "ExclusiveScan" else [operator]
            call = f"cub::DeviceScan::{function}({', '.join(operands)});"
            return [
                f"size_t {size} = 0;",
                f"void* {temp} = nullptr;",
                f"if ({host.err} == cudaSuccess) {host.err} = {call}",
                f"if ({host.err} == cudaSuccess) {host.err} = cudaMalloc(&{temp}, {size});",
                f"if ({host.err} == cudaSuccess) {host.err} = {call}",
                f"cudaFree({temp});",
            ]

        candidate = candidate_1d(found, block, after=scan)
        heads = ["#include <cub/device/device_scan.cuh>\n"]
        if total.op is not ReductionOp.SUM and floating:
            heads.append("#include <cmath>\n")
        if function == "ExclusiveScan":
            heads.append("#include <cuda/std/functional>\n")
        if functor:
            # The loop's own update, ``a`` the value so far and ``b`` the term, so ties and
            # NaNs go as the loop sends them.
            heads.append(
                f"struct {functor} {{\n  __host__ __device__ {element} operator()({element} a, "
                f"{element} b) const {{ return {total.combine}; }}\n}};\n"
            )
        what = _named(total.op)
        scanned = "sum" if total.op is ReductionOp.SUM else f"{total.op} scan"
        return [
            RewriteCandidate(
                "".join(heads) + candidate,
                f"the running {what} `{total.acc}` is an {kind} prefix {scanned}: a kernel "
                f"writes each term into `{total.out}` ({block} threads per block) and "
                f"cub::DeviceScan::{function} scans it in place",
            )
        ]


_SHAPE = "the loop is not a running total (`acc += term; out[i] = acc;`)"


def _named(op: ReductionOp) -> str:
    """What the running value is called: a total, a product, a maximum or minimum."""
    return {ReductionOp.SUM: "total", ReductionOp.PRODUCT: "product"}.get(op, f"{op}imum")


_OPERANDS = re.compile(r"\b[ab]\b")
"""``a`` and ``b`` in a maximum's or minimum's update (``_Total.combine``)."""


def _terms(total: _Total, element: str, var: str, first: str, *, floating: bool, local: str) -> str:
    """The terms loop's body: each term into ``out``, the start value folded into the
    first (added to a sum's; a maximum's or minimum's by the loop's own update); a NaN
    term of a floating-point maximum or minimum, which the loop never takes, as the
    operator's identity, so the scan's partial results can start anywhere."""
    value = f"static_cast<{element}>({node_text(total.term)})"
    start = f"static_cast<{element}>({total.init})"
    if total.op is ReductionOp.SUM:
        if total.init not in _ZERO and not total.exclusive:
            value = f"({first} ? {start} + {value} : {value})"
        return f"{total.out}[{var}] = {value};"
    lines = [f"const {element} {local} = {value};"]
    if floating and total.op is not ReductionOp.PRODUCT:  # a NaN factor: NaN on, either way
        identity = f"static_cast<{element}>({'-' if total.op is ReductionOp.MAX else ''}INFINITY)"
        lines = [f"{element} {local} = {value};", f"if ({local} != {local}) {local} = {identity};"]
    folded = _OPERANDS.sub(lambda m: start if m[0] == "a" else local, total.combine)
    lines.append(f"{total.out}[{var}] = {first} ? ({folded}) : {local};")
    return "{ " + " ".join(lines) + " }"


def _running_total(entry: EntryFunction) -> _Total:
    """The loop's ``acc += term; out[i] = acc;`` (or the store first, or a running maximum
    or minimum), or why the loop is not that."""
    loop = entry.loop
    body = loop.body
    statements = [c for c in body.named_children if c.type != "comment"]
    if body.type != "compound_statement" or len(statements) != 2:
        raise Refusal(_SHAPE)
    stores = [_store(s) for s in statements]
    if stores[1] is not None and stores[0] is None:
        update, (out_node, acc), exclusive = _update(statements[0]), stores[1], False
    elif stores[0] is not None:
        update, (out_node, acc), exclusive = _update(statements[1]), stores[0], True
    else:
        raise Refusal(_SHAPE)
    if update is None or update[1] != acc:
        raise Refusal(_SHAPE)
    op, _, term, combine = update
    if exclusive and op is not ReductionOp.SUM:
        raise Refusal(f"the running {_named(op)} is stored before it is updated: not built")
    out = array_at(out_node, loop.var)
    if out is None:
        where = node_text(out_node)
        raise Refusal(f"the running total is stored at {where}, not at the loop index")
    param = entry.param(out)
    local = entry.locals.get(acc)
    if param is None or param.pointers != 1:
        raise Refusal(f"`{out}` is not a pointer parameter")
    if local is None or not local.scalar:
        raise Refusal(f"`{acc}` is not a local the code declares before the loop")
    if " ".join(local.type.split()) != " ".join(param.element.replace("const", "").split()):
        raise Refusal(
            f"the total `{acc}` is {local.type} but `{out}` holds {param.element}: "
            "a scan of one type into another is not built"
        )
    init = _initializer(entry, acc)
    if any(mentions(s, acc) for s in entry.postlude):
        raise Refusal(f"the code uses the total `{acc}` after the loop")
    if mentions(term, acc) or mentions(term, out):
        raise Refusal(f"the term {node_text(term)} reads the total")
    return _Total(acc, init, term, out, exclusive, op, combine)


def _store(statement: Node) -> tuple[Node, str] | None:
    """``out[...] = acc;``: the element stored to and the variable stored."""
    expression = _expression(statement)
    if expression is None or _operator(expression) != "=":
        return None
    left, right = expression.child_by_field_name("left"), expression.child_by_field_name("right")
    if left is None or right is None or left.type != "subscript_expression":
        return None
    right = strip_parens(right)
    return (left, node_text(right)) if right.type == "identifier" else None


def _update(statement: Node) -> tuple[ReductionOp, str, Node, str] | None:
    """``acc += term``, ``acc = max(acc, term)`` or ``if (term > acc) acc = term;`` (and
    the minimum's forms): the operation, the variable and the term."""
    if statement.type == "if_statement":
        return _guarded_update(statement)
    expression = _expression(statement)
    if expression is None:
        return None
    left, right = expression.child_by_field_name("left"), expression.child_by_field_name("right")
    if left is None or right is None or left.type != "identifier":
        return None
    acc = node_text(left)
    if _operator(expression) == "+=":
        return ReductionOp.SUM, acc, right, ""
    if _operator(expression) == "*=":
        return ReductionOp.PRODUCT, acc, right, "a * b"
    right = strip_parens(right)
    function = right.child_by_field_name("function") if right.type == "call_expression" else None
    arguments = right.child_by_field_name("arguments")
    if _operator(expression) != "=" or function is None or arguments is None:
        return None
    called = "".join(node_text(function).split())
    op = extreme_of(called)
    args = [strip_parens(a) for a in arguments.named_children]
    terms = [a for a in args if node_text(a) != acc]
    if op is None or len(args) != 2 or len(terms) != 1:
        return None
    p, q = ("a", "b") if node_text(args[0]) == acc else ("b", "a")
    if called.removeprefix("std::") in ("max", "min") and p == "b":
        # A scan may start a partial result at any term: one that the update lets a NaN
        # term replace is not associative, and the loop's answer would be lost.
        raise Refusal(
            f"`{acc} = {node_text(right)}` passes the term first, so a NaN term replaces the "
            f"{op}imum so far; `{called}({acc}, term)` is scanned"
        )
    if called.removeprefix("std::") in ("max", "min"):
        # std::max(p, q) is (p < q) ? q : p; std::min(p, q) is (q < p) ? q : p.
        combine = (
            f"({p} < {q}) ? {q} : {p}" if op is ReductionOp.MAX else f"({q} < {p}) ? {q} : {p}"
        )
    else:
        combine = f"{called.removeprefix('std::')}({p}, {q})"
    return op, acc, terms[0], combine


def _guarded_update(statement: Node) -> tuple[ReductionOp, str, Node, str] | None:
    """``if (term > acc) acc = term;`` (no else; ``>=``, ``<`` and mirrored forms)."""
    condition = statement.child_by_field_name("condition")
    body = statement.child_by_field_name("consequence")
    if condition is None or body is None or statement.child_by_field_name("alternative"):
        return None
    if body.type == "compound_statement":
        inner = [c for c in body.named_children if c.type != "comment"]
        body = inner[0] if len(inner) == 1 else body
    expression = _expression(body)
    test = strip_parens(condition.named_children[0]) if condition.named_children else None
    if expression is None or test is None:
        return None
    target, value = expression.child_by_field_name("left"), expression.child_by_field_name("right")
    if target is None or value is None or _operator(expression) != "=":
        return None
    acc = node_text(target)
    kept = compared_extreme(test, acc, value)
    if kept is None:
        return None
    op, term_first = kept
    operator = operator_text(test)
    flipped = {">": "<", ">=": "<=", "<": ">", "<=": ">="}[operator]
    return op, acc, value, f"(a {flipped if term_first else operator} b) ? b : a"


def _expression(statement: Node) -> Node | None:
    if statement.type != "expression_statement" or not statement.named_children:
        return None
    expression = statement.named_children[0]
    return expression if expression.type == "assignment_expression" else None


def _operator(assignment: Node) -> str:
    operator = assignment.child_by_field_name("operator")
    return node_text(operator) if operator is not None else ""


def _initializer(entry: EntryFunction, acc: str) -> str:
    """The value the prelude's declaration gives ``acc``; any other use of it refuses, but
    a store of it (``out[0] = m;``, the running maximum's first element)."""
    init = None
    for statement in entry.prelude:
        for declarator in statement.children_by_field_name("declarator"):
            name = declared_name(declarator)
            if name is not None and node_text(name) == acc:
                value = declarator.child_by_field_name("value")
                if value is not None and value.type == "initializer_list":
                    value = value.named_children[0] if len(value.named_children) == 1 else None
                if declarator.type != "init_declarator" or value is None:
                    raise Refusal(f"the total `{acc}` starts without a single value")
                init = node_text(value)
            elif init is not None and mentions(declarator, acc):  # `T* p = &acc;`
                raise Refusal(f"the code changes the total `{acc}` before the loop")
        if init is not None and statement.type != "declaration" and mentions(statement, acc):
            stored = _store(statement)
            if stored is None or stored[1] != acc or mentions(stored[0], acc):
                raise Refusal(f"the code changes the total `{acc}` before the loop")
    if init is None:
        raise Refusal(f"`{acc}` is not declared before the loop")
    return init
