"""Extraction and inference on real-looking files, checked through the annotation each
task renders to: it states every role, length, size and non-default distribution."""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import pytest

from regrapht_core.contracts.task import (
    LaunchSpec,
    LoopSelection,
    ParamKind,
    Role,
    SourceLanguage,
    TaskMode,
    TimingMode,
    Tolerance,
)
from regrapht_core.cxx.parse import parse_source, walk
from regrapht_core.errors import ReferenceCompileError, TaskError
from regrapht_core.tasks import extract as extract_module
from regrapht_core.tasks.extract import extract_task, suggested_annotation
from regrapht_core.tasks.validate import HOST_COMPILER
from tests.core.rewrite.support import first_step_computes, requires_nvcc
from tests.scripts import load_script

from .conftest import extract, source_path

P = "// regrapht: "


@pytest.mark.parametrize(
    ("file", "function", "annotation"),
    [
        ("saxpy.c", "saxpy", "n = 1<<20; a = 0.5; x[n] in; y[n] inout"),
        ("matvec.cpp", "matvec", "m = 1<<10; n = 1<<10; A[m*n] in; x[n] in; y[m] out"),
        ("stencil.c", "blur3", "n = 1<<20; in[n] in; out[n] inout"),
        ("stencil.c", "jacobi2d", "h = 1<<10; w = 1<<10; src[h*w] in; dst[h*w] inout"),
        ("histogram.cpp", "histogram", "n = 1<<22; pixels[n] in; bins[256] out"),
        ("reduction.c", "sum_squares", "n = 1<<20; x[n] in"),
        ("vectors.cpp", "scale_shift", "n = 1<<20; in[n] in; out[n] out; scale = 2.5"),
        ("vectors.cpp", "keep_positive", "n = 1<<20; values[n] in; kept[n] out"),
        ("vectors.cpp", "sigmoid_resized", "n = 1<<20; x[n] in; y[n] out"),
        ("kernels.cu", "fused_kernel", "n = 1<<20; a[n] in; b[n] in; c[n] out"),
        ("kernels.cu", "fused_host", "n = 1<<20; a[n] in; b[n] in; c[n] out"),
        (
            "kernels.cu",
            "transpose_kernel",
            "cols = 1<<10; rows = 1<<10; in[cols*rows] in; out[cols*rows] out",
        ),
        ("kernels.cu", "scale_cpu", "n = 1<<20; s = 0.5; v[n] inout"),
        (
            "helpers.cpp",
            "apply_smoothstep",
            "n = 1<<20; in[n] in; out[n] out; lo = -0.75; hi = 3.25",
        ),
    ],
)
def test_inferred_spec(file: str, function: str, annotation: str) -> None:
    assert suggested_annotation(extract(file, function)) == P + annotation


def test_annotated_structures() -> None:
    spmv = extract("spmv_csr.c", "spmv_csr")
    assert spmv.timing_size == {"m": 65536, "n": 65536, "nnz": 1 << 20}
    assert spmv.arg("col_idx").dist.param("of") == "row_ptr"
    assert spmv.arg("vals").dist.kind == "normal"
    assert all(b["nnz"] == 16 * b["m"] <= b["m"] * b["n"] for b in spmv.correctness_sizes)
    graph = extract("pagerank.c", "pagerank_step")
    assert graph.arg("offsets").length == "n+1" and graph.arg("offsets").ctype == "long"
    assert graph.arg("out_degree").dist.lo == 1 and graph.arg("next").length == "n"


def test_correctness_sizes_avoid_powers_of_two_and_end_at_timing(saxpy: object) -> None:
    task = extract("saxpy.c", "saxpy")
    assert [b["n"] for b in task.correctness_sizes] == [1, 7, 31, 257, 1000, 4099, 1 << 20]
    assert task.correctness_sizes[-1] == task.timing_size
    matvec = extract("matvec.cpp", "matvec")
    assert all(b["m"] != b["n"] for b in matvec.correctness_sizes[:-1])
    assert {b["m"] for b in matvec.correctness_sizes} >= {1, 7, 31, 257}


def test_modes_languages_and_tolerances() -> None:
    kernel = extract("kernels.cu", "fused_kernel")
    assert kernel.mode is TaskMode.KERNEL_TO_KERNEL and kernel.timing_mode is TimingMode.KERNEL_ONLY
    assert kernel.launch == LaunchSpec("fused_kernel", ("(n + 255)/256",), ("256",))
    transpose = extract("kernels.cu", "transpose_kernel")
    assert transpose.launch is not None
    assert transpose.launch.grid == ("(cols + 15)/16", "(rows + 15)/16")
    assert extract("kernels.cu", "fused_host").language is SourceLanguage.CUDA
    cpu = extract("kernels.cu", "scale_cpu")
    assert cpu.language is SourceLanguage.CPP and "cuda_runtime" not in cpu.source
    assert extract("reduction.c", "sum_squares").returns == "float"
    assert extract("reduction.c", "sum_squares").tolerance == Tolerance(1e-3, 1e-3, 3 * 2.0**-24)
    assert extract("saxpy.c", "saxpy").tolerance == Tolerance()
    assert extract("histogram.cpp", "histogram").arg("bins").ctype == "int"


def test_reference_holds_exactly_what_the_entry_needs() -> None:
    source = extract("helpers.cpp", "apply_smoothstep").source
    for needed in ("#include <cmath>", "#define CLAMP", "typedef float real;", "struct Range {"):
        assert needed in source
    assert "};" in source.split("struct Range {")[1]
    for name in ("static inline real normalize", "smoothstep(real t)", "void apply_smoothstep"):
        assert name in source
    for unwanted in ("unused_helper", "UNUSED_LIMIT", "int main", "printf("):
        assert unwanted not in source
    host = extract("kernels.cu", "fused_host").source
    assert "#define BLOCK 256" in host and "__global__ void fused_kernel" in host
    assert "__device__ __forceinline__ float fused" in host and "transpose_kernel" not in host


def test_ambiguous_function_shows_the_annotation_to_write() -> None:
    path = source_path("gather.c")
    text = path.read_text()
    with pytest.raises(TaskError) as caught:
        extract_task(text, SourceLanguage.CPP, function="gather", origin="gather.c")
    message = str(caught.value)
    assert message.startswith("gather.c:4 (gather): cannot infer the length of 'src'")
    assert "src[idx[i]]" in message
    comment = re.search(r"// regrapht: .*", message)
    assert comment is not None
    assert comment.group(0) == P + "n = 1<<20; idx[n] in; src[?] in; dst[n] out"
    fixed = text.replace("void gather", comment.group(0).replace("?", "n") + "\nvoid gather")
    task = extract_task(fixed, SourceLanguage.CPP, function="gather", origin="gather.c")
    assert task.arg("src").length == "n"


def test_syntax_error_is_reported_with_its_position() -> None:
    with pytest.raises(TaskError, match=r"broken\.cpp: line 3, column 5: .*inside 'scale'"):
        extract("broken.cpp", "scale")
    with pytest.raises(TaskError, match=r"no definition of a function named 'nope'"):
        extract("saxpy.c", "nope")


def test_select_by_a_line_inside_a_loop() -> None:
    """The line's function is the task; the top-level loop around the line (however deep
    in it) is the one selected to optimize."""
    path = source_path("stencil.c")
    line = next(i for i, ln in enumerate(path.read_text().splitlines()) if "dst[i * w" in ln)
    task = extract_task(path.read_text(), SourceLanguage.CPP, line=line, origin="stencil.c")
    assert task.entry == "jacobi2d"
    assert task.loop == LoopSelection(0, 1, "for (int i = 1; i < h - 1; ++i)")
    assert extract("stencil.c", "jacobi2d").loop is None, "named: the whole function"


def test_a_line_in_a_kernel_selects_the_kernel() -> None:
    text = source_path("kernels.cu").read_text()
    line = next(i for i, ln in enumerate(text.splitlines()) if "c[i] = fused(" in ln)
    task = extract_task(text, SourceLanguage.CUDA, line=line, validate=False)
    assert (task.entry, task.mode, task.loop) == ("fused_kernel", TaskMode.KERNEL_TO_KERNEL, None)


def test_unsupported_parameters_are_named() -> None:
    source = "void f(int n, float** rows) { for (int i = 0; i < n; ++i) rows[i][0] = 0; }"
    with pytest.raises(TaskError, match=r"parameter 'rows' .*pointers to pointers"):
        extract_task(source, SourceLanguage.CPP, function="f")
    source = "#include <span>\nfloat g(std::span<const float, 4> x) { return x[0]; }"
    with pytest.raises(TaskError, match=r"parameter 'x' .*fixed-size std::span<T, N>"):
        extract_task(source, SourceLanguage.CPP, function="g")
    source = "#include <vector>\nvoid h(std::vector<float>* v) { (*v)[0] = 1; }"
    with pytest.raises(TaskError, match=r"parameter 'v' .*pointers to containers"):
        extract_task(source, SourceLanguage.CPP, function="h")
    source = "void k(float*& p) { p[0] = 1; }"
    with pytest.raises(TaskError, match=r"parameter 'p' .*reference to a pointer"):
        extract_task(source, SourceLanguage.CPP, function="k")


def test_a_scalar_reference_is_an_output() -> None:
    """``T&`` is written by the function: compared after the call like an output."""
    source = "void g(int n, int& count) { count = n; }"
    task = extract_task(source, SourceLanguage.CPP, function="g", validate=False)
    count = task.arg("count")
    assert count.kind is ParamKind.SCALAR and count.role is Role.OUT and count.value == "3"


def test_helper_calls_are_followed_with_parameters_substituted() -> None:
    source = """
static void row_scale(float* row, const float* src, int len, float s) {
    for (int j = 0; j < len; ++j) row[j] = s * src[j];
}
void scale_rows(int rows, int cols, const float* in, float* out) {
    for (int i = 0; i < rows; ++i) row_scale(out + i * cols, in + i * cols, cols, 2.0f);
}
"""
    task = extract_task(source, SourceLanguage.CPP, function="scale_rows")
    assert suggested_annotation(task) == (
        P + "rows = 1<<10; cols = 1<<10; in[cols*rows] in; out[cols*rows] out"
    )
    assert "static void row_scale" in task.source


needs_gxx = pytest.mark.skipif(shutil.which(HOST_COMPILER) is None, reason="needs g++")


@needs_gxx
def test_an_inferred_spec_is_validated_under_asan() -> None:
    with pytest.raises(TaskError) as caught:
        extract("wrong_length.c", "axpy_wrong", validate=None)
    message = str(caught.value)
    assert "(axpy_wrong): the inferred spec of 'axpy_wrong' fails" in message
    assert "outside argument 'y'" in message
    assert message.endswith("// regrapht: n = 1<<16; a = 0.5; x[n] in; y[?] inout")


def test_validation_can_be_skipped_and_is_not_run_on_an_annotated_spec(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ran: list[str] = []
    monkeypatch.setattr(extract_module, "validate_task", lambda task, **_: ran.append(task.name))
    assert extract("wrong_length.c", "axpy_wrong", validate=False).name == "axpy_wrong"
    annotated = (
        source_path("wrong_length.c").read_text().replace("y[n-1] inout", "x[n] in; y[n] inout")
    )
    extract_task(annotated, SourceLanguage.CPP, function="axpy_wrong", validate=None)
    assert ran == []
    extract_task(annotated, SourceLanguage.CPP, function="axpy_wrong", validate=True)
    assert ran == ["axpy_wrong"]


@needs_gxx
def test_a_failure_other_than_a_length_suggests_the_inferred_annotation() -> None:
    source = "int total(const int *x, int n) {\n  int s = 0;\n  for (int i = 0; i < n; ++i)\n"
    source += "    s += x[i] / (x[i] - x[i]);\n  return s;\n}\n"
    with pytest.raises(TaskError, match=r"(?s)undefined behaviour.*annotate it directly above"):
        extract_task(source, SourceLanguage.CPP, function="total", validate=True)


EVERYDAY = Path(__file__).parents[3] / "benchmarks" / "cxx" / "everyday"
GEMM = (EVERYDAY / "b10.cpp").read_text()
"""A plain gemm over vectors, as written in the everyday probe."""


@needs_gxx
def test_loops_nested_deeper_than_the_sizes_get_a_size_the_reference_finishes() -> None:
    """A triple loop over one n: n = 2^20 would be 2^60 iterations (the validation's run
    timed out, so a plain gemm needed an annotation); about 2^24 instead."""
    task = extract_task(GEMM, SourceLanguage.CPP, function="gemm", validate=True)
    assert task.timing_size == {"n": 256}
    assert all(binding["n"] <= 256 for binding in task.correctness_sizes)
    pairs = GEMM.replace(
        "for (int k = 0; k < n; ++k) s += A[i * n + k] * B[k * n + j];", "s = A[i] * B[j];"
    )
    assert extract_task(pairs, SourceLanguage.CPP, function="gemm").timing_size == {"n": 4096}


ARGMAX_ROWS = (EVERYDAY / "b07.cpp").read_text()


@needs_gxx
def test_an_index_kept_in_a_local_is_bounded_by_what_is_assigned_to_it() -> None:
    """``b = c`` in a loop over ``c``: ``m[r * cols + b]`` stays within the row, so the
    matrix's length is inferred (it was 'the index has no bound')."""
    task = extract_task(ARGMAX_ROWS, SourceLanguage.CPP, function="argmax_rows", validate=True)
    assert task.arg("m").length == "cols*rows"
    grown = ARGMAX_ROWS.replace("b = c;", "b += c;")
    with pytest.raises(TaskError, match=r"the index in 'm\[r \* cols \+ b\]' has no bound"):
        extract_task(grown, SourceLanguage.CPP, function="argmax_rows")


@needs_gxx
def test_code_that_does_not_compile_says_so_and_what_to_include() -> None:
    """``memcpy`` with only ``<vector>``: g++ refuses the file itself, so no annotation can
    help; the error quotes g++ (without a temp path) and names the header."""
    source = (
        "#include <vector>\n"
        "void copy(float* a, const float* b, int n) {\n"
        "    for (int i = 0; i < n; ++i) a[i] += b[i];\n"
        "    memcpy(a, b, n * sizeof(float));\n"
        "}\n"
    )
    with pytest.raises(ReferenceCompileError) as caught:
        extract_task(source, SourceLanguage.CPP, function="copy", origin="copy.cpp")
    message = str(caught.value)
    assert message.startswith("copy.cpp:2 (copy): ") and "/tmp" not in message
    assert re.search(r"error: .memcpy. was not declared", message)  # quotes per locale
    assert "add #include <cstring> for memcpy" in message
    assert "annotate" not in message


@pytest.mark.parametrize(
    "update", ["s += x[i];", "s = s + x[i];", "s = x[i] + s;", "s = (s - x[i]);"]
)
def test_a_float_sum_spelled_any_way_gets_the_sums_tolerance(update: str) -> None:
    source = (
        "float total(const float* x, int n) {\n"
        f"    float s = 0.0f;\n    for (int i = 0; i < n; ++i) {update}\n    return s;\n}}\n"
    )
    task = extract_task(source, SourceLanguage.CPP, function="total", validate=False)
    assert task.tolerance == Tolerance(1e-3, 1e-3, 3 * 2.0**-24)


FILTER = """#include <vector>
std::vector<float> positives(const std::vector<float>& x) {
    std::vector<float> out;
    for (float v : x)
        if (v > 0.0f) out.push_back(v);
    return out;
}
"""

COUNTED_FILTER = """#include <vector>
#include <cstddef>
// regrapht: n = 100000; x[n] in; out[n] out
std::size_t positives(const std::vector<float>& x, std::vector<float>& out) {
    std::size_t at = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (x[i] > 0.0f) out[at++] = x[i];
    return at;
}
"""


def test_a_filter_into_the_returned_vector_is_refused_with_the_form_that_runs() -> None:
    """Its length depends on the data; the message had asked for an annotation of it."""
    with pytest.raises(
        TaskError, match=r"grows by `out\.push_back\(v\)` under a condition \(line 5\)"
    ):
        extract_task(FILTER, "cpp", function="positives", validate=False)


@requires_nvcc
def test_the_form_the_filter_message_suggests_becomes_a_gpu_compaction(tmp_path: Path) -> None:
    task = extract_task(COUNTED_FILTER, "cpp", function="positives", validate=False)
    assert "cub::DeviceScan::ExclusiveSum" in first_step_computes(task, tmp_path)


CONV_PTR = (
    "void conv(const float* x, const float* w, float* y, int n, int k) {\n"
    "    for (int i = 0; i + k <= n; ++i) {\n"
    "        float a = 0;\n"
    "        for (int j = 0; j < k; ++j) a += x[i + j] * w[j];\n"
    "        y[i] = a;\n"
    "    }\n"
    "}\n"
)


@pytest.mark.parametrize(
    ("note", "condition", "timing"),
    [
        ("", "i + k <= n", {"k": 31, "n": 1 << 20}),
        ("", "n >= k + i", {"k": 31, "n": 1 << 20}),
        ("// regrapht: k = 5\n", "i + k <= n", {"k": 5, "n": 1 << 20}),
    ],
)
def test_a_window_size_is_timed_as_a_filters_taps(
    note: str, condition: str, timing: dict[str, int]
) -> None:
    """``y[n - k + 1]``: timed with ``k`` as large as ``n`` the output would be one element,
    and the two nested loops would be counted as n-squared work; ``k`` is a window."""
    source = note + CONV_PTR.replace("i + k <= n", condition)
    task = extract_task(source, SourceLanguage.CPP, function="conv", validate=False)
    assert task.arg("y").length == "-k + n + 1"
    assert dict(task.timing_size) == timing


def test_damaged_sources_give_a_task_or_a_task_error() -> None:
    """What an editor holds while the user types, annotations included: extraction gives a
    task or a ``TaskError`` saying what is wrong, never another exception, which would reach
    the user as a traceback (a ``csr`` annotation naming ``col0=`` ended in ``KeyError``)."""
    mutate = load_script("fuzz_rewrites").mutate
    rng = random.Random(20261201)
    corpus = Path(__file__).resolve().parents[3] / "benchmarks" / "corpus"
    extracted = 0
    for path in rng.sample(sorted(corpus.glob("*/*.cpp")), 60):
        source = mutate(path.read_text(encoding="utf-8"), rng)
        root = parse_source(source, SourceLanguage.CPP).root_node
        function = next((n for n in walk(root) if n.type == "function_definition"), None)
        if function is None:
            continue
        try:
            extract_task(source, SourceLanguage.CPP, line=function.start_point.row, validate=False)
        except TaskError:
            continue
        extracted += 1
    assert extracted > 0, "most damage leaves a function that still extracts"


AT = """#include <vector>
#include <cstddef>
void triple_at(const std::vector<float>& x, std::vector<float>& y) {
    for (std::size_t i = 0; i < x.size(); ++i) y.at(i) = x.at(i) * 3;
}
"""


@requires_nvcc
def test_an_element_written_through_at_is_an_output(tmp_path: Path) -> None:
    """``y.at(i) = v`` writes ``y[i]``: read as an input, ``y`` failed every candidate as
    "input modified" (and a candidate that wrote nothing would have passed)."""
    task = extract_task(AT, SourceLanguage.CPP, function="triple_at", validate=False)
    assert {arg.name: arg.role for arg in task.args} == {"x": Role.IN, "y": Role.OUT}
    first_step_computes(task, tmp_path)


def test_elements_exchanged_by_std_swap_are_read_and_written() -> None:
    """``std::swap(m[a], m[b])`` writes both: read as reads, an in-place transpose had no
    output to compare (now refused: a candidate that did nothing would pass)."""
    source = (
        "#include <utility>\n"
        "void transpose(int n, float* m) {\n"
        "  for (int r = 0; r < n; ++r)\n"
        "    for (int c = r + 1; c < n; ++c) std::swap(m[r * n + c], m[c * n + r]);\n"
        "}\n"
    )
    task = extract_task(source, SourceLanguage.CPP, function="transpose", validate=False)
    assert {arg.name: arg.role for arg in task.args} == {"n": Role.IN, "m": Role.INOUT}


DETACHED = """// regrapht: n = 70; m[n*n] inout
#include <utility>
void f(int n, float* m) {
  for (int i = 0; i < n; ++i) m[i] = 2 * m[i];
}
"""


def test_an_annotation_not_directly_above_the_function_is_an_error() -> None:
    """Above an ``#include`` it applied to nothing: the spec written was silently replaced
    by an inferred one (the swap-transpose tests' annotation had been, for months)."""
    with pytest.raises(TaskError, match=r"the annotation on line 1 is not directly above"):
        extract_task(DETACHED, SourceLanguage.CPP, function="f", validate=False)


@pytest.mark.parametrize(
    "between",
    ["void g(float* x, int n);\n", "void g(float* x, int n) { x[0] = n; }\n"],
    ids=["prototype", "definition"],
)
def test_an_annotation_above_another_function_is_that_functions(between: str) -> None:
    source = DETACHED.replace("#include <utility>\n", between)
    task = extract_task(source, SourceLanguage.CPP, function="f", validate=False)
    assert task.timing_size == {"n": 1 << 20}
