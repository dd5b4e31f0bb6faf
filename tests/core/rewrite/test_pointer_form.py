"""Ordinary C++ entries (containers, references, several loops) reach the loop rewriters.

Each case is extracted as a user's file would be, split into its pointer form, and given a
first step by the rewriter proposer; the candidate keeps the user's signature. The slow
test compiles every candidate with the real nvcc.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.rewrite.pointer_form import pointer_form
from tests.core.rewrite.support import all_pass, first_step, requires_nvcc, unvalidated_task

SCALE = """#include <vector>
#include <cstddef>
void scale(const std::vector<float>& x, std::vector<float>& y) {
    for (size_t i = 0; i < x.size(); ++i) y[i] = 2.0f * x[i];
}
"""

RETURNS_VECTOR = """#include <vector>
#include <cmath>
std::vector<float> sigmoid(const std::vector<float>& x) {
    std::vector<float> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = 1.0f / (1.0f + std::exp(-x[i]));
    return y;
}
"""

RESIZES = """#include <vector>
void twice(const std::vector<double>& x, std::vector<double>& y) {
    y.resize(x.size());
    for (size_t i = 0; i < y.size(); ++i) y[i] = x.at(i) * 2.0;
}
"""

SUM_INTO = """#include <vector>
void sum_into(const std::vector<float>& x, float& total) {
    total = 0.0f;
    for (size_t i = 0; i < x.size(); ++i) total += x[i];
}
"""

MASKED = """#include <vector>
void masked(const std::vector<float>& x, const std::vector<bool>& keep, std::vector<float>& y) {
    for (size_t i = 0; i < x.size(); ++i) y[i] = keep[i] ? x[i] : 0.0f;
}
"""

RANGE_FOR = """#include <vector>
// regrapht: n = 1<<20; v[n] inout
void clampAll(std::vector<float>& v, float hi) {
    for (auto& e : v) e = e > hi ? hi : e;
}
"""

WEIGHTS = """#include <array>
void weigh(const float* x, float* y, int n, const std::array<float, 3>& w) {
    for (int i = 0; i < n; ++i) y[i] = w[0] * x[i] + w[1] * x[i] * x[i] + w[2];
}
"""

NORMALIZE = """#include <vector>
#include <cmath>
// regrapht: n = 1<<20; x[n] inout
void l2_normalize(std::vector<float>& x) {
    float sum = 0.0f;
    for (size_t i = 0; i < x.size(); ++i) sum += x[i] * x[i];
    const float inv = 1.0f / std::sqrt(sum + 1e-12f);
    for (size_t i = 0; i < x.size(); ++i) x[i] *= inv;
}
"""

PUSH_BACK = """#include <vector>
// regrapht: x[n] in; out[n] inout
void positives(const std::vector<float>& x, std::vector<float>& out) {
    out.resize(x.size());
    for (size_t i = 0; i < x.size(); ++i) { out[i] = x[i]; out.push_back(x[i]); }
}
"""

COMPLEX_GAIN = """#include <complex>
#include <vector>
void apply_gain(std::vector<std::complex<double>>& x, std::complex<double> gain) {
    for (size_t i = 0; i < x.size(); ++i)
        x[i] = std::conj(x[i]) * gain + std::complex<double>(0.0, 1.0);
}
"""

MAGNITUDE = """#include <complex>
void magnitude(const std::complex<float>* z, float* m, int n) {
    for (int i = 0; i < n; ++i) m[i] = std::abs(z[i]) + std::sqrt(2.0f);
}
"""

MEMBER = """class Damper {
public:
    float drag_ = 0.9f;
    void apply(const float* v, float* out, int n) const {
        for (int i = 0; i < n; ++i) out[i] = v[i] * this->drag_ + drag_;
    }
};
"""

SPAN_AXPY = """#include <span>
#include <cstddef>
void axpy(float a, std::span<const float> x, std::span<float> y) {
    for (std::size_t i = 0; i < x.size(); ++i) y[i] += a * x[i];
}
"""

SPAN_TOTAL = """#include <span>
double total(const std::span<const double>& v) {
    double s = 0.0;
    for (double e : v) s += e;
    return s;
}
"""

SOFTMAX = (Path(__file__).parents[3] / "benchmarks" / "cxx" / "vec_softmax.cpp").read_text()
"""The output is declared after the first loop, sized by nothing that loop computes."""

CLAMP = """#include <vector>
#include <algorithm>
void clamp_all(std::vector<int>& v, int lo, int hi) {
    for (auto& e : v) e = std::clamp(e, lo, hi);
}
"""

GRADES = """#include <vector>
// regrapht: n = 4099; scores[n] in ~ int(-20, 120); counts[10] inout
void grade_counts(const std::vector<int>& scores, std::vector<int>& counts) {
    for (int s : scores) {
        int b = s / 10;
        if (b > 9) b = 9;
        if (b < 0) b = 0;
        counts[b]++;
    }
}
"""

CASES = {
    "scale": SCALE,
    "grade_counts": GRADES,
    "sigmoid": RETURNS_VECTOR,
    "twice": RESIZES,
    "sum_into": SUM_INTO,
    "masked": MASKED,
    "clampAll": RANGE_FOR,
    "weigh": WEIGHTS,
    "l2_normalize": NORMALIZE,
    "apply_gain": COMPLEX_GAIN,
    "magnitude": MAGNITUDE,
    "apply": MEMBER,
    "axpy": SPAN_AXPY,
    "total": SPAN_TOTAL,
    "softmax": SOFTMAX,
    "clamp_all": CLAMP,
}


def _first_step(task: Task) -> str:
    code, message = first_step(task)
    assert code is not None, message
    return code


@pytest.mark.parametrize("function", sorted(CASES))
def test_candidate_keeps_the_signature_and_moves_the_loop(function: str) -> None:
    task = unvalidated_task(CASES[function], function)
    code = _first_step(task)
    assert task.signature.split("{")[0].strip() in code
    assert "__global__" in code and "<<<" in code


def test_the_split_passes_data_and_sizes_and_keeps_setup_on_the_host() -> None:
    task = unvalidated_task(RESIZES, "twice")
    split = pointer_form(task.source, task)
    assert split is not None
    assert "y.resize(x.size());" in split.code
    assert "twice_impl(x.data(), x.size(), y.data(), y.size());" in split.code
    assert "x[i] * 2.0" in split.code, "at(i) becomes a subscript"
    assert [a.name for a in split.task.args] == ["x", "x_size", "y", "y_size"]
    assert split.task.arg("y").length == "y_size"


def test_a_scalar_reference_becomes_a_returned_local() -> None:
    task = unvalidated_task(SUM_INTO, "sum_into")
    split = pointer_form(task.source, task)
    assert split is not None
    assert "total = sum_into_impl(x.data(), x.size(), total);" in split.code
    assert "float total = total_in;" in split.code
    assert "atomicAdd" in _first_step(task), "the sum into the reference is a reduction"


def test_a_range_for_is_spelled_by_index() -> None:
    task = unvalidated_task(RANGE_FOR, "clampAll")
    split = pointer_form(task.source, task)
    assert split is not None
    assert "for (size_t k = 0; k < v_size; ++k) (v[k]) = (v[k]) > hi ? hi : (v[k]);" in split.code


def test_a_range_for_element_read_by_a_local_s_initialiser_is_a_use() -> None:
    """``int b = s / 10;`` reads ``s``; it was refused as a redeclaration of ``s``."""
    split = pointer_form(GRADES, unvalidated_task(GRADES, "grade_counts"))
    assert split is not None
    assert "int b = (scores[k]) / 10;" in split.code


def test_a_range_for_whose_body_redeclares_the_element_is_refused() -> None:
    source = GRADES.replace("int b = s / 10;", "int b = s / 10; { int s = 3; b += s; }")
    with pytest.raises(Refusal, match="redeclares `s`"):
        pointer_form(source, unvalidated_task(source, "grade_counts"))


@requires_nvcc
def test_a_histogram_over_a_range_for_computes_the_loop(tmp_path: Path) -> None:
    task = unvalidated_task(GRADES, "grade_counts")
    all_pass(task, [_first_step(task)], tmp_path)


def test_vector_of_bool_travels_as_bytes() -> None:
    split = pointer_form(MASKED, unvalidated_task(MASKED, "masked"))
    assert split is not None
    assert "std::vector<unsigned char> keep_bytes(keep.begin(), keep.end());" in split.code
    assert "reinterpret_cast<const bool*>(keep_bytes.data())" in split.code


def test_several_loops_each_get_a_kernel() -> None:
    code = _first_step(unvalidated_task(NORMALIZE, "l2_normalize"))
    assert code.count("__global__") == 2
    assert "atomicAdd" in code and "inv" in code


def test_growing_a_container_in_the_loop_is_refused_with_the_line() -> None:
    task = unvalidated_task(PUSH_BACK, "positives")
    with pytest.raises(Refusal, match=r"`out\.push_back\(x\[i\]\)` changes"):
        pointer_form(task.source, task)


def test_complex_code_gets_the_libcu_spelling_and_the_caller_keeps_std_complex() -> None:
    split = pointer_form(COMPLEX_GAIN, unvalidated_task(COMPLEX_GAIN, "apply_gain"))
    assert split is not None
    assert split.code.startswith("#include <cuda/std/complex>")
    assert "cuda::std::conj(x[i]) * gain + cuda::std::complex<double>(0.0, 1.0)" in split.code
    assert "void apply_gain(std::vector<std::complex<double>>& x, std::complex<double> gain)" in (
        split.code
    )
    assert "reinterpret_cast<cuda::std::complex<double>*>(x.data())" in split.code
    assert "cuda::std::complex<double>((gain).real(), (gain).imag())" in split.code
    code = _first_step(unvalidated_task(MAGNITUDE, "magnitude"))
    assert "cuda::std::abs(z[i])" in code


def test_a_member_function_passes_the_members_it_reads() -> None:
    split = pointer_form(MEMBER, unvalidated_task(MEMBER, "apply"))
    assert split is not None
    assert split.code.index("static void apply_impl(") < split.code.index("class Damper")
    assert "out[i] = v[i] * drag_ + drag_;" in split.code, "this->drag_ is the parameter"
    assert "      apply_impl(v, out, n, drag_);\n    }" in split.code
    written = MEMBER.replace("out[i] = v[i]", "drag_ = 1; out[i] = v[i]")
    with pytest.raises(Refusal, match="changes the data member `drag_`"):
        pointer_form(written, unvalidated_task(MEMBER, "apply"))


def test_a_span_passes_its_data_and_size_and_the_wrapper_keeps_the_view() -> None:
    split = pointer_form(SPAN_AXPY, unvalidated_task(SPAN_AXPY, "axpy"))
    assert split is not None
    assert "static void axpy_impl(float a, const float* x, size_t x_size, float* y, " in split.code
    assert "void axpy(float a, std::span<const float> x, std::span<float> y) {" in split.code
    assert "axpy_impl(a, x.data(), x.size(), y.data(), y.size());" in split.code
    assert split.task.standard == "c++20"


def test_a_container_declared_after_the_work_starts_is_made_first_on_the_host() -> None:
    split = pointer_form(SOFTMAX, unvalidated_task(SOFTMAX, "softmax"))
    assert split is not None
    impl, wrapper = split.code.split("std::vector<float> softmax(")
    assert "std::vector<float> out" not in impl, "the implementation gets a pointer"
    assert "float mx = x[0];" in impl
    assert "  std::vector<float> out(x.size());\n  softmax_impl(" in wrapper


@pytest.mark.parametrize(
    "sized",
    [
        "int m = 0; for (size_t i = 0; i < x.size(); ++i) m += x[i] > 0;"
        " std::vector<float> out(m);",
        "for (size_t i = 0; i < x.size(); ++i) y[i] = x[i]; std::vector<float> out(y.size());"
        " y.resize(3);",
        "y.resize(2 * x.size()); std::vector<float> out(y.size());",
    ],
    ids=["by-a-count", "used-before", "after-a-resize"],
)
def test_a_container_sized_by_earlier_work_is_refused(sized: str) -> None:
    code = (
        "#include <vector>\nvoid f(const std::vector<float>& x, std::vector<float>& y) {\n"
        f"  y[0] = 1; {sized}\n  for (size_t i = 0; i < out.size(); ++i) y[i] = out[i];\n}}\n"
    )
    with pytest.raises(Refusal, match=r"declared or sized after the work starts"):
        pointer_form(code, unvalidated_task(SCALE.replace("scale", "f"), "f"))


def test_std_clamp_is_spelled_as_its_definition_on_the_device() -> None:
    kernel = _first_step(unvalidated_task(CLAMP, "clamp_all")).split("static void")[0]
    assert "(v[k]) = (((v[k])) < (lo) ? (lo) : (hi) < ((v[k])) ? (hi) : ((v[k])));" in kernel
    effects = CLAMP.replace("std::clamp(e, lo, hi)", "std::clamp(e, lo + std::abs(e), hi)")
    code, message = first_step(unvalidated_task(effects, "clamp_all"))
    assert code is None and "calls `std::clamp`" in message, "a call may not run twice"


def test_plain_pointer_entries_are_left_alone() -> None:
    source = "void f(const float* x, float* y, int n) { for (int i = 0; i < n; ++i) y[i] = x[i]; }"
    assert pointer_form(source, unvalidated_task(source, "f")) is None


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_every_candidate_compiles_with_nvcc(tmp_path: Path) -> None:
    for function, source in CASES.items():
        path = tmp_path / f"{function}.cu"
        task = unvalidated_task(source, function)
        path.write_text(_first_step(task), encoding="utf-8")
        obj = tmp_path / f"{function}.o"
        done = subprocess.run(
            ["nvcc", f"-std={task.standard}", "-c", "-o", str(obj), str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, f"{function}: {done.stderr}"
