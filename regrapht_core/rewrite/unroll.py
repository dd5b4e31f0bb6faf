"""Loop unrolling: ``#pragma unroll`` on the loops inside device code.

Two candidates, each only when it has something to do: full unrolling of loops whose trip
count is fixed at compile time (literal or macro/constant bounds), and ``#pragma unroll 4``
on inner loops whose bound is only known at run time (the compiler adds the remainder
loop). Loops already under a pragma, and loops that do not start their own line (where a
directive cannot go), are left alone.
"""

from __future__ import annotations

from regrapht_core.cxx.functions import function_definitions
from regrapht_core.cxx.loops import counted_loop
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.symbols import file_symbols
from regrapht_core.cxx.syntax import parse
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)

__all__ = ["LoopUnrolling"]


def _device_functions(root: Node) -> list[Node]:
    return [
        d
        for d in function_definitions(root)
        if any(c.type in ("__global__", "__device__") for c in d.children)
    ]


def _starts_line(node: Node, source: bytes) -> bool:
    line_start = source.rfind(b"\n", 0, node.start_byte) + 1
    return source[line_start : node.start_byte].strip() == b""


def _has_pragma(node: Node) -> bool:
    previous = node.prev_sibling
    return (
        previous is not None and previous.type == "preproc_call" and "unroll" in node_text(previous)
    )


class LoopUnrolling(RefusingRewriter):
    technique = "loop_unrolling"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        factor = int(params.get("factor", 4))
        if not 2 <= factor <= 32:
            raise Refusal(f"unroll factor {factor} is outside 2..32")
        tree = parse(code)
        root, source = tree.root_node, code.encode("utf-8")
        symbols = file_symbols(root)
        fixed, runtime = [], []
        for function in _device_functions(root):
            for node in walk(function):
                if (
                    node.type != "for_statement"
                    or _has_pragma(node)
                    or not _starts_line(node, source)
                ):
                    continue
                try:
                    loop = counted_loop(node)
                except Refusal:
                    continue
                constant = all(
                    n.type == "number_literal"
                    or (n.type == "identifier" and symbols.plain_name(node_text(n)))
                    for bound in loop.bounds()
                    for n in walk(bound)
                    if n.is_named
                    and n.type not in ("binary_expression", "parenthesized_expression")
                )
                if constant:
                    fixed.append(node)
                elif not _is_thread_loop(node):
                    runtime.append(node)
        candidates = []
        if fixed:
            edits = [
                Edit.insert(n.start_byte, "#pragma unroll\n" + " " * n.start_point[1])
                for n in fixed
            ]
            candidates.append(
                RewriteCandidate(
                    apply_edits(source, edits),
                    f"fully unrolled {len(fixed)} fixed-trip loop(s) with #pragma unroll",
                )
            )
        if runtime:
            edits = [
                Edit.insert(n.start_byte, f"#pragma unroll {factor}\n" + " " * n.start_point[1])
                for n in runtime
            ]
            candidates.append(
                RewriteCandidate(
                    apply_edits(source, edits),
                    f"unrolled {len(runtime)} run-time-bound loop(s) by {factor}",
                )
            )
        if not candidates:
            raise Refusal("no loop in device code can take an unroll pragma")
        return candidates


def _is_thread_loop(node: Node) -> bool:
    """A grid-stride loop over the data: unrolling it buys nothing and bloats code."""
    update = node.child_by_field_name("update")
    return update is not None and "gridDim" in node_text(update)
