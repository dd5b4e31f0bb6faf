"""The host side of a sequential-to-CUDA rewrite: device buffers, copies, launch, cleanup.

The wrapper keeps the entry's signature and body; only the loop statement is replaced by a
block that owns its device memory for the duration of the call. Errors never escape as
I/O: every CUDA call's status feeds one ``cudaError_t``, later steps run only while it is
``cudaSuccess``, and every buffer is freed on every path. An empty loop launches nothing.

Buffer lengths come from the task's argument spec (``length = "n * m"``) rewritten over
the entry's own parameter names, in ``size_t`` so a product of ``int`` sizes cannot wrap.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

from regrapht_core.contracts.task import ParamKind, Role, Task
from regrapht_core.cxx.dependence import LoopFacts
from regrapht_core.cxx.entry import EntryFunction
from regrapht_core.cxx.params import Parameter
from regrapht_core.cxx.parse import node_text
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.syntax import NameAllocator, canon, identifiers

__all__ = [
    "DeviceBuffer",
    "HostNames",
    "buffer_plan",
    "capped_grid",
    "gpu_block",
    "length_in_params",
]


@dataclass(frozen=True, slots=True)
class DeviceBuffer:
    param: Parameter
    device: str
    bytes: str
    length: str
    """Element count as a C ``size_t`` expression over the entry's parameters."""
    copy_in: bool
    copy_out: bool
    partial: bool = False
    """Not uploaded, and the loop may write fewer than ``length`` elements: only the trip
    count's worth comes back, so the elements past it keep the caller's values."""


@dataclass(frozen=True, slots=True)
class HostNames:
    """Wrapper locals, fresh so they cannot capture the user's names."""

    count: str
    err: str
    block: str
    grid: str
    device: str
    pool: str

    @classmethod
    def allocate(cls, names: NameAllocator) -> HostNames:
        return cls(
            names.fresh("count"),
            names.fresh("err"),
            names.fresh("block"),
            names.fresh("grid"),
            names.fresh("device"),
            names.fresh("pool"),
        )


_C_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Mod: "%"}
_C_OPS |= {ast.LShift: "<<", ast.RShift: ">>"}


def _size_variables(task: Task) -> dict[str, str]:
    """Size variable -> the scalar parameter that carries it (``n`` -> ``len`` if needed)."""
    mapping: dict[str, str] = {}
    for arg in task.args:
        if arg.kind is ParamKind.SCALAR and arg.value is not None:
            value = arg.value.strip()
            if value.isidentifier():
                mapping.setdefault(value, arg.name)
    for arg in task.args:
        if arg.kind is ParamKind.SCALAR:
            mapping[arg.name] = arg.name
    for name, offsets in _counts_in_offsets(task, mapping):
        mapping.setdefault(name, offsets)
    return mapping


_COMPANIONS = {"csr": "col", "graph": "adj"}
"""Structured inputs whose offsets array ends with the length of a companion array."""


def _counts_in_offsets(task: Task, mapping: dict[str, str]) -> list[tuple[str, str]]:
    """Counts held only by an input offsets array: ``nnz`` is ``row_ptr[m]`` when the task
    draws ``row_ptr[m+1] ~ csr(col=col_idx)`` with ``col_idx[nnz]``. The host wrapper reads
    it before sizing the buffers, as a CSR routine without an ``nnz`` parameter must."""
    found = []
    for arg in task.args:
        companion = arg.dist.param(_COMPANIONS.get(arg.dist.kind, ""))
        if arg.role is not Role.IN or arg.length is None or companion is None:
            continue
        try:
            rows = ast.parse(arg.length.strip(), mode="eval").body
            count = ast.parse(task.arg(companion).length or "", mode="eval").body
        except (SyntaxError, KeyError):
            continue
        if (
            isinstance(rows, ast.BinOp)
            and isinstance(rows.op, ast.Add)
            and isinstance(rows.left, ast.Name)
            and rows.left.id in mapping
            and isinstance(rows.right, ast.Constant)
            and rows.right.value == 1
            and isinstance(count, ast.Name)
        ):
            found.append((count.id, f"{arg.name}[{mapping[rows.left.id]}]"))
    return found


def length_in_params(param: str, task: Task) -> tuple[str, str | None]:
    """The C element count of ``param``, and the parameter it equals when it is just one."""
    spec = task.arg(param)
    if spec.length is None:
        raise Refusal(f"the task gives no length for `{param}`")
    try:
        tree = ast.parse(spec.length.strip(), mode="eval").body
    except SyntaxError:
        raise Refusal(f"cannot read the length `{spec.length}` of `{param}`") from None
    mapping = _size_variables(task)

    def emit(node: ast.expr) -> str:
        if isinstance(node, ast.Name):
            if node.id not in mapping:
                raise Refusal(
                    f"the length `{spec.length}` of `{param}` uses `{node.id}`, which no "
                    "scalar parameter carries"
                )
            return f"static_cast<size_t>({mapping[node.id]})"
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return str(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _C_OPS:
            return f"({emit(node.left)} {_C_OPS[type(node.op)]} {emit(node.right)})"
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            # ``-k + n + 1``, a convolution's output: unsigned, it wraps back into range
            return f"(0 - {emit(node.operand)})"
        raise Refusal(f"cannot turn the length `{spec.length}` of `{param}` into C")

    single = mapping.get(tree.id) if isinstance(tree, ast.Name) else None
    return emit(tree), single


def _covered(entry: EntryFunction, facts: LoopFacts, array: str, task: Task) -> bool | None:
    """Whether the loop writes ``array`` from index 0 on every trip before anyone reads it.

    Only then may the copy to the device be skipped, and only the elements written come
    back: any element the loop left alone would otherwise return as whatever ``cudaMalloc``
    handed out. ``None`` when the upload is needed; ``True`` when the loop covers the
    whole array, ``False`` when it covers a prefix as long as its trip count.
    """
    loop = facts.loop
    accesses = [a for a in facts.accesses if a.array == array]
    if any(a.read for a in accesses) or facts.outer_continues:
        return None
    if not loop.starts_at_zero() or loop.inclusive or loop.shifted:
        return None
    _, single = length_in_params(array, task)
    for statement in entry.prelude:
        if any(node_text(n) in (array, single) for n in identifiers(statement)):
            return None
    statements = loop.body.named_children if loop.body.type == "compound_statement" else [loop.body]
    for statement in statements:
        expression = statement.named_children[0] if statement.named_child_count else None
        if statement.type != "expression_statement" or expression is None:
            continue
        if expression.type != "assignment_expression" or expression.children[1].type != "=":
            continue
        left = expression.child_by_field_name("left")
        if left is None or left.type != "subscript_expression":
            continue
        base, indices = left.child_by_field_name("argument"), left.child_by_field_name("indices")
        if base is None or node_text(base) != array or indices is None:
            continue
        if canon(indices).strip("[] ") != loop.var:
            return None
        return single is not None and canon(loop.upper) == single
    return None


def buffer_plan(
    entry: EntryFunction, facts: LoopFacts, task: Task, names: NameAllocator
) -> list[DeviceBuffer]:
    """One device buffer per pointer the loop touches, with the copies it needs."""
    plan = []
    for param in entry.params:
        if not param.pointer or param.name not in facts.used:
            continue
        length, _ = length_in_params(param.name, task)
        written = param.name in facts.written
        if written and param.const:
            raise Refusal(f"the loop writes `{param.name}`, which is declared const")
        covered = _covered(entry, facts, param.name, task) if written else None
        plan.append(
            DeviceBuffer(
                param,
                names.fresh(f"d_{param.name}"),
                names.fresh(f"{param.name}_bytes"),
                length,
                copy_in=covered is None,
                copy_out=written,
                partial=covered is False,
            )
        )
    return plan


def _returned_bytes(buffer: DeviceBuffer, count: str) -> str:
    """The bytes copied back: all of them, or the trip count's worth (never past the end)."""
    if not buffer.partial:
        return buffer.bytes
    written = f"static_cast<size_t>({count})"
    return (
        f"({written} < {buffer.length} ? {written} : {buffer.length}) "
        f"* sizeof({buffer.param.element})"
    )


def _pooled_allocations(buffers: Sequence[DeviceBuffer], names: HostNames) -> list[str]:
    """The buffers come from the device's default stream-ordered pool, told to keep its
    memory: from the second call on, allocation and free cost no driver mapping. A plain
    ``cudaMalloc``/``cudaFree`` pair cost 0.15 ms of a 0.86 ms map over 2^20 floats on the
    H200, and 1.6 of 4.9 ms over 2^22 (benchmarks/results/gpu-h200-transfers.json). The pool
    then holds this function's largest working set, as PyTorch's and CuPy's caching
    allocators do; ``cudaMemPoolTrimTo`` gives it back. A zero-byte buffer stays null."""
    if not buffers:
        return []
    err, device, pool = names.err, names.device, names.pool
    lines = [
        f"int {device} = 0;",
        f"cudaMemPool_t {pool} = nullptr;",
        f"if ({err} == cudaSuccess) {err} = cudaGetDevice(&{device});",
        f"if ({err} == cudaSuccess) {err} = cudaDeviceGetDefaultMemPool(&{pool}, {device});",
        f"if ({err} == cudaSuccess) {{",
        "  unsigned long long keep = ~0ull;",
        f"  {err} = cudaMemPoolSetAttribute({pool}, cudaMemPoolAttrReleaseThreshold, &keep);",
        "}",
    ]
    lines += [
        f"if ({err} == cudaSuccess && {b.bytes} > 0) "
        f"{err} = cudaMallocAsync(&{b.device}, {b.bytes}, 0);"
        for b in buffers
    ]
    return lines


def capped_grid(grid: str, wanted: str, blocks: str, cap: str) -> list[str]:
    """Launch lines: ``grid`` blocks, the ``blocks`` the work wants (a 64-bit expression,
    held in ``wanted``) but at most ``cap``, for kernels that stride over the rest."""
    return [
        f"const long long {wanted} = {blocks};",
        f"const unsigned int {grid} = static_cast<unsigned int>({wanted} < {cap} ? {wanted} : "
        f"{cap});",
    ]


def gpu_block(
    trip_count: str,
    buffers: list[DeviceBuffer],
    launch: list[str],
    names: HostNames,
    *,
    extra_setup: Sequence[str] = (),
    extra_after: Sequence[str] = (),
    extra_free: Sequence[str] = (),
) -> list[str]:
    """The statement that replaces the loop, as lines (indented from column 0).

    ``launch`` runs with ``err == cudaSuccess`` and must leave the launch status in ``err``;
    ``extra_setup``/``extra_after`` are steps chained on ``err`` before and after it.
    """
    err = names.err
    lines = [f"const long long {names.count} = {trip_count};", f"if ({names.count} > 0) {{"]
    body = [f"{b.param.element}* {b.device} = nullptr;" for b in buffers]
    body += [f"const size_t {b.bytes} = {b.length} * sizeof({b.param.element});" for b in buffers]
    body.append(f"cudaError_t {err} = cudaSuccess;")
    body += _pooled_allocations(buffers, names)
    steps = [
        f"{err} = cudaMemcpy({b.device}, {b.param.name}, {b.bytes}, cudaMemcpyHostToDevice);"
        for b in buffers
        if b.copy_in
    ]
    steps += list(extra_setup)
    body += [f"if ({err} == cudaSuccess) {step}" for step in steps]
    body.append(f"if ({err} == cudaSuccess) {{")
    body += [f"  {line}" for line in launch]
    body.append("}")
    after = [f"{err} = cudaDeviceSynchronize();"]
    after += [
        f"{err} = cudaMemcpy({b.param.name}, {b.device}, {_returned_bytes(b, names.count)}, "
        "cudaMemcpyDeviceToHost);"
        for b in buffers
        if b.copy_out
    ]
    after += list(extra_after)
    body += [f"if ({err} == cudaSuccess) {step}" for step in after]
    body += [f"if ({b.device} != nullptr) cudaFreeAsync({b.device}, 0);" for b in buffers]
    body += list(extra_free)
    lines += [f"  {line}" for line in body]
    lines.append("}")
    return lines
