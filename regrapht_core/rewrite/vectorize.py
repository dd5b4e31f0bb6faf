"""Vectorized access: four consecutive floats per thread through one ``float4`` load/store.

Applies to a one-thread-per-element kernel whose body touches ``float`` arrays only at the
thread's own element ``p[i]``. Each thread then handles elements ``4t .. 4t+3``: arrays are
loaded as ``float4``, the body runs once per lane on registers, written arrays are stored
back as ``float4``; the last, partial group falls back to the scalar body in a tail loop.
Launch grids are divided by four to match.

``float4`` accesses need 16-byte alignment, so every launch must pass pointers that the
launching function itself got from ``cudaMalloc`` (256-byte aligned) and never offset.
Arrays a lane only writes, unconditionally, are not loaded first; any other array is.
"""

from __future__ import annotations

from regrapht_core.cxx.affine import mentions
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits, indent_block, render
from regrapht_core.cxx.syntax import NameAllocator, canon, declared_name, parse, strip_parens
from regrapht_core.rewrite.kernels import (
    GuardedKernel,
    Kernel,
    allocated_pointers,
    enclosing_function,
    guarded_kernel,
    kernels,
    launches,
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


def _accesses(shape: GuardedKernel, floats: dict[str, bool]) -> dict[str, list[Node]]:
    """Every ``p[i]`` in the body, by array; refuses any other use of ``i`` or of pointers."""
    kernel, var = shape.kernel, shape.var
    by_array: dict[str, list[Node]] = {}
    for node in walk(shape.body):
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
            parent.type == "subscript_argument_list" and parent.named_child_count == 1
        ):
            raise Refusal(f"`{kernel.name}` uses its index `{var}` other than as `p[{var}]`")
        elif name in floats:
            raise Refusal(
                f"`{kernel.name}` uses the pointer `{name}` other than as `{name}[{var}]`"
            )
    if any(mentions(shape.body, b) for b in ("threadIdx", "blockIdx", "__syncthreads")):
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


def _aligned_launches(root: Node, kernel: Kernel, arrays: set[str]) -> list[Node]:
    sites = launches(root, kernel.name)
    if not sites:
        raise Refusal(f"`{kernel.name}` is never launched here; pointer alignment is unknown")
    positions = [i for i, n in enumerate(kernel.param_names()) if n in arrays]
    for site in sites:
        function = enclosing_function(site)
        syntax = next(c for c in site.children if c.type == "kernel_call_syntax")
        if is_dim3(syntax.named_children[0], function):
            raise Refusal(f"a launch of `{kernel.name}` uses a dim3 grid")
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


def _vector_body(
    shape: GuardedKernel,
    uses: dict[str, list[Node]],
    floats: dict[str, bool],
    names: NameAllocator,
) -> str:
    var, kind, bound = shape.var, shape.var_type, node_text(strip_parens(shape.bound))
    base = names.fresh("base")
    registers = {array: names.fresh(f"{array}_v") for array in uses}
    written = {
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
    for lane in _LANES:
        edits = [
            Edit.replace(n, f"{registers[a]}.{lane}") for a, nodes in uses.items() for n in nodes
        ]
        lines.append(
            indent_block(_body_statements(shape.body, edits), shape.guard.start_point[1], "    ")
        )
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
                shape = guarded_kernel(kernel)
                if shape.offset or shape.inclusive:
                    raise Refusal(f"`{kernel.name}` does not start at element 0 with `i < n`")
                floats = _float_pointers(kernel)
                uses = _accesses(shape, floats)
                sites = _aligned_launches(root, kernel, set(uses))
            except Refusal as refusal:
                reasons.append(refusal.reason)
                continue
            edits.append(Edit.replace(kernel.body, _vector_body(shape, uses, floats, names)))
            for site in sites:
                syntax = next(c for c in site.children if c.type == "kernel_call_syntax")
                grid = syntax.named_children[0]
                edits.append(Edit.replace(grid, f"({node_text(grid)} + 3) / 4"))
            done.append(f"`{kernel.name}`")
        if not edits:
            raise Refusal("; ".join(reasons) or "the code has no kernel")
        return [
            RewriteCandidate(
                apply_edits(code.encode("utf-8"), edits),
                f"vectorized {', '.join(done)} to float4 loads and stores (4 elements per "
                "thread, scalar tail)",
            )
        ]
