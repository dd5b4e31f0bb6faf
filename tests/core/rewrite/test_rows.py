"""The row rewriter: a loop over independent rows whose rows reduce (softmax, layer norm,
gemv, CSR SpMV, row statistics) shares each row among a block or a warp; every other shape
is refused with the reason. Candidates are checked for structure, with nvcc, and on the
CPU emulator against the sequential reference."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from regrapht_core.contracts.proposal import ProposeRequest
from regrapht_core.contracts.task import SizeBinding, Task
from regrapht_core.optimize.rewriter_proposer import rewriter_propose_fn
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.rewrite.rows import RowReduction
from regrapht_core.tasks.extract import extract_task
from tests.core.rewrite.support import (
    compile_cuda,
    requires_nvcc,
    run_on_cpu,
    run_on_gpu,
    unvalidated_task,
)

TASKS = Path(__file__).resolve().parents[3] / "benchmarks" / "tasks"


def benchmark(name: str, function: str, *sizes: SizeBinding) -> Task:
    """A task of the benchmark suite; ``sizes``, when given, replace its correctness sizes
    (the emulator runs a thread per CUDA thread, so its rows must be few)."""
    task = extract_task((TASKS / f"{name}.cpp").read_text(), "cpp", function=function)
    return dataclasses.replace(task, correctness_sizes=sizes) if sizes else task


SOFTMAX = ("rows_softmax", "softmax_rows")
LAYERNORM = ("rows_layernorm", "layernorm_rows")
GEMV = ("dense_gemv", "gemv")
SPMV = ("sparse_spmv_csr", "spmv_csr")
SPMV_NONNZ = ("sparse_spmv_csr_nonnz", "spmv_csr_nonnz")
BENCHMARKS = [SOFTMAX, LAYERNORM, GEMV, SPMV, SPMV_NONNZ]

SMALL: dict[str, tuple[SizeBinding, ...]] = {  # the emulator draws col_idx from 0..9: n >= 10
    "rows_softmax": ({"rows": 3, "cols": 300}, {"rows": 10, "cols": 5}),
    "rows_layernorm": ({"rows": 3, "cols": 300}, {"rows": 10, "cols": 1}),
    "dense_gemv": ({"m": 3, "n": 700}, {"m": 11, "n": 3}),
    "sparse_spmv_csr": ({"m": 20, "n": 40, "nnz": 320}, {"m": 3, "n": 10, "nnz": 900}),
    "sparse_spmv_csr_nonnz": ({"m": 20, "n": 40, "nnz": 320}, {"m": 3, "n": 10, "nnz": 900}),
}

STATS = unvalidated_task(
    "#include <algorithm>\n"
    "// regrapht: rows = 9; cols = 300; x[rows*cols] in ~ int(-50, 50)\n"
    "// regrapht: lo[rows] out; hi[rows] out; total[rows] out\n"
    "void row_stats(int rows, int cols, const int* x, int* lo, int* hi, long long* total) {\n"
    "  for (int r = 0; r < rows; ++r) {\n"
    "    int mn = x[r * cols];\n"
    "    int mx = mn;\n"
    "    long long s = 0;\n"
    "    for (int c = 1; c < cols; ++c) {\n"
    "      int v = x[r * cols + c];\n"
    "      if (v < mn) mn = v;\n"
    "      mx = std::max(mx, v);\n"
    "      s += v;\n"
    "    }\n"
    "    lo[r] = mn;\n"
    "    hi[r] = mx;\n"
    "    total[r] = s + x[r * cols];\n"
    "  }\n"
    "}\n",
    "row_stats",
)
"""Integer min, max (both spellings) and a 64-bit sum from a first element on: exact."""

NORMALIZE = unvalidated_task(
    "#include <cmath>\n"
    "// regrapht: rows = 9; cols = 300; a[rows*cols] inout; norms[rows] out\n"
    "void normalize(int rows, int cols, float* a, float* norms) {\n"
    "  for (int r = 0; r < rows; ++r) {\n"
    "    float ss = 0.0f;\n"
    "    for (int c = 0; c < cols; ++c) ss += a[r * cols + c] * a[r * cols + c];\n"
    "    norms[r] = sqrtf(ss) + 1.0f;\n"
    "    float inv = 1.0f / norms[r];\n"
    "    for (int c = 0; c < cols; ++c) a[r * cols + c] *= inv;\n"
    "  }\n"
    "}\n",
    "normalize",
)
"""A row statement's store read back by every thread: a barrier must follow it."""

CSR_SCALE = unvalidated_task(
    "// regrapht: m = 20; n = 40; nnz = m*16\n"
    "// regrapht: row_ptr[m+1] in ~ csr(col=col_idx, cols=n); col_idx[nnz] in\n"
    "// regrapht: vals[nnz] inout ~ uniform(1, 2)\n"
    "void csr_scale(int m, int n, int nnz, const int* row_ptr, const int* col_idx, "
    "float* vals) {\n"
    "  for (int i = 0; i < m; ++i) {\n"
    "    float s = 0.0f;\n"
    "    for (int p = row_ptr[i]; p < row_ptr[i + 1]; ++p) s += vals[p] * (col_idx[p] + 1);\n"
    "    for (int q = row_ptr[i]; q < row_ptr[i + 1]; ++q) vals[q] /= s;\n"
    "  }\n"
    "}\n",
    "csr_scale",
)
"""Writes in a phase whose bounds read data, read back by the next phase."""


def candidates(task: Task) -> list[str]:
    return [c.code for c in RowReduction().apply(task.source, RewriteContext(task))]


def refusal(body: str, *, extra: str = "", before: str = "") -> str:
    task = unvalidated_task(
        f"{extra}// regrapht: rows = 64; cols = 64; x[rows*cols] in; y[rows*cols] out; "
        "z[rows] out\n"
        "void rows_of(int rows, int cols, const float* x, float* y, float* z) {\n"
        f"{before}  for (int r = 0; r < rows; ++r) {{\n{body}\n  }}\n}}\n",
        "rows_of",
    )
    return RowReduction().applies(task.source, RewriteContext(task)).reason


@pytest.mark.parametrize(("name", "function"), BENCHMARKS, ids=[b[0] for b in BENCHMARKS])
def test_the_row_benchmarks_are_answered_first_by_the_row_rewriter(
    name: str, function: str
) -> None:
    task = benchmark(name, function)
    proposal = rewriter_propose_fn()(
        ProposeRequest(task, "sequential", "parallelization", task.source)
    )
    assert proposal.code is not None, proposal.message
    assert proposal.producer == "rewriter:warp_shuffle_reduction"
    assert "__shfl_xor_sync" in proposal.code


def test_a_block_shares_each_dense_row_and_a_warp_comes_second() -> None:
    block, warp = candidates(benchmark(*SOFTMAX))
    assert "for (int r = static_cast<int>(blockIdx.x); r < rows; r += " in block
    assert "for (int k = static_cast<int>(threadIdx.x); k < cols; " in block
    # 128 threads (4 warps) by default: the block size measured fastest for softmax rows.
    assert "__shared__ float mx_warps[4];" in block and "__shared__ float sum_warps[4];" in block
    assert "mx = other > mx ? other : mx;" in block
    assert "const float sum_before = sum;" in block and "sum = sum_before + sum;" in block
    # Both phases before the scaling reduce, and a block's combine ends with a barrier.
    assert block.count("__syncthreads();") == 4 and "__syncwarp" not in block
    assert "static_cast<int>(blockIdx.x) * 4 + static_cast<int>(threadIdx.x / 32u)" in warp
    assert "for (int j = static_cast<int>(lane); j < cols; j += 32)" in warp
    assert "__syncthreads" not in warp and "__shared__" not in warp
    # The scaling reads what the previous phase wrote, in other lanes.
    assert "__syncwarp();\n    for (int j = static_cast<int>(lane);" in warp


def test_a_warp_shares_each_sparse_row_first_and_one_thread_stores_it() -> None:
    warp, block = candidates(benchmark(*SPMV))
    loop = "for (int p = row_ptr[i] + static_cast<int>(lane); p < row_ptr[i + 1]; p += 32)"
    assert loop in warp
    assert "if (lane == 0u) {\n      y[i] = acc;\n    }" in warp
    assert "if (threadIdx.x == 0u) {\n      y[i] = acc;\n    }" in block
    assert "cudaMemcpy(d_y, y" not in warp  # every row stores its element: no upload


def test_the_store_of_a_row_statement_is_fenced_from_its_readers() -> None:
    block, warp = candidates(NORMALIZE)
    stored = "if (threadIdx.x == 0u) {\n      norms[r] = sqrtf(ss) + 1.0f;\n    }\n"
    assert stored + "    __syncthreads();\n    float inv = 1.0f / norms[r];" in block
    assert "}\n    __syncwarp();\n    float inv = 1.0f / norms[r];" in warp


def test_std_max_becomes_the_device_max() -> None:
    (code, _) = candidates(STATS)
    assert "mx = max(mx, v);" in code and "std::max" not in code.split("void row_stats")[0]
    assert "for (int c = 1 + static_cast<int>(threadIdx.x); c < cols; " in code


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("    for (int c = 0; c < cols; ++c) y[r * cols + c] = 2.0f * x[r * cols + c];",
         "the row is one inner loop that reduces nothing"),
        ("    z[r] = x[r * cols];", "the loop has no inner loop over its row"),
        ("    float s = 0.0f;\n    for (int c = 0; c < cols; ++c) { s += x[r * cols + c]; "
         "s = 0.5f / s; }\n    z[r] = s;",
         "in the row's loop over `c`: `s` is assigned in the loop (`s = 0.5f / s`)"),
        ("    float s = 0.0f;\n    for (int c = 0; c < cols; ++c) { s += x[r * cols + c]; "
         "y[r * cols + c] = s; }",
         "in the row's loop over `c`: the loop reads `s` outside its update"),
        ("    float s = 0.0f;\n    for (int c = 0; c < cols; ++c) s += x[r * cols + c];\n"
         "    for (int c = 0; c < cols; ++c) y[r * cols + c] = y[r * cols] + s;",
         "in the row's loop over `c`: the loop reads `y[r * cols]` through an index that is "
         "not affine in `c`"),
        ("    float s = 0.0f;\n    for (int c = 0; c < cols; ++c) s += x[r * cols + c];\n"
         "    if (s > 0.0f) { z[r] = s; s = 0.0f; }",
         "writes `z` and a scalar of the row"),
        ("    float s = 0.0f;\n    for (int c = 0; c < cols; ++c) s += x[r * cols + c];\n"
         "    if (s > 0.0f) for (int c = 0; c < cols; ++c) y[r * cols + c] = s;",
         "inside another statement"),
        ("    float s[2] = {0.0f, 0.0f};\n    for (int c = 0; c < cols; ++c) "
         "s[0] += x[r * cols + c];\n    z[r] = s[0];",
         "the row declares `s` (float), which is not a scalar"),
        ("    float s = 0.0f;\n    int c;\n    for (c = 0; c < cols; ++c) s += x[r * cols + c];"
         "\n    z[r] = s;",
         "the row's loop over `c` does not declare its variable"),
        ("    float s = 0.0f;\n    if (cols == 0) continue;\n"
         "    for (int c = 0; c < cols; ++c) s += x[r * cols + c];\n    z[r] = s;",
         "the row ends early with `continue;`"),
        ("    float s = 0.0f;\n    for (int k = 0; k < TAPS; ++k) s += x[r * cols + k];\n"
         "    z[r] = s;",
         "the row's loops have fixed trip counts (`k < TAPS`)"),
        ("    float s = 0.0f;\n    for (int c = 0; c < rows; ++c) s += x[c * rows + r];\n"
         "    z[r] = s;",
         "`x[c * rows + r]` steps by `rows` along the row but by one from row to row"),
        ("    float s = 0.0f;\n    for (int c = 0; c + rows <= cols; ++c) s += x[r * cols + c];"
         "\n    z[r] = s;",
         "the row's loop over `c` stops short of its bound by a name"),
    ],
    ids=["map", "no-inner-loop", "not-a-reduction", "running-value", "carried", "store-and-scalar",
         "nested", "row-array", "outer-variable", "continue", "fixed", "column-walk", "shifted"],
)  # fmt: skip
def test_rows_the_rewriter_cannot_share_are_refused_with_the_reason(body: str, reason: str) -> None:
    assert reason in refusal(body, extra="#define TAPS 8\n")


def test_a_sum_across_rows_is_left_to_the_reduction_rewriter() -> None:
    reason = refusal(
        "    float s = 0.0f;\n    for (int c = 0; c < cols; ++c) s += x[r * cols + c];\n"
        "    total += s;",
        before="  float total = 0.0f;\n",
    )
    assert "accumulates into `total` across rows" in reason


def test_a_bound_the_row_changes_is_refused() -> None:
    reason = refusal(
        "    float s = 0.0f;\n    for (int c = 0; c < cols - (int)s; ++c) s += x[r * cols + c];"
        "\n    z[r] = s;"
    )
    assert "the bound `cols - (int)s` of the row's loop over `c` reads `s`" in reason


@requires_nvcc
@pytest.mark.parametrize("task", [benchmark(*SOFTMAX), benchmark(*SPMV), STATS, CSR_SCALE],
                         ids=["softmax", "spmv", "stats", "csr-scale"])  # fmt: skip
def test_the_candidates_compile_with_nvcc(task: Task, tmp_path: Path) -> None:
    for number, code in enumerate(candidates(task)):
        work = tmp_path / str(number)
        work.mkdir()
        compile_cuda(code, work)


EMULATED = [benchmark(*b, *SMALL[b[0]]) for b in BENCHMARKS] + [STATS, NORMALIZE, CSR_SCALE]
EMULATED_IDS = [b[0] for b in BENCHMARKS] + ["stats", "normalize", "csr-scale"]


@pytest.mark.slow
@pytest.mark.parametrize("task", EMULATED, ids=EMULATED_IDS)
def test_the_candidates_compute_what_the_reference_computes(task: Task, tmp_path: Path) -> None:
    for number, code in enumerate(candidates(task)):
        work = tmp_path / str(number)
        work.mkdir()
        assert run_on_cpu(task, code, work) == "PASS", code


@pytest.mark.slow
def test_a_combine_that_drops_warps_fails_the_emulated_run(tmp_path: Path) -> None:
    task = benchmark(*SOFTMAX, *SMALL["rows_softmax"])
    block, _ = candidates(task)
    broken = block.replace("for (int w = 1; w < 4; ++w)", "for (int w = 1; w < 1; ++w)")
    assert broken != block
    assert "FAIL" in run_on_cpu(task, broken, tmp_path)


GPU = [benchmark(*b) for b in BENCHMARKS] + [STATS, NORMALIZE, CSR_SCALE]


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("task", GPU, ids=EMULATED_IDS)
def test_the_candidates_agree_with_the_reference_on_the_gpu(task: Task, tmp_path: Path) -> None:
    for number, code in enumerate(candidates(task)):
        work = tmp_path / str(number)
        work.mkdir()
        assert run_on_gpu(task, code, work) == "PASS", code
