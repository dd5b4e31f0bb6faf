"""A compaction (``if (keep(i)) out[at++] = value(i);``) as flags, a scan and a scatter.

Filtering an array into another, in order, is one of the loops people write most: keep
the elements under a pivot, the indices of the non-zeros, the items that pass a test. The
write through ``at++`` carries from one iteration to the next, so parallelization refuses
it. But where each kept element lands is known once every iteration's test is: it is
``at`` plus how many iterations before it kept theirs, the exclusive scan of the tests.
So, per loop:

1. a kernel writes each iteration's test as a 0/1 flag;
2. ``cub::DeviceScan::ExclusiveSum`` turns the flags into positions;
3. a kernel writes each kept ``value(i)`` to ``out[at + position]``, the order kept;

and the host adds the last position and flag to ``at``, as the loop would have counted.
This is what ``cub::DeviceSelect`` does for a plain array; the loop's own test and value
are arbitrary expressions, so the rewrite spells the three steps out.

Several such loops in a row over the same range, sharing ``at`` (a stable partition: the
elements under the pivot, then the others), run on the GPU together, each from where the
one before left ``at``; one upload, one download.

Recognized: a local integer ``at`` declared before the first loop; loops from 0 with the
same header whose whole body is ``if (keep) out[at++] = value;`` (no ``else``), ``keep``
and ``value`` mentioning neither ``at`` nor any loop's ``out``. Each loop must pass the map
analysis as ``if (keep) out[i] = value;`` would, so a test that reads what another
iteration writes, or calls unknown code, is refused there. Positions are 32-bit: a range
of more than 2^31 - 1 iterations runs the loops as written, on the host.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from regrapht_core.contracts.task import Task
from regrapht_core.cxx.affine import mentions
from regrapht_core.cxx.entry import EntryFunction, entry_function
from regrapht_core.cxx.loops import CountedLoop, counted_loop
from regrapht_core.cxx.parse import Node, node_text
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits, render
from regrapht_core.cxx.syntax import (
    NameAllocator,
    assignment_of,
    body_statements,
    canon,
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

__all__ = ["Compaction"]

_SHAPE = "the loop is not a compaction (`if (keep) out[at++] = value;`)"
_COUNTERS = frozenset(
    {"int", "long", "long long", "unsigned", "unsigned int", "size_t", "std::size_t"}
)
_MOST = "2147483647"
"""The most iterations a loop's 32-bit flags and positions count."""


@dataclass(frozen=True, slots=True)
class _Put:
    """One compaction loop: what it tests, where it writes, what it stores."""

    loop: CountedLoop
    out: str
    keep: Node
    value: Node


@dataclass(frozen=True, slots=True)
class _Compaction:
    at: str
    puts: tuple[_Put, ...]


class Compaction(RefusingRewriter):
    technique = "algorithmic_change"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        code, task = split_entry(code, context.task)
        root = parse(code).root_node
        entry = entry_function(root, task, 0)
        written = _compaction(entry)
        found = _stand_in(code, task, entry, written)
        # The tests and values again, from the analysed stand-in: what the kernels render.
        puts = (_put(found.entry.loop, s, None) for s in body_statements(found.entry.loop.body))
        compaction = _Compaction(written.at, tuple(puts))
        outs = ", ".join(f"`{out}`" for out in dict.fromkeys(p.out for p in compaction.puts))
        loops = "each loop" if len(compaction.puts) > 1 else "the loop"
        return [
            RewriteCandidate(
                _candidate(found, compaction),
                f"compacted into {outs} on the GPU: {loops} flags what it keeps, "
                f"cub::DeviceScan::ExclusiveSum turns the flags into positions, and a kernel "
                f"writes each kept element at `{compaction.at}` plus its position",
            )
        ]


def _compaction(entry: EntryFunction) -> _Compaction:
    """The compaction loops from the entry's loop on, else the refusal."""
    loop = entry.loop
    if not loop.starts_at_zero():
        raise Refusal(_SHAPE)
    (statement,) = _one(loop.body)
    at = _counter(entry, _counted(statement))
    puts = [_put(loop, statement, at)]
    for following in entry.postlude:
        if following.type != "for_statement":
            break
        try:
            next_loop = counted_loop(following)
            (body,) = _one(next_loop.body)
            put = _put(next_loop, body, at)
        except Refusal:
            break
        if _header(next_loop) != _header(loop):
            break
        puts.append(put)
    outs = {p.out for p in puts}
    for put in puts:
        if mentions(put.keep, {at, *outs}) or mentions(put.value, {at, *outs}):
            raise Refusal(f"what the loop keeps or stores reads `{at}` or {sorted(outs)}")
    return _Compaction(at, tuple(puts))


def _one(body: Node) -> list[Node]:
    statements = body_statements(body)
    if len(statements) != 1:
        raise Refusal(_SHAPE)
    return statements


def _header(loop: CountedLoop) -> str:
    return f"{loop.var} {canon(loop.lower)} {loop.condition()}"


def _counted(statement: Node) -> str:
    """``at`` of ``if (keep) out[at++] = value;``, else the refusal."""
    _, _, index, _ = _guarded_write(statement)
    text = canon(index)
    if not text.endswith(" ++") or " " in text[:-3]:
        raise Refusal(_SHAPE)
    return text[:-3]


def _guarded_write(statement: Node) -> tuple[Node, str, Node, Node]:
    """``(keep, out, index, value)`` of ``if (keep) out[index] = value;``."""
    condition = statement.child_by_field_name("condition")
    if (
        statement.type != "if_statement"
        or statement.child_by_field_name("alternative") is not None
        or condition is None
        or not condition.named_child_count
    ):
        raise Refusal(_SHAPE)
    consequence = statement.child_by_field_name("consequence")
    (inner,) = _one(consequence) if consequence is not None else [None]
    found = assignment_of(inner) if inner is not None else None
    written = subscript_of(found[0]) if found is not None else None
    if found is None or written is None:
        raise Refusal(_SHAPE)
    return strip_parens(condition.named_children[0]), written[0], written[1], found[1]


def _put(loop: CountedLoop, statement: Node, at: str | None) -> _Put:
    """One loop's parts; ``at``: the counter its write must advance (``None``: the
    stand-in's ``out[i]``)."""
    keep, out, index, value = _guarded_write(statement)
    if canon(index) != (f"{at} ++" if at is not None else loop.var):
        raise Refusal(_SHAPE)
    return _Put(loop, out, keep, value)


def _counter(entry: EntryFunction, at: str) -> str:
    """``at``, if a local integer the code before the loop declares, else the refusal."""
    local = entry.locals.get(at)
    kind = "" if local is None else " ".join(w for w in local.type.split() if w != "const")
    if local is None or not local.scalar or kind not in _COUNTERS:
        raise Refusal(f"`{at}` is not an integer the function declares before the loop")
    return at


def _stand_in(
    code: str, task: Task, entry: EntryFunction, compaction: _Compaction
) -> SequentialLoop:
    """The loops as one map the analysis reads, ``if (keep) out[i] = value;`` for each: it
    reads what the tests and values read and writes every ``out`` (uploaded first, since
    not every element is written), so the wrapper moves what the loops need. The loops
    as written stay for ranges the 32-bit positions cannot count."""
    first = compaction.puts[0].loop
    var = first.var
    tests = "\n    ".join(
        f"if ({node_text(p.keep)}) {p.out}[{var}] = {node_text(p.value)};" for p in compaction.puts
    )
    header = (
        f"for ({first.var_type or 'int'} {var} = {first.lower_text()}; "
        f"{first.condition()}; ++{var})"
    )
    written = "\n  ".join(node_text(p.loop.node) for p in compaction.puts)
    edits = [Edit.replace(first.node, f"{header} {{\n    {tests}\n  }}")]
    edits += [Edit.replace(p.loop.node, "") for p in compaction.puts[1:]]
    found = analysed_loop(apply_edits(code.encode("utf-8"), edits), task, loop=0)
    if found.facts.written != {p.out for p in compaction.puts}:
        raise Refusal(_SHAPE)
    guards = [*found.facts.guards, f"{found.entry.loop.trip_count()} <= {_MOST}"]
    facts = dataclasses.replace(found.facts, guards=guards)
    return dataclasses.replace(found, facts=facts, written=written)


@dataclass(frozen=True, slots=True)
class _Names:
    flag: tuple[str, ...]
    put: tuple[str, ...]
    """Each loop's two kernels."""
    flags: str
    positions: str
    base: str
    host: HostNames

    @classmethod
    def allocate(cls, names: NameAllocator, entry: str, loops: int) -> _Names:
        return cls(
            tuple(names.fresh(f"{entry}_flag") for _ in range(loops)),
            tuple(names.fresh(f"{entry}_put") for _ in range(loops)),
            names.fresh("d_flags"),
            names.fresh("d_positions"),
            names.fresh("base"),
            HostNames.allocate(names),
        )


def _kernels(found: SequentialLoop, compaction: _Compaction, names: _Names, params: str) -> str:
    loop = found.entry.loop
    var_type = loop_var_type(found.entry)
    sweep = (
        f"for ({var_type} {loop.var} = {thread_index(var_type, None)}; {loop.condition()}; "
        f"{loop.var} += static_cast<{var_type}>(blockDim.x * gridDim.x))"
    )
    flags, positions, base = names.flags, names.positions, names.base
    edits = found.facts.edits
    kernels = []
    for number, put in enumerate(compaction.puts):
        keep, value = render(put.keep, edits), render(put.value, edits)
        put_params = f"{params}, const int* {flags}, const int* {positions}, long long {base}"
        kernels.append(
            f"""__global__ void {names.flag[number]}({params}, int* {flags}) {{
  {sweep} {{
    {flags}[{loop.var}] = ({keep}) ? 1 : 0;
  }}
}}

__global__ void {names.put[number]}({put_params}) {{
  {sweep} {{
    if ({flags}[{loop.var}]) {put.out}[{base} + {positions}[{loop.var}]] = {value};
  }}
}}
"""
        )
    return "\n".join(kernels)


def _candidate(found: SequentialLoop, compaction: _Compaction) -> str:
    allocator = NameAllocator(found.root)
    buffers, interface = found.interface(allocator)
    names = _Names.allocate(allocator, found.task.entry, len(compaction.puts))
    params = ", ".join(interface.parameters)
    kernels = _kernels(found, compaction, names, params)
    host, flags, positions = names.host, names.flags, names.positions
    err, count, at = host.err, host.count, compaction.at
    wanted, temp, size = (allocator.fresh(n) for n in ("wanted", "temp", "temp_bytes"))
    last_flags = [allocator.fresh("last_flag") for _ in compaction.puts]
    last_positions = [allocator.fresh("last_position") for _ in compaction.puts]
    arguments = ", ".join(interface.arguments)
    scan = f"cub::DeviceScan::ExclusiveSum({temp}, {size}, {flags}, {positions}, {count})"
    launch = [
        f"const int {host.block} = 256;",
        *capped_grid(host.grid, wanted, f"({count} + {host.block} - 1) / {host.block}", "65535"),
        f"size_t {size} = 0;",
        f"void* {temp} = nullptr;",
        f"{err} = cub::DeviceScan::ExclusiveSum(nullptr, {size}, {flags}, {positions}, {count});",
        f"if ({err} == cudaSuccess) {err} = cudaMallocAsync(&{temp}, {size}, 0);",
    ]
    for number in range(len(compaction.puts)):
        step = f"{names.put[number]}<<<{host.grid}, {host.block}>>>"
        launch += [
            f"if ({err} == cudaSuccess) {{",
            f"  {names.flag[number]}<<<{host.grid}, {host.block}>>>({arguments}, {flags});",
            f"  {err} = cudaGetLastError();",
            "}",
            f"if ({err} == cudaSuccess) {err} = {scan};",
            f"if ({err} == cudaSuccess) {{",
            f"  {step}({arguments}, {flags}, {positions}, static_cast<long long>({at}));",
            f"  {err} = cudaGetLastError();",
            "}",
            f"int {last_flags[number]} = 0;",
            f"int {last_positions[number]} = 0;",
            f"if ({err} == cudaSuccess) {err} = cudaMemcpy(&{last_flags[number]}, "
            f"{flags} + {count} - 1, sizeof(int), cudaMemcpyDeviceToHost);",
            f"if ({err} == cudaSuccess) {err} = cudaMemcpy(&{last_positions[number]}, "
            f"{positions} + {count} - 1, sizeof(int), cudaMemcpyDeviceToHost);",
            f"if ({err} == cudaSuccess) {at} += {last_positions[number]} + {last_flags[number]};",
        ]
    launch.append(f"if ({temp} != nullptr) cudaFreeAsync({temp}, 0);")
    index_bytes = f"static_cast<size_t>({count}) * sizeof(int)"
    lines = gpu_block(
        found.entry.loop.trip_count(),
        buffers,
        launch,
        host,
        extra_setup=[
            f"{err} = cudaMallocAsync(&{flags}, {index_bytes}, 0);",
            f"{err} = cudaMallocAsync(&{positions}, {index_bytes}, 0);",
        ],
        extra_free=[
            f"if ({flags} != nullptr) cudaFreeAsync({flags}, 0);",
            f"if ({positions} != nullptr) cudaFreeAsync({positions}, 0);",
        ],
    )
    lines[2:2] = [f"  int* {flags} = nullptr;", f"  int* {positions} = nullptr;"]
    # First in the file, so no macro of the user's reaches CUB's templates.
    return "#include <cub/device/device_scan.cuh>\n" + found.candidate(kernels, lines)
