"""An entry that only calls a function of its file gets CUDA for that function's loop.

The callee (a template instantiated for the call, or a plain function) is copied as a
concrete ``static`` function before the entry, the entry's call points at the copy, and the
rewriters map the copy's loop; the entry keeps its signature. What the copy cannot stand
for is refused with the construct quoted. The slow tests compile the candidates and run
them on the CPU emulator against the sequential reference.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from regrapht_core.contracts.task import Role, Task
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.rewrite.delegation import delegated
from tests.core.rewrite.support import (
    compile_cuda,
    first_step,
    requires_nvcc,
    run_on_cpu,
    unvalidated_task,
)

EXPLICIT = """template <typename T>
void axpy(T a, const T* x, T* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
template void axpy<float>(float, const float*, float*, int);
void saxpy(float a, const float* x, float* y, int n) { axpy<float>(a, x, y, n); }
"""

DEDUCED_VECTORS = """#include <vector>
template <typename T>
void lerp(const std::vector<T>& a, const std::vector<T>& b, T t, std::vector<T>& out) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = a[i] + t * (b[i] - a[i]);
}
void lerpDouble(const std::vector<double>& a, const std::vector<double>& b, double t,
                std::vector<double>& out) {
    lerp(a, b, t, out);
}
"""

RETURNED_SUM = """template <typename T>
T sum(const T* values, int count) {
    T s = T(0);
    for (int i = 0; i < count; ++i) s += values[i];
    return s;
}
float total(const float* x, int n) { return sum(x, n); }
"""

CHAIN = """template <typename T>
void scale(T* y, const T* x, T k, int n) {
    for (int i = 0; i < n; ++i) y[i] = k * x[i];
}
static void middle(float* out, const float* in, float k, int n) { scale<float>(out, in, k, n); }
void run(float* y, const float* x, float k, int n) { middle(y, x, k, n); }
"""

CASES = {
    "saxpy": EXPLICIT,
    "lerpDouble": DEDUCED_VECTORS,
    "total": RETURNED_SUM,
    "run": CHAIN,
}


def _candidate(function: str) -> str:
    task = unvalidated_task(CASES[function], function)
    code, message = first_step(task)
    assert code is not None, message
    signature = " ".join(task.signature.split("{")[0].split())
    assert signature in " ".join(code.split()), "the entry keeps its signature"
    return code


def test_an_explicit_instantiation_becomes_a_concrete_copy_the_entry_calls() -> None:
    code, task = delegated(EXPLICIT, unvalidated_task(EXPLICIT, "saxpy"))
    assert "static void axpy_for_saxpy(float a, const float* x, float* y, int n) {" in code
    assert "{ axpy_for_saxpy(a, x, y, n); }" in code
    assert code.index("axpy_for_saxpy(float a") < code.index("void saxpy(")
    assert task.entry == "axpy_for_saxpy"
    assert task.signature == "static void axpy_for_saxpy(float a, const float* x, float* y, int n)"
    assert [(a.name, a.role) for a in task.args] == [
        ("a", Role.IN),
        ("x", Role.IN),
        ("y", Role.INOUT),
        ("n", Role.IN),
    ]


def test_deduced_types_are_substituted_and_the_copy_takes_the_pointer_form() -> None:
    code = _candidate("lerpDouble")
    assert (
        "static void lerp_for_lerpDouble(const std::vector<double>& a, "
        "const std::vector<double>& b, double t, std::vector<double>& out)"
    ) in code
    assert "lerp_for_lerpDouble_impl(a.data(), a.size(), b.data()" in code
    assert "__global__ void lerp_for_lerpDouble_impl_kernel(" in code


def test_a_template_returning_a_sum_is_reduced() -> None:
    code = _candidate("total")
    assert "float s = float(0);" in code, "T(0) is spelled with the deduced type"
    assert "atomicAdd(s_total, s);" in code
    assert "float total(const float* x, int n) { return sum_for_total(x, n); }" in code


DEDUCED = {
    "by-const-reference": (
        """#include <vector>
template <typename T> void scale(std::vector<T>& y, const T& k) {
    for (size_t i = 0; i < y.size(); ++i) y[i] *= k;
}
void run(std::vector<float>& y, float k) { scale(y, k); }
""",
        "static void scale_for_run(std::vector<float>& y, const float& k)",
    ),
    "const-argument": (
        """#include <vector>
template <typename T> float sum(T& v) {
    float s = 0;
    for (size_t i = 0; i < v.size(); ++i) s += v[i];
    return s;
}
// regrapht: n = 1<<10; v[n] in
float run(const std::vector<float>& v) { return sum(v); }
""",
        "static float sum_for_run(const std::vector<float>& v)",
    ),
}


@pytest.mark.parametrize("case", sorted(DEDUCED))
def test_deduction_follows_the_language(case: str) -> None:
    """A by-value argument's ``const`` is dropped; a bare ``T&`` given a const one keeps it."""
    source, header = DEDUCED[case]
    task = unvalidated_task(source, "run")
    code, _ = delegated(task.source, task)
    assert header + " {" in code
    proposed, message = first_step(task)
    assert proposed is not None, message


def test_a_chain_of_calls_is_followed_to_the_loop() -> None:
    code, task = delegated(CHAIN, unvalidated_task(CHAIN, "run"))
    assert task.entry == "scale_for_middle_for_run"
    assert [a.name for a in task.args] == ["y", "x", "k", "n"]
    assert "{ middle_for_run(y, x, k, n); }" in code
    assert "{ scale_for_middle_for_run(out, in, k, n); }" in code


def test_an_entry_that_does_more_than_call_is_left_alone() -> None:
    source = EXPLICIT.replace(
        "{ axpy<float>(a, x, y, n); }", "{ axpy<float>(a, x, y, n); y[0] = 0; }"
    )
    task = unvalidated_task(source, "saxpy")
    assert delegated(source, task) == (source, task)


REFUSED = {
    "overloaded": (
        """void scale(float* y, int n) { for (int i = 0; i < n; ++i) y[i] *= 2; }
void scale(double* y, int n) { for (int i = 0; i < n; ++i) y[i] *= 2; }
void run(float* y, int n) { scale(y, n); }
""",
        "which the file defines 2 times (overloads or specialisations)",
    ),
    "specialisation": (
        """template <typename T> void scale(T* y, int n);
template <> void scale<float>(float* y, int n) { for (int i = 0; i < n; ++i) y[i] *= 2; }
void run(float* y, int n) { scale(y, n); }
""",
        "`scale` is defined only as the specialisation `scale<float>(float* y, int n)`",
    ),
    "recursive": (
        """void halve(float* y, int n) {
    for (int i = 0; i < n; ++i) y[i] *= 0.5f;
    if (n > 1) halve(y, n / 2);
}
// regrapht: n = 1<<10; y[n] inout
void run(float* y, int n) { halve(y, n); }
""",
        "`halve` calls itself (`halve(y, n / 2)`)",
    ),
    "expression": (
        """template <typename T> void scale(T* y, T k, int n) {
    for (int i = 0; i < n; ++i) y[i] *= k;
}
void run(float* y, float k, int n) { scale(y, 2.0f * k, n); }
""",
        "passes `2.0f * k`, not a parameter of the entry",
    ),
    "non-type": (
        """template <int K> void scale(float* y, int n) { for (int i = 0; i < n; ++i) y[i] *= K; }
void run(float* y, int n) { scale<3>(y, n); }
""",
        "the template parameter `int K` is not a plain type",
    ),
    "aliased": (
        """template <typename T> void add(T* y, const T* x, int n) {
    for (int i = 0; i < n; ++i) y[i] += x[i];
}
void run(float* y, int n) { add(y, y, n); }
""",
        "passes `y` twice",
    ),
    "defined-after": (
        """template <typename T> void add(T* y, const T* x, int n);
void run(float* y, const float* x, int n) { add(y, x, n); }
template <typename T> void add(T* y, const T* x, int n) {
    for (int i = 0; i < n; ++i) y[i] += x[i];
}
""",
        "`add` is defined after the entry that calls it",
    ),
    "default": (
        """template <typename T> void add(T* y, const T* x, int n, T k = T(1)) {
    for (int i = 0; i < n; ++i) y[i] += k * x[i];
}
void run(float* y, const float* x, int n) { add(y, x, n); }
""",
        "`add` declares `T k = T(1)`",
    ),
    "not-deducible": (
        """template <typename T> void fill(float* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = T(1) / T(3);
}
void run(float* y, int n) { fill(y, n); }
""",
        "cannot deduce the template parameter `T` from `fill(y, n)`",
    ),
    "conflicting": (
        """template <typename T> void copy(T* y, const T* x, int n) {
    for (int i = 0; i < n; ++i) y[i] = x[i];
}
void run(float* y, const double* x, int n) { copy(y, x, n); }
""",
        "deduces `T` as both `float` and `double`",
    ),
    "sizes-swapped": (
        """void fill(float* y, int m, int n) { for (int i = 0; i < m; ++i) y[i] = n; }
// regrapht: n = 1<<10; m = 8; y[n] inout
void run(float* y, int n, int m) { fill(y, n, m); }
""",
        "receives the size `n` as `m`",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_what_a_copy_cannot_stand_for_is_refused_with_the_construct(case: str) -> None:
    source, reason = REFUSED[case]
    task = unvalidated_task(source, "run")
    with pytest.raises(Refusal) as refused:
        delegated(task.source, task)
    assert reason in refused.value.reason
    code, message = first_step(task)
    assert code is None and reason in message


def test_a_type_spelled_in_two_words_is_refused_where_a_value_is_expected() -> None:
    source = """template <typename T> void fill(T* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = T(7);
}
void run(unsigned int* y, int n) { fill(y, n); }
"""
    with pytest.raises(Refusal, match=r"`T\(7\)` uses `T` as a value"):
        delegated(source, unvalidated_task(source, "run"))


def _small(task: Task) -> Task:
    """The emulator runs a thread per CUDA thread: sizes of a few blocks."""
    return replace(task, correctness_sizes=({"n": 1}, {"n": 7}, {"n": 257}, {"n": 1000}))


@pytest.mark.slow
@requires_nvcc
@pytest.mark.parametrize("function", sorted(CASES))
def test_the_candidates_compile_with_nvcc(function: str, tmp_path: Path) -> None:
    compile_cuda(_candidate(function), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("function", ["saxpy", "total", "run"])
def test_the_candidates_compute_what_the_reference_computes(function: str, tmp_path: Path) -> None:
    task = _small(unvalidated_task(CASES[function], function))
    assert run_on_cpu(task, _candidate(function), tmp_path) == "PASS"
