"""Parallelization: one thread per iteration of the entry's independent loop.

The first step of every sequential-to-CUDA trajectory, and the one small models fail at
most. The loop must pass :func:`~regrapht_core.cxx.dependence.analyse_loop` with no
reduction (those go to :mod:`regrapht_core.rewrite.reduction`). The kernel gets the loop
body verbatim under a bounds guard; the wrapper keeps the entry's signature and moves data.
A perfectly nested pair of independent loops is also offered as a 2-D launch (x over the
inner loop, for coalescing; y strided so any row count fits the grid limit). When the task
selects one of several top-level loops, that loop alone is mapped, like an only loop (a
reduction by the reduction rewriter, which the registry asks next), and the others stay on
the host; with none selected, :mod:`regrapht_core.rewrite.loop_by_loop` maps them in turn.

Parameters: ``block_size`` (1-D threads per block, default 256).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from regrapht_core.contracts.task import LoopSelection
from regrapht_core.cxx.affine import affine
from regrapht_core.cxx.dependence import LoopFacts
from regrapht_core.cxx.loops import CountedLoop, counted_loop
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit
from regrapht_core.cxx.syntax import NameAllocator, canon
from regrapht_core.rewrite.assemble import (
    body_lines,
    loop_var_type,
    thread_index,
)
from regrapht_core.rewrite.hostcode import DeviceBuffer, HostNames, gpu_block
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)
from regrapht_core.rewrite.sequential import (
    SequentialLoop,
    analysed_loop,
    as_map,
    split_entry,
)

__all__ = [
    "GRID_Y_MAX",
    "Launch1D",
    "Parallelize",
    "block_size",
    "candidate_1d",
    "kernel_1d",
    "launch_1d",
    "two_dimensional",
]

GRID_Y_MAX = 65535
"""The most blocks a grid may have along y (and z)."""


def _continues_to_returns(facts: LoopFacts) -> list[Edit]:
    """In a one-iteration-per-thread kernel, skipping the rest of the iteration is returning."""
    return [Edit.replace(node, "return;") for node in facts.outer_continues]


def _inner_of_perfect_nest(loop: CountedLoop) -> CountedLoop | None:
    body = loop.body
    if body.type == "compound_statement":
        statements = [c for c in body.named_children if c.type != "comment"]
        if len(statements) != 1:
            return None
        body = statements[0]
    if body.type != "for_statement":
        return None
    try:
        return counted_loop(body)
    except Refusal:
        return None


def two_dimensional(found: SequentialLoop) -> CountedLoop | None:
    """The inner loop when (i, j) iterations are independent too (each writes an element of
    its own), else ``None``."""
    outer, facts = found.entry.loop, found.facts
    inner = _inner_of_perfect_nest(outer)
    if inner is None or inner.var_type is None:
        return None
    outer_names = {p.name for p in found.entry.params} | set(found.entry.locals)
    outer_names |= set(facts.integers)  # constants, the same on the host and the device
    for bound in inner.bounds():
        for node in walk(bound):
            if node.type == "identifier" and node_text(node) not in outer_names:
                return None
            if node.type in ("subscript_expression", "call_expression"):
                return None
    if any(node.type == "break_statement" for node in walk(inner.body)):
        return None
    for array in facts.written:
        if inner.node.start_byte in facts.sub_rows.get(array, frozenset()):
            continue  # each (i, j) owns a sub-row of row i: a 3-D sweep's (z, y)
        keys = {
            _owner(access.index, outer, inner, facts.integers)
            for access in facts.accesses
            if access.array == array
        }
        if len(keys) != 1 or None in keys:
            return None
    return inner


def _owner(
    index: Node, outer: CountedLoop, inner: CountedLoop, integers: Mapping[str, int]
) -> str | None:
    """``"row"`` for ``S*i + j`` with ``j`` inside the row, ``"column"`` for ``S*j + i``
    with ``i`` inside the column, ``None`` when (i, j) may not own the element alone.
    ``integers``: named constants the bounds may use (``LoopFacts.integers``)."""
    for key, by, within in (("row", outer, inner), ("column", inner, outer)):
        form = affine(index, by.var)
        if (
            form is not None
            and form.sign > 0
            and within.inside(form.stride, integers)
            and [(s, canon(n)) for s, n in form.rest] == [(1, within.var)]
        ):
            return key
    return None


def kernel_1d(
    found: SequentialLoop, name: str, parameters: tuple[str, ...], body: str | None
) -> str:
    loop = found.entry.loop
    var_type = loop_var_type(found.entry)
    lower = None if loop.starts_at_zero() else loop.lower_text()
    edits = [*found.facts.edits, *_continues_to_returns(found.facts)]
    return "\n".join(
        [
            f"__global__ void {name}({', '.join(parameters)}) {{",
            f"  {var_type} {loop.var} = {thread_index(var_type, lower)};",
            f"  if ({loop.condition()}) {{",
            body_lines(loop.body, edits, "    ") if body is None else body,
            "  }",
            "}",
        ]
    )


def _kernel_2d(
    found: SequentialLoop, inner: CountedLoop, name: str, parameters: tuple[str, ...]
) -> str:
    outer = found.entry.loop
    outer_type, inner_type = loop_var_type(found.entry), inner.var_type or "int"
    inner_lower = None if inner.starts_at_zero() else inner.lower_text()
    outer_lower = None if outer.starts_at_zero() else outer.lower_text()
    edits = list(found.facts.edits)
    stride = f"static_cast<{outer_type}>(blockDim.y * gridDim.y)"
    return "\n".join(
        [
            f"__global__ void {name}({', '.join(parameters)}) {{",
            f"  const {inner_type} {inner.var} = {thread_index(inner_type, inner_lower)};",
            f"  if (!({inner.condition()})) return;",
            f"  for ({outer_type} {outer.var} = {thread_index(outer_type, outer_lower, 'y')}; "
            f"{outer.condition()}; {outer.var} += {stride}) {{",
            body_lines(inner.body, edits, "    "),
            "  }",
            "}",
        ]
    )


def candidate_1d(
    found: SequentialLoop,
    block: int = 256,
    *,
    body: str | None = None,
    after: Callable[[list[DeviceBuffer], HostNames, NameAllocator], list[str]] | None = None,
) -> str:
    """One thread per iteration; ``body`` replaces the loop body in the kernel when given;
    ``after`` gives the host lines that follow the launch (on the device buffers, before
    the results come back), chained on the launch's error status."""
    names = NameAllocator(found.root)
    buffers, interface = found.interface(names)
    kernel_name = names.fresh(f"{found.task.entry}_kernel")
    kernel = kernel_1d(found, kernel_name, interface.parameters, body)
    launch = Launch1D(kernel_name, interface.arguments, block, after)
    return launch_1d(found, names, buffers, kernel, launch)


@dataclass(frozen=True, slots=True)
class Launch1D:
    """A kernel launched with one thread per iteration of the entry's loop."""

    kernel: str
    arguments: Sequence[str]
    block: int = 256
    after: Callable[[list[DeviceBuffer], HostNames, NameAllocator], list[str]] | None = None
    """The host lines that follow the launch (see :func:`candidate_1d`)."""


def launch_1d(
    found: SequentialLoop,
    names: NameAllocator,
    buffers: list[DeviceBuffer],
    kernels: str,
    launch: Launch1D,
) -> str:
    """The entry with ``kernels`` before it and its loop replaced by ``launch`` over the
    device ``buffers``: allocation, copies, a grid of ``ceil(trip count / block)`` blocks."""
    host = HostNames.allocate(names)
    lines = [
        f"const int {host.block} = {launch.block};",
        f"const unsigned int {host.grid} = "
        f"static_cast<unsigned int>(({host.count} + {host.block} - 1) / {host.block});",
        f"{launch.kernel}<<<{host.grid}, {host.block}>>>({', '.join(launch.arguments)});",
        f"{host.err} = cudaGetLastError();",
        *(launch.after(buffers, host, names) if launch.after is not None else ()),
    ]
    return found.candidate(kernels, gpu_block(found.entry.loop.trip_count(), buffers, lines, host))


def _candidate_2d(found: SequentialLoop, inner: CountedLoop) -> str:
    names = NameAllocator(found.root)
    buffers, interface = found.interface(names)
    kernel_name = names.fresh(f"{found.task.entry}_kernel")
    host = HostNames.allocate(names)
    columns = names.fresh("columns")
    rows_blocks = f"({host.count} + 7) / 8"
    launch = [
        f"const dim3 {host.block}(32, 8);",
        f"const long long {columns} = {inner.trip_count()};",
        f"const dim3 {host.grid}(static_cast<unsigned int>(({columns} + 31) / 32), "
        f"static_cast<unsigned int>({rows_blocks} < {GRID_Y_MAX} ? {rows_blocks} : "
        f"{GRID_Y_MAX}));",
        f"if ({columns} > 0) {{",
        f"  {kernel_name}<<<{host.grid}, {host.block}>>>({', '.join(interface.arguments)});",
        "}",
        f"{host.err} = cudaGetLastError();",
    ]
    lines = gpu_block(found.entry.loop.trip_count(), buffers, launch, host)
    kernel = _kernel_2d(found, inner, kernel_name, interface.parameters)
    return found.candidate(kernel, lines)


def block_size(params: RewriteParams | None) -> int:
    """The ``block_size`` knob of the one-thread-per-iteration rewriters (default 256)."""
    block = int((params or {}).get("block_size", 256))
    if not 32 <= block <= 1024:
        raise Refusal(f"block_size {block} is outside 32..1024")
    return block


class Parallelize(RefusingRewriter):
    technique = "parallelization"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        block = block_size(params)
        split, task = split_entry(code, context.task)
        found = as_map(analysed_loop(split, task))
        var = found.entry.loop.var
        alone = "" if task.loop is None else f" ({_only(task.loop)})"
        candidates = []
        inner = two_dimensional(found)
        if inner is not None:
            candidates.append(
                RewriteCandidate(
                    _candidate_2d(found, inner),
                    f"mapped the nested loops over `{var}` and `{inner.var}` onto a 2-D "
                    f"grid of 32x8 blocks, one thread per element{alone}",
                )
            )
        candidates.append(
            RewriteCandidate(
                candidate_1d(found, block),
                f"mapped each iteration of the loop over `{var}` to one CUDA thread "
                f"({block} threads per block, bounds-guarded){alone}",
            )
        )
        return candidates


def _only(selection: LoopSelection) -> str:
    return f"{selection.describe()} alone"
