"""Lambdas read as the expressions they return.

C++ code names small operations as lambdas, passed to an algorithm or kept in a local::

    auto g = [sigma](float v) { return std::exp(-v * v / (2 * sigma * sigma)); };
    for (size_t i = 0; i < x.size(); ++i) out[i] = g(x[i]);

Device code can call neither, and the analysis reads loops, not calls. A lambda whose body
is one ``return e;`` is ``e`` with its parameters bound to the arguments, converted to the
parameters' types as a call converts them: :func:`inlined` writes that expression (the
``<algorithm>`` expansions use it for an operation), and :func:`inline_local_lambdas`
writes it in place of each call of a local lambda, then drops the unused local.

The inlined expression reads the captured variables when the call runs, where the lambda
read its copies made when it was created. So a local is inlined only where no captured
variable is written after the lambda is made (a by-reference capture reads them at the
call, as the expression does), every call's arguments have no effects of their own (a
parameter may be read twice or not at all), every use of the local is a call, and the
names the lambda reads mean the same thing at each call (declared once in the function).
Each call is replaced on its line, so line numbers in messages stay the user's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

from regrapht_core.cxx.declarators import inner_declarator
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.splice import Edit, apply_edits, overlapping

__all__ = ["EFFECTS", "Operand", "declared", "inline_local_lambdas", "inlined", "pure"]

EFFECTS = frozenset({"assignment_expression", "update_expression", "new_expression"})
"""Expressions that change a variable (or the heap) when they run."""
_CAPTURES = frozenset({"lambda_default_capture", "&", "identifier"})
"""A capture list of these: defaults and named variables, by value or by ``&``reference
(no init-capture ``[s = 2 * sigma]``, no ``this``)."""


@dataclass(frozen=True, slots=True)
class Operand:
    """What an operation is applied to: its text and, where the declarations say, its type
    (a lambda parameter of another type converts it, and so must the inlined code)."""

    text: str
    ctype: str | None


def inlined(lambda_: Node, operands: list[Operand]) -> str | None:
    """A lambda whose body is ``return e;``, as ``e`` with each parameter replaced by its
    operand (converted to the parameter's type where that is not known to be the
    operand's); None for any other lambda, or one with a declared return type."""
    declarator = lambda_.child_by_field_name("declarator")
    body = lambda_.child_by_field_name("body")
    parameters = declarator.child_by_field_name("parameters") if declarator is not None else None
    if parameters is None or body is None or "mutable" in node_text(declarator or body):
        return None
    if any(c.type == "trailing_return_type" for c in (declarator.children if declarator else [])):
        return None
    names = [_parameter_name(p) for p in parameters.named_children]
    statements = [c for c in body.named_children if c.type != "comment"]
    if len(names) != len(operands) or None in names or len(statements) != 1:
        return None
    returned = statements[0]
    if returned.type != "return_statement" or returned.named_child_count != 1:
        return None
    expression = returned.named_children[0]
    if not pure(expression):
        return None
    replacement = {
        name: _converted(operand, _parameter_type(parameter))
        for name, operand, parameter in zip(names, operands, parameters.named_children, strict=True)
        if name is not None
    }
    text = _substituted(expression, lambda n: replacement.get(node_text(n)))
    return f"({text})" if expression.type == "comma_expression" else text


def body_on(lambda_: Node, element: str) -> str | None:
    """A one-parameter lambda's body as a block run on ``element`` (``std::for_each``'s
    call of it): the parameter spelled ``element`` where it is a reference (so writes go to
    the element) or a value the body only reads; None for a lambda that returns early,
    declares its parameter's name again, is ``mutable`` or declares its return type."""
    declarator = lambda_.child_by_field_name("declarator")
    body = lambda_.child_by_field_name("body")
    parameters = declarator.child_by_field_name("parameters") if declarator is not None else None
    if (
        declarator is None
        or parameters is None
        or body is None
        or parameters.named_child_count != 1
    ):
        return None
    if "mutable" in node_text(declarator) or any(
        c.type == "trailing_return_type" for c in declarator.children
    ):
        return None
    (parameter,) = parameters.named_children
    name = _parameter_name(parameter)
    kind = parameter.child_by_field_name("declarator")
    if name is None or kind is None or not _plain_captures(lambda_):
        return None
    by_reference = kind.type == "reference_declarator"
    writes = any(
        n.type in EFFECTS
        and _root_name(n.child_by_field_name("left") or n.child_by_field_name("argument") or n)
        == name
        for n in walk(body)
    )
    if any(n.type == "return_statement" for n in walk(body)) or (writes and not by_reference):
        return None
    if name in _declarations(body):
        return None
    return _substituted(body, lambda n: element if node_text(n) == name else None)


def _converted(operand: Operand, ctype: str) -> str:
    """The operand as a parameter of type ``ctype`` receives it."""
    if ctype in ("auto", operand.ctype):
        return operand.text
    return f"static_cast<{ctype}>({operand.text})"


def _parameter_type(parameter: Node) -> str:
    """``float`` for ``const float& v``: the type a lambda parameter converts to."""
    kind = parameter.child_by_field_name("type")
    return node_text(kind) if kind is not None else "auto"


def declared(declarator: Node) -> tuple[str | None, bool]:
    """The declared name, and whether it is a pointer or an array of the declared type."""
    indirect = False
    node: Node | None = declarator
    while node is not None and node.type != "identifier":
        indirect |= node.type in ("pointer_declarator", "array_declarator")
        node = inner_declarator(node)
    return (node_text(node) if node is not None else None), indirect


def _parameter_name(parameter: Node) -> str | None:
    """``v`` for ``float v``, ``const float& v`` or ``auto v``; None for a pointer or an
    array parameter, which an element cannot be."""
    declarator = parameter.child_by_field_name("declarator")
    if parameter.type != "parameter_declaration" or declarator is None:
        return None
    name, indirect = declared(declarator)
    return None if indirect else name


def _substituted(expression: Node, operand: Callable[[Node], str | None]) -> str:
    """``expression``'s text with each identifier ``operand`` names replaced by it (in
    parentheses unless it is a name or an element)."""
    data = expression.text or b""
    edits = [
        (n.start_byte - expression.start_byte, n.end_byte - expression.start_byte, text)
        for n in walk(expression)
        if n.type == "identifier" and (text := operand(n)) is not None
    ]
    for start, end, text in sorted(edits, reverse=True):
        wrapped = text if _SIMPLE.fullmatch(text) else f"({text})"
        data = data[:start] + wrapped.encode() + data[end:]
    return data.decode("utf-8")


_SIMPLE = re.compile(r"[A-Za-z_]\w*(\[[A-Za-z_]\w*\])?")
"""An operand that needs no parentheses anywhere: a name or an element ``v[k]``."""


def pure(node: Node) -> bool:
    """No assignment, increment or ``new`` anywhere in ``node``."""
    return not any(n.type in EFFECTS for n in walk(node))


def inline_local_lambdas(source: str, function: Node) -> str:
    """``source`` with each call of a local lambda of ``function`` replaced by the
    expression it returns, and the local dropped; ``source`` itself when there is none
    (see the module)."""
    body = function.child_by_field_name("body")
    edits: list[Edit] = []
    for statement in walk(body) if body is not None else ():
        found = _local_lambda(statement, function)
        if found is None:
            continue
        name, lambda_ = found
        calls = _calls(name, statement, function)
        texts = [_call_inlined(lambda_, call) for call in calls or ()]
        if not calls or None in texts:
            continue
        made = [Edit.replace(c, f"({t})") for c, t in zip(calls, texts, strict=True)]
        made.append(Edit.replace(statement, "\n" * node_text(statement).count("\n")))
        # A call inside another's arguments (``g(g(x))``, ``g(h(x))``) is left as written.
        if not _overlapping(made, edits):
            edits += made
    return apply_edits(source.encode("utf-8"), edits) if edits else source


def _overlapping(found: list[Edit], edits: list[Edit]) -> bool:
    """Whether two of ``found``, or one of ``found`` and one of ``edits``, overlap (two of
    ``found`` do if two neighbours in their order do)."""
    ordered = sorted(found, key=lambda e: (e.start, e.end))
    inside = any(overlapping([a], [b]) for a, b in pairwise(ordered))
    return inside or overlapping(found, edits)


def _local_lambda(statement: Node, function: Node) -> tuple[str, Node] | None:
    """``(name, lambda)`` for ``auto name = [captures](params) { return e; };`` in a
    block of ``function``, if its captures are read as the module says; else None."""
    parent = statement.parent
    if statement.type != "declaration" or parent is None or parent.type != "compound_statement":
        return None
    kind = statement.child_by_field_name("type")
    declarators = statement.children_by_field_name("declarator")
    if kind is None or node_text(kind) != "auto" or len(declarators) != 1:
        return None
    target = declarators[0].child_by_field_name("declarator")
    value = declarators[0].child_by_field_name("value")
    if target is None or target.type != "identifier" or value is None:
        return None
    if value.type != "lambda_expression" or not _plain_captures(value):
        return None
    declared_once = _declarations(function)
    read = {node_text(n) for n in walk(value) if n.type == "identifier"}
    if declared_once.get(node_text(target)) != 1 or any(declared_once.get(r, 0) > 1 for r in read):
        return None
    if any(_written_after(r, statement, function) for r in read):
        return None
    return node_text(target), value


def _plain_captures(lambda_: Node) -> bool:
    captures = lambda_.child_by_field_name("captures")
    return captures is not None and all(
        c.type in _CAPTURES or node_text(c) in ("[", "]", ",") for c in captures.children
    )


def _declarations(function: Node) -> dict[str, int]:
    """How many times ``function`` declares each name (parameters, locals, lambdas')."""
    counts: dict[str, int] = {}
    for node in walk(function):
        if node.type in ("declaration", "parameter_declaration"):
            for declarator in node.children_by_field_name("declarator"):
                name, _ = declared(declarator)
                if name is not None:
                    counts[name] = counts.get(name, 0) + 1
    return counts


def _written_after(name: str, statement: Node, function: Node) -> bool:
    """Whether ``function`` may change ``name`` after ``statement``: it is assigned,
    incremented, its address taken, a reference bound to it (``float& r = s;``, ``for
    (auto& v : s)``) or passed where one could bind to it."""
    for node in walk(function):
        if node.start_byte < statement.end_byte:
            continue
        targets: list[Node] = []
        declarator = node.child_by_field_name("declarator")
        bound = node.child_by_field_name("value") or node.child_by_field_name("right")
        if node.type in ("assignment_expression", "update_expression"):
            target = node.child_by_field_name("left") or node.child_by_field_name("argument")
            targets = [target] if target is not None else []
        elif node.type == "pointer_expression" and node_text(node).startswith("&"):
            targets = node.named_children[:1]
        elif node.type == "argument_list":
            targets = list(node.named_children)
        elif node.type in ("init_declarator", "for_range_loop") and bound is not None:
            referenced = declarator is not None and declarator.type == "reference_declarator"
            listed = bound.type == "initializer_list"
            targets = (list(bound.named_children) if listed else [bound]) if referenced else []
        if any(_root_name(t) == name for t in targets):
            return True
    return False


def _root_name(node: Node) -> str | None:
    """``v`` for ``v``, ``v[i]``, ``v.x``: the variable a write through ``node`` changes."""
    while node.type in ("subscript_expression", "field_expression", "parenthesized_expression"):
        inner = node.child_by_field_name("argument") or (
            node.named_children[0] if node.named_child_count else None
        )
        if inner is None:
            return None
        node = inner
    return node_text(node) if node.type == "identifier" else None


def _calls(name: str, statement: Node, function: Node) -> list[Node] | None:
    """Every call of ``name`` after ``statement``; None where ``name`` is used otherwise."""
    calls = []
    for node in walk(function):
        if (
            node.type != "identifier"
            or node_text(node) != name
            or node.start_byte < statement.end_byte
        ):
            continue
        call = node.parent
        if (
            call is None
            or call.type != "call_expression"
            or call.child_by_field_name("function") != node
        ):
            return None
        calls.append(call)
    return calls


def _call_inlined(lambda_: Node, call: Node) -> str | None:
    arguments = call.child_by_field_name("arguments")
    args = [a for a in arguments.named_children if a.type != "comment"] if arguments else []
    if arguments is None or not all(map(pure, args)):
        return None
    return inlined(lambda_, [Operand(node_text(a), None) for a in args])
