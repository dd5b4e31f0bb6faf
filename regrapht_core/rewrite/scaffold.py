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
"""

from __future__ import annotations

from dataclasses import dataclass

from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.syntax import parse
from regrapht_core.rewrite.parallelize import candidate_1d
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.rewrite.sequential import map_loop

__all__ = ["HOLE", "Scaffold", "fill", "parallel_scaffold"]

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
    return initializer is not None and any(
        n.type == "identifier" and node_text(n) == var for n in walk(initializer)
    )
