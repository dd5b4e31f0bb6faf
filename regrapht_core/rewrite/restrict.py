"""Read-only data and ``__restrict__``: promise the compiler what the kernel's pointers do.

``const T* __restrict__`` on a pointer the kernel only reads lets nvcc route its loads
through the read-only (non-coherent) path; ``__restrict__`` on the written ones lets it keep
values in registers across stores. Both are promises about aliasing, so they are only made
when no two pointer arguments can overlap: every launch passes distinct pointers that the
launching function got from ``cudaMalloc`` (or the task replaces a kernel, where the harness
passes distinct buffers). A pointer handed to another function keeps its declaration.
"""

from __future__ import annotations

from regrapht_core.contracts.task import TaskMode
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.syntax import parse, strip_parens
from regrapht_core.rewrite.kernels import (
    Kernel,
    allocated_pointers,
    enclosing_function,
    kernels,
    launches,
)
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)

__all__ = ["ReadOnlyRestrict"]


def _pointer_param(param: Node) -> tuple[str, bool, bool] | None:
    """(name, already const, already restrict) for a single-level pointer parameter."""
    declarator = param.child_by_field_name("declarator")
    if declarator is None or declarator.type != "pointer_declarator":
        return None
    inner = declarator.child_by_field_name("declarator")
    if inner is None or inner.type != "identifier":
        return None
    const = any(c.type == "type_qualifier" and node_text(c) == "const" for c in param.children)
    restrict = any(
        c.type == "type_qualifier" and "restrict" in node_text(c) for c in declarator.children
    )
    return node_text(inner), const, restrict


def _usage(kernel: Kernel, name: str) -> tuple[bool, bool]:
    """(written, escapes): stores through it, or passes/copies it somewhere else."""
    written = escapes = False
    for node in walk(kernel.body):
        if node.type != "identifier" or node_text(node) != name or node.parent is None:
            continue
        user = node
        while (
            user.parent is not None
            and user.parent.type
            in (
                "subscript_expression",
                "parenthesized_expression",
                "field_expression",
            )
            and user.parent.child_by_field_name("argument") in (user, None)
        ):
            user = user.parent
        parent = user.parent
        if user is node and (parent is None or parent.type != "pointer_expression"):
            escapes = True
            continue
        if parent is not None and parent.type == "pointer_expression" and user is node:
            if node_text(parent.children[0]) == "&":
                escapes = True
                continue
            user, parent = parent, parent.parent
        if parent is None:
            continue
        if (
            parent.type == "assignment_expression" and parent.child_by_field_name("left") == user
        ) or parent.type == "update_expression":
            written = True
        elif parent.type == "pointer_expression" and node_text(parent.children[0]) == "&":
            escapes = True
    return written, escapes


def _distinct_buffers(root: Node, kernel: Kernel, mode: TaskMode) -> str | None:
    """Why the pointer arguments might alias, or ``None`` when they cannot."""
    sites = launches(root, kernel.name)
    if not sites:
        if mode is TaskMode.KERNEL_TO_KERNEL:
            return None
        return f"`{kernel.name}` is never launched here, so its arguments are unknown"
    pointer_positions = [i for i, p in enumerate(kernel.params) if _pointer_param(p) is not None]
    for site in sites:
        function = enclosing_function(site)
        allocated = allocated_pointers(function) if function is not None else set()
        arguments = site.child_by_field_name("arguments")
        values = arguments.named_children if arguments is not None else []
        passed = [strip_parens(values[i]) for i in pointer_positions if i < len(values)]
        names = [node_text(v) for v in passed]
        if any(v.type != "identifier" or node_text(v) not in allocated for v in passed):
            return f"a launch of `{kernel.name}` passes pointers not allocated by cudaMalloc there"
        if len(set(names)) != len(names):
            return f"a launch of `{kernel.name}` passes the same buffer twice"
    return None


class ReadOnlyRestrict(RefusingRewriter):
    technique = "read_only_cache"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        root = parse(code).root_node
        edits, done, reasons = [], [], []
        prototypes = {
            node_text(n.child_by_field_name("declarator") or n).split("(")[0].strip()
            for n in root.named_children
            if n.type == "declaration" and "(" in node_text(n)
        }
        for kernel in kernels(root):
            if kernel.name in prototypes:
                reasons.append(
                    f"`{kernel.name}` is declared twice; its parameters stay as they are"
                )
                continue
            why = _distinct_buffers(root, kernel, context.task.mode)
            if why is not None:
                reasons.append(why)
                continue
            for param in kernel.params:
                found = _pointer_param(param)
                if found is None:
                    continue
                name, const, restrict = found
                written, escapes = _usage(kernel, name)
                if escapes or restrict:
                    continue
                declarator = param.child_by_field_name("declarator")
                kind = param.child_by_field_name("type")
                assert declarator is not None and kind is not None
                qualifiers = " ".join(
                    node_text(c)
                    for c in param.children
                    if c.type == "type_qualifier" and node_text(c) != "const"
                )
                read_only = not written
                prefix = "const " if (read_only or const) else ""
                middle = f"{qualifiers} " if qualifiers else ""
                spelled = f"{prefix}{middle}{node_text(kind)}* __restrict__ {name}"
                edits.append(Edit.replace(param, spelled))
                done.append(f"`{name}`" + (" (read-only)" if read_only else ""))
        if not edits:
            raise Refusal(
                "; ".join(reasons) or "no kernel pointer can be marked const __restrict__"
            )
        return [
            RewriteCandidate(
                apply_edits(code.encode("utf-8"), edits),
                f"marked {', '.join(done)} __restrict__, read-only ones const",
            )
        ]
