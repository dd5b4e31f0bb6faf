"""Ordinary C++ entries as the C-style function the loop rewriters map.

Users write ``void scale(const std::vector<float>& x, std::vector<float>& y)`` (or take
``std::span<const float>``), loop to ``x.size()``, return ``std::vector``s and sum into
``float& total``. Device code sees none
of that: a kernel takes pointers and sizes. Rather than teach every analysis about
containers, the entry is split in two before the loop rewriters look at it:

- an **implementation** function over pointers and sizes: the body as written, with
  ``v.size()`` turned into the size parameter ``v_size``, ``v.data()`` into ``v``,
  ``v.at(k)`` into ``v[k]``, ``v.front()``/``v.back()`` into subscripts, ``v.empty()``
  into a comparison, and a range-for over a container into a counted loop;
- a **wrapper** with the entry's exact signature: the container set-up statements the
  body starts with (``y.resize(n)``, ``std::vector<float> y(n);``) stay on the host, then
  one call passes ``v.data()`` and ``v.size()``, then the ``return y;`` it ends with.

A writable scalar reference (``float& total``) becomes a local of the implementation
that starts at the caller's value and is returned, so a sum into it is an ordinary
reduction. The rewriters then map the implementation's loops with a derived task whose
pointer lengths are the size parameters; the verifier still checks the whole file against
the user's task. Anything the split cannot express keeps the entry as it was, with the
reason, so the refusal names the construct and its line.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from regrapht_core.contracts.task import ArgSpec, ParamKind, Role, Task
from regrapht_core.cxx.affine import uses
from regrapht_core.cxx.declared import declared_names
from regrapht_core.cxx.functions import function_definitions, function_name
from regrapht_core.cxx.params import Parameter, parameters
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.syntax import (
    NameAllocator,
    assignment_targets,
    constructed,
    parse,
    strip_parens,
)
from regrapht_core.rewrite.appends import appends_as_writes
from regrapht_core.rewrite.device_types import (
    device_includes,
    device_type,
    host_value,
    needs_device_type,
    passed_pointer,
    passed_value,
    spelling_edits,
)

__all__ = ["PointerForm", "pointer_form"]

_SETUP_METHODS = frozenset({"resize", "assign", "clear", "reserve", "shrink_to_fit"})
_CONTAINER_TYPES = frozenset({"vector", "array"})


@dataclass(frozen=True, slots=True)
class PointerForm:
    code: str
    """The whole file with the entry split into implementation and wrapper."""
    task: Task
    """The implementation as a task: containers as pointers sized by their size parameters."""


@dataclass(frozen=True, slots=True)
class _Buffer:
    """A container the implementation receives as ``pointer, size``."""

    name: str
    element: str
    const: bool
    size: str
    local: bool
    """Declared by the body's set-up statements, not a parameter."""
    packed: str = ""
    """For ``std::vector<bool>``: the wrapper's byte copy that stands in for ``data()``."""


def _line(node: Node) -> str:
    """Where, quoted: line numbers would count lines of the reference unit, not the file."""
    text = " ".join(node_text(node).split())
    return f"`{text[:60]}{'...' if len(text) > 60 else ''}`"


def _find(root: Node, entry: str) -> Node:
    """The entry: a namespace-scope function, or a member function defined in its class."""
    members = [
        d
        for n in root.named_children
        for c in walk(n)
        if c.type == "field_declaration_list"
        for d in c.named_children
        if d.type == "function_definition"
    ]
    candidates = [*function_definitions(root), *members]
    matches = [d for d in candidates if function_name(d) == entry]
    if len(matches) != 1:
        raise Refusal(f"the code defines `{entry}` {len(matches)} times")
    return matches[0]


def _needs_split(params: tuple[Parameter, ...], definition: Node, body: Node) -> bool:
    if any(p.container is not None or p.reference for p in params):
        return True
    if _device_spelled(params, definition) or _members(definition) is not None:
        return True
    pointers = {p.name for p in params if p.pointer}
    if any(_element_reference(n, pointers) for n in walk(body) if n.type == "declaration"):
        return True
    return any(_local_container(s) is not None for s in body.named_children)


def _local_container(statement: Node) -> tuple[str, str, bool] | None:
    """``(name, element, is_vector)`` for ``std::vector<T> y(...);`` / ``std::array<T, N> y;``."""
    if statement.type != "declaration":
        return None
    kind = statement.child_by_field_name("type")
    declarators = statement.children_by_field_name("declarator")
    if kind is None or len(declarators) != 1:
        return None
    template = kind.child_by_field_name("name") if kind.type == "qualified_identifier" else kind
    if template is None or template.type != "template_type":
        return None
    name = template.child_by_field_name("name")
    arguments = template.child_by_field_name("arguments")
    if name is None or node_text(name) not in _CONTAINER_TYPES or arguments is None:
        return None
    types = [c for c in arguments.named_children if c.type == "type_descriptor"]
    declarator = declarators[0]
    made = constructed(declarator)
    target = made[0] if made is not None else declarator
    if not types or target.type != "identifier":
        return None
    return node_text(target), node_text(types[0]), node_text(name) == "vector"


def _method_call(node: Node) -> tuple[str, str, Node] | None:
    """``(object, method, call)`` for ``v.method(...)`` with ``v`` a plain name."""
    if node.type != "call_expression":
        return None
    function = node.child_by_field_name("function")
    if function is None or function.type != "field_expression":
        return None
    obj, field = function.child_by_field_name("argument"), function.child_by_field_name("field")
    if obj is None or field is None or strip_parens(obj).type != "identifier":
        return None
    if node_text(function.children[1]) != ".":
        return None
    return node_text(strip_parens(obj)), node_text(field), node


def _is_setup(statement: Node, containers: set[str]) -> bool:
    """A statement that only sizes or fills a container: it stays on the host."""
    if _local_container(statement) is not None:
        return True
    if statement.type != "expression_statement" or not statement.named_child_count:
        return False
    call = _method_call(statement.named_children[0])
    return call is not None and call[0] in containers and call[1] in _SETUP_METHODS


def _is_epilogue(statement: Node, containers: set[str]) -> bool:
    """``return y;`` of a container."""
    if statement.type != "return_statement" or not statement.named_child_count:
        return False
    value = strip_parens(statement.named_children[0])
    return value.type == "identifier" and node_text(value) in containers


class _Core:
    """Rewrites the implementation's statements over pointers and sizes."""

    def __init__(
        self,
        buffers: dict[str, _Buffer],
        names: NameAllocator,
        *,
        spell: bool,
        complex_math: bool,
        pointers: frozenset[str],
    ) -> None:
        self.buffers = buffers
        self.pointers = pointers
        """Pointer parameters: an element reference into one is spelled out too."""
        self.names = names
        self.spell = spell
        """Give the code the device spelling of complex and pair types (:mod:`.device_types`)."""
        self.complex_math = complex_math
        """Complex values are about: ``std::abs`` and the like become ``cuda::std::``."""
        self.edits: list[Edit] = []

    def statement(self, node: Node) -> None:
        skip: set[int] = set()
        for n in walk(node):
            if n.id in skip:
                continue
            if n.type == "for_range_loop":
                self.range_for(n)
                skip.update(c.id for c in walk(n))
                continue
            if n.type == "declaration" and self.element_reference(n):
                skip.update(c.id for c in walk(n))
                continue
            call = _method_call(n)
            if call is not None and call[0] in self.buffers:
                self.method(*call)
                skip.update(c.id for c in walk(n.child_by_field_name("function") or n))
                continue
            if n.type == "identifier" and node_text(n) in self.buffers:
                self.bare_use(n)
        if self.spell:
            self.edits += spelling_edits(node, self.complex_math)

    def element_reference(self, declaration: Node) -> bool:
        """``Particle& p = particles[i];`` as ``(particles[i])`` wherever ``p`` is used: a
        reference alias would hide from the analysis that ``p.x += ...`` writes the buffer.
        ``False`` when ``declaration`` is something else."""
        element = _element_reference(declaration, set(self.buffers) | self.pointers)
        if element is None:
            return False
        alias, value = element
        block = declaration.parent
        assert block is not None
        index = value.child_by_field_name("indices")
        used = {node_text(x) for x in walk(index) if x.type == "identifier"} if index else set()
        later = [x for x in walk(block) if x.start_byte >= declaration.end_byte]
        for x in later:
            if x.type == "identifier" and node_text(x) in used and _written(x):
                raise Refusal(
                    f"`{alias}` refers to {_line(value)}, whose index changes later "
                    f"({_line(x.parent or x)}); index the buffer directly"
                )
        self.edits.append(Edit.replace(declaration, ""))
        self.edits += [
            Edit.replace(x, f"({node_text(value)})")
            for x in later
            if x.type == "identifier" and node_text(x) == alias
        ]
        return True

    def method(self, name: str, method: str, call: Node) -> None:
        buffer = self.buffers[name]
        arguments = call.child_by_field_name("arguments")
        args = [node_text(a) for a in arguments.named_children] if arguments else []
        if method == "size" and not args:
            text = buffer.size
        elif method == "data" and not args:
            text = name
        elif method == "empty" and not args:
            text = f"({buffer.size} == 0)"
        elif method == "front" and not args:
            text = f"{name}[0]"
        elif method == "back" and not args:
            text = f"{name}[{buffer.size} - 1]"
        elif method in ("at", "operator[]") and len(args) == 1:
            text = f"{name}[{args[0]}]"
        else:
            raise Refusal(
                f"{_line(call)} changes or walks the container "
                f"`{name}` inside the code to parallelize; only `size()`, `data()`, `[]`, "
                "`at()`, `front()`, `back()` and `empty()` can move to the GPU. Size it "
                "before the loop (`resize`) and write elements by index"
            )
        self.edits.append(Edit.replace(call, text))

    def bare_use(self, node: Node) -> None:
        parent = node.parent
        if (
            parent is not None
            and parent.type == "subscript_expression"
            and parent.child_by_field_name("argument") == node
        ):
            return
        if parent is not None and parent.type == "field_expression":
            return  # a method call, handled (or refused) by ``method``
        raise Refusal(
            f"{_line(parent or node)} uses the container "
            f"`{node_text(node)}` as a whole inside the code to parallelize; use its "
            "elements by index"
        )

    def range_for(self, loop: Node) -> None:
        """``for (auto& p : v) body`` as ``for (size_t k = 0; k < v_size; ++k)`` with ``p``
        spelled ``v[k]`` in the body (a reference alias would hide the writes)."""
        right = loop.child_by_field_name("right")
        declarator = loop.child_by_field_name("declarator")
        body = loop.child_by_field_name("body")
        if right is None or declarator is None or body is None:
            raise Refusal(f"cannot read the range-for loop {_line(loop)}")
        source = strip_parens(right)
        if source.type != "identifier" or node_text(source) not in self.buffers:
            raise Refusal(
                f"the range-for loop {_line(loop)} walks `{node_text(right)}`, not a "
                "container parameter; write it as a counted loop over an index"
            )
        by_reference = declarator.type == "reference_declarator"
        target = declarator
        while target.type != "identifier":
            inner = next((c for c in target.named_children if c.type == "identifier"), None)
            if inner is None:
                raise Refusal(f"cannot read the range-for variable {_line(loop)}")
            target = inner
        alias = node_text(target)
        buffer = self.buffers[node_text(source)]
        index = self.names.fresh("k")
        element = f"{buffer.name}[{index}]"
        # Only a name the body declares shadows the alias; one its initialisers read
        # (`int b = s / 10;`) is a use.
        if alias in declared_names(body):
            raise Refusal(f"the range-for loop {_line(loop)} redeclares `{alias}`")
        edits = []
        for n in uses(body, alias):
            if not by_reference and _written(n):
                raise Refusal(
                    f"the range-for loop {_line(loop)} changes its copy `{alias}`; "
                    "write through `auto&` or by index"
                )
            edits.append(Edit.replace(n, f"({element})"))
        inner_core = _Core(
            self.buffers,
            self.names,
            spell=self.spell,
            complex_math=self.complex_math,
            pointers=self.pointers,
        )
        inner_core.statement(body)
        source_bytes = loop.text or b""
        rendered_body = apply_edits(
            source_bytes[body.start_byte - loop.start_byte :],
            [*edits, *inner_core.edits],
            base=body.start_byte,
        )
        header = f"for (size_t {index} = 0; {index} < {buffer.size}; ++{index}) "
        self.edits.append(Edit.replace(loop, header + rendered_body))


def _element_reference(declaration: Node, buffers: set[str]) -> tuple[str, Node] | None:
    """``(p, particles[i])`` for ``T& p = particles[i];`` with ``particles`` in ``buffers``."""
    declarators = declaration.children_by_field_name("declarator")
    if len(declarators) != 1 or declarators[0].type != "init_declarator":
        return None
    target = declarators[0].child_by_field_name("declarator")
    value = declarators[0].child_by_field_name("value")
    if target is None or target.type != "reference_declarator" or value is None:
        return None
    value = strip_parens(value)
    base = value.child_by_field_name("argument") if value.type == "subscript_expression" else None
    name = next((c for c in target.named_children if c.type == "identifier"), None)
    if base is None or name is None or node_text(base) not in buffers:
        return None
    return node_text(name), value


def _written(node: Node) -> bool:
    """``node`` (a name, possibly under fields and parentheses) is assigned or stepped."""
    target = node
    while target.parent is not None and target.parent.type in (
        "field_expression",
        "parenthesized_expression",
        "subscript_expression",
    ):
        target = target.parent
    parent = target.parent
    if parent is None:
        return False
    if parent.type == "assignment_expression":
        return parent.child_by_field_name("left") == target
    return parent.type == "update_expression"


def _remove_nested(edits: list[Edit]) -> list[Edit]:
    """Edits inside a range-for's replacement were already applied to its text."""
    kept = []
    for edit in edits:
        if not any(o is not edit and o.start <= edit.start and edit.end <= o.end for o in edits):
            kept.append(edit)
    return kept


def pointer_form(code: str, task: Task) -> PointerForm | None:
    """The file with the entry split for the loop rewriters, or ``None`` when the entry
    already takes only scalars and pointers. A :class:`Refusal` says what cannot be split."""
    root = parse(code).root_node
    definition = _find(root, task.entry)
    params = parameters(definition)
    body = definition.child_by_field_name("body")
    if params is None or body is None:
        raise Refusal(f"cannot read the parameters of `{task.entry}`")
    if not _needs_split(params, definition, body):
        return None
    locals_ = [local for s in body.named_children if (local := _local_container(s)) is not None]
    containers = {p.name for p in params if p.container is not None} | {c[0] for c in locals_}
    growable = {p.name for p in params if p.vector and p.element != "bool" and not p.const}
    growable |= {name for name, element, vector in locals_ if vector and element != "bool"}
    appended = appends_as_writes(
        code, task, frozenset(growable), lambda statement: _is_setup(statement, containers)
    )
    if appended is not None:
        return pointer_form(appended, task)
    names = NameAllocator(root)
    buffers = {p.name: _parameter_buffer(p, names) for p in params if p.container is not None}
    setup, core, epilogue = _partition(body, buffers, names)
    out = _result_reference(params, definition, task.entry)
    spell = _device_spelled(params, definition)
    rewriter = _Core(
        buffers,
        names,
        spell=spell,
        complex_math=any("complex" in device_type(p.element) for p in params),
        pointers=frozenset(p.name for p in params if p.pointer),
    )
    for statement in core:
        if out is not None and any(n.type == "return_statement" for n in walk(statement)):
            raise Refusal(f"`{task.entry}` returns before its end: {_line(statement)}")
        rewriter.statement(statement)
    members = _members(definition)
    used = _used_members(core, members, params, rewriter) if members is not None else []
    impl = names.fresh(f"{task.entry}_impl")
    interface = _interface(params, buffers, task, names, out=out, members=used)
    core_text = _core_text(code, core, _remove_nested(rewriter.edits), setup)
    returns_value = _returns_value(definition)
    host_type = _impl_type(definition, out) if out or (returns_value and not epilogue) else "void"
    impl_type = device_type(host_type)
    call = host_value(host_type, f"{impl}({', '.join(interface.passed)})", names.fresh("value"))
    if out is not None:
        core_text = (
            f"  {impl_type} {out.name} = {interface.initial};\n{core_text}\n  return {out.name};"
        )
        call = f"{out.name} = {call}"
    elif returns_value and not epilogue:
        call = f"return {call}"
    packed = [b for b in buffers.values() if b.packed]
    wrapper_body = [
        *(node_text(s) for s in setup),
        *(
            f"std::vector<unsigned char> {b.packed}({b.name}.begin(), {b.name}.end());"
            for b in packed
        ),
        call + ";",
        *(
            f"for (size_t {b.packed}_k = 0; {b.packed}_k < {b.name}.size(); ++{b.packed}_k) "
            f"{b.name}[{b.packed}_k] = {b.packed}[{b.packed}_k] != 0;"
            for b in packed
            if not b.const
        ),
        *(node_text(s) for s in epilogue),
    ]
    header = code.encode("utf-8")[definition.start_byte : body.start_byte].decode().rstrip()
    declared = ", ".join(interface.declared)
    implementation = f"static {impl_type} {impl}({declared}) {{\n{core_text}\n}}"
    column = " " * definition.start_point[1]
    wrapper = (
        header + " {\n" + "\n".join(f"{column}  {line}" for line in wrapper_body) + f"\n{column}}}"
    )
    placed = (
        [Edit.insert(members.anchor.start_byte, implementation + "\n\n")]
        if members is not None
        else [Edit.insert(definition.start_byte, implementation + "\n\n")]
    )
    lowered = apply_edits(code.encode("utf-8"), [*placed, Edit.replace(definition, wrapper)])
    if spell:
        includes = device_includes([p.element for p in params] + [host_type])
        lowered = "\n".join(includes) + "\n" + lowered
    derived = replace(
        task,
        entry=impl,
        signature=f"{impl_type} {impl}({declared})",
        args=tuple(interface.specs),
        returns=impl_type,
    )
    return PointerForm(lowered, derived)


@dataclass(frozen=True, slots=True)
class _Members:
    """The data members of the class a member-function entry is defined in."""

    anchor: Node
    """The class's top-level declaration: the implementation goes before it."""
    fields: dict[str, str]
    """Name -> type, as written."""


def _members(definition: Node) -> _Members | None:
    fields_list = definition.parent
    if fields_list is None or fields_list.type != "field_declaration_list":
        return None
    anchor = fields_list
    while anchor.parent is not None and anchor.parent.type != "translation_unit":
        anchor = anchor.parent
    fields: dict[str, str] = {}
    for field in fields_list.named_children:
        if field.type != "field_declaration":
            continue
        kind = field.child_by_field_name("type")
        qualifiers = [node_text(c) for c in field.children if c.type == "type_qualifier"]
        for declarator in field.children_by_field_name("declarator"):
            if declarator.type == "field_identifier" and kind is not None:
                fields[node_text(declarator)] = " ".join([*qualifiers, node_text(kind)])
    return _Members(anchor, fields)


def _used_members(
    core: list[Node], members: _Members, params: tuple[Parameter, ...], rewriter: _Core
) -> list[tuple[str, str]]:
    """The data members the core reads, passed to the implementation by value; ``this->x``
    is spelled ``x``. A member the core writes is refused: the device gets a copy."""
    shadowed = {p.name for p in params}
    for statement in core:
        for n in walk(statement):
            if n.type in ("init_declarator", "declaration"):
                target = n.child_by_field_name("declarator")
                if target is not None and target.type == "identifier":
                    shadowed.add(node_text(target))
    used: dict[str, str] = {}
    for statement in core:
        for n in walk(statement):
            name = _member_name(n)
            if name is not None and name in members.fields and n.type == "field_expression":
                rewriter.edits.append(Edit.replace(n, name))
            if name is None or name not in members.fields or name in shadowed:
                continue
            if _written(n):
                raise Refusal(
                    f"the loop changes the data member `{name}` ({_line(n.parent or n)}); "
                    "device code works on a copy of the object's members"
                )
            used[name] = members.fields[name]
    return sorted(used.items())


def _member_name(node: Node) -> str | None:
    """``x`` for a plain name ``x`` or for ``this->x``."""
    parent = node.parent
    if node.type == "identifier" and parent is not None and parent.type != "field_expression":
        return node_text(node)
    argument = node.child_by_field_name("argument") if node.type == "field_expression" else None
    field = node.child_by_field_name("field")
    if argument is not None and node_text(argument) == "this" and field is not None:
        return node_text(field)
    return None


def _parameter_buffer(p: Parameter, names: NameAllocator) -> _Buffer:
    if p.pointers:
        raise Refusal(f"`{p.declaration}`: pointers to containers are not supported")
    const = p.const and (p.reference or p.container in ("array", "span"))
    return _buffer(p.name, p.element, const, names, local=False, vector=p.container == "vector")


def _buffer(
    name: str, element: str, const: bool, names: NameAllocator, *, local: bool, vector: bool
) -> _Buffer:
    """``std::vector<bool>`` stores bits and has no ``data()``: it travels as a byte copy."""
    packed = vector and element.replace("std::", "").strip() == "bool"
    return _Buffer(
        name,
        device_type(element),
        const,
        names.fresh(f"{name}_size"),
        local,
        names.fresh(f"{name}_bytes") if packed else "",
    )


def _partition(
    body: Node, buffers: dict[str, _Buffer], names: NameAllocator
) -> tuple[list[Node], list[Node], list[Node]]:
    """Set-up statements (stay on the host, first), the core, and a ``return y;``.

    Set-up is what the body starts with, and a container declared later (with the calls
    that size it right after) when what sizes it is nothing the work before computes: it
    is made first, on the host (``float mx = ...; std::vector<float> out(x.size()); ...``).
    """
    statements = [s for s in body.named_children if s.type != "comment"]
    containers = set(buffers)
    setup: list[Node] = []
    for statement in statements:
        local = _local_container(statement)
        if local is not None:
            containers.add(local[0])
        if not _is_setup(statement, containers):
            break
        setup.append(statement)
        if local is not None:
            buffers[local[0]] = _buffer(
                local[0], local[1], False, names, local=True, vector=local[2]
            )
    rest = statements[len(setup) :]
    hoisted: set[str] = set()
    for position, statement in enumerate(rest):
        local = _local_container(statement)
        made = local[0] if local is not None else _sized(statement, hoisted)
        if made is None:
            continue
        if not _hoistable(statement, made, rest[:position]):
            raise Refusal(
                f"the container {_line(statement)} is declared or sized after the work "
                "starts, by what that work computes; declare and size it first"
            )
        setup.append(statement)
        hoisted.add(made)
        containers.add(made)
        if local is not None:
            buffers[made] = _buffer(made, local[1], False, names, local=True, vector=local[2])
    rest = [s for s in rest if s not in setup]
    epilogue = [s for s in rest[-1:] if _is_epilogue(s, containers)]
    return setup, rest[: len(rest) - len(epilogue)], epilogue


def _sized(statement: Node, hoisted: set[str]) -> str | None:
    """The container a set-up call (``out.resize(n);``) sizes, if one made first."""
    if not _is_setup(statement, hoisted):
        return None
    call = _method_call(statement.named_children[0])
    return call[0] if call is not None else None


_READS = frozenset({"size", "data", "empty", "at", "front", "back", "operator[]"})
"""Methods that leave a container as it was: a size read after them is the same."""


def _hoistable(statement: Node, container: str, earlier: list[Node]) -> bool:
    """``std::vector<float> out(x.size());`` (or ``out.resize(x.size());``) after other work
    may be made first, on the host: what sizes it is nothing the earlier statements
    declare, assign or resize, and they do not use the container."""
    used = _names(statement) - {container}
    for before in earlier:
        if container in _names(before) or used & declared_names(before):
            return False
        if any(used & _names(target) for target in assignment_targets(before)):
            return False
        for n in walk(before):
            call = _method_call(n)
            if call is not None and call[0] in used and call[1] not in _READS:
                return False
    return True


def _names(node: Node) -> set[str]:
    """The names ``node`` uses, with those the grammar reads as types in ``T x(n);`` and
    ``T x(w * h);`` (see ``cxx.syntax.constructed``)."""
    return {node_text(n) for n in walk(node) if n.type in ("identifier", "type_identifier")}


def _result_reference(
    params: tuple[Parameter, ...], definition: Node, entry: str
) -> Parameter | None:
    """The one ``T&`` scalar the entry writes, which the implementation returns."""
    returns_value = _returns_value(definition)
    outs = [p for p in params if p.writable_reference]
    if len(outs) > 1 or (outs and returns_value):
        what = ", ".join(f"`{p.name}`" for p in outs)
        raise Refusal(
            f"`{entry}` hands back several results ({what}"
            f"{' and its return value' if returns_value else ''}); one result is supported"
        )
    return outs[0] if outs else None


def _returns_value(definition: Node) -> bool:
    kind = definition.child_by_field_name("type")
    return kind is not None and node_text(kind) != "void"


def _impl_type(definition: Node, out: Parameter | None) -> str:
    if out is not None:
        return out.element
    kind = definition.child_by_field_name("type")
    return node_text(kind) if kind is not None else "void"


@dataclass(frozen=True, slots=True)
class _Interface:
    """The implementation's parameters, the wrapper's arguments, the derived task's args."""

    declared: list[str]
    passed: list[str]
    specs: list[ArgSpec]
    initial: str
    """The parameter carrying a ``T&`` result's starting value (last), or empty."""


def _interface(
    params: tuple[Parameter, ...],
    buffers: dict[str, _Buffer],
    task: Task,
    names: NameAllocator,
    *,
    out: Parameter | None,
    members: list[tuple[str, str]],
) -> _Interface:
    """Parameters in order, then set-up containers, then data members, then the result's
    starting value."""
    declared: list[str] = []
    passed: list[str] = []
    specs: list[ArgSpec] = []
    for p in params:
        spec = _spec(task, p.name)
        buffer = buffers.get(p.name)
        if buffer is not None:
            declared += [f"{_const(buffer)}{buffer.element}* {p.name}", f"size_t {buffer.size}"]
            passed += _passed(buffer)
            specs += _buffer_specs(buffer, spec)
        elif p is out:
            continue
        elif p.kind is ParamKind.SCALAR and (p.reference or needs_device_type(p.element)):
            declared.append(f"{device_type(p.element)} {p.name}")
            passed.append(passed_value(p.element, p.name))
            specs.append(replace(spec, kind=ParamKind.SCALAR, role=Role.IN))
        elif p.pointer and needs_device_type(p.element):
            declared.append(f"{'const ' if p.const else ''}{device_type(p.element)}* {p.name}")
            passed.append(passed_pointer(p.element, p.const, p.name))
            specs.append(spec)
        else:
            declared.append(p.declaration)
            passed.append(p.name)
            specs.append(spec)
    for buffer in buffers.values():
        if buffer.local:
            declared += [f"{buffer.element}* {buffer.name}", f"size_t {buffer.size}"]
            passed += _passed(buffer)
            specs += _buffer_specs(buffer, None)
    for name, kind in members:
        declared.append(f"{kind} {name}")
        passed.append(name)
        specs.append(ArgSpec(name, ParamKind.SCALAR, kind, Role.IN, value=name))
    initial = ""
    if out is not None:
        spec = _spec(task, out.name)
        initial = names.fresh(f"{out.name}_in")
        declared.append(f"{device_type(out.element)} {initial}")
        passed.append(passed_value(out.element, out.name))
        specs.append(replace(spec, name=initial, kind=ParamKind.SCALAR, role=Role.IN))
    return _Interface(declared, passed, specs, initial)


def _passed(buffer: _Buffer) -> list[str]:
    if buffer.packed:
        kind = f"{_const(buffer)}bool*"
        return [f"reinterpret_cast<{kind}>({buffer.packed}.data())", f"{buffer.packed}.size()"]
    data = f"{buffer.name}.data()"
    if buffer.element.startswith("cuda::std::"):
        data = f"reinterpret_cast<{_const(buffer)}{buffer.element}*>({data})"
    return [data, f"{buffer.name}.size()"]


def _device_spelled(params: tuple[Parameter, ...], definition: Node) -> bool:
    kind = definition.child_by_field_name("type")
    returned = node_text(kind) if kind is not None else ""
    return any(needs_device_type(t) for t in [returned, *(p.element for p in params)])


def _const(buffer: _Buffer) -> str:
    return "const " if buffer.const else ""


def _spec(task: Task, name: str) -> ArgSpec:
    try:
        return task.arg(name)
    except KeyError:
        raise Refusal(f"the task does not describe the parameter `{name}`") from None


def _buffer_specs(buffer: _Buffer, spec: ArgSpec | None) -> list[ArgSpec]:
    role = spec.role if spec is not None else Role.OUT
    length = spec.length if spec is not None and spec.length else buffer.size
    pointer = ArgSpec(buffer.name, ParamKind.POINTER, buffer.element, role, length=buffer.size)
    size = ArgSpec(buffer.size, ParamKind.SCALAR, "size_t", Role.IN, value=length)
    return [pointer, size]


def _core_text(code: str, core: list[Node], edits: list[Edit], setup: list[Node]) -> str:
    """The core's statements as the implementation's body; set-up statements among them
    (made first, on the host: see :func:`_partition`) left out."""
    if not core:
        return ""
    source = code.encode("utf-8")
    start, end = core[0].start_byte, core[-1].end_byte
    made_first = [Edit.replace(s, "") for s in setup if start < s.start_byte < end]
    local = [e for e in edits if start <= e.start and e.end <= end] + made_first
    text = apply_edits(source[start:end], local, base=start)
    column = core[0].start_point[1]
    return "\n".join(
        ("  " + line[column:] if line[:column].strip() == "" else "  " + line.lstrip())
        if number
        else "  " + line
        for number, line in enumerate(text.splitlines())
    )
