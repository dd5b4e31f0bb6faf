"""Scaffolds with a hole: the program writes the mechanical CUDA, the model one small part.

When parallelization is refused only because the analysis cannot prove that iterations
touch disjoint elements (a histogram's ``h[x[i]]++``, a scatter), the fix needs judgement
the rewriter lacks: which updates must become atomics. A small model cannot write a whole
kernel and host wrapper (it gets names, braces and transfers wrong), but it can often
rewrite a few statements. So the rewriter builds everything else exactly as
:class:`~regrapht_core.rewrite.parallelize.Parallelize` does -- kernel signature, thread
index, bounds guard, allocation, transfers, launch, error checks -- leaves the loop body as a
hole, and :func:`fill` splices the model's statements in after checking they are only
statements. The verifier then judges the result like any candidate.

The other way round, :func:`launch_kernels` keeps a model's whole answer when the model
wrote the kernel but not the host function around it (the entry missing, or the entry
itself turned into the kernel): the rewriter's host code launches the model's kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from regrapht_core.cxx.affine import mentions, uses
from regrapht_core.cxx.functions import file_scope_item, function_definitions, function_name
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.syntax import NameAllocator, parse
from regrapht_core.rewrite.kernels import Kernel, kernels
from regrapht_core.rewrite.parallelize import Launch1D, candidate_1d, launch_1d
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.rewrite.sequential import SequentialLoop, map_loop

__all__ = ["HOLE", "Scaffold", "fill", "launch_kernels", "parallel_scaffold"]

HOLE = "    /* regrapht: hole -- the loop body for one iteration */"

_FORBIDDEN = frozenset(
    {"function_definition", "preproc_include", "preproc_def", "preproc_function_def"}
)


@dataclass(frozen=True, slots=True)
class Scaffold:
    code: str
    """The whole candidate with :data:`HOLE` where the kernel's loop body goes."""
    loop: str
    """The sequential loop as written, for the model to read."""
    body: str
    """The sequential loop body, the statements the hole replaces."""
    var: str
    """The loop variable, one value per thread."""


def parallel_scaffold(code: str, context: RewriteContext) -> Scaffold:
    """The 1-D parallelization of the entry's loop with its body left open.

    Raises :class:`Refusal` for every reason parallelization refuses except the ownership
    proof: a loop that returns early, calls unknown code or reduces into a scalar is not a
    hole a few statements can fill. A loop whose ownership is proven needs no hole.
    """
    found = map_loop(code, context, prove_ownership=False)
    if not found.facts.unowned:
        raise Refusal("the iterations are independent: the rewriter parallelizes it without help")
    loop = found.entry.loop
    return Scaffold(
        code=candidate_1d(found, body=HOLE),
        loop=node_text(loop.node),
        body=node_text(loop.body),
        var=loop.var,
    )


def fill(scaffold: Scaffold, statements: str) -> str:
    """The scaffold with ``statements`` in the hole, or a :class:`Refusal` saying why not.

    Only a plain statement list fits: it must parse on its own, define nothing, include
    nothing, and not loop over the thread's own variable (a thread runs one iteration).
    """
    stripped = statements.strip()
    if stripped.startswith("{") and stripped.endswith("}"):
        stripped = stripped[1:-1].strip()
    if not stripped:
        raise Refusal("the answer has no statements for the loop body")
    wrapped = f"void regrapht_hole() {{\n{stripped}\n}}\n"
    root = parse(wrapped).root_node
    if root.has_error or len(root.named_children) != 1:
        raise Refusal("the answer is not a list of statements that parses on its own")
    for node in walk(root.named_children[0].child_by_field_name("body") or root):
        if node.type in _FORBIDDEN or node.type.startswith("preproc"):
            raise Refusal(f"the answer may only rewrite the body; it has `{node_text(node)[:40]}`")
        if node.type == "for_statement" and _declares(node, scaffold.var):
            raise Refusal(
                f"the answer loops over `{scaffold.var}` itself; each thread runs one iteration"
            )
    if "__global__" in stripped:
        raise Refusal("the answer may only rewrite the body; it declares a kernel")
    indented = "\n".join(f"    {line}" if line.strip() else "" for line in stripped.splitlines())
    return scaffold.code.replace(HOLE, indented, 1)


def _declares(loop: Node, var: str) -> bool:
    initializer = loop.child_by_field_name("initializer")
    return initializer is not None and mentions(initializer, var)


def launch_kernels(code: str, context: RewriteContext, answer: str) -> str:
    """``answer``'s definitions before the entry of ``code``, whose loop becomes a launch
    of the answer's kernel with one thread per iteration; a :class:`Refusal` says why not.

    For an answer that defines no host entry: a small model often writes a right kernel
    and then a ``main`` of its own, or nothing, or gives the entry itself ``__global__``.
    The kernel to launch takes only names the wrapper can pass -- the entry's scalar
    parameters and initialised locals as they are, its pointers as their device copies --
    and the one named ``<entry>`` or ``<entry>_kernel`` wins over the others. The answer's
    other definitions stay as written: its kernel may call them.
    """
    found = map_loop(code, context, prove_ownership=False)
    root = parse(answer).root_node
    names = NameAllocator(found.root)
    names.reserve(root)
    buffers, _ = found.interface(names)
    passed = _passable(found, {b.param.name: b.device for b in buffers})
    entry = found.task.entry
    written = kernels(root)
    if not written:
        raise Refusal("the answer defines no kernel")

    def launchable(kernel: Kernel) -> bool:
        return all(n in passed for n in kernel.param_names())

    usable = [k for k in written if launchable(k)]
    if not usable:
        raise Refusal("no kernel of the answer takes only the entry's parameters and locals")
    chosen = min(usable, key=lambda k: k.name not in (entry, f"{entry}_kernel"))
    root = parse(_used_by(chosen, root, answer)).root_node
    # The same name may hold overloads, some taking what the wrapper cannot pass.
    chosen = next(k for k in kernels(root) if k.name == chosen.name and launchable(k))
    name, answer = _renamed_entry(chosen, root, node_text(root), entry, names)
    launch = Launch1D(name, [passed[n] for n in chosen.param_names()])
    return launch_1d(found, names, buffers, answer.strip() + "\n", launch)


def _passable(found: SequentialLoop, device: dict[str, str]) -> dict[str, str]:
    """What the wrapper can pass for each name in scope at the loop."""
    entry = found.entry
    passed = {p.name: p.name for p in entry.params if p.name and not p.pointers and not p.container}
    passed |= {v.name: v.name for v in entry.locals.values() if v.scalar and v.initialised}
    return passed | device


def _used_by(chosen: Kernel, root: Node, answer: str) -> str:
    """``answer`` without the functions ``chosen`` does not call (directly or through
    another) and their prototypes. The rest of a small model's answer is often an error
    printer or the same kernel again under the entry's name."""
    functions = {
        name: definition
        for definition in function_definitions(root)
        if (name := function_name(definition)) is not None
    }
    needed, todo = {chosen.name}, [chosen.definition]
    while todo:
        for node in walk(todo.pop()):
            name = node_text(node)
            if node.type == "identifier" and name in functions and name not in needed:
                needed.add(name)
                todo.append(functions[name])
    dropped = set(functions) - needed
    edits = [Edit.replace(file_scope_item(functions[name]), "") for name in dropped]
    edits += [
        Edit.replace(item, "")
        for item in root.named_children
        if item.type == "declaration" and _declared_function(item) in dropped
    ]
    return apply_edits(answer.encode("utf-8"), edits)


def _declared_function(declaration: Node) -> str | None:
    """The name a prototype declares (``__global__ void k(float*);``), else ``None``."""
    declarator = declaration.child_by_field_name("declarator")
    if declarator is None or declarator.type != "function_declarator":
        return None
    name = declarator.child_by_field_name("declarator")
    return node_text(name) if name is not None else None


def _renamed_entry(
    chosen: Kernel, root: Node, answer: str, entry: str, names: NameAllocator
) -> tuple[str, str]:
    """The kernel's name and the answer, with a kernel that took the entry's name renamed
    (every use of the name: the answer has no host function of that name)."""
    if chosen.name != entry:
        return chosen.name, answer
    name = names.fresh(f"{entry}_kernel")
    edits = [Edit.replace(node, name) for node in uses(root, entry)]
    return name, apply_edits(answer.encode("utf-8"), edits)
