"""``std::accumulate`` and ``std::inner_product`` as the loops the standard defines them by.

People sum and dot vectors with ``<numeric>`` rather than a loop::

    float mean(const std::vector<float>& v) {
        return std::accumulate(v.begin(), v.end(), 0.0f) / v.size();
    }

Everything after the front end (the length analysis, the rewriters) reads loops. The
standard specifies both algorithms as a loop over the range (``init = std::move(init) +
*first``, in order; ``inner_product`` adds ``*first1 * *first2``), with an accumulator of
the initial value's type. So the call is replaced by exactly that loop, hoisted in front
of its statement on the same line (line numbers in messages stay the user's):

    auto regrapht_acc_0 = (0.0f); for (std::size_t regrapht_k_0 = 0; regrapht_k_0 < v.size();
    ++regrapht_k_0) regrapht_acc_0 = regrapht_acc_0 + v[regrapht_k_0];
    return regrapht_acc_0 / v.size();

Only where that is the same program: ranges written ``v.begin(), v.end()`` (``cbegin``,
``std::begin``) over a named container, or ``p, p + n`` over a pointer; the custom-operation
overloads are left alone; and the statement holding the call, a statement of its block,
calls nothing else that could run first and change the range (``v.size()``, casts and
math functions only).
"""

from __future__ import annotations

from dataclasses import dataclass

from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.symbols import DEVICE_MATH

__all__ = ["expand_algorithms"]

_ALGORITHMS = {"accumulate": 3, "inner_product": 4}
"""Each algorithm's argument count without a custom operation."""
_BEGINS = frozenset({"begin", "cbegin"})
_ENDS = {"begin": "end", "cbegin": "cend"}
_STATEMENTS = frozenset({"expression_statement", "return_statement", "declaration"})
_PURE_METHODS = frozenset({"size", "empty"})
_EFFECTS = frozenset({"assignment_expression", "update_expression", "new_expression"})


@dataclass(frozen=True, slots=True)
class _Range:
    """Where element ``k`` of a range is (``v[k]``) and how many there are."""

    base: str
    count: str


def expand_algorithms(source: str, function: Node) -> str:
    """``source`` with each plain ``std::accumulate``/``std::inner_product`` call in
    ``function``'s body written as its loop, or ``source`` itself when there is none."""
    body = function.child_by_field_name("body")
    if body is None:
        return source
    edits: list[tuple[int, int, str]] = []
    hoisted: dict[int, list[str]] = {}
    counter = 0
    for call in walk(body):
        loop = _loop(call, counter) if call.type == "call_expression" else None
        statement = _statement(call) if loop is not None else None
        if loop is None or statement is None:
            continue
        edits.append((call.start_byte, call.end_byte, f"regrapht_acc_{counter}"))
        hoisted.setdefault(statement.start_byte, []).append(loop)
        counter += 1
    for start, loops in hoisted.items():
        edits.append((start, start, " ".join(loops) + " "))
    data = source.encode("utf-8")
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        data = data[:start] + text.encode("utf-8") + data[end:]
    return data.decode("utf-8")


def _loop(call: Node, number: int) -> str | None:
    """The call's loop, or None when it is not a plain call over ranges this reads."""
    function = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    if function is None or arguments is None or function.type != "qualified_identifier":
        return None
    scope, name = function.child_by_field_name("scope"), function.child_by_field_name("name")
    if scope is None or name is None or node_text(scope) != "std":
        return None
    algorithm = node_text(name)
    args = [a for a in arguments.named_children if a.type != "comment"]
    if len(args) != _ALGORITHMS.get(algorithm, -1) or not all(map(_pure, args)):
        return None
    first = _range(args[0], args[1])
    second = _start(args[2]) if algorithm == "inner_product" else None
    if first is None or (algorithm == "inner_product" and second is None):
        return None
    acc, k = f"regrapht_acc_{number}", f"regrapht_k_{number}"
    term = f"{first.base}[{k}]" if second is None else f"{first.base}[{k}] * {second}[{k}]"
    return (
        f"{_value_type(args[-1])} {acc} = ({node_text(args[-1])}); "
        f"for (std::size_t {k} = 0; {k} < {first.count}; ++{k}) {acc} = {acc} + {term};"
    )


def _value_type(init: Node) -> str:
    """The initial value's type, which is the accumulator's (``0.0f``: ``float``; ``0``:
    ``int``, as the standard has it, overflow and all); ``auto`` where this cannot tell,
    which C++ deduces the same way but the later analysis does not read."""
    node = init
    while node.type in ("parenthesized_expression", "unary_expression") and node.named_children:
        node = node.named_children[-1]
    if node.type == "number_literal":
        return _literal_type(node_text(node).replace("'", "").lower()) or "auto"
    if node.type == "call_expression":  # static_cast<T>(x)
        function = node.child_by_field_name("function")
        arguments = function.child_by_field_name("arguments") if function is not None else None
        name = function.child_by_field_name("name") if function is not None else None
        if name is not None and node_text(name) == "static_cast" and arguments is not None:
            return node_text(arguments)[1:-1].strip() or "auto"
    return "auto"


def _literal_type(text: str) -> str | None:
    """A number literal's C++ type, from its spelling (lower case, no separators)."""
    hexadecimal = text.startswith("0x")
    if "." in text or ("p" in text if hexadecimal else "e" in text):
        suffixes = {"f": "float", "l": "long double"}
        return suffixes.get(text[-1], "double")
    digits = text.rstrip("ul")
    suffix = text[len(digits) :]
    unsigned = "u" in suffix
    longs = suffix.count("l")
    if longs == 0 and not unsigned:
        try:  # an int if it fits one; octal's leading zero is Python's 0o
            octal = digits.startswith("0") and digits[1:2].isdigit()
            value = int(digits, 8) if octal else int(digits, 0)
        except ValueError:
            return None
        return "int" if value <= 2**31 - 1 else None
    width = "long long" if longs == 2 else "long" if longs else "int"
    return f"unsigned {width}" if unsigned else width


def _range(begin: Node, end: Node) -> _Range | None:
    """``v.begin(), v.end()`` (``cbegin``/``cend``, ``std::begin``/``std::end``) or
    ``p, p + n``."""
    start = _start(begin)
    if start is None:
        return None
    container = _end_of(end)
    if container is not None:
        opened = _method_name(begin)
        return _Range(start, f"{start}.size()") if container == (start, opened) else None
    if begin.type != "identifier" or end.type != "binary_expression":
        return None
    left, right = end.child_by_field_name("left"), end.child_by_field_name("right")
    operator = end.child_by_field_name("operator")
    if left is None or right is None or operator is None or node_text(operator) != "+":
        return None
    if node_text(left) != start:
        return None
    return _Range(start, f"static_cast<std::size_t>({node_text(right)})")


def _start(node: Node) -> str | None:
    """The container or pointer a range starts at: ``v`` for ``v.begin()``,
    ``std::begin(v)`` or a pointer ``v``."""
    if node.type == "identifier":
        return node_text(node)
    container = _called_on(node, _BEGINS)
    return container[0] if container is not None else None


def _end_of(node: Node) -> tuple[str, str] | None:
    """``(v, "begin")`` for ``v.end()`` or ``std::end(v)``; ``(v, "cbegin")`` for
    ``cend``: the container and the begin that pairs with this end."""
    found = _called_on(node, frozenset(_ENDS.values()))
    if found is None:
        return None
    opening = next(b for b, e in _ENDS.items() if e == found[1])
    return found[0], opening


def _method_name(node: Node) -> str:
    found = _called_on(node, _BEGINS)
    return found[1] if found is not None else ""


def _called_on(node: Node, methods: frozenset[str]) -> tuple[str, str] | None:
    """``(v, m)`` for ``v.m()`` or ``std::m(v)`` with ``m`` in ``methods``."""
    if node.type != "call_expression":
        return None
    function = node.child_by_field_name("function")
    arguments = node.child_by_field_name("arguments")
    if function is None or arguments is None:
        return None
    args = arguments.named_children
    if function.type == "field_expression" and not args:
        obj, field = function.child_by_field_name("argument"), function.child_by_field_name("field")
        dot = node_text(function.children[1]) == "."
        if obj is not None and field is not None and obj.type == "identifier" and dot:
            return (node_text(obj), node_text(field)) if node_text(field) in methods else None
    if function.type == "qualified_identifier" and len(args) == 1 and args[0].type == "identifier":
        scope, name = function.child_by_field_name("scope"), function.child_by_field_name("name")
        std = scope is not None and node_text(scope) == "std"
        if std and name is not None and node_text(name) in methods:
            return node_text(args[0]), node_text(name)
    return None


def _statement(call: Node) -> Node | None:
    """The statement of a block that holds ``call``, if the rest of it cannot change the
    range before the call runs; else None."""
    node = call.parent
    while node is not None and node.type not in _STATEMENTS:
        if node.type in ("lambda_expression", "compound_statement") or node.type.endswith(
            "_statement"
        ):
            return None
        node = node.parent
    if node is None or node.parent is None or node.parent.type != "compound_statement":
        return None
    assigned = node.named_children[0] if node.type == "expression_statement" else None
    for inner in walk(node):
        foreign = inner.type == "call_expression" and inner != call and not _inside(inner, call)
        if foreign and not _harmless(inner):
            return None
        if inner.type in _EFFECTS and inner != assigned:
            return None  # the statement's own assignment happens after the call anyway
    return node


def _inside(node: Node, outer: Node) -> bool:
    """``node`` is part of ``outer`` (not ``outer`` itself)."""
    return (
        outer.start_byte <= node.start_byte
        and node.end_byte <= outer.end_byte
        and (node.start_byte, node.end_byte) != (outer.start_byte, outer.end_byte)
    )


def _harmless(call: Node) -> bool:
    """A call that cannot change a container: ``v.size()``, a cast, a math function, or
    another algorithm call this module expands."""
    function = call.child_by_field_name("function")
    if function is None:
        return False
    if function.type == "field_expression":
        field = function.child_by_field_name("field")
        return field is not None and node_text(field) in _PURE_METHODS
    leaf = function.child_by_field_name("name") if function.type != "identifier" else function
    text = node_text(leaf) if leaf is not None else ""
    if function.type == "template_function":
        return text in ("static_cast",)
    return text in DEVICE_MATH or text in _ALGORITHMS


def _pure(node: Node) -> bool:
    """No assignment, increment or ``new`` anywhere in ``node``."""
    return not any(n.type in _EFFECTS for n in walk(node))
