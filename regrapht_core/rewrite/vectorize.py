"""Vectorized access: four consecutive floats per thread through one ``float4`` load/store.

Applies to a one-thread-per-element kernel whose body touches ``float`` arrays only at the
thread's own element ``p[i]``. Each thread then handles elements ``4t .. 4t+3``: arrays are
loaded as ``float4``, the body runs once per lane on registers, written arrays are stored
back as ``float4``; the last, partial group falls back to the scalar body in a tail loop.
Launch grids are divided by four to match.

A kernel's grid-stride loop (``for (T i = <thread index>; i < n; i += <grid size>)``, as
the reduction rewriter writes it) becomes a loop over groups of four -- one ``float4`` load
per array, the body once per lane -- plus a scalar loop over the last ``n % 4`` elements,
with the same start and stride; the grid is unchanged (a reduction's grid is already
capped). The loop may only read its arrays: it folds them into thread-private values, and
stores would need a write-back that the reduction loops this targets never need.

``float4`` accesses need 16-byte alignment, so every launch must pass pointers that the
launching function itself got from ``cudaMalloc`` (256-byte aligned) and never offset.
Arrays a lane only writes, unconditionally, are not loaded first; any other array is.
"""

from __future__ import annotations

from dataclasses import dataclass

from regrapht_core.cxx.affine import factors, mentions
from regrapht_core.cxx.loops import compared_bound
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits, indent_block, render
from regrapht_core.cxx.syntax import (
    NameAllocator,
    canon,
    declared_name,
    operator_text,
    parse,
    strip_parens,
)
from regrapht_core.rewrite.kernels import (
    GuardedKernel,
    Kernel,
    allocated_pointers,
    enclosing_function,
    guarded_kernel,
    kernels,
    launches,
    thread_index_offset,
    uncast,
)
from regrapht_core.rewrite.launch_grid import is_dim3
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)

__all__ = ["VectorizedAccess"]

_LANES = ("x", "y", "z", "w")
_FORBIDDEN = frozenset(
    {
        "for_statement",
        "while_statement",
        "do_statement",
        "return_statement",
        "break_statement",
        "continue_statement",
        "goto_statement",
    }
)


def _float_pointers(kernel: Kernel) -> dict[str, bool]:
    """Float pointer parameters -> whether they are declared const."""
    found = {}
    for param in kernel.params:
        declarator = param.child_by_field_name("declarator")
        kind = param.child_by_field_name("type")
        name = declared_name(declarator)
        if declarator is None or declarator.type != "pointer_declarator" or name is None:
            continue
        if kind is not None and node_text(kind) == "float":
            const = any(
                node_text(c) == "const" for c in param.children if c.type == "type_qualifier"
            )
            found[node_text(name)] = const
    return found


def _accesses(
    kernel: Kernel, var: str, body: Node, floats: dict[str, bool]
) -> dict[str, list[Node]]:
    """Every ``p[i]`` in ``body``, by array; refuses any other use of ``i`` or of pointers."""
    by_array: dict[str, list[Node]] = {}
    for node in walk(body):
        if node.type in _FORBIDDEN:
            raise Refusal(
                f"`{kernel.name}` has control flow ({node.type.split('_')[0]}) in its body"
            )
        if node.type != "identifier" or node.parent is None:
            continue
        name = node_text(node)
        parent = node.parent
        subscript = (
            parent.type == "subscript_expression" and parent.child_by_field_name("argument") == node
        )
        if name in kernel.param_names() and subscript:
            indices = parent.child_by_field_name("indices")
            if indices is None or canon(indices).strip("[] ") != var:
                raise Refusal(f"{node_text(parent)!r} is not the thread's own element")
            if name not in floats:
                raise Refusal(f"`{name}` is not a float array")
            by_array.setdefault(name, []).append(parent)
        elif name == var and not (
            parent.type == "subscript_argument_list"
            and parent.named_child_count == 1
            and parent.parent is not None
            and node_text(parent.parent.child_by_field_name("argument") or parent)
            in kernel.param_names()
        ):
            raise Refusal(f"`{kernel.name}` uses its index `{var}` other than as `p[{var}]`")
        elif name in floats:
            raise Refusal(
                f"`{kernel.name}` uses the pointer `{name}` other than as `{name}[{var}]`"
            )
    if any(mentions(body, b) for b in ("threadIdx", "blockIdx", "__syncthreads")):
        raise Refusal(f"`{kernel.name}` uses thread coordinates in its body")
    if not by_array:
        raise Refusal(f"`{kernel.name}` touches no float array")
    return by_array


def _written_only(shape: GuardedKernel, uses: list[Node]) -> bool:
    """Every use is ``p[i] = ...;`` as a statement directly in the guarded body."""
    statements = (
        shape.body.named_children if shape.body.type == "compound_statement" else [shape.body]
    )
    for use in uses:
        parent = use.parent
        if parent is None or parent.type != "assignment_expression":
            return False
        if parent.child_by_field_name("left") != use or node_text(parent.children[1]) != "=":
            return False
        if parent.parent is None or parent.parent not in statements:
            return False
    return True


def _written(uses: dict[str, list[Node]]) -> set[str]:
    """Arrays with a use that is the target of an assignment or an increment."""
    return {
        a
        for a, nodes in uses.items()
        if any(
            n.parent is not None
            and n.parent.type in ("assignment_expression", "update_expression")
            and (n.parent.child_by_field_name("left") or n.parent.child_by_field_name("argument"))
            == n
            for n in nodes
        )
    }


def _aligned_launches(root: Node, kernel: Kernel, arrays: set[str]) -> list[Node]:
    sites = launches(root, kernel.name)
    if not sites:
        raise Refusal(f"`{kernel.name}` is never launched here; pointer alignment is unknown")
    positions = [i for i, n in enumerate(kernel.param_names()) if n in arrays]
    for site in sites:
        function = enclosing_function(site)
        allocated = allocated_pointers(function) if function is not None else set()
        arguments = site.child_by_field_name("arguments")
        values = arguments.named_children if arguments is not None else []
        for position in positions:
            value = strip_parens(values[position]) if position < len(values) else None
            if value is None or value.type != "identifier" or node_text(value) not in allocated:
                raise Refusal(
                    f"a launch of `{kernel.name}` passes a pointer this code did not cudaMalloc, "
                    "so 16-byte alignment is not guaranteed"
                )
    return sites


def _body_statements(body: Node, edits: list[Edit]) -> str:
    rendered = render(body, edits)
    if body.type != "compound_statement":
        rendered = "{ " + rendered + " }"
    return rendered


def _lane_bodies(
    body: Node, uses: dict[str, list[Node]], registers: dict[str, str], column: int, indent: str
) -> list[str]:
    """The body once per ``float4`` lane, each ``p[i]`` read as ``p_v.x`` .. ``p_v.w``."""
    return [
        indent_block(
            _body_statements(
                body,
                [
                    Edit.replace(n, f"{registers[a]}.{lane}")
                    for a, nodes in uses.items()
                    for n in nodes
                ],
            ),
            column,
            indent,
        )
        for lane in _LANES
    ]


def _vector_body(
    shape: GuardedKernel,
    uses: dict[str, list[Node]],
    floats: dict[str, bool],
    names: NameAllocator,
) -> str:
    var, kind, bound = shape.var, shape.var_type, node_text(strip_parens(shape.bound))
    base = names.fresh("base")
    registers = {array: names.fresh(f"{array}_v") for array in uses}
    written = _written(uses)
    lines = [
        "{",
        f"  const {kind} {base} = 4 * static_cast<{kind}>(blockIdx.x * blockDim.x + threadIdx.x);",
        f"  if ({base} + 3 < ({bound})) {{",
    ]
    for array, nodes in uses.items():
        const = "const " if floats[array] else ""
        if array in written and _written_only(shape, nodes):
            lines.append(f"    float4 {registers[array]};")
        else:
            lines.append(
                f"    {'const ' if array not in written else ''}float4 {registers[array]} = "
                f"reinterpret_cast<{const}float4*>({array})[{base} / 4];"
            )
    lines += _lane_bodies(shape.body, uses, registers, shape.guard.start_point[1], "    ")
    lines += [
        f"    reinterpret_cast<float4*>({a})[{base} / 4] = {registers[a]};" for a in sorted(written)
    ]
    lines += [
        "  } else {",
        f"    for ({kind} {var} = {base}; {var} < ({bound}); ++{var}) "
        + indent_block(
            _body_statements(shape.body, []), shape.guard.start_point[1], "    "
        ).lstrip(),
        "  }",
        "}",
    ]
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class _StrideLoop:
    """``for (T i = <thread index>; i < bound; i += <grid size>) body`` in a kernel."""

    node: Node
    var: str
    var_type: str
    start: Node
    bound: Node
    stride: Node
    body: Node


def _stride_loop(kernel: Kernel) -> _StrideLoop | None:
    """The kernel's top-level loop that starts at the thread index (``None``: it has none);
    refuses such a loop unless it is a grid-stride loop over ``0 .. bound``."""
    found = []
    for statement in kernel.body.named_children:
        init = statement.child_by_field_name("initializer")
        declarators = init.children_by_field_name("declarator") if init is not None else []
        if statement.type != "for_statement" or init is None or len(declarators) != 1:
            continue
        name, value = (declarators[0].child_by_field_name(f) for f in ("declarator", "value"))
        if name is not None and value is not None and thread_index_offset(value) is not None:
            found.append((statement, init, node_text(name), value))
    if not found:
        return None
    if len(found) > 1:
        raise Refusal(f"`{kernel.name}` has {len(found)} loops over its thread index")
    loop, init, var, start = found[0]
    if thread_index_offset(start):
        raise Refusal(f"the grid-stride loop of `{kernel.name}` does not start at element 0")
    condition, update = (loop.child_by_field_name(f) for f in ("condition", "update"))
    compared = compared_bound(condition, var) if condition is not None else None
    if compared is None or compared[0] != "<":
        raise Refusal(f"the grid-stride loop of `{kernel.name}` does not run while `{var} < n`")
    bound = strip_parens(compared[1])
    target = update.child_by_field_name("left") if update is not None else None
    stride = update.child_by_field_name("right") if update is not None else None
    if (
        update is None
        or update.type != "assignment_expression"
        or operator_text(update) != "+="
        or target is None
        or canon(target) != var
        or stride is None
        or sorted(canon(uncast(f)) for f in factors(uncast(stride)))
        != ["blockDim . x", "gridDim . x"]
    ):
        raise Refusal(f"the loop of `{kernel.name}` does not step by the grid size")
    scalars = {n for n in kernel.param_names() if n not in _float_pointers(kernel)}
    if bound.type != "identifier" or node_text(bound) not in scalars:
        raise Refusal(f"the grid-stride loop of `{kernel.name}` is not bounded by a parameter")
    body, kind = loop.child_by_field_name("body"), init.child_by_field_name("type")
    if body is None or kind is None:
        raise Refusal(f"the grid-stride loop of `{kernel.name}` is incomplete")
    assigned = (
        n.child_by_field_name("left") or n.child_by_field_name("argument")
        for n in walk(kernel.body)
        if n.type in ("assignment_expression", "update_expression")
    )
    if any(t is not None and canon(t) == node_text(bound) for t in assigned):
        raise Refusal(f"`{kernel.name}` changes its bound `{node_text(bound)}`")
    return _StrideLoop(loop, var, node_text(kind), start, bound, stride, body)


def _vector_loop(loop: _StrideLoop, uses: dict[str, list[Node]], names: NameAllocator) -> str:
    """Groups of four through ``float4`` registers, then the scalar loop over the rest."""
    column = loop.node.start_point[1]
    var, kind, bound = loop.var, loop.var_type, node_text(loop.bound)
    start, stride = node_text(loop.start), node_text(loop.stride)
    groups, group = names.fresh("groups"), names.fresh("g")
    registers = {array: names.fresh(f"{array}_v") for array in uses}
    lines = [
        f"const {kind} {groups} = {bound} / 4;",
        f"for ({kind} {group} = {start}; {group} < {groups}; {group} += {stride}) {{",
        *(
            f"  const float4 {registers[a]} = reinterpret_cast<const float4*>({a})[{group}];"
            for a in uses
        ),
        *_lane_bodies(loop.body, uses, registers, column, "  "),
        "}",
        f"for ({kind} {var} = 4 * {groups} + {start}; {var} < {bound}; {var} += {stride}) "
        + indent_block(_body_statements(loop.body, []), column, "").lstrip(),
    ]
    text = "\n".join(lines).splitlines()
    return "\n".join(t if i == 0 or not t else " " * column + t for i, t in enumerate(text))


class VectorizedAccess(RefusingRewriter):
    technique = "vectorized_access"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        root = parse(code).root_node
        names = NameAllocator(root)
        edits, done, reasons = [], [], []
        for kernel in kernels(root):
            try:
                loop = _stride_loop(kernel)
                if loop is not None:
                    edits += self._loop_edits(root, kernel, loop, names)
                    done.append(f"the grid-stride loop of `{kernel.name}`")
                    continue
                shape = guarded_kernel(kernel)
                if shape.offset or shape.inclusive:
                    raise Refusal(f"`{kernel.name}` does not start at element 0 with `i < n`")
                floats = _float_pointers(kernel)
                uses = _accesses(kernel, shape.var, shape.body, floats)
                grids = []
                for site in _aligned_launches(root, kernel, set(uses)):
                    syntax = next(c for c in site.children if c.type == "kernel_call_syntax")
                    grids.append(syntax.named_children[0])
                    if is_dim3(grids[-1], enclosing_function(site)):
                        raise Refusal(f"a launch of `{kernel.name}` uses a dim3 grid")
            except Refusal as refusal:
                reasons.append(refusal.reason)
                continue
            edits.append(Edit.replace(kernel.body, _vector_body(shape, uses, floats, names)))
            edits += [Edit.replace(grid, f"({node_text(grid)} + 3) / 4") for grid in grids]
            done.append(f"`{kernel.name}`")
        if not edits:
            raise Refusal("; ".join(reasons) or "the code has no kernel")
        return [
            RewriteCandidate(
                apply_edits(code.encode("utf-8"), edits),
                f"vectorized {', '.join(done)} to float4 accesses (4 elements at a time, "
                "scalar tail)",
            )
        ]

    @staticmethod
    def _loop_edits(
        root: Node, kernel: Kernel, loop: _StrideLoop, names: NameAllocator
    ) -> list[Edit]:
        """The grid-stride loop vectorized; its arrays must be float arrays it only reads."""
        uses = _accesses(kernel, loop.var, loop.body, _float_pointers(kernel))
        written = _written(uses)
        if written:
            raise Refusal(
                f"the grid-stride loop of `{kernel.name}` writes `{sorted(written)[0]}`; "
                "only loops that read their arrays are vectorized"
            )
        _aligned_launches(root, kernel, set(uses))
        return [Edit.replace(loop.node, _vector_loop(loop, uses, names))]
