"""Parallelization and reduction on real sequential code: structure, nvcc, CPU semantics."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from regrapht_core.contracts.task import Role, SourceLanguage, Task
from regrapht_core.cxx.functions import function_definitions, function_name
from regrapht_core.cxx.parse import node_text, walk
from regrapht_core.cxx.syntax import parse
from regrapht_core.rewrite.parallelize import Parallelize
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.rewrite.reduction import ParallelReduction
from regrapht_core.tasks.extract import extract_task
from tests.core.rewrite import cases
from tests.core.rewrite.support import (
    all_pass,
    compile_cuda,
    requires_nvcc,
    run_on_cpu,
    run_on_gpu,
)

MAPS = [
    cases.SAXPY,
    cases.VECTOR_ADD,
    cases.ELEMENTWISE_HELPER,
    cases.MATRIX_ADD,
    cases.MATVEC,
    cases.STENCIL,
]
REDUCTIONS = [cases.SUM, cases.DOT, cases.MAX_REDUCTION, cases.FILTERED_MAX]


def _candidates(task: Task) -> list[str]:
    rewriter = Parallelize() if task in MAPS else ParallelReduction()
    found = rewriter.apply(task.source, RewriteContext(task))
    assert found, rewriter.applies(task.source, RewriteContext(task)).reason
    return [c.code for c in found]


def _definitions(code: str) -> dict[str, str]:
    root = parse(code).root_node
    return {function_name(d) or "": node_text(d) for d in function_definitions(root)}


def _ids(tasks: list[Task]) -> list[str]:
    return [t.name for t in tasks]


@pytest.mark.parametrize("task", MAPS, ids=_ids(MAPS))
def test_map_loops_become_a_guarded_kernel_behind_the_same_signature(task: Task) -> None:
    for code in _candidates(task):
        root = parse(code).root_node
        kernels = [
            d for d in function_definitions(root) if any(c.type == "__global__" for c in d.children)
        ]
        assert len(kernels) == 1
        entry = _definitions(code)[task.entry]
        assert entry.startswith(task.signature)
        launches = [n for n in walk(root) if n.type == "kernel_call_syntax"]
        assert len(launches) == 1
        kernel_text = node_text(kernels[0])
        assert "if (" in kernel_text or "for (" in kernel_text
        for call in ("cudaMalloc", "cudaMemcpy", "cudaFree", "cudaGetLastError"):
            assert call in entry
        assert "cudaDeviceSynchronize" in entry


def test_saxpy_kernel_is_the_idiomatic_one() -> None:
    (code,) = _candidates(cases.SAXPY)
    kernel = _definitions(code)["saxpy_kernel"]
    assert "int i = blockIdx.x * blockDim.x + threadIdx.x;" in kernel
    assert "if (i < n) {" in kernel
    assert "y[i] = a * x[i] + y[i];" in kernel


def test_outputs_that_the_loop_overwrites_are_not_copied_in() -> None:
    (code,) = _candidates(cases.VECTOR_ADD)
    entry = _definitions(code)["vector_add"]
    assert "cudaMemcpy(d_c, c," not in entry
    assert "cudaMemcpy(c, d_c," in entry
    assert "cudaMemcpy(d_a, a," in entry


def test_partially_written_outputs_are_copied_in() -> None:
    (code,) = _candidates(cases.STENCIL)
    entry = _definitions(code)["stencil"]
    assert "cudaMemcpy(d_out, out," in entry


def test_helpers_called_from_the_loop_run_on_both_sides() -> None:
    (code,) = _candidates(cases.ELEMENTWISE_HELPER)
    definitions = _definitions(code)
    assert definitions["gelu_one"].startswith("__host__ __device__ static float gelu_one")
    assert definitions["cube"].startswith("__host__ __device__ static inline float cube")
    assert "max(g, -1.0f)" in definitions["gelu_kernel"]
    assert "std::max" not in definitions["gelu_kernel"]


def test_perfect_nests_get_a_2d_launch_first_and_a_1d_fallback() -> None:
    two_d, one_d = _candidates(cases.MATRIX_ADD)
    assert "blockIdx.y" in two_d and "dim3" in two_d
    assert "blockIdx.y" not in one_d


def test_matvec_keeps_its_inner_reduction_sequential_per_thread() -> None:
    (code,) = _candidates(cases.MATVEC)
    kernel = _definitions(code)["matvec_kernel"]
    assert "for (int j = 0; j < m; ++j) acc += A[i * m + j] * x[j];" in kernel


def test_c_style_loop_variable_is_declared_in_the_kernel() -> None:
    (code,) = _candidates(cases.VECTOR_ADD)
    assert (
        "int i = blockIdx.x * blockDim.x + threadIdx.x;" in _definitions(code)["vector_add_kernel"]
    )


@pytest.mark.parametrize("task", REDUCTIONS, ids=_ids(REDUCTIONS))
def test_reductions_use_warp_shuffles_and_one_atomic_per_block(task: Task) -> None:
    (code,) = _candidates(task)
    root = parse(code).root_node
    calls = {
        node_text(n.child_by_field_name("function") or n)
        for n in walk(root)
        if n.type == "call_expression"
    }
    assert "__shfl_down_sync" in calls and "__syncthreads" in calls
    assert calls & {"atomicAdd", "atomic_max_float", "atomicMax"}
    assert _definitions(code)[task.entry].startswith(task.signature)


def test_parallelization_hands_reductions_over_with_a_reason() -> None:
    verdict = Parallelize().applies(cases.SUM.source, RewriteContext(cases.SUM))
    assert not verdict
    assert "`s`" in verdict.reason and "reduction" in verdict.reason


def test_reduction_refuses_map_loops() -> None:
    verdict = ParallelReduction().applies(cases.SAXPY.source, RewriteContext(cases.SAXPY))
    assert not verdict and "reduces nothing" in verdict.reason


@pytest.mark.parametrize(
    ("task", "reason"),
    [
        (cases.PREFIX_SUM, "loop-carried dependence"),
        (cases.HISTOGRAM, "not affine"),
        (cases.EARLY_BREAK, "break"),
    ],
    ids=["prefix_sum", "histogram", "early_break"],
)
def test_unsafe_loops_are_refused_with_a_reason(task: Task, reason: str) -> None:
    context = RewriteContext(task)
    for rewriter in (Parallelize(), ParallelReduction()):
        verdict = rewriter.applies(task.source, context)
        assert not verdict
        assert rewriter.apply(task.source, context) == []
    assert reason in Parallelize().applies(task.source, context).reason


@requires_nvcc
@pytest.mark.slow
@pytest.mark.parametrize("task", MAPS + REDUCTIONS, ids=_ids(MAPS + REDUCTIONS))
def test_candidates_compile_with_nvcc(task: Task, tmp_path: Path) -> None:
    for number, code in enumerate(_candidates(task)):
        work = tmp_path / str(number)
        work.mkdir()
        compile_cuda(code, work)


@pytest.mark.slow
@pytest.mark.parametrize("task", MAPS + REDUCTIONS, ids=_ids(MAPS + REDUCTIONS))
def test_candidates_compute_what_the_reference_computes(task: Task, tmp_path: Path) -> None:
    all_pass(task, _candidates(task), tmp_path)


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("task", MAPS + REDUCTIONS, ids=_ids(MAPS + REDUCTIONS))
def test_candidates_agree_with_the_reference_on_the_gpu(task: Task, tmp_path: Path) -> None:
    all_pass(task, _candidates(task), tmp_path, run=run_on_gpu)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("task", "original", "mutant"),
    [
        (
            cases.STENCIL,
            "cudaMemcpy(d_out, out, out_bytes, cudaMemcpyHostToDevice);",
            "cudaSuccess;",
        ),
        (cases.SUM, "s += other;", "s = other;"),
        (cases.MAX_REDUCTION, "(blockDim.x + 31u) / 32u", "1"),
    ],
    ids=["dropped-upload", "wrong-combine", "one-warp"],
)
def test_the_cpu_check_catches_broken_candidates(
    task: Task, original: str, mutant: str, tmp_path: Path
) -> None:
    (code,) = _candidates(task)
    assert original in code
    assert run_on_cpu(task, code.replace(original, mutant), tmp_path) != "PASS"


def _two_row_passes(second_bound: str) -> Task:
    source = (
        "void two_pass(int rows, int cols, const float* x, float* y) {\n"
        "  for (int r = 0; r < rows; ++r) {\n"
        "    for (int c = 0; c < cols; ++c) y[r * cols + c] = x[r * cols + c];\n"
        f"    for (int c = 0; c < {second_bound}; ++c) y[r * cols + c] *= 2.0f;\n"
        "  }\n}\n"
    )
    return cases.make_task(
        "two_pass",
        source,
        "void two_pass(int rows, int cols, const float* x, float* y)",
        (
            cases._scalar("rows"),
            cases._scalar("cols"),
            cases._pointer("x", length="rows * cols"),
            cases._pointer("y", Role.OUT, "rows * cols"),
        ),
        sizes=({"rows": 3, "cols": 5},),
    )


def test_sibling_inner_loops_may_reuse_a_variable_name() -> None:
    task = _two_row_passes("cols")
    assert Parallelize().apply(task.source, RewriteContext(task))


def test_each_access_is_judged_by_the_loop_around_it() -> None:
    task = _two_row_passes("2 * cols")  # the second pass runs into the next row
    verdict = Parallelize().applies(task.source, RewriteContext(task))
    assert not verdict.ok and "y[r * cols + c]" in verdict.reason


def _transpose(out_stride: str) -> Task:
    source = (
        "void transpose(int m, int n, const float* in, float* out) {\n"
        "  for (int i = 0; i < m; ++i) {\n"
        f"    for (int j = 0; j < n; ++j) out[j * {out_stride} + i] = in[i * n + j];\n"
        "  }\n}\n"
    )
    return cases.make_task(
        "transpose",
        source,
        "void transpose(int m, int n, const float* in, float* out)",
        (
            cases._scalar("m"),
            cases._scalar("n"),
            cases._pointer("in", length="m * n"),
            cases._pointer("out", Role.OUT, "n * m"),
        ),
        sizes=({"m": 1, "n": 1}, {"m": 7, "n": 5}, {"m": 33, "n": 64}),
    )


def test_column_writes_are_owned_by_their_iteration_and_get_a_2d_launch() -> None:
    task = _transpose("m")
    found = Parallelize().apply(task.source, RewriteContext(task))
    assert len(found) == 2  # 2-D first, then 1-D
    assert "blockIdx.y" in found[0].code and "blockIdx.y" not in found[1].code


def test_column_writes_with_a_stride_other_than_the_trip_count_are_refused() -> None:
    task = _transpose("n")  # rows of n, but i runs to m: columns may collide
    verdict = Parallelize().applies(task.source, RewriteContext(task))
    assert not verdict.ok and "out[j * n + i]" in verdict.reason


@pytest.mark.slow
def test_column_write_candidates_compute_what_the_reference_computes(tmp_path: Path) -> None:
    task = _transpose("m")
    found = Parallelize().apply(task.source, RewriteContext(task))
    all_pass(task, [c.code for c in found], tmp_path)


def _interior(lower: str, condition: str, prelude: str = "") -> Task:
    source = prelude + (
        "void interior(int h, int w, const float* in, float* out) {\n"
        "  for (int i = 1; i < h - 1; ++i) {\n"
        f"    for (int j = {lower}; {condition}; ++j)\n"
        "      out[i * w + j] = in[i * w + j - 1] + in[i * w + j + 1];\n"
        "  }\n}\n"
    )
    return cases.make_task(
        "interior",
        source,
        "void interior(int h, int w, const float* in, float* out)",
        (
            cases._scalar("h"),
            cases._scalar("w"),
            cases._pointer("in", length="h * w"),
            cases._pointer("out", Role.INOUT, "h * w"),
        ),
        sizes=({"h": 3, "w": 3}, {"h": 9, "w": 34}),
    )


@pytest.mark.parametrize(
    ("lower", "condition"),
    [("1", "j < w - 1"), ("2", "j <= w - 3"), ("0", "j < w")],
)
def test_inner_sweeps_inside_the_row_are_owned_and_get_a_2d_launch(
    lower: str, condition: str
) -> None:
    task = _interior(lower, condition)
    found = Parallelize().apply(task.source, RewriteContext(task))
    assert len(found) == 2 and "blockIdx.y" in found[0].code


@pytest.mark.parametrize("condition", ["j <= w", "j < w + 1", "j < w - 1 + 2", "j < 2 * w - 1"])
def test_inner_sweeps_that_may_leave_the_row_are_refused(condition: str) -> None:
    task = _interior("1", condition)
    verdict = Parallelize().applies(task.source, RewriteContext(task))
    assert not verdict.ok and "stays inside the row" in verdict.reason


def test_an_inner_sweep_bounded_by_another_name_is_mapped_where_it_fits_the_row() -> None:
    """``j < h`` in rows of ``w``: inside the row exactly when ``h <= w``, which the host
    checks before choosing the kernel or the loop as written (``LoopFacts.guards``)."""
    task = _interior("1", "j < h")
    found = Parallelize().apply(task.source, RewriteContext(task))
    guard = "if ((static_cast<long long>(h) <= static_cast<long long>(w))) {"
    assert found and all(guard in c.code for c in found)


NAMED_RADIUS = ("constexpr int R = 1;\n", "#define R 1\n", "static const unsigned R = 0x1u;\n")


@pytest.mark.parametrize("prelude", NAMED_RADIUS)
def test_an_inner_sweep_bounded_by_a_named_radius_is_owned(prelude: str) -> None:
    """``for (j = R; j < w - R; ++j)``: a stencil names its radius (the corpus's
    stencil2d_box1_f32_ptr was refused for it in both graphs' searches, 9696aa2); a constant
    defined as a literal is read as its value."""
    task = _interior("R", "j < w - R", prelude)
    found = Parallelize().apply(task.source, RewriteContext(task))
    assert len(found) == 2 and "blockIdx.y" in found[0].code


@pytest.mark.parametrize(
    ("prelude", "lower", "condition"),
    [
        ("constexpr int R = -1;\n", "R", "j < w - R"),  # starts before the row
        ("constexpr int R = 1;\n", "0", "j < w + R"),  # ends past it
    ],
)
def test_a_named_bound_that_may_leave_the_row_is_refused(
    prelude: str, lower: str, condition: str
) -> None:
    task = _interior(lower, condition, prelude)
    verdict = Parallelize().applies(task.source, RewriteContext(task))
    assert not verdict.ok and "stays inside the row" in verdict.reason


def test_a_radius_that_is_not_a_literal_is_checked_before_the_loop() -> None:
    """``constexpr int R = 2 - 1;`` is not read as 1: the host checks ``0 <= R`` (and so
    ``w - R <= w``) before it runs the kernel, the loop as written otherwise."""
    task = _interior("R", "j < w - R", "constexpr int R = 2 - 1;\n")
    found = Parallelize().apply(task.source, RewriteContext(task))
    assert found and "(0 <= static_cast<long long>(R))" in found[0].code


def test_a_parameter_that_shadows_a_named_radius_is_not_read_as_it() -> None:
    source = (
        "constexpr int R = 1;\n"
        "void interior(int h, int w, int R, const float* in, float* out) {\n"
        "  for (int i = 1; i < h - 1; ++i) {\n"
        "    for (int j = R; j < w - R; ++j) out[i * w + j] = in[i * w + j];\n"
        "  }\n}\n"
    )
    task = cases.make_task(
        "interior",
        source,
        "void interior(int h, int w, int R, const float* in, float* out)",
        (
            cases._scalar("h"),
            cases._scalar("w"),
            cases._scalar("R"),
            cases._pointer("in", length="h * w"),
            cases._pointer("out", Role.INOUT, "h * w"),
        ),
        sizes=({"h": 3, "w": 3, "R": 1},),
    )
    found = Parallelize().apply(task.source, RewriteContext(task))
    assert found and "(0 <= static_cast<long long>(R))" in found[0].code, (
        "the parameter is checked when the loop runs, not read as the constant"
    )


@pytest.mark.slow
def test_named_radius_candidates_compute_what_the_reference_computes(tmp_path: Path) -> None:
    task = _interior("R", "j < w - R", NAMED_RADIUS[0])
    found = Parallelize().apply(task.source, RewriteContext(task))
    all_pass(task, [c.code for c in found], tmp_path)


@pytest.mark.slow
def test_interior_sweep_candidates_compute_what_the_reference_computes(tmp_path: Path) -> None:
    task = _interior("1", "j < w - 1")
    found = Parallelize().apply(task.source, RewriteContext(task))
    all_pass(task, [c.code for c in found], tmp_path)


@pytest.mark.gpu
@requires_nvcc
def test_named_radius_candidates_agree_with_the_reference_on_the_gpu(tmp_path: Path) -> None:
    task = _interior("R", "j < w - R", NAMED_RADIUS[0])
    found = Parallelize().apply(task.source, RewriteContext(task))
    assert len(found) == 2
    all_pass(task, [c.code for c in found], tmp_path, run=run_on_gpu)


def _csr_without_nnz(row_ptr_role: str) -> Task:
    source = (
        "// regrapht: m = 40; n = 24; nnz = m*3\n"
        f"// regrapht: row_ptr[m+1] {row_ptr_role} ~ csr(col=col_idx, cols=n); col_idx[nnz] in\n"
        "// regrapht: vals[nnz] in ~ normal(0, 1); x[n] in; y[m] out\n"
        "void spmv(int m, int n, int* row_ptr, const int* col_idx, const float* vals,\n"
        "          const float* x, float* y) {\n"
        "  for (int i = 0; i < m; ++i) {\n"
        "    float acc = 0.0f;\n"
        "    for (int p = row_ptr[i]; p < row_ptr[i + 1]; ++p) acc += vals[p] * x[col_idx[p]];\n"
        "    y[i] = acc;\n"
        "  }\n}\n"
    )
    return extract_task(source, SourceLanguage.CPP, function="spmv")


def test_buffer_lengths_held_by_an_input_offsets_array_are_read_from_it() -> None:
    task = _csr_without_nnz("in")  # no nnz parameter: nnz is row_ptr[m]
    found = Parallelize().apply(task.source, RewriteContext(task))
    assert found and "static_cast<size_t>(row_ptr[m]) * sizeof(float)" in found[0].code


def test_buffer_lengths_held_by_an_output_offsets_array_are_refused() -> None:
    task = _csr_without_nnz("inout")  # the loop could change row_ptr before it is read
    verdict = Parallelize().applies(task.source, RewriteContext(task))
    assert not verdict.ok and "which no scalar parameter carries" in verdict.reason


@pytest.mark.slow
def test_csr_without_nnz_candidates_compute_what_the_reference_computes(tmp_path: Path) -> None:
    task = _csr_without_nnz("in")
    found = Parallelize().apply(task.source, RewriteContext(task))
    all_pass(task, [c.code for c in found], tmp_path)


SHORT_LOOP = cases.make_task(
    "head",
    "void head(int n, const float* x, float* y) {\n"
    "  for (int i = 0; i < n; ++i) y[i] = 2.0f * x[i];\n}\n",
    "void head(int n, const float* x, float* y)",
    (cases._scalar("n"), cases._pointer("x"), cases._pointer("y", Role.OUT, "n + 3")),
)


def test_an_output_the_loop_overwrites_is_not_uploaded() -> None:
    (code,) = _candidates(cases.VECTOR_ADD)
    assert "cudaMemcpy(d_c, c, c_bytes, cudaMemcpyHostToDevice)" not in code
    assert "cudaMemcpy(c, d_c, c_bytes, cudaMemcpyDeviceToHost)" in code


@pytest.mark.slow
def test_an_output_longer_than_the_loop_gets_back_only_what_was_written(
    tmp_path: Path,
) -> None:
    (candidate,) = Parallelize().apply(SHORT_LOOP.source, RewriteContext(SHORT_LOOP))
    assert "cudaMemcpy(d_y, y," not in candidate.code
    work = tmp_path / "written"
    work.mkdir()
    assert run_on_cpu(SHORT_LOOP, candidate.code, work) == "PASS"
    start = candidate.code.index("cudaMemcpy(y, d_y, ")
    end = candidate.code.index("cudaMemcpyDeviceToHost", start)
    whole = candidate.code[:start] + "cudaMemcpy(y, d_y, y_bytes, " + candidate.code[end:]
    work = tmp_path / "whole"
    work.mkdir()
    assert run_on_cpu(SHORT_LOOP, whole, work) != "PASS", "copying all of y back clobbers its tail"


def _sweep3d(
    prelude: str = "const int plane = nx * ny;",
    y: str = "y < ny - 1",
    x: str = "x < nx - 1",
    index: str = "z * plane + y * nx + x",
) -> Task:
    source = (
        "void sweep(int nx, int ny, int nz, const float* in, float* out) {\n"
        f"  {prelude}\n"
        "  for (int z = 1; z < nz - 1; ++z) {\n"
        f"    for (int y = 1; {y}; ++y) {{\n"
        f"      for (int x = 1; {x}; ++x) {{\n"
        f"        const int idx = {index};\n"
        "        out[idx] = 0.5f * in[idx] + 0.25f * (in[idx - 1] + in[idx + 1]);\n"
        "      }\n    }\n  }\n}\n"
    )
    return cases.make_task(
        "sweep",
        source,
        "void sweep(int nx, int ny, int nz, const float* in, float* out)",
        (
            cases._scalar("nx"),
            cases._scalar("ny"),
            cases._scalar("nz"),
            cases._pointer("in", length="nx * ny * nz"),
            cases._pointer("out", Role.INOUT, "nx * ny * nz"),
        ),
        sizes=({"nx": 3, "ny": 3, "nz": 3}, {"nx": 7, "ny": 5, "nz": 6}),
    )


@pytest.mark.parametrize(
    ("prelude", "index"),
    [
        ("const int plane = nx * ny;", "z * plane + y * nx + x"),
        ("const int plane = ny * nx;", "x + nx * y + plane * z"),
        ("", "z * nx * ny + y * nx + x"),
    ],
    ids=["named-plane", "reordered", "spelled-out"],
)
def test_a_3d_sweep_owns_its_plane_through_the_sub_rows_inside_it(prelude: str, index: str) -> None:
    """``out[z * plane + y * nx + x]``: ``y * nx + x`` stays below ``nx * ny`` when ``y``
    runs inside ``[0, ny)`` and ``x`` inside ``[0, nx)`` (the corpus's 3-D stencils, refused
    for `idx` in both graphs' searches)."""
    task = _sweep3d(prelude=prelude, index=index)
    found = Parallelize().apply(task.source, RewriteContext(task))
    # Each (z, y) owns the sub-row y of plane z: a 2-D launch first, one thread per z after.
    assert len(found) == 2 and "blockIdx.y" in found[0].code, found


def test_a_3d_sweep_whose_rows_share_elements_is_not_mapped_in_2d() -> None:
    """``out[z * nx * ny + x]`` inside a loop over ``y``: each z owns its plane, but every
    y of it writes the same elements, so (z, y) may not each get a thread."""
    task = _sweep3d(prelude="", x="x < nx * ny", index="z * nx * ny + x")
    found = Parallelize().apply(task.source, RewriteContext(task))
    assert len(found) == 1 and "blockIdx.y" not in found[0].code


@pytest.mark.parametrize(
    ("prelude", "y", "x", "index"),
    [
        ("const int plane = nx * ny;", "y < ny", "x < nx + 1", "z * plane + y * nx + x"),
        ("const int plane = nx * ny;", "y < ny + 1", "x < nx", "z * plane + y * nx + x"),
        ("int plane = nx * ny; plane += 1;", "y < ny", "x < nx", "z * plane + y * nx + x"),
        ("const int plane = nx * ny; nx = 2;", "y < ny", "x < nx", "z * plane + y * nx + x"),
        (
            "const int plane = nx * ny; int& r = nx; r = 9;",
            "y < ny",
            "x < nx",
            "z * plane + y * nx + x",
        ),
        ("const int plane = nx * ny;", "y < ny", "x < nx", "z * plane + y * nx - x"),
    ],
    ids=[
        "x-leaves",
        "y-leaves",
        "plane-changes",
        "factor-changes",
        "factor-bound-to-a-reference",
        "minus",
    ],
)
def test_a_3d_sweep_that_may_leave_its_plane_is_refused(
    prelude: str, y: str, x: str, index: str
) -> None:
    task = _sweep3d(prelude, y, x, index)
    verdict = Parallelize().applies(task.source, RewriteContext(task))
    assert not verdict.ok


@pytest.mark.parametrize(
    ("prelude", "index", "guards"),
    [
        ("const int plane = nx * ny;", "z * plane + y * ny + x", "(ny <= nx) && (nx <= ny)"),
        ("const int plane = nx * nz;", "z * plane + y * nx + x", "(ny <= nz)"),
    ],
    ids=["wrong-radix", "wrong-plane"],
)
def test_a_3d_sweep_that_fits_its_plane_for_some_sizes_is_mapped_for_those(
    prelude: str, index: str, guards: str
) -> None:
    """Rows of ``ny`` elements in planes of ``nx * ny`` stay in their plane when
    ``ny <= nx`` and ``nx <= ny``: checked before the loop, which runs as written otherwise."""
    task = _sweep3d(prelude, "y < ny", "x < nx", index)
    found = Parallelize().apply(task.source, RewriteContext(task))
    wide = re.sub(r"static_cast<long long>\((\w+)\)", r"\1", found[0].code)
    assert f"if ({guards}) {{" in wide


def _batched(prelude: str, inner: str) -> Task:
    source = prelude + (
        "void batched(int batch, const float* a, float* c) {\n"
        "  for (int b = 0; b < batch; ++b) {\n"
        "    const int base = b * S * S;\n"
        f"    for (int i = 0; {inner}; ++i)\n"
        "      for (int j = 0; j < S; ++j) c[base + i * S + j] = 2.0f * a[base + j * S + i];\n"
        "  }\n}\n"
    )
    return cases.make_task(
        "batched",
        source,
        "void batched(int batch, const float* a, float* c)",
        (
            cases._scalar("batch"),
            cases._pointer("a", length="batch * 16 * 16"),
            cases._pointer("c", Role.INOUT, "batch * 16 * 16"),
        ),
        sizes=({"batch": 1}, {"batch": 5}),
    )


@pytest.mark.parametrize("prelude", ["#define S 16\n", "constexpr int S = 16;\n"])
def test_a_batch_of_fixed_size_matrices_is_owned_matrix_by_matrix(prelude: str) -> None:
    """``c[base + i * S + j]`` with ``base = b * S * S``: the corpus's batched gemms."""
    task = _batched(prelude, "i < S")
    assert Parallelize().applies(task.source, RewriteContext(task)).ok
    leaving = _batched(prelude, "i <= S")
    assert not Parallelize().applies(leaving.source, RewriteContext(leaving)).ok


@pytest.mark.slow
def test_nested_row_candidates_compute_what_the_reference_computes(tmp_path: Path) -> None:
    for k, task in enumerate([_sweep3d(), _batched("#define S 16\n", "i < S")]):
        found = Parallelize().apply(task.source, RewriteContext(task))
        assert found
        work = tmp_path / str(k)
        work.mkdir()
        all_pass(task, [c.code for c in found], work)


@pytest.mark.gpu
@requires_nvcc
def test_nested_row_candidates_agree_with_the_reference_on_the_gpu(tmp_path: Path) -> None:
    for k, task in enumerate([_sweep3d(), _batched("#define S 16\n", "i < S")]):
        found = Parallelize().apply(task.source, RewriteContext(task))
        work = tmp_path / str(k)
        work.mkdir()
        all_pass(task, [c.code for c in found], work, run=run_on_gpu)
