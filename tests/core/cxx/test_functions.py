"""One notion of a function's name: as a caller at namespace scope writes it."""

from __future__ import annotations

import pytest

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.functions import (
    definition_header,
    function_definitions,
    function_name,
    is_kernel,
    signature_text,
    unqualified,
)
from regrapht_core.cxx.parse import Node, parse_source, walk


def _definitions(source: str) -> list[Node]:
    root = parse_source(source, SourceLanguage.CUDA).root_node
    return [n for n in walk(root) if n.type == "function_definition"]


@pytest.mark.parametrize(
    ("source", "name"),
    [
        ("void f(int n) {}", "f"),
        ("float* f(float* x) { return x; }", "f"),
        ("const float& f(const float& x) { return x; }", "f"),
        ("namespace ns { void g(); }\nvoid ns::g() {}", "ns::g"),
        ("struct S { void m(); };\nvoid S :: m() {}", "S::m"),
        ("template <typename T> T twice(T x) { return x + x; }", "twice"),
        ("template <> int twice<int>(int x) { return x + x; }", "twice"),
        ("bool operator<(const P& a, const P& b) { return a.x < b.x; }", "operator<"),
    ],
)
def test_function_name_is_the_name_as_written_qualified_or_not(source: str, name: str) -> None:
    assert function_name(_definitions(source)[-1]) == name


def test_a_method_defined_in_its_class_is_named_without_the_class() -> None:
    (method,) = _definitions("struct S { int size() { return 3; } };")
    assert function_name(method) == "size"


def test_unqualified_is_the_last_component() -> None:
    assert [unqualified(n) for n in ("f", "ns::f", "a::b::f")] == ["f", "f", "f"]


def test_namespace_scope_definitions_include_templates_but_not_methods() -> None:
    root = parse_source(
        "void a() {}\ntemplate <class T> void b(T) {}\nstruct S { void c() {} };\n",
        SourceLanguage.CPP,
    ).root_node
    assert [function_name(d) for d in function_definitions(root)] == ["a", "b"]


def test_header_signature_and_kernel() -> None:
    (kernel,) = _definitions("__global__ void k(float* x,\n    int n) { x[0] = n; }")
    assert is_kernel(kernel)
    assert definition_header(kernel) == "__global__ void k(float* x,\n    int n) "
    assert signature_text(kernel) == "__global__ void k(float* x, int n)"
    (host,) = _definitions("void h() {}")
    assert not is_kernel(host)
