"""First match as a min-reduction: a loop that stops at the first index whose condition
holds becomes a reduction of the matching indices to their minimum.

``for (i...) if (cond(i)) { found = i; break; }`` (or ``if (cond(i)) return i;``) reads the
array only up to the match, so as written its iterations cannot run at once: parallelization
refuses the ``break``. But the index it finds is the smallest ``i`` with ``cond(i)``, whatever
order the conditions are tested in, which is a minimum over all iterations. The loop is
rewritten as that reduction in sequential form (the minimum starts one past the last index,
and the original variable, or the return, takes it only when a match was found) and handed
to the reduction rewriter. The GPU version tests every element, so it reads the whole array
where the loop read a prefix: the task's contract gives the array's length, and the verifier
times what that costs.
"""

from __future__ import annotations

from regrapht_core.contracts.task import Task
from regrapht_core.cxx.affine import mentions
from regrapht_core.cxx.entry import EntryFunction, entry_loops
from regrapht_core.cxx.loops import compared_bound
from regrapht_core.cxx.parse import Node, node_text
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.syntax import (
    NameAllocator,
    body_statements,
    operator_text,
    parse,
    strip_parens,
)
from regrapht_core.rewrite.parallelize import block_size
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)
from regrapht_core.rewrite.reduction import reduction_candidate
from regrapht_core.rewrite.sequential import analysed_loop, split_entry, split_entry_function

__all__ = ["FirstMatch"]

_SHAPE = "the loop is not a first-match search (`if (cond) { found = i; break; }`)"


class FirstMatch(RefusingRewriter):
    technique = "algorithmic_change"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        block = block_size(params)
        code, task = split_entry(code, context.task)
        upward = _counted_up(code, task)
        split = split_entry_function(upward or code, task)
        entry = split.entry
        loop = entry.loop
        condition, taken = _search(entry)
        var_type = loop.var_type or _declared_type(entry, loop.var)
        first = NameAllocator(split.root).fresh("last" if upward else "first")
        end = f"std::numeric_limits<{var_type}>::{'min' if upward else 'max'}()"
        indent = " " * loop.node.start_point[1]
        replacement = f"\n{indent}".join(
            [
                f"{var_type} {first} = {end};",
                _header(loop.node),
                f"  if ({node_text(condition)}) {{",
                f"    if ({loop.var} {'>' if upward else '<'} {first}) {first} = {loop.var};",
                "  }",
                "}",
                f"if ({first} != {end}) {taken.format(first=first)}",
            ]
        )
        searched = "#include <limits>\n" + apply_edits(
            split.code.encode("utf-8"), [Edit.replace(loop.node, replacement)]
        )
        found = analysed_loop(searched, split.task)
        which, extreme = ("last", "maximum") if upward else ("first", "minimum")
        return [
            RewriteCandidate(
                reduction_candidate(found, block),
                f"the {which} `{loop.var}` with {node_text(condition)} is the {extreme} of the "
                f"matching indices: every element is tested at once and the indices are "
                f"{extreme[:3]}-reduced ({block} threads per block, warp shuffles, one atomic "
                "per block)",
            )
        ]


def _counted_up(code: str, task: Task) -> str | None:
    """``code`` with the entry's only top-level loop, when it counts down by one
    (``for (int i = A; i >= B; --i)``, or ``i > B``), counting up over the same indices
    (``for (int i = B; i < A + 1; ++i)``); ``None`` for any other loop. The search it holds
    stops at the largest matching index, which the caller then keeps instead of the
    smallest."""
    try:
        loops = entry_loops(parse(code).root_node, task)
    except Refusal:
        return None
    if len(loops) != 1 or loops[0].type != "for_statement":
        return None
    loop = loops[0]
    init, cond = loop.child_by_field_name("initializer"), loop.child_by_field_name("condition")
    update = loop.child_by_field_name("update")
    if init is None or cond is None or update is None or init.type != "declaration":
        return None
    declarators = init.children_by_field_name("declarator")
    kind = init.child_by_field_name("type")
    if len(declarators) != 1 or declarators[0].type != "init_declarator" or kind is None:
        return None
    name, start = (
        declarators[0].child_by_field_name("declarator"),
        declarators[0].child_by_field_name("value"),
    )
    if name is None or start is None or name.type != "identifier":
        return None
    var = node_text(name)
    bound = _lower_bound(cond, var)
    if bound is None or not _steps_down(update, var) or mentions(start, var):
        return None
    header = f"for ({node_text(kind)} {var} = {bound}; {var} < ({node_text(start)}) + 1; ++{var})"
    body = loop.child_by_field_name("body")
    assert body is not None
    return apply_edits(code.encode("utf-8"), [Edit(loop.start_byte, body.start_byte, header + " ")])


def _lower_bound(cond: Node, var: str) -> str | None:
    """The smallest index ``var >= B`` (``B <= var``, ``var > B``) admits, as text."""
    found = compared_bound(cond, var)
    if found is None or mentions(found[1], var):
        return None
    op, bound = found
    if op == ">=":
        return f"({node_text(bound)})"
    return f"({node_text(bound)}) + 1" if op == ">" else None


def _steps_down(update: Node, var: str) -> bool:
    """``--i``, ``i--`` or ``i -= 1``."""
    update = strip_parens(update)
    if update.type == "update_expression":
        argument = update.child_by_field_name("argument")
        return argument is not None and node_text(argument) == var and "--" in node_text(update)
    if update.type == "assignment_expression" and operator_text(update) == "-=":
        left, right = update.child_by_field_name("left"), update.child_by_field_name("right")
        return (
            left is not None
            and right is not None
            and node_text(left) == var
            and (node_text(strip_parens(right)) == "1")
        )
    return False


def _header(loop: Node) -> str:
    """The ``for (...) {`` line of ``loop`` as written."""
    body = loop.child_by_field_name("body")
    assert body is not None
    source = loop.text or b""
    return source[: body.start_byte - loop.start_byte].decode("utf-8").rstrip() + " {"


def _search(entry: EntryFunction) -> tuple[Node, str]:
    """The condition, and the statement that takes the match (``{first}`` in it)."""
    loop = entry.loop
    body = _only(loop.body)
    if body is None or body.type != "if_statement":
        raise Refusal(_SHAPE)
    if body.child_by_field_name("alternative") is not None:
        raise Refusal(_SHAPE)
    condition = body.child_by_field_name("condition")
    consequence = body.child_by_field_name("consequence")
    if condition is None or consequence is None:
        raise Refusal(_SHAPE)
    test = strip_parens(condition.named_children[0]) if condition.named_children else None
    if test is None:
        raise Refusal(_SHAPE)
    statements = body_statements(consequence)
    kinds = [s.type for s in statements]
    if kinds == ["return_statement"]:
        returned = statements[0].named_children
        if len(returned) != 1 or node_text(strip_parens(returned[0])) != loop.var:
            raise Refusal(f"the loop returns {node_text(statements[0])}, not its index")
        return test, "return {first};"
    if kinds != ["expression_statement", "break_statement"]:
        raise Refusal(_SHAPE)
    assignment = statements[0].named_children[0] if statements[0].named_children else None
    if assignment is None or assignment.type != "assignment_expression":
        raise Refusal(_SHAPE)
    target, value = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
    operator = assignment.child_by_field_name("operator")
    if (
        target is None
        or value is None
        or operator is None
        or node_text(operator) != "="
        or target.type != "identifier"
        or node_text(strip_parens(value)) != loop.var
    ):
        raise Refusal(_SHAPE)
    found = node_text(target)
    local = entry.locals.get(found)
    if local is None or not local.scalar:
        raise Refusal(f"`{found}` is not a local the code declares before the loop")
    if mentions(test, found):
        raise Refusal(f"the condition reads `{found}`, which the search sets")
    return test, f"{found} = {{first}};"


def _only(node: Node) -> Node | None:
    statements = body_statements(node)
    return statements[0] if len(statements) == 1 else None


def _declared_type(entry: EntryFunction, var: str) -> str:
    local = entry.locals.get(var)
    if local is None:
        raise Refusal(f"cannot tell the type of the loop variable `{var}`")
    return local.type
