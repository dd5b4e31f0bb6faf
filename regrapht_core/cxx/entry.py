"""The sequential entry function as a rewriter sees it: parameters, and the one loop.

The entry's body is split into a *prelude* (host code before the loop), the *loop* and a
*postlude* (host code after it). Only the loop moves to the GPU; prelude and postlude stay on
the host verbatim, which is what lets ``float s = 0; for (...) s += x[i]; return s;`` and
``for (...) y[i] = ...;`` share one wrapper shape. The loop is the entry's only top-level
``for`` loop, the one the task selects (:class:`~regrapht_core.contracts.task.LoopSelection`),
or the one a caller numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

from regrapht_core.contracts.task import LoopSelection, ParamKind, Task, TaskMode
from regrapht_core.cxx.functions import function_definitions, function_name
from regrapht_core.cxx.loops import CountedLoop, counted_loop
from regrapht_core.cxx.params import Parameter, parameters
from regrapht_core.cxx.parse import Node, node_text
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.syntax import declared_name

__all__ = [
    "EntryFunction",
    "Local",
    "declared_locals",
    "entry_function",
    "entry_loops",
    "top_level_for_loops",
    "top_level_loops",
]

_FOR_LOOPS = frozenset({"for_statement", "for_range_loop"})


@dataclass(frozen=True, slots=True)
class Local:
    """A variable the prelude declares: passed to the kernel by value when the loop uses it."""

    name: str
    type: str
    scalar: bool
    initialised: bool


@dataclass(frozen=True, slots=True)
class EntryFunction:
    definition: Node
    params: tuple[Parameter, ...]
    prelude: tuple[Node, ...]
    loop: CountedLoop
    postlude: tuple[Node, ...]
    locals: dict[str, Local]
    returns_value: bool

    def param(self, name: str) -> Parameter | None:
        return next((p for p in self.params if p.name == name), None)

    @property
    def header(self) -> str:
        """Everything before the body: the signature exactly as the caller links against."""
        body = self.definition.child_by_field_name("body")
        assert body is not None
        source = self.definition.text or b""
        return source[: body.start_byte - self.definition.start_byte].decode().rstrip()


def _type_text(declaration: Node) -> str:
    parts = [node_text(c) for c in declaration.children if c.type == "type_qualifier"]
    kind = declaration.child_by_field_name("type")
    if kind is not None:
        parts.append(node_text(kind))
    return " ".join(parts)


def _checked(param: Parameter, task: Task) -> Parameter:
    """A scalar or a plain pointer that the task describes the same way."""
    if not param.name:
        raise Refusal(f"the parameter `{param.declaration}` has no name")
    try:
        spec = task.arg(param.name)
    except KeyError:
        raise Refusal(f"the task does not describe the parameter `{param.name}`") from None
    if param.kind is ParamKind.SCALAR or param.pointer:
        code = "a pointer" if param.pointer else "a scalar"
        if spec.kind is not param.kind:
            raise Refusal(f"`{param.name}` is a {spec.kind} in the task but {code} in the code")
        return param
    raise Refusal(
        f"the parameter `{param.declaration}` is neither a scalar nor a plain pointer "
        "(references, vectors and pointers to pointers are not supported)"
    )


def declared_locals(prelude: tuple[Node, ...]) -> dict[str, Local]:
    """The variables the top-level declarations among ``prelude``'s statements declare."""
    found: dict[str, Local] = {}
    for statement in prelude:
        if statement.type != "declaration":
            continue
        kind = _type_text(statement)
        for declarator in statement.children_by_field_name("declarator"):
            name = declared_name(declarator)
            if name is None:
                continue
            target = declarator
            if declarator.type == "init_declarator":
                target = declarator.child_by_field_name("declarator") or declarator
            scalar = target.type == "identifier" and "auto" not in kind.split()
            initialised = declarator.type == "init_declarator"
            found[node_text(name)] = Local(node_text(name), kind, scalar, initialised)
    return found


def _find_entry(root: Node, entry: str) -> Node:
    matches = [d for d in function_definitions(root) if function_name(d) == entry]
    if not matches:
        raise Refusal(f"the code defines no function `{entry}`")
    if len(matches) > 1:
        raise Refusal(f"the code defines `{entry}` more than once")
    return matches[0]


def top_level_for_loops(definition: Node) -> list[Node]:
    """The ``for`` loops (range-for loops included) at the top level of a function's body,
    in order: what a :class:`~regrapht_core.contracts.task.LoopSelection` counts."""
    body = definition.child_by_field_name("body")
    return [c for c in (body.named_children if body else []) if c.type in _FOR_LOOPS]


def entry_loops(root: Node, task: Task) -> list[Node]:
    """The ``for`` loops at the top level of the entry's body, in order."""
    return top_level_for_loops(_find_entry(root, task.entry))


def top_level_loops(root: Node, task: Task) -> int:
    """How many ``for`` loops the entry's body holds at its top level."""
    return len(entry_loops(root, task))


def _selected(selection: LoopSelection, entry: str, found: int) -> int:
    """The selected loop's number, when the code still has the loops it was counted among."""
    if found != selection.count:
        raise Refusal(
            f"the loop to optimize, {selection.describe()}, cannot be told apart any more: "
            f"`{entry}` has {found} top-level for loops here, not {selection.count} (it was "
            "mapped already, or the code was restructured)"
        )
    return selection.index


def entry_function(root: Node, task: Task, number: int | None = None) -> EntryFunction:
    """The entry split around its top-level loop number ``number`` (0-based), or why it
    cannot be. ``None`` asks for the loop the task selects, else the only loop: several are
    then a refusal."""
    if task.mode is TaskMode.KERNEL_TO_KERNEL:
        raise Refusal("the task replaces a kernel; there is no sequential loop to map")
    definition = _find_entry(root, task.entry)
    if any(c.type in ("__global__", "__device__") for c in definition.children):
        raise Refusal(f"`{task.entry}` already is device code")
    declared = parameters(definition)
    if declared is None:
        raise Refusal(f"cannot read the parameters of `{task.entry}`")
    params = tuple(_checked(p, task) for p in declared)
    body = definition.child_by_field_name("body")
    statements = tuple(c for c in (body.named_children if body else []) if c.type != "comment")
    loops = [i for i, s in enumerate(statements) if s.type in _FOR_LOOPS]
    if not loops:
        raise Refusal(f"`{task.entry}` has no top-level for loop to parallelize")
    if number is None and task.loop is not None:
        number = _selected(task.loop, task.entry, len(loops))
    if number is None and len(loops) > 1:
        raise Refusal(
            f"`{task.entry}` has {len(loops)} top-level loops; "
            "parallelization maps them loop by loop"
        )
    if number is not None and number >= len(loops):
        raise Refusal(f"`{task.entry}` has no top-level loop number {number + 1}")
    index = loops[number or 0]
    prelude, postlude = statements[:index], statements[index + 1 :]
    loop = counted_loop(statements[index])
    kind = definition.child_by_field_name("type")
    returns_value = kind is not None and node_text(kind) != "void"
    return EntryFunction(
        definition, params, prelude, loop, postlude, declared_locals(prelude), returns_value
    )
