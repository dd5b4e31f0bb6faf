"""Shared-memory tiling with padding: a transpose-like nest staged through a 32x33 tile.

A nest that writes ``out`` contiguously along one loop variable and reads ``in``
contiguously along the other (``out[j * m + i] = in[i * n + j]``) cannot coalesce both
sides with one thread per element: whichever variable a warp's threads run along, the other
side strides by a whole row, and each of its 32 accesses costs a memory transaction of its
own. The classic fix stages a square tile in shared memory. A block loads it with its
threads running along the read's contiguous variable, waits at a barrier, and stores it
with its threads running along the write's, so both global sides move whole lines. The
tile's rows are one element longer than the tile is wide: a warp then reads a column of
the tile from 32 different banks instead of 32 times from one.

Recognised: the entry's loop is a perfect nest of two counted loops, in either order, whose
(i, j) iterations each write an element of their own (the proof of Parallelize's 2-D
mapping), with one assignment as the body. The write's index has unit stride in one loop
variable; every read either has unit stride in the other variable or does not depend on
it, and at least one read has. The assigned value is computed where the tile is loaded, in
the element type of the written array (the conversion the assignment makes), so the reads
are what the tile makes coalesced.
"""

from __future__ import annotations

from dataclasses import dataclass

from regrapht_core.cxx.affine import affine, mentions
from regrapht_core.cxx.definitions import is_integer_type
from regrapht_core.cxx.loop_scope import Access, quote
from regrapht_core.cxx.loops import CountedLoop
from regrapht_core.cxx.parse import Node
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import render
from regrapht_core.cxx.syntax import NameAllocator, operator_text
from regrapht_core.rewrite.assemble import loop_var_type
from regrapht_core.rewrite.hostcode import HostNames, gpu_block
from regrapht_core.rewrite.parallelize import GRID_Y_MAX, two_dimensional
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)
from regrapht_core.rewrite.sequential import SequentialLoop, analysed_loop, as_map, split_entry

__all__ = ["TILES", "TiledTranspose"]

TILES = (32, 64)
"""Tile widths, one candidate each. A block is ``tile`` x :data:`_ROWS` threads, so a warp
always spans 32 consecutive elements of a tile row."""
_ROWS = 8
_FLOATS = frozenset({"float", "double"})


@dataclass(frozen=True, slots=True)
class _Axis:
    """One loop of the nest, as the kernel walks it."""

    loop: CountedLoop
    type: str

    def at(self, offset: str) -> str:
        """The loop variable ``offset`` iterations after its first value."""
        return offset if self.loop.starts_at_zero() else f"{self.loop.lower_text()} + {offset}"


@dataclass(frozen=True, slots=True)
class _Nest:
    outer: CountedLoop
    inner: CountedLoop
    stored: _Axis
    """The loop the write has unit stride in: threads run along it when storing the tile."""
    loaded: _Axis
    """The loop some read has unit stride in: threads run along it when loading the tile."""
    target: Node
    value: Node
    element: str


class TiledTranspose(RefusingRewriter):
    technique = "shared_memory_tiling"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        split, task = split_entry(code, context.task)
        found = as_map(analysed_loop(split, task))
        nest = _nest(found)
        loaded, stored = nest.loaded.loop.var, nest.stored.loop.var
        return [
            RewriteCandidate(
                _candidate(found, nest, tile),
                f"shared-memory tiling with padding: each {tile}x{tile} tile of the nest over "
                f"`{nest.outer.var}` and `{nest.inner.var}` is read into "
                f"`__shared__ {nest.element} tile[{tile}][{tile + 1}]` with the threads along "
                f"`{loaded}` and written out of it along `{stored}`, so reads and writes both "
                f"coalesce; {tile}x{_ROWS} threads per block, {tile // _ROWS} elements each; "
                "the extra column keeps the transposed accesses free of bank conflicts",
            )
            for tile in TILES
        ]


def _nest(found: SequentialLoop) -> _Nest:
    """The nest's loops, the direction of each side, or why it is not a tiled transpose."""
    outer = found.entry.loop
    inner = two_dimensional(found)
    if inner is None or inner.var_type is None:
        raise Refusal(
            f"the loop over `{outer.var}` is not a perfect nest of two counted loops whose "
            "iterations each write an element of their own"
        )
    assignment = _assignment(inner.body)
    accesses = found.facts.accesses
    writes = [a for a in accesses if a.write]
    if len(writes) != 1:
        raise Refusal(f"{quote(assignment)} writes more than one element")
    write = writes[0]
    param = found.entry.param(write.array)
    if param is None or not param.pointer:
        raise Refusal(f"{quote(write.node)} is not an element of a pointer parameter")
    for access in accesses:
        if access.array == write.array and access.read:
            raise Refusal(
                f"the loop reads `{write.array}`, which it writes ({quote(access.node)}): "
                "a tile carries values, not updates"
            )
    axes = (_Axis(outer, loop_var_type(found.entry)), _Axis(inner, inner.var_type))
    contiguous = [a for a in axes if _unit_stride(write.index, a.loop.var)]
    if len(contiguous) != 1:
        raise Refusal(f"the write {quote(write.node)} is contiguous along neither loop variable")
    stored = contiguous[0]
    loaded = axes[0] if stored is axes[1] else axes[1]
    _check_reads([a for a in accesses if a.read], loaded.loop.var, stored.loop.var)
    element = " ".join(w for w in param.element.split() if w not in ("const", "volatile"))
    if element not in _FLOATS and not is_integer_type(element):
        raise Refusal(
            f"`{write.array}` holds `{element}`; the tile is built for arithmetic elements only"
        )
    target, value = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
    assert target is not None and value is not None  # an assignment has both sides
    return _Nest(outer, inner, stored, loaded, target, value, element)


def _assignment(body: Node) -> Node:
    """The body's only statement, a plain assignment."""
    statements = (
        [c for c in body.named_children if c.type != "comment"]
        if body.type == "compound_statement"
        else [body]
    )
    if len(statements) != 1:
        raise Refusal(
            f"the inner loop's body has {len(statements)} statements; tiling takes one "
            "assignment `out[...] = ...`"
        )
    statement = statements[0]
    expression = statement.named_children[0] if statement.named_child_count else None
    if (
        statement.type != "expression_statement"
        or expression is None
        or expression.type != "assignment_expression"
    ):
        raise Refusal(f"{quote(statement)} is not an assignment `out[...] = ...`")
    if operator_text(expression) != "=":
        raise Refusal(
            f"{quote(expression)} updates the element it writes; a tile carries values, not updates"
        )
    return expression


def _unit_stride(index: Node, var: str) -> bool:
    form = affine(index, var)
    return form is not None and form.stride == ""


def _check_reads(reads: list[Access], loaded: str, stored: str) -> None:
    """Every read coalesces when the tile is loaded along ``loaded``, and one needs it."""
    along = 0
    for read in reads:
        if read.node.type != "subscript_expression":
            raise Refusal(f"the loop uses `{read.array}` other than by an element")
        for var in (loaded, stored):
            if mentions(read.index, var) and affine(read.index, var) is None:
                raise Refusal(f"the index of {quote(read.node)} is not affine in `{var}`")
        if not mentions(read.index, loaded):
            continue  # one element for all threads of a warp: a broadcast
        if _unit_stride(read.index, loaded):
            along += 1
        elif _unit_stride(read.index, stored):
            raise Refusal(
                f"{quote(read.node)} is contiguous along `{stored}`, like the write: a tile "
                "would make its loads strided, and without it no tiling is needed"
            )
        else:
            raise Refusal(
                f"{quote(read.node)} is contiguous along neither loop variable; a tile "
                "cannot coalesce it"
            )
    if not along:
        raise Refusal(
            f"no read is contiguous along `{loaded}`, the loop the write strides over: "
            "the accesses already coalesce without a tile, so no tiling is needed"
        )


def _kernel(
    found: SequentialLoop,
    nest: _Nest,
    tile: int,
    names: NameAllocator,
    *,
    name: str,
    parameters: tuple[str, ...],
) -> str:
    """A block per tile column along ``loaded`` and a stride over tiles along ``stored``
    (the grid's y is capped); each pass loads a tile along ``loaded``, then stores it
    transposed along ``stored``, both guarded by the loops' own conditions."""
    shared, first, row = names.fresh("tile"), names.fresh("tile_start"), names.fresh("row")
    loaded, stored = nest.loaded, nest.stored
    load_var, store_var = loaded.loop.var, stored.loop.var
    edits = found.facts.edits
    value, target = render(nest.value, edits), render(nest.target, edits)
    origin = loaded.at(f"static_cast<{loaded.type}>(blockIdx.x) * {tile}")
    inside = f"{loaded.loop.condition()} && {stored.loop.condition()}"
    rows = f"for (int {row} = static_cast<int>(threadIdx.y); {row} < {tile}; {row} += {_ROWS})"
    return "\n".join(
        [
            f"__global__ void {name}({', '.join(parameters)}) {{",
            f"  __shared__ {nest.element} {shared}[{tile}][{tile + 1}];",
            f"  for ({stored.type} {first} = "
            f"{stored.at(f'static_cast<{stored.type}>(blockIdx.y) * {tile}')}; "
            f"{stored.loop.condition(first)}; "
            f"{first} += static_cast<{stored.type}>(gridDim.y) * {tile}) {{",
            "    {",
            f"      const {loaded.type} {load_var} = {origin} + "
            f"static_cast<{loaded.type}>(threadIdx.x);",
            f"      {rows} {{",
            f"        const {stored.type} {store_var} = {first} + {row};",
            f"        if ({inside}) {shared}[{row}][threadIdx.x] = {value};",
            "      }",
            "    }",
            "    __syncthreads();",
            "    {",
            f"      const {stored.type} {store_var} = {first} + "
            f"static_cast<{stored.type}>(threadIdx.x);",
            f"      {rows} {{",
            f"        const {loaded.type} {load_var} = {origin} + {row};",
            f"        if ({inside}) {target} = {shared}[threadIdx.x][{row}];",
            "      }",
            "    }",
            "    __syncthreads();",
            "  }",
            "}",
        ]
    )


def _candidate(found: SequentialLoop, nest: _Nest, tile: int) -> str:
    names = NameAllocator(found.root)
    buffers, interface = found.interface(names)
    kernel_name = names.fresh(f"{found.task.entry}_tiled_kernel")
    host = HostNames.allocate(names)
    across, tiles = names.fresh("across"), names.fresh("tiles")
    launch = [
        f"const dim3 {host.block}({tile}, {_ROWS});",
        f"const long long {across} = {nest.loaded.loop.trip_count()};",
        f"const long long {tiles} = ({nest.stored.loop.trip_count()} + {tile - 1}) / {tile};",
        f"const dim3 {host.grid}(static_cast<unsigned int>(({across} + {tile - 1}) / {tile}), "
        f"static_cast<unsigned int>({tiles} < {GRID_Y_MAX} ? {tiles} : {GRID_Y_MAX}));",
        f"if ({across} > 0 && {tiles} > 0) {{",
        f"  {kernel_name}<<<{host.grid}, {host.block}>>>({', '.join(interface.arguments)});",
        "}",
        f"{host.err} = cudaGetLastError();",
    ]
    lines = gpu_block(found.entry.loop.trip_count(), buffers, launch, host)
    kernel = _kernel(found, nest, tile, names, name=kernel_name, parameters=interface.parameters)
    return found.candidate(kernel, lines)
