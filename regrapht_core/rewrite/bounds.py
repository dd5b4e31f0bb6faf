"""Loop bounds read from a read-only array, hoisted before the loop.

``for (int p = 0; p < row_ptr[n]; ++p)`` (the edges of a CSR graph, the end of a segment)
evaluates ``row_ptr[n]`` before every iteration, as C++ evaluates a condition; a kernel's
thread count is fixed before its launch, so the analysis refuses a bound that reads memory.
When the array is a parameter whose elements the function promises not to write (a
``const`` pointee; pointer arguments are assumed not to alias, as everywhere in the
analysis) and nothing in the loop changes a name the subscript reads, every evaluation reads
the same element. The read then moves before the loop, once, into a ``const`` local of the
array's element type (so the comparison converts as written), and the loop's bound is that
local, which the host evaluates before the launch.

Only the entry's top-level ``for`` loops are rewritten (the loops a rewriter maps), and only
subscripts of the loop's start and condition; a subscript whose index calls a function, or
reads the loop variable or a name the loop changes (assigns, steps, takes the address of, or
passes to a call, which may take it by reference), stays as it is, and with it the
refusal.
"""

from __future__ import annotations

from regrapht_core.contracts.task import Task
from regrapht_core.cxx.definitions import changed
from regrapht_core.cxx.entry import entry_loops
from regrapht_core.cxx.params import Parameter, parameters
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.syntax import NameAllocator, parse, strip_parens

__all__ = ["hoisted_bounds"]


def hoisted_bounds(code: str, task: Task) -> str:
    """``code`` with the read-only array reads of its top-level loops' bounds hoisted (the
    code as it is when there are none, or when the entry cannot be found)."""
    root = parse(code).root_node
    try:
        loops = entry_loops(root, task)
    except Refusal:
        return code
    if not loops or loops[0].parent is None or loops[0].parent.parent is None:
        return code
    params = {p.name: p for p in parameters(loops[0].parent.parent) or () if p.name}
    names = NameAllocator(root)
    edits: list[Edit] = []
    for loop in loops:
        edits.extend(_hoisted(loop, params, names))
    return apply_edits(code.encode("utf-8"), edits) if edits else code


def _hoisted(loop: Node, params: dict[str, Parameter], names: NameAllocator) -> list[Edit]:
    """The edits moving the loop's hoistable bound reads before it."""
    if loop.type != "for_statement":
        return []
    changing = _changing(loop)
    indent = " " * loop.start_point[1]
    edits, declarations = [], []
    for part in ("initializer", "condition"):
        node = loop.child_by_field_name(part)
        for read in _reads(node, params, changing) if node is not None else ():
            array = node_text(strip_parens(read.child_by_field_name("argument") or read))
            local = names.fresh(f"{array}_bound")
            declarations.append(f"const {params[array].element} {local} = {node_text(read)};")
            edits.append(Edit.replace(read, local))
    if declarations:
        edits.append(Edit.insert(loop.start_byte, f"\n{indent}".join(declarations) + f"\n{indent}"))
    return edits


def _changing(loop: Node) -> set[str]:
    """Names the loop may change: its variable, what it assigns, steps or takes the address
    of, and every name it passes to a call as it is."""
    found: set[str] = set()
    for node in walk(loop):
        target = changed(node)
        if target is not None:
            found |= {node_text(n) for n in walk(target) if n.type == "identifier"}
        if node.type == "argument_list":
            found |= {
                node_text(strip_parens(a))
                for a in node.named_children
                if strip_parens(a).type == "identifier"
            }
    initializer = loop.child_by_field_name("initializer")
    if initializer is not None:  # the loop variable, declared or assigned there
        found |= {
            node_text(n.child_by_field_name("declarator") or n)
            for n in walk(initializer)
            if n.type == "init_declarator"
        }
    return found


def _reads(node: Node, params: dict[str, Parameter], changing: set[str]) -> list[Node]:
    """The outermost subscripts in ``node`` of a read-only array parameter whose index the
    loop cannot change."""
    found: list[Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "subscript_expression" and _hoistable(current, params, changing):
            found.append(current)
            continue
        stack.extend(current.named_children)
    return sorted(found, key=lambda n: n.start_byte)


def _hoistable(read: Node, params: dict[str, Parameter], changing: set[str]) -> bool:
    array = strip_parens(read.child_by_field_name("argument") or read)
    param = params.get(node_text(array)) if array.type == "identifier" else None
    if param is None or not param.const or param.pointers != 1 or param.container:
        return False
    index = read.child_by_field_name("indices") or read.child_by_field_name("index")
    if index is None:
        return False
    for n in walk(index):
        if n.type in ("call_expression", "assignment_expression", "update_expression"):
            return False
        if n.type == "subscript_expression" and not _hoistable(n, params, changing):
            return False
        if n.type == "identifier" and node_text(n) in changing:
            return False
    return True
