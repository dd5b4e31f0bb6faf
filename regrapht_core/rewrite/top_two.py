"""The two largest (or smallest) values in one pass, as a reduction of pairs.

``if (v > first) { second = first; first = v; } else if (v > second) second = v;`` carries
two variables that depend on each other, so the reduction rewriter refuses it. But when the
loop starts with ``first >= second`` it ends holding the two largest of ``first``,
``second`` and the elements, counted with repeats (two equal maxima leave both equal): the
top two of a multiset, which two halves of the elements can find apart and then combine. An
element not above ``second``'s starting value never changes anything, so each thread keeps
the top two of its elements above it (none, one or two of them, so no starting value is
counted twice); lanes, then warps, then blocks combine by pushing the other side's values
into their own pair; a second kernel of one block combines the blocks. The host folds the
one or two values found into ``first`` and ``second`` with the loop's own step, largest
first. A NaN element is never kept, as the loop's comparisons never keep one.

When ``first >= second`` does not hold at the start (``second`` above ``first``), the loop's
step does not compute a top two, so the loop runs as written then (``LoopFacts.guards``).

Recognized: a loop whose body is that ``if``/``else if`` (``>``/``>=`` for the largest,
``<``/``<=`` for the smallest, ``first`` and ``second`` on either side), ``v`` the same
expression in its three places, ``first`` and ``second`` locals of one type a warp shuffle
moves (``float``, ``double``, ``int``, ``unsigned``, ``long long``, ``unsigned long long``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from regrapht_core.cxx.loops import FLIPPED
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import render
from regrapht_core.cxx.syntax import (
    NameAllocator,
    assignment_of,
    body_statements,
    canon,
    operator_text,
    strip_parens,
)
from regrapht_core.rewrite.assemble import loop_var_type, thread_index
from regrapht_core.rewrite.hostcode import HostNames, capped_grid, gpu_block
from regrapht_core.rewrite.parallelize import block_size
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)
from regrapht_core.rewrite.sequential import SequentialLoop, SplitEntry, split_entry_function

__all__ = ["TopTwo"]

_SHAPE = (
    "the loop is not a top two (`if (v > first) { second = first; first = v; } "
    "else if (v > second) second = v;`)"
)
_SHUFFLED = frozenset(
    {"float", "double", "int", "unsigned", "unsigned int", "long long", "unsigned long long"}
)
"""Types ``__shfl_down_sync`` moves as they are."""
_BLOCKS = 1024
"""The most blocks of the first kernel: the second combines their pairs in one block."""
_EFFECTS = frozenset({"call_expression", "assignment_expression", "update_expression"})


@dataclass(frozen=True, slots=True)
class _TopTwo:
    first: str
    second: str
    value: str
    """The element's expression, as written."""
    over_first: str
    """The comparison of the element against ``first`` (``>`` or ``>=``: the largest)."""
    over_second: str


class TopTwo(RefusingRewriter):
    technique = "warp_shuffle_reduction"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        block = block_size(params)
        if block % 32:
            raise Refusal(f"block_size {block} is not a multiple of 32")
        split = split_entry_function(code, context.task)
        top = _top_two(split)
        kind = _type(split, top)
        strict = top.over_second[0]
        found = split.with_body(
            f"if (({top.value}) {strict} {top.second}) {top.second} = {top.value};"
        )
        if [r.var for r in found.facts.reductions] != [top.second]:
            raise Refusal(_SHAPE)
        guard = f"!({top.second} {strict} {top.first})"
        facts = dataclasses.replace(found.facts, guards=[*found.facts.guards, guard])
        found = dataclasses.replace(found, facts=facts)
        largest = "largest" if strict == ">" else "smallest"
        return [
            RewriteCandidate(
                _candidate(found, top, kind, block),
                f"kept the two {largest} values of `{top.value}` per thread, combined them "
                f"with warp shuffles, per block ({block} threads) and in a second one-block "
                f"kernel, then folded them into `{top.first}` and `{top.second}` on the host",
            )
        ]


def _top_two(split: SplitEntry) -> _TopTwo:
    """The loop's ``if``/``else if`` read as a top two, else the refusal."""
    statements = body_statements(split.entry.loop.body)
    if len(statements) != 1 or statements[0].type != "if_statement":
        raise Refusal(_SHAPE)
    outer = statements[0]
    alternative = outer.child_by_field_name("alternative")
    inner = alternative.named_children[0] if alternative and alternative.named_children else None
    if inner is None or inner.type != "if_statement" or inner.child_by_field_name("alternative"):
        raise Refusal(_SHAPE)
    value, first, over_first = _compared(outer)
    again, second, over_second = _compared(inner)
    if canon(again) != canon(value) or first == second:
        raise Refusal(_SHAPE)
    if over_first[0] != over_second[0]:
        raise Refusal("the two comparisons keep opposite ends: one largest, one smallest")
    if any(n.type in _EFFECTS for n in walk(value)):
        raise Refusal(f"`{node_text(value)}` calls or assigns: it is evaluated more than once")
    taken = [_assignment(s) for s in body_statements(_branch(outer))]
    if taken != [(second, first), (first, canon(value))]:
        raise Refusal(_SHAPE)
    if [_assignment(s) for s in body_statements(_branch(inner))] != [(second, canon(value))]:
        raise Refusal(_SHAPE)
    return _TopTwo(first, second, node_text(value), over_first, over_second)


def _compared(statement: Node) -> tuple[Node, str, str]:
    """``(v, name, op)`` of an ``if (v op name)`` or ``if (name op v)``, ``op`` as ``v op
    name`` reads, one of ``>``, ``>=``, ``<``, ``<=``."""
    condition = statement.child_by_field_name("condition")
    test = strip_parens(condition.named_children[0]) if condition is not None else None
    if test is None or test.type != "binary_expression":
        raise Refusal(_SHAPE)
    op = operator_text(test)
    left, right = (strip_parens(test.child_by_field_name(s) or test) for s in ("left", "right"))
    if op not in ("<", "<=", ">", ">="):
        raise Refusal(_SHAPE)
    if right.type == "identifier":
        return left, node_text(right), op
    if left.type == "identifier":
        return right, node_text(left), FLIPPED[op]
    raise Refusal(_SHAPE)


def _branch(statement: Node) -> Node:
    consequence = statement.child_by_field_name("consequence")
    if consequence is None:
        raise Refusal(_SHAPE)
    return consequence


def _assignment(statement: Node) -> tuple[str, str] | None:
    """``(target, value)`` of a statement ``target = value;``, the value canonical."""
    found = assignment_of(statement)
    if found is None or found[0].type != "identifier":
        return None
    return node_text(found[0]), canon(found[1])


def _type(split: SplitEntry, top: _TopTwo) -> str:
    """The type both kept values share, one a warp shuffle moves."""
    kinds = {
        " ".join(split.entry.locals[name].type.split())
        for name in (top.first, top.second)
        if name in split.entry.locals
    }
    if len(kinds) != 1:
        raise Refusal(f"`{top.first}` and `{top.second}` are not locals of one type")
    (kind,) = kinds
    if kind not in _SHUFFLED:
        raise Refusal(f"`{top.first}` is a {kind}; warp shuffles move 32- and 64-bit numbers")
    return kind


@dataclass(frozen=True, slots=True)
class _Names:
    push: str
    warp: str
    block: str
    reduce: str
    finish: str
    wanted: str
    pair: tuple[str, str, str]
    """A thread's two values and their count, in the kernels."""
    element: str
    bound: str
    device: tuple[str, str, str]
    """The partial pairs' values and counts on the device."""
    found: tuple[str, str, str]
    """The final pair's values and count on the host."""
    host: HostNames

    @classmethod
    def allocate(cls, names: NameAllocator, entry: str) -> _Names:
        return cls(
            names.fresh(f"{entry}_push"),
            names.fresh(f"{entry}_warp_pairs"),
            names.fresh(f"{entry}_block_pairs"),
            names.fresh(f"{entry}_top2"),
            names.fresh(f"{entry}_top2_blocks"),
            names.fresh("wanted"),
            (names.fresh("best"), names.fresh("runner_up"), names.fresh("kept")),
            names.fresh("element"),
            names.fresh("bound"),
            (names.fresh("d_top_a"), names.fresh("d_top_b"), names.fresh("d_top_n")),
            (names.fresh("top_a"), names.fresh("top_b"), names.fresh("top_n")),
            HostNames.allocate(names),
        )


def _helpers(names: _Names, kind: str, op: str) -> str:
    """The device functions: one value into a pair; a warp's pairs into lane 0's; a
    block's pairs into thread 0's (through one value per warp in shared memory)."""
    pair = f"{kind}& a, {kind}& b, int& n"
    return f"""__device__ __forceinline__ void {names.push}({pair}, {kind} v) {{
  if (n == 0) {{
    a = v;
    n = 1;
  }} else if (v {op} a) {{
    b = a;
    a = v;
    n = 2;
  }} else if (n == 1 || v {op} b) {{
    b = v;
    n = 2;
  }}
}}

__device__ __forceinline__ void {names.warp}({pair}) {{
  for (int offset = 16; offset > 0; offset >>= 1) {{
    const {kind} other_a = __shfl_down_sync(0xffffffffu, a, offset);
    const {kind} other_b = __shfl_down_sync(0xffffffffu, b, offset);
    const int other_n = __shfl_down_sync(0xffffffffu, n, offset);
    if (other_n >= 1) {names.push}(a, b, n, other_a);
    if (other_n >= 2) {names.push}(a, b, n, other_b);
  }}
}}

__device__ void {names.block}({pair}) {{
  __shared__ {kind} shared_a[32];
  __shared__ {kind} shared_b[32];
  __shared__ int shared_n[32];
  const unsigned int lane = threadIdx.x % 32u;
  const unsigned int warp = threadIdx.x / 32u;
  {names.warp}(a, b, n);
  if (lane == 0u) {{
    shared_a[warp] = a;
    shared_b[warp] = b;
    shared_n[warp] = n;
  }}
  __syncthreads();
  if (warp == 0u) {{
    const bool valid = lane < (blockDim.x + 31u) / 32u;
    n = valid ? shared_n[lane] : 0;
    a = shared_a[valid ? lane : 0u];
    b = shared_b[valid ? lane : 0u];
    {names.warp}(a, b, n);
  }}
}}"""


def _kernels(found: SequentialLoop, top: _TopTwo, kind: str, names: _Names, params: str) -> str:
    loop, strict = found.entry.loop, top.over_second[0]
    var_type = loop_var_type(found.entry)
    lower = None if loop.starts_at_zero() else loop.lower_text()
    (statement,) = body_statements(found.entry.loop.body)
    condition = statement.child_by_field_name("condition")
    assert condition is not None
    test = strip_parens(condition.named_children[0])
    value = render(strip_parens(test.child_by_field_name("left") or test), found.facts.edits)
    stride = f"static_cast<{var_type}>(blockDim.x * gridDim.x)"
    start = f"{var_type} {loop.var} = {thread_index(var_type, lower)}"
    header = f"for ({start}; {loop.condition()}; {loop.var} += {stride})"
    d_a, d_b, d_n = names.device
    a, b, n = names.pair
    v, bound = names.element, names.bound
    partials = f"{kind}* {d_a}, {kind}* {d_b}, int* {d_n}"
    return f"""{_helpers(names, kind, strict)}

__global__ void {names.reduce}({params}, {kind} {bound}, {partials}) {{
  {kind} {a} = {bound};
  {kind} {b} = {bound};
  int {n} = 0;
  {header} {{
    const {kind} {v} = static_cast<{kind}>({value});
    if ({v} {strict} {bound}) {names.push}({a}, {b}, {n}, {v});
  }}
  {names.block}({a}, {b}, {n});
  if (threadIdx.x == 0u) {{
    {d_a}[blockIdx.x] = {a};
    {d_b}[blockIdx.x] = {b};
    {d_n}[blockIdx.x] = {n};
  }}
}}

__global__ void {names.finish}({partials}, unsigned int blocks) {{
  {kind} {a} = {kind}();
  {kind} {b} = {kind}();
  int {n} = 0;
  for (unsigned int k = threadIdx.x; k < blocks; k += blockDim.x) {{
    if ({d_n}[k] >= 1) {names.push}({a}, {b}, {n}, {d_a}[k]);
    if ({d_n}[k] >= 2) {names.push}({a}, {b}, {n}, {d_b}[k]);
  }}
  {names.block}({a}, {b}, {n});
  if (threadIdx.x == 0u) {{
    {d_a}[{_BLOCKS}] = {a};
    {d_b}[{_BLOCKS}] = {b};
    {d_n}[{_BLOCKS}] = {n};
  }}
}}
"""


def _step(top: _TopTwo, value: str) -> str:
    """The loop's step with ``value`` as the element, as one host statement."""
    first, second = top.first, top.second
    return (
        f"if ({value} {top.over_first} {first}) {{ {second} = {first}; {first} = {value}; }} "
        f"else if ({value} {top.over_second} {second}) {{ {second} = {value}; }}"
    )


def _candidate(found: SequentialLoop, top: _TopTwo, kind: str, block: int) -> str:
    allocator = NameAllocator(found.root)
    buffers, interface = found.interface(allocator)
    names = _Names.allocate(allocator, found.task.entry)
    host = names.host
    a, b, n = names.device
    found_a, found_b, found_n = names.found
    arguments = ", ".join([*interface.arguments, top.second, a, b, n])
    blocks = f"({host.count} + {host.block} - 1) / {host.block}"
    launch = [
        f"const int {host.block} = {block};",
        *capped_grid(host.grid, names.wanted, blocks, str(_BLOCKS)),
        f"{names.reduce}<<<{host.grid}, {host.block}>>>({arguments});",
        f"{host.err} = cudaGetLastError();",
        f"if ({host.err} == cudaSuccess) {{",
        f"  {names.finish}<<<1, 1024>>>({a}, {b}, {n}, {host.grid});",
        f"  {host.err} = cudaGetLastError();",
        "}",
    ]
    steps = [(a, found_a, kind), (b, found_b, kind), (n, found_n, "int")]
    fold = (
        f"{{ if ({found_n} >= 1) {{ {_step(top, found_a)} }} "
        f"if ({found_n} >= 2) {{ {_step(top, found_b)} }} }}"
    )
    lines = gpu_block(
        found.entry.loop.trip_count(),
        buffers,
        launch,
        host,
        extra_setup=[
            f"{host.err} = cudaMalloc(&{d}, {_BLOCKS + 1} * sizeof({t}));" for d, _, t in steps
        ],
        extra_after=[
            *(
                f"{host.err} = cudaMemcpy(&{h}, {d} + {_BLOCKS}, sizeof({t}), "
                "cudaMemcpyDeviceToHost);"
                for d, h, t in steps
            ),
            fold,
        ],
        extra_free=[f"cudaFree({d});" for d, _, _ in steps],
    )
    lines[2:2] = [f"  {t} {h} = {t}();" for _, h, t in steps] + [
        f"  {t}* {d} = nullptr;" for d, _, t in steps
    ]
    parameters = ", ".join(interface.parameters)
    return found.candidate(_kernels(found, top, kind, names, parameters), lines)
