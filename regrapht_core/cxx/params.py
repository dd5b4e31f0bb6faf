"""A function's parameters, read once: the one parameter model of the engine.

Task extraction (how the harness allocates and passes each argument) and the rewriters
(which parameters a kernel takes, which buffers to copy) ask the same questions of a
parameter: its name, how it is written, whether it is a pointer, a vector, a scalar or
something neither supports, and whether it promises not to write. Each caller refuses what
it cannot handle in its own words; the reading is shared.
"""

from __future__ import annotations

from dataclasses import dataclass

from regrapht_core.contracts.task import ParamKind
from regrapht_core.cxx.functions import function_declarator
from regrapht_core.cxx.parse import Node, node_text

__all__ = ["Parameter", "parameters", "variadic"]


@dataclass(frozen=True, slots=True)
class Parameter:
    name: str
    """Empty when the declaration names nothing (``float (*f)(int)``, ``int``)."""
    declaration: str
    """As written (``const float* x``), reused verbatim in a kernel's parameter list."""
    element: str
    """Element type for pointers and vectors, the type for scalars, as written (a caller
    may resolve typedefs)."""
    const: bool
    """A ``const`` pointee (or vector, or scalar, or a span's element type): the function
    promises not to write it."""
    pointers: int
    """Pointer and array declarators around the name (``float** p``: 2)."""
    reference: bool
    container: str | None = None
    """``"vector"``, ``"array"`` or ``"span"`` for ``std::vector<T>``, ``std::array<T, N>``
    and ``std::span<T>`` (``element`` is ``T``); ``None`` for anything else."""
    view_const: bool = False
    """A span declared ``const`` itself (``const std::span<T>&``): part of how the entry is
    declared, no promise about the elements (:attr:`const` says that)."""
    extent: str = ""
    """``N`` of ``std::array<T, N>`` (or of a fixed-size ``std::span<T, N>``), as written."""

    @property
    def vector(self) -> bool:
        """Declared as ``std::vector<T>``."""
        return self.container == "vector"

    @property
    def kind(self) -> ParamKind | None:
        """Scalar (by value or by reference), pointer, vector, fixed array or span; ``None``
        for what no task can pass (pointers to pointers or to containers)."""
        if self.container is not None:
            if self.pointers != 0:
                return None
            return ParamKind(self.container)
        if self.pointers == 1:
            return ParamKind.POINTER
        if self.pointers == 0:
            return ParamKind.SCALAR
        return None

    @property
    def writable_reference(self) -> bool:
        """``T& x`` of a scalar: the function may write the caller's variable."""
        return self.reference and not self.const and self.kind is ParamKind.SCALAR

    @property
    def pointer(self) -> bool:
        """A plain pointer (or array) parameter: ``T* x`` / ``T x[]``, not ``T*& x``."""
        return self.kind is ParamKind.POINTER and not self.reference


def parameters(definition: Node) -> tuple[Parameter, ...] | None:
    """The declared parameters in order, or ``None`` when the list cannot be read."""
    declarator = function_declarator(definition)
    plist = declarator.child_by_field_name("parameters") if declarator else None
    if plist is None:
        return None
    return tuple(_parameter(p) for p in plist.named_children if p.type == "parameter_declaration")


def variadic(definition: Node) -> bool:
    """``f(int n, ...)`` or a parameter pack."""
    declarator = function_declarator(definition)
    plist = declarator.child_by_field_name("parameters") if declarator else None
    return plist is not None and any(
        c.type in ("variadic_parameter", "...") for c in plist.children
    )


def _parameter(declaration: Node) -> Parameter:
    type_node = declaration.child_by_field_name("type")
    const = any(
        c.type == "type_qualifier" and node_text(c) == "const" for c in declaration.children
    )
    pointers, reference = 0, False
    node = declaration.child_by_field_name("declarator")
    while node is not None and node.type != "identifier":
        if node.type in ("pointer_declarator", "array_declarator"):
            pointers += 1
        elif node.type == "reference_declarator":
            reference = True
        else:
            break
        inner = node.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in node.named_children if c.type == "identifier"), None)
        node = inner
    name = node_text(node) if node is not None and node.type == "identifier" else ""
    found = _container(type_node) if type_node is not None else None
    if found is not None:
        container, element, extent = found
        view_const = False
        if container == "span":  # a view: what it promises is in its element type
            view_const = const
            const, element = _without_const(element)
        return Parameter(
            name,
            node_text(declaration),
            element,
            const,
            pointers,
            reference,
            container,
            view_const,
            extent,
        )
    element = node_text(type_node) if type_node is not None else ""
    return Parameter(name, node_text(declaration), element, const, pointers, reference)


_CONTAINERS = ("vector", "array", "span")


def _container(type_node: Node) -> tuple[str, str, str] | None:
    """``(container, T, N)`` of ``std::vector<T>``, ``std::array<T, N>``, ``std::span<T>``
    (with or without ``std::``), else None. A span's element keeps its ``const``; a span's
    fixed extent (``std::span<T, N>``) is kept as an array's is."""
    template = type_node
    if template.type == "qualified_identifier":
        inner = template.child_by_field_name("name")
        if inner is None:
            return None
        template = inner
    if template.type != "template_type":
        return None
    name = template.child_by_field_name("name")
    arguments = template.child_by_field_name("arguments")
    container = node_text(name) if name is not None else ""
    if container not in _CONTAINERS or arguments is None:
        return None
    parts = arguments.named_children
    if not parts or parts[0].type != "type_descriptor":
        return None
    element = node_text(parts[0])
    if container == "array":
        return ("array", element, node_text(parts[1])) if len(parts) == 2 else None
    if container == "span" and len(parts) == 2:
        return ("span", element, node_text(parts[1]))
    return (container, element, "") if len(parts) == 1 else None


def _without_const(element: str) -> tuple[bool, str]:
    """``const T`` / ``T const`` → ``(True, "T")``."""
    words = element.split()
    if "const" not in words:
        return False, element
    return True, " ".join(w for w in words if w != "const")
