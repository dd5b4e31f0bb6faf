"""Put a sequential-to-CUDA rewrite together: kernel parameters, kernel body, final file.

Shared by the map and the reduction rewriters, which differ only in the kernel's shape and
the launch. The loop body is carried into the kernel as written (re-indented, with the few
edits device code needs), so the candidate stays recognisable next to the original.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from regrapht_core.cxx.dependence import LoopFacts
from regrapht_core.cxx.entry import EntryFunction
from regrapht_core.cxx.parse import Node, included_header, node_text
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits, indent_block, render
from regrapht_core.cxx.syntax import identifiers
from regrapht_core.rewrite.hostcode import DeviceBuffer

__all__ = [
    "KernelInterface",
    "assemble",
    "body_lines",
    "kernel_interface",
    "loop_var_type",
    "thread_index",
]


def loop_var_type(entry: EntryFunction) -> str:
    """The induction variable's type; a C-style ``int i;`` before the loop must stay private."""
    loop = entry.loop
    if loop.var_type is not None:
        return loop.var_type
    local = entry.locals.get(loop.var)
    if local is None or not local.scalar:
        raise Refusal(f"cannot find the declaration of the loop variable `{loop.var}`")
    for statement in entry.postlude:
        if any(node_text(n) == loop.var for n in identifiers(statement)):
            raise Refusal(f"the code after the loop reads `{loop.var}`, its final value")
    return " ".join(w for w in local.type.split() if w != "const")


def thread_index(var_type: str, lower: str | None, axis: str = "x") -> str:
    """``lower + global thread index`` in ``var_type`` without 32-bit overflow for 64-bit types."""
    base = f"blockIdx.{axis} * blockDim.{axis} + threadIdx.{axis}"
    if var_type not in ("int", "unsigned", "unsigned int"):
        base = f"static_cast<{var_type}>(blockIdx.{axis}) * blockDim.{axis} + threadIdx.{axis}"
    return base if lower is None else f"{lower} + {base}"


@dataclass(frozen=True, slots=True)
class KernelInterface:
    parameters: tuple[str, ...]
    """Declarations, as in the kernel's parameter list."""
    arguments: tuple[str, ...]
    """What the wrapper passes for each, in the same order."""


def kernel_interface(
    entry: EntryFunction, facts: LoopFacts, buffers: Sequence[DeviceBuffer]
) -> KernelInterface:
    """The entry's parameters and prelude scalars the loop uses, under their own names."""
    device = {b.param.name: b.device for b in buffers}
    parameters, arguments = [], []
    reduced = {r.var for r in facts.reductions}
    for param in entry.params:
        if param.name in facts.used:
            parameters.append(param.declaration)
            arguments.append(device.get(param.name, param.name))
    for local in entry.locals.values():
        if local.name in facts.used and local.name not in reduced:
            if not local.initialised:
                raise Refusal(f"the loop reads `{local.name}`, which may be uninitialised")
            parameters.append(f"{local.type} {local.name}")
            arguments.append(local.name)
    return KernelInterface(tuple(parameters), tuple(arguments))


def body_lines(body: Node, edits: Sequence[Edit], indent: str) -> str:
    """The loop body's statements (without its braces), edited and re-indented."""
    if body.type == "compound_statement":
        inner = [c for c in body.children if c.type not in ("{", "}")]
        if not inner:
            return ""
        start, end = inner[0], inner[-1]
        source = body.text or b""
        local = [e for e in edits if start.start_byte <= e.start and e.end <= end.end_byte]
        chunk = source[start.start_byte - body.start_byte : end.end_byte - body.start_byte]
        rendered = apply_edits(chunk, local, base=start.start_byte)
        return indent_block(rendered, start.start_point[1], indent)
    return indent_block(render(body, edits), body.start_point[1], indent)


def _host_induction_variable(entry: EntryFunction) -> list[Edit]:
    """A C-style ``int i;`` that only served the loop is dead once the loop is a kernel."""
    if entry.loop.var_type is not None:
        return []
    for statement in entry.prelude:
        declarators = statement.children_by_field_name("declarator")
        if statement.type == "declaration" and [node_text(d) for d in declarators] == [
            entry.loop.var
        ]:
            return [Edit.replace(statement, "")]
    return []


def _guarded(
    gpu_lines: Sequence[str], loop: Node, facts: LoopFacts, written: str | None
) -> list[str]:
    """``gpu_lines`` alone, or, when the rewrite assumed conditions (``LoopFacts.guards``),
    run only when they hold, the loop as ``written`` (default: as it is) otherwise: a
    version of the loop for the inputs the proof covers, as compilers version loops."""
    if not facts.guards:
        return list(gpu_lines)
    text = written if written is not None else node_text(loop)
    original = indent_block(text, loop.start_point[1], "  ").splitlines()
    condition = " && ".join(f"({guard})" for guard in facts.guards)
    return [
        f"if ({condition}) {{",
        *(f"  {line}" for line in gpu_lines),
        "} else {",
        *original,
        "}",
    ]


def assemble(
    code: str,
    root: Node,
    entry: EntryFunction,
    facts: LoopFacts,
    *,
    kernels: str,
    gpu_lines: Sequence[str],
    written: str | None = None,
) -> str:
    """The candidate: kernels before the entry, the loop replaced, helpers marked;
    ``written``: the loop the host runs when the facts' guards fail (:func:`_guarded`)."""
    loop = entry.loop.node
    outside = [e for e in facts.edits if not (loop.start_byte <= e.start < loop.end_byte)]
    column = loop.start_point[1]
    replacement = "\n".join(
        (" " * column + line) if number else line
        for number, line in enumerate(_guarded(gpu_lines, loop, facts, written))
    )
    edits = [
        *outside,
        Edit.insert(entry.definition.start_byte, kernels + "\n"),
        Edit.replace(loop, replacement),
        *([] if facts.guards else _host_induction_variable(entry)),
    ]
    result = apply_edits(code.encode("utf-8"), edits)
    includes = {included_header(n) for n in root.named_children if n.type == "preproc_include"}
    if "cuda_runtime.h" not in includes:
        result = "#include <cuda_runtime.h>\n" + result
    return result
