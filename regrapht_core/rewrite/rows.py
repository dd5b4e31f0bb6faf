"""Segmented reductions: a block, or a warp, per row of the entry's loop.

Softmax, layer normalisation, a matrix-vector product, CSR SpMV and row norms share one
shape: the entry's loop runs over independent rows, and the body of each row is a sequence
of *phases* (counted loops over the row's elements, whose bounds may read data, as
``row_ptr[i] .. row_ptr[i + 1]`` do) and *row statements* between them (``float inv = 1.0f
/ sum;``, ``y[i] = acc;``). A phase may reduce into scalars the row declares (the sums,
minima and maxima the loop analysis recognises) and write elements it indexes by its own
variable. One thread per row (:mod:`.parallelize`) walks a whole row alone, and a grid of
a few thousand rows leaves most of the GPU idle; here the threads of a block (or of a warp)
share each row:

- each phase becomes a loop strided by the block (the warp): thread ``t`` takes the
  elements ``t``, ``t + 256``, ... of the row;
- each scalar a phase reduces starts at its identity in every thread (a sum at zero, the
  row's value before the phase added back afterwards; a min or max at the row's value,
  which is harmless to fold in twice); the warp then combines with ``__shfl_xor_sync``,
  after which every lane holds the warp's value, and a block combines its warps' values
  through shared memory, read back by every thread. Every thread then holds the row's
  scalars and runs the row statements itself;
- a row statement that writes memory runs on one thread (``if (threadIdx.x == 0)``);
- a barrier (``__syncthreads()``, ``__syncwarp()`` for a warp) separates two steps when one
  writes an array the other touches; a block's combine ends with ``__syncthreads()``, so
  after a phase that reduces none is needed.

Why it is safe: the row loop passes :func:`~regrapht_core.cxx.dependence.analyse_loop` as a
map, which proves that rows touch disjoint elements of every written array, and each phase
passes it as a loop of its own, with the row's scalars as its outer scalars: its iterations
write elements of their own, so any assignment of iterations to threads keeps the writes
disjoint, and every row scalar it writes is a recognised reduction. Sums are reassociated,
so float results agree with the sequential ones within the task's tolerance.

A row that reduces nothing but runs several loops, or statements between them (a copy into
a padded row, then the padding's zero fill), is shared the same way, without combines; a
row of one such loop is a perfect nest, which parallelization's 2-D launch maps.

Candidates, best guess first: a warp per row when a phase's bounds read data (sparse rows
are short: CSR SpMV averages 16 nonzeros a row, which would leave most of a block idle), a
block per row otherwise.

Parameters: ``block_size`` (a multiple of 32 in 32..1024, default 128): the block of the
block-per-row kernel; the warp-per-row kernel takes one row per warp of a block that size.
128 because fewer threads per row means fewer of the combines' barriers per element: on the
H100, softmax over 1,024-float rows took 0.0307 ms with 128 threads, 0.0325 ms with 256,
0.060 ms with 512 and 0.051 ms with a warp per row (benchmarks/results/
gpu-h100-rows-softmax-variants.json).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from regrapht_core.cxx.affine import affine
from regrapht_core.cxx.dependence import LoopFacts, Reduction, ReductionOp, analyse_loop
from regrapht_core.cxx.entry import Local, declared_locals
from regrapht_core.cxx.loop_scope import quote
from regrapht_core.cxx.loops import CountedLoop, counted_loop
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.reductions import complex_part
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, indent_block, render
from regrapht_core.cxx.symbols import FileSymbols, file_symbols
from regrapht_core.cxx.syntax import NameAllocator, operator_text, parse, strip_parens
from regrapht_core.rewrite.assemble import body_lines, loop_var_type
from regrapht_core.rewrite.hostcode import HostNames, capped_grid, gpu_block
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)
from regrapht_core.rewrite.reduction import combined
from regrapht_core.rewrite.sequential import SequentialLoop, analysed_loop, split_entry

__all__ = ["RowReduction"]

_GRID_X_MAX = 2147483647
"""The most blocks a grid may have along x."""

_LOOPS = frozenset({"for_statement", "for_range_loop", "while_statement", "do_statement"})
_DATA = frozenset({"subscript_expression", "pointer_expression", "call_expression"})
"""Expressions that make a loop bound depend on data (or on a call) rather than on sizes."""
_ATOMS = frozenset(
    {"identifier", "number_literal", "call_expression", "field_expression", "subscript_expression"}
)


@dataclass(frozen=True, slots=True)
class _Phase:
    """A loop over the row's elements, shared by the row's threads."""

    loop: CountedLoop
    reductions: tuple[Reduction, ...]
    reads: frozenset[str]
    writes: frozenset[str]


@dataclass(frozen=True, slots=True)
class _Statement:
    """A row statement: every thread runs it, or one when it writes memory."""

    node: Node
    reads: frozenset[str]
    writes: frozenset[str]


_Step = _Phase | _Statement


@dataclass(frozen=True, slots=True)
class _Shape:
    """Who shares a row: a block of ``block`` threads, or one warp of such a block."""

    per_warp: bool
    block: int

    @property
    def warps(self) -> int:
        return self.block // 32

    @property
    def barrier(self) -> str:
        return "__syncwarp();" if self.per_warp else "__syncthreads();"


def _arrays(facts: LoopFacts, node: Node) -> tuple[frozenset[str], frozenset[str]]:
    """The arrays the code of ``node`` reads, and those it writes."""
    inside = [a for a in facts.accesses if node.start_byte <= a.node.start_byte < node.end_byte]
    reads = frozenset(a.array for a in inside if a.read)
    return reads, frozenset(a.array for a in inside if a.write)


def _scalar_write(node: Node) -> bool:
    """An assignment or step of a variable (not of an element of an array)."""
    if node.type not in ("assignment_expression", "update_expression"):
        return False
    target = node.child_by_field_name(
        "left" if node.type == "assignment_expression" else "argument"
    )
    while target is not None:
        target = strip_parens(target)
        if target.type == "field_expression" and operator_text(target) == ".":
            target = target.child_by_field_name("argument")
            continue
        return target.type == "identifier"
    return False


def _reads_data(bound: Node) -> bool:
    return any(n.type in _DATA for n in walk(bound))


def _name(name: str) -> Node:
    """An identifier node spelling ``name``, for a loop bound read through a named value."""
    declaration = parse(f"long long {name};").root_node.named_children[0]
    declarator = declaration.child_by_field_name("declarator")
    assert declarator is not None
    return declarator


def _row_loop(node: Node) -> CountedLoop:
    """``node`` as a loop each thread of the row can run its share of."""
    try:
        loop = counted_loop(node)
    except Refusal as refusal:
        raise Refusal(f"in the row's inner loop {quote(node)}: {refusal.reason}") from None
    if loop.var_type is None:
        raise Refusal(
            f"the row's loop over `{loop.var}` does not declare its variable, which each "
            "thread needs a copy of"
        )
    if loop.shift is not None:
        raise Refusal(f"the row's loop over `{loop.var}` stops short of its bound by a name")
    return loop


def _phase(
    found: SequentialLoop, node: Node, scope: dict[str, Local], symbols: FileSymbols
) -> _Phase:
    """The loop ``node`` of the row body, analysed as a loop of its own whose outer scalars
    are the row variable, the entry's locals and the row's scalars declared so far.

    A bound that reads data (``row_ptr[i + 1]``) is read as a named value computed before
    the loop, which it is as long as the loop writes nothing the bound reads."""
    loop = _row_loop(node)
    names = NameAllocator(found.root)
    named: dict[str, Local] = {}

    def read_before(bound: Node, what: str) -> Node:
        if not _reads_data(bound):
            return bound
        value = names.fresh(f"row_{what}")
        named[value] = Local(value, "long long", True, True)
        return _name(value)

    inner = dataclasses.replace(
        loop, lower=read_before(loop.lower, "lower"), upper=read_before(loop.upper, "upper")
    )
    entry = dataclasses.replace(
        found.entry, prelude=(), loop=inner, postlude=(), locals={**scope, **named}
    )
    try:
        facts = analyse_loop(entry, symbols)
    except Refusal as refusal:
        raise Refusal(f"in the row's loop over `{loop.var}`: {refusal.reason}") from None
    if facts.guards:
        raise Refusal(
            f"the row's loop over `{loop.var}` owns its elements only when "
            f"{' and '.join(facts.guards)}, which the row cannot check before it starts"
        )
    changed = facts.written | {r.var for r in facts.reductions}
    for bound in loop.bounds():
        touched = next(
            (n for n in walk(bound) if n.type == "identifier" and node_text(n) in changed), None
        )
        if touched is not None:
            raise Refusal(
                f"the bound {quote(bound)} of the row's loop over `{loop.var}` reads "
                f"`{node_text(touched)}`, which the loop changes"
            )
    for r in facts.reductions:
        if complex_part(r.type):
            raise Refusal(f"`{r.var}` is a {r.type}; rows reduce scalars only")
        if r.op is ReductionOp.PRODUCT:
            raise Refusal(f"`{r.var}` is a product; rows reduce sums, min and max")
    reads, writes = _arrays(found.facts, node)
    return _Phase(loop, tuple(facts.reductions), reads, writes)


def _row_steps(found: SequentialLoop) -> list[_Step]:
    """The row body as phases and row statements, or why its threads cannot share it."""
    row, facts = found.entry.loop, found.facts
    if facts.reductions:
        first = facts.reductions[0]
        raise Refusal(
            f"the loop accumulates into `{first.var}` across rows (a {first.op} reduction); "
            "the reduction rewriter handles it"
        )
    if facts.outer_continues:
        raise Refusal(
            f"the row ends early with {quote(facts.outer_continues[0])}; every thread of a "
            "row must reach the row's barriers"
        )
    body = row.body
    statements = (
        [c for c in body.named_children if c.type != "comment"]
        if body.type == "compound_statement"
        else [body]
    )
    symbols = file_symbols(found.root)
    scope = {**found.entry.locals, row.var: Local(row.var, loop_var_type(found.entry), True, True)}
    steps: list[_Step] = []
    for statement in statements:
        if statement.type == "for_statement":
            steps.append(_phase(found, statement, scope, symbols))
            continue
        nested = next((n for n in walk(statement) if n.type in _LOOPS), None)
        if nested is not None:
            raise Refusal(
                f"the row runs {quote(nested)} inside another statement; only the loops at "
                "the top of the row's body are shared among its threads"
            )
        declared = declared_locals((statement,))
        array = next((local for local in declared.values() if not local.scalar), None)
        if array is not None:
            raise Refusal(
                f"the row declares `{array.name}` ({array.type}), which is not a scalar: "
                "each of the row's threads would hold a copy of its own"
            )
        scope.update(declared)
        reads, writes = _arrays(facts, statement)
        if writes and (declared or any(_scalar_write(n) for n in walk(statement))):
            raise Refusal(
                f"{quote(statement)} writes `{sorted(writes)[0]}` and a scalar of the row: "
                "one thread stores for the row, but every thread needs the row's scalars"
            )
        steps.append(_Statement(statement, reads, writes))
    phases = [s for s in steps if isinstance(s, _Phase)]
    if not phases:
        raise Refusal("the loop has no inner loop over its row; parallelization maps it")
    if len(steps) == 1 and not phases[0].reductions:
        raise Refusal(
            "the row is one inner loop that reduces nothing, a perfect nest: "
            "parallelization maps it with a thread per element"
        )
    _refuse_strided(found, phases)
    if all(_fixed(p.loop, symbols) for p in phases):
        loop = phases[0].loop
        raise Refusal(
            f"the row's loops have fixed trip counts (`{loop.condition()}`): rows that short "
            "keep more threads busy at one thread per row (parallelization)"
        )
    return steps


def _refuse_strided(found: SequentialLoop, phases: list[_Phase]) -> None:
    """Refuses an access that strides along the row but is contiguous across rows (a
    transposed matrix-vector product): one thread per row coalesces it, a shared row not."""
    row = found.entry.loop
    for phase in phases:
        node = phase.loop.node
        for access in found.facts.accesses:
            if not node.start_byte <= access.node.start_byte < node.end_byte:
                continue
            along = affine(access.index, phase.loop.var)
            across = affine(access.index, row.var)
            if along is not None and along.stride and across is not None and not across.stride:
                raise Refusal(
                    f"{quote(access.node)} steps by `{along.stride}` along the row but by one "
                    "from row to row: one thread per row (parallelization) reads it coalesced"
                )


def _fixed(loop: CountedLoop, symbols: FileSymbols) -> bool:
    """Both bounds are compile-time values (literals, macros, constants)."""
    for bound in loop.bounds():
        if _reads_data(bound):
            return False
        for node in walk(bound):
            if node.type == "identifier" and not symbols.plain_name(node_text(node)):
                return False
    return True


class _Names:
    def __init__(self, allocator: NameAllocator, steps: list[_Step], entry: str) -> None:
        self.allocator = allocator
        self.kernel = allocator.fresh(f"{entry}_rows")
        self.host = HostNames.allocate(allocator)
        self.lane, self.warp = allocator.fresh("lane"), allocator.fresh("warp")
        self.offset, self.other, self.peer = (allocator.fresh(n) for n in ("offset", "other", "w"))
        self.wanted = allocator.fresh("wanted")
        reduced = {r.var: r for s in steps if isinstance(s, _Phase) for r in s.reductions}
        self.reduced = list(reduced.values())
        self.shared = {var: allocator.fresh(f"{var}_warps") for var in reduced}


def _operand(node: Node, edits: list[Edit]) -> str:
    """A bound's text (edited for the device), safe next to ``+`` or a comparison."""
    node = strip_parens(node)
    text = render(node, edits)
    return text if node.type in _ATOMS else f"({text})"


def _combine(
    reductions: tuple[Reduction, ...], shape: _Shape, names: _Names, indent: str
) -> list[str]:
    """Every thread of the row ends with the row's value of each reduced scalar."""
    offset, other = names.offset, names.other
    lines = [f"{indent}for (int {offset} = 16; {offset} > 0; {offset} >>= 1) {{"]
    for r in reductions:
        shuffled = f"__shfl_xor_sync(0xffffffffu, {r.var}, {offset})"
        lines.append(
            f"{indent}  {{ const {r.type} {other} = {shuffled}; {combined(r.var, r.op, other)} }}"
        )
    lines.append(f"{indent}}}")
    if shape.per_warp:
        return lines
    peer = names.peer
    lines.append(f"{indent}if ({names.lane} == 0u) {{")
    lines += [f"{indent}  {names.shared[r.var]}[{names.warp}] = {r.var};" for r in reductions]
    lines += [f"{indent}}}", f"{indent}__syncthreads();"]
    lines += [f"{indent}{r.var} = {names.shared[r.var]}[0];" for r in reductions]
    lines.append(f"{indent}for (int {peer} = 1; {peer} < {shape.warps}; ++{peer}) {{")
    lines += [
        f"{indent}  {combined(r.var, r.op, f'{names.shared[r.var]}[{peer}]')}" for r in reductions
    ]
    return [*lines, f"{indent}}}", f"{indent}__syncthreads();"]


def _phase_lines(
    phase: _Phase, shape: _Shape, names: _Names, edits: list[Edit], indent: str
) -> list[str]:
    loop, var_type = phase.loop, phase.loop.var_type or "int"
    first = f"static_cast<{var_type}>({names.lane if shape.per_warp else 'threadIdx.x'})"
    if not loop.starts_at_zero():
        first = f"{_operand(loop.lower, edits)} + {first}"
    stride = "32" if shape.per_warp else f"static_cast<{var_type}>(blockDim.x)"
    condition = loop.condition(operand=lambda node: _operand(node, edits))
    lines, before = [], {}
    for r in phase.reductions:
        if r.op is ReductionOp.SUM:
            before[r.var] = names.allocator.fresh(f"{r.var}_before")
            lines += [f"{indent}const {r.type} {before[r.var]} = {r.var};", f"{indent}{r.var} = 0;"]
    lines += [
        f"{indent}for ({var_type} {loop.var} = {first}; {condition}; {loop.var} += {stride}) {{",
        body_lines(loop.body, edits, indent + "  "),
        f"{indent}}}",
    ]
    if phase.reductions:
        lines += _combine(phase.reductions, shape, names, indent)
    return lines + [f"{indent}{var} = {start} + {var};" for var, start in before.items()]


def _row_lines(
    steps: list[_Step], shape: _Shape, names: _Names, edits: list[Edit], indent: str
) -> list[str]:
    """The row's steps for the threads sharing it, with the barriers they need."""
    leader = f"{names.lane} == 0u" if shape.per_warp else "threadIdx.x == 0u"
    lines: list[str] = []
    reads: set[str] = set()
    writes: set[str] = set()
    for step in steps:
        if step.writes & (reads | writes) or step.reads & writes:
            lines.append(f"{indent}{shape.barrier}")
            reads, writes = set(), set()
        if isinstance(step, _Phase):
            lines += _phase_lines(step, shape, names, edits, indent)
        elif step.writes:
            text = indent_block(render(step.node, edits), step.node.start_point[1], indent + "  ")
            lines += [f"{indent}if ({leader}) {{", text, f"{indent}}}"]
        else:
            lines.append(indent_block(render(step.node, edits), step.node.start_point[1], indent))
        reads |= step.reads
        writes |= step.writes
        if isinstance(step, _Phase) and step.reductions and not shape.per_warp:
            reads, writes = set(), set()  # the block's combine ended with a barrier
    return lines


def _kernel(
    found: SequentialLoop, steps: list[_Step], shape: _Shape, names: _Names, parameters: list[str]
) -> str:
    row, var_type = found.entry.loop, loop_var_type(found.entry)
    if shape.per_warp:
        first = (
            f"static_cast<{var_type}>(blockIdx.x) * {shape.warps} + "
            f"static_cast<{var_type}>(threadIdx.x / 32u)"
        )
        stride = f"static_cast<{var_type}>(gridDim.x) * {shape.warps}"
    else:
        first, stride = (
            f"static_cast<{var_type}>(blockIdx.x)",
            f"static_cast<{var_type}>(gridDim.x)",
        )
    if not row.starts_at_zero():
        first = f"{row.lower_text()} + {first}"
    lines = [f"__global__ void {names.kernel}({', '.join(parameters)}) {{"]
    if not shape.per_warp:
        lines += [
            f"  __shared__ {r.type} {names.shared[r.var]}[{shape.warps}];" for r in names.reduced
        ]
    if shape.per_warp or names.reduced:
        lines.append(f"  const unsigned int {names.lane} = threadIdx.x % 32u;")
    if names.reduced and not shape.per_warp:
        lines.append(f"  const unsigned int {names.warp} = threadIdx.x / 32u;")
    lines += [
        f"  for ({var_type} {row.var} = {first}; {row.condition()}; {row.var} += {stride}) {{",
        *_row_lines(steps, shape, names, found.facts.edits, "    "),
        "  }",
        "}",
    ]
    return "\n".join(lines)


def _candidate(found: SequentialLoop, steps: list[_Step], shape: _Shape) -> str:
    allocator = NameAllocator(found.root)
    buffers, interface = found.interface(allocator)
    names = _Names(allocator, steps, found.task.entry)
    host = names.host
    rows = f"({host.count} + {shape.warps - 1}) / {shape.warps}" if shape.per_warp else host.count
    launch = [
        f"const int {host.block} = {shape.block};",
        *capped_grid(host.grid, names.wanted, rows, f"{_GRID_X_MAX}LL"),
        f"{names.kernel}<<<{host.grid}, {host.block}>>>({', '.join(interface.arguments)});",
        f"{host.err} = cudaGetLastError();",
    ]
    lines = gpu_block(found.entry.loop.trip_count(), buffers, launch, host)
    return found.candidate(_kernel(found, steps, shape, names, list(interface.parameters)), lines)


class RowReduction(RefusingRewriter):
    technique = "warp_shuffle_reduction"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        block = int(params.get("block_size", 128))
        if block % 32 or not 32 <= block <= 1024:
            raise Refusal(f"block_size {block} must be a multiple of 32 in 32..1024")
        found = analysed_loop(*split_entry(code, context.task))
        steps = _row_steps(found)
        phases = [s for s in steps if isinstance(s, _Phase)]
        what = ", ".join(
            dict.fromkeys(f"{r.op} of `{r.var}`" for p in phases for r in p.reductions)
        )
        combined = f", {what} combined with warp shuffles" if what else ""
        var = found.entry.loop.var
        by_block = RewriteCandidate(
            _candidate(found, steps, _Shape(False, block)),
            f"shared each row of the loop over `{var}` among a block of {block} threads: "
            f"block-strided inner loops{combined}{' and shared memory' if what else ''}, "
            "__syncthreads between dependent phases",
        )
        by_warp = RewriteCandidate(
            _candidate(found, steps, _Shape(True, block)),
            f"shared each row of the loop over `{var}` among one warp ({block // 32} rows per "
            f"block of {block}): warp-strided inner loops{combined}, __syncwarp between "
            "dependent phases",
        )
        sparse = any(_reads_data(b) for p in phases for b in p.loop.bounds())
        return [by_warp, by_block] if sparse else [by_block, by_warp]
