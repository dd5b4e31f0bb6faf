"""Constant memory: small read-only arrays every thread of a warp reads at the same index.

A kernel argument such as a filter's taps (``w[33]``) is read by all threads at once, at an
index that does not depend on the thread (``w[k]`` in the tap loop). From ``__constant__``
memory the constant cache broadcasts such a read to the whole warp in one transaction, and
the array stops competing with the streamed data for the L1 and read-only caches. The cache
serialises a read whose addresses differ across the warp, one transaction per distinct
address, so an array read at a thread-dependent index (``x[i + k]``) is refused.

The array's length must be known at compile time, because a ``__constant__`` array has a
fixed size: the task's argument spec gives it (``w[33] in``). The rewrite moves the whole
path of that buffer:

- ``__constant__ T c_w[N];`` at file scope, before the kernel;
- the kernel reads ``c_w[...]`` and loses the parameter, and every launch its argument;
- the upload ``cudaMemcpy(d_w, w, bytes, cudaMemcpyHostToDevice)`` becomes
  ``cudaMemcpyToSymbol(c_w, w, bytes)`` (same place, same byte count, same status flow);
- the device buffer's allocation, free and declaration are removed when they are plain
  statements (``if (err == cudaSuccess) err = cudaMalloc(&d_w, ...);``); otherwise they stay,
  allocated and unused.

The buffer must be used for nothing else: one upload from a read-only argument of the task,
launches of this kernel at this position, its allocation and free.
"""

from __future__ import annotations

from dataclasses import dataclass

from regrapht_core.contracts.task import Role, Task, TaskMode
from regrapht_core.cxx.functions import function_declarator
from regrapht_core.cxx.loop_scope import quote
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.symbols import FileSymbols, file_symbols
from regrapht_core.cxx.syntax import (
    NameAllocator,
    assignment_targets,
    declared_name,
    identifiers,
    parse,
    strip_parens,
    words,
)
from regrapht_core.rewrite.kernels import (
    ALLOCATORS,
    FREES,
    Kernel,
    enclosing_function,
    kernels,
    launches,
)
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)
from regrapht_core.tasks.dtypes import c_type_name, is_arithmetic, numpy_dtype
from regrapht_core.tasks.expr import integer_constant

__all__ = ["ConstantMemory"]

_CONSTANT_BYTES = 64 * 1024
"""What the device has for ``__constant__`` data in all."""
_MAX_BYTES = 16 * 1024
"""Default per-array cap (``params["max_bytes"]``): leave room for the other arrays."""
_UNIFORM_BUILTINS = frozenset({"blockDim", "gridDim"})
_INDEX_NODES = words(
    "number_literal identifier binary_expression unary_expression parenthesized_expression",
    "field_expression field_identifier cast_expression type_descriptor primitive_type",
    "sized_type_specifier",
)
"""What an index proven uniform may be built of: arithmetic over names, no memory reads."""


@dataclass(frozen=True, slots=True)
class _Upload:
    """Where the host fills one device buffer that a launch passes for the array."""

    copy: Node
    """``cudaMemcpy(buffer, source, bytes, cudaMemcpyHostToDevice)``."""
    source: Node
    """The task argument copied from."""
    removed: tuple[Node, ...]
    """The buffer's declaration, allocation and free, when all can go."""

    @property
    def arguments(self) -> list[Node]:
        listed = self.copy.child_by_field_name("arguments")
        return list(listed.named_children) if listed is not None else []


@dataclass(frozen=True, slots=True)
class _Array:
    """A kernel parameter moved to constant memory."""

    position: int
    name: str
    element: str
    length: int
    reads: tuple[Node, ...]
    """The parameter's identifier in every ``p[...]`` of the kernel."""
    uploads: tuple[_Upload, ...]

    def bytes(self) -> int:
        return self.length * numpy_dtype(self.element).itemsize


def _assigned(scope: Node, name: str) -> bool:
    """Whether ``scope`` assigns or steps the variable ``name``."""
    return any(node_text(strip_parens(t)) == name for t in assignment_targets(scope))


class _Uniformity:
    """Which names in a kernel hold the same value in every thread of a warp."""

    def __init__(self, kernel: Kernel, symbols: FileSymbols) -> None:
        self.kernel = kernel
        self.symbols = symbols
        self.declared = _declarations(kernel.body)
        self.scalars = {
            name
            for name, param in zip(kernel.param_names(), kernel.params, strict=True)
            if (param.child_by_field_name("declarator") or param).type == "identifier"
            and not _assigned(kernel.body, name)
            and name not in self.declared
        }

    def divergence(self, expr: Node, assumed: frozenset[str] = frozenset()) -> str | None:
        """What in ``expr`` may differ between threads, or ``None`` when nothing does
        (``assumed``: loop variables being proven uniform)."""
        for node in walk(expr):
            if node.is_named and node.type not in _INDEX_NODES:
                return f"`{node_text(node)}`"
            if node.type == "field_expression":
                argument = node.child_by_field_name("argument")
                if argument is None or node_text(argument) not in _UNIFORM_BUILTINS:
                    return f"`{node_text(node)}`"
            elif node.type == "identifier" and not self._uniform_name(node, assumed):
                return f"`{node_text(node)}`"
        return None

    def _uniform_name(self, node: Node, assumed: frozenset[str]) -> bool:
        name = node_text(node)
        parent = node.parent
        if parent is not None and parent.type == "field_expression":
            return name in _UNIFORM_BUILTINS
        if name in assumed or name in self.scalars or self.symbols.plain_name(name):
            return True
        loop = node.parent
        while loop is not None and loop != self.kernel.body:
            if loop.type == "for_statement" and _declares(loop, name):
                once = self.declared.count(name) == 1
                return once and self._uniform_loop(loop, assumed | {name})
            loop = loop.parent
        return False

    def _uniform_loop(self, loop: Node, assumed: frozenset[str]) -> bool:
        """Every thread runs the same sequence of the loop's variable: it starts, is
        tested and is stepped by uniform values only, and the body leaves it alone."""
        body = loop.child_by_field_name("body")
        if body is None or any(_assigned(body, name) for name in assumed):
            return False
        values: list[Node | None] = []
        init, test = loop.child_by_field_name("initializer"), loop.child_by_field_name("condition")
        if init is not None:
            values += [d.child_by_field_name("value") for d in _declarators(init)]
        if test is not None:
            values.append(test)
        step = loop.child_by_field_name("update")
        if step is not None and step.type == "assignment_expression":
            target = step.child_by_field_name("left")
            if target is None or node_text(target) not in assumed:
                return False
            values.append(step.child_by_field_name("right"))
        elif step is not None:
            target = step.child_by_field_name("argument")
            if step.type != "update_expression" or target is None:
                return False
            values.append(target)
        return all(v is not None and self.divergence(v, assumed) is None for v in values)


def _declarators(declaration: Node) -> list[Node]:
    return list(declaration.children_by_field_name("declarator"))


def _declarations(scope: Node) -> list[str]:
    """The names ``scope`` declares, once per declaration (a name shadowed is there twice)."""
    return [
        node_text(declared_name(d) or d)
        for n in walk(scope)
        if n.type == "declaration"
        for d in _declarators(n)
    ]


def _declares(loop: Node, name: str) -> bool:
    """The ``for`` loop's initializer declares ``name``."""
    init = loop.child_by_field_name("initializer")
    if init is None or init.type != "declaration":
        return False
    return any(node_text(declared_name(d) or d) == name for d in _declarators(init))


def _pointer_parameter(param: Node) -> tuple[str, str] | None:
    """(name, element type) of a single-level pointer parameter."""
    declarator = param.child_by_field_name("declarator")
    kind = param.child_by_field_name("type")
    if declarator is None or declarator.type != "pointer_declarator" or kind is None:
        return None
    inner = declarator.child_by_field_name("declarator")
    if inner is None or inner.type != "identifier":
        return None
    return node_text(inner), node_text(kind)


def _reads(kernel: Kernel, name: str, uniform: _Uniformity) -> tuple[Node, ...]:
    """The parameter's identifier in each read ``name[index]``, or why it cannot move."""
    if name in uniform.declared:
        raise Refusal(f"`{kernel.name}` declares another `{name}`")
    found = []
    for use in identifiers(kernel.body):
        if node_text(use) != name:
            continue
        access = use.parent
        if access is None or access.type != "subscript_expression" or access.children[0] != use:
            raise Refusal(
                f"`{kernel.name}` uses `{name}` other than as `{name}[index]` "
                f"({quote(access or use)})"
            )
        user = access.parent
        while user is not None and user.type == "parenthesized_expression":
            access, user = user, user.parent
        writes = user is not None and (
            (user.type == "assignment_expression" and user.child_by_field_name("left") == access)
            or user.type == "update_expression"
            or (user.type == "pointer_expression" and node_text(user.children[0]) == "&")
        )
        if writes:
            raise Refusal(f"`{kernel.name}` writes or takes the address of `{name}`")
        indices = use.parent.child_by_field_name("indices") if use.parent else None
        index = indices.named_children[0] if indices and indices.named_child_count == 1 else None
        why = uniform.divergence(index) if index is not None else "the index"
        if why is not None:
            raise Refusal(
                f"`{kernel.name}` reads {quote(use.parent or use)}, whose index depends on "
                f"{why}, which may differ between the threads of a warp; constant memory "
                "serialises such reads"
            )
        found.append(use)
    if not found:
        raise Refusal(f"`{kernel.name}` never reads `{name}`")
    return tuple(found)


def _call_of(use: Node) -> tuple[Node, str, int, bool] | None:
    """(call, callee, argument position, passed as ``&use``) when ``use`` is an argument."""
    argument, address = use, False
    parent = use.parent
    if parent is not None and parent.type == "pointer_expression":
        address = node_text(parent.children[0]) == "&"
        argument, parent = parent, parent.parent
    if parent is None or parent.type != "argument_list" or parent.parent is None:
        return None
    call = parent.parent
    callee = call.child_by_field_name("function")
    if call.type != "call_expression" or callee is None:
        return None
    return call, node_text(callee), list(parent.named_children).index(argument), address


def _guards_its_free(use: Node) -> bool:
    """``use`` is the ``p != nullptr`` of ``if (p != nullptr) cudaFreeAsync(p, 0);``, which
    goes with the free."""
    node = use.parent
    while node is not None and node.type in ("binary_expression", "condition_clause"):
        node = node.parent
    if node is None or node.type != "if_statement" or use.parent is None:
        return False
    consequence = node.child_by_field_name("consequence")
    calls = [n for n in walk(consequence) if n.type == "call_expression"] if consequence else []
    callee = calls[0].child_by_field_name("function") if len(calls) == 1 else None
    return (
        use.parent.type == "binary_expression"
        and node_text(use.parent) == f"{node_text(use)} != nullptr"
        and callee is not None
        and node_text(callee) in FREES
    )


def _statement(call: Node) -> Node | None:
    """The statement that does nothing but ``call`` (``err = call;`` and ``if (ok) ...;``
    around it included), or ``None``."""
    expression = call
    if call.parent is not None and call.parent.type == "assignment_expression":
        if call.parent.child_by_field_name("right") != call:
            return None
        expression = call.parent
    statement = expression.parent
    if statement is None or statement.type != "expression_statement":
        return None
    guard = statement.parent
    if (
        guard is not None
        and guard.type == "if_statement"
        and guard.child_by_field_name("consequence") == statement
        and guard.child_by_field_name("alternative") is None
    ):
        condition = guard.child_by_field_name("condition")
        if condition is None or any(
            n.type in ("call_expression", "assignment_expression", "update_expression")
            for n in walk(condition)
        ):
            return None
        return guard
    return statement


def _upload(function: Node, buffer: str, kernel: Kernel, position: int, task: Task) -> _Upload:
    """How ``function`` fills ``buffer``, or why it does more with it than one upload."""
    copies: list[tuple[Node, Node]] = []
    removable: list[Node | None] = []
    for use in identifiers(function):
        if node_text(use) != buffer:
            continue
        declarator = use.parent
        while declarator is not None and declarator.type in (
            "pointer_declarator",
            "init_declarator",
        ):
            declarator = declarator.parent
        if declarator is not None and declarator.type == "declaration":
            single = len(declarator.children_by_field_name("declarator")) == 1
            removable.append(declarator if single else None)
            continue
        if _guards_its_free(use):
            continue
        found = _call_of(use)
        call, callee, index, address = found if found is not None else (use, "", -1, False)
        arguments = call.child_by_field_name("arguments")
        values = list(arguments.named_children) if arguments is not None else []
        if callee == kernel.name and index == position and not address:
            continue
        if callee in ALLOCATORS | FREES and index == 0 and address == (callee in ALLOCATORS):
            removable.append(_statement(call))
        elif (
            callee == "cudaMemcpy"
            and index == 0
            and not address
            and len(values) == 4
            and node_text(values[3]) == "cudaMemcpyHostToDevice"
        ):
            copies.append((call, strip_parens(values[1])))
        else:
            raise Refusal(
                f"the buffer `{buffer}` passed to `{kernel.name}` is also used in "
                f"{quote(call if found is not None else use.parent or use)}"
            )
    if len(copies) != 1:
        raise Refusal(
            f"the buffer `{buffer}` passed to `{kernel.name}` is uploaded {len(copies)} times, "
            "not once"
        )
    ((copy, source),) = copies
    parameters = function_declarator(function)
    listed = parameters.child_by_field_name("parameters") if parameters is not None else None
    names = {
        node_text(declared_name(p.child_by_field_name("declarator")) or p)
        for p in (listed.named_children if listed is not None else [])
    }
    if source.type != "identifier" or node_text(source) not in names:
        raise Refusal(
            f"`{buffer}` is uploaded from {quote(source)}, not from an argument of the function"
        )
    try:
        task.arg(node_text(source))
    except KeyError:
        raise Refusal(
            f"`{node_text(source)}` is not an argument of the task, so its length is unknown"
        ) from None
    kept = () if None in removable else tuple(n for n in removable if n is not None)
    return _Upload(copy, source, kept)


def _array(
    root: Node, kernel: Kernel, position: int, task: Task, uniform: _Uniformity
) -> _Array | None:
    """The parameter at ``position`` as a constant array; ``None`` for a non-pointer."""
    found = _pointer_parameter(kernel.params[position])
    if found is None:
        return None
    name, element = found
    reads = _reads(kernel, name, uniform)
    sites = launches(root, kernel.name)
    if not sites:
        raise Refusal(f"`{kernel.name}` is never launched here, so no host code fills `{name}`")
    uploads: dict[tuple[int, str], _Upload] = {}
    for site in sites:
        function = enclosing_function(site)
        arguments = site.child_by_field_name("arguments")
        values = list(arguments.named_children) if arguments is not None else []
        passed = strip_parens(values[position]) if position < len(values) else None
        if function is None or passed is None or passed.type != "identifier":
            shown = quote(passed) if passed is not None else "nothing"
            raise Refusal(f"a launch of `{kernel.name}` passes {shown} for `{name}`")
        key = (function.start_byte, node_text(passed))
        if key not in uploads:
            uploads[key] = _upload(function, node_text(passed), kernel, position, task)
    specs = {task.arg(node_text(u.source)) for u in uploads.values()}
    lengths = {integer_constant(s.length or "", {}) for s in specs}
    spec = next(iter(specs))
    if len(lengths) != 1 or None in lengths:
        raise Refusal(
            f"the length of `{spec.name}` (`{spec.length}`) is not known at compile time; "
            "a __constant__ array has a fixed size"
        )
    if any(s.role is not Role.IN for s in specs):
        raise Refusal(f"`{spec.name}` is not a read-only input of the task")
    if not is_arithmetic(element) or any(
        c_type_name(s.ctype) != c_type_name(element) for s in specs
    ):
        raise Refusal(f"`{name}` of `{kernel.name}` is `{element}*`, not the task's `{spec.ctype}`")
    (length,) = lengths
    assert length is not None
    return _Array(position, name, element, length, reads, tuple(uploads.values()))


def _deleted(node: Node, source: bytes) -> Edit:
    """Remove ``node``, and its line when nothing else is on it."""
    start, end = node.start_byte, node.end_byte
    while start > 0 and source[start - 1 : start] in (b" ", b"\t"):
        start -= 1
    while end < len(source) and source[end : end + 1] in (b" ", b"\t"):
        end += 1
    if (start == 0 or source[start - 1 : start] == b"\n") and source[end : end + 1] == b"\n":
        return Edit(start, end + 1, "")
    return Edit.replace(node, "")


def _kept(items: list[Node], dropped: set[int]) -> str:
    return "(" + ", ".join(node_text(n) for i, n in enumerate(items) if i not in dropped) + ")"


def _kernel_edits(
    root: Node, kernel: Kernel, arrays: list[_Array], names: NameAllocator, source: bytes
) -> list[Edit]:
    dropped = {a.position for a in arrays}
    declarator = function_declarator(kernel.definition)
    listed = declarator.child_by_field_name("parameters") if declarator is not None else None
    assert listed is not None
    edits = [Edit.replace(listed, _kept(list(kernel.params), dropped))]
    for site in launches(root, kernel.name):
        arguments = site.child_by_field_name("arguments")
        assert arguments is not None
        edits.append(Edit.replace(arguments, _kept(list(arguments.named_children), dropped)))
    declarations = []
    for array in arrays:
        symbol = names.fresh(f"c_{array.name}")
        declarations.append(f"__constant__ {array.element} {symbol}[{array.length}];\n")
        edits += [Edit.replace(use, symbol) for use in array.reads]
        for upload in array.uploads:
            _, host, size, _ = (node_text(a) for a in upload.arguments)
            edits.append(Edit.replace(upload.copy, f"cudaMemcpyToSymbol({symbol}, {host}, {size})"))
            edits += [_deleted(n, source) for n in upload.removed]
    definition = kernel.definition
    if definition.parent is not None and definition.parent.type == "template_declaration":
        definition = definition.parent
    edits.append(Edit.insert(definition.start_byte, "".join(declarations)))
    return edits


class ConstantMemory(RefusingRewriter):
    """``params``: ``max_bytes`` (default 16384), the largest array moved."""

    technique = "constant_memory"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        task = context.task
        if task.mode is TaskMode.KERNEL_TO_KERNEL:
            raise Refusal(
                "a kernel-to-kernel candidate has no host code to fill constant memory with"
            )
        root = parse(code).root_node
        source = code.encode("utf-8")
        symbols = file_symbols(root)
        names = NameAllocator(root)
        limit = int(params.get("max_bytes", _MAX_BYTES))
        edits: list[Edit] = []
        moved: list[str] = []
        reasons: list[str] = []
        total = 0
        for kernel in kernels(root):
            if kernel.name in symbols.prototypes:
                reasons.append(f"`{kernel.name}` is declared twice; its parameters stay")
                continue
            uniform = _Uniformity(kernel, symbols)
            arrays = []
            for position in range(len(kernel.params)):
                try:
                    array = _array(root, kernel, position, task, uniform)
                except Refusal as refusal:
                    reasons.append(refusal.reason)
                    continue
                if array is None:
                    continue
                size = array.bytes()
                if size > limit or total + size > _CONSTANT_BYTES:
                    reasons.append(
                        f"`{array.name}` of `{kernel.name}` takes {size} bytes; constant "
                        f"memory takes arrays of up to {min(limit, _CONSTANT_BYTES - total)}"
                    )
                    continue
                total += size
                arrays.append(array)
                moved.append(f"`{array.name}` of `{kernel.name}` ({array.length} {array.element})")
            if arrays:
                edits += _kernel_edits(root, kernel, arrays, names, source)
        if not edits:
            raise Refusal("; ".join(reasons) or "the code has no kernel")
        return [
            RewriteCandidate(
                apply_edits(source, edits),
                f"moved {', '.join(moved)} to __constant__ memory, filled with "
                "cudaMemcpyToSymbol, read at an index the same for every thread of a warp",
            )
        ]
