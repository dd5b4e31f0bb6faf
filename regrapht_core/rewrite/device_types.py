"""Host element types that device code must spell differently: ``std::complex``, ``std::pair``.

``std::complex<float>`` and ``std::pair<float, int>`` have no ``__device__`` operators, but
libcu++'s ``cuda::std::complex`` and ``cuda::std::pair`` do and have the same layout (two
members, in order; ``cuda::std::complex<double>`` is only more aligned, which device
allocations satisfy). So the pointer form's implementation is written in the ``cuda::std``
spelling: its parameters, its body's types and the complex math it calls. The wrapper
reinterprets the caller's pointers and converts values at the boundary; ``std::tuple`` is
not handled, because libstdc++ stores its elements in reverse order.
"""

from __future__ import annotations

import re

from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.splice import Edit

__all__ = [
    "device_includes",
    "device_type",
    "host_value",
    "needs_device_type",
    "passed_pointer",
    "passed_value",
    "spelling_edits",
]

_TEMPLATES = {"complex": "cuda::std::complex", "pair": "cuda::std::pair"}
_TYPE = re.compile(r"(?<![\w:])(?:std\s*::\s*)?(complex|pair)\s*<")
_COMPLEX_FUNCTIONS = frozenset(
    {
        "abs",
        "arg",
        "norm",
        "conj",
        "proj",
        "polar",
        "real",
        "imag",
        "exp",
        "log",
        "log10",
        "sqrt",
        "pow",
        "sin",
        "cos",
        "tan",
        "sinh",
        "cosh",
        "tanh",
        "make_pair",
    }
)
_INCLUDES = {"complex": "#include <cuda/std/complex>", "pair": "#include <cuda/std/utility>"}


def needs_device_type(ctype: str) -> bool:
    return _TYPE.search(ctype) is not None


def device_type(ctype: str) -> str:
    """``std::complex<float>`` -> ``cuda::std::complex<float>``; other types unchanged."""
    return _TYPE.sub(lambda m: f"{_TEMPLATES[m.group(1)]}<", ctype)


def device_includes(ctypes: list[str]) -> list[str]:
    found = {m.group(1) for c in ctypes for m in _TYPE.finditer(c)}
    return [_INCLUDES[k] for k in sorted(found)]


def passed_pointer(ctype: str, const: bool, expr: str) -> str:
    """The caller's pointer to ``ctype`` as a pointer to its device spelling."""
    if not needs_device_type(ctype):
        return expr
    return f"reinterpret_cast<{'const ' if const else ''}{device_type(ctype)}*>({expr})"


def passed_value(ctype: str, expr: str) -> str:
    """A host value converted to its device spelling (members copied one by one)."""
    if not needs_device_type(ctype):
        return expr
    if "complex" in device_type(ctype):
        return f"{device_type(ctype)}(({expr}).real(), ({expr}).imag())"
    return f"{device_type(ctype)}(({expr}).first, ({expr}).second)"


def host_value(ctype: str, expr: str, holder: str) -> str:
    """A device-spelled value converted back to ``ctype``, through a local ``holder`` (a
    fresh name: ``expr`` is in its scope, and the verifier reserves ``regrapht`` names)."""
    if not needs_device_type(ctype):
        return expr
    members = "real(), {0}.imag()" if "complex" in device_type(ctype) else "first, {0}.second"
    inner = f"{holder}." + members.format(holder)
    return f"[&] {{ const auto {holder} = {expr}; return {ctype}({inner}); }}()"


def spelling_edits(scope: Node, complex_math: bool) -> list[Edit]:
    """Edits giving ``scope`` the device spelling: ``std::complex``/``std::pair`` types and,
    with ``complex_math``, the ``std::`` complex functions (``abs``, ``exp``, ``conj``...)
    as ``cuda::std::`` (without it ``std::sqrt`` stays CUDA's own float overload)."""
    edits = []
    for node in walk(scope):
        if node.type != "qualified_identifier":
            continue
        scope_name = node.child_by_field_name("scope")
        name = node.child_by_field_name("name")
        if scope_name is None or name is None or node_text(scope_name) != "std":
            continue
        leaf = name
        if leaf.type in ("template_type", "template_function"):
            leaf = leaf.child_by_field_name("name") or leaf
        text = node_text(leaf)
        if (
            text in _TEMPLATES
            or text == "make_pair"
            or (complex_math and text in _COMPLEX_FUNCTIONS)
        ):
            edits.append(Edit.replace(scope_name, "cuda::std"))
    return edits
