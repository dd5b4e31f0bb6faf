"""Privatized updates: the atomic-updates loop with a copy of each added-to array per
block in shared memory, merged into the real one once per block.

With few bins (a byte histogram's 256) every thread of the atomic version contends for the
same few global addresses. Here the threads of a block add into their block's copy (shared
memory atomics, contended only within the block), walk the iterations by the grid's stride
so that a few blocks per multiprocessor cover any trip count, and add the copy's non-zero
counts to the array at the end: each element then receives one atomic per block instead of
one per iteration. The sum is the same; only the order of the additions changes, as with
plain atomics.

The copy's size is fixed when the kernel is compiled: the array's length when the task
gives it as a number (``hist[256]``), else :data:`DEFAULT_BINS` elements. The host checks
the length at run time and launches the plain atomic kernel when a copy would not fit.
"""

from __future__ import annotations

from dataclasses import dataclass

from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.syntax import NameAllocator
from regrapht_core.rewrite.assemble import body_lines, loop_var_type, thread_index
from regrapht_core.rewrite.atomics import (
    AddedLoop,
    added_loop,
    added_type,
    shared_names,
)
from regrapht_core.rewrite.hostcode import HostNames, gpu_block
from regrapht_core.rewrite.launch_grid import capped_grid_helper
from regrapht_core.rewrite.parallelize import block_size, kernel_1d
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)

__all__ = ["DEFAULT_BINS", "SHARED_BYTES", "PrivatizedUpdates"]

DEFAULT_BINS = 4096
"""Elements of a block's copy when the task does not give the array's length as a number."""
SHARED_BYTES = 48 * 1024
"""Static shared memory a block may use without opting in: all copies must fit."""
_SIZES = {"double": 8, "unsigned long long": 8}


@dataclass(frozen=True, slots=True)
class _Copy:
    array: str
    name: str
    """The block's copy, in the kernel."""
    length: str
    """The kernel parameter holding the array's element count."""
    capacity: int
    added: str


class PrivatizedUpdates(RefusingRewriter):
    technique = "privatization"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        block = block_size(params)
        per_sm = int((params or {}).get("blocks_per_sm", 8))
        loop = added_loop(code, context)
        found = loop.found
        names = NameAllocator(found.root)
        copies = [_copy(loop, array, names) for array in loop.types]
        needed = sum(c.capacity * _SIZES.get(c.added, 4) for c in copies)
        if needed > SHARED_BYTES:
            raise Refusal(
                f"a block's copies of {shared_names(loop)} would need {needed} bytes of "
                f"shared memory (at most {SHARED_BYTES})"
            )
        buffers, interface = found.interface(names)
        private, plain = (
            names.fresh(f"{found.task.entry}_private_kernel"),
            names.fresh(f"{found.task.entry}_kernel"),
        )
        capped = names.fresh("capped_grid")
        host = HostNames.allocate(names)
        lengths = {b.param.name: b.length for b in buffers}
        fits = " && ".join(f"{lengths[c.array]} <= {c.capacity}" for c in copies)
        counts = [f"static_cast<long long>({lengths[c.array]})" for c in copies]
        arguments = ", ".join(interface.arguments)
        launch = [
            f"const int {host.block} = {block};",
            f"const long long {host.grid} = ({host.count} + {host.block} - 1) / {host.block};",
            f"if ({fits}) {{",
            f"  {private}<<<{capped}({host.grid}, {per_sm}), {host.block}>>>"
            f"({', '.join([*interface.arguments, *counts])});",
            "} else {",
            f"  {plain}<<<static_cast<unsigned int>({host.grid}), {host.block}>>>({arguments});",
            "}",
            f"{host.err} = cudaGetLastError();",
        ]
        kernels = "\n".join(
            [
                capped_grid_helper(capped),
                _private_kernel(loop, private, interface.parameters, copies, names),
                "",
                kernel_1d(loop.with_edits(loop.atomic_edits()), plain, interface.parameters, None),
            ]
        )
        lines = gpu_block(found.entry.loop.trip_count(), buffers, launch, host)
        sizes = ", ".join(f"{c.capacity} for `{c.array}`" for c in copies)
        return [
            RewriteCandidate(
                found.candidate(kernels, lines),
                f"each block adds into its own shared-memory copy of {shared_names(loop)} "
                f"({sizes} elements), walking the loop over `{found.entry.loop.var}` by the "
                f"grid's stride ({block} threads, at most {per_sm} blocks per multiprocessor), "
                "and adds the copy into the array once; longer arrays get the plain atomic "
                "kernel",
            )
        ]


def _copy(loop: AddedLoop, array: str, names: NameAllocator) -> _Copy:
    length = next(a.length for a in loop.found.task.args if a.name == array) or ""
    capacity = int(length) if length.strip().isdigit() else DEFAULT_BINS
    return _Copy(
        array,
        names.fresh(f"{array}_block"),
        names.fresh(f"{array}_length"),
        capacity,
        added_type(loop.types[array]),
    )


def _private_kernel(
    loop: AddedLoop,
    name: str,
    parameters: tuple[str, ...],
    copies: list[_Copy],
    names: NameAllocator,
) -> str:
    found = loop.found
    counted = found.entry.loop
    var, var_type = counted.var, loop_var_type(found.entry)
    lower = None if counted.starts_at_zero() else counted.lower_text()
    stride = "blockDim.x * gridDim.x"
    if var_type not in ("int", "unsigned", "unsigned int"):
        stride = f"static_cast<{var_type}>(blockDim.x) * gridDim.x"
    edits = [*found.facts.edits, *loop.atomic_edits({c.array: c.name for c in copies})]
    k = names.fresh("k")
    each = f"for (long long {k} = threadIdx.x; {k} < {{length}}; {k} += blockDim.x)"
    declared = [*parameters, *(f"long long {c.length}" for c in copies)]
    lines = [f"__global__ void {name}({', '.join(declared)}) {{"]
    lines += [f"  __shared__ {c.added} {c.name}[{c.capacity}];" for c in copies]
    lines += [f"  {each.format(length=c.length)} {c.name}[{k}] = 0;" for c in copies]
    lines += [
        "  __syncthreads();",
        f"  for ({var_type} {var} = {thread_index(var_type, lower)}; {counted.condition()}; "
        f"{var} += {stride}) {{",
        body_lines(counted.body, edits, "    "),
        "  }",
        "  __syncthreads();",
    ]
    for c in copies:
        target = f"&{c.array}[{k}]"
        if c.added != loop.types[c.array]:
            target = f"reinterpret_cast<unsigned long long*>({target})"
        lines.append(
            f"  {each.format(length=c.length)} if ({c.name}[{k}] != 0) "
            f"atomicAdd({target}, {c.name}[{k}]);"
        )
    lines.append("}")
    return "\n".join(lines)
