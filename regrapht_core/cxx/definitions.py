"""An index as the value it names: locals that never change after their definition, inlined.

Real loops name their indices: ``int i = y * width + x; out[i] = in[i] * 1.5f;``. The
ownership proof (:mod:`regrapht_core.cxx.ownership`) reads an index by its syntax, so on
its own it sees ``out[i]`` as an unknown body local, not as an element of row ``y``, and
refuses a loop it accepts once the definition is inlined by hand. :meth:`IndexValues.value`
reads through such names: it returns the index with each qualifying local replaced by its
initializer (transitively), and with value-preserving integer casts
(``static_cast<size_t>(y)``, ``(long)y``, ``size_t(y)`` to types of 32 bits or more) dropped,
under the no-overflow assumption the affine analysis makes of all index arithmetic anyway.

Inlining is only sound when the name holds, at every use, the value its initializer
computed, and that value is the one the initializer would compute at the use. So a local
is inlined only when:

- it is declared, with an initializer, by a statement of a block inside the loop body that
  encloses the use, before the use (so the definition runs whenever the use does: ``goto`` is
  refused elsewhere, and a ``switch`` whose cases share the block is not trusted);
- it is a plain integer variable (``int``, ``size_t``, ``auto``, …; ``const`` or not, never
  ``volatile``), not a pointer, reference or array;
- nothing in its scope assigns it, steps it (``++``/``--``/``+=``), takes its address, binds
  a reference to it or passes it to a function-like macro;
- its initializer is pure integer arithmetic (no call other than a cast, no memory read, no
  floating-point value: ``int i = x * 0.5`` truncates), and every name it uses is an integer
  that is unchanged since: the loop variable, a parameter, prelude local or constant that the
  loop does not write, another local that qualifies, or the variable of a counted inner loop
  (which its body never assigns) whose body holds the definition;
- neither it nor a name its initializer uses is declared again later in its block: past
  that declaration the inlined text would name another variable.

Everything else is left as written, which keeps today's verdict (usually a refusal). The
rewriters still emit the user's code verbatim: only the analysis reads through the names.
"""

from __future__ import annotations

from collections.abc import Iterator

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.affine import int_literal
from regrapht_core.cxx.loops import CountedLoop
from regrapht_core.cxx.parse import Node, node_text, parse_source, walk
from regrapht_core.cxx.syntax import declared_name, strip_parens

__all__ = ["IndexValues", "changed", "integer_constants", "integer_values", "is_integer_type"]

_WIDE_INTEGERS = frozenset(
    " ".join(words)
    for words in (
        ("int",),
        ("signed",),
        ("signed", "int"),
        ("unsigned",),
        ("unsigned", "int"),
        ("long",),
        ("long", "int"),
        ("signed", "long"),
        ("signed", "long", "int"),
        ("unsigned", "long"),
        ("unsigned", "long", "int"),
        ("long", "long"),
        ("long", "long", "int"),
        ("signed", "long", "long"),
        ("signed", "long", "long", "int"),
        ("unsigned", "long", "long"),
        ("unsigned", "long", "long", "int"),
    )
) | frozenset(
    prefix + name
    for prefix in ("", "std::")
    for name in (
        "size_t",
        "ssize_t",
        "ptrdiff_t",
        "intptr_t",
        "uintptr_t",
        "int32_t",
        "uint32_t",
        "int64_t",
        "uint64_t",
    )
)
"""Integer types that hold every index value the affine analysis reasons about."""

_INTEGERS = _WIDE_INTEGERS | frozenset(
    {
        "bool",
        "char",
        "signed char",
        "unsigned char",
        "short",
        "short int",
        "signed short",
        "signed short int",
        "unsigned short",
        "unsigned short int",
        "int8_t",
        "uint8_t",
        "int16_t",
        "uint16_t",
        "std::int8_t",
        "std::uint8_t",
        "std::int16_t",
        "std::uint16_t",
    }
)
"""Every integer type: a name of one of these types is exact in index arithmetic."""

_OPAQUE = frozenset(
    {
        "sizeof_expression",
        "alignof_expression",
        "decltype",
        "type_descriptor",
        "template_argument_list",
        "template_function",
        "qualified_identifier",
    }
)
"""Subtrees read as written: a name inside ``sizeof`` or a type is not a value to inline."""

_PURE = frozenset(
    {
        "identifier",
        "number_literal",
        "char_literal",
        "true",
        "false",
        "binary_expression",
        "unary_expression",
        "parenthesized_expression",
        "conditional_expression",
        "cast_expression",
    }
)
"""Expression kinds an inlined initializer may consist of: arithmetic without side effects."""

_POSTFIX = frozenset(
    {
        "identifier",
        "number_literal",
        "parenthesized_expression",
        "call_expression",
        "subscript_expression",
        "field_expression",
    }
)
"""Kinds whose text can stand where a name stood without parentheses."""

_DECLARING = frozenset(
    {"declaration", "parameter_declaration", "optional_parameter_declaration", "for_range_loop"}
)

_BLOCKED = object()
"""A declaration this analysis does not follow (a case label of a ``switch`` sits between)."""

_MAX_DEPTH = 32


def _normal(text: str) -> str:
    return " ".join(text.replace("::", " :: ").split()).replace(" :: ", "::")


def _type_words(type_node: Node) -> str:
    return _normal(node_text(type_node))


def is_integer_type(text: str) -> bool:
    """``text`` (qualifiers allowed) names an integer type, narrow ones included."""
    words = [w for w in _normal(text).split() if w not in ("const", "constexpr", "volatile")]
    return " ".join(words) in _INTEGERS


def integer_constants(root: Node) -> set[str]:
    """Object-like macros that expand to an integer literal, and namespace-scope ``const``
    integers: names an inlined initializer may use (their value never changes)."""
    return {name for name, _ in _integer_definitions(root)}


def integer_values(root: Node) -> dict[str, int]:
    """The :func:`integer_constants` whose definition is an integer literal, with its value
    (``constexpr int R = 1;``, ``#define S 16``): what a proof about loop bounds may read
    them as, where a stencil names its radius."""
    values = {name: int_literal(text) for name, text in _integer_definitions(root)}
    return {name: value for name, value in values.items() if value is not None}


def _integer_definitions(root: Node) -> Iterator[tuple[str, str]]:
    """Each of the :func:`integer_constants` with the text it is defined as."""
    for node in root.named_children:
        if node.type == "preproc_def":
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            text = node_text(value).strip() if value is not None else ""
            if name is not None and text.rstrip("uUlL").isdigit():
                yield node_text(name), text
        elif node.type == "declaration":
            qualifiers = {node_text(c) for c in node.children if c.type == "type_qualifier"}
            kind = node.child_by_field_name("type")
            if not qualifiers & {"const", "constexpr"} or "volatile" in qualifiers:
                continue
            if kind is None or not is_integer_type(node_text(kind)):
                continue
            for declarator in node.children_by_field_name("declarator"):
                target = declarator.child_by_field_name("declarator")
                value = declarator.child_by_field_name("value")
                if declarator.type == "init_declarator" and target and target.type == "identifier":
                    yield node_text(target), node_text(value) if value is not None else ""


def _cast_operand(node: Node) -> tuple[Node, bool] | None:
    """``(operand, widening)`` for ``static_cast<T>(e)``, ``(T)e`` or ``T(e)``; ``widening``
    when ``T`` is an integer type of at least 32 bits, so the value survives the cast."""
    if node.type == "cast_expression":
        kind = node.child_by_field_name("type")
        value = node.child_by_field_name("value")
        if kind is None or value is None:
            return None
        return value, _type_words(kind) in _WIDE_INTEGERS
    if node.type != "call_expression":
        return None
    function = node.child_by_field_name("function")
    arguments = node.child_by_field_name("arguments")
    if function is None or arguments is None or arguments.named_child_count != 1:
        return None
    operand = arguments.named_children[0]
    if function.type == "template_function":
        name = function.child_by_field_name("name")
        targets = function.child_by_field_name("arguments")
        if name is None or node_text(name) != "static_cast" or targets is None:
            return None
        if targets.named_child_count != 1:
            return None
        return operand, _type_words(targets.named_children[0]) in _WIDE_INTEGERS
    if function.type in ("primitive_type", "type_identifier", "sized_type_specifier"):
        return operand, _type_words(function) in _WIDE_INTEGERS
    if function.type in ("identifier", "qualified_identifier") and (
        _type_words(function) in _WIDE_INTEGERS
    ):
        return operand, True
    return None


def _is_value_name(node: Node) -> bool:
    """An identifier used as a value (not a called function, a member or a scope)."""
    parent = node.parent
    if node.type != "identifier" or parent is None:
        return False
    if parent.type == "call_expression" and parent.child_by_field_name("function") == node:
        return False
    return parent.type not in _OPAQUE


def _parse_expression(text: str) -> Node | None:
    """``text`` parsed as an expression of a tree of its own, ``None`` when it does not
    parse back to exactly ``text``."""
    source = f"void __regrapht_index() {{ __regrapht_value = {text}; }}"
    tree = parse_source(source, SourceLanguage.CUDA)
    if tree.root_node.has_error:
        return None
    for node in walk(tree.root_node):
        if node.type == "assignment_expression":
            right = node.child_by_field_name("right")
            if right is not None and node_text(right) == text:
                return right
            return None
    return None


class IndexValues:
    """Reads indices through the effectively-const locals of one loop body.

    ``stable_loops`` are the counted inner loops whose variable the body never assigns
    (:attr:`regrapht_core.cxx.loop_scope.LoopFacts.inner_loops`); ``outer_integers`` the
    integer names from outside the loop body that the loop never changes (the loop
    variable, scalar parameters, prelude locals, constants): an initializer may read only
    those and qualifying locals, for an ``int`` local of ``x * scale`` with a ``float``
    scale is not ``x * scale``. ``macros`` are the function-like macros of the file, which
    could assign an argument.
    """

    def __init__(
        self,
        loop: CountedLoop,
        stable_loops: dict[str, list[CountedLoop]],
        outer_integers: set[str] | frozenset[str],
        macros: set[str] | frozenset[str] = frozenset(),
    ) -> None:
        self.loop = loop
        self.stable_loops = stable_loops
        self.outer_integers = outer_integers
        self.macros = macros
        self._verdicts: dict[int, Node | None] = {}

    def value(self, index: Node) -> Node:
        """``index`` with named locals and widening casts read through, or ``index`` itself
        when there is nothing to read through. The result may belong to a tree of its own:
        only its text and shape are meaningful, not its position."""
        text, _ = self._render(index, 0)
        if text == node_text(index):
            return index
        parsed = _parse_expression(text)
        return parsed if parsed is not None else index

    # -- rendering -----------------------------------------------------------------------

    def _render(self, node: Node, depth: int) -> tuple[str, bool]:
        """The text of ``node`` read through, and whether it is a primary or postfix
        expression (one that needs no parentheses where a name stood)."""
        atomic = node.type in _POSTFIX
        if depth > _MAX_DEPTH or node.type in _OPAQUE:
            return node_text(node), atomic
        replaced: Node | None = None
        if _is_value_name(node):
            replaced = self._definition_value(node, depth)
        else:
            cast = _cast_operand(node)
            replaced = cast[0] if cast is not None and cast[1] else None
        if replaced is not None:
            text, replaced_atomic = self._render(replaced, depth + 1)
            return (text if replaced_atomic else f"({text})"), True
        if node.child_count == 0:
            return node_text(node), atomic
        source = node.text or b""
        base, cursor = node.start_byte, node.start_byte
        parts: list[str] = []
        for child in node.children:
            parts.append(source[cursor - base : child.start_byte - base].decode())
            parts.append(self._render(child, depth)[0])
            cursor = child.end_byte
        parts.append(source[cursor - base :].decode())
        return "".join(parts), atomic

    # -- which declaration a name refers to ---------------------------------------------

    def _declarator(self, use: Node) -> Node | object | None:
        """The declarator inside the loop body that ``use`` refers to, :data:`_BLOCKED`, or
        ``None`` when the name is declared outside the loop body (or is its variable)."""
        name = node_text(use)
        node = use
        while node.parent is not None and node != self.loop.body:
            parent = node.parent
            before = [c for c in parent.children if c.end_byte <= node.start_byte]
            for sibling in reversed(before):
                found = _introduces(parent, sibling, name)
                if found is not None:
                    return found
            node = parent
        return None

    # -- does a declaration qualify ------------------------------------------------------

    def _definition_value(self, use: Node, depth: int) -> Node | None:
        """The initializer to read ``use`` as, or ``None`` when it is left as written."""
        declarator = self._declarator(use)
        if not isinstance(declarator, Node):
            return None
        return self._qualifying_value(declarator, depth)

    def _qualifying_value(self, declarator: Node, depth: int) -> Node | None:
        key = declarator.id
        if key not in self._verdicts:
            self._verdicts[key] = None  # a name cannot be used in its own definition
            self._verdicts[key] = self._check(declarator, depth)
        return self._verdicts[key]

    def _check(self, declarator: Node, depth: int) -> Node | None:
        if depth > _MAX_DEPTH or declarator.type != "init_declarator":
            return None
        name = declarator.child_by_field_name("declarator")
        value = declarator.child_by_field_name("value")
        if name is None or name.type != "identifier" or value is None:
            return None
        if value.type == "initializer_list":
            if value.named_child_count != 1:
                return None
            value = value.named_children[0]
        declaration = declarator.parent
        if declaration is None or declaration.type != "declaration":
            return None
        block = declaration.parent
        body = self.loop.body
        if block is None or block.type != "compound_statement":
            return None
        if not (body.start_byte <= block.start_byte and block.end_byte <= body.end_byte):
            return None
        if not _plain_integer(declaration) or not _pure(value):
            return None
        names = self._stable_names(value, declaration, depth)
        if names is None:
            return None
        if self._disturbed(node_text(name), names, block, declarator.start_byte):
            return None
        return value

    def _stable_names(self, value: Node, declaration: Node, depth: int) -> set[str] | None:
        """The names ``value`` reads, when each has, wherever the local is in scope, the
        value it had at the definition; ``None`` when one may not."""
        names: set[str] = set()
        for node in walk(value):
            if not _is_value_name(node) or any(a.type in _OPAQUE for a in _ancestors(node, value)):
                continue
            names.add(node_text(node))
            found = self._declarator(node)
            if found is None:
                if node_text(node) in self.outer_integers:
                    continue  # the loop variable, or an integer from outside the loop
                return None
            if not isinstance(found, Node):
                return None
            if self._qualifying_value(found, depth + 1) is not None:
                continue
            if not self._stable_loop_variable(found, node_text(node), declaration):
                return None
        return names

    def _stable_loop_variable(self, declarator: Node, name: str, declaration: Node) -> bool:
        """``declarator`` declares the variable of a counted inner loop that never assigns
        it, and the loop's body holds ``declaration``."""
        init = declarator.parent
        loop = init.parent if init is not None else None
        if loop is None or loop.type != "for_statement":
            return False
        return any(
            inner.node == loop
            and inner.body.start_byte <= declaration.start_byte
            and declaration.end_byte <= inner.body.end_byte
            for inner in self.stable_loops.get(name, [])
        )

    def _macro_argument(self, call: Node, name: str) -> bool:
        """``call`` is a function-like macro given ``name``, which its expansion may assign."""
        function = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if function is None or arguments is None or node_text(function) not in self.macros:
            return False
        return any(_names(a, name) for a in arguments.named_children)

    def _disturbed(self, name: str, reads: set[str], block: Node, start: int) -> bool:
        """Anything in ``block`` from ``start`` on that may change the local ``name``, or
        that declares ``name`` or a name its initializer ``reads`` again: past such a
        declaration, the inlined text would mean other variables than the definition did."""
        for node in walk(block):
            if node.end_byte <= start:
                continue
            if node.start_byte > start and any(
                node_text(n) in reads | {name}
                for d in _declarators(node)
                if (n := declared_name(d)) is not None
            ):
                return True
            if node.type == "call_expression" and self._macro_argument(node, name):
                return True
            target = changed(node)
            if target is not None and _names(target, name):
                return True
        return False


def changed(node: Node) -> Node | None:
    """What ``node`` may change: an assigned, stepped, address-taken or reference-bound
    expression."""
    if node.type == "assignment_expression":
        return node.child_by_field_name("left")
    if node.type == "update_expression":
        return node.child_by_field_name("argument")
    if node.type == "pointer_expression" and node_text(node.children[0]) == "&":
        return node.child_by_field_name("argument")
    if node.type == "init_declarator":
        inner = node.child_by_field_name("declarator")
        if inner is not None and inner.type == "reference_declarator":
            return node.child_by_field_name("value")
    return None


def _declarators(node: Node) -> list[Node]:
    """The declarators of a declaration, parameter or range-for (other nodes: none)."""
    if node.type in _DECLARING:
        return node.children_by_field_name("declarator")
    return []


def _introduces(parent: Node, sibling: Node, name: str) -> Node | object | None:
    """The declarator of ``name`` that ``sibling``, coming before a use inside ``parent``,
    puts in scope there; :data:`_BLOCKED` for one this module does not follow."""

    def named(declarator: Node) -> bool:
        found = declared_name(declarator)
        return found is not None and node_text(found) == name

    if sibling.type == "declaration":
        return next((d for d in _declarators(sibling) if named(d)), None)
    if sibling.type == "condition_clause":
        for child in sibling.named_children:
            if child.type == "declaration":
                return next((d for d in _declarators(child) if named(d)), None)
        return None
    if sibling.type in ("case_statement", "parameter_list"):
        for child in sibling.named_children:
            if any(named(d) for d in _declarators(child)):
                return _BLOCKED
        return None
    if parent.type in _DECLARING and any(d == sibling for d in _declarators(parent)):
        return sibling if named(sibling) else None
    if parent.type == "init_declarator" and sibling == parent.child_by_field_name("declarator"):
        return sibling if named(sibling) else None
    return None


def _plain_integer(declaration: Node) -> bool:
    for child in declaration.children:
        if child.type == "storage_class_specifier":
            return False
        if child.type == "type_qualifier" and node_text(child) not in ("const", "constexpr"):
            return False
    kind = declaration.child_by_field_name("type")
    if kind is None:
        return False
    words = _type_words(kind)
    return words == "auto" or words in _WIDE_INTEGERS


def _pure(value: Node) -> bool:
    """Arithmetic on names and literals, and casts: nothing that reads memory or calls."""
    stack = [value]
    while stack:
        node = stack.pop()
        if not node.is_named or node.type in _OPAQUE:
            continue
        if node.type == "call_expression":
            cast = _cast_operand(node)
            if cast is None:
                return False
            stack.append(cast[0])
            continue
        if node.type not in _PURE:
            return False
        if node.type == "number_literal" and _integer_literal(node) is None:
            return False
        stack.extend(node.children)
    return True


def _integer_literal(node: Node) -> int | None:
    try:
        return int(node_text(node).rstrip("uUlL"), 0)
    except ValueError:
        return None


def _names(node: Node, name: str) -> bool:
    """``node`` is ``name`` itself, maybe parenthesised or cast (``const_cast<int&>(i)``)."""
    while True:
        node = strip_parens(node)
        if node.type == "cast_expression":
            inner = node.child_by_field_name("value")
        elif (
            node.type == "call_expression"
            and (node.child_by_field_name("function") or node).type == "template_function"
        ):
            arguments = node.child_by_field_name("arguments")
            inner = arguments.named_children[0] if arguments and arguments.named_children else None
        else:
            return node.type == "identifier" and node_text(node) == name
        if inner is None:
            return False
        node = inner


def _ancestors(node: Node, stop: Node) -> list[Node]:
    out = []
    current = node.parent
    while current is not None and current != stop:
        out.append(current)
        current = current.parent
    return out
