"""Reading expressions and declarators off the syntax tree, the way every analysis needs.

Rewriters decide on tree-sitter nodes; these helpers answer the small questions they all
ask (which name does this declarator introduce, are these two expressions the same tokens,
which loop encloses this node) one way. The CUDA grammar is a superset of the C++ one, so
one parser serves sequential references and kernels alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.parse import Node, Tree, node_text, parse_source, walk
from regrapht_core.cxx.refusal import Refusal

__all__ = [
    "NameAllocator",
    "ObjectCall",
    "assignment_of",
    "assignment_targets",
    "body_statements",
    "canon",
    "constructed",
    "declared_name",
    "enclosing",
    "identifiers",
    "loop_ancestor",
    "object_call",
    "operator_text",
    "parse",
    "strip_parens",
    "subscript_of",
    "words",
    "zero_literal",
]

_LOOPS = frozenset({"for_statement", "while_statement", "do_statement", "for_range_loop"})


def words(*chunks: str) -> frozenset[str]:
    """A name table written as lines of space-separated names."""
    return frozenset(" ".join(chunks).split())


def parse(code: str) -> Tree:
    """The CUDA tree, or a refusal naming the first syntax error: half-typed code is not
    rewritten."""
    tree = parse_source(code, SourceLanguage.CUDA)
    if tree.root_node.has_error:
        for node in walk(tree.root_node):
            if node.type == "ERROR" or node.is_missing:
                row, col = node.start_point
                raise Refusal(f"the code does not parse (line {row + 1}, column {col + 1})")
    return tree


def identifiers(node: Node) -> Iterator[Node]:
    return (n for n in walk(node) if n.type == "identifier")


def strip_parens(node: Node) -> Node:
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    return node


def canon(node: Node) -> str:
    """Token text without layout or outer parentheses: ``( m )`` and ``m`` compare equal."""
    node = strip_parens(node)
    return " ".join(node_text(leaf) for leaf in walk(node) if leaf.child_count == 0)


def operator_text(node: Node) -> str:
    """The operator of a binary, unary, update or assignment expression."""
    op = node.child_by_field_name("operator")
    return node_text(op) if op is not None else node_text(node.children[1])


def loop_ancestor(node: Node, stop: Node) -> Node | None:
    """The innermost loop strictly inside ``stop`` that encloses ``node`` (``None``: stop's)."""
    return enclosing(node, _LOOPS, stop)


def enclosing(node: Node, kinds: Iterable[str], stop: Node) -> Node | None:
    """The innermost node of one of ``kinds`` strictly inside ``stop`` that encloses
    ``node``, or None."""
    wanted = frozenset(kinds)
    current = node.parent
    while current is not None and current != stop:
        if current.type in wanted:
            return current
        current = current.parent
    return None


def declared_name(declarator: Node | None) -> Node | None:
    """The identifier a (pointer, array, init, reference) declarator introduces."""
    while declarator is not None and declarator.type != "identifier":
        if declarator.type in ("function_declarator", "parenthesized_declarator"):
            return None
        declarator = declarator.child_by_field_name("declarator")
    return declarator


def constructed(declarator: Node) -> tuple[Node, list[Node]] | None:
    """``(name, arguments)`` of an object made with parentheses in a block: ``T x(a, 0)``
    (an init declarator with an argument list), and ``T x(n)`` / ``T x(w * h)``, which the
    grammar reads as a function declaration (C++'s most vexing parse: a compiler knows
    ``n``, ``w`` are variables, not types). Those arguments are read again as expressions
    (nodes of a tree of their own)."""
    name = declarator.child_by_field_name("declarator")
    if name is None or name.type != "identifier":
        return None
    if declarator.type == "init_declarator":
        value = declarator.child_by_field_name("value")
        if value is None or value.type != "argument_list":
            return None
        return name, list(value.named_children)
    parameters = declarator.child_by_field_name("parameters")
    if declarator.type != "function_declarator" or parameters is None:
        return None
    for parameter in parameters.named_children:
        kind = parameter.child_by_field_name("type")
        if parameter.type != "parameter_declaration" or kind is None:
            return None
        if kind.type != "type_identifier" or len(parameter.children) > 2:
            return None  # a real type (``int``, ``const T``) declares a function
    if not parameters.named_children:
        return None
    call = parse_source(f"regrapht{node_text(parameters)};", SourceLanguage.CPP).root_node
    found = next((n for n in walk(call) if n.type == "argument_list"), None)
    if found is None or call.has_error:
        return None
    return name, list(found.named_children)


class NameAllocator:
    """Fresh identifiers that collide with nothing in the file (or handed out before)."""

    def __init__(self, root: Node) -> None:
        self._taken: set[str] = set()
        self.reserve(root)

    def reserve(self, root: Node) -> None:
        """Also avoid every name of ``root`` (code that will be spliced in beside the file)."""
        self._taken |= {
            node_text(n)
            for n in walk(root)
            if n.type in ("identifier", "type_identifier", "field_identifier")
        }

    def fresh(self, wanted: str) -> str:
        name, suffix = wanted, 1
        while name in self._taken:
            suffix += 1
            name = f"{wanted}{suffix}"
        self._taken.add(name)
        return name


def body_statements(node: Node) -> list[Node]:
    """The statements of a block, comments left out; a lone statement is its own list."""
    if node.type == "compound_statement":
        return [c for c in node.named_children if c.type != "comment"]
    return [node]


def assignment_targets(scope: Node, *, declarations: bool = False) -> Iterator[Node]:
    """What ``scope`` assigns (``t = e``, ``t += e``) or steps (``++t``, ``t--``), as
    written; with ``declarations``, also the declarators it initializes (``T t = e``)."""
    for node in walk(scope):
        target = None
        if node.type == "assignment_expression":
            target = node.child_by_field_name("left")
        elif node.type == "update_expression":
            target = node.child_by_field_name("argument")
        elif declarations and node.type == "init_declarator":
            target = node.child_by_field_name("declarator")
        if target is not None:
            yield target


def assignment_of(statement: Node, op: str = "=") -> tuple[Node, Node] | None:
    """``(target, value)`` of the expression statement ``target op value;``, the target's
    parentheses stripped; ``None`` for any other statement."""
    if statement.type != "expression_statement" or not statement.named_child_count:
        return None
    expression = statement.named_children[0]
    if expression.type != "assignment_expression" or operator_text(expression) != op:
        return None
    target, value = expression.child_by_field_name("left"), expression.child_by_field_name("right")
    return (strip_parens(target), value) if target is not None and value is not None else None


def subscript_of(node: Node) -> tuple[str, Node] | None:
    """``(array, index)`` of ``array[index]``, the array a plain name and the index one
    expression, parentheses around it stripped; ``None`` for anything else."""
    node = strip_parens(node)
    if node.type != "subscript_expression":
        return None
    array, indices = node.child_by_field_name("argument"), node.child_by_field_name("indices")
    if array is None or array.type != "identifier" or indices is None:
        return None
    if indices.named_child_count != 1:
        return None
    return node_text(array), indices.named_children[0]


@dataclass(frozen=True, slots=True)
class ObjectCall:
    """A call on a named object: ``v.m(...)``, ``p->m(...)`` or ``std::m(v)``."""

    target: str
    """The object's name: ``v``."""
    method: str
    """The name called: ``begin`` in ``v.begin()``, ``p->begin()`` and ``std::begin(v)``."""
    spelled: str
    """How the call reaches the object: ``"."``, ``"->"`` or ``"std::"`` (in half-typed code,
    whatever text follows the object)."""
    arguments: int
    """How many arguments it passes besides the object."""


def object_call(node: Node) -> ObjectCall | None:
    """``node`` as a call on a named object, else ``None``; ``std::m(v)`` only with ``v`` its
    one argument (``std::begin(v)``). The rewrites that read a container (its ``begin()`` and
    ``end()``, a call that may resize it) recognise its calls here, one way, and each keeps
    its own rule on which spellings and arguments it reads."""
    if node.type != "call_expression":
        return None
    function = node.child_by_field_name("function")
    arguments = node.child_by_field_name("arguments")
    if function is None or arguments is None:
        return None
    passed = arguments.named_children
    if function.type == "field_expression":
        target = function.child_by_field_name("argument")
        field = function.child_by_field_name("field")
        if target is None or field is None or target.type != "identifier":
            return None
        # What follows the object, not the operator field: in half-typed code (``n -.begin()``)
        # that field can sit past an error, and the call is not ``n``'s.
        spelled = node_text(function.children[1])
        return ObjectCall(node_text(target), node_text(field), spelled, len(passed))
    scope, name = function.child_by_field_name("scope"), function.child_by_field_name("name")
    std = (
        function.type == "qualified_identifier" and scope is not None and node_text(scope) == "std"
    )
    if not std or name is None or len(passed) != 1 or passed[0].type != "identifier":
        return None
    return ObjectCall(node_text(passed[0]), node_text(name), "std::", 0)


def zero_literal(node: Node) -> bool:
    """``0``, ``0.0f``, ``(0.)``: a number literal whose value is zero."""
    node = strip_parens(node)
    if node.type != "number_literal":
        return False
    try:
        return float(node_text(node).rstrip("fFlLuU")) == 0.0
    except ValueError:
        return False
