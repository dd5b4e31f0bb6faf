"""What the editor can offer to optimize in a file: loops, functions with loops, kernels.

Called by the language server on code-action requests, often on large files, so the file
is parsed once and the candidates are found by a tree-sitter query (run in C), not by a
Python walk over every node.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from tree_sitter import Node, Point, QueryCursor

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.parse import function_name, parse_source, query

__all__ = ["Target", "TargetKind", "find_targets"]

_PATTERN = """
(function_definition body: (compound_statement)) @function
(for_statement) @loop
(for_range_loop) @loop
(while_statement) @loop
(do_statement) @loop
"""


class TargetKind(StrEnum):
    FUNCTION = "function"
    """A host function containing at least one loop (optimized as seq2cuda)."""
    LOOP = "loop"
    """An outermost loop; optimizing it means optimizing its enclosing function."""
    KERNEL = "kernel"
    """A ``__global__`` function (optimized as kernel2kernel)."""


@dataclass(frozen=True, slots=True)
class Target:
    kind: TargetKind
    function: str
    """The function to extract: the target itself, or the function holding the loop."""
    start: tuple[int, int]
    """Zero-based (line, UTF-8 byte column), as tree-sitter reports them."""
    end: tuple[int, int]


def find_targets(source: str, language: SourceLanguage) -> tuple[Target, ...]:
    """Targets in source order; tolerant of syntax errors elsewhere in the file."""
    tree = parse_source(source, language)
    captures = QueryCursor(query(language, _PATTERN)).captures(tree.root_node)
    functions = sorted(captures.get("function", []), key=lambda n: n.start_byte)
    loops = sorted(captures.get("loop", []), key=lambda n: n.start_byte)
    targets: list[Target] = []
    li = 0
    for fn in functions:
        name = function_name(fn)
        while li < len(loops) and loops[li].start_byte < fn.start_byte:
            li += 1
        inner = []
        end_of_last = -1
        while li < len(loops) and loops[li].end_byte <= fn.end_byte:
            if loops[li].start_byte >= end_of_last:
                inner.append(loops[li])
                end_of_last = loops[li].end_byte
            li += 1
        if name is None:
            continue
        is_kernel = any(c.type == "__global__" for c in fn.children)
        if is_kernel:
            targets.append(_target(TargetKind.KERNEL, name, fn))
        elif inner:
            targets.append(_target(TargetKind.FUNCTION, name, fn))
        if not is_kernel:
            targets += [_target(TargetKind.LOOP, name, lp) for lp in inner]
    return tuple(targets)


def _target(kind: TargetKind, name: str, node: Node) -> Target:
    return Target(kind, name, _point(node.start_point), _point(node.end_point))


def _point(p: Point) -> tuple[int, int]:
    return (p.row, p.column)
