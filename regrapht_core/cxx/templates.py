"""Function templates made concrete for one call: the type arguments, and the substitution.

The analyses read concrete C++: a loop over ``T* y`` says nothing about which element
type the device code moves. A template the entry calls is therefore instantiated the way
the compiler does it for that call: the explicit arguments (``axpy<float>(...)``) first,
then each remaining type parameter deduced from the declared type of the argument passed
for it, then the defaults. Deduction compares the syntax of the parameter's type with the
argument's type (``const std::vector<T>&`` against ``const std::vector<double>&`` gives
``T = double``); whatever it cannot match is a refusal naming the parameter, never a guess.
Only type parameters are handled: a value, a template template parameter or a pack is
refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from regrapht_core.cxx.loop_scope import quote
from regrapht_core.cxx.params import Parameter
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit

__all__ = ["Argument", "TypeParameter", "bind", "substitute", "type_parameters"]

_NAMES = frozenset({"type_identifier", "identifier", "namespace_identifier"})
"""Where a type parameter's name occurs in a definition: as a type, as the scope of a
qualified name (``T::value_type``) and as a functional cast or a ``sizeof`` operand."""


@dataclass(frozen=True, slots=True)
class TypeParameter:
    name: str
    default: str | None
    """The default type as written (``typename T = float``), or ``None``."""


@dataclass(frozen=True, slots=True)
class Argument:
    """What a call passes for one function parameter: the declared variable's type."""

    param: Parameter
    type: Node
    """The ``type`` of the argument variable's declaration (qualifiers are its siblings)."""


def type_parameters(template: Node) -> tuple[TypeParameter, ...]:
    """The parameters of a ``template_declaration``; anything but a type is refused."""
    listed = template.child_by_field_name("parameters")
    found = []
    for declaration in listed.named_children if listed is not None else []:
        if declaration.type == "type_parameter_declaration":
            name = next(c for c in declaration.named_children if c.type == "type_identifier")
            found.append(TypeParameter(node_text(name), None))
        elif declaration.type == "optional_type_parameter_declaration":
            name_node = declaration.child_by_field_name("name")
            default = declaration.child_by_field_name("default_type")
            assert name_node is not None and default is not None
            found.append(TypeParameter(node_text(name_node), _spelled(default)))
        else:
            raise Refusal(
                f"the template parameter {quote(declaration)} is not a plain type; only "
                "`typename T` parameters are instantiated: make it a function parameter"
            )
    return tuple(found)


def bind(
    params: Sequence[TypeParameter],
    explicit: Node | None,
    passed: Sequence[tuple[Argument, Argument]],
    call: Node,
) -> dict[str, str]:
    """Each type parameter's type for ``call``: from ``explicit`` (the call's
    ``template_argument_list``), else deduced from ``passed`` (pairs of the template's
    parameter and the argument given for it), else its default."""
    bound = _explicit(params, explicit, call)
    free = frozenset(p.name for p in params) - set(bound)
    deduced: dict[str, str] = {}
    for pattern, actual in passed:
        if not any(_names(pattern.type, free)):
            continue  # a concrete parameter type: the call converts, nothing to deduce
        for name, spelled in _deduce(pattern, actual, free).items():
            if deduced.setdefault(name, spelled) != spelled:
                raise Refusal(
                    f"{quote(call)} deduces `{name}` as both `{deduced[name]}` and `{spelled}`"
                )
    for param in params:
        chosen = bound.get(param.name) or deduced.get(param.name) or param.default
        if chosen is None:
            raise Refusal(
                f"cannot deduce the template parameter `{param.name}` from {quote(call)}; "
                "name it in the call (`f<float>(...)`)"
            )
        bound[param.name] = chosen
    return bound


def substitute(definition: Node, types: dict[str, str]) -> list[Edit]:
    """Edits spelling every use of a type parameter in ``definition`` as its type. A name
    after ``::`` (``S::T``) is another entity, not the parameter."""
    edits = []
    for node in walk(definition):
        name = node_text(node)
        if node.type not in _NAMES or name not in types:
            continue
        parent = node.parent
        if _member_name(node):
            continue
        spelled = types[name]
        if node.type == "identifier" and len(spelled.split()) > 1:
            raise Refusal(
                f"{quote(parent or node)} uses `{name}` as a value, which cannot be spelled "
                f"`{spelled}` there; name the type through a `using` alias"
            )
        edits.append(Edit.replace(node, spelled))
    return edits


def _member_name(node: Node) -> bool:
    """``T`` in ``S::T``: a member of ``S`` that happens to share the parameter's name."""
    parent = node.parent
    return (
        parent is not None
        and parent.type == "qualified_identifier"
        and parent.child_by_field_name("name") == node
    )


def _names(node: Node, free: frozenset[str]) -> list[str]:
    """The free type parameters ``node`` mentions."""
    return [
        node_text(n) for n in walk(node) if n.type == "type_identifier" and node_text(n) in free
    ]


def _spelled(node: Node) -> str:
    return " ".join(node_text(node).split())


def _explicit(params: Sequence[TypeParameter], listed: Node | None, call: Node) -> dict[str, str]:
    arguments = listed.named_children if listed is not None else []
    if len(arguments) > len(params):
        raise Refusal(f"{quote(call)} gives more template arguments than the template has")
    bound = {}
    for param, argument in zip(params, arguments, strict=False):
        if argument.type != "type_descriptor":
            raise Refusal(f"the template argument {quote(argument)} of {quote(call)} is no type")
        bound[param.name] = _spelled(argument)
    return bound


def _deduce(pattern: Argument, actual: Argument, free: frozenset[str]) -> dict[str, str]:
    """The types ``pattern``'s parameter type needs to accept ``actual``'s variable.

    As in the language: top-level ``const`` of a by-value argument is dropped, and a bare
    ``T&``/``T*`` given a ``const`` argument deduces ``T`` as ``const X``.
    """
    p, a = pattern.param, actual.param
    if p.pointers != a.pointers:
        raise Refusal(
            f"`{a.declaration}` is passed for `{p.declaration}`; the pointer levels differ"
        )
    found: dict[str, str] = {}
    if not _match(pattern.type, actual.type, free, found):
        raise Refusal(f"cannot deduce the type of `{p.declaration}` from `{a.declaration}`")
    adds_const = a.const and not p.const and (p.reference or p.pointers > 0)
    if adds_const:
        bare = node_text(pattern.type)
        if bare not in found:
            raise Refusal(f"`{a.declaration}` is const, but `{p.declaration}` may write it")
        found[bare] = f"const {found[bare]}"
    return found


def _match(pattern: Node, actual: Node, free: frozenset[str], found: dict[str, str]) -> bool:
    """Whether ``actual`` has ``pattern``'s shape, binding the free names it holds."""
    if pattern.type == "type_identifier" and node_text(pattern) in free:
        spelled = _spelled(actual)
        return found.setdefault(node_text(pattern), spelled) == spelled
    if pattern.named_child_count == 0 or actual.named_child_count == 0:
        return pattern.type == actual.type and _spelled(pattern) == _spelled(actual)
    if pattern.type != actual.type or pattern.named_child_count != actual.named_child_count:
        return False
    return all(
        _match(p, a, free, found)
        for p, a in zip(pattern.named_children, actual.named_children, strict=True)
    )
