"""Reductions: a loop that folds its iterations into scalars (sum, count, min, max).

Each thread runs a grid-stride slice of the loop with private copies of the reduction
variables (a sum starts at zero; a min or max at the host's initial value, which is
harmless to fold in twice). Warps combine with ``__shfl_down_sync``, warp leaders through
shared memory, and each block makes one atomic update of a device accumulator that starts
at the host variable's value. The host variable gets the result back, so code after the
loop (``return s;``, ``*out = s / n;``) runs unchanged on the host.

Atomics: ``atomicAdd`` for sums (64-bit integers through ``unsigned long long``, exact in
two's complement), ``atomicMin``/``atomicMax`` for integers, a compare-and-swap loop for
float and double min/max. Float sums are reassociated, so they match the sequential sum
within the task's tolerance, not bit for bit.

A ``std::complex<float|double>`` sum (``cuda::std::complex`` in the pointer form) is two
sums: each thread sums its slice in the complex type, then its real and imaginary parts
travel as two scalar *lanes* (shuffles, shared memory and atomics take scalars) and each
block adds them into the two halves of the device accumulator, whose layout is
``{real, imag}`` as for ``std::complex``.

Parameters: ``block_size`` (a multiple of 32, default 256), ``blocks_per_sm`` (grid cap,
default 8).
"""

from __future__ import annotations

from dataclasses import dataclass

from regrapht_core.cxx.dependence import Reduction, ReductionOp
from regrapht_core.cxx.reductions import complex_part
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.syntax import NameAllocator
from regrapht_core.rewrite.assemble import body_lines, loop_var_type, thread_index
from regrapht_core.rewrite.hostcode import HostNames, gpu_block
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)
from regrapht_core.rewrite.sequential import SequentialLoop, sequential_loop

__all__ = ["ParallelReduction", "combined", "reduction_candidate"]

_WIDE_SIGNED = frozenset({"long", "long int", "long long", "long long int", "int64_t"})
_WIDE_UNSIGNED = frozenset(
    {"unsigned long", "unsigned long long", "size_t", "std::size_t", "uint64_t"}
)
_FLOATS = frozenset({"float", "double"})
_IDENTITY = {ReductionOp.SUM: "0", ReductionOp.PRODUCT: "1"}
"""What a thread starts from and a missing warp contributes, where the host's value may
not be folded in twice."""


@dataclass(frozen=True, slots=True)
class _Lane:
    """One scalar that warps shuffle, warp leaders share and each block adds atomically: a
    reduction variable, or one part of a complex one (shuffles and atomics take scalars)."""

    value: str
    """The thread's variable."""
    type: str
    op: ReductionOp
    empty: str
    """What a missing warp contributes: 0, or the host's initial value of a min or max."""
    shared: str
    """The block's ``__shared__`` array of per-warp values."""
    target: str
    """The device accumulator's address."""
    start: str = ""
    """The declaration that reads the lane off its complex variable after the loop."""


def _lanes(
    reductions: list[Reduction],
    names: NameAllocator,
    accumulator: dict[str, str],
    initial: dict[str, str],
) -> list[_Lane]:
    """A scalar reduction is one lane; a complex sum is two, its real and imaginary parts,
    which add into the two halves of the ``cuda::std::complex`` accumulator (the layout is
    ``{real, imag}``, as for ``std::complex``)."""
    lanes = []
    for r in reductions:
        part = complex_part(r.type)
        if part is None:
            empty = _IDENTITY.get(r.op) or initial[r.var]
            shared = names.fresh(f"{r.var}_warps")
            lanes.append(_Lane(r.var, r.type, r.op, empty, shared, accumulator[r.var]))
            continue
        halves = f"reinterpret_cast<{part}*>({accumulator[r.var]})"
        for suffix, read, offset in (("re", "real", ""), ("im", "imag", " + 1")):
            value = names.fresh(f"{r.var}_{suffix}")
            start = f"{part} {value} = {r.var}.{read}();"
            shared = names.fresh(f"{value}_warps")
            lanes.append(_Lane(value, part, r.op, "0", shared, halves + offset, start))
    return lanes


def _atomic(lane: _Lane, cas: dict[str, str]) -> str:
    kind, op, target, value = lane.type, lane.op, lane.target, lane.value
    if op is ReductionOp.SUM:
        if kind in _WIDE_SIGNED | _WIDE_UNSIGNED:
            return (
                f"atomicAdd(reinterpret_cast<unsigned long long*>({target}), "
                f"static_cast<unsigned long long>({value}));"
            )
        return f"atomicAdd({target}, {value});"
    if kind in _FLOATS:
        return f"{cas[f'{op}:{kind}']}({target}, {value});"
    assert op is not ReductionOp.PRODUCT  # float and double only (cxx.reductions)
    function = "atomicMax" if op is ReductionOp.MAX else "atomicMin"
    if kind in _WIDE_SIGNED:
        return (
            f"{function}(reinterpret_cast<long long*>({target}), static_cast<long long>({value}));"
        )
    if kind in _WIDE_UNSIGNED:
        return (
            f"{function}(reinterpret_cast<unsigned long long*>({target}), "
            f"static_cast<unsigned long long>({value}));"
        )
    return f"{function}({target}, {value});"


def _cas_function(name: str, op: ReductionOp, kind: str) -> str:
    """A float/double min, max or product through ``atomicCAS`` on the bit pattern."""
    better = ">" if op is ReductionOp.MAX else "<"
    if kind == "float":
        bits, to_value, to_bits = "unsigned int", "__uint_as_float(old)", "__float_as_uint(value)"
    else:
        bits = "unsigned long long"
        to_value = "__longlong_as_double(static_cast<long long>(old))"
        to_bits = "static_cast<unsigned long long>(__double_as_longlong(value))"
    if op is ReductionOp.PRODUCT:
        product = to_bits.replace("(value)", f"({to_value} * value)")
        return "\n".join(
            [
                f"__device__ void {name}({kind}* address, {kind} value) {{",
                f"  {bits}* word = reinterpret_cast<{bits}*>(address);",
                f"  {bits} old = *word;",
                f"  {bits} assumed;",
                "  do {",
                "    assumed = old;",
                f"    old = atomicCAS(word, assumed, {product});",
                "  } while (old != assumed);",
                "}",
            ]
        )
    return "\n".join(
        [
            f"__device__ void {name}({kind}* address, {kind} value) {{",
            f"  {bits}* word = reinterpret_cast<{bits}*>(address);",
            f"  {bits} old = *word;",
            f"  while (value {better} {to_value}) {{",
            f"    const {bits} assumed = old;",
            f"    old = atomicCAS(word, assumed, {to_bits});",
            "    if (old == assumed) break;",
            "  }",
            "}",
        ]
    )


def combined(var: str, op: ReductionOp, other: str) -> str:
    """The statement that folds ``other`` into ``var`` (a sum, or a min or max select)."""
    if op is ReductionOp.SUM:
        return f"{var} += {other};"
    if op is ReductionOp.PRODUCT:
        return f"{var} *= {other};"
    better = ">" if op is ReductionOp.MAX else "<"
    return f"{var} = {other} {better} {var} ? {other} : {var};"


def _start(reduction: Reduction, names: _Names) -> str:
    """A thread's private value before its slice: the sum's zero, the product's one, or
    the host's value (a min or max)."""
    if reduction.op is ReductionOp.PRODUCT:
        return f"static_cast<{reduction.type}>(1)"
    if reduction.op is not ReductionOp.SUM:
        return names.initial[reduction.var]
    return f"{reduction.type}()" if complex_part(reduction.type) else "0"


class _Names:
    def __init__(self, names: NameAllocator, found: SequentialLoop, entry_name: str) -> None:
        self.kernel = names.fresh(f"{entry_name}_reduce")
        self.host = HostNames.allocate(names)
        self.offset, self.lane, self.warp = (names.fresh(n) for n in ("offset", "lane", "warp"))
        self.other, self.valid = names.fresh("other"), names.fresh("valid")
        reductions = found.facts.reductions
        self.accumulator = {r.var: names.fresh(f"{r.var}_total") for r in reductions}
        self.device = {r.var: names.fresh(f"d_{r.var}") for r in reductions}
        self.initial = {r.var: names.fresh(f"{r.var}_init") for r in reductions}
        self.lanes = _lanes(reductions, names, self.accumulator, self.initial)
        self.sms, self.device_id = names.fresh("sms"), names.fresh("device")
        self.wanted, self.cap = names.fresh("wanted"), names.fresh("cap")
        kinds = {f"{r.op}:{r.type}" for r in reductions if r.op is not ReductionOp.SUM}
        self.cas = {
            k: names.fresh(f"atomic_{k.split(':')[0]}_{k.split(':')[1]}")
            for k in sorted(kinds)
            if k.split(":")[1] in _FLOATS
        }


def _shuffle_down(names: _Names, indent: str) -> list[str]:
    """Each lane summed (or min/maxed) down its warp: lane 0 ends with the warp's value."""
    offset = names.offset
    lines = [f"{indent}for (int {offset} = 16; {offset} > 0; {offset} >>= 1) {{"]
    for lane in names.lanes:
        shuffled = f"__shfl_down_sync(0xffffffffu, {lane.value}, {offset})"
        lines.append(
            f"{indent}  {{ const {lane.type} {names.other} = {shuffled}; "
            f"{combined(lane.value, lane.op, names.other)} }}"
        )
    return [*lines, f"{indent}}}"]


def _kernel(found: SequentialLoop, names: _Names, parameters: list[str]) -> str:
    loop, reductions, lanes = found.entry.loop, found.facts.reductions, names.lanes
    var_type = loop_var_type(found.entry)
    lower = None if loop.starts_at_zero() else loop.lower_text()
    stride = f"static_cast<{var_type}>(blockDim.x * gridDim.x)"
    lines = [f"__global__ void {names.kernel}({', '.join(parameters)}) {{"]
    lines += [f"  {r.type} {r.var} = {_start(r, names)};" for r in reductions]
    lines += [
        f"  for ({var_type} {loop.var} = {thread_index(var_type, lower)}; {loop.condition()}; "
        f"{loop.var} += {stride}) {{",
        body_lines(loop.body, found.facts.edits, "    "),
        "  }",
        *(f"  {lane.start}" for lane in lanes if lane.start),
        *_shuffle_down(names, "  "),
        *(f"  __shared__ {lane.type} {lane.shared}[32];" for lane in lanes),
        f"  const unsigned int {names.lane} = threadIdx.x % 32u;",
        f"  const unsigned int {names.warp} = threadIdx.x / 32u;",
        f"  if ({names.lane} == 0) {{",
        *(f"    {lane.shared}[{names.warp}] = {lane.value};" for lane in lanes),
        "  }",
        "  __syncthreads();",
        f"  if ({names.warp} == 0) {{",
        f"    const bool {names.valid} = {names.lane} < (blockDim.x + 31u) / 32u;",
        *(
            f"    {lane.value} = {names.valid} ? {lane.shared}[{names.lane}] : "
            f"static_cast<{lane.type}>({lane.empty});"
            for lane in lanes
        ),
        *_shuffle_down(names, "    "),
        f"    if ({names.lane} == 0) {{",
        *(f"      {_atomic(lane, names.cas)}" for lane in lanes),
        "    }",
        "  }",
        "}",
    ]
    helpers = [_cas_function(name, _op(key), key.split(":")[1]) for key, name in names.cas.items()]
    return "\n\n".join([*helpers, "\n".join(lines)])


def _op(key: str) -> ReductionOp:
    return ReductionOp(key.split(":", maxsplit=1)[0])


def reduction_candidate(found: SequentialLoop, block: int = 256, per_sm: int = 8) -> str:
    """The code with ``found``'s loop reduced on the GPU (see the module docstring)."""
    allocator = NameAllocator(found.root)
    buffers, interface = found.interface(allocator)
    names = _Names(allocator, found, found.task.entry)
    reductions = found.facts.reductions
    parameters, arguments = list(interface.parameters), list(interface.arguments)
    for r in reductions:
        if r.op not in _IDENTITY:
            parameters.append(f"{r.type} {names.initial[r.var]}")
            arguments.append(r.var)
        parameters.append(f"{r.type}* {names.accumulator[r.var]}")
        arguments.append(names.device[r.var])
    host = names.host
    setup = [
        f"{host.err} = cudaMalloc(&{names.device[r.var]}, sizeof({r.type}));" for r in reductions
    ]
    setup += [
        f"{host.err} = cudaMemcpy({names.device[r.var]}, &{r.var}, sizeof({r.type}), "
        "cudaMemcpyHostToDevice);"
        for r in reductions
    ]
    setup += [
        f"{host.err} = cudaGetDevice(&{names.device_id});",
        f"{host.err} = cudaDeviceGetAttribute(&{names.sms}, cudaDevAttrMultiProcessorCount, "
        f"{names.device_id});",
    ]
    launch = [
        f"const int {host.block} = {block};",
        f"const long long {names.wanted} = ({host.count} + {host.block} - 1) / {host.block};",
        f"const long long {names.cap} = {names.sms} > 0 ? static_cast<long long>({names.sms}) * "
        f"{per_sm} : 1;",
        f"const unsigned int {host.grid} = static_cast<unsigned int>({names.wanted} < {names.cap} "
        f"? {names.wanted} : {names.cap});",
        f"{names.kernel}<<<{host.grid}, {host.block}>>>({', '.join(arguments)});",
        f"{host.err} = cudaGetLastError();",
    ]
    after = [
        f"{host.err} = cudaMemcpy(&{r.var}, {names.device[r.var]}, sizeof({r.type}), "
        "cudaMemcpyDeviceToHost);"
        for r in reductions
    ]
    lines = gpu_block(
        found.entry.loop.trip_count(),
        buffers,
        launch,
        host,
        extra_setup=setup,
        extra_after=after,
        extra_free=[f"cudaFree({names.device[r.var]});" for r in reductions],
    )
    declarations = [f"{r.type}* {names.device[r.var]} = nullptr;" for r in reductions]
    declarations += [f"int {names.device_id} = 0;", f"int {names.sms} = 0;"]
    lines[2:2] = [f"  {d}" for d in declarations]
    kernel = _kernel(found, names, parameters)
    return found.candidate(kernel, lines)


class ParallelReduction(RefusingRewriter):
    technique = "warp_shuffle_reduction"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        settings = params or {}
        block = int(settings.get("block_size", 256))
        per_sm = int(settings.get("blocks_per_sm", 8))
        if block % 32 or not 32 <= block <= 1024 or per_sm < 1:
            raise Refusal(f"block_size {block} must be a multiple of 32 in 32..1024")
        found = sequential_loop(code, context)
        if not found.facts.reductions:
            raise Refusal("the loop reduces nothing into a scalar; use parallelization instead")
        source = reduction_candidate(found, block, per_sm)
        what = ", ".join(f"{r.op} of `{r.var}`" for r in found.facts.reductions)
        parts = any(complex_part(r.type) for r in found.facts.reductions)
        return [
            RewriteCandidate(
                source,
                f"reduced the loop ({what}) with a grid-stride kernel, warp shuffles and one "
                f"atomic per block{' and complex part' if parts else ''}",
            )
        ]
