"""Fast math: single-precision intrinsics in device code instead of the accurate functions.

``expf``, ``logf``, ``sinf``, ``powf`` and their kin compile to a software sequence of a
few dozen instructions that is accurate to 1-2 ulp over the whole range; ``__expf``,
``__logf``, ``__sinf``, ``__powf`` map to the special function units in a handful, with an
error that grows with the argument (``__expf``: 2 + 1.16 |x| ulp) and poorer behaviour near
the ends of the range. ``a / b`` in ``float`` is an IEEE division (a reciprocal and Newton
steps with a slow path); ``__fdividef(a, b)`` is one approximate reciprocal and a multiply,
2 ulp for ``|b|`` up to 2^126. Transcendental-heavy kernels (activations, kernels over all
pairs) run markedly faster; the results differ, so whether the task's tolerance admits them
is the verifier's to decide, and tasks that admit no difference at all are refused here.

Only device code is rewritten: kernels and ``__device__`` functions. The intrinsics exist
only on the device, so a ``__host__ __device__`` function (host code too) keeps its calls,
and ``double`` math is never touched. A division is rewritten only where both operands are
known to be ``float``: from their declarations, literals (``2.0f``), casts and the
single-precision math functions; anything of unknown type is left as written.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from regrapht_core.contracts.task import Task
from regrapht_core.cxx.declared import declared_names
from regrapht_core.cxx.definitions import is_integer_type
from regrapht_core.cxx.functions import function_declarator, function_definitions, function_name
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits, render
from regrapht_core.cxx.symbols import FileSymbols, file_symbols
from regrapht_core.cxx.syntax import declared_name, operator_text, parse, strip_parens, words
from regrapht_core.errors import TaskError
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)
from regrapht_core.tasks.dtypes import c_type_name, is_integer, vector_element

__all__ = ["FastMath"]

INTRINSICS = {
    "expf": "__expf",
    "exp10f": "__exp10f",
    "logf": "__logf",
    "log2f": "__log2f",
    "log10f": "__log10f",
    "sinf": "__sinf",
    "cosf": "__cosf",
    "tanf": "__tanf",
    "powf": "__powf",
}
"""Single-precision math functions and the fast intrinsic for each."""

_FLOAT_RESULTS = words(
    "sqrtf rsqrtf cbrtf expf exp2f expm1f exp10f logf log2f log10f log1pf powf sinf cosf",
    "tanf asinf acosf atanf atan2f sinhf coshf tanhf asinhf acoshf atanhf erff erfcf",
    "tgammaf lgammaf fabsf fminf fmaxf fmaf floorf ceilf roundf truncf rintf nearbyintf",
    "fmodf remainderf copysignf hypotf ldexpf fdimf",
    "__expf __exp10f __logf __log2f __log10f __sinf __cosf __tanf __powf __fdividef",
    "__fsqrt_rn __frcp_rn __fmul_rn __fadd_rn __fmaf_rn",
)
"""Functions that return ``float`` whatever they are given."""
_ARITHMETIC = frozenset({"+", "-", "*", "/"})
_INTEGRAL = frozenset({"%", "<<", ">>", "&", "|", "^"})
_TRUTH = frozenset({"<", "<=", ">", ">=", "==", "!=", "&&", "||"})


def _number(ctype: str) -> str | None:
    """``float``, ``double`` or ``int`` (any integer type) for a type spelling, else None."""
    name = c_type_name(ctype)
    if name in ("float", "double"):
        return name
    return "int" if is_integer_type(name) else None


def _literal(text: str) -> str | None:
    lowered = text.lower().replace("'", "")
    if lowered.startswith("0x"):
        return None if "p" in lowered else "int"
    if "." in lowered or "e" in lowered:
        if lowered.endswith("f"):
            return "float"
        return None if lowered.endswith("l") else "double"
    return "int"


def _combined(left: str | None, right: str | None) -> str | None:
    """The usual arithmetic conversions over the three kinds this module tracks."""
    if left is None or right is None:
        return None
    for kind in ("double", "float"):
        if kind in (left, right):
            return kind
    return "int"


def _declarators(declaration: Node) -> list[Node]:
    return list(declaration.children_by_field_name("declarator"))


def _named(declaration: Node, name: str) -> Node | None:
    """The declarator of ``declaration`` that introduces ``name``."""
    for declarator in _declarators(declaration):
        found = declared_name(declarator)
        if found is not None and node_text(found) == name:
            return declarator
    return None


def _parameters(function: Node) -> list[Node]:
    declarator = function_declarator(function)
    listed = declarator.child_by_field_name("parameters") if declarator is not None else None
    if listed is None:
        return []
    return [p for p in listed.named_children if p.type == "parameter_declaration"]


def _declaration(use: Node) -> tuple[Node, Node] | None:
    """(declaration, declarator) that the identifier ``use`` refers to: the nearest
    enclosing scope's last declaration of the name before the use."""
    name = node_text(use)
    inner, scope = use, use.parent
    while scope is not None:
        found: tuple[Node, Node] | None = None
        if scope.type in ("compound_statement", "translation_unit"):
            for item in scope.named_children:
                if item.start_byte >= inner.start_byte:
                    break
                declarator = _named(item, name) if item.type == "declaration" else None
                if declarator is not None:
                    found = (item, declarator)
        elif scope.type == "for_statement":
            init = scope.child_by_field_name("initializer")
            declarator = _named(init, name) if init is not None and init != inner else None
            if init is not None and init.type == "declaration" and declarator is not None:
                found = (init, declarator)
        elif scope.type == "function_definition":
            for param in _parameters(scope):
                declarator = _named(param, name)
                if declarator is not None:
                    found = (param, declarator)
        if found is not None:
            return found
        inner, scope = scope, scope.parent
    return None


def _variable(use: Node, indexed: bool) -> str | None:
    """The kind of a variable (``indexed``: of one element of a pointer or array)."""
    found = _declaration(use)
    if found is None:
        return None
    declaration, declarator = found
    kind = declaration.child_by_field_name("type")
    levels = 0
    current: Node | None = declarator
    while current is not None and current.type != "identifier":
        if current.type in ("pointer_declarator", "array_declarator"):
            levels += 1
        elif current.type not in ("init_declarator", "reference_declarator"):
            return None
        current = (
            current.named_children[0]
            if current.type == "reference_declarator"
            else current.child_by_field_name("declarator")
        )
    if kind is None or levels != (1 if indexed else 0):
        return None
    return _number(node_text(kind))


@dataclass(slots=True)
class _Types:
    """The kind of a ``float``-or-not expression, as far as the file tells."""

    symbols: FileSymbols
    returns: dict[str, str | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, definitions in self.symbols.helpers.items():
            kind = definitions[0].child_by_field_name("type")
            declarator = definitions[0].child_by_field_name("declarator")
            plain = declarator is not None and declarator.type == "function_declarator"
            if len(definitions) == 1 and kind is not None and plain:
                self.returns[name] = _number(node_text(kind))

    def of(self, node: Node) -> str | None:
        node = strip_parens(node)
        kind = node.type
        if kind == "number_literal":
            return _literal(node_text(node))
        if kind == "identifier":
            return _variable(node, indexed=False)
        if kind == "subscript_expression":
            array = node.child_by_field_name("argument")
            return _variable(array, indexed=True) if array and array.type == "identifier" else None
        if kind == "unary_expression":
            operand = node.child_by_field_name("argument")
            op = operator_text(node)
            if op == "!":
                return "int"
            return self.of(operand) if operand is not None and op in ("-", "+") else None
        if kind == "binary_expression":
            return self._binary(node)
        if kind == "cast_expression":
            target = node.child_by_field_name("type")
            return _number(node_text(target)) if target is not None else None
        if kind == "call_expression":
            return self._call(node)
        if kind == "conditional_expression":
            taken = node.child_by_field_name("consequence")
            other = node.child_by_field_name("alternative")
            if taken is None or other is None:
                return None
            both = {self.of(taken), self.of(other)}
            return both.pop() if len(both) == 1 else None
        return None

    def _binary(self, node: Node) -> str | None:
        op = operator_text(node)
        if op in _TRUTH:
            return "int"
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return None
        kinds = self.of(left), self.of(right)
        if op in _ARITHMETIC:
            return _combined(*kinds)
        return "int" if op in _INTEGRAL and kinds == ("int", "int") else None

    def _call(self, node: Node) -> str | None:
        function = node.child_by_field_name("function")
        if function is None:
            return None
        if function.type == "primitive_type":
            return _number(node_text(function))
        if function.type == "template_function":
            template = function.child_by_field_name("name")
            listed = function.child_by_field_name("arguments")
            if template is None or node_text(template) != "static_cast" or listed is None:
                return None
            return _number(node_text(listed).strip("<> "))
        name = node_text(function)
        if name in self.symbols.helpers:
            return self.returns.get(name)
        return "float" if name in _FLOAT_RESULTS else None


@dataclass(slots=True)
class _Plan:
    """What changes: intrinsic names by the callee's node, divisions by their node."""

    renamed: dict[tuple[int, int], str] = field(default_factory=dict)
    divisions: set[tuple[int, int]] = field(default_factory=set)
    counts: dict[str, int] = field(default_factory=dict)

    def changes(self, node: Node) -> bool:
        span = (node.start_byte, node.end_byte)
        return any(span[0] <= s and e <= span[1] for s, e in (*self.renamed, *self.divisions))

    def text(self, node: Node) -> str:
        """``node`` as written, with every change inside it made."""
        span = (node.start_byte, node.end_byte)
        if node.type == "identifier" and span in self.renamed:
            return self.renamed[span]
        if node.type == "binary_expression" and span in self.divisions:
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            assert left is not None and right is not None
            return f"__fdividef({self.text(left)}, {self.text(right)})"
        return render(node, [Edit.replace(c, self.text(c)) for c in self.within(node)])

    def within(self, node: Node) -> Iterator[Node]:
        """The children of ``node`` that something changes inside."""
        return (c for c in node.children if self.changes(c))


def _device_only(definition: Node) -> bool:
    spaces = {c.type for c in definition.children}
    return "__global__" in spaces or ("__device__" in spaces and "__host__" not in spaces)


def _host_device(definition: Node) -> bool:
    spaces = {c.type for c in definition.children}
    return "__device__" in spaces and "__host__" in spaces


def _plan(body: Node, types: _Types, plan: _Plan, shadowed: set[str]) -> None:
    for node in walk(body):
        if node.type == "call_expression":
            callee = node.child_by_field_name("function")
            name = node_text(callee) if callee is not None else ""
            if callee is not None and name in INTRINSICS and name not in shadowed:
                plan.renamed[(callee.start_byte, callee.end_byte)] = INTRINSICS[name]
                plan.counts[name] = plan.counts.get(name, 0) + 1
        elif node.type == "binary_expression" and operator_text(node) == "/":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is None or right is None:
                continue
            if types.of(left) == "float" and types.of(right) == "float":
                plan.divisions.add((node.start_byte, node.end_byte))
                plan.counts["/"] = plan.counts.get("/", 0) + 1


def _exact_outputs(task: Task) -> list[str]:
    """The task's outputs when every one of them is compared exactly (integers)."""
    outputs = [(a.name, a.ctype) for a in task.outputs]
    if task.returns != "void":
        outputs.append(("the return value", vector_element(task.returns) or task.returns))
    try:
        exact = bool(outputs) and all(is_integer(c, task.records) for _, c in outputs)
    except TaskError:
        return []
    return [f"`{name}`" for name, _ in outputs] if exact else []


class FastMath(RefusingRewriter):
    technique = "fast_math"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        task = context.task
        if task.tolerance.atol == 0 and task.tolerance.rtol == 0:
            raise Refusal(
                "the task's tolerance is exact (atol = rtol = 0); fast intrinsics change results"
            )
        exact = _exact_outputs(task)
        if exact:
            raise Refusal(
                f"the task's outputs ({', '.join(exact)}) are integers, compared exactly; "
                "fast intrinsics change the values they are computed from"
            )
        root = parse(code).root_node
        symbols = file_symbols(root)
        taken = set(symbols.helpers) | set(symbols.prototypes) | symbols.macros
        taken |= symbols.function_macros
        types = _Types(symbols)
        plan, touched, host_too = _Plan(), [], []
        for definition in function_definitions(root):
            body = definition.child_by_field_name("body")
            name = function_name(definition) or "?"
            if body is None:
                continue
            if _device_only(definition):
                before = sum(plan.counts.values())
                _plan(body, types, plan, taken | declared_names(definition))
                if sum(plan.counts.values()) > before:
                    touched.append(f"`{name}`")
            elif _host_device(definition):
                probe = _Plan()
                _plan(body, types, probe, taken | declared_names(definition))
                if probe.counts:
                    host_too.append(f"`{name}`")
        if not plan.counts:
            why = (
                "no device code calls expf, exp10f, logf, log2f, log10f, sinf, cosf, tanf or "
                "powf or divides two floats"
            )
            if host_too:
                why += (
                    f"; {', '.join(host_too)} also run on the host (__host__ __device__), "
                    "where the intrinsics do not exist"
                )
            raise Refusal(why)
        done = ", ".join(
            f"{count}x {'a / b -> __fdividef' if name == '/' else f'{name} -> {INTRINSICS[name]}'}"
            for name, count in sorted(plan.counts.items(), key=lambda item: item[0] == "/")
        )
        edits = [Edit.replace(c, plan.text(c)) for c in plan.within(root)]
        return [
            RewriteCandidate(
                apply_edits(code.encode("utf-8"), edits),
                f"used the fast single-precision intrinsics ({done}) in {', '.join(touched)}",
            )
        ]
