"""A counting sort (count the keys, then write each key as often as it was counted) as a
histogram, a scan and a fill on the GPU.

``count[key(i)]++`` into a local array, then ``for (v < K) for (c < count[v]) out[at++] =
f(v);``: the first loop's updates collide and the second's ``at++`` carries from one
iteration to the next, so both loops stay on the host. But what they compute is simple:
``count`` is the keys' histogram, and ``out[p]`` is ``f(v)`` for the one ``v`` whose run
``[offset[v], offset[v] + count[v])`` holds ``p``, ``offset`` the histogram's exclusive
scan. So:

1. a histogram kernel counts each block's keys in shared memory, then adds its non-zero
   bins to the device histogram (one global atomic per bin and block);
2. a fill kernel scans the histogram in each block (``cub::BlockScan``, the bins in
   shared memory) and gives every output position a thread, which finds its ``v`` by
   binary search of the scan: every thread writes one element, however the keys fall.

The host then holds the histogram in ``count`` and the run's end in ``at``, as after the
loops. A key outside ``[0, K)`` indexes ``count`` out of bounds in the loop; the kernels
skip it.

Recognized: ``T count[K] = {0};`` (``T`` a 32-bit integer, ``K`` a literal or a named
constant up to 4096), ``T at = 0;``, the counting loop over ``i`` from 0 with its one
statement ``count[key]++;`` (or ``++count[key];``, ``count[key] += 1;``), and the writing
loops over ``v`` from 0 to ``K`` and ``c`` from 0 to ``count[v]`` around ``out[at++] =
f(v);``, ``f(v)`` reading nothing but ``v``.
"""

from __future__ import annotations

from dataclasses import dataclass

from regrapht_core.cxx.affine import int_literal, mentions
from regrapht_core.cxx.definitions import integer_values
from regrapht_core.cxx.entry import EntryFunction, entry_function
from regrapht_core.cxx.loops import CountedLoop, counted_loop
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits, render
from regrapht_core.cxx.syntax import (
    NameAllocator,
    assignment_of,
    body_statements,
    canon,
    declared_name,
    operator_text,
    parse,
    strip_parens,
    subscript_of,
)
from regrapht_core.rewrite.assemble import loop_var_type, thread_index
from regrapht_core.rewrite.hostcode import HostNames, capped_grid, gpu_block
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)
from regrapht_core.rewrite.sequential import SequentialLoop, analysed_loop, split_entry

__all__ = ["CountingSort"]

_SHAPE = (
    "the entry is not a counting sort (`count[key]++;` over the keys, then "
    "`for (v < K) for (c < count[v]) out[at++] = v;`)"
)
_COUNTERS = frozenset({"int", "unsigned", "unsigned int"})
_MOST_BINS = 4096
_FILL_BLOCK = 256


@dataclass(frozen=True, slots=True)
class _Sort:
    count: str
    bins: int
    at: str
    key: Node
    """The counted key, in the counting loop (over ``entry.loop``)."""
    out: str
    bin_var: str
    value: str
    """``f(v)``, what the writing loop stores, as written."""
    writing: Node
    """The writing loop, which the stand-in code drops."""


class CountingSort(RefusingRewriter):
    technique = "algorithmic_change"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        code, task = split_entry(code, context.task)
        root = parse(code).root_node
        entry = entry_function(root, task, 0)
        sort = _sort(entry, root)
        loop = entry.loop
        # The counting loop, as a map the analysis reads: it reads the keys and writes every
        # element of `out`, so the wrapper uploads one and downloads the other.
        stand_in = (
            f"for ({loop.var_type or 'int'} {loop.var} = {loop.lower_text()}; "
            f"{loop.condition()}; ++{loop.var}) {{\n    {sort.out}[{loop.var}] = "
            f"{node_text(sort.key)};\n  }}"
        )
        # The writing loops become the end of the run they leave in `at`; the histogram
        # comes back into `count` from the device.
        b = NameAllocator(root).fresh("b")
        ended = f"for (int {b} = 0; {b} < {sort.bins}; ++{b}) {sort.at} += {sort.count}[{b}];"
        edits = [Edit.replace(loop.node, stand_in), Edit.replace(sort.writing, ended)]
        found = analysed_loop(apply_edits(code.encode("utf-8"), edits), task, loop=0)
        if found.facts.written != {sort.out}:
            raise Refusal(_SHAPE)
        return [
            RewriteCandidate(
                _candidate(found, sort),
                f"counted `{sort.count}` with a shared-memory histogram kernel, then wrote "
                f"`{sort.out}` with one thread per element, each finding its bin by binary "
                f"search of the bins' exclusive scan (cub::BlockScan, {_FILL_BLOCK} threads)",
            )
        ]


def _sort(entry: EntryFunction, root: Node) -> _Sort:
    """The counting sort's parts, else the refusal."""
    loop = entry.loop
    if not loop.starts_at_zero():
        raise Refusal(_SHAPE)
    counted = body_statements(loop.body)
    target = _incremented(counted[0]) if len(counted) == 1 else None
    if target is None:
        raise Refusal(_SHAPE)
    count, key = target
    bins = _zeroed_array(entry, count, integer_values(root))
    if len(entry.postlude) < 2:
        raise Refusal(_SHAPE)
    at = _zeroed_scalar(entry.postlude[0])
    writing = entry.postlude[1]
    if at is None or writing.type != "for_statement":
        raise Refusal(_SHAPE)
    bin_loop = counted_loop(writing)
    inner = body_statements(bin_loop.body)
    if len(inner) != 1 or inner[0].type != "for_statement":
        raise Refusal(_SHAPE)
    run = counted_loop(inner[0])
    upper = strip_parens(run.upper)
    if (
        not bin_loop.starts_at_zero()
        or _bound(bin_loop, integer_values(root)) != bins
        or not run.starts_at_zero()
        or run.inclusive
        or run.shifted
        or canon(upper) != f"{count} [ {bin_loop.var} ]"
    ):
        raise Refusal(_SHAPE)
    out, value = _written(body_statements(run.body), at)
    if any(n.type == "identifier" and node_text(n) != bin_loop.var for n in walk(value)):
        raise Refusal(f"`{node_text(value)}` reads more than the bin `{bin_loop.var}`")
    if mentions(key, {count, at}):
        raise Refusal(_SHAPE)
    return _Sort(count, bins, at, key, out, bin_loop.var, node_text(value), writing)


def _incremented(statement: Node) -> tuple[str, Node] | None:
    """``(array, index)`` of ``array[index]++;``, ``++array[index];`` or ``+= 1``."""
    if statement.type != "expression_statement" or not statement.named_child_count:
        return None
    expression = statement.named_children[0]
    if expression.type == "update_expression" and operator_text(expression) == "++":
        target = expression.child_by_field_name("argument")
    elif expression.type == "assignment_expression" and operator_text(expression) == "+=":
        right = expression.child_by_field_name("right")
        target = expression.child_by_field_name("left") if right and canon(right) == "1" else None
    else:
        return None
    return subscript_of(target) if target is not None else None


def _zeroed_array(entry: EntryFunction, name: str, values: dict[str, int]) -> int:
    """The length of ``T name[K] = {0};`` (or ``{}``) in the prelude, else the refusal."""
    for statement in entry.prelude:
        if statement.type != "declaration":
            continue
        kind = statement.child_by_field_name("type")
        for declarator in statement.children_by_field_name("declarator"):
            named = declared_name(declarator)
            if named is None or node_text(named) != name:
                continue
            array = declarator.child_by_field_name("declarator")
            start = declarator.child_by_field_name("value")
            size = array.child_by_field_name("size") if array is not None else None
            zeroed = start is not None and canon(start) in ("{ 0 }", "{ }")
            length = None if size is None else _known(size, values)
            if kind is None or " ".join(node_text(kind).split()) not in _COUNTERS:
                raise Refusal(f"`{name}` does not count in 32-bit integers")
            if not zeroed or length is None or not 1 <= length <= _MOST_BINS:
                raise Refusal(f"`{name}` is not a zeroed array of up to {_MOST_BINS} bins")
            return length
    raise Refusal(f"`{name}` is not an array the function declares before the loop")


def _known(node: Node, values: dict[str, int]) -> int | None:
    node = strip_parens(node)
    if node.type == "identifier":
        return values.get(node_text(node))
    return int_literal(node_text(node))


def _bound(loop: CountedLoop, values: dict[str, int]) -> int | None:
    upper = _known(loop.upper, values)
    if upper is None or loop.shifted:
        return None
    return upper + 1 if loop.inclusive else upper


def _zeroed_scalar(statement: Node) -> str | None:
    """``x`` of ``int x = 0;``."""
    if statement.type != "declaration":
        return None
    declarators = statement.children_by_field_name("declarator")
    if len(declarators) != 1 or declarators[0].type != "init_declarator":
        return None
    value = declarators[0].child_by_field_name("value")
    named = declared_name(declarators[0])
    if value is None or named is None or canon(value) != "0":
        return None
    return node_text(named)


def _written(statements: list[Node], at: str) -> tuple[str, Node]:
    """``(out, value)`` of the one statement ``out[at++] = value;``."""
    found = assignment_of(statements[0]) if len(statements) == 1 else None
    written = subscript_of(found[0]) if found is not None else None
    if found is None or written is None or canon(written[1]) != f"{at} ++":
        raise Refusal(_SHAPE)
    return written[0], found[1]


@dataclass(frozen=True, slots=True)
class _Names:
    counting: str
    filling: str
    bins: str
    host: HostNames

    @classmethod
    def allocate(cls, names: NameAllocator, entry: str) -> _Names:
        return cls(
            names.fresh(f"{entry}_count"),
            names.fresh(f"{entry}_fill"),
            names.fresh("d_bins"),
            HostNames.allocate(names),
        )


def _key(found: SequentialLoop) -> str:
    """The key as the stand-in loop stores it, with the edits device code needs."""
    (statement,) = body_statements(found.entry.loop.body)
    value = statement.named_children[0].child_by_field_name("right")
    assert value is not None
    return render(value, found.facts.edits)


def _kernels(
    found: SequentialLoop, sort: _Sort, names: _Names, params: str, allocator: NameAllocator
) -> str:
    loop = found.entry.loop
    var_type = loop_var_type(found.entry)
    stride = f"static_cast<{var_type}>(blockDim.x * gridDim.x)"
    start = f"{var_type} {loop.var} = {thread_index(var_type, None)}"
    shared, b, key, bin_ = (allocator.fresh(n) for n in ("bins", "b", "key", "bin"))
    scan, temp, items, total = (allocator.fresh(n) for n in ("Scan", "temp", "items", "total"))
    p, lo, hi, mid, offsets = (allocator.fresh(n) for n in ("p", "lo", "hi", "mid", "offsets"))
    per, bins, count = -(-sort.bins // _FILL_BLOCK), names.bins, sort.bins
    grid_stride = "static_cast<long long>(blockDim.x) * gridDim.x"
    first = "static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x"
    return f"""__global__ void {names.counting}({params}) {{
  __shared__ unsigned int {shared}[{count}];
  for (int {b} = threadIdx.x; {b} < {count}; {b} += blockDim.x) {shared}[{b}] = 0u;
  __syncthreads();
  for ({start}; {loop.condition()}; {loop.var} += {stride}) {{
    const long long {key} = static_cast<long long>({_key(found)});
    if ({key} >= 0 && {key} < {count}) atomicAdd(&{shared}[{key}], 1u);
  }}
  __syncthreads();
  for (int {b} = threadIdx.x; {b} < {count}; {b} += blockDim.x) {{
    if ({shared}[{b}] != 0u) atomicAdd(&{bins}[{b}], {shared}[{b}]);
  }}
}}

__global__ void {names.filling}({params}) {{
  using {scan} = cub::BlockScan<unsigned int, {_FILL_BLOCK}>;
  __shared__ typename {scan}::TempStorage {temp};
  __shared__ unsigned int {offsets}[{count}];
  unsigned int {items}[{per}];
  for (int {b} = 0; {b} < {per}; ++{b}) {{
    const int {bin_} = threadIdx.x * {per} + {b};
    {items}[{b}] = {bin_} < {count} ? {bins}[{bin_}] : 0u;
  }}
  unsigned int {total} = 0u;
  {scan}({temp}).ExclusiveSum({items}, {items}, {total});
  for (int {b} = 0; {b} < {per}; ++{b}) {{
    const int {bin_} = threadIdx.x * {per} + {b};
    if ({bin_} < {count}) {offsets}[{bin_}] = {items}[{b}];
  }}
  __syncthreads();
  for (long long {p} = {first}; {p} < {total}; {p} += {grid_stride}) {{
    int {lo} = 0;
    int {hi} = {count - 1};
    while ({lo} < {hi}) {{
      const int {mid} = ({lo} + {hi} + 1) / 2;
      if ({offsets}[{mid}] <= {p}) {lo} = {mid}; else {hi} = {mid} - 1;
    }}
    const int {sort.bin_var} = {lo};
    {sort.out}[{p}] = {sort.value};
  }}
}}
"""


def _candidate(found: SequentialLoop, sort: _Sort) -> str:
    allocator = NameAllocator(found.root)
    buffers, interface = found.interface(allocator)
    names = _Names.allocate(allocator, found.task.entry)
    params = ", ".join([*interface.parameters, f"unsigned int* {names.bins}"])
    kernels = _kernels(found, sort, names, params, allocator)
    host, bins = names.host, names.bins
    wanted = allocator.fresh("wanted")
    arguments = ", ".join([*interface.arguments, bins])
    launch = [
        f"const int {host.block} = 256;",
        *capped_grid(
            host.grid, wanted, f"({host.count} + {host.block} - 1) / {host.block}", "1024"
        ),
        f"{names.counting}<<<{host.grid}, {host.block}>>>({arguments});",
        f"{host.err} = cudaGetLastError();",
        f"if ({host.err} == cudaSuccess) {{",
        f"  {names.filling}<<<{host.grid}, {_FILL_BLOCK}>>>({arguments});",
        f"  {host.err} = cudaGetLastError();",
        "}",
    ]
    size = f"{sort.bins} * sizeof(unsigned int)"
    lines = gpu_block(
        found.entry.loop.trip_count(),
        buffers,
        launch,
        host,
        extra_setup=[
            f"{host.err} = cudaMalloc(&{bins}, {size});",
            f"{host.err} = cudaMemset({bins}, 0, {size});",
        ],
        extra_after=[
            f"{host.err} = cudaMemcpy({sort.count}, {bins}, {size}, cudaMemcpyDeviceToHost);",
        ],
        extra_free=[f"cudaFree({bins});"],
    )
    lines[2:2] = [f"  unsigned int* {bins} = nullptr;"]
    # First in the file, so no macro of the user's (`#define BINS 2000`) reaches CUB.
    return "#include <cub/block/block_scan.cuh>\n" + found.candidate(kernels, lines)
