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

from dataclasses import dataclass

from regrapht_core.cxx.affine import array_at, mentions
from regrapht_core.cxx.entry import EntryFunction
from regrapht_core.cxx.parse import Node, node_text
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.syntax import NameAllocator, declared_name, strip_parens
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


class LibraryScan(RefusingRewriter):
    technique = "library_call"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        block = block_size(params)
        split = split_entry_function(code, context.task)
        entry = split.entry
        total = _running_total(entry)
        var = entry.loop.var
        term = node_text(total.term)
        element = next(p.element for p in entry.params if p.name == total.out)
        value = f"static_cast<{element}>({term})"
        start = f"static_cast<{element}>({total.init})"
        if total.init not in _ZERO and not total.exclusive:
            value = f"({var} == 0 ? {start} + {value} : {value})"
        found = split.terms_map(f"{total.out}[{var}] = {value};")
        kind = "exclusive" if total.exclusive else "inclusive"
        function = f"{kind.capitalize()}Sum"
        if total.exclusive and total.init not in _ZERO:
            function = "ExclusiveScan"

        def scan(buffers: list[DeviceBuffer], host: HostNames, names: NameAllocator) -> list[str]:
            device = next(b.device for b in buffers if b.param.name == total.out)
            temp, size = names.fresh("scan_temp"), names.fresh("scan_bytes")
            operands = [temp, size, device, device, host.count]
            if function == "ExclusiveScan":
                operands[4:4] = [f"::cuda::std::plus<{element}>{{}}", start]
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
        plus = "#include <cuda/std/functional>\n" if function == "ExclusiveScan" else ""
        return [
            RewriteCandidate(
                "#include <cub/cub.cuh>\n" + plus + candidate,
                f"the running total `{total.acc}` is an {kind} prefix sum: a kernel writes "
                f"each term into `{total.out}` ({block} threads per block) and "
                f"cub::DeviceScan::{function} scans it in place",
            )
        ]


def _running_total(entry: EntryFunction) -> _Total:
    """The loop's ``acc += term; out[i] = acc;``, or why the loop is not that."""
    loop = entry.loop
    body = loop.body
    statements = [c for c in body.named_children if c.type != "comment"]
    if body.type != "compound_statement" or len(statements) != 2:
        raise Refusal("the loop is not a running total (`acc += term; out[i] = acc;`)")
    add, store = (_expression(s) for s in statements)
    if add is None or store is None:
        raise Refusal("the loop is not a running total (`acc += term; out[i] = acc;`)")
    exclusive = _operator(store) == "+=" and _operator(add) == "="
    if exclusive:
        add, store = store, add
    acc_node, out_node = add.child_by_field_name("left"), store.child_by_field_name("left")
    term, stored = add.child_by_field_name("right"), store.child_by_field_name("right")
    if (
        _operator(add) != "+="
        or _operator(store) != "="
        or acc_node is None
        or acc_node.type != "identifier"
        or term is None
        or stored is None
        or node_text(strip_parens(stored)) != node_text(acc_node)
        or out_node is None
        or out_node.type != "subscript_expression"
    ):
        raise Refusal("the loop is not a running total (`acc += term; out[i] = acc;`)")
    acc = node_text(acc_node)
    out = array_at(out_node, loop.var)
    if out is None:
        where = node_text(out_node)
        raise Refusal(f"the running total is stored at {where}, not at the loop index")
    if not loop.starts_at_zero():
        raise Refusal("the running total's loop does not start at 0")
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
    return _Total(acc, init, term, out, exclusive)


def _expression(statement: Node) -> Node | None:
    if statement.type != "expression_statement" or not statement.named_children:
        return None
    expression = statement.named_children[0]
    return expression if expression.type == "assignment_expression" else None


def _operator(assignment: Node) -> str:
    operator = assignment.child_by_field_name("operator")
    return node_text(operator) if operator is not None else ""


def _initializer(entry: EntryFunction, acc: str) -> str:
    """The value the prelude's declaration gives ``acc``; any other write to it refuses."""
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
        if init is not None and statement.type != "declaration" and mentions(statement, acc):
            raise Refusal(f"the code changes the total `{acc}` before the loop")
    if init is None:
        raise Refusal(f"`{acc}` is not declared before the loop")
    return init
