"""Grid-stride loop: each thread walks the data by the grid size, so any grid covers any n.

Applies to the one-thread-per-element shape only. ``return`` inside the guarded body meant
"done with my element"; in the loop it becomes ``continue``. Kernels that synchronise
(``__syncthreads``) or use the thread coordinates beyond the index are refused: threads would
run different trip counts through a barrier, or the body assumes one element per thread.

Two candidates: the kernel alone (same launch), and the kernel with its 1-D launches capped
at ``blocks_per_sm`` (default 32) blocks per multiprocessor, which is where grid-stride
loops pay off (fewer, fuller blocks).
"""

from __future__ import annotations

from regrapht_core.cxx.affine import mentions
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits, render
from regrapht_core.cxx.syntax import NameAllocator, loop_ancestor, parse
from regrapht_core.rewrite.kernels import GuardedKernel, guarded_kernel, kernels, launches
from regrapht_core.rewrite.launch_grid import capped_grid_edits
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)

__all__ = ["GridStrideLoop"]


def _loop_edits(shape: GuardedKernel) -> list[Edit]:
    kernel = shape.kernel
    for node in walk(shape.body):
        if node.type == "call_expression" and node_text(
            node.child_by_field_name("function") or node
        ) in (
            "__syncthreads",
            "__syncwarp",
        ):
            raise Refusal(
                f"`{kernel.name}` synchronises threads; a grid-stride loop could deadlock"
            )
        leaves = node.type == "goto_statement" or (
            node.type == "break_statement"
            and loop_ancestor(node, shape.body) is None
            and not _in_switch(node, shape.body)
        )
        if leaves:
            raise Refusal(f"`{kernel.name}` leaves its element with {node.type.split('_')[0]}")
    if any(mentions(shape.body, name) for name in ("threadIdx", "blockIdx")):
        raise Refusal(f"`{kernel.name}` uses the thread coordinates beyond its element index")
    for node in walk(shape.body):
        if node.type in ("assignment_expression", "update_expression"):
            target = node.child_by_field_name("left") or node.child_by_field_name("argument")
            if target is not None and node_text(target) == shape.var:
                raise Refusal(f"`{kernel.name}` changes its index `{shape.var}`")
    returns = []
    for node in walk(shape.body):
        if node.type == "return_statement":
            if loop_ancestor(node, shape.body) is not None:
                raise Refusal(f"`{kernel.name}` returns from inside a loop of its body")
            returns.append(Edit.replace(node, "continue;"))
    body = render(shape.body, returns)
    op = "<=" if shape.inclusive else "<"
    # A `const` index (`const int i = ...;`) must become assignable: the loop advances it.
    constants = [
        Edit.replace(child, "")
        for child in shape.declaration.children
        if child.type == "type_qualifier" and node_text(child) == "const"
    ]
    index = render(shape.declaration, constants).rstrip(";").strip()
    loop = (
        f"for ({index}; {shape.var} {op} {node_text(shape.bound)}; "
        f"{shape.var} += blockDim.x * gridDim.x) {body}"
    )
    return [Edit.replace(shape.declaration, ""), Edit.replace(shape.guard, loop)]


def _in_switch(node: Node, stop: Node) -> bool:
    current = node.parent
    while current is not None and current != stop:
        if current.type == "switch_statement":
            return True
        current = current.parent
    return False


class GridStrideLoop(RefusingRewriter):
    technique = "grid_stride_loop"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        root = parse(code).root_node
        edits: list[Edit] = []
        reasons, converted = [], []
        for kernel in kernels(root):
            try:
                edits += _loop_edits(guarded_kernel(kernel))
                converted.append(kernel.name)
            except Refusal as refusal:
                reasons.append(refusal.reason)
        if not converted:
            raise Refusal("; ".join(reasons) or "the code has no kernel")
        names = ", ".join(f"`{k}`" for k in converted)
        source = code.encode("utf-8")
        candidates = [
            RewriteCandidate(apply_edits(source, edits), f"turned {names} into grid-stride loops")
        ]
        per_sm = int(params.get("blocks_per_sm", 32))
        sites = [site for name in converted for site in launches(root, name)]
        capped = capped_grid_edits(root, sites, per_sm, NameAllocator(root))
        if capped:
            candidates.append(
                RewriteCandidate(
                    apply_edits(source, edits + capped),
                    f"turned {names} into grid-stride loops and capped their grids at "
                    f"{per_sm} blocks per multiprocessor",
                )
            )
        return candidates
