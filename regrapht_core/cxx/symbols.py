"""What a translation unit defines at namespace scope, and what device code may call.

Loop bodies move into kernels, so every name they use must mean the same thing on the
device: a parameter, a local, a macro, an enumerator, a scalar constant, a helper this file
defines (which then gets ``__host__ __device__``), or a math function CUDA provides for
device code. Anything else -- a global array, a library call, I/O -- is a reason to refuse.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from regrapht_core.cxx.functions import function_definitions, function_name
from regrapht_core.cxx.parse import Node, node_text
from regrapht_core.cxx.syntax import declared_name, words

__all__ = [
    "DEVICE_MATH",
    "IO_NAMES",
    "KNOWN_CONSTANTS",
    "ConstTable",
    "FileSymbols",
    "file_symbols",
    "local_names",
]


DEVICE_MATH = words(
    "sqrt sqrtf rsqrt rsqrtf cbrt cbrtf exp expf exp2 exp2f expm1 expm1f exp10 exp10f",
    "log logf log2 log2f log10 log10f log1p log1pf pow powf sin sinf cos cosf tan tanf",
    "asin asinf acos acosf atan atanf atan2 atan2f sinh sinhf cosh coshf tanh tanhf",
    "asinh asinhf acosh acoshf atanh atanhf erf erff erfc erfcf tgamma tgammaf lgamma",
    "lgammaf fabs fabsf abs labs llabs fmin fminf fmax fmaxf min max fma fmaf floor floorf",
    "ceil ceilf round roundf lround lroundf trunc truncf rint rintf nearbyint nearbyintf",
    "fmod fmodf remainder remainderf copysign copysignf hypot hypotf isnan isinf isfinite",
    "signbit ldexp ldexpf frexp frexpf modf modff fdim fdimf sincos sincosf",
)
"""Functions nvcc provides in device code under these names (``std::`` forms included)."""

IO_NAMES = words(
    "printf fprintf sprintf snprintf puts putchar fputs scanf fscanf fopen fclose fread",
    "fwrite fflush getchar fgets cout cerr clog cin endl perror",
)

KNOWN_CONSTANTS = words(
    "INFINITY NAN HUGE_VAL HUGE_VALF FLT_MAX FLT_MIN FLT_EPSILON DBL_MAX DBL_MIN",
    "DBL_EPSILON INT_MAX INT_MIN UINT_MAX LONG_MAX LONG_MIN LLONG_MAX LLONG_MIN ULLONG_MAX",
    "SIZE_MAX CHAR_BIT M_PI M_PI_2 M_PI_4 M_1_PI M_2_PI M_E M_LN2 M_LN10 M_LOG2E M_LOG10E",
    "M_SQRT2 M_SQRT1_2 M_2_SQRTPI",
)
"""Header macros whose expansion is a literal, hence as good on the device as on the host."""


@dataclass(frozen=True, slots=True)
class ConstTable:
    """A namespace-scope constant array: its declaration, the qualifier that makes it
    constant (``const`` or ``constexpr``) and how many values its initializer lists."""

    declaration: Node
    qualifier: Node
    values: int


@dataclass(slots=True)
class FileSymbols:
    helpers: dict[str, list[Node]] = field(default_factory=dict)
    """Function definitions by name (overloads together)."""
    prototypes: dict[str, list[Node]] = field(default_factory=dict)
    macros: set[str] = field(default_factory=set)
    function_macros: set[str] = field(default_factory=set)
    enumerators: set[str] = field(default_factory=set)
    constants: set[str] = field(default_factory=set)
    """Namespace-scope ``const``/``constexpr`` scalars with an initializer."""
    tables: dict[str, ConstTable] = field(default_factory=dict)
    """Namespace-scope ``const``/``constexpr`` one-dimensional arrays with an initializer
    list (filter taps, weights, lookup tables): device code cannot see them as they are,
    but a copy in device memory can take their place (``cxx.dependence``)."""
    kernels: set[str] = field(default_factory=set)

    def plain_name(self, name: str) -> bool:
        """A name that means a compile-time value in device code as well as on the host."""
        return (
            name in self.macros
            or name in self.enumerators
            or name in self.constants
            or name in KNOWN_CONSTANTS
        )


def _is_const_scalar(declaration: Node) -> list[str]:
    qualifiers = {node_text(c) for c in declaration.children if c.type == "type_qualifier"}
    if not qualifiers & {"const", "constexpr"}:
        return []
    names = []
    for declarator in declaration.children_by_field_name("declarator"):
        if declarator.type == "init_declarator":
            target = declarator.child_by_field_name("declarator")
            if target is not None and target.type == "identifier":
                names.append(node_text(target))
    return names


def _const_tables(declaration: Node) -> dict[str, ConstTable]:
    qualifiers = [
        c
        for c in declaration.children
        if c.type == "type_qualifier" and node_text(c) in ("const", "constexpr")
    ]
    storage = {node_text(c) for c in declaration.children if c.type == "storage_class_specifier"}
    if not qualifiers or storage - {"static"}:
        return {}
    tables = {}
    for declarator in declaration.children_by_field_name("declarator"):
        target = declarator.child_by_field_name("declarator")
        value = declarator.child_by_field_name("value")
        if (
            declarator.type == "init_declarator"
            and target is not None
            and target.type == "array_declarator"
            and (name := target.child_by_field_name("declarator")) is not None
            and name.type == "identifier"
            and value is not None
            and value.type == "initializer_list"
            and not any(c.type == "initializer_list" for c in value.named_children)
        ):
            tables[node_text(name)] = ConstTable(
                declaration, qualifiers[0], len(value.named_children)
            )
    return tables


def file_symbols(root: Node) -> FileSymbols:
    symbols = FileSymbols()
    for definition in function_definitions(root):
        name = function_name(definition)
        if name is None:
            continue
        symbols.helpers.setdefault(name, []).append(definition)
        if any(c.type == "__global__" for c in definition.children):
            symbols.kernels.add(name)
    for node in root.named_children:
        if node.type == "preproc_def":
            symbols.macros.add(node_text(node.child_by_field_name("name") or node))
        elif node.type == "preproc_function_def":
            symbols.function_macros.add(node_text(node.child_by_field_name("name") or node))
        elif node.type == "declaration":
            declarator = node.child_by_field_name("declarator")
            if declarator is not None and declarator.type == "function_declarator":
                name_node = declarator.child_by_field_name("declarator")
                if name_node is not None:
                    symbols.prototypes.setdefault(node_text(name_node), []).append(node)
            else:
                symbols.constants.update(_is_const_scalar(node))
                symbols.tables.update(_const_tables(node))
        symbols.enumerators.update(_enumerators(node))
    return symbols


def _enumerators(node: Node) -> list[str]:
    names = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "enumerator":
            name = current.child_by_field_name("name")
            if name is not None:
                names.append(node_text(name))
        elif current.type in (
            "enum_specifier",
            "enumerator_list",
            "declaration",
            "type_definition",
        ):
            stack.extend(current.named_children)
    return names


def local_names(scope: Node) -> set[str]:
    """Every name a declaration or parameter inside ``scope`` introduces."""
    names: set[str] = set()
    stack = [scope]
    while stack:
        current = stack.pop()
        if current.type in ("declaration", "parameter_declaration"):
            for declarator in current.children_by_field_name("declarator"):
                name = declared_name(declarator)
                if name is not None:
                    names.add(node_text(name))
        stack.extend(current.named_children)
    return names
