"""``<numeric>`` and ``<algorithm>`` calls as the loops the standard defines them by.

People sum, dot, map and fill vectors with the standard library rather than a loop::

    float mean(const std::vector<float>& v) {
        return std::accumulate(v.begin(), v.end(), 0.0f) / v.size();
    }
    std::transform(x.begin(), x.end(), y.begin(), [a](float v) { return a * v; });

Everything after the front end (the length analysis, the rewriters) reads loops. The
standard specifies these algorithms as loops over their ranges, in order: ``accumulate``
as ``init = std::move(init) + *first`` (or ``op(init, *first)``) with an accumulator of
the initial value's type, ``inner_product`` adding ``*first1 * *first2``, ``transform``
as ``*out = op(*first)`` (or ``op(*first1, *first2)``), ``fill`` and ``copy`` likewise,
``count`` and ``count_if`` as a ``std::ptrdiff_t`` counted up where ``*first == value``
(or ``pred(*first)``), ``partial_sum`` and ``inclusive_scan`` as a running total stored
after each element is added, ``exclusive_scan`` as one stored before, ``fill_n`` and
``copy_n`` over ``count`` elements (none where it is not positive), ``iota`` from an
integer literal as ``value + k`` in its type, ``for_each`` as its lambda's body run on each
element (a reference parameter spelled as the element). So each call
becomes exactly that loop, on the same line (line numbers in messages stay the user's). A
value (``accumulate``, ``inner_product``, a count) is computed by a loop hoisted in front
of its statement:

    float stl_acc0 = (0.0f); for (std::size_t stl_k0 = 0; stl_k0 < v.size(); ++stl_k0)
    stl_acc0 = stl_acc0 + v[stl_k0]; return stl_acc0 / v.size();

and a statement that is only one of the others becomes its loop.
``*std::max_element(...)`` (``min_element``) becomes the element an index search finds, and
``std::max_element(...) - v.begin()`` (or ``std::distance``) that index;
``std::lower_bound(...) - v.begin()`` (``upper_bound``) the halving search that finds its
index, as libstdc++ probes (the index is all a kernel can use of the iterator). An
operation is a lambda whose body is one ``return`` (inlined, its parameters replaced by the
elements), a ``std::plus``-like function object, or a function's name (called).

Only where that is the same program: ranges written ``v.begin(), v.end()`` (``cbegin``,
``std::begin``) over a named container, or ``p, p + n`` over a pointer, and outputs and
second ranges from such a start; and the statement holding the call, a statement of its
block, calls nothing else that could run first and change the range (``v.size()``, casts
and math functions only). A lambda that mentions the container written is left alone: it
could have captured a copy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from regrapht_core.cxx.affine import mentions
from regrapht_core.cxx.calls import is_cast
from regrapht_core.cxx.lambdas import EFFECTS, Operand, body_on, declared, inlined, pure
from regrapht_core.cxx.literals import INTEGER_TYPES, literal_type
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.symbols import DEVICE_MATH
from regrapht_core.cxx.syntax import ObjectCall, object_call

__all__ = ["expand_algorithms"]

_VALUES = {"accumulate": (3, 4), "inner_product": (4,), "count": (3,), "count_if": (3,)}
"""Algorithms that compute a value, and the argument counts read (with or without an
operation: ``inner_product``'s two-operation form is left alone)."""
_STATEMENTS_READ = {
    "transform": (4, 5),
    "fill": (3,),
    "copy": (3,),
    "fill_n": (3,),
    "copy_n": (3,),
    "iota": (3,),
    "for_each": (3,),
    "partial_sum": (3,),
    "inclusive_scan": (3,),
    "exclusive_scan": (4,),
}
"""Algorithms whose call is a whole statement, and the argument counts read."""
_EXTREMES = {"max_element": ">", "min_element": "<"}
"""Algorithms that find an element, read where the element or its index is used at once,
and the comparison that moves to a new one (the standard's first largest or smallest:
``*largest < *first``, ``*first < *smallest``)."""
_SEARCHES = {"lower_bound": "{element} < ({value})", "upper_bound": "!(({value}) < {element})"}
"""Binary searches of a sorted range, read where their iterator becomes an index at once,
and the test that moves the search past the probed element: the standard's
``*it < value`` and ``!(value < *it)``."""
_ARITHMETIC = INTEGER_TYPES | {
    "float",
    "double",
    "long double",
    "short",
    "unsigned short",
    "char",
    "signed char",
    "unsigned char",
    "size_t",
    "ptrdiff_t",
    *(f"{sign}int{bits}_t" for sign in ("", "u") for bits in (8, 16, 32, 64)),
}
"""Element types a running total starts at ``0`` in (a record's has no such value)."""
_READ = frozenset({*_VALUES, *_STATEMENTS_READ, *_EXTREMES, *_SEARCHES})
_BEGINS = frozenset({"begin", "cbegin"})
_PAIRS = {"end": "begin", "cend": "cbegin"}
"""Each end and the begin it closes a range with."""
_STATEMENTS = frozenset({"expression_statement", "return_statement", "declaration"})
_PURE_METHODS = frozenset({"size", "empty"})
_OPERATORS = {
    "plus": ("+", 2),
    "minus": ("-", 2),
    "multiplies": ("*", 2),
    "divides": ("/", 2),
    "modulus": ("%", 2),
    "logical_and": ("&&", 2),
    "logical_or": ("||", 2),
    "bit_and": ("&", 2),
    "bit_or": ("|", 2),
    "bit_xor": ("^", 2),
    "negate": ("-", 1),
    "logical_not": ("!", 1),
}
"""``<functional>``'s function objects: their operator and how many operands it takes."""


@dataclass(frozen=True, slots=True)
class _Range:
    """Where element ``k`` of a range is (``v[k]``) and how many there are."""

    base: str
    count: str


def expand_algorithms(source: str, function: Node) -> str:
    """``source`` with each call in ``function``'s body that this module reads written as
    its loop, or ``source`` itself when there is none."""
    body = function.child_by_field_name("body")
    calls = [
        node
        for node in (walk(body) if body is not None else ())
        if node.type == "call_expression" and _std_name(node) in _READ
    ]
    if not calls:  # most functions: nothing to read, nothing more to look up
        return source
    edits: list[tuple[int, int, str]] = []
    hoisted: dict[int, list[str]] = {}
    counter = 0
    types = _element_types(function)
    taken = set(_WORDS.findall(source))
    for call in calls:
        if _within(call, edits):
            continue  # a call inside one already written out stays in its text as it is
        found = _expansion(call, counter, taken, types)
        if found is None:
            continue
        used, text, statement, loop = found
        # A call written over several lines keeps them (as blank ones), so the lines after
        # it keep their numbers.
        edits.append((used.start_byte, used.end_byte, text + "\n" * node_text(used).count("\n")))
        if statement is not None:
            hoisted.setdefault(statement.start_byte, []).append(loop)
        counter += 1
    for start, loops in hoisted.items():
        edits.append((start, start, " ".join(loops) + " "))
    data = source.encode("utf-8")
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        data = data[:start] + text.encode("utf-8") + data[end:]
    return data.decode("utf-8")


def _expansion(
    call: Node, counter: int, taken: set[str], types: dict[str, str]
) -> tuple[Node, str, Node | None, str] | None:
    """What ``call`` is written as: the node replaced and the text that replaces it, and
    for a value, the statement its loop goes in front of and that loop."""
    name = _std_name(call)
    k = _fresh(f"stl_k{counter}", taken)
    if name in _STATEMENTS_READ:
        statement = call.parent if _whole_statement(call) else None
        running = (_fresh(f"stl_acc{counter}", taken), k)
        loop = _statement_loop(call, name, running, types) if statement is not None else None
        return (statement, loop, None, "") if statement is not None and loop else None
    if name in _VALUES:
        acc = _fresh(f"stl_acc{counter}", taken)
        value = _value_loop(call, name, (acc, k), types)
        found = (call, acc, value) if value is not None else None
    elif name in _SEARCHES:
        names = (f"stl_at{counter}", f"stl_n{counter}", f"stl_half{counter}")
        found = _search(call, name, tuple(_fresh(n, taken) for n in names))
    else:
        found = _extreme(call, name, (_fresh(f"stl_best{counter}", taken), k))
    statement = _statement(found[0]) if found is not None else None
    if found is None or statement is None:
        return None
    used, text, loop = found
    return used, text, statement, loop


def _within(node: Node, edits: list[tuple[int, int, str]]) -> bool:
    return any(a <= node.start_byte and node.end_byte <= b for a, b, _ in edits if a < b)


_WORDS = re.compile(r"[A-Za-z_]\w*")


def _fresh(name: str, taken: set[str]) -> str:
    """``name``, or ``name_`` (``name__``...) where the file already uses it. Not
    ``regrapht_``: the verifier keeps names with that in them for its harness."""
    while name in taken:
        name += "_"
    return name


def _std_name(call: Node) -> str:
    """``accumulate`` for ``std::accumulate(...)``; empty for anything else."""
    function = call.child_by_field_name("function")
    if function is None or function.type != "qualified_identifier":
        return ""
    scope, name = function.child_by_field_name("scope"), function.child_by_field_name("name")
    if scope is None or name is None or node_text(scope) != "std" or name.type != "identifier":
        return ""
    return node_text(name)


def _arguments(call: Node, counts: tuple[int, ...]) -> list[Node] | None:
    """The call's arguments, if there are as many as one of ``counts`` and none has an
    effect of its own when the call is made (``for_each``'s lambda has its effects when it
    is called, on each element, as its loop has them)."""
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return None
    args = [a for a in arguments.named_children if a.type != "comment"]
    made = (
        args[:-1]
        if _std_name(call) == "for_each" and args[-1:] and (args[-1].type == "lambda_expression")
        else args
    )
    return args if len(args) in counts and all(map(pure, made)) else None


def _value_loop(
    call: Node, algorithm: str, names: tuple[str, str], types: dict[str, str]
) -> str | None:
    """The loop that computes ``accumulate``'s or ``inner_product``'s value into
    the first of ``names`` counting with the second, or None when the call is not one
    this reads."""
    args = _arguments(call, _VALUES[algorithm])
    first = _range(args[0], args[1]) if args is not None else None
    if args is None or first is None:
        return None
    acc, k = names
    if algorithm in ("count", "count_if"):
        element = _element(first.base, k, types)
        test = (
            f"{element.text} == ({node_text(args[2])})"
            if algorithm == "count"
            else _applied(args[2], [element])
        )
        loop = f"for (std::size_t {k} = 0; {k} < {first.count}; ++{k}) if ({test}) ++{acc};"
        # The count is a std::ptrdiff_t, which is long on the LP64 targets nvcc compiles
        # for; spelled long, the reductions read it.
        return f"long {acc} = 0; {loop}" if test is not None else None
    init = args[3] if algorithm == "inner_product" else args[2]
    kind = _value_type(init)
    if algorithm == "inner_product":
        second = _start(args[2])
        update = f"{acc} + {first.base}[{k}] * {second}[{k}]" if second is not None else None
    elif len(args) == 4:
        accumulator = Operand(acc, None if kind == "auto" else kind)
        update = _applied(args[3], [accumulator, _element(first.base, k, types)])
    else:
        update = f"{acc} + {first.base}[{k}]"
    if update is None:
        return None
    return (
        f"{kind} {acc} = ({node_text(init)}); "
        f"for (std::size_t {k} = 0; {k} < {first.count}; ++{k}) {acc} = {update};"
    )


def _extreme(call: Node, algorithm: str, names: tuple[str, str]) -> tuple[Node, str, str] | None:
    """``(used, replacement, loop)`` for a ``max_element``/``min_element`` call whose result
    is dereferenced (``*std::max_element(...)``: the element) or turned into an index at
    once (``... - v.begin()``, ``std::distance(v.begin(), ...)``); None for a call whose
    iterator is kept. The index is a ``std::ptrdiff_t``, as the iterator difference is."""
    args = _arguments(call, (2,))
    first = _range(args[0], args[1]) if args is not None else None
    parent = call.parent
    if first is None or parent is None:
        return None
    best, k = names
    loop = (
        f"std::ptrdiff_t {best} = 0; for (std::size_t {k} = 0; {k} < {first.count}; ++{k}) "
        f"if ({first.base}[{k}] {_EXTREMES[algorithm]} {first.base}[{best}]) {best} = {k};"
    )
    operator = parent.child_by_field_name("operator")
    if parent.type == "pointer_expression" and operator is not None and node_text(operator) == "*":
        return parent, f"{first.base}[{best}]", loop
    used = _as_index(call, first.base)
    return (used, best, loop) if used is not None else None


def _as_index(call: Node, base: str) -> Node | None:
    """The expression that turns ``call``'s iterator into its index at once (``... -
    v.begin()``, ``std::distance(v.begin(), ...)``), else None."""
    parent = call.parent
    operator = parent.child_by_field_name("operator") if parent is not None else None
    if parent is None:
        return None
    if parent.type == "binary_expression" and operator is not None and node_text(operator) == "-":
        right = parent.child_by_field_name("right")
        if parent.child_by_field_name("left") == call and right is not None:
            return parent if _start(right) == base else None
    distance = parent.parent if parent.type == "argument_list" else None
    if distance is not None and _std_name(distance) == "distance":
        start = parent.named_children[0] if parent.named_child_count == 2 else None
        if start is not None and parent.named_children[1] == call and _start(start) == base:
            return distance
    return None


def _search(call: Node, algorithm: str, names: tuple[str, ...]) -> tuple[Node, str, str] | None:
    """``(used, replacement, loop)`` for a ``lower_bound``/``upper_bound`` call (without a
    comparison) whose iterator becomes an index at once: the standard's halving search
    (libstdc++'s, probe for probe), its index a ``std::ptrdiff_t``; None otherwise."""
    args = _arguments(call, (3,))
    first = _range(args[0], args[1]) if args is not None else None
    used = _as_index(call, first.base) if first is not None else None
    if args is None or first is None or used is None:
        return None
    at, left, half = names
    moves = _SEARCHES[algorithm].format(
        element=f"{first.base}[{at} + {half}]", value=node_text(args[2])
    )
    loop = (
        f"std::ptrdiff_t {at} = 0; std::ptrdiff_t {left} = static_cast<std::ptrdiff_t>("
        f"{first.count}); while ({left} > 0) {{ const std::ptrdiff_t {half} = {left} / 2; "
        f"if ({moves}) {{ {at} += {half} + 1; {left} -= {half} + 1; }} "
        f"else {{ {left} = {half}; }} }}"
    )
    return used, at, loop


def _statement_loop(
    call: Node, algorithm: str, names: tuple[str, str], types: dict[str, str]
) -> str | None:
    """``transform``, ``fill``, ``copy`` or a scan as the loop that replaces its statement
    (``names``: a running total's and the counter's)."""
    args = _arguments(call, _STATEMENTS_READ[algorithm])
    if args is not None and algorithm.endswith("_n"):
        return _counted_loop(args, algorithm, names[1])
    first = _range(args[0], args[1]) if args is not None else None
    if args is None or first is None:
        return None
    k = names[1]
    if algorithm == "iota":
        return _iota_loop(first, args[2], k)
    if algorithm == "for_each":
        body = (
            body_on(args[2], f"{first.base}[{k}]") if args[2].type == "lambda_expression" else None
        )
        loop = f"for (std::size_t {k} = 0; {k} < {first.count}; ++{k}) {body}"
        return loop if body is not None and not mentions(args[2], first.base) else None
    if algorithm.endswith(("_sum", "_scan")):
        return _scan_loop(args, algorithm, first, names, types)
    element = f"{first.base}[{k}]"
    if algorithm == "fill":
        out: str | None = first.base
        value, given = f"({node_text(args[2])})", args[2]
    elif algorithm == "copy":
        out, value, given = _start(args[2]), element, args[2]
    elif len(args) == 4:
        out, given = _start(args[2]), args[3]
        value = _applied(given, [_element(first.base, k, types)]) or ""
    else:
        out, second, given = _start(args[3]), _start(args[2]), args[4]
        pair = [_element(first.base, k, types), _element(second or "", k, types)]
        value = (_applied(given, pair) or "") if second else ""
    if out is None or not value or (algorithm != "copy" and mentions(given, out)):
        return None  # a value or an operation that reads the output may see it change
    return f"for (std::size_t {k} = 0; {k} < {first.count}; ++{k}) {out}[{k}] = {value};"


def _counted_loop(args: list[Node], algorithm: str, k: str) -> str | None:
    """``fill_n(out, count, value)`` or ``copy_n(first, count, out)``: ``count`` elements
    from a start, none where ``count`` is not positive (a signed counter compares with it)."""
    start = _start(args[0])
    out = start if algorithm == "fill_n" else _start(args[2])
    value = f"({node_text(args[2])})" if algorithm == "fill_n" else f"{start}[{k}]"
    if start is None or out is None or (algorithm == "fill_n" and mentions(args[2], out)):
        return None
    count = node_text(args[1])
    return f"for (long long {k} = 0; {k} < ({count}); ++{k}) {out}[{k}] = {value};"


def _iota_loop(first: _Range, value: Node, k: str) -> str | None:
    """``iota(first, last, value)``: element ``k`` is ``value`` stepped ``k`` times, which
    for an integer ``value`` is ``value + k`` in its type (a float one stops growing past
    2^24, where the sum does not: left alone)."""
    kind = _value_type(value)
    if kind not in INTEGER_TYPES or mentions(value, first.base):
        return None
    element = f"static_cast<{kind}>(({node_text(value)}) + static_cast<{kind}>({k}))"
    return f"for (std::size_t {k} = 0; {k} < {first.count}; ++{k}) {first.base}[{k}] = {element};"


def _scan_loop(
    args: list[Node], algorithm: str, first: _Range, names: tuple[str, str], types: dict[str, str]
) -> str | None:
    """A running total stored after each element is added (``partial_sum``,
    ``inclusive_scan``: a total of the elements' type) or before (``exclusive_scan``: of
    the initial value's type), in order. The inclusive total starts at zero rather than at
    the first element: the same sums, but for a first element of -0.0, stored as +0.0. An
    exclusive scan writing over its input (allowed) would read elements already written:
    left alone."""
    acc, k = names
    out = _start(args[2])
    kind = types.get(first.base) if algorithm != "exclusive_scan" else _value_type(args[3])
    if out is None or kind is None or kind.removeprefix("std::") not in _ARITHMETIC:
        return None
    element = f"{first.base}[{k}]"
    if algorithm == "exclusive_scan":
        if out == first.base:
            return None
        start, body = f"({node_text(args[3])})", f"{out}[{k}] = {acc}; {acc} += {element};"
    else:
        start, body = "0", f"{acc} += {element}; {out}[{k}] = {acc};"
    loop = f"for (std::size_t {k} = 0; {k} < {first.count}; ++{k}) {{ {body} }}"
    return f"{kind} {acc} = {start}; {loop}"


def _applied(operation: Node, operands: list[Operand]) -> str | None:
    """``operation`` applied to ``operands`` (C++ expressions), as the right-hand side of
    an assignment: a one-``return`` lambda inlined, a function object's operator, a
    function called."""
    if operation.type == "lambda_expression":
        return inlined(operation, operands)
    functor = _functor(operation)
    if functor is not None:
        symbol, arity, cast = functor
        parts = [f"static_cast<{cast}>({o.text})" if cast else o.text for o in operands]
        if len(parts) != arity:
            return None
        return f"{symbol}{parts[0]}" if arity == 1 else f"{parts[0]} {symbol} {parts[1]}"
    if operation.type in ("identifier", "qualified_identifier"):
        return f"{node_text(operation)}({', '.join(o.text for o in operands)})"
    return None


def _functor(node: Node) -> tuple[str, int, str] | None:
    """``("+", 2, "float")`` for ``std::plus<float>()``, ``("+", 2, "")`` for
    ``std::plus<>{}``: operator, operands, the type they are converted to."""
    if node.type not in ("call_expression", "compound_literal_expression"):
        return None
    function = node.child_by_field_name("function") or node.child_by_field_name("type")
    arguments = node.child_by_field_name("arguments") or node.child_by_field_name("value")
    if function is None or function.type != "qualified_identifier":
        return None
    if arguments is not None and arguments.named_child_count:
        return None
    scope, name = function.child_by_field_name("scope"), function.child_by_field_name("name")
    if scope is None or name is None or node_text(scope) != "std":
        return None
    if name.type in ("template_function", "template_type"):
        leaf, types = name.child_by_field_name("name"), name.child_by_field_name("arguments")
        cast = node_text(types)[1:-1].strip() if types is not None else ""
    else:
        leaf, cast = name, ""
    found = _OPERATORS.get(node_text(leaf)) if leaf is not None else None
    return (*found, cast) if found is not None else None


def _element(base: str, k: str, types: dict[str, str]) -> Operand:
    return Operand(f"{base}[{k}]", types.get(base))


def _element_types(function: Node) -> dict[str, str]:
    """The element type of each container, pointer or array the function declares, by
    name (``float`` for ``const std::vector<float>& x``, ``const float* x``, ``float x[8]``)."""
    found: dict[str, str] = {}
    for node in walk(function):
        if node.type not in ("parameter_declaration", "declaration"):
            continue
        kind = node.child_by_field_name("type")
        if kind is None:
            continue
        for declarator in node.children_by_field_name("declarator"):
            name, indirect = declared(declarator)
            if name is None:
                continue
            if indirect:
                found[name] = node_text(kind)
            elif kind.type in ("template_type", "qualified_identifier"):
                element = _template_element(kind)
                if element is not None:
                    found[name] = element
    return found


def _template_element(kind: Node) -> str | None:
    """``float`` for ``std::vector<float>``, ``std::span<const float>`` or
    ``std::array<float, 4>``."""
    template = kind.child_by_field_name("name") if kind.type == "qualified_identifier" else kind
    if template is None or template.type != "template_type":
        return None
    name, arguments = (
        template.child_by_field_name("name"),
        template.child_by_field_name("arguments"),
    )
    if name is None or arguments is None or node_text(name) not in ("vector", "span", "array"):
        return None
    first = next((a for a in arguments.named_children if a.type == "type_descriptor"), None)
    if first is None:
        return None
    kind_node = first.child_by_field_name("type")
    return node_text(kind_node) if kind_node is not None else None


def _whole_statement(call: Node) -> bool:
    """The call is all of a statement of a block (its value, an iterator, unused)."""
    statement = call.parent
    return (
        statement is not None
        and statement.type == "expression_statement"
        and statement.parent is not None
        and statement.parent.type == "compound_statement"
    )


def _value_type(init: Node) -> str:
    """The initial value's type, which is the accumulator's (``0.0f``: ``float``; ``0``:
    ``int``, as the standard has it, overflow and all); ``auto`` where this cannot tell,
    which C++ deduces the same way but the later analysis does not read."""
    node = init
    while node.type in ("parenthesized_expression", "unary_expression") and node.named_children:
        node = node.named_children[-1]
    if node.type == "number_literal":
        return literal_type(node_text(node).replace("'", "").lower()) or "auto"
    function = node.child_by_field_name("function") if node.type == "call_expression" else None
    if function is not None and is_cast(function):  # static_cast<T>(x)
        arguments = function.child_by_field_name("arguments")
        return node_text(arguments)[1:-1].strip() or "auto" if arguments is not None else "auto"
    return "auto"


def _range(begin: Node, end: Node) -> _Range | None:
    """``v.begin(), v.end()`` (``cbegin``/``cend``, ``std::begin``/``std::end``) or
    ``p, p + n``."""
    opened, closed = _called_on(begin, _BEGINS), _called_on(end, frozenset(_PAIRS))
    if opened is not None and closed is not None:
        if opened.target != closed.target or _PAIRS[closed.method] != opened.method:
            return None
        return _Range(opened.target, f"{opened.target}.size()")
    if opened is not None or closed is not None:
        return None
    if begin.type != "identifier" or end.type != "binary_expression":
        return None
    left, right = end.child_by_field_name("left"), end.child_by_field_name("right")
    operator = end.child_by_field_name("operator")
    if left is None or right is None or operator is None or node_text(operator) != "+":
        return None
    if node_text(left) != node_text(begin):
        return None
    return _Range(node_text(begin), f"static_cast<std::size_t>({node_text(right)})")


def _start(node: Node) -> str | None:
    """The container or pointer a range starts at: ``v`` for ``v.begin()``,
    ``std::begin(v)`` or a pointer ``v``."""
    if node.type == "identifier":
        return node_text(node)
    container = _called_on(node, _BEGINS)
    return container.target if container is not None else None


def _called_on(node: Node, methods: frozenset[str]) -> ObjectCall | None:
    """``v.m()`` or ``std::m(v)`` with ``m`` in ``methods``."""
    call = object_call(node)
    if call is None or call.spelled not in (".", "std::") or call.arguments:
        return None
    return call if call.method in methods else None


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
        if inner.type in EFFECTS and inner != assigned:
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
    if is_cast(function):
        return True
    leaf = function.child_by_field_name("name") if function.type != "identifier" else function
    text = node_text(leaf) if leaf is not None else ""
    return function.type != "template_function" and (text in DEVICE_MATH or text in _VALUES)
