"""Host-device transfers: drop copies nobody reads, pin the buffers the code owns.

**Transfer minimization** removes ``cudaMemcpy(d, h, ..., cudaMemcpyHostToDevice)`` of an
output-only argument (role ``out`` in the task) when the one kernel launched on ``d``
overwrites every element before anything reads it: a one-thread-per-element kernel that
stores ``p[i] = ...`` unconditionally, never reads ``p``, guards with ``i < bound``, and is
launched on ``(bound + B-1) / B`` blocks of ``B`` with ``bound`` the argument's length.
Anything short of that proof keeps the copy: an unwritten element would come back as
whatever ``cudaMalloc`` left there.

**Pinned memory** only touches host buffers the function itself allocates with ``malloc``
and moves with ``cudaMemcpy``: those become ``cudaMallocHost``/``cudaFreeHost``. The
caller's own buffers are never pinned: page-locking them on every call costs more than the
faster copy saves.
"""

from __future__ import annotations

from regrapht_core.contracts.task import ParamKind, Role, Task
from regrapht_core.cxx.affine import literal_int, uses
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.syntax import canon, declared_name, parse, strip_parens
from regrapht_core.rewrite.hostcode import length_in_params
from regrapht_core.rewrite.kernels import Kernel, guarded_kernel, kernels
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)

__all__ = ["PinnedMemory", "TransferMinimization"]


def _calls(root: Node, name: str) -> list[tuple[Node, list[Node]]]:
    found = []
    for node in walk(root):
        if node.type != "call_expression":
            continue
        function, arguments = (
            node.child_by_field_name("function"),
            node.child_by_field_name("arguments"),
        )
        if function is not None and node_text(function) == name and arguments is not None:
            found.append((node, list(arguments.named_children)))
    return found


def _overwrites(kernel: Kernel, position: int) -> Node | None:
    """The guard bound when ``kernel`` stores every element of parameter ``position``."""
    try:
        shape = guarded_kernel(kernel)
    except Refusal:
        return None
    if shape.offset or shape.inclusive:
        return None
    name = kernel.param_names()[position]
    statements = (
        shape.body.named_children if shape.body.type == "compound_statement" else [shape.body]
    )
    stored = False
    for node in walk(shape.body):
        if node.type in (
            "return_statement",
            "continue_statement",
            "break_statement",
            "goto_statement",
        ):
            return None
        if node.type != "identifier" or node_text(node) != name:
            continue
        subscript = node.parent
        assignment = subscript.parent if subscript is not None else None
        statement = assignment.parent if assignment is not None else None
        if (
            subscript is None
            or subscript.type != "subscript_expression"
            or assignment is None
            or assignment.type != "assignment_expression"
            or assignment.child_by_field_name("left") != subscript
            or node_text(assignment.children[1]) != "="
            or statement not in statements
            or canon(subscript.child_by_field_name("indices") or subscript).strip("[] ")
            != shape.var
        ):
            return None
        stored = True
    return shape.bound if stored else None


def _covering_launch(launch: Node, bound_argument: str) -> bool:
    """``<<<(bound + B-1) / B, B>>>``: at least one thread per element."""
    syntax = next(c for c in launch.children if c.type == "kernel_call_syntax")
    grid, block = (strip_parens(n) for n in syntax.named_children[:2])
    size = literal_int(block)
    if size is None or grid.type != "binary_expression" or node_text(grid.children[1]) != "/":
        return False
    numerator = strip_parens(grid.child_by_field_name("left") or grid)
    divisor = grid.child_by_field_name("right")
    if numerator.type != "binary_expression" or node_text(numerator.children[1]) != "+":
        return False
    left, added = numerator.child_by_field_name("left"), numerator.child_by_field_name("right")
    return (
        divisor is not None
        and literal_int(divisor) == size
        and added is not None
        and literal_int(added) == size - 1
        and left is not None
        and canon(left) == bound_argument
    )


def _droppable(root: Node, task: Task, copy: list[Node]) -> str | None:
    """The output argument whose upload ``copy`` is, when the upload is provably dead."""
    device, host = strip_parens(copy[0]), strip_parens(copy[1])
    if (
        len(copy) != 4
        or node_text(copy[3]) != "cudaMemcpyHostToDevice"
        or host.type != "identifier"
    ):
        return None
    try:
        spec = task.arg(node_text(host))
    except KeyError:
        return None
    if spec.kind is not ParamKind.POINTER or spec.role is not Role.OUT:
        return None
    _, length = length_in_params(spec.name, task)
    launched = []
    for use in uses(root, node_text(device)):
        arguments = use.parent
        call = arguments.parent if arguments is not None else None
        if call is not None and any(c.type == "kernel_call_syntax" for c in call.children):
            launched.append((call, list(arguments.named_children).index(use) if arguments else -1))
    if len(launched) != 1 or length is None:
        return None
    launch, position = launched[0]
    by_name = {k.name: k for k in kernels(root)}
    kernel = by_name.get(node_text(launch.child_by_field_name("function") or launch))
    if kernel is None:
        return None
    bound = _overwrites(kernel, position)
    if bound is None or bound.type != "identifier":
        return None
    arguments = launch.child_by_field_name("arguments")
    values = list(arguments.named_children) if arguments is not None else []
    names = kernel.param_names()
    if node_text(bound) not in names or names.index(node_text(bound)) >= len(values):
        return None
    passed = canon(values[names.index(node_text(bound))])
    if passed != length or not _covering_launch(launch, passed):
        return None
    return spec.name


def _statement(node: Node) -> Node:
    while node.parent is not None and node.type != "expression_statement":
        node = node.parent
    return node


class TransferMinimization(RefusingRewriter):
    technique = "transfer_minimization"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        task = context.task
        root = parse(code).root_node
        edits, dropped = [], []
        for call, arguments in _calls(root, "cudaMemcpy"):
            name = _droppable(root, task, arguments)
            statement = _statement(call)
            if name is None or statement.type != "expression_statement":
                continue
            if statement.named_children[0] != call:
                continue
            edits.append(Edit.replace(statement, f"/* {name} is output-only: not uploaded */"))
            dropped.append(f"`{name}`")
        if not edits:
            raise Refusal("no upload can be proven dead: every copied buffer may be read first")
        return [
            RewriteCandidate(
                apply_edits(code.encode("utf-8"), edits),
                f"dropped the host-to-device copy of {', '.join(dropped)}, which the kernel "
                "overwrites entirely",
            )
        ]


class PinnedMemory(RefusingRewriter):
    technique = "pinned_memory"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        root = parse(code).root_node
        copied = {
            node_text(strip_parens(a))
            for _, arguments in _calls(root, "cudaMemcpy")
            for a in arguments[:2]
            if strip_parens(a).type == "identifier"
        }
        edits, pinned = [], []
        for node in walk(root):
            if node.type != "init_declarator":
                continue
            name, value = declared_name(node), node.child_by_field_name("value")
            value = strip_parens(value) if value is not None else None
            while value is not None and value.type == "cast_expression":
                value = strip_parens(value.child_by_field_name("value") or value)
            if name is None or value is None or node_text(name) not in copied:
                continue
            function = value.child_by_field_name("function")
            arguments = value.child_by_field_name("arguments")
            if function is None or node_text(function) != "malloc" or arguments is None:
                continue
            frees = [
                c
                for c, args in _calls(root, "free")
                if args and node_text(args[0]) == node_text(name)
            ]
            reassigned = any(
                n.type == "assignment_expression"
                and node_text(n.child_by_field_name("left") or n) == node_text(name)
                for n in walk(root)
            )
            if not frees or reassigned:
                continue
            declaration = node.parent
            if declaration is None or declaration.type != "declaration":
                continue
            if len(declaration.children_by_field_name("declarator")) != 1:
                continue
            kind = node_text(declaration.child_by_field_name("type") or declaration)
            size = node_text(arguments.named_children[0]) if arguments.named_child_count else "0"
            indent = " " * declaration.start_point[1]
            edits.append(
                Edit.replace(
                    declaration,
                    f"{kind}* {node_text(name)} = nullptr;\n"
                    f"{indent}cudaMallocHost(&{node_text(name)}, {size});",
                )
            )
            edits += [Edit.replace(f, f"cudaFreeHost({node_text(name)})") for f in frees]
            pinned.append(f"`{node_text(name)}`")
        if not edits:
            raise Refusal(
                "no host buffer allocated by this code is copied to or from the GPU; the "
                "caller's buffers are not pinned (page-locking per call costs more than it saves)"
            )
        return [
            RewriteCandidate(
                apply_edits(code.encode("utf-8"), edits),
                f"allocated the staging buffer(s) {', '.join(pinned)} as pinned host memory",
            )
        ]
