"""Scatters whose targets may repeat: ``out[perm[i]] = x[i]`` on the GPU, the last writer
winning as in the loop.

Parallelization refuses the loop because its index is data: two iterations may write one
element, and the loop's order says the later one stays. When the targets form a
permutation (the common case: an inverse permutation, a reorder) every thread could simply
write; but nothing proves they do. So the loop runs as two kernels. The first marks, per
target, the last iteration that writes it: ``atomicMax(&last[t], i + 1)`` into a zeroed
device array as long as the target array. The second lets only that iteration write
(``if (last[t] == i + 1) out[t] = value;``). Every element the loop writes gets the value of
its last writer, and no other element is touched, so the array is uploaded first and the
elements the loop never writes keep the caller's values.

Recognized: a loop body of one assignment ``a[t] = v;`` whose target ``t`` reads nothing
the loop writes and calls no function with side effects (it is evaluated in both kernels),
and a loop that reads ``a`` nowhere else; every other array must pass the ownership proof.
"""

from __future__ import annotations

from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import render
from regrapht_core.cxx.syntax import NameAllocator, assignment_of, body_statements, strip_parens
from regrapht_core.rewrite.assemble import body_lines
from regrapht_core.rewrite.hostcode import HostNames, gpu_block
from regrapht_core.rewrite.parallelize import block_size, kernel_1d
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)
from regrapht_core.rewrite.sequential import SequentialLoop, analysed_loop, as_map, split_entry

__all__ = ["LastWriterScatter"]

_EFFECTS = frozenset({"call_expression", "assignment_expression", "update_expression"})
_SHAPE = "the loop is not a scatter (`a[t] = v;` alone, `t` data the loop reads)"


class LastWriterScatter(RefusingRewriter):
    technique = "atomics"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        block = block_size(params)
        split, task = split_entry(code, context.task)
        first = as_map(analysed_loop(split, task, prove_ownership=False))
        if not first.facts.unowned:
            raise Refusal("the iterations write disjoint elements: a plain map writes them")
        array = _scattered(first)
        found = as_map(analysed_loop(split, task, atomic=frozenset({array})))
        if sum(a.array == array for a in found.facts.accesses) != 1:
            raise Refusal(f"the loop reads `{array}`, which it scatters into")
        return [RewriteCandidate(_candidate(found, array, block), _describe(found, array, block))]


def _scattered(found: SequentialLoop) -> str:
    """The array ``a`` of the loop's only statement ``a[t] = v;``, else the refusal."""
    target = _target(found)
    if target is None:
        raise Refusal(_SHAPE)
    array = strip_parens(target.child_by_field_name("argument") or target)
    if array.type != "identifier" or node_text(array) not in found.facts.written:
        raise Refusal(_SHAPE)
    if any(n.type in _EFFECTS for n in walk(_index(target))):
        raise Refusal(
            f"the target {node_text(target)} calls or assigns: it is evaluated in both kernels"
        )
    return node_text(array)


def _target(found: SequentialLoop) -> Node | None:
    """``a[t]`` of the loop's only statement ``a[t] = v;``."""
    statements = body_statements(found.entry.loop.body)
    assigned = assignment_of(statements[0]) if len(statements) == 1 else None
    if assigned is None or assigned[0].type != "subscript_expression":
        return None
    return assigned[0]


def _index(target: Node) -> Node:
    """The one expression between the target's brackets."""
    indices = target.child_by_field_name("indices")
    if indices is None or indices.named_child_count != 1:
        raise Refusal(_SHAPE)
    return indices.named_children[0]


def _candidate(found: SequentialLoop, array: str, block: int) -> str:
    names = NameAllocator(found.root)
    buffers, interface = found.interface(names)
    out = next(b for b in buffers if b.param.name == array)
    last, last_bytes = names.fresh(f"{array}_last"), names.fresh(f"{array}_last_bytes")
    mark, write = names.fresh(f"{found.task.entry}_mark"), names.fresh(f"{found.task.entry}_write")
    host = HostNames.allocate(names)
    target = _target(found)
    assert target is not None
    index = render(_index(target), found.facts.edits)
    var = found.entry.loop.var
    writer = f"static_cast<unsigned long long>({var}) + 1ull"
    parameters = (*interface.parameters, f"unsigned long long* {last}")
    arguments = ", ".join([*interface.arguments, last])
    kernels = "\n".join(
        [
            kernel_1d(found, mark, parameters, f"    atomicMax(&{last}[{index}], {writer});"),
            kernel_1d(
                found,
                write,
                parameters,
                f"    if ({last}[{index}] == {writer}) {{\n"
                f"{body_lines(found.entry.loop.body, found.facts.edits, '      ')}\n    }}",
            ),
        ]
    )
    launch = [
        f"const int {host.block} = {block};",
        f"const unsigned int {host.grid} = "
        f"static_cast<unsigned int>(({host.count} + {host.block} - 1) / {host.block});",
        f"{mark}<<<{host.grid}, {host.block}>>>({arguments});",
        f"{host.err} = cudaGetLastError();",
        f"if ({host.err} == cudaSuccess) {{",
        f"  {write}<<<{host.grid}, {host.block}>>>({arguments});",
        f"  {host.err} = cudaGetLastError();",
        "}",
    ]
    lines = gpu_block(
        found.entry.loop.trip_count(),
        buffers,
        launch,
        host,
        extra_setup=[
            f"{host.err} = cudaMalloc(&{last}, {last_bytes});",
            f"{host.err} = cudaMemset({last}, 0, {last_bytes});",
        ],
        extra_free=[f"cudaFree({last});"],
    )
    lines[2:2] = [
        f"  unsigned long long* {last} = nullptr;",
        f"  const size_t {last_bytes} = {out.length} * sizeof(unsigned long long);",
    ]
    return found.candidate(kernels, lines)


def _describe(found: SequentialLoop, array: str, block: int) -> str:
    return (
        f"scattered into `{array}` in two kernels of one thread per iteration of the loop over "
        f"`{found.entry.loop.var}` ({block} threads per block): the first marks each target's "
        "last writer with atomicMax, the second lets only it write, as the loop leaves it"
    )
