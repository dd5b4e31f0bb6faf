"""Kernels already in the code: their parameters, launches, and the one-thread-per-element shape.

The follow-up techniques (grid-stride loops, launch configuration, restrict, unrolling,
vectorization) rewrite kernels that earlier steps -- a rewriter or a model -- produced. They
recognise the common shape ``T i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) {...}``
by its syntax, whatever the spacing or operand order, and leave anything else alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from regrapht_core.cxx.affine import additive_terms, factors, mentions
from regrapht_core.cxx.functions import function_definitions, function_name
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.syntax import canon, declared_name, strip_parens

__all__ = [
    "GuardedKernel",
    "Kernel",
    "allocated_pointers",
    "enclosing_function",
    "guarded_kernel",
    "kernels",
    "launches",
    "thread_index_offset",
    "uncast",
]

_BUILTINS = frozenset({"threadIdx", "blockIdx", "blockDim", "gridDim"})


@dataclass(frozen=True, slots=True)
class Kernel:
    name: str
    definition: Node
    params: tuple[Node, ...]
    """``parameter_declaration`` nodes in order."""
    body: Node

    def param_names(self) -> list[str]:
        names = []
        for param in self.params:
            name = declared_name(param.child_by_field_name("declarator"))
            names.append(node_text(name) if name is not None else "")
        return names


def kernels(root: Node) -> list[Kernel]:
    found = []
    for definition in function_definitions(root):
        if not any(c.type == "__global__" for c in definition.children):
            continue
        name, body = function_name(definition), definition.child_by_field_name("body")
        declarator = definition.child_by_field_name("declarator")
        while declarator is not None and declarator.type != "function_declarator":
            declarator = declarator.child_by_field_name("declarator")
        parameters = declarator.child_by_field_name("parameters") if declarator else None
        if name is None or body is None or parameters is None:
            continue
        params = tuple(p for p in parameters.named_children if p.type == "parameter_declaration")
        found.append(Kernel(name, definition, params, body))
    return found


def launches(root: Node, kernel: str) -> list[Node]:
    """``kernel<<<...>>>(...)`` call expressions, in source order."""
    found = []
    for node in walk(root):
        if node.type != "call_expression":
            continue
        function = node.child_by_field_name("function")
        syntax = any(c.type == "kernel_call_syntax" for c in node.children)
        if syntax and function is not None and node_text(function) == kernel:
            found.append(node)
    return found


def enclosing_function(node: Node) -> Node | None:
    current = node.parent
    while current is not None and current.type != "function_definition":
        current = current.parent
    return current


ALLOCATORS = frozenset({"cudaMalloc", "cudaMallocAsync"})
"""Device allocations whose first argument is the address of the pointer they set."""
FREES = frozenset({"cudaFree", "cudaFreeAsync"})


def allocated_pointers(function: Node) -> set[str]:
    """Pointers ``cudaMalloc(&p, ...)`` or ``cudaMallocAsync(&p, ...)`` sets in ``function``
    and that are never reassigned.

    Such pointers are distinct, 256-byte-aligned device allocations: safe to mark
    ``__restrict__`` against each other and to read as ``float4``.
    """
    allocated, assigned = set(), set()
    for node in walk(function):
        if node.type == "call_expression":
            callee = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            if callee is None or node_text(callee) not in ALLOCATORS or arguments is None:
                continue
            first = arguments.named_children[0] if arguments.named_child_count else None
            if first is not None and first.type == "pointer_expression":
                target = first.child_by_field_name("argument")
                if target is not None and target.type == "identifier":
                    allocated.add(node_text(target))
        elif node.type == "assignment_expression":
            left = node.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                assigned.add(node_text(left))
    return allocated - assigned


def thread_index_offset(expr: Node) -> list[Node] | None:
    """The terms added to ``blockIdx.x * blockDim.x + threadIdx.x`` in ``expr`` (or ``None``)."""
    product = thread = False
    rest = []
    for sign, term in additive_terms(expr, 1):
        parts = sorted(canon(uncast(f)) for f in factors(term))
        if sign > 0 and parts == ["blockDim . x", "blockIdx . x"] and not product:
            product = True
        elif sign > 0 and parts == ["threadIdx . x"] and not thread:
            thread = True
        elif any(mentions(term, name) for name in _BUILTINS):
            return None
        else:
            rest.append(term)
    return rest if product and thread else None


def uncast(node: Node) -> Node:
    """``static_cast<T>(e)`` and ``(T)e`` as ``e``: widening does not change the index."""
    node = strip_parens(node)
    if node.type == "cast_expression":
        value = node.child_by_field_name("value")
        return uncast(value) if value is not None else node
    if node.type == "call_expression":
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if (
            function is not None
            and function.type == "template_function"
            and node_text(function.child_by_field_name("name") or function) == "static_cast"
            and arguments is not None
            and arguments.named_child_count == 1
        ):
            return uncast(arguments.named_children[0])
    return node


@dataclass(frozen=True, slots=True)
class GuardedKernel:
    """``T i = <thread index>; if (i < bound) body`` -- one element per thread."""

    kernel: Kernel
    declaration: Node
    var: str
    var_type: str
    guard: Node
    bound: Node
    inclusive: bool
    body: Node
    offset: list[Node]


def guarded_kernel(kernel: Kernel) -> GuardedKernel:
    statements = [c for c in kernel.body.named_children if c.type != "comment"]
    if len(statements) != 2:
        raise Refusal(
            f"`{kernel.name}` is not `i = <thread index>; if (i < n) {{...}}` "
            f"(it has {len(statements)} statements)"
        )
    declaration, guard = statements
    declarators = declaration.children_by_field_name("declarator")
    if declaration.type != "declaration" or len(declarators) != 1:
        raise Refusal(f"`{kernel.name}` does not start by computing its thread index")
    init = declarators[0]
    name, value = init.child_by_field_name("declarator"), init.child_by_field_name("value")
    if init.type != "init_declarator" or name is None or value is None:
        raise Refusal(f"`{kernel.name}` does not start by computing its thread index")
    offset = thread_index_offset(value)
    if offset is None:
        raise Refusal(
            f"`{kernel.name}` computes `{node_text(value)}`, not a 1-D global thread index"
        )
    var = node_text(name)
    if guard.type != "if_statement" or guard.child_by_field_name("alternative") is not None:
        raise Refusal(f"`{kernel.name}` does not guard its work with `if ({var} < n)`")
    condition = guard.child_by_field_name("condition")
    test = strip_parens(condition.named_children[0]) if condition else None
    if test is None or test.type != "binary_expression":
        raise Refusal(f"`{kernel.name}` does not guard its work with `if ({var} < n)`")
    left, right = test.child_by_field_name("left"), test.child_by_field_name("right")
    op = node_text(test.child_by_field_name("operator") or test.children[1])
    if left is None or right is None:
        raise Refusal(f"`{kernel.name}` has an incomplete guard")
    if canon(left) == var and op in ("<", "<="):
        bound, inclusive = right, op == "<="
    elif canon(right) == var and op in (">", ">="):
        bound, inclusive = left, op == ">="
    else:
        raise Refusal(f"the guard `{node_text(test)}` of `{kernel.name}` is not `{var} < bound`")
    body = guard.child_by_field_name("consequence")
    if body is None:
        raise Refusal(f"`{kernel.name}` guards nothing")
    kind = declaration.child_by_field_name("type")
    var_type = " ".join(
        [
            node_text(c)
            for c in declaration.children
            if c.type == "type_qualifier" and node_text(c) != "const"
        ]
        + [node_text(kind) if kind is not None else "int"]
    )
    return GuardedKernel(kernel, declaration, var, var_type, guard, bound, inclusive, body, offset)
