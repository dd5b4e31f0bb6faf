"""The one parameter model: what the harness and the rewriters both read off a parameter."""

from __future__ import annotations

from regrapht_core.contracts.task import ParamKind, SourceLanguage
from regrapht_core.cxx.params import Parameter, parameters, variadic
from regrapht_core.cxx.parse import parse_source


def _params(signature: str) -> tuple[Parameter, ...]:
    root = parse_source(signature + " {}", SourceLanguage.CPP).root_node
    found = parameters(root.named_children[0])
    assert found is not None
    return found


def test_kinds_elements_and_constness() -> None:
    params = _params(
        "void f(int n, const float* x, float y[], const std::vector<double>& v, "
        "std::vector<int>& out, real s)"
    )
    assert [(p.name, p.kind, p.element, p.const) for p in params] == [
        ("n", ParamKind.SCALAR, "int", False),
        ("x", ParamKind.POINTER, "float", True),
        ("y", ParamKind.POINTER, "float", False),
        ("v", ParamKind.VECTOR, "double", True),
        ("out", ParamKind.VECTOR, "int", False),
        ("s", ParamKind.SCALAR, "real", False),
    ]
    assert params[1].declaration == "const float* x"
    assert [p.pointer for p in params] == [False, True, True, False, False, False]


def test_what_no_task_can_pass_has_no_kind() -> None:
    params = _params(
        "void f(float** p, std::span<float>* s, std::vector<int>* pv, float*& pr, int)"
    )
    assert [p.kind for p in params] == [None, None, None, ParamKind.POINTER, ParamKind.SCALAR]
    assert params[0].pointers == 2 and params[1].container == "span"
    assert not params[3].pointer, "a reference to a pointer is not a plain pointer"
    assert params[4].name == ""


def test_containers_and_scalar_references() -> None:
    params = _params(
        "void f(const std::array<float, 9>& k, std::array<int, N> a, "
        "std::vector<std::complex<double>> v, float& r, const int& c)"
    )
    assert [(p.kind, p.container, p.element, p.extent) for p in params[:3]] == [
        (ParamKind.ARRAY, "array", "float", "9"),
        (ParamKind.ARRAY, "array", "int", "N"),
        (ParamKind.VECTOR, "vector", "std::complex<double>", ""),
    ]
    assert [(p.kind, p.writable_reference) for p in params[3:]] == [
        (ParamKind.SCALAR, True),
        (ParamKind.SCALAR, False),
    ]


def test_a_span_promises_what_its_element_type_says() -> None:
    params = _params(
        "void f(std::span<const float> x, const std::span<double>& y, std::span<int const> z, "
        "std::span<float, 4> w)"
    )
    assert [(p.kind, p.element, p.const, p.view_const, p.extent) for p in params] == [
        (ParamKind.SPAN, "float", True, False, ""),
        (ParamKind.SPAN, "double", False, True, ""),
        (ParamKind.SPAN, "int", True, False, ""),
        (ParamKind.SPAN, "float", False, False, "4"),
    ]


def test_variadic() -> None:
    root = parse_source("int f(int n, ...) { return n; }", SourceLanguage.CPP).root_node
    assert variadic(root.named_children[0])
    assert [p.name for p in parameters(root.named_children[0]) or ()] == ["n"]
