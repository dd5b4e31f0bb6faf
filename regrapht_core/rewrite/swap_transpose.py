"""A square matrix transposed in place by swaps across the diagonal, as tile pairs on the GPU.

``for (i < n) for (j = i + 1; j < n) swap(a[i * n + j], a[j * n + i]);`` writes two elements
per iteration, one of them in another iteration's row, so the ownership proof refuses it. But
each off-diagonal element is swapped exactly once, with its mirror, and the loop leaves the
transpose: the order of the swaps does not matter. On the GPU a block takes a pair of mirror
tiles (32 x 32) at once, the tile at block ``(x, y)`` with ``x >= y`` and its mirror: it
reads both into shared memory along rows, then writes each back transposed into the other's
place along rows, so reads and writes coalesce; a diagonal tile is its own mirror. Blocks
below the diagonal have nothing to do. The extra column of each shared tile keeps the
transposed reads free of bank conflicts.

Recognized: an outer loop from 0 to ``n`` around one inner loop over the upper triangle
(``j`` from ``i + 1`` or ``i`` to ``n``) or the lower one (``j`` from 0 to ``i``, or through
it), whose body swaps ``a[i * n + j]`` and ``a[j * n + i]`` with a temporary or
``std::swap``; ``a`` an array parameter.
"""

from __future__ import annotations

from dataclasses import dataclass

from regrapht_core.cxx.affine import affine, stride_key
from regrapht_core.cxx.loops import CountedLoop, counted_loop
from regrapht_core.cxx.parse import Node, node_text
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.syntax import (
    NameAllocator,
    assignment_of,
    body_statements,
    canon,
    declared_name,
    strip_parens,
    subscript_of,
)
from regrapht_core.rewrite.hostcode import HostNames, gpu_block
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)
from regrapht_core.rewrite.sequential import SequentialLoop, SplitEntry, split_entry_function

__all__ = ["InPlaceTranspose"]

_SHAPE = (
    "the loop is not an in-place transpose (`for (j = i + 1; j < n; ++j) "
    "swap(a[i * n + j], a[j * n + i]);`)"
)
_TILE, _ROWS = 32, 8


@dataclass(frozen=True, slots=True)
class _Swap:
    array: str
    size: str
    """The matrix's order ``n``, as written."""
    element: str


class InPlaceTranspose(RefusingRewriter):
    technique = "shared_memory_tiling"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        split = split_entry_function(code, context.task)
        swap = _swap(split)
        outer = split.entry.loop
        inner = _inner(outer)
        order = swap.size if swap.size.isidentifier() else f"({swap.size})"
        row = f"{outer.var} * {order} + {inner.var}"
        found = split.with_body(
            f"for ({inner.var_type or 'int'} {inner.var} = 0; {inner.var} < {swap.size}; "
            f"++{inner.var}) {swap.array}[{row}] = {swap.array}[{row}];"
        )
        if found.facts.written != {swap.array} or found.facts.reductions:
            raise Refusal(_SHAPE)
        return [
            RewriteCandidate(
                _candidate(found, swap),
                f"transposed `{swap.array}` in place by pairs of mirror {_TILE}x{_TILE} tiles: "
                "a block reads both through padded shared memory and writes each transposed "
                f"into the other's place, reads and writes along rows ({_TILE}x{_ROWS} threads)",
            )
        ]


def _inner(outer: CountedLoop) -> CountedLoop:
    statements = body_statements(outer.body)
    if len(statements) != 1 or statements[0].type != "for_statement":
        raise Refusal(_SHAPE)
    return counted_loop(statements[0])


def _swap(split: SplitEntry) -> _Swap:
    """The swapped array, the matrix order and the element type, else the refusal."""
    outer = split.entry.loop
    inner = _inner(outer)
    size = strip_parens(outer.upper)
    if not outer.starts_at_zero() or outer.inclusive or outer.shifted:
        raise Refusal(_SHAPE)
    if not _triangle(outer, inner, size):
        raise Refusal(
            f"the loop over `{inner.var}` does not sweep one triangle of the matrix "
            f"(`{inner.var} = {outer.var} + 1` to `{node_text(size)}`, or 0 to `{outer.var}`)"
        )
    pair = _swapped(body_statements(inner.body))
    if pair is None:
        raise Refusal(_SHAPE)
    (array, first), (other, second) = pair
    if array != other:
        raise Refusal(_SHAPE)
    mirrored = {_index_key(first, outer, inner, size), _index_key(second, outer, inner, size)}
    if mirrored != {"row", "column"}:
        raise Refusal(f"the swap does not exchange `{array}[i * n + j]` with its mirror")
    param = split.entry.param(array)
    if param is None or not param.pointer:
        raise Refusal(f"`{array}` is not an array parameter")
    return _Swap(array, node_text(size), param.element)


def _triangle(outer: CountedLoop, inner: CountedLoop, size: Node) -> bool:
    lower, var = canon(inner.lower), outer.var
    if inner.shifted:
        return False
    if canon(inner.upper) == canon(size) and not inner.inclusive:
        return lower in (var, f"{var} + 1", f"1 + {var}")
    return inner.starts_at_zero() and canon(inner.upper) == var


def _index_key(index: Node, outer: CountedLoop, inner: CountedLoop, size: Node) -> str | None:
    """``"row"`` for ``i * n + j``, ``"column"`` for ``j * n + i``, else ``None``."""
    for key, by, then in (("row", outer, inner), ("column", inner, outer)):
        form = affine(index, by.var)
        if (
            form is not None
            and form.sign > 0
            and form.stride == stride_key(size)
            and [(s, canon(n)) for s, n in form.rest] == [(1, then.var)]
        ):
            return key
    return None


def _swapped(statements: list[Node]) -> tuple[tuple[str, Node], tuple[str, Node]] | None:
    """The two subscripts (array, index) a body swaps: ``std::swap(x, y);`` or ``T t = x;
    x = y; y = t;``."""
    if len(statements) == 1 and statements[0].type == "expression_statement":
        call = statements[0].named_children[0] if statements[0].named_child_count else None
        function = call.child_by_field_name("function") if call is not None else None
        arguments = call.child_by_field_name("arguments") if call is not None else None
        if function is None or arguments is None or arguments.named_child_count != 2:
            return None
        if node_text(function) not in ("std::swap", "swap"):
            return None
        x, y = (subscript_of(a) for a in arguments.named_children)
        return (x, y) if x is not None and y is not None else None
    if len(statements) != 3 or statements[0].type != "declaration":
        return None
    declarators = statements[0].children_by_field_name("declarator")
    if len(declarators) != 1 or declarators[0].type != "init_declarator":
        return None
    temporary, value = declared_name(declarators[0]), declarators[0].child_by_field_name("value")
    if temporary is None or value is None:
        return None
    x = subscript_of(value)
    to_x, to_y = (assignment_of(s) for s in statements[1:])
    if x is None or to_x is None or to_y is None:
        return None
    (x_target, y_source), (y_target, t_source) = to_x, to_y
    if canon(x_target) != canon(value) or canon(t_source) != node_text(temporary):
        return None
    y = subscript_of(y_source)
    if y is None or canon(y_target) != canon(y_source):
        return None
    return x, y


def _kernel(name: str, parameters: str, swap: _Swap, names: NameAllocator) -> str:
    a, t = swap.array, swap.element
    tile, mirror, k = names.fresh("tile"), names.fresh("mirror"), names.fresh("k")
    across, down, order = names.fresh("across"), names.fresh("down"), names.fresh("order")
    diagonal = names.fresh("diagonal")
    here = f"{down} + {k} < {order} && {across} + threadIdx.x < {order}"
    there = f"!{diagonal} && {across} + {k} < {order} && {down} + threadIdx.x < {order}"
    at_here = f"{a}[({down} + {k}) * {order} + {across} + threadIdx.x]"
    at_there = f"{a}[({across} + {k}) * {order} + {down} + threadIdx.x]"
    return f"""__global__ void {name}({parameters}) {{
  __shared__ {t} {tile}[{_TILE}][{_TILE + 1}];
  __shared__ {t} {mirror}[{_TILE}][{_TILE + 1}];
  if (blockIdx.x < blockIdx.y) return;
  const long long {across} = static_cast<long long>(blockIdx.x) * {_TILE};
  const long long {down} = static_cast<long long>(blockIdx.y) * {_TILE};
  const bool {diagonal} = blockIdx.x == blockIdx.y;
  const long long {order} = {swap.size};
  for (int {k} = threadIdx.y; {k} < {_TILE}; {k} += {_ROWS}) {{
    if ({here}) {tile}[{k}][threadIdx.x] = {at_here};
    if ({there}) {mirror}[{k}][threadIdx.x] = {at_there};
  }}
  __syncthreads();
  for (int {k} = threadIdx.y; {k} < {_TILE}; {k} += {_ROWS}) {{
    if ({here}) {at_here} = {diagonal} ? {tile}[threadIdx.x][{k}] : {mirror}[threadIdx.x][{k}];
    if ({there}) {at_there} = {tile}[threadIdx.x][{k}];
  }}
}}
"""


def _candidate(found: SequentialLoop, swap: _Swap) -> str:
    allocator = NameAllocator(found.root)
    buffers, interface = found.interface(allocator)
    name = allocator.fresh(f"{found.task.entry}_transpose_tiles")
    host = HostNames.allocate(allocator)
    tiles = allocator.fresh("tiles")
    launch = [
        f"const dim3 {host.block}({_TILE}, {_ROWS});",
        f"const unsigned int {tiles} = static_cast<unsigned int>(({host.count} + {_TILE - 1}) "
        f"/ {_TILE});",
        f"const dim3 {host.grid}({tiles}, {tiles});",
        f"{name}<<<{host.grid}, {host.block}>>>({', '.join(interface.arguments)});",
        f"{host.err} = cudaGetLastError();",
    ]
    lines = gpu_block(found.entry.loop.trip_count(), buffers, launch, host)
    kernel = _kernel(name, ", ".join(interface.parameters), swap, allocator)
    return found.candidate(kernel, lines)
