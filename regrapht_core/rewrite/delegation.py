"""An entry that only calls a function of its file: the rewriters work on that callee.

``void saxpy(float a, const float* x, float* y, int n) { axpy<float>(a, x, y, n); }`` keeps
its loop in the template ``axpy``. The loop rewriters analyse one concrete function, so the
callee is copied as a ``static`` function of its own, with its type parameters spelled as
the call instantiates them (:mod:`regrapht_core.cxx.templates`), placed just before the
entry, and the entry's call is pointed at the copy. The entry keeps its signature and its
body, and the call still converts its arguments as C++ does, so the copy computes what the
call did. The rewriters then take the copy as the entry, with a task whose arguments are
the entry's, renamed to the copy's parameters; a copy that itself only calls another
function is followed the same way.

Each argument must be a parameter of the entry, as it is: the task describes only those.
A buffer passed twice is refused, because the rewriters give distinct pointers distinct
device copies. So are overloaded or specialised callees, recursion, parameter defaults and
callees defined after the entry, each with the construct quoted.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from regrapht_core.contracts.task import ArgSpec, ParamKind, Role, Task
from regrapht_core.cxx.functions import (
    function_declarator,
    function_definitions,
    function_name,
    signature_text,
)
from regrapht_core.cxx.loop_scope import quote
from regrapht_core.cxx.params import parameters
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.syntax import NameAllocator, parse, strip_parens
from regrapht_core.cxx.templates import Argument, bind, substitute, type_parameters

__all__ = ["delegated"]

_BODY_CALLS = frozenset({"expression_statement", "return_statement"})


@dataclass(frozen=True, slots=True)
class _Delegation:
    """The entry's only statement: a call to a function that the file defines."""

    root: Node
    entry: Node
    call: Node
    target: Node
    """The call's function: ``axpy`` or ``axpy<float>``."""
    name: str
    callee: Node


def delegated(code: str, task: Task) -> tuple[str, Task]:
    """``code`` and ``task`` with the work moved into the callee's concrete copy while the
    entry's whole body is one call to a function of the file; unchanged otherwise."""
    followed = {task.entry}
    while (found := _delegation(parse(code).root_node, task)) is not None:
        if found.name in followed:
            raise Refusal(
                f"{quote(found.call)} calls back into `{found.name}`; recursion cannot be mapped"
            )
        followed.add(found.name)
        code, task = _concrete(code, task, found)
    return code, task


def _delegation(root: Node, task: Task) -> _Delegation | None:
    """The call when the entry (a free function) only calls a function of the file."""
    if task.owner:
        return None
    entries = [d for d in function_definitions(root) if function_name(d) == task.entry]
    body = entries[0].child_by_field_name("body") if len(entries) == 1 else None
    statements = [c for c in body.named_children if c.type != "comment"] if body else []
    if len(statements) != 1 or statements[0].type not in _BODY_CALLS:
        return None
    values = statements[0].named_children
    call = strip_parens(values[0]) if values else None
    target = call.child_by_field_name("function") if call is not None else None
    if call is None or call.type != "call_expression" or target is None:
        return None
    named = target.child_by_field_name("name") if target.type == "template_function" else target
    if named is None or named.type != "identifier":
        return None
    name = node_text(named)
    callees = [d for d in function_definitions(root) if function_name(d) == name]
    if not callees or any(c.type in ("__global__", "__device__") for c in callees[0].children):
        return None
    if len(callees) > 1:
        raise Refusal(
            f"{quote(call)} calls `{name}`, which the file defines {len(callees)} times "
            "(overloads or specialisations); keep one definition"
        )
    return _Delegation(root, entries[0], call, target, name, callees[0])


def _concrete(code: str, task: Task, found: _Delegation) -> tuple[str, Task]:
    """The file with the callee's concrete copy before the entry and the entry calling it,
    and the copy's task."""
    callee, name = found.callee, found.name
    named = _check_callee(found)
    passed = _arguments(found)
    template = _template(callee)
    types = {}
    if template is not None:
        explicit = found.target.child_by_field_name("arguments")
        types = bind(type_parameters(template), explicit, passed, found.call)
    copy = NameAllocator(found.root).fresh(f"{name}_for_{task.entry}")
    edits = [*substitute(callee, types), Edit.replace(named, copy)]
    text = apply_edits(callee.text or b"", edits, base=callee.start_byte)
    static = any(node_text(c) == "static" for c in callee.children)
    placed = [
        Edit.insert(found.entry.start_byte, f"{'' if static else 'static '}{text}\n\n"),
        Edit.replace(found.target, copy),
    ]
    lowered = apply_edits(code.encode("utf-8"), placed)
    return lowered, _copy_task(lowered, task, copy, [a.param.name for _, a in passed])


def _template(callee: Node) -> Node | None:
    """The ``template_declaration`` around ``callee``, if it is a template."""
    parent = callee.parent
    return parent if parent is not None and parent.type == "template_declaration" else None


def _check_callee(found: _Delegation) -> Node:
    """The callee's name in its declarator, or why the callee cannot be copied as it is:
    a specialisation, defaults, varargs, recursion, or a definition after the entry (the
    copy goes before the entry, which must see what the callee sees)."""
    callee, name = found.callee, found.name
    listed = function_declarator(callee)
    named = listed.child_by_field_name("declarator") if listed else None
    if listed is None or named is None or named.type != "identifier":
        raise Refusal(
            f"`{name}` is defined only as the specialisation {quote(listed or callee)}; "
            "write it as one function"
        )
    plist = listed.child_by_field_name("parameters")
    for param in plist.children if plist else []:
        if param.type not in ("parameter_declaration", "(", ")", ",", "comment"):
            raise Refusal(
                f"`{name}` declares {quote(param)}; pass every argument of the call explicitly "
                "(no defaults, no variadic parameters)"
            )
    for node in walk(callee):
        if node.type == "call_expression" and _called(node) == name:
            raise Refusal(f"`{name}` calls itself ({quote(node)}); recursion cannot be mapped")
    if (_template(callee) or callee).end_byte > found.entry.start_byte:
        raise Refusal(f"`{name}` is defined after the entry that calls it; define it first")
    return named


def _called(call: Node) -> str:
    target = call.child_by_field_name("function")
    if target is not None and target.type == "template_function":
        target = target.child_by_field_name("name")
    return node_text(target) if target is not None else ""


def _declared(definition: Node) -> list[Argument]:
    """Each parameter with the ``type`` node of its declaration."""
    listed = function_declarator(definition)
    plist = listed.child_by_field_name("parameters") if listed else None
    nodes = [p for p in plist.named_children if p.type == "parameter_declaration"] if plist else []
    read = parameters(definition) or ()
    found = []
    for param, node in zip(read, nodes, strict=True):
        kind = node.child_by_field_name("type")
        assert kind is not None
        found.append(Argument(param, kind))
    return found


def _arguments(found: _Delegation) -> list[tuple[Argument, Argument]]:
    """Pairs of (callee parameter, entry parameter passed for it), in the callee's order."""
    mine = {a.param.name: a for a in _declared(found.entry)}
    theirs = _declared(found.callee)
    listed = found.call.child_by_field_name("arguments")
    values = [strip_parens(v) for v in listed.named_children] if listed else []
    if len(values) != len(theirs):
        raise Refusal(f"{quote(found.call)} passes {len(values)} of {len(theirs)} arguments")
    pairs: list[tuple[Argument, Argument]] = []
    for param, value in zip(theirs, values, strict=True):
        passed = mine.get(node_text(value)) if value.type == "identifier" else None
        if not param.param.name:
            raise Refusal(f"`{found.name}` leaves `{param.param.declaration}` unnamed; name it")
        if passed is None:
            raise Refusal(
                f"{quote(found.call)} passes {quote(value)}, not a parameter of the entry; "
                "pass the entry's parameters as they are"
            )
        if any(a is passed for _, a in pairs) and not _by_value_scalar(passed):
            raise Refusal(
                f"{quote(found.call)} passes `{passed.param.name}` twice; the rewriters give "
                "each buffer its own device copy, so pass distinct buffers"
            )
        pairs.append((param, passed))
    return pairs


def _check_sizes(specs: list[ArgSpec], copy: str) -> None:
    """Buffer lengths name sizes, and a size resolves to the parameter of that name before
    the parameter that carries it (:func:`~regrapht_core.rewrite.hostcode.length_in_params`):
    a call that hands size ``n`` to another parameter than the copy's ``n`` would resize
    the buffers, so it is refused."""
    names = {s.name for s in specs}
    for spec in specs:
        size = (spec.value or "").strip()
        if spec.kind is ParamKind.SCALAR and size != spec.name and size in names:
            raise Refusal(
                f"`{copy}` receives the size `{size}` as `{spec.name}`, while its parameter "
                f"`{size}` holds another value; keep the parameter names of the call"
            )


def _by_value(argument: Argument) -> bool:
    """A copy: what the callee does to it stays in the callee."""
    return not argument.param.reference and argument.param.pointers == 0


def _by_value_scalar(argument: Argument) -> bool:
    return _by_value(argument) and argument.param.container is None


def _copy_task(code: str, task: Task, copy: str, passed: list[str]) -> Task:
    """The task of the copy: the entry's argument specs under the copy's parameter names;
    a parameter the copy takes by value hands nothing back, so it is an input."""
    definition = next(
        d for d in function_definitions(parse(code).root_node) if function_name(d) == copy
    )
    specs: list[ArgSpec] = []
    for argument, name in zip(_declared(definition), passed, strict=True):
        try:
            spec = task.arg(name)
        except KeyError:
            raise Refusal(f"the task does not describe the parameter `{name}`") from None
        role = Role.IN if _by_value(argument) else spec.role
        specs.append(replace(spec, name=argument.param.name, role=role))
    _check_sizes(specs, copy)
    kind = definition.child_by_field_name("type")
    return replace(
        task,
        entry=copy,
        signature=signature_text(definition),
        args=tuple(specs),
        returns=node_text(kind) if kind is not None else "void",
    )
